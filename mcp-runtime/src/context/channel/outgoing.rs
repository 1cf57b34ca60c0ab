//! The legacy leg's server-to-client requests: ids, the table of requests awaiting an
//! answer, and the wait for one (with a timeout and cancellation).

use super::InputError;
use crate::context::Peer;
use crate::protocol::jsonrpc::{encode_notification, encode_request};
use crate::protocol::methods;
use crate::protocol::{McpError, RequestId};
use serde_json::Value;
use serde_json::value::RawValue;
use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

/// The trace context of the current request as `_meta` fields (`traceparent`, `tracestate`,
/// `baggage`), set by the telemetry (`telemetry::enable`) when it is on: requests
/// this server sends to its client carry it.
pub(crate) static OUTGOING_TRACE: std::sync::OnceLock<TraceFields> = std::sync::OnceLock::new();

/// The current trace context as `(key, value)` pairs for `_meta`.
pub(crate) type TraceFields = fn() -> Vec<(String, String)>;

/// At most this many requests of one connection wait for the client at once; beyond it an
/// input request fails at once (so a client that never answers cannot grow the table).
pub const MAX_OUTSTANDING: usize = 1024;

type Answer = Result<Value, McpError>;

/// One connection's requests to its client that await an answer.
#[derive(Debug)]
pub(crate) struct Outgoing {
    next: AtomicU64,
    /// Makes ids unguessable where unrelated clients share the table (the stateless HTTP
    /// endpoint: an answer is routed by its id alone, so the id is the capability to answer).
    prefix: Option<String>,
    waiting: Mutex<HashMap<RequestId, oneshot::Sender<Answer>>>,
}

impl Outgoing {
    /// A table for one client (stdio, an HTTP session): ids `s-1`, `s-2`, …
    pub(crate) fn new() -> Self {
        Self {
            next: AtomicU64::new(1),
            prefix: None,
            waiting: Mutex::new(HashMap::new()),
        }
    }

    /// A table shared by unrelated clients: ids carry 128 random bits.
    pub(crate) fn shared() -> Self {
        let mut bytes = [0u8; 16];
        getrandom::fill(&mut bytes).expect("the operating system's random generator works");
        let prefix = bytes.iter().map(|b| format!("{b:02x}")).collect();
        Self {
            prefix: Some(prefix),
            ..Self::new()
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<RequestId, oneshot::Sender<Answer>>> {
        self.waiting.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Whether any request waits for the client (a line transport then keeps reading its
    /// input even when every concurrency slot is taken: the answers are behind it).
    pub(crate) fn is_waiting(&self) -> bool {
        !self.lock().is_empty()
    }

    fn register(&self) -> Option<(RequestId, oneshot::Receiver<Answer>)> {
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        let id = RequestId::String(match &self.prefix {
            // Fresh random bits per request, not only per table: ids never repeat a pattern.
            Some(prefix) => {
                let mut bytes = [0u8; 8];
                getrandom::fill(&mut bytes).expect("the operating system's random generator works");
                let salt: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
                format!("s-{prefix}{salt}-{n}").into()
            }
            None => format!("s-{n}").into(),
        });
        let (tx, rx) = oneshot::channel();
        let mut waiting = self.lock();
        if waiting.len() >= MAX_OUTSTANDING {
            return None;
        }
        waiting.insert(id.clone(), tx);
        Some((id, rx))
    }

    /// Routes a client's answer to the request waiting for it. Returns whether one was.
    pub(crate) fn resolve(&self, id: &RequestId, outcome: Result<&RawValue, &RawValue>) -> bool {
        let Some(tx) = self.lock().remove(id) else {
            return false;
        };
        let answer = match outcome {
            Ok(raw) => serde_json::from_str(raw.get())
                .map_err(|e| McpError::internal(format!("the client's result is not JSON: {e}"))),
            Err(raw) => Err(
                serde_json::from_str::<McpError>(raw.get()).unwrap_or_else(|_| {
                    McpError::internal(format!("the client answered with an error: {}", raw.get()))
                }),
            ),
        };
        let _ = tx.send(answer);
        true
    }

    fn forget(&self, id: &RequestId) {
        self.lock().remove(id);
    }

    /// Sends `method` with `params` to the client through `peer` and waits for the answer,
    /// with the current trace context in `params._meta` when telemetry set [`OUTGOING_TRACE`],
    /// at most `timeout`, or until `cancel` fires. A wait that ends without an answer tells
    /// the client with `notifications/cancelled`.
    pub(crate) async fn ask(
        &self,
        peer: &Peer,
        method: &str,
        params: &Value,
        timeout: Duration,
        cancel: &CancellationToken,
    ) -> Result<Value, InputError> {
        // A child span of the request's (enabled only when a subscriber asks for it).
        let span = tracing::debug_span!(target: crate::targets::REQUEST_TARGET, "ask client", "mcp.method.name" = method);
        tracing::Instrument::instrument(
            self.ask_untraced(peer, method, params, timeout, cancel),
            span,
        )
        .await
    }

    async fn ask_untraced(
        &self,
        peer: &Peer,
        method: &str,
        params: &Value,
        timeout: Duration,
        cancel: &CancellationToken,
    ) -> Result<Value, InputError> {
        let Some((id, rx)) = self.register() else {
            return Err(InputError::Unavailable(format!(
                "{MAX_OUTSTANDING} requests to this client already await an answer"
            )));
        };
        // Removes the entry however the wait ends (the tool's future may be dropped).
        let guard = Forget {
            table: self,
            id: &id,
            peer,
            answered: false,
        };
        let traced;
        let params = match OUTGOING_TRACE.get().map(|fields| fields()) {
            // The request carries the asking request's trace (`_meta`'s reserved keys), so
            // the client's handling of it joins the same trace.
            Some(fields) if !fields.is_empty() => {
                let mut with_meta = if params.is_object() {
                    params.clone()
                } else {
                    Value::Object(Default::default())
                };
                let meta = with_meta
                    .as_object_mut()
                    .expect("an object")
                    .entry("_meta")
                    .or_insert_with(|| Value::Object(Default::default()));
                if let Some(meta) = meta.as_object_mut() {
                    for (key, value) in fields {
                        meta.entry(key).or_insert(Value::String(value));
                    }
                }
                traced = with_meta;
                Some(&traced)
            }
            _ => (!params.is_null()).then_some(params),
        };
        if !peer.send_line(encode_request(&id, method, params)).await {
            return Err(InputError::Unavailable("the client is gone".into()));
        }
        let mut guard = guard;
        tokio::select! {
            answer = rx => {
                guard.answered = true;
                match answer {
                    Ok(Ok(value)) => Ok(value),
                    Ok(Err(error)) => Err(InputError::Client(error)),
                    Err(_) => Err(InputError::Unavailable("the client is gone".into())),
                }
            }
            () = tokio::time::sleep(timeout) => Err(InputError::Timeout(timeout)),
            () = cancel.cancelled() => Err(InputError::Cancelled),
        }
    }
}

/// Forgets a request that ends without an answer, and tells the client to stop working on
/// it (best effort: a full outbound queue drops the notice).
struct Forget<'a> {
    table: &'a Outgoing,
    id: &'a RequestId,
    peer: &'a Peer,
    answered: bool,
}

impl Drop for Forget<'_> {
    fn drop(&mut self) {
        self.table.forget(self.id);
        if !self.answered {
            let notice = encode_notification(
                methods::CANCELLED.name,
                Some(serde_json::json!({
                    "requestId": self.id,
                    "reason": "the server no longer needs the answer",
                })),
            );
            self.peer.try_send_line(notice);
        }
    }
}
