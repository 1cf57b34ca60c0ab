use mcp_runtime::prelude::*;

struct UserId(u32);

/// A user's profile.
#[mcp_resource(template = "users://{id}")]
async fn profile(id: UserId) -> String {
    id.0.to_string()
}

fn main() {}
