//! Legacy sessions shared by the instances of a server (through the
//! [`SessionStore`](crate::server::sharing::SessionStore) and the
//! [`EventBus`](crate::server::sharing::EventBus) that
//! [`Server::share_through`](crate::Server::share_through) installs; Redis's with `--redis`):
//! `initialize` on one instance and the next request on another work, with no sticky
//! routing.
//!
//! - **Opening.** After `initialize` succeeds, the session is recorded in Redis (who opened
//!   it and its `initialize` params) before its id is answered; if the store cannot take it
//!   the client gets 503 and no session.
//! - **Meeting a session opened elsewhere.** An instance that does not hold the session a
//!   request names looks for it in the store and, if the same identity opened it, makes it again
//!   here: a fresh connection that replays `initialize` and the state changes since (the
//!   client's `notifications/initialized`, log level, resource subscriptions). The replay is not audited as
//!   requests of the client, nor answered to it.
//! - **Every request** of a shared session renews it in the store and applies the state changes
//!   other instances recorded since (one round trip). A session gone from the store (ended by
//!   `DELETE` elsewhere, expired, past its lifetime) is gone here too: 404.
//! - **Answers to our requests.** A legacy ask (`elicitation/create`, `sampling/createMessage`,
//!   `roots/list`) goes out on the stream of the call that asked; the client's answer may
//!   reach another instance, which passes it on through the bus to the one whose call waits
//!   (request ids carry random bits, so they never collide across instances).
//! - **Per-instance** still: the GET stream (it is held by one instance; notifications every
//!   instance raises reach it through the bus), the session quotas, and idle expiry of an
//!   instance's own copy (it is made again when needed).

use super::auth::Identity;
use super::limits;
use super::response;
use super::session::{self, Lookup, Session};
use super::state::Shared;
use crate::context::{Caller, Peer};
use crate::protocol::RequestId;
use crate::protocol::headers::MCP_SESSION_ID;
use crate::protocol::methods;
use crate::server::Connection;
use crate::server::sharing::{MAX_INIT_BYTES, SessionRecord, SharedEvent, Sharing};
use crate::transport::{Exchange, NoChecks};
use axum::body::Body;
use http::{HeaderMap, Response};
use serde::Deserialize;
use serde_json::value::RawValue;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

/// The messages whose effect on a session other instances must repeat: those whose
/// [`changes_session`](methods::MethodSpec::changes_session) is set (the end of the
/// handshake, since the instance that answered `initialize` may not be the one that receives
/// `notifications/initialized`; the log level; resource subscriptions).
pub(crate) fn changes_state(method: &str) -> bool {
    methods::lookup(method).is_some_and(|m| m.changes_session)
}

fn unavailable(e: &crate::context::Unavailable) -> Response<Body> {
    tracing::warn!(target: crate::targets::REDIS_TARGET, error = %e, "the shared session store failed");
    response::unavailable("the session store is unavailable; retry shortly")
}

/// The session id a request names, if it names exactly one.
fn named(headers: &HeaderMap) -> Option<&str> {
    let mut values = headers.get_all(MCP_SESSION_ID).iter();
    match (values.next(), values.next()) {
        (Some(value), None) => value.to_str().ok(),
        _ => None,
    }
}

