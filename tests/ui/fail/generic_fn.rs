use mcp_runtime::prelude::*;

/// Echoes.
#[mcp_tool]
async fn echo<T: serde::de::DeserializeOwned + schemars::JsonSchema + ToString>(value: T) -> String {
    value.to_string()
}

fn main() {}
