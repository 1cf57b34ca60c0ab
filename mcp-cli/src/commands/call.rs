//! `cargo mcp call`: one tool call.

use super::{ServerArgs, block_on};
use crate::error::{check_failed, usage};
use crate::ops::connect::{bounded, describe};
use crate::ops::{ask, inspect};
use anyhow::{Result, bail};
use mcp_runtime::client::{Client, ClientError};
use mcp_runtime::protocol::ErrorCode;
use mcp_runtime::protocol::task::DetailedTask;
use std::sync::Mutex;
use std::time::Duration;

/// What a call's task has shown so far: its id, and the last line printed about it.
#[derive(Default)]
struct TaskWatch {
    seen: Mutex<(Option<String>, String)>,
}

impl TaskWatch {
    /// Prints the task's state on stderr when it changed since the last one shown.
    fn show(&self, task: &DetailedTask) {
        let task = &task.task;
        let mut line = format!("task {}: {}", task.task_id, task.status);
        if let Some(message) = &task.status_message {
            line.push_str(&format!(" ({message})"));
        }
        let mut seen = self.seen.lock().unwrap_or_else(|e| e.into_inner());
        if seen.1 != line {
            eprintln!("{line}");
            *seen = (Some(task.task_id.clone()), line);
        }
    }

    /// The task's id, once the server made one.
    fn id(&self) -> Option<String> {
        self.seen
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .0
            .clone()
    }
}

/// Cancels a task the user no longer waits for, saying so (bounded: the server may be gone).
async fn cancel(client: &Client, id: &str) {
    match tokio::time::timeout(Duration::from_secs(5), client.cancel_task(id)).await {
        Ok(Ok(())) => eprintln!("task {id}: cancelled"),
        Ok(Err(e)) => eprintln!("task {id}: cancelling failed: {e}"),
        Err(_) => eprintln!("task {id}: the server did not acknowledge the cancellation"),
    }
}

/// Call a tool of a server.
#[derive(Debug, Clone, clap::Args)]
#[command(after_help = "\
Examples:
  cargo mcp call add a=2 b=3                        # values are JSON unless the schema says string
  cargo mcp call get_weather city=Seoul unit=celsius
  cargo mcp call search --args '{\"query\": \"mcp\", \"tags\": [\"rust\"]}'
  cargo mcp call echo text=hi --json                # the whole result as JSON
  cargo mcp call add a=1 b=2 --url http://127.0.0.1:8000/mcp
  cargo mcp call echo text=hi --command ./target/debug/echo-server

Exits with 3 when the tool reports an error (`isError`); its message is printed first.

When the tool asks something while it runs (a form, the client's model), the question is
put on the terminal (answers on stdin, the dialogue on stderr) and the clock of --timeout
stops while you answer. Under --json, or when stdin is not a terminal, nothing is asked:
a tool that cannot do without the answer fails with exit 3, naming what it needed. Roots
are always answered: the current folder.

When the server runs the call as a task (the 2026-07-28 tasks extension), its status and
progress are shown on stderr as they change, and Ctrl-C (or --timeout) cancels the task
(`tasks/cancel`) before exiting. `cargo mcp task get ID` looks at a task later.")]
pub struct Args {
    /// The tool's name.
    pub tool: String,

    /// Arguments as `key=value`; a value is JSON (`3`, `true`, `[1]`) unless the property
    /// is a string or the value is not JSON.
    #[arg(value_name = "KEY=VALUE")]
    pub pairs: Vec<String>,

    /// All arguments as one JSON object (`key=value` pairs are applied on top).
    #[arg(long, value_name = "JSON")]
    pub args: Option<String>,

    /// Print the whole result as JSON.
    #[arg(long)]
    pub json: bool,

    /// Which server, and how to reach it.
    #[command(flatten)]
    pub server: ServerArgs,
}

/// Connects, checks the tool exists, calls it (answering its questions on the terminal,
/// when there is one and the output is not `--json`) and prints the result.
pub fn exec(args: Args) -> Result<()> {
    let answering = ask::Answering::new(args.json)?;
    block_on(async {
        let connection = args.server.connect_answering(answering.handler()).await?;
        let timeout = args.server.timeout();
        let tools = bounded(timeout, "tools/list failed", connection.client.list_tools()).await?;
        let Some(tool) = tools.iter().find(|t| t.name == args.tool) else {
            let close = inspect::similar_names(&args.tool, &tools);
            let hint = if close.is_empty() {
                let all: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
                format!("it has: {}", all.join(", "))
            } else {
                format!("did you mean {}?", close.join(", "))
            };
            connection.close().await;
            return Err(usage(format!(
                "{} has no tool `{}`; {hint}",
                args.server.spec().describe(),
                args.tool
            )));
        };
        let arguments = inspect::call_arguments(args.args.as_deref(), &args.pairs, Some(tool))?;
        let what = format!("calling `{}` failed", args.tool);
        let watch = TaskWatch::default();
        let call = connection
            .client
            .call_tool_watching(&args.tool, arguments, |task| watch.show(task));
        let called = tokio::select! {
            called = answering.bounded(timeout, call) => called,
            _ = tokio::signal::ctrl_c() => {
                if let Some(id) = watch.id() {
                    cancel(&connection.client, &id).await;
                }
                connection.close().await;
                bail!("interrupted");
            }
        };
        if called.is_none()
            && let Some(id) = watch.id()
        {
            cancel(&connection.client, &id).await;
        }
        let result = match called {
            Some(Ok(result)) => result,
            Some(Err(ClientError::Protocol(e)))
                if e.code == ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY =>
            {
                connection.close().await;
                let subject = format!("the tool `{}`", args.tool);
                return Err(check_failed(answering.needs_input(&subject, &e)));
            }
            Some(Err(e)) => {
                connection.close().await;
                return Err(describe(e).context(what));
            }
            None => {
                connection.close().await;
                bail!("{what}: no answer within {} s", timeout.as_secs());
            }
        };
        if args.json {
            println!("{}", serde_json::to_string_pretty(&result)?);
        } else {
            print!("{}", inspect::render_result(&result));
        }
        connection.close().await;
        if result.is_error() {
            return Err(check_failed(format!(
                "the tool `{}` reported an error (above)",
                args.tool
            )));
        }
        Ok(())
    })
}
