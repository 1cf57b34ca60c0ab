use mcp_runtime::prelude::*;

/// Echoes.
#[mcp_tool(readonly)]
async fn echo(text: String) -> String {
    text
}

fn main() {}
