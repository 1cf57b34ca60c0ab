use mcp_runtime::prelude::*;

/// The configuration.
#[mcp_resource(uri = "config://app", template = "config://{section}")]
async fn config(section: String) -> String {
    section
}

fn main() {}
