use mcp_runtime::prelude::*;

/// Echoes.
#[mcp_tool(name = "has space")]
async fn echo(text: String) -> String {
    text
}

fn main() {}
