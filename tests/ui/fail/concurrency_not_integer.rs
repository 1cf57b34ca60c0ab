use mcp_runtime::prelude::*;

/// Reads.
#[mcp_tool(concurrency = "4")]
async fn read(path: String) -> String {
    path
}

fn main() {}
