use mcp_runtime::prelude::*;

struct Reading {
    value: f64,
}

/// Reads.
#[mcp_tool]
async fn read() -> Reading {
    Reading { value: 1.0 }
}

fn main() {}
