//! `echo-server`'s two tools served the way a generated project serves its own: one
//! `launcher!().run(server)` in `main`, so the runtime, the logging and the command line are
//! the launcher's defaults (stdio on one thread, HTTP on a pool, the audit trail on).
//! `bench/compare.sh` runs it beside `echo-server`, whose `main` picks its runtime itself.

use mcp_runtime::prelude::*;
use mcp_runtime::server::BuildError;
use std::process::ExitCode;

/// Returns the given text unchanged.
#[mcp_tool(read_only, idempotent, open_world = false)]
async fn echo(
    /// The text to echo back
    text: String,
) -> String {
    text
}

/// Adds two numbers and returns the sum.
#[mcp_tool(read_only, idempotent, open_world = false)]
async fn add(
    /// The first addend
    a: f64,
    /// The second addend
    b: f64,
) -> f64 {
    a + b
}

fn server() -> Result<Server, BuildError> {
    Server::builder("launched-echo", env!("CARGO_PKG_VERSION"))
        .tool(echo::tool())
        .tool(add::tool())
        .build()
}

fn main() -> ExitCode {
    mcp_runtime::launcher!().run(server)
}
