use mcp_runtime::prelude::*;

/// Echoes.
#[mcp_tool]
async fn echo(value: String) -> impl IntoToolResult {
    value
}

fn main() {}