/// What a request's session lookup becomes when sessions are shared: a session held here
/// brought up to date (or found gone), one opened elsewhere made again here. Sharing
/// nothing, the lookup stays as it is.
pub(crate) async fn resolve(
    shared: &Arc<Shared>,
    parts: &http::request::Parts,
    identity: &Identity,
    client: Option<std::net::IpAddr>,
    lookup: Lookup,
) -> Result<Lookup, Response<Body>> {
    let Some(sharing) = shared.server().sharing() else {
        return Ok(lookup);
    };
    let store = sharing.sessions();
    let idle = shared.options.session_idle_timeout;
    match lookup {
        Lookup::Absent => Ok(Lookup::Absent),
        Lookup::Found(session) => {
            let applied = session.applied.load(Ordering::Acquire);
            match store
                .sync(&session.id, applied, idle, false)
                .await
                .map_err(|e| unavailable(&e))?
            {
                None => {
                    shared.sessions.remove(&session.id);
                    Ok(Lookup::Unknown)
                }
                Some(sync) => {
                    apply(&session, &sync.changes, identity);
                    Ok(Lookup::Found(session))
                }
            }
        }
        Lookup::Unknown => {
            let Some(id) = named(&parts.headers) else {
                return Ok(Lookup::Unknown);
            };
            let Some(sync) = store
                .sync(id, 0, idle, true)
                .await
                .map_err(|e| unavailable(&e))?
            else {
                return Ok(Lookup::Unknown);
            };
            let (Some(record), changes) = (sync.record, sync.changes) else {
                return Ok(Lookup::Unknown);
            };
            // Another identity's session does not exist for this one.
            if record.subject.as_deref() != identity.subject_name() {
                return Ok(Lookup::Unknown);
            }
            let (tx, outbox) = mpsc::channel(session::OUTBOX);
            let connection = shared.server().connect(Peer::new(tx));
            replay(
                &connection,
                methods::INITIALIZE.name,
                &record.init,
                identity,
            );
            if connection.legacy_version().is_none() {
                tracing::warn!(target: crate::targets::REDIS_TARGET, session = id, "a shared session's initialize no longer succeeds");
                return Ok(Lookup::Unknown);
            }
            let caller = limits::caller_key(identity, client);
            let Ok(session) =
                shared
                    .sessions
                    .adopt(id.into(), connection, outbox, identity, caller)
            else {
                return Err(response::unavailable(
                    "too many sessions are in use on this instance; retry later",
                ));
            };
            apply(&session, &changes, identity);
            tracing::debug!(session = id, "shared legacy session taken up here");
            Ok(Lookup::Found(session))
        }
    }
}

/// A state change as recorded: its method and params.
#[derive(serde::Serialize, Deserialize)]
struct Change<'a> {
    #[serde(rename = "m")]
    method: &'a str,
    #[serde(rename = "p", borrow)]
    params: Option<&'a RawValue>,
}

/// Applies the changes recorded after the ones this copy has applied.
fn apply(session: &Session, changes: &[String], identity: &Identity) {
    for text in changes {
        if let Ok(change) = serde_json::from_str::<Change<'_>>(text)
            && let Some(spec) = methods::lookup(change.method)
            && spec.changes_session
        {
            if spec.notification {
                session
                    .connection
                    .notification(change.method, change.params);
            } else {
                replay_raw(&session.connection, change.method, change.params, identity);
            }
        }
    }
    session.applied.fetch_add(changes.len(), Ordering::AcqRel);
}

fn replay(connection: &Connection, method: &str, params: &str, identity: &Identity) {
    let params = serde_json::from_str::<&RawValue>(params).ok();
    replay_raw(connection, method, params, identity);
}

/// Serves a request again on a session's fresh copy, its answer and notifications
/// discarded (they were the client's when the request was first served).
fn replay_raw(
    connection: &Connection,
    method: &str,
    params: Option<&RawValue>,
    identity: &Identity,
) {
    let (notify, _) = mpsc::channel(1);
    let (respond, _) = oneshot::channel();
    let mut caller = Caller::connection().with_granted_scopes(identity.scope_set().clone());
    if let Some(subject) = identity.subject_arc() {
        caller = caller.with_identity(subject.clone());
    }
    let exchange = Exchange::new(Peer::new(notify), respond, CancellationToken::new(), caller)
        .without_stream();
    let _ = connection.request(RequestId::Number(0), method, params, &NoChecks, exchange);
}

/// Records a session opened here, so any instance can serve it.
pub(crate) async fn opened(
    sharing: &Sharing,
    shared: &Shared,
    session: &Session,
    identity: &Identity,
    init: Option<&RawValue>,
) -> Result<(), Response<Body>> {
    let init = init.map_or("{}", RawValue::get);
    if init.len() > MAX_INIT_BYTES {
        return Err(response::message(
            http::StatusCode::PAYLOAD_TOO_LARGE,
            "initialize params this large cannot be shared with the server's other instances",
        ));
    }
    sharing
        .sessions()
        .create(
            &session.id,
            SessionRecord::new(identity.subject_name().map(str::to_owned), init),
            shared.options.session_idle_timeout,
            shared.options.max_session_lifetime,
        )
        .await
        .map_err(|e| unavailable(&e))
}

