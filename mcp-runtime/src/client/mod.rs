//! A small MCP client over stdio (a child process), Streamable HTTP (`Client::http`, with
//! the `client-http` feature) or in memory, for tests, the CLI and the benchmark. It speaks both
//! eras: the `initialize` handshake, or the per-request envelope of 2026-07-28 after
//! `server/discover`. Given an [`InputHandler`], it answers the server's questions
//! (elicitation, sampling, roots) in both eras.

use crate::protocol::jsonrpc::{JSONRPC_VERSION, Request, encode_notification};
use crate::protocol::meta::{CLIENT_CAPABILITIES_KEY, CLIENT_INFO_KEY, PROTOCOL_VERSION_KEY};
use crate::protocol::methods;
use crate::protocol::version::{LATEST_LEGACY_VERSION, MODERN_VERSION};
use crate::protocol::{
    CallToolResult, Completion, CompletionReference, Era, GetPromptResult, InputRequiredResult,
    McpError, PromptDefinition, ReadResourceResult, RequestId, ResourceDefinition,
    ResourceTemplateDefinition, ToolDefinition,
};
use crate::protocol::{Implementation, InitializeResult};
#[cfg(feature = "server")]
use crate::server::Server;
use serde_json::{Map, Value, json};
use std::collections::HashMap;
use std::fmt;
use std::process::Stdio;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, RwLock};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, Command};
use tokio::sync::{mpsc, oneshot};

#[cfg(feature = "client-http")]
mod dpop;
#[cfg(feature = "client-http")]
mod http;
mod input;
#[cfg(feature = "client-http")]
mod oauth;
#[cfg(feature = "client-http")]
mod pool;
#[cfg(feature = "server")]
pub(crate) use input::input_required;
mod routing;
#[cfg(feature = "client-http")]
mod sse;
pub(crate) mod task;

use routing::{Answers, route};

#[cfg(feature = "client-http")]
pub use dpop::{DpopKey, DpopKeyError};
#[cfg(feature = "client-http")]
pub use http::DEFAULT_MAX_MESSAGE_BYTES;
pub use input::{InputHandler, MAX_INPUT_ROUNDS};
#[cfg(feature = "client-http")]
pub use oauth::ClientCredentials;

/// How the client picks an era.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EraMode {
    /// `initialize` handshake (2025-11-25).
    Legacy,
    /// `server/discover`, then the 2026-07-28 envelope on every request.
    Modern,
    /// Try `server/discover`; on any error fall back to `initialize`.
    Auto,
}

/// What went wrong with a client call.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ClientError {
    /// The server answered with a JSON-RPC error.
    #[error("server error: {0}")]
    Protocol(McpError),
    /// The connection is gone.
    #[error("the connection to the server closed")]
    Closed,
    /// The server's answer was not what the method returns.
    #[error("unexpected answer from the server: {0}")]
    Decode(String),
    /// Starting or talking to the server process failed.
    #[error("transport error: {0}")]
    Io(#[from] std::io::Error),
    /// A modern call came back `input_required` and this client has no [`InputHandler`]
    /// to answer it with.
    #[error("the server needs input ({}) and this client answers none", asked(.0))]
    InputRequired(Box<InputRequiredResult>),
    /// The [`InputHandler`] failed to answer a modern `input_required` round, or the server
    /// kept asking past [`MAX_INPUT_ROUNDS`].
    #[error("answering the server's question failed: {}", .0.message)]
    Input(McpError),
    /// The task the server made of a call was cancelled (by this client, or another one
    /// holding its id): the server's status message, if any.
    #[error("the task was cancelled{}", .0.as_deref().map(|m| format!(": {m}")).unwrap_or_default())]
    Cancelled(Option<String>),
}

/// What an `input_required` result asks for, as `key: method` pairs.
fn asked(result: &InputRequiredResult) -> String {
    let asked: Vec<String> = result
        .input_requests
        .iter()
        .flat_map(|r| r.0.iter())
        .map(|(key, request)| format!("{key}: {}", request.method()))
        .collect();
    if asked.is_empty() {
        "a retry with its requestState".to_owned()
    } else {
        asked.join(", ")
    }
}

