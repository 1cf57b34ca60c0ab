use mcp_runtime::prelude::*;

/// Reads.
#[mcp_tool(cache = "60s")]
async fn read(path: String) -> String {
    path
}

fn main() {}