/// Whether `line`, a request's answer, is a result (not an error): only a change that
/// succeeded is recorded for the other instances.
pub(crate) fn succeeded(line: &[u8]) -> bool {
    #[derive(serde::Deserialize)]
    struct Answer {
        error: Option<serde::de::IgnoredAny>,
    }
    serde_json::from_slice::<Answer>(line).is_ok_and(|a| a.error.is_none())
}

/// Records a state change served on a session, for the other instances.
pub(crate) async fn changed(
    sharing: &Sharing,
    shared: &Shared,
    session: &Session,
    method: &str,
    params: Option<&RawValue>,
) {
    let change = serde_json::to_string(&Change { method, params }).expect("JSON");
    if let Err(e) = sharing
        .sessions()
        .record_change(&session.id, change, shared.options.session_idle_timeout)
        .await
    {
        tracing::warn!(target: crate::targets::REDIS_TARGET, session = %session.id, error = %e, "a session's state change was not shared");
    }
}

/// Ends a session on every instance: it goes from the store, and the instances holding it
/// are told.
pub(crate) async fn forget(sharing: &Sharing, id: &str) -> Result<(), crate::context::Unavailable> {
    sharing.sessions().forget(id).await?;
    sharing
        .bus()
        .publish(SharedEvent::SessionClosed(id.to_owned()));
    Ok(())
}

/// Passes a client's answer that nobody here waits for to the other instances.
pub(crate) fn pass_on(
    sharing: &Sharing,
    session: Option<&str>,
    id: &RequestId,
    outcome: Result<&RawValue, &RawValue>,
) {
    let id = serde_json::to_string(id).expect("an id serializes");
    let message = match outcome {
        Ok(result) => format!(r#"{{"id":{id},"result":{}}}"#, result.get()),
        Err(error) => format!(r#"{{"id":{id},"error":{}}}"#, error.get()),
    };
    sharing.bus().publish(SharedEvent::Answer {
        session: session.unwrap_or_default().to_owned(),
        message,
    });
}

/// A JSON-RPC response, as passed between instances.
#[derive(Deserialize)]
struct Answer<'a> {
    id: RequestId,
    #[serde(borrow)]
    result: Option<&'a RawValue>,
    #[serde(borrow)]
    error: Option<&'a RawValue>,
}

/// Takes what other instances pass on for the sessions held here, for as long as the
/// endpoint lives: answers to requests of ours, and sessions ended elsewhere.
pub(crate) fn listen(shared: &Arc<Shared>) {
    let Some(sharing) = shared.server().sharing() else {
        return;
    };
    let mut events = sharing.bus().subscribe();
    let shared = Arc::downgrade(shared);
    sharing.spawn(async move {
        use tokio::sync::broadcast::error::RecvError;
        loop {
            let event = match events.recv().await {
                Ok(event) => event,
                Err(RecvError::Lagged(_)) => continue,
                Err(RecvError::Closed) => return,
            };
            let Some(shared) = shared.upgrade() else {
                return;
            };
            match event {
                SharedEvent::SessionClosed(id) => {
                    shared.sessions.remove(&id);
                }
                SharedEvent::Answer { session, message } => {
                    let Ok(answer) = serde_json::from_str::<Answer<'_>>(&message) else {
                        continue;
                    };
                    let outcome = match (answer.result, answer.error) {
                        (Some(result), _) => Ok(result),
                        (None, Some(error)) => Err(error),
                        (None, None) => continue,
                    };
                    if session.is_empty() {
                        shared.stateless.answered(&answer.id, outcome);
                    } else if let Some(session) = shared.sessions.get(&session) {
                        session.connection.answered(&answer.id, outcome);
                    }
                }
                _ => {}
            }
        }
    });
}
