//! What comes from the server, routed: an answer to the request waiting for it, progress
//! to the request that asked for it (in wire order, so before that request's answer), the
//! server's requests to the input handler, everything else to the unrouted messages.

use super::{Pending, ProgressRoutes, SharedHandler, SharedHook};
use crate::protocol::jsonrpc::{ErrorObject, encode_error, encode_result};
use crate::protocol::{McpError, RequestId, methods};
use serde_json::{Value, json};
use std::collections::HashMap;
use tokio::sync::mpsc;

/// What answers a legacy server's requests: the handler, a way back to the server, and the
/// answers under way (so `notifications/cancelled` can stop one).
pub(super) struct Answers {
    pub(super) input: SharedHandler,
    pub(super) to_server: mpsc::WeakSender<Vec<u8>>,
    pub(super) running: HashMap<RequestId, tokio::task::AbortHandle>,
}

impl Answers {
    /// Answers a server-to-client request in its own task when a handler is set; returns
    /// whether it did.
    fn start(&mut self, message: &Value) -> bool {
        let (Some(id), Some(method)) = (
            message
                .get("id")
                .and_then(|id| serde_json::from_value::<RequestId>(id.clone()).ok()),
            message.get("method").and_then(Value::as_str),
        ) else {
            return false;
        };
        let handler = self.input.read().unwrap_or_else(|e| e.into_inner()).clone();
        let (Some(handler), Some(to_server)) = (handler, self.to_server.upgrade()) else {
            return false;
        };
        let (method, params) = (method.to_owned(), message.get("params").cloned());
        let wire_id = id.clone();
        let task = tokio::spawn(async move {
            let line = match handler.answer_request(&method, params).await {
                Ok(result) => encode_result(&wire_id, &result),
                Err(error) => encode_error(Some(&wire_id), &error),
            };
            let _ = to_server.send(line).await;
        });
        self.running.retain(|_, task| !task.is_finished());
        self.running.insert(id, task.abort_handle());
        true
    }

    /// Stops the answer a `notifications/cancelled` names, if it is still running.
    fn cancel(&mut self, message: &Value) {
        let id = message
            .get("params")
            .and_then(|p| p.get("requestId"))
            .and_then(|id| serde_json::from_value::<RequestId>(id.clone()).ok());
        if let Some(task) = id.and_then(|id| self.running.remove(&id)) {
            task.abort();
        }
    }
}

/// Where routed messages go.
#[derive(Clone, Copy)]
pub(super) struct Sinks<'a> {
    /// Requests waiting for their answers.
    pub(super) pending: &'a Pending,
    /// Requests waiting for their progress, by token.
    pub(super) progress: &'a ProgressRoutes,
    /// What sees the other notifications first.
    pub(super) hook: &'a SharedHook,
    /// Everything nobody else took.
    pub(super) unrouted: &'a mpsc::UnboundedSender<Value>,
}

/// Routes one message from the server.
pub(super) fn route(sinks: &Sinks<'_>, answers: &mut Answers, line: &[u8]) {
    let Sinks {
        pending,
        progress,
        hook,
        unrouted,
    } = *sinks;
    let Ok(message) = serde_json::from_slice::<Value>(line) else {
        let _ = unrouted.send(json!({ "unparsable": String::from_utf8_lossy(line) }));
        return;
    };
    match (message.get("method"), message.get("id")) {
        (Some(_), Some(_)) if answers.start(&message) => return,
        (Some(method), None) if method == methods::CANCELLED.name => answers.cancel(&message),
        (Some(method), None) if method == methods::PROGRESS.name => {
            // Routed here, in the order of the wire: a request's progress is in its channel
            // before its answer reaches it.
            let params = message.get("params");
            let routes = progress.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(to) = params
                .and_then(|p| p.get("progressToken"))
                .and_then(Value::as_str)
                .and_then(|token| routes.get(token))
            {
                let _ = to.send(params.cloned().unwrap_or_default());
                return;
            }
        }
        _ => {}
    }
    if message.get("id").is_none() {
        let hook = hook.read().unwrap_or_else(|e| e.into_inner()).clone();
        if hook.is_some_and(|hook| hook(&message)) {
            return;
        }
    }
    let id = message
        .get("id")
        .and_then(|id| serde_json::from_value::<RequestId>(id.clone()).ok());
    let waiter = id
        .filter(|_| message.get("method").is_none())
        .and_then(|id| {
            pending
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .as_mut()
                .and_then(|waiting| waiting.remove(&id))
        });
    let Some(waiter) = waiter else {
        let _ = unrouted.send(message);
        return;
    };
    let outcome = match (message.get("result"), message.get("error")) {
        (Some(r), None) => Ok(r.clone()),
        (None, Some(e)) => Err(serde_json::from_value::<ErrorObject>(e.clone())
            .map(McpError::from)
            .unwrap_or_else(|err| McpError::internal(format!("malformed error object: {err}")))),
        _ => Err(McpError::internal(
            "a response needs exactly one of result and error",
        )),
    };
    let _ = waiter.send(outcome);
}
