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

fn main() {
    let _ = echo::tool();
}
