use mcp_runtime::prelude::*;

/// Asks for a review.
#[mcp_prompt(name = "code review")]
async fn review(code: String) -> String {
    format!("Review:\n{code}")
}

fn main() {}
