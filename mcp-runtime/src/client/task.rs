//! Tasks from the client's side (the 2026-07-28 tasks extension, `crate::protocol::task`).
//!
//! A [`Client`] declares the extension in every modern envelope (unless
//! [`with_tasks(false)`](Client::with_tasks)), so a server may answer a `tools/call` with a
//! task handle. [`Client::call_tool`] then waits for the task's end by polling `tasks/get`
//! at the interval the server asks for (`pollIntervalMs`), answers the task's
//! `inputRequests` with its [`InputHandler`](super::InputHandler) through `tasks/update`,
//! and returns the result as if the call had been answered at once. Dropping the call's
//! future before the end (a timeout, a `select!`, Ctrl-C) sends `tasks/cancel`.
//!
//! [`Client::call_tool_watching`] does the same and shows every state the task goes
//! through; [`Client::get_task`], [`Client::update_task`] and [`Client::cancel_task`] reach
//! a task by its id (one started elsewhere, for instance).

use super::input::input_required;
use super::{Client, ClientError, decode};
use crate::protocol::methods;
use crate::protocol::task::{DetailedTask, TaskStatus};
use crate::protocol::{CallToolResult, Era, McpError};
use serde_json::{Map, Value, json};
use std::collections::HashSet;
use std::sync::atomic::Ordering;
use std::time::Duration;

/// The polling interval used when a server names none (or an absurd one).
const DEFAULT_POLL: Duration = Duration::from_millis(500);
/// Bounds on the interval a server asks for: never busier than this…
pub(crate) const MIN_POLL: Duration = Duration::from_millis(10);
/// …and never sleepier.
const MAX_POLL: Duration = Duration::from_secs(60);

/// Cancels the task when dropped before its end.
pub(crate) struct CancelOnDrop {
    client: Client,
    task_id: Option<String>,
}

// Used by the proxy (`server`) besides this module.
#[cfg_attr(not(feature = "server"), allow(dead_code))]
impl CancelOnDrop {
    /// Cancels `task_id` of `client`'s server when dropped, unless [`ended`](Self::ended).
    pub(crate) fn new(client: Client, task_id: String) -> Self {
        Self {
            client,
            task_id: Some(task_id),
        }
    }

    /// The task ended: nothing to cancel.
    pub(crate) fn ended(&mut self) {
        self.task_id = None;
    }
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        let Some(task_id) = self.task_id.take() else {
            return;
        };
        let client = self.client.clone();
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                let _ = client.cancel_task(&task_id).await;
            });
        }
    }
}

impl Client {
    /// Whether this client declares the tasks extension in its modern envelopes (default:
    /// it does). Without it, servers answer every call at once, and tools that only run as
    /// tasks are refused (`-32021`).
    pub fn with_tasks(self, enabled: bool) -> Self {
        self.inner.tasks.store(enabled, Ordering::Relaxed);
        self
    }

    /// Whether this client declares the tasks extension.
    pub fn tasks_enabled(&self) -> bool {
        self.inner.tasks.load(Ordering::Relaxed)
    }

