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

use super::Server;
use super::registry::RegisteredTool;
use crate::protocol::jsonrpc::{
    Message, decode, encode_error, encode_notification, encode_raw_result, encode_result,
};
use crate::protocol::lifecycle::{
    ClientCapabilities, Implementation, InitializeParams, InitializeResult, MetaOnlyParams,
};
use crate::protocol::meta::RequestMeta;
use crate::protocol::version::{self, LATEST_LEGACY_VERSION, MODERN_VERSION, MODERN_VERSIONS};
use crate::protocol::{
    CallToolParams, CallToolResult, Content, Era, McpError, PaginatedParams, ProgressToken,
    RequestId,
};
use crate::server::projection::Modern;
use crate::tool::{Peer, RequestContext, RequestContextParts, schema};
use futures::FutureExt as _;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};
use std::any::Any;
use std::collections::HashMap;
use std::fmt;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, LazyLock, Mutex};
use std::task::{Context, Poll};
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
}

/// What `initialize` established on this connection.
struct LegacySession {
    version: Arc<str>,
    client_capabilities: Arc<ClientCapabilities>,
    client_info: Arc<Implementation>,
    initialized: AtomicBool,
}

/// The era and client facts a request is served under.
struct Envelope {
    era: Era,
    version: Arc<str>,
    client_capabilities: Arc<ClientCapabilities>,
    client_info: Option<Arc<Implementation>>,
    progress_token: Option<ProgressToken>,
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
    Reply(Vec<u8>),
    Pending,
}

impl From<Result<Vec<u8>, (RequestId, McpError)>> for Routed {
    fn from(r: Result<Vec<u8>, (RequestId, McpError)>) -> Self {
        Routed::Reply(r.unwrap_or_else(|(id, e)| encode_error(Some(&id), &e)))
    }
}

