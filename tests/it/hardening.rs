//! Hardening (the availability findings): what hostile or careless input can no longer do.

use mcp_runtime::client::{Client, EraMode};
use mcp_runtime::prelude::*;
use serde_json::json;

/// Sums numbers.
#[mcp_tool]
async fn sum(
    /// The numbers
    xs: Vec<f64>,
) -> f64 {
    xs.iter().sum()
}

#[tokio::test]
async fn a_flood_of_wrong_arguments_gets_a_short_answer_that_counts_the_rest() {
    let server = Server::builder("flood", "1.0.0")
        .tool(sum::tool())
        .build()
        .unwrap();
    let client = Client::memory(&server);
    client.connect(EraMode::Legacy).await.unwrap();
    // About 3.5 MiB of strings where numbers belong: 700,000 violations, and before the
    // bound, a message listing each of them (some 40 MiB).
    let flood = json!({"xs": vec!["nope"; 700_000]});
    let result = client.call_tool("sum", flood).await.unwrap();
    assert!(result.is_error());
    let text = result.first_text().unwrap();
    assert!(text.len() < 8 * 1024, "{} bytes", text.len());
    assert!(
        text.starts_with("Invalid arguments for tool `sum` (more than 100000 problems):\n- at /xs/0: \"nope\" is not of type \"number\""),
        "{}",
        &text[..200]
    );
    assert!(
        text.contains("\n- …and more than 99980 more\nCorrect the arguments"),
        "{text}"
    );
    // A few mistakes are all listed.
    let result = client
        .call_tool("sum", json!({"xs": [1, "a", "b"]}))
        .await
        .unwrap();
    let text = result.first_text().unwrap();
    assert!(
        text.contains("(2 problems)") && !text.contains("more"),
        "{text}"
    );
}