impl ClientError {
    /// The JSON-RPC error, when that is what this is.
    pub fn as_protocol(&self) -> Option<&McpError> {
        match self {
            ClientError::Protocol(e) => Some(e),
            _ => None,
        }
    }
}

/// Requests waiting for their answer; `None` once the server is gone, so a request made
/// after that fails at once instead of waiting forever.
type Pending = Mutex<Option<HashMap<RequestId, oneshot::Sender<Result<Value, McpError>>>>>;

/// The input handler, shared with the task that routes incoming messages.
type SharedHandler = Arc<RwLock<Option<Arc<InputHandler>>>>;

/// An MCP client. Requests may be issued concurrently from clones.
#[derive(Clone)]
pub struct Client {
    inner: Arc<ClientInner>,
}

struct ClientInner {
    to_server: mpsc::Sender<Vec<u8>>,
    pending: Arc<Pending>,
    next_id: AtomicI64,
    era: OnceLock<Era>,
    client_info: Implementation,
    unrouted: Mutex<Option<mpsc::UnboundedReceiver<Value>>>,
    child: Mutex<Option<Child>>,
    input: SharedHandler,
    /// Whether modern envelopes declare the tasks extension.
    tasks: std::sync::atomic::AtomicBool,
    /// Where the progress of requests that asked for it goes, by progress token.
    progress: Arc<ProgressRoutes>,
    /// Capabilities declared in place of the input handler's.
    declared: OnceLock<Value>,
    /// Sees notifications in wire order, before the router goes on.
    #[cfg_attr(
        not(feature = "server"),
        expect(dead_code, reason = "only the proxy sets a hook")
    )]
    hook: SharedHook,
}

/// Sees each server notification the client does not route itself (progress with a route,
/// cancellation), in wire order: before any later message is routed, so before the answer
/// of a request that was waiting while it came. Returns whether it took the notification
/// (it then goes nowhere else). A proxy relays log messages with it to the caller of the
/// request they came during.
pub(crate) type NotificationHook = Arc<dyn Fn(&Value) -> bool + Send + Sync>;

/// The notification hook, shared with the task that routes incoming messages.
type SharedHook = Arc<RwLock<Option<NotificationHook>>>;

/// Progress tokens of requests under way, and where each one's notifications go.
type ProgressRoutes = Mutex<HashMap<String, mpsc::UnboundedSender<Value>>>;

impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Client")
            .field("era", &self.inner.era.get())
            .finish_non_exhaustive()
    }
}

impl Client {
    /// A client over line channels: `to_server` takes one serialized message per `Vec`,
    /// `from_server` yields one message per `Vec`.
    pub fn from_channels(
        to_server: mpsc::Sender<Vec<u8>>,
        mut from_server: mpsc::Receiver<Vec<u8>>,
    ) -> Self {
        let pending: Arc<Pending> = Arc::new(Mutex::new(Some(HashMap::new())));
        let (unrouted_tx, unrouted_rx) = mpsc::unbounded_channel();
        let routes = pending.clone();
        let input = SharedHandler::default();
        let progress = Arc::new(ProgressRoutes::default());
        let progress_routes = progress.clone();
        let hook = SharedHook::default();
        let router_hook = hook.clone();
        // Weak, so an idle router never keeps the connection open (a child's stdin).
        let mut answers = Answers {
            input: input.clone(),
            to_server: to_server.downgrade(),
            running: HashMap::new(),
        };
        tokio::spawn(async move {
            while let Some(line) = from_server.recv().await {
                let sinks = routing::Sinks {
                    pending: &routes,
                    progress: &progress_routes,
                    hook: &router_hook,
                    unrouted: &unrouted_tx,
                };
                route(&sinks, &mut answers, &line);
            }
            for task in answers.running.values() {
                task.abort();
            }
            // The server is gone: fail every waiting request, and every later one.
            routes.lock().unwrap_or_else(|e| e.into_inner()).take();
        });
        Self {
            inner: Arc::new(ClientInner {
                to_server,
                pending,
                next_id: AtomicI64::new(1),
                era: OnceLock::new(),
                client_info: Implementation::new("mcp-runtime-client", env!("CARGO_PKG_VERSION")),
                unrouted: Mutex::new(Some(unrouted_rx)),
                child: Mutex::new(None),
                input,
                tasks: std::sync::atomic::AtomicBool::new(true),
                progress,
                declared: OnceLock::new(),
                hook,
            }),
        }
    }

