use mcp_runtime::prelude::*;

struct Snippet {
    code: String,
}

/// Asks for a review.
#[mcp_prompt]
async fn review(snippet: Snippet) -> String {
    format!("Review:\n{}", snippet.code)
}

fn main() {}
