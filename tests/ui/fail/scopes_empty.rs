use mcp_runtime::prelude::*;

/// Reads.
#[mcp_tool(scopes = [])]
async fn read(path: String) -> String {
    path
}

fn main() {}
