use mcp_runtime::prelude::*;

/// Looks twice.
#[mcp_tool]
async fn look(first: RequestContext, second: RequestContext) -> String {
    format!("{} {}", first.era(), second.era())
}

fn main() {}