    /// A client connected in memory to `server`.
    #[cfg(feature = "server")]
    pub fn memory(server: &Server) -> Self {
        let t = crate::transport::memory::connect(server);
        Self::from_channels(t.to_server, t.from_server)
    }

    /// Starts `command` with piped stdin and stdout and talks to it over stdio. The child's
    /// stderr is inherited. The child is killed when the client is dropped.
    pub fn spawn(mut command: Command) -> Result<Self, ClientError> {
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .kill_on_drop(true);
        let mut child = command.spawn()?;
        let to_server = lines_to(child.stdin.take().expect("stdin is piped"));
        let stdout = child.stdout.take().expect("stdout is piped");
        let (lines_tx, from_server) = mpsc::channel::<Vec<u8>>(256);
        tokio::spawn(async move {
            let mut reader = BufReader::new(stdout);
            loop {
                let mut line = Vec::new();
                match reader.read_until(b'\n', &mut line).await {
                    Ok(0) | Err(_) => return,
                    Ok(_) => {
                        if lines_tx.send(line).await.is_err() {
                            return;
                        }
                    }
                }
            }
        });
        let client = Self::from_channels(to_server, from_server);
        *client.inner.child.lock().unwrap_or_else(|e| e.into_inner()) = Some(child);
        Ok(client)
    }

    /// Connects in the given mode and returns the era and protocol version in force.
    pub async fn connect(&self, mode: EraMode) -> Result<(Era, String), ClientError> {
        match mode {
            EraMode::Legacy => self
                .initialize()
                .await
                .map(|r| (Era::Legacy, r.protocol_version)),
            EraMode::Modern => self
                .discover()
                .await
                .map(|_| (Era::Modern, MODERN_VERSION.to_owned())),
            EraMode::Auto => match self.discover().await {
                Ok(_) => Ok((Era::Modern, MODERN_VERSION.to_owned())),
                Err(ClientError::Protocol(_)) => self
                    .initialize()
                    .await
                    .map(|r| (Era::Legacy, r.protocol_version)),
                Err(e) => Err(e),
            },
        }
    }

    /// The legacy handshake: `initialize`, then `notifications/initialized`.
    pub async fn initialize(&self) -> Result<InitializeResult, ClientError> {
        let params = json!({
            "protocolVersion": LATEST_LEGACY_VERSION,
            "capabilities": self.declared_capabilities(),
            "clientInfo": self.inner.client_info,
        });
        let result = self
            .request_raw(methods::INITIALIZE.name, Some(params))
            .await?;
        let result: InitializeResult = decode(result)?;
        self.send_raw(encode_notification::<()>(methods::INITIALIZED.name, None))
            .await?;
        let _ = self.inner.era.set(Era::Legacy);
        Ok(result)
    }

    /// `server/discover` with the modern envelope; on success later requests carry it too.
    pub async fn discover(&self) -> Result<Value, ClientError> {
        let params = self.with_envelope(None);
        let result = self
            .request_raw(methods::SERVER_DISCOVER.name, Some(params))
            .await?;
        let _ = self.inner.era.set(Era::Modern);
        Ok(result)
    }

    /// The era this client settled on, if it has connected.
    pub fn era(&self) -> Option<Era> {
        self.inner.era.get().copied()
    }

