use mcp_runtime::prelude::*;

/// Echoes.
#[mcp_tool]
async fn echo(text: &'static str) -> String {
    text.to_owned()
}

fn main() {}
