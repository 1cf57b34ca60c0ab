//! `echo-server`: the smallest useful MCP server, with tools `echo` and `add`.
//!
//! ```text
//! echo-server [--transport stdio]
//! ```
//!
//! Serves both protocol eras over stdio. Logs go to stderr (`RUST_LOG` filters them).

use clap::Parser;
use mcp_runtime::prelude::*;
use std::process::ExitCode;

/// Command-line options.
#[derive(Debug, Parser)]
#[command(version, about = "An MCP server with the tools `echo` and `add`")]
struct Args {
    #[command(flatten)]
    transport: mcp_examples::TransportArgs,
}

/// Shown on stderr when stdin is a terminal.
const TERMINAL_HINT: &str = "echo-server: serving MCP on stdio; paste one JSON-RPC message per line, e.g.
{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"hi\"}}}
(Ctrl-D to quit)";

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

fn server() -> Result<Server, mcp_runtime::server::BuildError> {
    Server::builder(env!("CARGO_BIN_NAME"), env!("CARGO_PKG_VERSION"))
        .instructions("Use `echo` to repeat text and `add` to add two numbers.")
        .tool(echo::tool())
        .tool(add::tool())
        .build()
}

// One thread: a stdio server answers one client, and with the event loop reading stdin,
// dispatching and writing stdout on the same thread no request waits for a thread wake-up
// (see `bench/` for the numbers). Servers whose tools compute for long stretches should use
// the multi-threaded runtime or `spawn_blocking`.
#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    mcp_examples::init_logging();
    let args = Args::parse();
    match server() {
        Ok(server) => mcp_examples::serve(server, &args.transport, TERMINAL_HINT).await,
        Err(e) => {
            tracing::error!("{e}");
            ExitCode::FAILURE
        }
    }
}