    /// Every tool, following `nextCursor` through all pages.
    pub async fn list_tools(&self) -> Result<Vec<ToolDefinition>, ClientError> {
        self.list_all(methods::TOOLS_LIST.name, "tools").await
    }

    /// Every resource (`resources/list`, all pages).
    pub async fn list_resources(&self) -> Result<Vec<ResourceDefinition>, ClientError> {
        self.list_all(methods::RESOURCES_LIST.name, "resources")
            .await
    }

    /// Every resource template (`resources/templates/list`, all pages).
    pub async fn list_resource_templates(
        &self,
    ) -> Result<Vec<ResourceTemplateDefinition>, ClientError> {
        self.list_all(methods::RESOURCES_TEMPLATES_LIST.name, "resourceTemplates")
            .await
    }

    /// Every prompt (`prompts/list`, all pages).
    pub async fn list_prompts(&self) -> Result<Vec<PromptDefinition>, ClientError> {
        self.list_all(methods::PROMPTS_LIST.name, "prompts").await
    }

    /// Every skill (`skills/list`, all pages; the skills extension). A server that does not
    /// declare the extension answers `-32601`.
    pub async fn list_skills(
        &self,
    ) -> Result<Vec<crate::protocol::skills::SkillEntry>, ClientError> {
        self.list_all(methods::SKILLS_LIST.name, "skills").await
    }

    /// The entry of the skill whose `SKILL.md` is `uri` (`skills/get`); an unknown URI is
    /// `-32602`.
    pub async fn get_skill(
        &self,
        uri: &str,
    ) -> Result<crate::protocol::skills::SkillEntry, ClientError> {
        let result: crate::protocol::skills::GetSkillResult = decode_final(
            self.request(methods::SKILLS_GET.name, Some(json!({ "uri": uri })))
                .await?,
        )?;
        Ok(result.skill)
    }

    /// The direct children of the directory `uri` (`resources/directory/read`, all pages):
    /// subdirectories have the MIME type `inode/directory`. A URI that is not a directory
    /// is `-32602`.
    pub async fn read_directory(&self, uri: &str) -> Result<Vec<ResourceDefinition>, ClientError> {
        let mut items = Vec::new();
        let mut cursor: Option<String> = None;
        loop {
            let mut params = json!({ "uri": uri });
            if let Some(c) = &cursor {
                params["cursor"] = json!(c);
            }
            let page: crate::protocol::skills::ReadDirectoryResult = decode_final(
                self.request(methods::RESOURCES_DIRECTORY_READ.name, Some(params))
                    .await?,
            )?;
            items.extend(page.resources);
            match page.next_cursor {
                Some(c) => cursor = Some(c),
                None => return Ok(items),
            }
        }
    }

    /// Reads a resource.
    pub async fn read_resource(&self, uri: &str) -> Result<ReadResourceResult, ClientError> {
        decode_final(
            self.request(methods::RESOURCES_READ.name, Some(json!({ "uri": uri })))
                .await?,
        )
    }

    /// Gets a prompt rendered with `arguments`.
    pub async fn get_prompt(
        &self,
        name: &str,
        arguments: &std::collections::BTreeMap<String, String>,
    ) -> Result<GetPromptResult, ClientError> {
        let params = json!({ "name": name, "arguments": arguments });
        decode_final(
            self.request(methods::PROMPTS_GET.name, Some(params))
                .await?,
        )
    }

    /// Asks for completions of `argument` (typed so far: `value`) of a prompt or template.
    pub async fn complete(
        &self,
        reference: &CompletionReference,
        argument: &str,
        value: &str,
        context: &std::collections::BTreeMap<String, String>,
    ) -> Result<Completion, ClientError> {
        let params = json!({
            "ref": reference,
            "argument": {"name": argument, "value": value},
            "context": {"arguments": context},
        });
        let result = self
            .request(methods::COMPLETION_COMPLETE.name, Some(params))
            .await?;
        decode(result.get("completion").cloned().unwrap_or(Value::Null))
    }

