use mcp_runtime::prelude::*;

/// Reads.
#[mcp_tool(concurrency = 2, timeout = "5s", concurrency = 4)]
async fn read(path: String) -> String {
    path
}

fn main() {}
