use mcp_runtime::prelude::*;

struct Point {
    x: f64,
}

/// Uses a point.
#[mcp_tool]
async fn norm(point: Point) -> f64 {
    point.x.abs()
}

fn main() {}
