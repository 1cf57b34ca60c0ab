use mcp_runtime::prelude::*;

/// Echoes.
#[mcp_tool(name = 5)]
async fn echo(text: String) -> String {
    text
}

fn main() {}
