use mcp_runtime::prelude::*;

struct Store<T>(T);

#[mcp_tools]
impl<T: Send + Sync + 'static> Store<T> {
    /// Reads.
    #[mcp_tool]
    async fn read(&self) -> String {
        String::new()
    }
}

fn main() {}
