//! POST: one JSON-RPC message in, its answer out as JSON or as a per-request SSE stream.
//!
//! Order of checks: `Content-Type` (415), `Accept` (406), the body (413 over the cap, 408
//! when too slow), JSON-RPC decoding (400 with `-32700`/`-32600`), then the dispatcher,
//! which classifies the request by its body and calls back for the header checks.
//!
//! How an answer is sent (the spec allows JSON or SSE; this is the choice made):
//! - An answer ready at once goes as `application/json`, with the status its
//!   [`Disposition`] maps to (`response::status_of`, with `auth::dispatched`'s challenge): 400 for envelope, version, header and
//!   session problems, 404 for a method the request's era lacks (or an unknown session),
//!   403 with an `insufficient_scope` challenge for a caller without a tool's scopes, 200
//!   otherwise (errors such as an unknown tool stay in-band, as in the official TypeScript
//!   SDK).
//! - A request still running is answered as JSON if it finishes within one keep-alive
//!   interval without sending a notification; otherwise the response becomes
//!   `text/event-stream`: its notifications (progress, a listen stream's events) as they
//!   come, then the answer, then the end of the stream. Quiet stretches carry keep-alive
//!   comments, and `X-Accel-Buffering: no` keeps nginx from holding events back.
//! - A client that goes away (closes the stream or the connection) cancels the request:
//!   the tool's future is dropped and nothing more is sent for it.
//! - A client that accepts only JSON gets the answer as JSON and no notifications; one that
//!   accepts only SSE gets every answer as a stream. `subscriptions/listen` needs SSE (406).
//!
//! [`Disposition`]: crate::transport::Disposition

use super::auth::{self, Identity};
use super::headers::{HttpChecks, Sessionless};
use super::limits;
use super::options::LegacyMode;
use super::response::{self, Refusal};
use super::session::{self, Busy, Lookup};
use super::state::Shared;
use super::traced::Watch;
use crate::context::Caller;
use crate::protocol::headers::MCP_SESSION_ID;
use crate::protocol::jsonrpc::{Message, decode};
use crate::protocol::methods;
use crate::protocol::{McpError, RequestId};
use crate::transport::{Dispatched, Disposition, Exchange, Peer};
use axum::body::Body;
use bytes::Bytes;
use http::header::{ACCEPT, CONTENT_LENGTH, CONTENT_TYPE};
use http::{HeaderMap, HeaderValue, Response, StatusCode};
use http_body_util::{BodyExt as _, LengthLimitError, Limited};
use serde_json::value::RawValue;
use std::collections::VecDeque;
use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{OwnedSemaphorePermit, mpsc, oneshot};
use tokio::time::Instant;
use tokio_util::sync::{CancellationToken, DropGuard};

/// How many notifications of one request may wait for a slow client before the tool's
/// `progress` waits too.
const NOTIFY_QUEUE: usize = 16;

/// What the client's `Accept` allows.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Accept {
    pub(crate) json: bool,
    pub(crate) sse: bool,
}

impl Accept {
    /// Reads `Accept`; no header at all accepts both.
    pub(crate) fn of(headers: &HeaderMap) -> Self {
        let mut values = headers.get_all(ACCEPT).iter();
        // What the official SDKs send on every POST, recognized without parsing it (a
        // thousand instructions a request otherwise, about 2 % of a call).
        if let (Some(value), None) = (values.next(), values.next())
            && value.as_bytes() == b"application/json, text/event-stream"
        {
            return Accept {
                json: true,
                sse: true,
            };
        }
        let mut accept = Accept {
            json: false,
            sse: false,
        };
        let mut any = false;
        for value in headers.get_all(ACCEPT) {
            any = true;
            for item in value.to_str().unwrap_or_default().split(',') {
                let mut fields = item.split(';').map(str::trim);
                let media = fields.next().unwrap_or_default();
                let refused = fields.any(|f| {
                    f.strip_prefix("q=")
                        .is_some_and(|q| q.parse::<f32>().is_ok_and(|q| q == 0.0))
                });
                if refused {
                    continue;
                }
                // Compared without case and without a lower-cased copy per item.
                let is = |name: &str| media.eq_ignore_ascii_case(name);
                if is("application/json") || is("application/*") {
                    accept.json = true;
                } else if is("text/event-stream") || is("text/*") {
                    accept.sse = true;
                } else if media == "*/*" {
                    accept.json = true;
                    accept.sse = true;
                }
            }
        }
        if any {
            accept
        } else {
            Accept {
                json: true,
                sse: true,
            }
        }
    }
}

