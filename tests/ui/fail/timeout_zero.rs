use mcp_runtime::prelude::*;

/// Reads.
#[mcp_tool(timeout = "0s")]
async fn read(path: String) -> String {
    path
}

fn main() {}
