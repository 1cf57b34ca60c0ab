use mcp_runtime::prelude::*;

struct Notes {
    count: u32,
}

#[mcp_tools]
impl Notes {
    /// Counts.
    #[mcp_tool]
    async fn bump(&mut self) -> u32 {
        self.count += 1;
        self.count
    }
}

fn main() {}
