use mcp_runtime::prelude::*;

/// Echoes.
#[mcp_tool(name = "echo text!")]
async fn echo(text: String) -> String {
    text
}

fn main() {}
