use mcp_runtime::prelude::*;

/// Adds a pair.
#[mcp_tool]
async fn add((a, b): (i32, i32)) -> i32 {
    a + b
}

fn main() {}
