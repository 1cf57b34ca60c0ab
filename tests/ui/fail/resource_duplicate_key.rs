use mcp_runtime::prelude::*;

/// The configuration.
#[mcp_resource(uri = "config://app", uri = "config://other")]
async fn config() -> String {
    "{}".into()
}

fn main() {}
