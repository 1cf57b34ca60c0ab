use mcp_runtime::prelude::*;

/// Reads.
#[mcp_tool(timeout = "1.5s")]
async fn read(path: String) -> String {
    path
}

fn main() {}
