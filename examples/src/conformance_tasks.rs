//! The tools the official conformance suite's tasks scenarios call (0.2.0-alpha.12, the
//! `io.modelcontextprotocol/tasks` extension, `spec/primitives.md` §7), for the
//! `conformance-server` example. Built with the public API only: ordinary `#[mcp_tool]`s
//! declaring `task = "optional"` or `"required"`, and one server layer (a tool cannot end
//! with a protocol error by itself; a layer can).

use mcp_runtime::ServerBuilder;
use mcp_runtime::input::{Elicitation, InputError};
use mcp_runtime::pipeline::{McpRequest, McpService, Outcome};
use mcp_runtime::prelude::*;
use mcp_runtime::protocol::McpError;
use serde_json::json;
use std::time::Duration;

/// Adds the seven tools.
pub fn register(builder: ServerBuilder) -> ServerBuilder {
    builder
        .tool(greet::tool())
        .tool(slow_compute::tool())
        .tool(failing_job::tool())
        .tool(protocol_error_job::tool())
        .layer_for("protocol_error_job", tower::layer::layer_fn(protocol_error))
        .tool(confirm_delete::tool())
        .tool(multi_input::tool())
        .tool(test_tool_with_task::tool())
}

/// Greets someone, synchronously (never a task).
#[mcp_tool]
async fn greet(
    /// Who to greet
    name: String,
) -> String {
    format!("Hello, {name}!")
}

/// Sleeps for `seconds`, then reports what it computed; a task when the client supports
/// tasks and it does not finish at once.
#[mcp_tool(task = "optional")]
async fn slow_compute(
    /// How long to work, in seconds
    seconds: f64,
    /// A label for the result
    label: Option<String>,
) -> String {
    tokio::time::sleep(Duration::from_secs_f64(seconds.clamp(0.0, 3600.0))).await;
    format!(
        "Computed {} after {seconds} second(s)",
        label.as_deref().unwrap_or("result")
    )
}

/// Works for about a second, then fails with a tool error (only ever a task).
#[mcp_tool(task = "required")]
async fn failing_job() -> Result<String, String> {
    tokio::time::sleep(Duration::from_secs(1)).await;
    Err("the job failed: the input data is inconsistent".into())
}

/// Ends with a protocol error (a JSON-RPC error, from the layer `register` puts around it).
#[mcp_tool(task = "optional")]
async fn protocol_error_job() -> &'static str {
    "unreachable: the layer answers first"
}

/// The layer of `protocol_error_job`: after a moment, an internal error instead of a result.
fn protocol_error(_inner: McpService) -> McpService {
    McpService::new(tower::service_fn(|_request: McpRequest| async {
        tokio::time::sleep(Duration::from_millis(300)).await;
        Ok::<_, mcp_runtime::pipeline::BoxError>(Outcome::Error(McpError::internal(
            "the job crashed: its worker exited unexpectedly",
        )))
    }))
}

/// What the user is asked to confirm.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Confirm {
    /// Confirm
    confirm: bool,
}

/// Deletes a file once the user confirms it (the confirmation is the task's input request).
#[mcp_tool(task = "optional")]
async fn confirm_delete(
    cx: RequestContext,
    /// The file to delete
    filename: String,
) -> Result<String, InputError> {
    cx.become_task().await;
    Ok(
        match cx.elicit::<Confirm>(format!("Delete {filename}?")).await? {
            Elicitation::Accepted(Confirm { confirm: true }) => format!("Deleted {filename}"),
            _ => format!("Kept {filename}"),
        },
    )
}

/// Asks two questions at once; finishes when both are answered.
#[mcp_tool(task = "optional")]
async fn multi_input(cx: RequestContext) -> Result<String, InputError> {
    cx.become_task().await;
    let schema = json!({
        "type": "object",
        "properties": {
            "name": {"type": "string", "description": "Your name"},
            "confirm": {"type": "boolean", "description": "Confirm"}
        }
    });
    let (first, second) = futures::join!(
        cx.elicit_schema("First question", schema.clone()),
        cx.elicit_schema("Second question", schema),
    );
    Ok(format!(
        "Answers: {:?} and {:?}",
        first?.action(),
        second?.action()
    ))
}

/// The user's name.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct UserName {
    /// Your name
    name: String,
}

/// Asks for the user's name in the request (an `input_required` round), then greets them
/// from a task.
#[mcp_tool(task = "required")]
async fn test_tool_with_task(cx: RequestContext) -> Result<String, InputError> {
    let name = match cx.elicit::<UserName>("What is your name?").await? {
        Elicitation::Accepted(UserName { name }) => name,
        _ => "stranger".into(),
    };
    cx.become_task().await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    Ok(format!("Hello, {name}! Your task is done."))
}
