use mcp_runtime::prelude::*;

/// Reads.
#[mcp_tool(timeout = "30")]
async fn read(path: String) -> String {
    path
}

fn main() {}
