//! One connection's dispatcher: era classification, routing, and request lifecycles.
//!
//! Decisions where the spec leaves a choice (spec `dual-era.md` §3.1):
//! - Each message is classified on its own. A request whose `_meta` carries the modern
//!   envelope is served as modern, even on a connection that did `initialize` (as rmcp
//!   does); nothing is pinned, so `server/discover` followed by `initialize` works.
//! - `initialize` always selects the legacy handshake and is answered with a legacy
//!   version, never `2026-07-28`. A second `initialize` on one connection is `-32600`.
//! - A request without an envelope before `initialize` is served as legacy traffic under
//!   2025-11-25 with empty client capabilities, rather than refused: clients that skip the
//!   handshake keep working, and the connection never ends because of it.
//! - `server/discover` without an envelope is `-32602`: it exists only on the modern leg,
//!   and the error tells a client what is missing.
//! - A message that cannot be decoded is answered with `-32700` or `-32600` and the
//!   connection goes on.
//!
//! Transports that frame each request on its own (Streamable HTTP) hand over one decoded
//! request at a time with [`Connection::request`]: its notifications and deferred answer go
//! to the request's own [`Exchange`] instead of the connection's peer, the transport's
//! checks run at their rung of the validation ladder (after classification and the
//! envelope, before the method), and the answer carries a [`Disposition`] the transport
//! maps to its own status. One shared stateless connection serves every request that has
//! no session; it keeps nothing between requests.
//!
//! # The method table
//!
//! Every request method is a row of [`table::METHODS`]: the eras it exists in, what the
//! server must offer for it (a primitive, completions, logging) and its handler, one file per
//! concept beside this one: `lifecycle.rs` (`initialize`, `ping`, `server/discover`,
//! `logging/setLevel`, notifications), `lists.rs`, `call.rs`, `read.rs`, `prompt.rs`,
//! `complete.rs`, `subscriptions.rs` (legacy subscriptions and `subscriptions/listen`),
//! `task.rs` (a call that becomes a task, and `tasks/get`, `tasks/update`, `tasks/cancel`).
//! `skills.rs` (the skills extension: `skills/list`, `skills/get`,
//! `resources/directory/read`).
//! A handler checks its envelope and whether its row is offered to the request's era in one
//! step (`admitted`, in `envelope.rs`, over [`Connection::admit`]); the requests that run
//! user code (tools, reads, prompts, completions) share `serve.rs`: their context, their modern round, and one
//! routine that polls the item's stack once inline and moves it to a task only when it
//! waits. The capabilities the server declares come from the same gates
//! ([`table::Offer::capabilities`]). Adding a method is a row and a handler file.

mod call;
mod complete;
mod envelope;
mod lifecycle;
mod lists;
mod method;
mod prompt;
mod read;
mod serve;
mod skills;
mod subscriptions;
pub(super) mod table;
mod task;
#[cfg(test)]
mod tests;

use super::Server;
use crate::context::input::Outgoing;
use crate::context::{Caller, Peer};
use crate::protocol::jsonrpc::{Message, decode, encode_error};
use crate::protocol::{ClientCapabilities, Implementation, MetaOnlyParams};
use crate::protocol::{Era, LoggingLevel, McpError, RequestId};
use crate::server::contract::{Dispatched, Disposition, Exchange, Rejection, RequestChecks};
use crate::server::visibility::{Item, ItemKind};
use envelope::Envelope;
use method::Handler;
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;
use std::collections::{HashMap, HashSet};
use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::{Arc, Mutex};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

/// The dispatcher for one connection (a stdio process, an in-memory pair, an HTTP session).
///
/// A transport feeds it lines with [`handle_line`](Self::handle_line) and calls
/// [`shutdown`](Self::shutdown) when the input ends. Requests are served concurrently: a
/// tool that has to wait runs in its own task and answers when done, so responses may come
/// out of order.
#[derive(Clone)]
pub struct Connection {
    inner: Arc<ConnInner>,
}