fn is_json(headers: &HeaderMap) -> bool {
    let value = headers.get(CONTENT_TYPE);
    if value.is_some_and(|v| v.as_bytes() == b"application/json") {
        return true;
    }
    value
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|media| media.trim().eq_ignore_ascii_case("application/json"))
}

/// Handles a POST. What it holds, in order: a slot of its caller's (from before its body is
/// read), a body-reading permit (while the body arrives, bounded by its own timeout), then
/// a concurrency permit; the slot and the concurrency permit are released only once the
/// response has been written out.
///
/// A notification or a response (the client's answer to a legacy ask) needs neither slot
/// nor permit: it takes no time to serve, and it is what lets work in flight finish (an
/// answer a waiting call needs, a `notifications/cancelled`), so a caller at its limit must
/// still get it through. Only a request over the caller's limit is refused (429).
pub(crate) async fn handle<B>(
    shared: &Arc<Shared>,
    parts: http::request::Parts,
    body: B,
    identity: Identity,
    client: Option<IpAddr>,
    watch: &mut Watch,
) -> Response<Body>
where
    B: http_body::Body<Data = Bytes> + Send + 'static,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    // Requiring JSON also keeps browsers' form and text/plain "simple requests" out.
    if !is_json(&parts.headers) {
        return response::message(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "send the JSON-RPC message with Content-Type: application/json",
        );
    }
    let accept = Accept::of(&parts.headers);
    if !accept.json && !accept.sse {
        return response::message(
            StatusCode::NOT_ACCEPTABLE,
            "accept application/json and text/event-stream",
        );
    }
    let slot = shared.callers.take(limits::caller_key(&identity, client));
    let bytes = {
        let Ok(_reading) = shared.bodies.try_acquire() else {
            return response::unavailable("too many request bodies are arriving; retry shortly");
        };
        match read_body(body, &parts.headers, &shared.options).await {
            Ok(bytes) => bytes,
            Err(refused) => return refused.into_response(),
        }
    };
    let message = match decode(&bytes) {
        Ok(message) => message,
        Err(e) => {
            watch.undecodable(&bytes, e.id.as_ref());
            return response::error(StatusCode::BAD_REQUEST, e.id.as_ref(), &e.error);
        }
    };
    match &message {
        // Named by what it says from now on, until the dispatcher has it.
        Message::Request { id, method, .. } => watch.request(id, method),
        _ => watch.routed(),
    }
    let (slot, permit) = if let Message::Request { method, .. } = &message {
        if method == methods::SUBSCRIPTIONS_LISTEN.name && !accept.sse {
            return response::message(
                StatusCode::NOT_ACCEPTABLE,
                "subscriptions/listen answers with an event stream; accept text/event-stream",
            );
        }
        let Ok(slot) = slot else {
            return response::too_many(
                "this caller has as many requests and streams open as it may; retry when one ends",
            );
        };
        if let Some(rates) = &shared.rates
            && let Some(key) = limits::caller_key(&identity, client)
            && let Err(wait) = rates.check(&key)
        {
            return response::rate_limited(wait);
        }
        // A listen stream lives long: it takes from the streams' pool, never a request
        // permit.
        let permit = if method == methods::SUBSCRIPTIONS_LISTEN.name {
            let Ok(permit) = shared.streams.clone().try_acquire_owned() else {
                return response::unavailable("too many streams are open; retry shortly");
            };
            permit
        } else {
            // The last quarter of the permits is for callers holding few requests.
            let reserve = shared.options.max_concurrent_requests / 4;
            let held = slot.as_ref().map_or(0, |s| s.held_before);
            if held >= limits::RESERVED_SHARE && shared.permits.available_permits() <= reserve {
                return response::unavailable(
                    "the server keeps its last request permits for other callers; retry shortly",
                );
            }
            let Ok(permit) = shared.permits.clone().try_acquire_owned() else {
                return response::unavailable("too many requests in flight; retry shortly");
            };
            permit
        };
        (slot, Some(permit))
    } else {
        (None, None)
    };
    let lookup = match shared.options.legacy {
        // Stateless: no session ids exist, so any header is ignored.
        LegacyMode::Stateless => Lookup::Absent,
        LegacyMode::Sessionful => shared.sessions.lookup(&parts.headers, &identity),
    };
    let lookup = match super::fleet::resolve(shared, &parts, &identity, client, lookup).await {
        Ok(lookup) => lookup,
        Err(refused) => return refused,
    };
    // Nothing refuses a request from here on before the dispatcher answers it (which
    // gives it its span).
    watch.routed();
    let hold = Arc::new(Hold {
        _permit: permit,
        _caller: slot,
        _busy: match &lookup {
            Lookup::Found(s) => Some(Busy::new(s)),
            _ => None,
        },
    });
    let answered = serve(
        shared,
        &parts,
        message,
        &lookup,
        Sender {
            identity: &identity,
            client,
        },
        accept,
        hold.clone(),
    )
    .await;
    response::holding(answered, hold)
}

