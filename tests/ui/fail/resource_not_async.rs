use mcp_runtime::prelude::*;

/// The configuration.
#[mcp_resource(uri = "config://app")]
fn config() -> String {
    "{}".into()
}

fn main() {}