struct ConnInner {
    server: Server,
    peer: Peer,
    legacy: Mutex<Option<Arc<LegacySession>>>,
    inflight: Mutex<HashMap<RequestId, CancellationToken>>,
    tasks: TaskTracker,
    /// Cancelled when the input ends: stops listen streams and watchers, not tool calls.
    closing: CancellationToken,
    /// Cancelled when the shutdown grace period runs out: drops the calls still running.
    aborted: CancellationToken,
    /// Shared by unrelated clients (HTTP without a session): `initialize` is answered but
    /// not kept, and request ids are not tracked (two clients may use the same id).
    stateless: bool,
    /// Whether the tool-list watcher runs; it starts with `notifications/initialized`, so
    /// connections that never complete a handshake never spawn it.
    watching: AtomicBool,
    /// The URIs this (legacy) connection subscribed to with `resources/subscribe`.
    subscriptions: Mutex<HashSet<Arc<str>>>,
    /// Whether the resource-update watcher runs; it starts with the first subscription.
    watching_updates: AtomicBool,
    /// Requests to the client awaiting its answer (legacy asks; `crate::input`).
    outgoing: Arc<Outgoing>,
}

/// What `initialize` established on this connection.
struct LegacySession {
    version: Arc<str>,
    client_capabilities: Arc<ClientCapabilities>,
    client_info: Arc<Implementation>,
    initialized: AtomicBool,
    /// The level `logging/setLevel` chose ([`LEVEL_UNSET`] before it ran).
    log_level: AtomicU8,
    /// The session's duration and the active-session count, when telemetry is on: recorded
    /// when the session (the last holder of it) goes.
    _telemetry: Option<crate::telemetry::Session>,
}

/// `LegacySession::log_level` before any `logging/setLevel`.
const LEVEL_UNSET: u8 = u8::MAX;

/// What a legacy session gets before it chooses a level (the spec lets the server choose).
const DEFAULT_LEGACY_LEVEL: LoggingLevel = LoggingLevel::Info;

impl LegacySession {
    fn log_level(&self) -> LoggingLevel {
        match self.log_level.load(Ordering::Relaxed) {
            LEVEL_UNSET => DEFAULT_LEGACY_LEVEL,
            n => LoggingLevel::ALL[usize::from(n)],
        }
    }
}

impl fmt::Debug for Connection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Connection")
            .field("server", &self.inner.server.info().name)
            .finish_non_exhaustive()
    }
}

pub(super) enum Routed {
    Reply(Vec<u8>, Disposition),
    Pending,
}

impl Routed {
    /// The answer of a method answered at once: its result, or its refusal.
    fn now(id: &RequestId, handled: Result<Vec<u8>, Rejection>) -> Self {
        match handled {
            Ok(bytes) => Routed::Reply(bytes, Disposition::Answered),
            Err(rejection) => Routed::rejected(id, rejection),
        }
    }

    fn rejected(id: &RequestId, rejection: Rejection) -> Self {
        Routed::Reply(
            encode_error(Some(id), &rejection.error),
            rejection.disposition,
        )
    }
}

/// The name telemetry gives `method`: its own when the server serves it, `_OTHER`
/// otherwise (a client's text never becomes a span's name).
pub(crate) fn traced_name(method: &str) -> &'static str {
    table::lookup(method).map_or("_OTHER", |row| row.name)
}

/// The span of a request the dispatcher answers later itself (not through the pipeline),
/// taken by the task that will deliver the answer (see `route_traced`); nothing without
/// the `otel` feature or with telemetry off.
struct Deferred(Option<crate::telemetry::Immediate>);

impl Deferred {
    /// The span `route_traced` left for the handler running on this thread.
    fn take() -> Self {
        Self(crate::telemetry::take_deferred())
    }

    /// Ends the span with the answer delivered.
    fn answered(self, line: &[u8]) {
        if let Some(span) = self.0 {
            span.finish_with(line);
        }
    }

    /// Ends the span of a request dropped unanswered; `normal` for an end that is not a
    /// failure (a stream its client closed).
    fn dropped(self, normal: bool) {
        if let Some(span) = self.0 {
            if normal {
                span.finish(None);
            } else {
                span.cancelled();
            }
        }
    }
}

