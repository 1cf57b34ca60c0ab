use mcp_runtime::prelude::*;

type Context = RequestContext;

/// Says which era the call came in.
#[mcp_tool]
async fn era(cx: Context) -> String {
    cx.era().to_string()
}

fn main() {}
