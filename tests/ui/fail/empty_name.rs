use mcp_runtime::prelude::*;

/// Echoes.
#[mcp_tool(name = "")]
async fn echo(text: String) -> String {
    text
}

fn main() {}