/// Where one request's notifications and deferred answer go.
enum Outlet {
    /// The connection's peer carries everything (stdio, in-memory).
    Connection,
    /// The request's own exchange (HTTP).
    Exchange(Exchange),
}

/// One request's transport context: the checks its transport makes, and its outlet.
pub(super) struct Scope<'a> {
    checks: Option<&'a dyn RequestChecks>,
    outlet: Outlet,
}

impl Scope<'_> {
    /// A line transport: no header checks, everything to the connection's peer.
    fn line() -> Self {
        Scope {
            checks: None,
            outlet: Outlet::Connection,
        }
    }
}

impl Connection {
    pub(crate) fn new(server: Server, peer: Peer) -> Self {
        Self::with_mode(server, peer, false)
    }

    /// The connection every sessionless request shares: nothing survives a request.
    pub(crate) fn stateless(server: Server) -> Self {
        // Nothing is ever sent to the connection's own peer (answers and notifications go
        // to each request's exchange, and no handshake is kept, so no list_changed either).
        let (tx, _) = tokio::sync::mpsc::channel(1);
        Self::with_mode(server, Peer::new(tx), true)
    }

    fn with_mode(server: Server, peer: Peer, stateless: bool) -> Self {
        // Instances sharing sessions: an answer may reach another instance, which routes it
        // by id alone, so ids must not repeat across instances.
        let unguessable_ids = stateless || server.shares_state();
        Self {
            inner: Arc::new(ConnInner {
                server,
                peer,
                legacy: Mutex::new(None),
                inflight: Mutex::new(HashMap::new()),
                tasks: TaskTracker::new(),
                closing: CancellationToken::new(),
                aborted: CancellationToken::new(),
                stateless,
                watching: AtomicBool::new(false),
                subscriptions: Mutex::new(HashSet::new()),
                watching_updates: AtomicBool::new(false),
                outgoing: Arc::new(if unguessable_ids {
                    Outgoing::shared()
                } else {
                    Outgoing::new()
                }),
            }),
        }
    }

    /// Handles one incoming JSON-RPC message (one line, without its newline).
    ///
    /// Never fails: anything wrong with the message is answered with a JSON-RPC error.
    /// A tool's first poll runs inline (most tools finish without waiting); if it has to
    /// wait, it moves to its own task. Tools that block a thread should use
    /// `tokio::task::spawn_blocking`.
    pub async fn handle_line(&self, line: &[u8]) {
        let reply = match decode(line) {
            Err(e) => {
                if let Some(id) = &e.id
                    && crate::telemetry::enabled()
                {
                    self.trace_undecodable(line, id, e.error.code.0);
                }
                encode_error(e.id.as_ref(), &e.error)
            }
            Ok(Message::Request { id, method, params }) => {
                // With a server-wide concurrency limit, a line transport stops taking
                // requests while every slot is taken: what the client sends meanwhile waits
                // in its pipe, not in this process's memory.
                //
                // Not while a call waits for this client's answer to a request of ours: the
                // answer is behind in the same input, and a reader waiting for a slot would
                // never reach it (every slot held by calls waiting for answers).
                if let Some(limit) = &self.inner.server.tools().policies().concurrency
                    && limit.saturated()
                    && !self.inner.outgoing.is_waiting()
                {
                    limit.ready().await;
                }
                match self.route(id, &method, params, Scope::line()) {
                    Routed::Reply(bytes, _) => bytes,
                    Routed::Pending => return,
                }
            }
            Ok(Message::Notification { method, params }) => {
                self.notification(&method, params);
                return;
            }
            Ok(Message::Response { id, outcome }) => {
                self.response(&id, outcome);
                return;
            }
        };
        self.inner.peer.send_line(reply).await;
    }

