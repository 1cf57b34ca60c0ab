use mcp_runtime::prelude::*;

/// A user's profile.
#[mcp_resource(template = "users://{name}")]
async fn profile(#[mcp(complete = names)] name: String) -> String {
    name
}

fn names(prefix: String) -> Vec<String> {
    vec![prefix]
}

fn main() {}
