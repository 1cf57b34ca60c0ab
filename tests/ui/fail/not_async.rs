use mcp_runtime::prelude::*;

/// Adds.
#[mcp_tool]
fn add(a: i32, b: i32) -> i32 {
    a + b
}

fn main() {}