    /// Handles one decoded request from a transport that frames requests on their own
    /// (HTTP; see [`transport`](crate::transport) for the contract). Its notifications and
    /// deferred answer go to `exchange`; `checks` are the transport's cross-checks of what
    /// it saw outside the body.
    ///
    /// Never fails: what is wrong with the request is in the answer, with the
    /// [`Disposition`] saying what kind of failure it was.
    pub fn request(
        &self,
        id: RequestId,
        method: &str,
        params: Option<&RawValue>,
        checks: &dyn RequestChecks,
        exchange: Exchange,
    ) -> Dispatched {
        let scope = Scope {
            checks: Some(checks),
            outlet: Outlet::Exchange(exchange),
        };
        match self.route(id, method, params, scope) {
            Routed::Reply(line, disposition) => Dispatched::Reply { line, disposition },
            Routed::Pending => Dispatched::Pending,
        }
    }

    /// Routes a client's answer to the request of ours it answers (a legacy ask); an answer
    /// nobody waits for (late, unknown, duplicated) is dropped. A transport that decodes
    /// messages itself (one request per exchange) hands every JSON-RPC response here.
    pub fn response(&self, id: &RequestId, outcome: Result<&RawValue, &RawValue>) {
        if !self.answered(id, outcome) {
            tracing::debug!(%id, "ignoring a response to no request of ours that is waiting");
        }
    }

    /// Routes a client's answer as [`response`](Self::response) does; returns whether a
    /// request of ours waited for it.
    pub(crate) fn answered(&self, id: &RequestId, outcome: Result<&RawValue, &RawValue>) -> bool {
        self.inner.outgoing.resolve(id, outcome)
    }

    /// The legacy version `initialize` negotiated on this connection, if it ran (a
    /// transport that keeps sessions checks its clients' version headers against it).
    pub fn legacy_version(&self) -> Option<Arc<str>> {
        self.inner
            .legacy
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .as_ref()
            .map(|s| s.version.clone())
    }

    /// Answers a message that was too long to read with `-32600` (its id is unknown).
    pub async fn reject_oversized(&self, len: usize, limit: usize) {
        let error = McpError::invalid_request(format!(
            "a message of {len} bytes exceeds the limit of {limit} bytes; it was discarded unread"
        ));
        self.inner.peer.send_line(encode_error(None, &error)).await;
    }

    /// Ends the connection's streams: each `subscriptions/listen` stream gets its final
    /// result, and the tool-list watcher stops. Tool calls go on (a transport shutting down
    /// gracefully calls this first, so long-lived streams do not hold it open).
    pub fn end_streams(&self) {
        self.inner.closing.cancel();
    }

    /// Ends the connection's input: listen streams end, in-flight tool calls finish and
    /// are answered. Returns when every task of the connection is done, or when the
    /// server's shutdown grace period runs out (`ServerBuilder::shutdown_grace`): calls
    /// still running then are dropped, so a hung tool cannot keep the process alive.
    pub async fn shutdown(&self) {
        self.inner.closing.cancel();
        self.inner.tasks.close();
        let grace = self.inner.server.inner.shutdown_grace;
        if tokio::time::timeout(grace, self.inner.tasks.wait())
            .await
            .is_err()
        {
            tracing::warn!(
                running = self.inner.tasks.len(),
                ?grace,
                "input ended and calls are still running after the grace period; dropping them"
            );
            self.inner.aborted.cancel();
            self.inner.tasks.wait().await;
        }
    }

    fn route(
        &self,
        id: RequestId,
        method: &str,
        params: Option<&RawValue>,
        scope: Scope<'_>,
    ) -> Routed {
        if crate::telemetry::enabled() {
            return self.route_traced(id, method, params, scope);
        }
        self.route_untraced(id, method, params, scope)
    }

