use mcp_runtime::prelude::*;

#[mcp_tool(description = "  ")]
async fn echo(text: String) -> String {
    text
}

fn main() {}
