use mcp_runtime::prelude::*;
use mcp_runtime::tool::FromContext;

/// The caller's identity.
struct Identity(String);

impl FromContext for Identity {
    type Rejection = std::convert::Infallible;

    fn from_context(_: &RequestContext) -> Result<Self, Self::Rejection> {
        Ok(Identity("anonymous".into()))
    }
}

/// Greets the caller.
#[mcp_prompt]
async fn greet(who: Identity) -> String {
    format!("Greet {}.", who.0)
}

fn main() {}
