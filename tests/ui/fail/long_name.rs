use mcp_runtime::prelude::*;

/// Echoes.
#[mcp_tool(name = "nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn")]
async fn echo(text: String) -> String {
    text
}

fn main() {}
