use mcp_runtime::prelude::*;

/// Deletes everything, read-only.
#[mcp_tool(read_only, destructive)]
async fn wipe() -> String {
    String::new()
}

fn main() {}
