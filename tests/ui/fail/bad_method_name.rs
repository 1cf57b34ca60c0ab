use mcp_runtime::prelude::*;

struct Notes;

#[mcp_tools]
impl Notes {
    /// Adds a note.
    #[mcp_tool(name = "notes/add")]
    async fn add(&self, text: String) -> String {
        text
    }
}

fn main() {}