    /// Every item of a paginated list, following `nextCursor` through all pages.
    async fn list_all<T: serde::de::DeserializeOwned>(
        &self,
        method: &str,
        field: &str,
    ) -> Result<Vec<T>, ClientError> {
        let items = self
            .list_values(method, field, usize::MAX, usize::MAX)
            .await?;
        decode(Value::Array(items))
    }

    /// The items of a paginated list as the server wrote them, following `nextCursor`
    /// through at most `max_pages` pages and `max_items` items (the rest left unread), and
    /// stopping at a cursor that repeats the one just followed: how the proxy reads an
    /// upstream it does not trust ([`list_all`](Self::list_all) reads without bounds).
    pub(crate) async fn list_values(
        &self,
        method: &str,
        field: &str,
        max_pages: usize,
        max_items: usize,
    ) -> Result<Vec<Value>, ClientError> {
        let mut items = Vec::new();
        let mut cursor: Option<String> = None;
        for _ in 0..max_pages {
            let params = cursor.as_ref().map(|c| json!({ "cursor": c }));
            let mut page = self.request(method, params).await?;
            let Some(Value::Array(list)) = page.get_mut(field).map(Value::take) else {
                return Err(ClientError::Decode(format!(
                    "the `{method}` result has no `{field}` list"
                )));
            };
            let room = max_items - items.len();
            let full = list.len() >= room;
            items.extend(list.into_iter().take(room));
            match page.get("nextCursor").and_then(Value::as_str) {
                Some(next) if !full && Some(next) != cursor.as_deref() => {
                    cursor = Some(next.to_owned());
                }
                _ => break,
            }
        }
        Ok(items)
    }

    /// Calls a tool. When the server runs the call as a task, waits for its end (see the
    /// `task` module: polling, answering its asks, cancelling it when this future is
    /// dropped first).
    pub async fn call_tool(
        &self,
        name: &str,
        arguments: Value,
    ) -> Result<CallToolResult, ClientError> {
        self.call_tool_watching(name, arguments, |_| {}).await
    }

    /// Sends a request in the connected era (adding the modern envelope when modern) and
    /// returns its raw result. With an [`InputHandler`], a modern `input_required` answer
    /// to `tools/call`, `prompts/get` or `resources/read` is answered and retried, so the
    /// result is the final one.
    pub async fn request(&self, method: &str, params: Option<Value>) -> Result<Value, ClientError> {
        match self.era() {
            Some(Era::Modern) => self.request_answering(method, params).await,
            _ => self.request_raw(method, params).await,
        }
    }

    /// Sends a request exactly as given and returns its raw result.
    pub async fn request_raw(
        &self,
        method: &str,
        params: Option<Value>,
    ) -> Result<Value, ClientError> {
        let answer = self.send_request(method, params).await?;
        Self::answered(answer.await)
    }

    /// Sends a request in the connected era (with the modern envelope when modern; a modern
    /// `input_required` answer is returned as it is, for the caller to relay) and returns its
    /// raw result. Dropping the future before the answer tells the server with
    /// `notifications/cancelled`, so its work stops: how a proxy forwards a call whose own
    /// caller may cancel it or time out.
    ///
    /// Client capabilities already in `params._meta` are sent as they are (a proxy passes its
    /// caller's), in place of this client's.
    ///
    /// With `progress`, the request carries a progress token of the client's, and the
    /// server's `notifications/progress` for it (their `params`) go there, every one of
    /// them before the answer is returned.
    pub async fn request_cancellable(
        &self,
        method: &str,
        params: Option<Value>,
        progress: Option<mpsc::UnboundedSender<Value>>,
    ) -> Result<Value, ClientError> {
        let mut params = match self.era() {
            Some(Era::Modern) => Some(self.with_envelope(params)),
            _ => params,
        };
        let id = RequestId::Number(self.inner.next_id.fetch_add(1, Ordering::Relaxed));
        let route = progress.map(|to| {
            let token = format!("progress-{id}");
            if let Value::Object(params) = params.get_or_insert_with(|| json!({})) {
                let meta = params.entry("_meta").or_insert_with(|| json!({}));
                if let Value::Object(meta) = meta {
                    meta.insert("progressToken".into(), token.clone().into());
                }
            }
            self.inner
                .progress
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .insert(token.clone(), to);
            ProgressRoute {
                routes: &self.inner.progress,
                token,
            }
        });
        let answer = self.send_request_as(id.clone(), method, params).await?;
        let mut guard = CancelOnDrop {
            client: self,
            id: Some(id),
        };
        let answer = answer.await;
        guard.id = None;
        drop(route);
        Self::answered(answer)
    }

