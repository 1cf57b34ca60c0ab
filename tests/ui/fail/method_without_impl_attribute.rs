use mcp_runtime::prelude::*;

struct Notes;

impl Notes {
    /// Lists notes.
    #[mcp_tool]
    async fn list(&self) -> String {
        String::new()
    }
}

fn main() {}
