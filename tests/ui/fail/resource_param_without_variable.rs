use mcp_runtime::prelude::*;

/// A user's profile.
#[mcp_resource(template = "users://{id}/profile")]
async fn profile(id: u32, name: String) -> String {
    format!("{id} {name}")
}

fn main() {}
