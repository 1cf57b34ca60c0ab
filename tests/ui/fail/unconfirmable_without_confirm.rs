use mcp_runtime::prelude::*;

/// Deletes a file.
#[mcp_tool(destructive, unconfirmable = "run")]
async fn delete(path: String) -> String {
    path
}

fn main() {}
