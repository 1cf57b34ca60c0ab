use mcp_runtime::prelude::*;
use std::collections::BTreeMap;

/// Asks for a review.
#[mcp_prompt]
async fn review(#[mcp(complete = languages)] language: String) -> String {
    format!("Review this {language}.")
}

fn languages(_value: &str, _chosen: &BTreeMap<String, String>) -> String {
    "rust".into()
}

fn main() {}
