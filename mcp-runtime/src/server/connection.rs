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

mod call;
mod items;

use super::Server;
use crate::context::Caller;
use crate::context::Peer;
use crate::context::input::Outgoing;
use crate::protocol::jsonrpc::{
    Message, decode, encode_error, encode_notification, encode_raw_result, encode_result,
};
use crate::protocol::lifecycle::{
    ClientCapabilities, Implementation, InitializeParams, InitializeResult,
    MAX_RETAINED_CLIENT_BYTES, MetaOnlyParams,
};
use crate::protocol::meta::RequestMeta;
use crate::protocol::version::{self, LATEST_LEGACY_VERSION, MODERN_VERSION, MODERN_VERSIONS};
use crate::protocol::{
    Era, LoggingLevel, McpError, PaginatedParams, ProgressToken, RequestId, SetLevelParams,
};
use crate::server::contract::{Dispatched, Disposition, Exchange, Rejection, RequestChecks};
use crate::server::projection::Modern;
use crate::server::registry::Primitive;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;
use serde_json::{Map, json};
use std::collections::{HashMap, HashSet};
use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::{Arc, LazyLock, Mutex};
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

/// The era and client facts a request is served under.
struct Envelope {
    era: Era,
    version: Arc<str>,
    client_capabilities: Arc<ClientCapabilities>,
    client_info: Option<Arc<Implementation>>,
    progress_token: Option<ProgressToken>,
    /// Modern: the request's `logLevel`. Legacy: unused (the session's level is read).
    log_level: Option<LoggingLevel>,
    /// Legacy: the `initialize` behind the request, if any.
    session: Option<Arc<LegacySession>>,
}

static MODERN: LazyLock<Arc<str>> = LazyLock::new(|| MODERN_VERSION.into());
static LATEST_LEGACY: LazyLock<Arc<str>> = LazyLock::new(|| LATEST_LEGACY_VERSION.into());
static NO_CAPABILITIES: LazyLock<Arc<ClientCapabilities>> = LazyLock::new(Arc::default);

/// `_meta` key tagging notifications of a `subscriptions/listen` stream.
const SUBSCRIPTION_ID_KEY: &str = "io.modelcontextprotocol/subscriptionId";

impl fmt::Debug for Connection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Connection")
            .field("server", &self.inner.server.info().name)
            .finish_non_exhaustive()
    }
}

enum Routed {
    Reply(Vec<u8>, Disposition),
    Pending,
}

