use mcp_runtime::prelude::*;

/// Asks for a review.
#[mcp_prompt]
async fn review(code: String) -> Option<String> {
    Some(code)
}

fn main() {}
