//! GET and DELETE on a legacy session (sessionful mode): GET opens the session's stream of
//! server-initiated messages (resumed from `Last-Event-ID` when sessions are shared), DELETE
//! ends the session. POST is `post.rs`; the sessions themselves are `session.rs`.

use super::auth::Identity;
use super::headers;
use super::limits;
use super::post;
use super::response;
use super::session::{Lookup, Session};
use super::state::Shared;
use axum::body::Body;
use http::{Method, Response, StatusCode};
use std::net::IpAddr;
use std::sync::Arc;

/// GET (the session's stream) and DELETE (end it), for legacy sessions.
pub(crate) async fn handle(
    shared: &Arc<Shared>,
    parts: &http::request::Parts,
    identity: &Identity,
    client: Option<IpAddr>,
) -> Response<Body> {
    if let Err(e) = headers::legacy_version(&parts.headers) {
        return response::error(StatusCode::BAD_REQUEST, None, &e);
    }
    if parts.method == Method::GET && !post::Accept::of(&parts.headers).sse {
        return response::message(
            StatusCode::NOT_ACCEPTABLE,
            "a GET stream is text/event-stream; accept it",
        );
    }
    let lookup = shared.sessions.lookup(&parts.headers, identity);
    let lookup = match super::fleet::resolve(shared, parts, identity, client, lookup).await {
        Ok(lookup) => lookup,
        Err(refused) => return refused,
    };
    match lookup {
        Lookup::Absent => response::message(
            StatusCode::BAD_REQUEST,
            "Mcp-Session-Id is required (GET and DELETE act on a session of the 2025 \
             revisions; 2026-07-28 clients use subscriptions/listen)",
        ),
        Lookup::Unknown => response::message(StatusCode::NOT_FOUND, "session not found"),
        Lookup::Found(s) if parts.method == Method::GET => {
            // A stream is held like a request against its caller's share, and takes
            // from the streams' pool, never a request permit.
            let Ok(stream) = shared.streams.clone().try_acquire_owned() else {
                return response::unavailable("too many streams are open; retry shortly");
            };
            match shared.callers.take(limits::caller_key(identity, client)) {
                Ok(slot) => {
                    let last_event = parts
                        .headers
                        .get("last-event-id")
                        .and_then(|v| v.to_str().ok())
                        .map(str::to_owned);
                    response::holding(open_stream(shared, &s, last_event), (slot, stream))
                }
                Err(limits::OverLimit) => response::too_many(
                    "this caller has as many requests and streams open as it may",
                ),
            }
        }
        Lookup::Found(s) => delete(shared, &s).await,
    }
}

/// GET: the session's stream of server-initiated messages. When sessions are shared
/// (Redis), each message is kept in Redis and sent with an event id, and a stream opened
/// with `last_event` (the client's `Last-Event-ID`) first replays what followed that event,
/// whichever instance sent it (see `shared::sessions`). Delivery is then at least once: a
/// notification the new instance raised for this session too may come twice.
fn open_stream(
    shared: &Shared,
    session: &Arc<Session>,
    last_event: Option<String>,
) -> Response<Body> {
    let ends = tokio::time::Instant::now() + shared.options.max_stream_lifetime;
    let Some(stream) = session.stream(shared.closing.clone(), ends) else {
        return response::message(
            StatusCode::CONFLICT,
            "this session already has an open GET stream",
        );
    };
    if let Some(sharing) = shared.server().sharing() {
        use futures::StreamExt as _;
        let (from, id) = (sharing.sessions().clone(), session.id.clone());
        let missed = futures::stream::once(async move {
            let Some(last) = last_event else {
                return Vec::new();
            };
            from.events_after(&id, &last).await.unwrap_or_else(|e| {
                tracing::warn!(target: crate::targets::REDIS_TARGET, session = %id, error = %e, "missed messages could not be read");
                Vec::new()
            })
        })
        .flat_map(|missed| {
            futures::stream::iter(missed.into_iter().map(|(event, line)| (Some(event), line)))
        });
        let (to, id) = (sharing.sessions().clone(), session.id.clone());
        let live = stream.then(move |line| {
            let (to, id) = (to.clone(), id.clone());
            async move {
                match to.append_event(&id, line.clone()).await {
                    Ok(event) => (Some(event), line),
                    Err(e) => {
                        tracing::warn!(target: crate::targets::REDIS_TARGET, session = %id, error = %e, "a message was sent without being kept for resumption");
                        (None, line)
                    }
                }
            }
        });
        return response::sse_with_ids(missed.chain(live), shared.options.keep_alive);
    }
    response::sse(stream, shared.options.keep_alive)
}

/// DELETE: ends the session (on every instance, when they share sessions).
async fn delete(shared: &Shared, session: &Arc<Session>) -> Response<Body> {
    shared.sessions.remove(&session.id);
    if let Some(sharing) = shared.server().sharing()
        && let Err(e) = super::fleet::forget(sharing, &session.id).await
    {
        tracing::warn!(session = %session.id, error = %e, "the shared session could not be ended");
        return response::unavailable("the session store is unavailable; retry the DELETE");
    }
    let mut resp = Response::new(Body::empty());
    *resp.status_mut() = StatusCode::NO_CONTENT;
    resp
}
