//! The benchmark harness: a load client for MCP servers over stdio ([`load`]) and HTTP
//! ([`http_load`]), side-by-side
//! comparisons ([`compare`]), `/proc` readings ([`procfs`]), the stdio floors' answers
//! ([`floor`]), and the same tool written three ways so the criterion benchmarks can compare
//! the macro path with hand-written ones.

pub mod compare;
pub mod floor;
pub mod http_load;
pub mod load;
pub mod procfs;
pub mod task_lines;

use futures::future::BoxFuture;
use std::process::Command;

/// The command `words` names: leading `NAME=VALUE` words set environment variables (as a
/// shell reads them), the next is the program and the rest its arguments. Setting them here
/// rather than through `env` keeps an extra `exec` out of the cold start.
///
/// ```
/// let words: Vec<String> = ["RUST_LOG=warn", "echo-server", "--transport", "http"]
///     .map(String::from)
///     .into();
/// let command = mcp_bench::command(&words).unwrap();
/// assert_eq!(command.get_program(), "echo-server");
/// assert_eq!(command.get_args().count(), 2);
/// assert_eq!(command.get_envs().count(), 1);
/// ```
///
/// # Errors
///
/// `words` names no program.
pub fn command(words: &[String]) -> Result<Command, String> {
    let program = words
        .iter()
        .position(|w| !is_assignment(w))
        .ok_or("empty server command")?;
    let mut command = Command::new(&words[program]);
    command.args(&words[program + 1..]);
    for assignment in &words[..program] {
        if let Some((name, value)) = assignment.split_once('=') {
            command.env(name, value);
        }
    }
    Ok(command)
}

/// `NAME=VALUE`, with a name a shell would take as a variable.
fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty()
            && !name.starts_with(|c: char| c.is_ascii_digit())
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}
use mcp_runtime::prelude::*;
use mcp_runtime::protocol::JsonObject;
use serde_json::json;

/// Adds two numbers (the `#[mcp_tool]` version).
#[mcp_tool(read_only)]
pub async fn add(
    /// The first addend
    a: f64,
    /// The second addend
    b: f64,
) -> f64 {
    a + b
}

/// `add` with its results cached: a repeated call is answered without running it.
#[mcp_tool(read_only, idempotent, cache = "60s")]
pub async fn cached_add(
    /// The first addend
    a: f64,
    /// The second addend
    b: f64,
) -> f64 {
    a + b
}

/// `add` implemented by hand on the `Tool` trait: what the macro is measured against.
#[derive(Debug, Clone, Copy)]
pub struct HandAdd;

impl Tool for HandAdd {
    fn definition(&self) -> ToolDefinition {
        ToolDefinition::new(
            "add",
            "Adds two numbers.",
            json!({
                "type": "object",
                "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
                "required": ["a", "b"],
                "additionalProperties": false
            }),
        )
    }

    fn call(
        &self,
        arguments: JsonObject,
        _cx: RequestContext,
    ) -> BoxFuture<'static, CallToolResult> {
        let a = arguments
            .get("a")
            .and_then(serde_json::Value::as_f64)
            .unwrap_or_default();
        let b = arguments
            .get("b")
            .and_then(serde_json::Value::as_f64)
            .unwrap_or_default();
        Box::pin(async move { (a + b).into_tool_result() })
    }
}

/// `add` by hand, but decoding its arguments with serde as the macro does.
#[derive(Debug, Clone, Copy)]
pub struct HandSerdeAdd;

#[derive(serde::Deserialize)]
struct AddArgs {
    a: f64,
    b: f64,
}

impl Tool for HandSerdeAdd {
    fn definition(&self) -> ToolDefinition {
        HandAdd.definition()
    }

    fn call(
        &self,
        arguments: JsonObject,
        _cx: RequestContext,
    ) -> BoxFuture<'static, CallToolResult> {
        match serde_json::from_value::<AddArgs>(serde_json::Value::Object(arguments)) {
            Ok(args) => Box::pin(async move { (args.a + args.b).into_tool_result() }),
            Err(e) => Box::pin(async move { CallToolResult::error(e.to_string()) }),
        }
    }
}

/// A server with one `add` tool, built from the given tool.
pub fn server_with(tool: impl Tool) -> Server {
    Server::builder("bench", "0.0.0")
        .tool(tool)
        .build()
        .expect("valid tool")
}

/// A server's connection driven on this thread without a transport: a line in, its answer
/// out. What the dispatch micro-benchmarks (`input`, `primitives`, `telemetry`) measure.
#[derive(Debug)]
pub struct InProcess {
    rt: tokio::runtime::Runtime,
    connection: mcp_runtime::server::Connection,
    rx: tokio::sync::mpsc::Receiver<Vec<u8>>,
}

impl InProcess {
    /// Connects to `server` on a current-thread runtime of its own.
    ///
    /// # Panics
    ///
    /// When the runtime cannot be started.
    pub fn new(server: Server) -> Self {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        let (tx, rx) = tokio::sync::mpsc::channel(16);
        let connection =
            rt.block_on(async { server.connect(mcp_runtime::transport::Peer::new(tx)) });
        Self { rt, connection, rx }
    }

    /// Dispatches one line and returns the answer it wrote.
    ///
    /// # Panics
    ///
    /// When the line was not answered while it was handled (a request that waits).
    pub fn dispatch(&mut self, line: &[u8]) -> Vec<u8> {
        self.rt
            .block_on(self.connection.handle_line(std::hint::black_box(line)));
        self.rx.try_recv().expect("answered inline")
    }
}

/// The median over `rounds` (each a time per case, in `names`' order) of `case`'s time as a
/// multiple of `baseline`'s, with both times of that round: how the interleaved benchmarks
/// (`apps`, `visibility`) report, so a noisy machine moves both sides alike.
///
/// # Panics
///
/// When `case` or `baseline` is not in `names`, or there are no rounds.
pub fn median_ratio(
    names: &[&str],
    rounds: &[Vec<f64>],
    case: &str,
    baseline: &str,
) -> (f64, f64, f64) {
    let index = |name: &str| names.iter().position(|n| *n == name).expect("a case");
    let (i, j) = (index(case), index(baseline));
    let mut ratios: Vec<(f64, f64, f64)> =
        rounds.iter().map(|r| (r[i] / r[j], r[i], r[j])).collect();
    ratios.sort_by(|a, b| a.0.total_cmp(&b.0));
    ratios[ratios.len() / 2]
}
