use mcp_runtime::prelude::*;

/// Copies.
#[mcp_tool]
async fn copy(
    #[serde(rename = "to")] from: String,
    to: String,
) -> String {
    from + &to
}

fn main() {}
