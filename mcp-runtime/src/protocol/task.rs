//! The tasks extension's wire (`io.modelcontextprotocol/tasks`, SEP-2663, on the 2026-07-28
//! revision): a `tools/call` answered with a task handle ([`CreateTaskResult`], `resultType:
//! "task"`), then `tasks/get` ([`DetailedTask`]), `tasks/update` and `tasks/cancel`.
//!
//! A client opts in per request, by naming the extension in its `_meta` client capabilities
//! ([`ClientCapabilities::extensions`](crate::protocol::ClientCapabilities)); the server
//! decides, call by call, whether to answer with a task.

use super::common::JsonObject;
use super::error::McpError;
use super::input::InputRequest;
use super::meta::RequestMeta;
use crate::protocol::indexmap_like::Ordered;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The extension's identifier, the key of its entry in `capabilities.extensions`.
pub const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// Where a task is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum TaskStatus {
    /// Running.
    Working,
    /// Waiting for the client to answer the task's `inputRequests` (`tasks/update`).
    InputRequired,
    /// Finished with a result (a tool's `isError` result included).
    Completed,
    /// Ended by a protocol error (a JSON-RPC error of the underlying request).
    Failed,
    /// Cancelled before it finished.
    Cancelled,
}

impl TaskStatus {
    /// Whether the task has ended (completed, failed or cancelled).
    pub fn is_terminal(self) -> bool {
        matches!(
            self,
            TaskStatus::Completed | TaskStatus::Failed | TaskStatus::Cancelled
        )
    }

    /// The status as the wire names it.
    pub fn as_str(self) -> &'static str {
        match self {
            TaskStatus::Working => "working",
            TaskStatus::InputRequired => "input_required",
            TaskStatus::Completed => "completed",
            TaskStatus::Failed => "failed",
            TaskStatus::Cancelled => "cancelled",
        }
    }
}

impl std::fmt::Display for TaskStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A task's handle and state, as every task message carries it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Task {
    /// The task's identifier (unguessable: it is a bearer of the task's state).
    pub task_id: String,
    /// Its status.
    pub status: TaskStatus,
    /// A human-readable word on the current state (progress, what it waits for, why it
    /// failed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_message: Option<String>,
    /// When it was created (ISO 8601).
    pub created_at: String,
    /// When it last changed (ISO 8601).
    pub last_updated_at: String,
    /// How long after its creation the server keeps it, in milliseconds (`null`: no
    /// limit).
    pub ttl_ms: Option<u64>,
    /// How often the client should poll `tasks/get`, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub poll_interval_ms: Option<u64>,
}

/// The answer to a `tools/call` that the server runs as a task (`resultType: "task"`): the
/// task's handle, flat.
pub type CreateTaskResult = Task;

/// `tasks/get`'s answer: the task, with what its status carries inline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct DetailedTask {
    /// The task.
    #[serde(flatten)]
    pub task: Task,
    /// `input_required`: what the task asks the client, by key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_requests: Option<Ordered<InputRequest>>,
    /// `completed`: the result of the request (a `CallToolResult` for a tool call).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<JsonObject>,
    /// `failed`: the JSON-RPC error the request ended with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<McpError>,
}

/// `tasks/get` and `tasks/cancel` params.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct TaskIdParams {
    /// The task.
    pub task_id: String,
    /// `_meta`.
    #[serde(rename = "_meta", default)]
    pub meta: Option<RequestMeta>,
}

/// `tasks/update` params.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct UpdateTaskParams {
    /// The task.
    pub task_id: String,
    /// Answers to the task's outstanding `inputRequests`, by key (some of them may be
    /// answered now and the rest later; answers to keys not outstanding are ignored).
    #[serde(default)]
    pub input_responses: Value,
    /// `_meta`.
    #[serde(rename = "_meta", default)]
    pub meta: Option<RequestMeta>,
}
