//! `crate = path`: the runtime reached through a re-export.

mod reexport {
    pub use mcp_runtime as runtime;
}

use reexport::runtime::prelude::*;

/// Echoes through a re-exported runtime.
#[mcp_tool(crate = reexport::runtime)]
async fn echo(text: String) -> String {
    text
}

/// A resource through a re-exported runtime.
#[mcp_resource(uri = "echo://last", crate = reexport::runtime)]
async fn last() -> String {
    String::new()
}

/// A template through a re-exported runtime.
#[mcp_resource(template = "echo://{text}", crate = reexport::runtime)]
async fn echoed(text: String) -> String {
    text
}

/// A prompt through a re-exported runtime.
#[mcp_prompt(crate = reexport::runtime)]
async fn say(text: String) -> String {
    text
}

fn main() {
    let _ = echo::tool();
    let _ = last::resource();
    let _ = echoed::template();
    let _ = say::prompt();
}
