use mcp_runtime::prelude::*;

/// Reads.
#[mcp_tool(rate_limit = "0/s")]
async fn read(path: String) -> String {
    path
}

fn main() {}
