//! The requests waiting on a connection to an upstream, and where what the upstream says
//! meanwhile goes: its questions and log messages, to the caller they are for when that
//! can be told.

use super::RequestContext;
use crate::client::Client;
use crate::protocol::methods;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use tokio::sync::mpsc;

/// What the upstream said while a forwarded request waited, for that request's caller.
pub(crate) enum Routed {
    /// A question (`elicitation/create`, `sampling/createMessage`, `roots/list`): the
    /// upstream waits for its answer under `id`.
    Ask {
        id: crate::protocol::RequestId,
        request: crate::protocol::InputRequest,
    },
    /// A log message (`notifications/message`'s params).
    Log(Value),
}

/// The forwarded requests waiting on one connection for their answers, where what the
/// upstream says meanwhile (questions, log messages) goes, and whose they are.
#[derive(Default)]
pub(crate) struct Waiters {
    waiting: std::sync::Mutex<HashMap<u64, (mpsc::UnboundedSender<Routed>, RequestContext)>>,
    next: AtomicU64,
}

/// A forwarded request's place among the waiting ones; dropping it removes it.
pub(crate) struct Waiting<'a> {
    waiters: &'a Waiters,
    key: u64,
}

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        self.waiters.lock().remove(&self.key);
    }
}

impl Waiters {
    fn lock(
        &self,
    ) -> std::sync::MutexGuard<'_, HashMap<u64, (mpsc::UnboundedSender<Routed>, RequestContext)>>
    {
        self.waiting.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Records a forwarded request of `cx` waiting for its answer: what the upstream says
    /// meanwhile may be for its caller, and goes to `to`.
    pub(crate) fn wait(
        &self,
        to: mpsc::UnboundedSender<Routed>,
        cx: &RequestContext,
    ) -> Waiting<'_> {
        let key = self.next.fetch_add(1, Ordering::Relaxed);
        self.lock().insert(key, (to, cx.clone()));
        Waiting { waiters: self, key }
    }

    /// Whether no request waits.
    pub(super) fn is_empty(&self) -> bool {
        self.lock().is_empty()
    }

    /// Gives `what` to the caller it is for: the caller of the requests waiting on this
    /// connection, when they are all one client's (one request; or several of one legacy
    /// session, such as every request of a gateway served over stdio): then whichever of
    /// its requests carries the question, it reaches the client it is for. With requests of
    /// several clients waiting, nothing on a stdio server's wire says whose a question or
    /// log message is, so none gets it (a question is then refused, a log message only
    /// logged here): a caller never sees another's. Returns `what` when nobody took it.
    pub(super) fn route(&self, what: Routed) -> Option<Routed> {
        let waiting = self.lock();
        let mut all = waiting.values();
        let Some((to, first)) = all.next() else {
            return Some(what);
        };
        if all.all(|(_, other)| other.same_client(first)) {
            to.send(what).err().map(|e| e.0)
        } else {
            Some(what)
        }
    }
}

/// A hook giving the upstream's log messages, in wire order, to the caller the requests
/// waiting on the connection (`waiters` of `holder`) say they are for; logged here when
/// they say nothing.
pub(super) fn log_hook<T: Send + Sync + 'static>(
    holder: std::sync::Weak<T>,
    waiters: fn(&T) -> &Waiters,
    name: String,
) -> crate::client::NotificationHook {
    Arc::new(move |note: &Value| {
        if note.get("method").and_then(Value::as_str) != Some(methods::MESSAGE.name) {
            return false;
        }
        let params = note.get("params").cloned().unwrap_or(Value::Null);
        let Some(holder) = holder.upgrade() else {
            return true;
        };
        tracing::debug!(upstream = %name, "upstream log: {params}");
        if let Some(Routed::Log(params)) = waiters(&holder).route(Routed::Log(params)) {
            tracing::info!(upstream = %name, "upstream log: {params}");
        }
        true
    })
}

/// Relays the upstream's question (elicitation, sampling, roots) to the caller it is for,
/// when `waiters` can tell ([`Waiters::route`]); refuses it otherwise, so the upstream does
/// not wait.
pub(super) async fn ask_or_refuse(
    waiters: &Waiters,
    client: &Client,
    id: &Value,
    method: &str,
    params: Value,
) {
    let Ok(id) = serde_json::from_value::<crate::protocol::RequestId>(id.clone()) else {
        return;
    };
    let asked = json!({"method": method, "params": params});
    let refusal = match serde_json::from_value::<crate::protocol::InputRequest>(asked) {
        Ok(request) => match waiters.route(Routed::Ask {
            id: id.clone(),
            request,
        }) {
            None => return,
            Some(_) => crate::protocol::McpError::new(
                crate::protocol::ErrorCode::INTERNAL_ERROR,
                format!(
                    "the proxy cannot tell which of its callers `{method}` is for (it relays a question only while the requests waiting on the upstream are all one client's)"
                ),
            ),
        },
        Err(_) => crate::protocol::McpError::new(
            crate::protocol::ErrorCode::METHOD_NOT_FOUND,
            format!("the proxy does not relay `{method}`"),
        ),
    };
    let _ = client
        .send_raw(crate::protocol::jsonrpc::encode_error(Some(&id), &refusal))
        .await;
}
