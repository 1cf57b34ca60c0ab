use mcp_runtime::prelude::*;

/// Echoes.
#[mcp_tool(icons = ["http://example.com/icon.png"])]
async fn echo(text: String) -> String {
    text
}

fn main() {}