    /// Sends a request and returns where its answer will come.
    async fn send_request(
        &self,
        method: &str,
        params: Option<Value>,
    ) -> Result<oneshot::Receiver<Result<Value, McpError>>, ClientError> {
        let id = RequestId::Number(self.inner.next_id.fetch_add(1, Ordering::Relaxed));
        self.send_request_as(id, method, params).await
    }

    /// Sends a request with the id `id` and returns where its answer will come.
    async fn send_request_as(
        &self,
        id: RequestId,
        method: &str,
        params: Option<Value>,
    ) -> Result<oneshot::Receiver<Result<Value, McpError>>, ClientError> {
        let (tx, rx) = oneshot::channel();
        self.inner
            .pending
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .as_mut()
            .ok_or(ClientError::Closed)?
            .insert(id.clone(), tx);
        let line = serde_json::to_vec(&Request {
            jsonrpc: JSONRPC_VERSION,
            id: &id,
            method,
            params,
        })
        .map_err(|e| ClientError::Decode(e.to_string()))?;
        if let Err(e) = self.send_raw(line).await {
            self.forget(&id);
            return Err(e);
        }
        Ok(rx)
    }

    /// Stops waiting for the answer to `id`.
    fn forget(&self, id: &RequestId) {
        if let Some(waiting) = self
            .inner
            .pending
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .as_mut()
        {
            waiting.remove(id);
        }
    }

    fn answered(
        answer: Result<Result<Value, McpError>, oneshot::error::RecvError>,
    ) -> Result<Value, ClientError> {
        match answer {
            Ok(Ok(v)) => Ok(v),
            Ok(Err(e)) => Err(ClientError::Protocol(e)),
            Err(_) => Err(ClientError::Closed),
        }
    }

    /// Sends raw bytes as one message (a newline is added when missing).
    pub async fn send_raw(&self, bytes: Vec<u8>) -> Result<(), ClientError> {
        self.inner
            .to_server
            .send(bytes)
            .await
            .map_err(|_| ClientError::Closed)
    }

    /// Lets `hook` see the server's notifications in wire order (see [`NotificationHook`]),
    /// in place of any hook set before.
    #[cfg(feature = "server")]
    pub(crate) fn intercept_notifications(&self, hook: NotificationHook) {
        *self.inner.hook.write().unwrap_or_else(|e| e.into_inner()) = Some(hook);
    }

    /// Messages that answer no pending request: notifications, and responses whose id is
    /// `null` or unknown. Can be taken once.
    pub fn take_unrouted(&self) -> Option<mpsc::UnboundedReceiver<Value>> {
        self.inner
            .unrouted
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
    }

    /// The process id of a spawned server.
    pub fn process_id(&self) -> Option<u32> {
        self.inner
            .child
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .as_ref()
            .and_then(Child::id)
    }

    /// Closes the connection (stdin of a child) and waits for a child process to exit.
    pub async fn close(self) -> Result<Option<std::process::ExitStatus>, ClientError> {
        let child = self
            .inner
            .child
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        drop(self);
        match child {
            Some(mut child) => Ok(Some(child.wait().await?)),
            None => Ok(None),
        }
    }

