use mcp_runtime::prelude::*;

/// Echoes.
#[mcp_tool]
async fn echo(#[mcp(inject, arg)] cx: RequestContext) -> String {
    cx.era().to_string()
}

fn main() {}
