use mcp_runtime::prelude::*;

/// Reads.
#[mcp_tool(scopes = ["files:read", "files write"])]
async fn read(path: String) -> String {
    path
}

fn main() {}