/// Who sent a request, as far as the transport knows: its credentials' identity and the
/// client's address (`limits::client_address`), found once per request.
#[derive(Clone, Copy)]
struct Sender<'a> {
    identity: &'a Identity,
    client: Option<IpAddr>,
}

/// Serves one decoded message; `hold` is kept by whatever outlives this (a running call).
async fn serve(
    shared: &Arc<Shared>,
    parts: &http::request::Parts,
    message: Message<'_>,
    lookup: &Lookup,
    sender: Sender<'_>,
    accept: Accept,
    hold: Arc<Hold>,
) -> Response<Body> {
    let Sender { identity, client } = sender;
    match message {
        Message::Request { id, method, params } => {
            if method == methods::INITIALIZE.name && shared.options.legacy == LegacyMode::Sessionful
            {
                return initialize(shared, parts, id, params, sender, accept, hold).await;
            }
            let (sessionless, connection) = match lookup {
                Lookup::Found(s) => (Sessionless::Serve, &s.connection),
                Lookup::Unknown => (Sessionless::Unknown, &shared.stateless),
                Lookup::Absent if shared.options.legacy == LegacyMode::Sessionful => {
                    (Sessionless::Missing, &shared.stateless)
                }
                Lookup::Absent => (Sessionless::Serve, &shared.stateless),
            };
            let checks = HttpChecks {
                headers: &parts.headers,
                sessionless,
            };
            let session = match lookup {
                Lookup::Found(s) => Some(&s.id),
                _ => None,
            };
            // Credentials with other scopes within a legacy session (a refreshed or
            // stepped-up token): what this caller may see may have changed.
            if let Lookup::Found(s) = lookup
                && shared.server().visibility().scopes_matter()
                && s.scopes_changed(identity)
            {
                s.connection.view_changed().await;
            }
            let (exchange, pending) = Pending::new(hold, caller(identity, session, client));
            let exchange = if accept.sse {
                exchange
            } else {
                exchange.without_stream()
            };
            let dispatched = connection.request(id, &method, params, &checks, exchange);
            // A change of the session's state, repeated by the instances it reaches next:
            // only one that succeeded (these methods are answered at once).
            if let (Lookup::Found(s), Some(sharing)) = (lookup, shared.server().sharing())
                && super::fleet::changes_state(&method)
                && matches!(&dispatched, Dispatched::Reply { line, .. } if super::fleet::succeeded(line))
            {
                super::fleet::changed(sharing, shared, s, &method, params).await;
            }
            match dispatched {
                Dispatched::Reply { line, disposition } => {
                    pending.now(line, disposition, accept, shared)
                }
                Dispatched::Pending => pending.later(accept, shared).await,
            }
        }
        Message::Notification { method, params } => match lookup {
            Lookup::Unknown => response::message(StatusCode::NOT_FOUND, "session not found"),
            Lookup::Found(s) => {
                s.connection.notification(&method, params);
                if let Some(sharing) = shared.server().sharing()
                    && super::fleet::changes_state(&method)
                {
                    super::fleet::changed(sharing, shared, s, &method, params).await;
                }
                response::accepted()
            }
            Lookup::Absent => {
                shared.stateless.notification(&method, params);
                response::accepted()
            }
        },
        // The client's answer to a request of ours (a legacy ask, sent on the stream of the
        // call that asked): routed by its id to the call waiting for it, on the session's
        // connection, or on the shared one when there is no session (whose ids are
        // unguessable). Unknown ids are dropped; either way 202, as the spec says.
        //
        // Instances sharing sessions: an answer nobody here waits for is passed on to the
        // others, where the call that asked may be.
        Message::Response { id, outcome } => {
            let (connection, session) = match lookup {
                Lookup::Unknown => {
                    return response::message(StatusCode::NOT_FOUND, "session not found");
                }
                Lookup::Found(s) => (&s.connection, Some(&*s.id)),
                Lookup::Absent => (&shared.stateless, None),
            };
            if !connection.answered(&id, outcome) {
                if let Some(sharing) = shared.server().sharing() {
                    super::fleet::pass_on(sharing, session, &id, outcome);
                    return response::accepted();
                }
                tracing::debug!(%id, "ignoring a response to no request of ours that is waiting");
            }
            response::accepted()
        }
    }
}

