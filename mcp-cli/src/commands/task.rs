//! `cargo mcp task`: a task a server runs (the 2026-07-28 tasks extension), by its id.

use super::{ServerArgs, block_on};
use crate::error::{check_failed, usage};
use crate::ops::connect::describe;
use crate::ops::inspect;
use anyhow::Result;
use mcp_runtime::client::ClientError;
use mcp_runtime::protocol::Era;
use mcp_runtime::protocol::ErrorCode;
use mcp_runtime::protocol::task::{DetailedTask, TaskStatus};

/// Look at or cancel a task of a server.
#[derive(Debug, Clone, clap::Args)]
#[command(after_help = "\
Examples:
  cargo mcp task get 5f0c…e1 --url http://127.0.0.1:8000/mcp    # its status, and its result once it ended
  cargo mcp task get 5f0c…e1 --json                             # the whole task as JSON
  cargo mcp task cancel 5f0c…e1 --url http://127.0.0.1:8000/mcp

A task lives in its server: over stdio, only while that server process runs, so these are
for a server reached with --url (or one whose tasks live in a shared store). Exits with 3
when the task failed or its tool reported an error, and with 2 when the server does not
know the id.")]
pub struct Args {
    /// What to do.
    #[command(subcommand)]
    pub action: Action,
}

/// What `cargo mcp task` does.
#[derive(Debug, Clone, clap::Subcommand)]
pub enum Action {
    /// Show a task: its status and message, and its result or error once it ended.
    Get {
        /// The task's id, as `cargo mcp call` printed it.
        id: String,
        /// Print the whole task as JSON.
        #[arg(long)]
        json: bool,
        /// Which server, and how to reach it.
        #[command(flatten)]
        server: ServerArgs,
    },
    /// Cancel a task (a task that ended is left as it is).
    Cancel {
        /// The task's id.
        id: String,
        /// Which server, and how to reach it.
        #[command(flatten)]
        server: ServerArgs,
    },
}

/// Connects and gets or cancels the task.
pub fn exec(args: Args) -> Result<()> {
    let (server, id) = match &args.action {
        Action::Get { server, id, .. } | Action::Cancel { server, id } => (server, id.clone()),
    };
    block_on(async {
        let connection = server.connect().await?;
        if connection.client.era() != Some(Era::Modern) {
            connection.close().await;
            return Err(usage(format!(
                "{} speaks only the 2025 protocol, which has no tasks",
                server.spec().describe()
            )));
        }
        let timeout = server.timeout();
        let unknown = |e: &ClientError| {
            e.as_protocol()
                .is_some_and(|e| e.code == ErrorCode::INVALID_PARAMS)
        };
        let outcome = match &args.action {
            Action::Get { json, .. } => {
                match tokio::time::timeout(timeout, connection.client.get_task(&id)).await {
                    Ok(Ok(task)) => show(&task, *json),
                    Ok(Err(e)) if unknown(&e) => {
                        Err(usage(format!("the server knows no task {id}")))
                    }
                    Ok(Err(e)) => Err(describe(e).context("tasks/get failed")),
                    Err(_) => Err(anyhow::anyhow!(
                        "tasks/get failed: no answer within {} s",
                        timeout.as_secs()
                    )),
                }
            }
            Action::Cancel { .. } => {
                match tokio::time::timeout(timeout, connection.client.cancel_task(&id)).await {
                    Ok(Ok(())) => {
                        eprintln!("task {id}: cancellation requested");
                        Ok(())
                    }
                    Ok(Err(e)) if unknown(&e) => {
                        Err(usage(format!("the server knows no task {id}")))
                    }
                    Ok(Err(e)) => Err(describe(e).context("tasks/cancel failed")),
                    Err(_) => Err(anyhow::anyhow!(
                        "tasks/cancel failed: no answer within {} s",
                        timeout.as_secs()
                    )),
                }
            }
        };
        connection.close().await;
        outcome
    })
}

/// Prints a task; an ended task that failed (or whose tool reported an error) is exit 3.
fn show(task: &DetailedTask, json: bool) -> Result<()> {
    if json {
        println!("{}", serde_json::to_string_pretty(task)?);
    } else {
        let t = &task.task;
        println!("task {}: {}", t.task_id, t.status);
        if let Some(message) = &t.status_message {
            println!("  {message}");
        }
        println!("  created {}, updated {}", t.created_at, t.last_updated_at);
        if let Some(requests) = &task.input_requests {
            for (key, request) in &requests.0 {
                println!("  waiting for input `{key}`: {}", request.method());
            }
        }
        if let Some(result) = &task.result
            && let Ok(result) = serde_json::from_value(serde_json::Value::Object(result.clone()))
        {
            print!("{}", inspect::render_result(&result));
        }
        if let Some(error) = &task.error {
            println!("  error {}: {}", error.code.0, error.message);
        }
    }
    let tool_error = task
        .result
        .as_ref()
        .is_some_and(|r| r.get("isError") == Some(&serde_json::Value::Bool(true)));
    if task.task.status == TaskStatus::Failed || tool_error {
        return Err(check_failed(format!(
            "the task {} ended with an error",
            task.task.task_id
        )));
    }
    Ok(())
}
