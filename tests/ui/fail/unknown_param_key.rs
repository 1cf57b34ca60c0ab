use mcp_runtime::prelude::*;

/// Echoes.
#[mcp_tool]
async fn echo(#[mcp(optional)] text: String) -> String {
    text
}

fn main() {}
