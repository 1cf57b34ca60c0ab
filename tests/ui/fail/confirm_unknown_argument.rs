use mcp_runtime::prelude::*;

/// Deletes a file.
#[mcp_tool(destructive, confirm = "Delete {file}?")]
async fn delete(path: String) -> String {
    path
}

fn main() {}
