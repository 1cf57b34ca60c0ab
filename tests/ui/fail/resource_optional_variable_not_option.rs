use mcp_runtime::prelude::*;

/// Search results.
#[mcp_resource(template = "search://{index}{?q}")]
async fn search(index: String, q: String) -> String {
    format!("{index}: {q}")
}

fn main() {}
