use mcp_runtime::prelude::*;

/// A user's profile.
#[mcp_resource(template = "users://{id/profile")]
async fn profile(id: String) -> String {
    id
}

fn main() {}
