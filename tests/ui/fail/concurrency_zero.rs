use mcp_runtime::prelude::*;

/// Reads.
#[mcp_tool(concurrency = 0)]
async fn read(path: String) -> String {
    path
}

fn main() {}