    /// The modern envelope, merged into `params._meta`.
    fn with_envelope(&self, params: Option<Value>) -> Value {
        let mut params = match params {
            Some(Value::Object(m)) => m,
            _ => Map::new(),
        };
        let meta = params
            .entry("_meta")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(meta) = meta {
            meta.insert(PROTOCOL_VERSION_KEY.into(), MODERN_VERSION.into());
            // Capabilities already there are kept: a proxy sends its caller's.
            if !meta.contains_key(CLIENT_CAPABILITIES_KEY) {
                let mut capabilities = self.declared_capabilities();
                // Added to the extensions declared (the apps extension of a previewing
                // client), never in their place.
                if self.tasks_enabled()
                    && let Value::Object(capabilities) = &mut capabilities
                    && let Value::Object(extensions) = capabilities
                        .entry("extensions")
                        .or_insert_with(|| json!({}))
                {
                    extensions
                        .entry(crate::protocol::task::TASKS_EXTENSION)
                        .or_insert_with(|| json!({}));
                }
                meta.insert(CLIENT_CAPABILITIES_KEY.into(), capabilities);
            }
            meta.insert(
                CLIENT_INFO_KEY.into(),
                serde_json::to_value(&self.inner.client_info).unwrap_or_default(),
            );
        }
        Value::Object(params)
    }
}

/// Where to send messages for a child's stdin: each is written with its newline, until the
/// sender or the pipe closes (dropping the last sender closes stdin: the child sees EOF).
pub(crate) fn lines_to(mut stdin: tokio::process::ChildStdin) -> mpsc::Sender<Vec<u8>> {
    let (to_child, mut outgoing) = mpsc::channel::<Vec<u8>>(256);
    tokio::spawn(async move {
        // Messages already queued go out with this one, in one write: under load (a proxy
        // forwarding many callers' requests) a pipe write per message is most of the cost.
        while let Some(mut batch) = outgoing.recv().await {
            if batch.last() != Some(&b'\n') {
                batch.push(b'\n');
            }
            while batch.len() < 64 * 1024 {
                let Ok(message) = outgoing.try_recv() else {
                    break;
                };
                batch.extend_from_slice(&message);
                if message.last() != Some(&b'\n') {
                    batch.push(b'\n');
                }
            }
            if stdin.write_all(&batch).await.is_err() || stdin.flush().await.is_err() {
                return;
            }
        }
    });
    to_child
}

/// A progress token routed to its request's channel until dropped.
struct ProgressRoute<'a> {
    routes: &'a ProgressRoutes,
    token: String,
}

impl Drop for ProgressRoute<'_> {
    fn drop(&mut self) {
        self.routes
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&self.token);
    }
}

/// Cancels a request still unanswered when dropped ([`Client::request_cancellable`]).
struct CancelOnDrop<'a> {
    client: &'a Client,
    id: Option<RequestId>,
}

impl Drop for CancelOnDrop<'_> {
    fn drop(&mut self) {
        if let Some(id) = self.id.take() {
            self.client.forget(&id);
            // `try_send`: a drop cannot wait; with the queue full the server is not reading
            // anyway, and the answer, when it comes, goes nowhere.
            let _ = self.client.inner.to_server.try_send(encode_notification(
                methods::CANCELLED.name,
                Some(json!({ "requestId": id, "reason": "the caller cancelled the request" })),
            ));
        }
    }
}

/// Decodes the final result of a call that may come back `input_required`.
fn decode_final<T: serde::de::DeserializeOwned>(value: Value) -> Result<T, ClientError> {
    if let Some(asked) = input::input_required(&value) {
        return Err(ClientError::InputRequired(Box::new(asked?)));
    }
    decode(value)
}

fn decode<T: serde::de::DeserializeOwned>(value: Value) -> Result<T, ClientError> {
    serde_json::from_value(value).map_err(|e| ClientError::Decode(e.to_string()))
}
