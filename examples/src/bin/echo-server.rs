//! `echo-server`: the smallest useful MCP server, with tools `echo` and `add`.
//!
//! ```text
//! echo-server [--transport stdio]
//! ```
//!
//! Serves both protocol eras over stdio. Logs go to stderr (`RUST_LOG` filters them).

use clap::Parser;
use mcp_runtime::prelude::*;
use mcp_runtime::protocol::JsonObject;
use serde_json::json;
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

fn number(args: &JsonObject, key: &str) -> f64 {
    // The registry validated the arguments against the schema: both are numbers.
    args.get(key)
        .and_then(serde_json::Value::as_f64)
        .unwrap_or_default()
}

/// Both tools are pure functions of their arguments: read-only, idempotent, closed-world.
fn pure_function() -> ToolAnnotations {
    ToolAnnotations {
        read_only_hint: Some(true),
        idempotent_hint: Some(true),
        open_world_hint: Some(false),
        ..ToolAnnotations::default()
    }
}

fn server() -> Result<Server, mcp_runtime::server::BuildError> {
    let echo = tool_fn(
        ToolDefinition::new(
            "echo",
            "Returns the given text unchanged.",
            json!({
                "type": "object",
                "properties": {"text": {"type": "string", "description": "The text to echo back"}},
                "required": ["text"],
                "additionalProperties": false
            }),
        )
        .with_annotations(pure_function()),
        |args, _cx| async move {
            args.get("text")
                .and_then(serde_json::Value::as_str)
                .unwrap_or_default()
                .to_owned()
        },
    );
    let add = tool_fn(
        ToolDefinition::new(
            "add",
            "Adds two numbers and returns the sum.",
            json!({
                "type": "object",
                "properties": {
                    "a": {"type": "number", "description": "The first addend"},
                    "b": {"type": "number", "description": "The second addend"}
                },
                "required": ["a", "b"],
                "additionalProperties": false
            }),
        )
        .with_annotations(pure_function()),
        |args, _cx| async move { number(&args, "a") + number(&args, "b") },
    );
    Server::builder(env!("CARGO_BIN_NAME"), env!("CARGO_PKG_VERSION"))
        .instructions("Use `echo` to repeat text and `add` to add two numbers.")
        .tool(echo)
        .tool(add)
        .build()
}

#[tokio::main]
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
