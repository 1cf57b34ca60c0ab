use mcp_runtime::prelude::*;

/// Uses an injected string.
#[mcp_tool]
async fn greet(#[mcp(inject)] name: String) -> String {
    name
}

fn main() {}