    /// [`route`](Self::route) with telemetry on: every request gets exactly one server
    /// span. The methods the dispatcher answers itself get one here: at once (lists, the
    /// handshake, ping, ...), or later (a completion handler that waits, a task read from a
    /// shared store, a `subscriptions/listen` stream), where the task that delivers the
    /// answer takes the span along ([`telemetry::defer`]) and ends it then. Those that run
    /// an item's stack get the pipeline's; and a request answered before it (an unknown
    /// tool, prompt or resource, a method of the other era, an unknown method, malformed
    /// params) gets one here too, made once it is answered. An unknown method is named
    /// `_OTHER` (as HTTP's conventions name unknown methods): its name is the client's to
    /// choose, and span names must stay few.
    fn route_traced(
        &self,
        id: RequestId,
        method: &str,
        params: Option<&RawValue>,
        scope: Scope<'_>,
    ) -> Routed {
        use crate::telemetry;
        let session = || self.legacy_version();
        let row = table::lookup(method);
        let checks = scope.checks;
        let started = |id: &RequestId| {
            telemetry::start_immediate(
                row.map_or("_OTHER", |row| row.name),
                id,
                params,
                session().as_deref(),
                || checks.and_then(|c| c.trace_context()),
            )
        };
        match row.map(|row| row.handler) {
            Some(Handler::Now(handle)) => {
                let traced = started(&id);
                let handled = {
                    let _in = traced.as_ref().map(|t| t.span().enter());
                    handle(self, &id, row.expect("found"), params, &scope)
                };
                if let Some(traced) = traced {
                    traced.finish(handled.as_ref().err().map(|r| r.error.code.0));
                }
                Routed::now(&id, handled)
            }
            Some(Handler::Later(handle)) => {
                let Some(traced) = started(&id) else {
                    return handle(self, id, row.expect("found"), params, scope);
                };
                let span = traced.span().clone();
                telemetry::defer(traced);
                let routed = span.in_scope(|| handle(self, id, row.expect("found"), params, scope));
                // Still here unless a task took it to deliver the answer later.
                if let (Some(traced), Routed::Reply(line, _)) =
                    (telemetry::take_deferred(), &routed)
                {
                    traced.finish_with(line);
                }
                routed
            }
            Some(Handler::Stack(_)) | None => {
                let (before, start) = (telemetry::pipeline_spans(), std::time::Instant::now());
                let request_id = id.clone();
                let routed = self.route_untraced(id, method, params, scope);
                if let Routed::Reply(line, _) = &routed
                    && telemetry::pipeline_spans() == before
                    && let Some(mut traced) = started(&request_id)
                {
                    traced.since(start);
                    traced.finish_with(line);
                }
                routed
            }
        }
    }

    /// The span of a line that names its id but is not a request the server can read
    /// (`"jsonrpc": "1.0"`, a request with a `result`, ...), answered `code`: named by its
    /// `method` when it has one the server serves.
    fn trace_undecodable(&self, line: &[u8], id: &RequestId, code: i32) {
        let name = traced_name(&crate::telemetry::method_of(line));
        let version = self.legacy_version();
        if let Some(span) =
            crate::telemetry::start_immediate(name, id, None, version.as_deref(), || None)
        {
            span.finish(Some(code));
        }
    }

    fn route_untraced(
        &self,
        id: RequestId,
        method: &str,
        params: Option<&RawValue>,
        scope: Scope<'_>,
    ) -> Routed {
        let Some(row) = table::lookup(method) else {
            return Routed::rejected(&id, self.unknown(method, params, scope.checks));
        };
        match row.handler {
            Handler::Now(handle) => Routed::now(&id, handle(self, &id, row, params, &scope)),
            Handler::Later(handle) | Handler::Stack(handle) => handle(self, id, row, params, scope),
        }
    }

    /// A method not in the table. Classified anyway: a malformed envelope is `-32602` before
    /// the method is looked at (the order of the official TypeScript SDK); then it is not
    /// offered, in the request's era.
    fn unknown(
        &self,
        method: &str,
        params: Option<&RawValue>,
        checks: Option<&dyn RequestChecks>,
    ) -> Rejection {
        let p: MetaOnlyParams = match optional_params(params) {
            Ok(p) => p,
            Err(e) => return e.into(),
        };
        match self.envelope(p.meta, method, checks) {
            Ok(env) => unoffered(method, env.era),
            Err(rejection) => rejection,
        }
    }

