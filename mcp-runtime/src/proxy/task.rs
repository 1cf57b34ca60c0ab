//! A task an upstream made of a forwarded `tools/call`, followed to its end as a task of
//! the proxy's own.
//!
//! The upstream's task is never shown to the caller: the call becomes a task of the
//! proxy's (`RequestContext::become_task`; the proxy's tools are
//! [`TaskSupport::Explicit`](crate::task::TaskSupport::Explicit)), with the proxy's id, its
//! store (shared by a fleet like any task), its owner checks and its limits, and the proxy
//! polls the upstream's task behind it at the interval the upstream asks for. So task ids
//! need no namespace per upstream, and `tasks/get`, `tasks/update` and `tasks/cancel` are
//! the proxy's own: the upstream's `statusMessage` becomes the proxy task's, its
//! `inputRequests` are asked of the caller under the upstream's keys (the caller answers
//! with `tasks/update` to the proxy, which sends the answers on with `tasks/update`), its
//! end is the proxy task's end (a result inline, or the error it failed with), and
//! cancelling the proxy's task (or dropping its call) cancels the upstream's.

use super::Link;
use super::relay::{Failure, ask_all};
use crate::client::Client;
use crate::client::task::{CancelOnDrop, MIN_POLL, poll_interval};
use crate::context::RequestContext;
use crate::protocol::McpError;
use crate::protocol::task::{DetailedTask, TaskStatus};
use serde_json::{Map, Value};
use std::sync::Arc;

/// Follows the upstream's task whose handle is `handle` to its end, as `cx`'s task (or
/// within `cx`'s call, for a caller that cannot have one), and returns its result.
pub(super) async fn follow(
    link: &Arc<Link>,
    client: &Client,
    handle: Value,
    cx: &RequestContext,
) -> Result<Value, Failure> {
    let name = &link.upstream.name;
    let handle: DetailedTask = serde_json::from_value(handle).map_err(|e| {
        Failure::Other(format!(
            "the upstream server `{name}` answered with a task handle that is not one: {e}"
        ))
    })?;
    let task_id = handle.task.task_id;
    let mut guard = CancelOnDrop::new(client.clone(), task_id.clone());
    cx.become_task().await;
    let mut interval = poll_interval(handle.task.poll_interval_ms);
    let mut message = handle.task.status_message;
    // The answers sent so far, by key: a key the upstream still lists once answered (it
    // has not taken the update in yet) gets the same answer again, not a new question.
    let mut answered = Map::new();
    loop {
        tokio::time::sleep(interval).await;
        let task = client
            .get_task(&task_id)
            .await
            .map_err(|e| Failure::Other(super::failed(link, &e)))?;
        interval = poll_interval(task.task.poll_interval_ms);
        if task.task.status_message != message {
            message = task.task.status_message;
            if let (Some(text), Some(ours)) = (&message, cx.task()) {
                ours.set_message(text).await;
            }
        }
        match task.task.status {
            TaskStatus::Working => {}
            TaskStatus::InputRequired => {
                let mut responses = Map::new();
                let mut asks = Vec::new();
                for (key, request) in task.input_requests.unwrap_or_default().0 {
                    match answered.get(&key) {
                        Some(answer) => {
                            responses.insert(key, Value::clone(answer));
                        }
                        None => asks.push((key, request)),
                    }
                }
                for (key, answer) in ask_all(asks, cx).await? {
                    answered.insert(key.clone(), answer.clone());
                    responses.insert(key, answer);
                }
                if !responses.is_empty() {
                    client
                        .update_task(&task_id, responses)
                        .await
                        .map_err(|e| Failure::Other(super::failed(link, &e)))?;
                    // Answered: look again at once rather than after a whole interval.
                    interval = MIN_POLL;
                }
            }
            TaskStatus::Completed => {
                guard.ended();
                return Ok(Value::Object(task.result.unwrap_or_default()));
            }
            TaskStatus::Failed => {
                guard.ended();
                return Err(Failure::Task(task.error.unwrap_or_else(|| {
                    McpError::internal(format!(
                        "the upstream server `{name}`'s task failed without saying why"
                    ))
                })));
            }
            TaskStatus::Cancelled => {
                guard.ended();
                return Err(Failure::Other(format!(
                    "the upstream server `{name}` cancelled the task{}",
                    message.map(|m| format!(": {m}")).unwrap_or_default()
                )));
            }
        }
    }
}