/// `initialize` in sessionful mode: a new connection, kept as a session if it succeeds
/// (and, when sessions are shared, recorded for the other instances first).
async fn initialize(
    shared: &Arc<Shared>,
    parts: &http::request::Parts,
    id: RequestId,
    params: Option<&RawValue>,
    sender: Sender<'_>,
    accept: Accept,
    hold: Arc<Hold>,
) -> Response<Body> {
    let Sender { identity, client } = sender;
    let (tx, outbox) = mpsc::channel(session::OUTBOX);
    let connection = shared.server().connect(Peer::new(tx));
    let checks = HttpChecks {
        headers: &parts.headers,
        sessionless: Sessionless::Serve,
    };
    let (exchange, pending) = Pending::new(hold, caller(identity, None, client));
    let Dispatched::Reply { line, disposition } =
        connection.request(id, methods::INITIALIZE.name, params, &checks, exchange)
    else {
        unreachable!("initialize is answered at once")
    };
    if connection.legacy_version().is_none() {
        // Refused (bad params, bad header): no session.
        return pending.now(line, disposition, accept, shared);
    }
    let caller = limits::caller_key(identity, client);
    let session = match shared.sessions.insert(connection, outbox, identity, caller) {
        Ok(session) => session,
        Err(session::Refused::CallerFull) => {
            return response::too_many(
                "this caller's sessions are all in use; end one (DELETE) or retry later",
            );
        }
        Err(session::Refused::Full | session::Refused::NoId) => {
            return response::unavailable("too many sessions are in use; retry later");
        }
    };
    if let Some(sharing) = shared.server().sharing()
        && let Err(refused) =
            super::fleet::opened(sharing, shared, &session, identity, params).await
    {
        shared.sessions.remove(&session.id);
        return refused;
    }
    tracing::debug!(session = %session.id, "legacy session opened");
    let mut resp = pending.now(line, disposition, accept, shared);
    if let Ok(value) = HeaderValue::from_str(&session.id) {
        resp.headers_mut().insert(MCP_SESSION_ID, value);
    }
    resp
}

/// Who sent a request: the authenticated identity, the legacy session, the client's network
/// (its address, an IPv6 /64, this machine as `127.0.0.1`; through trusted proxies, the
/// address they forward: `limits::client_address`).
fn caller(identity: &Identity, session: Option<&Arc<str>>, client: Option<IpAddr>) -> Caller {
    // Every HTTP caller is held to scope requirements: an unauthenticated one has none.
    // The identity's own `Arc`s are shared, not copied: this runs on every request.
    let mut caller = Caller::connection().with_granted_scopes(identity.scope_set().clone());
    if let Some(subject) = identity.subject_arc() {
        caller = caller.with_identity(subject.clone());
    }
    if let Some(session) = session {
        caller = caller.with_session(session.clone());
    }
    if let Some(client) = client {
        caller = caller.with_address(limits::shown_shared(limits::client_network(client)));
    }
    caller
}

