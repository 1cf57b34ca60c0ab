use mcp_runtime::prelude::*;

/// The configuration of one section.
#[mcp_resource(uri = "config://app")]
async fn config(section: String) -> String {
    section
}

fn main() {}
