use mcp_runtime::prelude::*;

/// Echoes.
#[mcp_tool]
async fn echo(value: impl ToString) -> String {
    value.to_string()
}

fn main() {}
