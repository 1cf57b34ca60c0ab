use mcp_runtime::prelude::*;

/// Echoes.
#[mcp_tool(read_only = "yes")]
async fn echo(text: String) -> String {
    text
}

fn main() {}
