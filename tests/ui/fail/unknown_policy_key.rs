use mcp_runtime::prelude::*;

/// Reads.
#[mcp_tool(ratelimit = "10/s")]
async fn read(path: String) -> String {
    path
}

fn main() {}
