use mcp_runtime::prelude::*;

/// The configuration.
#[mcp_resource(uri = "config://app", mime = "application/json")]
async fn config() -> String {
    "{}".into()
}

fn main() {}
