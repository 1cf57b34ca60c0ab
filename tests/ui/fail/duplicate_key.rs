use mcp_runtime::prelude::*;

/// Echoes.
#[mcp_tool(read_only, idempotent, read_only)]
async fn echo(text: String) -> String {
    text
}

fn main() {}
