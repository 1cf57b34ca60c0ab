use mcp_runtime::prelude::*;

/// Reads.
#[mcp_tool(timeout = "3d")]
async fn read(path: String) -> String {
    path
}

fn main() {}
