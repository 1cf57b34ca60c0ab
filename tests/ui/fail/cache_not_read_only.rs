use mcp_runtime::prelude::*;

/// Counts.
#[mcp_tool(idempotent, cache = "60s")]
async fn count(path: String) -> String {
    path
}

fn main() {}
