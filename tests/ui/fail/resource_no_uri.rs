use mcp_runtime::prelude::*;

/// The configuration.
#[mcp_resource(mime_type = "application/json")]
async fn config() -> String {
    "{}".into()
}

fn main() {}
