use mcp_runtime::prelude::*;

/// Echoes.
#[mcp_tool]
async fn eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee(text: String) -> String {
    text
}

fn main() {}
