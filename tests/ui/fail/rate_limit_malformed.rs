use mcp_runtime::prelude::*;

/// Reads.
#[mcp_tool(rate_limit = "10/d")]
async fn read(path: String) -> String {
    path
}

fn main() {}
