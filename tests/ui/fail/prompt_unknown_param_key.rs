use mcp_runtime::prelude::*;

/// Asks for a review.
#[mcp_prompt]
async fn review(#[mcp(default = "rust")] language: String) -> String {
    format!("Review this {language}.")
}

fn main() {}
