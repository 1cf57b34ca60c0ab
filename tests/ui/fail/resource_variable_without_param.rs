use mcp_runtime::prelude::*;

/// A user's profile.
#[mcp_resource(template = "users://{id}/profile{?fields}")]
async fn profile(fields: Option<String>) -> String {
    fields.unwrap_or_default()
}

fn main() {}