impl Connection {
    pub(crate) fn new(server: Server, peer: Peer) -> Self {
        let this = Self {
            inner: Arc::new(ConnInner {
                server,
                peer,
                legacy: Mutex::new(None),
                inflight: Mutex::new(HashMap::new()),
                tasks: TaskTracker::new(),
                closing: CancellationToken::new(),
            }),
        };
        this.watch_tool_changes();
        this
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
            Ok(Message::Request { id, method, params }) => match self.route(id, &method, params) {
                Routed::Reply(bytes) => bytes,
                Routed::Pending => return,
            },
            Ok(Message::Notification { method, params }) => {
                self.notification(&method, params);
                return;
            }
            Ok(Message::Response { id, .. }) => {
                tracing::debug!(%id, "ignoring a response to a request this server did not send");
                return;
            }
        };
        self.inner.peer.send_line(reply).await;
    }

    /// Answers a message that was too long to read with `-32600` (its id is unknown).
    pub async fn reject_oversized(&self, len: usize, limit: usize) {
        let error = McpError::invalid_request(format!(
            "a message of {len} bytes exceeds the limit of {limit} bytes; it was discarded unread"
        ));
        self.inner.peer.send_line(encode_error(None, &error)).await;
    }

    /// Ends the connection's input: listen streams end, in-flight tool calls finish and
    /// are answered. Returns when every task of the connection is done.
    pub async fn shutdown(&self) {
        self.inner.closing.cancel();
        self.inner.tasks.close();
        self.inner.tasks.wait().await;
    }

    fn route(&self, id: RequestId, method: &str, params: Option<&RawValue>) -> Routed {
        match method {
            "tools/call" => self.call_tool(id, params),
            "subscriptions/listen" => self.listen(id, params),
            _ => self.simple(id, method, params).into(),
        }
    }

    /// Requests answered at once, without running user code.
    fn simple(
        &self,
        id: RequestId,
        method: &str,
        params: Option<&RawValue>,
    ) -> Result<Vec<u8>, (RequestId, McpError)> {
        let fail = |e: McpError| (id.clone(), e);
        let server = &self.inner.server.inner;
        match method {
            "initialize" => {
                let p: InitializeParams = required_params(params).map_err(fail)?;
                self.initialize(&id, p).map_err(fail)
            }
            "tools/list" => {
                let p: PaginatedParams = optional_params(params).map_err(fail)?;
                let env = self.envelope(p.meta).map_err(fail)?;
                let page = server
                    .tools
                    .list_page(p.cursor.as_deref(), env.era == Era::Modern)
                    .map_err(fail)?;
                Ok(encode_raw_result(&id, &page))
            }
            "server/discover" => {
                let p: MetaOnlyParams = optional_params(params).map_err(fail)?;
                match self.envelope(p.meta).map_err(fail)?.era {
                    Era::Modern => Ok(encode_raw_result(&id, &server.discover_json)),
                    Era::Legacy => Err(fail(McpError::invalid_params(
                        "server/discover needs the 2026-07-28 envelope in params._meta \
                         (io.modelcontextprotocol/protocolVersion and clientCapabilities)",
                    ))),
                }
            }
            "ping" => {
                let p: MetaOnlyParams = optional_params(params).map_err(fail)?;
                match self.envelope(p.meta).map_err(fail)?.era {
                    Era::Legacy => Ok(encode_result(&id, &json!({}))),
                    // `ping` does not exist in 2026-07-28.
                    Era::Modern => Err(fail(McpError::method_not_found(method))),
                }
            }
            _ => {
                // Classify anyway: a malformed envelope is -32602 before the method is looked
                // at (the order of the official TypeScript SDK).
                let p: MetaOnlyParams = optional_params(params).map_err(fail)?;
                self.envelope(p.meta).map_err(fail)?;
                Err(fail(McpError::method_not_found(method)))
            }
        }
    }

    fn initialize(&self, id: &RequestId, p: InitializeParams) -> Result<Vec<u8>, McpError> {
        let negotiated = version::negotiate_legacy(&p.protocol_version);
        {
            let mut legacy = self.inner.legacy.lock().unwrap_or_else(|e| e.into_inner());
            if legacy.is_some() {
                return Err(McpError::invalid_request(
                    "this connection is already initialized",
                ));
            }
            *legacy = Some(Arc::new(LegacySession {
                version: negotiated.into(),
                client_capabilities: Arc::new(p.capabilities),
                client_info: Arc::new(p.client_info),
                initialized: AtomicBool::new(false),
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

    /// Classifies a request by its `_meta` and checks the modern envelope.
    fn envelope(&self, meta: Option<RequestMeta>) -> Result<Envelope, McpError> {
        let meta = meta.unwrap_or_default();
        if meta.claims_modern() {
            let Some(requested) = meta.protocol_version else {
                return Err(McpError::invalid_params(
                    "params._meta lacks \"io.modelcontextprotocol/protocolVersion\"",
                ));
            };
            let Some(client_capabilities) = meta.client_capabilities else {
                return Err(McpError::invalid_params(
                    "params._meta lacks \"io.modelcontextprotocol/clientCapabilities\" (send {} when the client declares none)",
                ));
            };
            if !version::is_supported_modern(&requested) {
                return Err(McpError::unsupported_protocol_version(
                    &requested,
                    MODERN_VERSIONS,
                ));
            }
            return Ok(Envelope {
                era: Era::Modern,
                version: MODERN.clone(),
                client_capabilities: Arc::new(client_capabilities),
                client_info: meta.client_info.map(Arc::new),
                progress_token: meta.progress_token,
            });
        }
        let session = self
            .inner
            .legacy
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        Ok(match session {
            Some(s) => Envelope {
                era: Era::Legacy,
                version: s.version.clone(),
                client_capabilities: s.client_capabilities.clone(),
                client_info: Some(s.client_info.clone()),
                progress_token: meta.progress_token,
            },
            None => Envelope {
                era: Era::Legacy,
                version: LATEST_LEGACY.clone(),
                client_capabilities: NO_CAPABILITIES.clone(),
                client_info: None,
                progress_token: meta.progress_token,
            },
        })
    }

    fn call_tool(&self, id: RequestId, params: Option<&RawValue>) -> Routed {
        let prepared = (|| {
            let p: CallToolParams = required_params(params)?;
            let env = self.envelope(p.meta)?;
            let tool = self
                .inner
                .server
                .tools()
                .snapshot()
                .get(&p.name)
                .cloned()
                .ok_or_else(|| McpError::invalid_params(format!("Unknown tool: {}", p.name)))?;
            let arguments = match p.arguments {
                None => Value::Object(Map::new()),
                Some(v @ Value::Object(_)) => v,
                Some(_) => return Err(McpError::invalid_params("\"arguments\" must be an object")),
            };
            Ok((env, tool, arguments))
        })();
        let (env, tool, arguments) = match prepared {
            Ok(p) => p,
            Err(e) => return Routed::Reply(encode_error(Some(&id), &e)),
        };
        if !tool.input.is_valid(&arguments) {
            let found = schema::violations(&tool.input, &arguments);
            audit(&tool.name, "invalid_arguments");
            let text = format!(
                "Invalid arguments for tool `{}` ({} problem{}):\n- {}\nCorrect the arguments to match the tool's input schema and call it again.",
                tool.name,
                found.len(),
                if found.len() == 1 { "" } else { "s" },
                found.join("\n- ")
            );
            return Routed::Reply(encode_call_result(
                &self.inner.server,
                &id,
                env.era,
                CallToolResult::error(text),
            ));
        }
        let Value::Object(arguments) = arguments else {
            unreachable!("checked to be an object above")
        };
        let era = env.era;
        let cx = RequestContext::new(RequestContextParts {
            era,
            protocol_version: env.version,
            client_capabilities: env.client_capabilities,
            client_info: env.client_info,
            request_id: id.clone(),
            progress_token: env.progress_token,
            cancellation: CancellationToken::new(),
            peer: Some(self.inner.peer.clone()),
            extensions: self.inner.server.inner.extensions.clone(),
        });
        let started =
            std::panic::catch_unwind(AssertUnwindSafe(|| tool.tool.call(arguments, cx.clone())));
        let mut fut = match started {
            Ok(fut) => AssertUnwindSafe(fut).catch_unwind(),
            Err(panic) => {
                let result = panic_result(&tool, panic);
                return Routed::Reply(self.finish_call(&id, &tool, era, result, &cx));
            }
        };
        // Poll once inline: most tools answer without waiting, and skipping the task spawn
        // keeps the hot path short.
        let mut poll_cx = Context::from_waker(futures::task::noop_waker_ref());
        if let Poll::Ready(out) = fut.poll_unpin(&mut poll_cx) {
            let result = out.unwrap_or_else(|p| panic_result(&tool, p));
            return Routed::Reply(self.finish_call(&id, &tool, era, result, &cx));
        }
        let token = cx.cancellation().clone();
        self.lock_inflight().insert(id.clone(), token.clone());
        let this = self.clone();
        self.inner.tasks.spawn(async move {
            tokio::select! {
                out = fut => {
                    this.lock_inflight().remove(&id);
                    let result = out.unwrap_or_else(|p| panic_result(&tool, p));
                    let line = this.finish_call(&id, &tool, era, result, &cx);
                    this.inner.peer.send_line(line).await;
                }
                () = token.cancelled() => {
                    this.lock_inflight().remove(&id);
                    cx.finish();
                    audit(&tool.name, "cancelled");
                }
            }
        });
        Routed::Pending
    }

    /// Checks a tool's result against its output schema, adds the text copy of structured
    /// output, and serializes it for the request's era.
    fn finish_call(
        &self,
        id: &RequestId,
        tool: &RegisteredTool,
        era: Era,
        mut result: CallToolResult,
        cx: &RequestContext,
    ) -> Vec<u8> {
        cx.finish();
        if let (false, Some(validator)) = (result.is_error(), &tool.output) {
            let problems = match &result.structured_content {
                None => vec![
                    "the tool declares an outputSchema but returned no structuredContent"
                        .to_owned(),
                ],
                Some(v) if validator.is_valid(v) => Vec::new(),
                Some(v) => schema::violations(validator, v),
            };
            if !problems.is_empty() {
                tracing::error!(tool = %tool.name, ?problems, "tool output does not match its outputSchema");
                result = CallToolResult::error(format!(
                    "Tool `{}` produced output that does not match its output schema:\n- {}",
                    tool.name,
                    problems.join("\n- ")
                ));
            }
        }
        if let Some(structured) = &result.structured_content {
            if result.content.is_empty() {
                result.content.push(Content::text(structured.to_string()));
            }
            if era == Era::Legacy && tool.wrap_legacy_output {
                result.structured_content = Some(json!({ "result": structured }));
            }
        }
        audit(&tool.name, if result.is_error() { "error" } else { "ok" });
        encode_call_result(&self.inner.server, id, era, result)
    }

    fn listen(&self, id: RequestId, params: Option<&RawValue>) -> Routed {
        #[derive(Deserialize, Default)]
        struct ListenParams {
            #[serde(default)]
            notifications: ListenFilter,
            #[serde(rename = "_meta", default)]
            meta: Option<RequestMeta>,
        }
        #[derive(Deserialize, Default)]
        #[serde(rename_all = "camelCase")]
        struct ListenFilter {
            #[serde(default)]
            tools_list_changed: bool,
        }
        let p: ListenParams = match optional_params(params) {
            Ok(p) => p,
            Err(e) => return Routed::Reply(encode_error(Some(&id), &e)),
        };
        match self.envelope(p.meta) {
            Ok(env) if env.era == Era::Modern => {}
            Ok(_) => {
                return Routed::Reply(encode_error(
                    Some(&id),
                    &McpError::method_not_found("subscriptions/listen"),
                ));
            }
            Err(e) => return Routed::Reply(encode_error(Some(&id), &e)),
        }
        let tools = p.notifications.tools_list_changed;
        let token = CancellationToken::new();
        self.lock_inflight().insert(id.clone(), token.clone());
        let this = self.clone();
        self.inner.tasks.spawn(async move {
            let tag = json!({ SUBSCRIPTION_ID_KEY: id });
            let mut honoured = Map::new();
            if tools {
                honoured.insert("toolsListChanged".into(), true.into());
            }
            let ack = json!({ "notifications": honoured, "_meta": tag });
            this.inner.peer.send_line(encode_notification("notifications/subscriptions/acknowledged", Some(ack))).await;
            let mut changes = this.inner.server.tools().subscribe();
            changes.mark_unchanged();
            loop {
                tokio::select! {
                    () = token.cancelled() => {
                        // The client ended it: send nothing more.
                        this.lock_inflight().remove(&id);
                        return;
                    }
                    () = this.inner.closing.cancelled() => break,
                    changed = changes.changed() => {
                        if changed.is_err() { break; }
                        if tools {
                            let params = json!({ "_meta": tag });
                            this.inner.peer.send_line(encode_notification("notifications/tools/list_changed", Some(params))).await;
                        }
                    }
                }
            }
            this.lock_inflight().remove(&id);
            let server = &this.inner.server.inner;
            let extra = Map::from_iter([(SUBSCRIPTION_ID_KEY.to_owned(), serde_json::to_value(&id).unwrap_or_default())]);
            let body = Map::new();
            let done = Modern::complete(&body, &server.server_info_raw, None, Some(&extra));
            this.inner.peer.send_line(encode_result(&id, &done)).await;
        });
        Routed::Pending
    }

    fn notification(&self, method: &str, params: Option<&RawValue>) {
        match method {
            "notifications/initialized" => {
                if let Some(s) = self
                    .inner
                    .legacy
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .as_ref()
                {
                    s.initialized.store(true, Ordering::Release);
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

    /// Sends `notifications/tools/list_changed` to a legacy connection whenever the tool
    /// list changes (modern clients get it on their `subscriptions/listen` stream).
    fn watch_tool_changes(&self) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let mut changes = self.inner.server.tools().subscribe();
        changes.mark_unchanged();
        let this = Arc::downgrade(&self.inner);
        let closing = self.inner.closing.clone();
        let tasks = self.inner.tasks.clone();
        runtime.spawn(tasks.track_future(async move {
            loop {
                tokio::select! {
                    () = closing.cancelled() => return,
                    changed = changes.changed() => if changed.is_err() { return },
                }
                let Some(inner) = this.upgrade() else { return };
                let initialized = inner
                    .legacy
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .as_ref()
                    .is_some_and(|s| s.initialized.load(Ordering::Acquire));
                if initialized {
                    inner
                        .peer
                        .send_line(encode_notification::<()>(
                            "notifications/tools/list_changed",
                            None,
                        ))
                        .await;
                }
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

fn encode_call_result(
    server: &Server,
    id: &RequestId,
    era: Era,
    mut result: CallToolResult,
) -> Vec<u8> {
    match era {
        Era::Legacy => encode_result(id, &result),
        Era::Modern => {
            let meta = result.meta.take();
            let projected =
                Modern::complete(&result, &server.inner.server_info_raw, None, meta.as_ref());
            encode_result(id, &projected)
        }
    }
}

fn panic_result(tool: &RegisteredTool, panic: Box<dyn Any + Send>) -> CallToolResult {
    let detail = panic
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_default();
    tracing::error!(tool = %tool.name, panic = %detail, "tool panicked");
    CallToolResult::error(format!(
        "Tool `{}` failed with an internal error; the server logged the details and keeps running.",
        tool.name
    ))
}

fn audit(tool: &str, outcome: &'static str) {
    tracing::info!(target: "mcp::audit", operation = "tools/call", tool, outcome);
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
