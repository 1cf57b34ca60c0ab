use mcp_runtime::prelude::*;

#[mcp_tool]
async fn echo(text: String) -> String {
    text
}

fn main() {}
