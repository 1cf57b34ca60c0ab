use mcp_runtime::prelude::*;

/// A struct.
#[mcp_tool]
struct Echo;

fn main() {}