async fn read_body<B>(
    body: B,
    headers: &HeaderMap,
    options: &super::HttpOptions,
) -> Result<Bytes, Refusal>
where
    B: http_body::Body<Data = Bytes> + Send + 'static,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    let limit = options.max_body_bytes;
    let too_large = || {
        Refusal::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!("the body exceeds the limit of {limit} bytes"),
        )
    };
    let declared = headers
        .get(CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > limit as u64) {
        return Err(too_large());
    }
    match tokio::time::timeout(
        options.body_read_timeout,
        Limited::new(body, limit).collect(),
    )
    .await
    {
        Ok(Ok(collected)) => Ok(collected.to_bytes()),
        Ok(Err(e)) if e.downcast_ref::<LengthLimitError>().is_some() => Err(too_large()),
        Ok(Err(e)) => {
            tracing::debug!(error = %e, "reading a request body failed");
            Err(Refusal::new(
                StatusCode::BAD_REQUEST,
                "the body could not be read",
            ))
        }
        Err(_) => Err(Refusal::new(
            StatusCode::REQUEST_TIMEOUT,
            "the body took too long to arrive",
        )),
    }
}

/// What a request keeps until it is answered and its response written out: its
/// concurrency permit, its caller's slot, and its session's busy mark (a session with a
/// request in flight does not expire).
struct Hold {
    _permit: Option<OwnedSemaphorePermit>,
    _caller: Option<limits::CallerSlot>,
    _busy: Option<Busy>,
}

/// One request's answer in the making: its notifications, its deferred answer, and the
/// guard that cancels it when the client goes away.
struct Pending {
    queued: VecDeque<Vec<u8>>,
    /// The answer, once it arrived, until it is sent (after the queued notifications).
    answer: Option<Vec<u8>>,
    notify: mpsc::Receiver<Vec<u8>>,
    notify_open: bool,
    respond: Option<oneshot::Receiver<Vec<u8>>>,
    /// How the deferred answer ended the request (set before it is sent).
    late: Arc<std::sync::OnceLock<Disposition>>,
    cancel: Option<DropGuard>,
    _hold: Arc<Hold>,
}

/// What [`Pending::next`] found.
enum Step {
    /// A notification to send.
    Message(Vec<u8>),
    /// The answer: the last thing to send.
    Answer(Vec<u8>),
    /// The deadline passed first.
    Quiet,
    /// Nothing more will come (the request was dropped, or everything was sent).
    Gone,
}

impl Pending {
    fn new(hold: Arc<Hold>, caller: Caller) -> (Exchange, Self) {
        let (notify_tx, notify) = mpsc::channel(NOTIFY_QUEUE);
        let (respond_tx, respond) = oneshot::channel();
        let cancel = CancellationToken::new();
        let exchange = Exchange::new(Peer::new(notify_tx), respond_tx, cancel.clone(), caller);
        let late = exchange.late_disposition();
        let pending = Pending {
            late,
            queued: VecDeque::new(),
            answer: None,
            notify,
            notify_open: true,
            respond: Some(respond),
            cancel: Some(cancel.drop_guard()),
            _hold: hold,
        };
        (exchange, pending)
    }

    /// The request finished: nothing is left to cancel.
    fn finished(&mut self) {
        if let Some(guard) = self.cancel.take() {
            guard.disarm();
        }
    }

    /// Takes notifications already sent, in order.
    fn drain(&mut self) {
        while let Ok(line) = self.notify.try_recv() {
            self.queued.push_back(line);
        }
    }

    /// The next thing to send, waiting at most until `until`.
    async fn next(&mut self, until: Option<Instant>) -> Step {
        loop {
            if let Some(line) = self.queued.pop_front() {
                return Step::Message(line);
            }
            if let Some(line) = self.answer.take() {
                return Step::Answer(line);
            }
            // No answer to wait for: it was sent, or it will never come.
            let Some(respond) = self.respond.as_mut() else {
                return Step::Gone;
            };
            enum Got {
                Note(Option<Vec<u8>>),
                Answer(Option<Vec<u8>>),
                Quiet,
            }
            let deadline = until.unwrap_or_else(|| Instant::now() + Duration::from_secs(86_400));
            let got = tokio::select! {
                biased;
                note = self.notify.recv(), if self.notify_open => Got::Note(note),
                answer = respond => Got::Answer(answer.ok()),
                () = tokio::time::sleep_until(deadline), if until.is_some() => Got::Quiet,
            };
            match got {
                Got::Note(Some(line)) => return Step::Message(line),
                Got::Note(None) => self.notify_open = false,
                Got::Answer(answer) => {
                    self.respond = None;
                    let Some(line) = answer else {
                        return Step::Gone;
                    };
                    self.finished();
                    // Notifications sent before the answer go first.
                    self.drain();
                    self.answer = Some(line);
                }
                Got::Quiet => return Step::Quiet,
            }
        }
    }