    /// Calls a tool, reporting every state of the task the server makes of it (if it makes
    /// one) to `on_status`, and returns the result when the task ends: a `completed` task's
    /// result (an `isError` one included), a `failed` task's error as
    /// [`ClientError::Protocol`], a `cancelled` one as [`ClientError::Cancelled`].
    pub async fn call_tool_watching(
        &self,
        name: &str,
        arguments: Value,
        mut on_status: impl FnMut(&DetailedTask) + Send,
    ) -> Result<CallToolResult, ClientError> {
        let result = self
            .request(
                methods::TOOLS_CALL.name,
                Some(json!({ "name": name, "arguments": arguments })),
            )
            .await?;
        if result.get("resultType").and_then(Value::as_str) != Some("task") {
            return super::decode_final(result);
        }
        let handle: DetailedTask = decode(result)?;
        let task_id = handle.task.task_id.clone();
        on_status(&handle);
        let mut guard = CancelOnDrop {
            client: self.clone(),
            task_id: Some(task_id.clone()),
        };
        let mut interval = poll_interval(handle.task.poll_interval_ms);
        let mut answered: HashSet<String> = HashSet::new();
        loop {
            tokio::time::sleep(interval).await;
            let task = self.get_task(&task_id).await?;
            interval = poll_interval(task.task.poll_interval_ms);
            on_status(&task);
            match task.task.status {
                TaskStatus::Working => {}
                TaskStatus::InputRequired => {
                    let responses = self.answer_task(&task, &mut answered).await?;
                    if !responses.is_empty() {
                        self.update_task(&task_id, responses).await?;
                        // Answered: look again at once rather than after a whole interval.
                        interval = MIN_POLL;
                    }
                }
                TaskStatus::Completed => {
                    guard.task_id = None;
                    let result = task.result.map(Value::Object).unwrap_or_default();
                    return decode(result);
                }
                TaskStatus::Failed => {
                    guard.task_id = None;
                    return Err(ClientError::Protocol(task.error.unwrap_or_else(|| {
                        McpError::internal("the task failed without saying why")
                    })));
                }
                TaskStatus::Cancelled => {
                    guard.task_id = None;
                    return Err(ClientError::Cancelled(task.task.status_message));
                }
            }
        }
    }

    /// The answers to a task's outstanding asks this client has not answered yet.
    async fn answer_task(
        &self,
        task: &DetailedTask,
        answered: &mut HashSet<String>,
    ) -> Result<Map<String, Value>, ClientError> {
        let mut responses = Map::new();
        let Some(requests) = &task.input_requests else {
            return Ok(responses);
        };
        let Some(handler) = self.input_handler() else {
            // Nobody to ask: the same error a request's `input_required` round gives.
            let asked = json!({ "inputRequests": requests, "resultType": "input_required" });
            return match input_required(&asked) {
                Some(Ok(asked)) => Err(ClientError::InputRequired(Box::new(asked))),
                _ => Err(ClientError::Decode("a malformed inputRequests".into())),
            };
        };
        for (key, request) in &requests.0 {
            if answered.contains(key) {
                continue;
            }
            let answer = handler
                .answer(request.clone())
                .await
                .map_err(ClientError::Input)?;
            answered.insert(key.clone());
            responses.insert(key.clone(), answer);
        }
        Ok(responses)
    }

    /// `tasks/get`: a task's state, with its result, error or asks.
    pub async fn get_task(&self, task_id: &str) -> Result<DetailedTask, ClientError> {
        self.modern_only(methods::TASKS_GET.name)?;
        decode(
            self.request(methods::TASKS_GET.name, Some(json!({ "taskId": task_id })))
                .await?,
        )
    }

    /// `tasks/update`: answers to a task's asks, by key.
    pub async fn update_task(
        &self,
        task_id: &str,
        responses: Map<String, Value>,
    ) -> Result<(), ClientError> {
        self.modern_only(methods::TASKS_UPDATE.name)?;
        self.request(
            methods::TASKS_UPDATE.name,
            Some(json!({ "taskId": task_id, "inputResponses": responses })),
        )
        .await
        .map(drop)
    }

    /// `tasks/cancel`: stops a task (a task that has ended is left as it is).
    pub async fn cancel_task(&self, task_id: &str) -> Result<(), ClientError> {
        self.modern_only(methods::TASKS_CANCEL.name)?;
        self.request(
            methods::TASKS_CANCEL.name,
            Some(json!({ "taskId": task_id })),
        )
        .await
        .map(drop)
    }

    fn modern_only(&self, method: &str) -> Result<(), ClientError> {
        match self.era() {
            Some(Era::Modern) => Ok(()),
            _ => Err(ClientError::Protocol(McpError::method_not_found(method))),
        }
    }
}

/// The server's polling interval, bounded.
pub(crate) fn poll_interval(ms: Option<u64>) -> Duration {
    ms.map_or(DEFAULT_POLL, Duration::from_millis)
        .clamp(MIN_POLL, MAX_POLL)
}
