use mcp_runtime::prelude::*;

/// Adds.
#[mcp_tool]
async unsafe fn add(a: i32, b: i32) -> i32 {
    a + b
}

fn main() {}