    /// Where a request's notifications go: its exchange, or the connection's peer.
    fn notifications_for(&self, outlet: &Outlet) -> Peer {
        match outlet {
            Outlet::Connection => self.inner.peer.clone(),
            Outlet::Exchange(exchange) => exchange.notify.clone(),
        }
    }

    /// Who a request comes from: its exchange's caller (HTTP), or this connection.
    /// Whether the caller of `outlet` may see the item (`server::visibility`): an item it
    /// may not see is refused exactly as an unknown one.
    fn may_see(&self, outlet: &Outlet, kind: ItemKind, key: &str, scopes: &[String]) -> bool {
        let rules = self.inner.server.visibility();
        let caller = self.caller_of(outlet);
        !rules.may_hide(caller) || rules.allows(caller, &Item::new(kind, key, scopes))
    }

    /// [`caller_for`](Self::caller_for), borrowed: what a check needs, without a copy.
    fn caller_of<'a>(&self, outlet: &'a Outlet) -> &'a Caller {
        match outlet {
            Outlet::Connection => &crate::context::caller::LOCAL,
            Outlet::Exchange(exchange) => &exchange.caller,
        }
    }

    fn caller_for(&self, outlet: &Outlet) -> Caller {
        match outlet {
            Outlet::Connection => Caller::connection(),
            Outlet::Exchange(exchange) => exchange.caller.clone(),
        }
    }

    /// A request's cancellation: its exchange's (the client going away), or a new token
    /// that `notifications/cancelled` reaches through the in-flight table.
    fn cancellation_for(&self, outlet: &Outlet) -> CancellationToken {
        match outlet {
            Outlet::Connection => CancellationToken::new(),
            Outlet::Exchange(exchange) => exchange.cancel.clone(),
        }
    }

    /// Records a pending request so `notifications/cancelled` can reach it, where that
    /// means something: line transports, and legacy requests of an HTTP session (a modern
    /// request is cancelled by closing its stream; on the shared stateless connection two
    /// clients' ids could collide). Returns whether it was recorded.
    fn track(&self, id: &RequestId, token: &CancellationToken, outlet: &Outlet, era: Era) -> bool {
        let tracked = match outlet {
            Outlet::Connection => true,
            Outlet::Exchange(_) => !self.inner.stateless && era == Era::Legacy,
        };
        if tracked {
            self.lock_inflight().insert(id.clone(), token.clone());
        }
        tracked
    }

    fn untrack(&self, tracked: bool, id: &RequestId) {
        if tracked {
            self.lock_inflight().remove(id);
        }
    }

    /// Sends a deferred answer where the request's outlet says.
    async fn deliver(&self, outlet: Outlet, line: Vec<u8>, disposition: Disposition) {
        match outlet {
            Outlet::Connection => {
                self.inner.peer.send_line(line).await;
            }
            Outlet::Exchange(exchange) => {
                let _ = exchange.late.set(disposition);
                // The receiver is gone when the client left; nobody is waiting then.
                let _ = exchange.respond.send(line);
            }
        }
    }

    fn lock_inflight(&self) -> std::sync::MutexGuard<'_, HashMap<RequestId, CancellationToken>> {
        self.inner
            .inflight
            .lock()
            .unwrap_or_else(|e| e.into_inner())
    }
}

/// A method the server does not offer (not in the request's era, or of a primitive the
/// server does not advertise): `-32601`, and "not found" for a modern request.
fn unoffered(method: &str, era: Era) -> Rejection {
    let error = McpError::method_not_found(method);
    match era {
        Era::Modern => Rejection::not_found(error),
        Era::Legacy => error.into(),
    }
}

fn optional_params<T: DeserializeOwned + Default>(
    params: Option<&RawValue>,
) -> Result<T, McpError> {
    match params {
        None => Ok(T::default()),
        Some(raw) => serde_json::from_str(raw.get()).map_err(McpError::invalid_params),
    }
}

fn required_params<T: DeserializeOwned>(params: Option<&RawValue>) -> Result<T, McpError> {
    let raw = params.ok_or_else(|| McpError::invalid_params("missing \"params\""))?;
    serde_json::from_str(raw.get()).map_err(McpError::invalid_params)
}