impl Routed {
    fn rejected(id: &RequestId, rejection: Rejection) -> Self {
        Routed::Reply(
            encode_error(Some(id), &rejection.error),
            rejection.disposition,
        )
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
struct Scope<'a> {
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
                outgoing: Arc::new(if stateless {
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
            Err(e) => encode_error(e.id.as_ref(), &e.error),
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
        if !self.inner.outgoing.resolve(id, outcome) {
            tracing::debug!(%id, "ignoring a response to no request of ours that is waiting");
        }
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
        match method {
            "tools/call" => self.call_tool(id, params, scope),
            "resources/read" => self.read_resource(id, params, scope),
            "prompts/get" => self.get_prompt(id, params, scope),
            "completion/complete" => self.complete(id, params, scope),
            "subscriptions/listen" => self.listen(id, params, scope),
            _ => match self.simple(&id, method, params, scope.checks) {
                Ok(bytes) => Routed::Reply(bytes, Disposition::Answered),
                Err(rejection) => Routed::rejected(&id, rejection),
            },
        }
    }

    /// Requests answered at once, without running user code.
    fn simple(
        &self,
        id: &RequestId,
        method: &str,
        params: Option<&RawValue>,
        checks: Option<&dyn RequestChecks>,
    ) -> Result<Vec<u8>, Rejection> {
        let server = &self.inner.server.inner;
        match method {
            "initialize" => {
                // An enveloped `initialize` is a modern request, and 2026-07-28 has no such
                // method: 404 with -32601 after the envelope's own checks (only a claimless
                // `initialize` is the legacy handshake; conformance-next.md §10b).
                let p: MetaOnlyParams = optional_params(params).unwrap_or_default();
                if p.meta.as_ref().is_some_and(RequestMeta::claims_modern) {
                    self.envelope(p.meta, method, checks)?;
                    return Err(Rejection::not_found(McpError::method_not_found(method)));
                }
                let p: InitializeParams = required_params(params)?;
                if let Some(checks) = checks {
                    checks.legacy().map_err(Rejection::invalid)?;
                }
                Ok(self.initialize(id, p)?)
            }
            "tools/list" | "resources/list" | "resources/templates/list" | "prompts/list" => {
                let p: PaginatedParams = optional_params(params)?;
                let env = self.envelope(p.meta, method, checks)?;
                let registry = self.inner.server.registry();
                let primitive = match method {
                    "tools/list" => Primitive::Tools,
                    "prompts/list" => Primitive::Prompts,
                    _ => Primitive::Resources,
                };
                if !registry.advertises(primitive) {
                    return Err(unoffered(method, env.era));
                }
                let cursor = p.cursor.as_deref();
                let modern = env.era == Era::Modern;
                let page = match method {
                    "tools/list" => registry.tools.list_page(cursor, modern),
                    "prompts/list" => registry.prompts.list_page(cursor, modern),
                    "resources/list" => registry.resources.list_page(cursor, modern),
                    _ => registry.resources.templates_page(cursor, modern),
                }?;
                Ok(encode_raw_result(id, &page))
            }
            "resources/subscribe" | "resources/unsubscribe" => {
                self.subscription(id, method, params, checks)
            }
            "server/discover" => {
                let p: MetaOnlyParams = optional_params(params)?;
                if !p.meta.as_ref().is_some_and(RequestMeta::claims_modern) {
                    // The envelope is what is missing: 400 on HTTP, like any bad envelope,
                    // and never a question of legacy sessions.
                    return Err(Rejection::invalid(McpError::invalid_params(
                        "server/discover needs the 2026-07-28 envelope in params._meta \
                         (io.modelcontextprotocol/protocolVersion and clientCapabilities)",
                    )));
                }
                self.envelope(p.meta, method, checks)?;
                Ok(encode_raw_result(id, &server.discover_json))
            }
            "logging/setLevel" => {
                // Classify first: on the modern leg the method does not exist, whatever
                // its params (404, conformance-next.md §6 probe 11).
                let p: MetaOnlyParams = optional_params(params)?;
                let env = self.envelope(p.meta, method, checks)?;
                if env.era == Era::Modern || !server.logging {
                    return Err(unoffered(method, env.era));
                }
                let level: SetLevelParams = required_params(params)?;
                if let Some(session) = &env.session {
                    let index = LoggingLevel::ALL
                        .iter()
                        .position(|l| *l == level.level)
                        .unwrap_or_default();
                    session.log_level.store(index as u8, Ordering::Relaxed);
                }
                // Exactly `{}`: the official suite fails on any key, `_meta` included.
                Ok(encode_result(id, &json!({})))
            }
            "ping" => {
                let p: MetaOnlyParams = optional_params(params)?;
                match self.envelope(p.meta, method, checks)?.era {
                    Era::Legacy => Ok(encode_result(id, &json!({}))),
                    // `ping` does not exist in 2026-07-28.
                    Era::Modern => Err(Rejection::not_found(McpError::method_not_found(method))),
                }
            }
            _ => {
                // Classify anyway: a malformed envelope is -32602 before the method is looked
                // at (the order of the official TypeScript SDK).
                let p: MetaOnlyParams = optional_params(params)?;
                Err(unoffered(
                    method,
                    self.envelope(p.meta, method, checks)?.era,
                ))
            }
        }
    }

    fn initialize(&self, id: &RequestId, p: InitializeParams) -> Result<Vec<u8>, McpError> {
        let negotiated = version::negotiate_legacy(&p.protocol_version);
        if !self.inner.stateless {
            let mut legacy = self.inner.legacy.lock().unwrap_or_else(|e| e.into_inner());
            if legacy.is_some() {
                return Err(McpError::invalid_request(
                    "this connection is already initialized",
                ));
            }
            *legacy = Some(Arc::new(LegacySession {
                version: negotiated.into(),
                // A session lives long: keep a bounded copy of what the client sent.
                client_capabilities: Arc::new(p.capabilities.retained(MAX_RETAINED_CLIENT_BYTES)),
                client_info: Arc::new(p.client_info.retained(MAX_RETAINED_CLIENT_BYTES)),
                initialized: AtomicBool::new(false),
                log_level: AtomicU8::new(LEVEL_UNSET),
            }));
        }
        let server = &self.inner.server.inner;
        tracing::debug!(requested = %p.protocol_version, negotiated, "initialize");
        Ok(encode_result(
            id,
            &InitializeResult {
                protocol_version: negotiated.to_owned(),
                capabilities: server.capabilities.clone(),
                server_info: server.info.clone(),
                instructions: server.instructions.clone(),
            },
        ))
    }

    /// Classifies a request by its `_meta`, checks the modern envelope, and runs the
    /// transport's header checks for the request's era.
    fn envelope(
        &self,
        meta: Option<RequestMeta>,
        method: &str,
        checks: Option<&dyn RequestChecks>,
    ) -> Result<Envelope, Rejection> {
        let meta = meta.unwrap_or_default();
        if meta.claims_modern() {
            let Some(requested) = meta.protocol_version else {
                return Err(Rejection::invalid(McpError::invalid_params(
                    "params._meta lacks \"io.modelcontextprotocol/protocolVersion\"",
                )));
            };
            let Some(client_capabilities) = meta.client_capabilities else {
                return Err(Rejection::invalid(McpError::invalid_params(
                    "params._meta lacks \"io.modelcontextprotocol/clientCapabilities\" (send {} when the client declares none)",
                )));
            };
            // The transport's cross-check comes before the version gate: a header that
            // disagrees with the body is a transport-integrity failure (-32020), decided
            // before any version negotiation (spec conformance-next.md §10a).
            if let Some(checks) = checks {
                checks
                    .modern(method, &requested)
                    .map_err(Rejection::invalid)?;
            }
            if !version::is_supported_modern(&requested) {
                return Err(Rejection::invalid(McpError::unsupported_protocol_version(
                    &requested,
                    MODERN_VERSIONS,
                )));
            }
            return Ok(Envelope {
                era: Era::Modern,
                version: MODERN.clone(),
                client_capabilities: Arc::new(client_capabilities),
                client_info: meta.client_info.map(Arc::new),
                progress_token: meta.progress_token,
                log_level: meta.log_level,
                session: None,
            });
        }
        if let Some(checks) = checks {
            checks.legacy().map_err(Rejection::invalid)?;
        }
        let session = self
            .inner
            .legacy
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        let sessionless = match (&session, checks) {
            (None, Some(checks)) => checks.sessionless()?,
            _ => None,
        };
        Ok(match session {
            Some(s) => Envelope {
                era: Era::Legacy,
                version: s.version.clone(),
                client_capabilities: s.client_capabilities.clone(),
                client_info: Some(s.client_info.clone()),
                progress_token: meta.progress_token,
                log_level: None,
                session: Some(s),
            },
            None => Envelope {
                era: Era::Legacy,
                version: sessionless.map_or_else(|| LATEST_LEGACY.clone(), Arc::from),
                client_capabilities: NO_CAPABILITIES.clone(),
                client_info: None,
                progress_token: meta.progress_token,
                log_level: None,
                session: None,
            },
        })
    }

    /// [`envelope`](Self::envelope) for a request that names its target (`tools/call`,
    /// `prompts/get`, `resources/read`): on the modern leg the transport's `Mcp-Name` is
    /// checked against `name` too.
    fn named_envelope(
        &self,
        meta: Option<RequestMeta>,
        method: &str,
        name: &str,
        checks: Option<&dyn RequestChecks>,
    ) -> Result<Envelope, Rejection> {
        let env = self.envelope(meta, method, checks)?;
        if let Some(checks) = checks.filter(|_| env.era == Era::Modern) {
            checks.name(method, name).map_err(Rejection::invalid)?;
        }
        Ok(env)
    }

    /// Where a request's notifications go: its exchange, or the connection's peer.
    fn notifications_for(&self, outlet: &Outlet) -> Peer {
        match outlet {
            Outlet::Connection => self.inner.peer.clone(),
            Outlet::Exchange(exchange) => exchange.notify.clone(),
        }
    }

    /// Who a request comes from: its exchange's caller (HTTP), or this connection.
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
    async fn deliver(&self, outlet: Outlet, line: Vec<u8>) {
        match outlet {
            Outlet::Connection => {
                self.inner.peer.send_line(line).await;
            }
            Outlet::Exchange(exchange) => {
                // The receiver is gone when the client left; nobody is waiting then.
                let _ = exchange.respond.send(line);
            }
        }
    }

    fn listen(&self, id: RequestId, params: Option<&RawValue>, scope: Scope<'_>) -> Routed {
        #[derive(Deserialize, Default)]
        struct ListenParams {
            #[serde(default)]
            notifications: Map<String, serde_json::Value>,
            #[serde(rename = "_meta", default)]
            meta: Option<RequestMeta>,
        }
        let p: ListenParams = match optional_params(params) {
            Ok(p) => p,
            Err(e) => return Routed::rejected(&id, e.into()),
        };
        match self.envelope(p.meta, "subscriptions/listen", scope.checks) {
            Ok(env) if env.era == Era::Modern => {}
            // A legacy connection has unsolicited list_changed instead.
            Ok(_) => {
                let error = McpError::method_not_found("subscriptions/listen");
                return Routed::rejected(&id, error.into());
            }
            Err(rejection) => return Routed::rejected(&id, rejection),
        }
        // The list-change events asked for, of the primitives this server advertises; a
        // filter the server cannot honour is left out of the acknowledgement.
        let registry = self.inner.server.registry();
        let wanted: Vec<Primitive> = Primitive::ALL
            .into_iter()
            .filter(|p| registry.advertises(*p))
            .filter(|kind| {
                p.notifications.get(kind.listen_filter()) == Some(&serde_json::Value::Bool(true))
            })
            .collect();
        // The resources asked for, when the server honours subscriptions (it does whenever
        // it advertises resources); bounded like a legacy session's.
        let resource_uris: Option<HashSet<Arc<str>>> = registry
            .advertises(Primitive::Resources)
            .then(|| p.notifications.get("resourceSubscriptions"))
            .flatten()
            .and_then(serde_json::Value::as_array)
            .map(|uris| {
                uris.iter()
                    .filter_map(serde_json::Value::as_str)
                    .take(items::MAX_SUBSCRIPTIONS)
                    .map(Arc::from)
                    .collect()
            });
        let outlet = scope.outlet;
        let peer = self.notifications_for(&outlet);
        let token = self.cancellation_for(&outlet);
        let tracked = self.track(&id, &token, &outlet, Era::Modern);
        let this = self.clone();
        let mut changes = registry.subscribe();
        let mut updates = resource_uris
            .as_ref()
            .map(|_| registry.resources.subscribe_updates());
        self.inner.tasks.spawn(async move {
            let tag = json!({ SUBSCRIPTION_ID_KEY: id });
            let mut honoured: Map<String, serde_json::Value> = wanted
                .iter()
                .map(|p| (p.listen_filter().to_owned(), true.into()))
                .collect();
            if let Some(uris) = &resource_uris {
                let mut listed: Vec<&str> = uris.iter().map(|u| &**u).collect();
                listed.sort_unstable();
                honoured.insert("resourceSubscriptions".to_owned(), json!(listed));
            }
            let ack = json!({ "notifications": honoured, "_meta": tag });
            peer.send_line(encode_notification("notifications/subscriptions/acknowledged", Some(ack))).await;
            let mut seen = *changes.borrow_and_update();
            loop {
                tokio::select! {
                    () = token.cancelled() => {
                        // The client ended it: send nothing more.
                        this.untrack(tracked, &id);
                        return;
                    }
                    () = this.inner.closing.cancelled() => break,
                    changed = changes.changed() => {
                        if changed.is_err() { break; }
                        let now = *changes.borrow_and_update();
                        for kind in now.changed_since(seen).filter(|k| wanted.contains(k)) {
                            let params = json!({ "_meta": tag });
                            peer.send_line(encode_notification(kind.list_changed_method(), Some(params))).await;
                        }
                        seen = now;
                    }
                    Some(update) = next_update(&mut updates) => {
                        let Ok(uri) = update else { continue };
                        if resource_uris.as_ref().is_some_and(|u| u.contains(&uri)) {
                            let params = json!({ "uri": &*uri, "_meta": tag });
                            peer.send_line(encode_notification("notifications/resources/updated", Some(params))).await;
                        }
                    }
                }
            }
            this.untrack(tracked, &id);
            let server = &this.inner.server.inner;
            let extra = Map::from_iter([(SUBSCRIPTION_ID_KEY.to_owned(), serde_json::to_value(&id).unwrap_or_default())]);
            let body = Map::new();
            let done = Modern::complete(&body, &server.server_info_raw, None, Some(&extra));
            let line = encode_result(&id, &done);
            this.deliver(outlet, line).await;
        });
        Routed::Pending
    }

    /// Handles a notification from the client (`notifications/initialized`,
    /// `notifications/cancelled`; others are ignored). A transport that decodes messages
    /// itself hands every JSON-RPC notification here.
    pub fn notification(&self, method: &str, params: Option<&RawValue>) {
        match method {
            "notifications/initialized" => {
                let initialized = self
                    .inner
                    .legacy
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .as_ref()
                    .inspect(|s| s.initialized.store(true, Ordering::Release))
                    .is_some();
                if initialized && !self.inner.watching.swap(true, Ordering::AcqRel) {
                    self.watch_list_changes();
                }
            }
            "notifications/cancelled" => {
                #[derive(Deserialize)]
                #[serde(rename_all = "camelCase")]
                struct Cancelled {
                    request_id: RequestId,
                }
                match optional_params::<Option<Cancelled>>(params) {
                    Ok(Some(c)) => {
                        if let Some(token) = self.lock_inflight().get(&c.request_id) {
                            token.cancel();
                        }
                    }
                    _ => tracing::debug!("ignoring a malformed notifications/cancelled"),
                }
            }
            other => tracing::debug!(method = other, "ignoring notification"),
        }
    }

    /// Sends `notifications/<primitive>/list_changed` to a legacy connection whenever an
    /// advertised list changes (modern clients get them on their `subscriptions/listen`
    /// stream). Started by `notifications/initialized`: only an initialized legacy
    /// connection is told.
    fn watch_list_changes(&self) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let mut changes = self.inner.server.registry().subscribe();
        let this = Arc::downgrade(&self.inner);
        let closing = self.inner.closing.clone();
        let tasks = self.inner.tasks.clone();
        runtime.spawn(tasks.track_future(async move {
            let mut seen = *changes.borrow_and_update();
            loop {
                tokio::select! {
                    () = closing.cancelled() => return,
                    changed = changes.changed() => if changed.is_err() { return },
                }
                let now = *changes.borrow_and_update();
                let Some(inner) = this.upgrade() else { return };
                let initialized = inner
                    .legacy
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .as_ref()
                    .is_some_and(|s| s.initialized.load(Ordering::Acquire));
                let registry = inner.server.registry();
                for kind in now.changed_since(seen).filter(|k| registry.advertises(*k)) {
                    if initialized {
                        let line = encode_notification::<()>(kind.list_changed_method(), None);
                        inner.peer.send_line(line).await;
                    }
                }
                seen = now;
            }
        }));
    }

    fn lock_inflight(&self) -> std::sync::MutexGuard<'_, HashMap<RequestId, CancellationToken>> {
        self.inner
            .inflight
            .lock()
            .unwrap_or_else(|e| e.into_inner())
    }
}

/// The next announced resource update, for a listen stream that follows resources (never,
/// for one that does not). A stream that fell behind skips what it missed.
async fn next_update(
    updates: &mut Option<tokio::sync::broadcast::Receiver<Arc<str>>>,
) -> Option<Result<Arc<str>, ()>> {
    use tokio::sync::broadcast::error::RecvError;
    match updates {
        None => std::future::pending().await,
        Some(rx) => match rx.recv().await {
            Ok(uri) => Some(Ok(uri)),
            Err(RecvError::Lagged(_)) => Some(Err(())),
            Err(RecvError::Closed) => None,
        },
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