    /// The answer was ready at once.
    fn now(
        mut self,
        line: Vec<u8>,
        disposition: Disposition,
        accept: Accept,
        shared: &Shared,
    ) -> Response<Body> {
        self.finished();
        self.respond = None;
        if disposition != Disposition::Answered {
            return auth::dispatched(&disposition, line, shared.options.auth.as_deref());
        }
        // A tool that finished on its first poll may have sent progress already.
        self.drain();
        if (self.queued.is_empty() && accept.json) || !accept.sse {
            return response::json(StatusCode::OK, line);
        }
        self.answer = Some(line);
        self.stream(shared)
    }

    /// The request is running: JSON if it finishes quietly within one keep-alive
    /// interval, a stream otherwise. An answer that comes before the stream and ends the
    /// request as malformed (a late `-32021`) gets its status, as one ready at once does.
    async fn later(mut self, accept: Accept, shared: &Shared) -> Response<Body> {
        if !accept.sse {
            // Notifications have nowhere to go; drop them as they come.
            loop {
                match self.next(None).await {
                    Step::Message(_) => {}
                    Step::Answer(line) => return self.answered(line, shared),
                    Step::Quiet | Step::Gone => return gone(),
                }
            }
        }
        let window = Instant::now() + shared.options.keep_alive;
        match self.next(Some(window)).await {
            Step::Answer(line) if self.malformed() => self.answered(line, shared),
            Step::Answer(line) if accept.json => response::json(StatusCode::OK, line),
            Step::Answer(line) => {
                self.answer = Some(line);
                self.stream(shared)
            }
            Step::Message(line) => {
                self.queued.push_front(line);
                self.stream(shared)
            }
            Step::Quiet => self.stream(shared),
            Step::Gone => gone(),
        }
    }

    /// Whether the deferred answer ended the request as malformed.
    fn malformed(&self) -> bool {
        self.late.get().is_some_and(|d| *d != Disposition::Answered)
    }

    /// The deferred answer as a JSON response, with the status its disposition calls for.
    fn answered(&self, line: Vec<u8>, shared: &Shared) -> Response<Body> {
        match self.late.get() {
            Some(disposition) if *disposition != Disposition::Answered => {
                auth::dispatched(disposition, line, shared.options.auth.as_deref())
            }
            _ => response::json(StatusCode::OK, line),
        }
    }

    /// The rest of the exchange as an SSE stream; dropping it (the client left) cancels the
    /// request.
    fn stream(self, shared: &Shared) -> Response<Body> {
        let events = futures::stream::unfold(self, |mut pending| async move {
            match pending.next(None).await {
                Step::Message(line) | Step::Answer(line) => Some((line, pending)),
                Step::Quiet | Step::Gone => None,
            }
        });
        response::sse(events, shared.options.keep_alive)
    }
}

/// The request ended without an answer (the server is shutting down).
fn gone() -> Response<Body> {
    response::error(
        StatusCode::SERVICE_UNAVAILABLE,
        None,
        &McpError::internal("the request ended without an answer (the server is shutting down)"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn accept(values: &[&str]) -> Accept {
        let mut headers = HeaderMap::new();
        for v in values {
            headers.append(ACCEPT, HeaderValue::from_str(v).unwrap());
        }
        Accept::of(&headers)
    }

    #[test]
    fn accept_reads_media_ranges_and_zero_quality() {
        let a = accept(&["application/json, text/event-stream"]);
        assert!(a.json && a.sse);
        let a = accept(&[]);
        assert!(a.json && a.sse, "no Accept accepts anything");
        let a = accept(&["*/*"]);
        assert!(a.json && a.sse);
        let a = accept(&["application/json;q=0.9"]);
        assert!(a.json && !a.sse);
        let a = accept(&["text/event-stream", "application/json;q=0"]);
        assert!(!a.json && a.sse);
        let a = accept(&["text/html"]);
        assert!(!a.json && !a.sse);
    }
}
