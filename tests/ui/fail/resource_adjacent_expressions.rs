use mcp_runtime::prelude::*;

/// A pair of values with nothing between them.
#[mcp_resource(template = "pairs://{a}{b}")]
async fn pair(a: String, b: String) -> String {
    a + &b
}

fn main() {}
