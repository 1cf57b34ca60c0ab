//! HTTP test support: example servers started with `--transport http`, servers built by a
//! test and served in-process, a small client for raw requests, and an SSE reader.
//!
//! Every request goes to 127.0.0.1 and every wait is bounded.

use bytes::Bytes;
use http::{HeaderMap, Method, Request, Response, StatusCode};
use http_body_util::{BodyExt as _, Full};
use hyper::body::Incoming;
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use mcp_runtime::Server;
use mcp_runtime::transport::http::{HttpOptions, HttpServer, McpHttpService};
use serde_json::{Value, json};
use std::io::{BufRead as _, BufReader};
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex, OnceLock, mpsc};
use std::time::Duration;

/// The modern revision.
pub const MODERN: &str = "2026-07-28";
/// The latest legacy revision.
pub const LEGACY: &str = "2025-11-25";
/// What the official clients send as `Accept` on a POST.
pub const ACCEPT_BOTH: &str = "application/json, text/event-stream";
/// The longest any single request of a test may take.
pub const REQUEST_DEADLINE: Duration = Duration::from_secs(30);

/// An example server running as a child process with `--transport http`.
#[derive(Debug)]
pub struct Spawned {
    child: Child,
    /// The endpoint URL the server printed.
    pub url: String,
    /// The address it listens on.
    pub addr: SocketAddr,
    stderr: Arc<Mutex<String>>,
}

impl Spawned {
    /// Starts `mcp-examples` binary `bin` with `--transport http --bind 127.0.0.1:0` and
    /// `args`, and waits (bounded) for the URL line on its stderr.
    pub fn start(bin: &str, args: &[&str]) -> Self {
        Self::start_at(bin, "127.0.0.1:0", args)
    }

    /// Like [`start`](Self::start), listening at `bind`.
    pub fn start_at(bin: &str, bind: &str, args: &[&str]) -> Self {
        let path = crate::example_bin(bin);
        let mut child = Command::new(&path)
            .args(["--transport", "http", "--bind", bind])
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", path.display()));
        let stderr = child.stderr.take().expect("stderr is piped");
        let log = Arc::new(Mutex::new(String::new()));
        let (url_tx, url_rx) = mpsc::channel();
        let sink = log.clone();
        std::thread::spawn(move || {
            let mut url_tx = Some(url_tx);
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                if let Some(url) = line.split_whitespace().find(|w| w.starts_with("http://"))
                    && let Some(tx) = url_tx.take()
                {
                    let _ = tx.send(url.to_owned());
                }
                let mut log = sink.lock().unwrap_or_else(|e| e.into_inner());
                log.push_str(&line);
                log.push('\n');
            }
        });
        let Ok(url) = url_rx.recv_timeout(Duration::from_secs(60)) else {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "{bin} printed no URL within 60 s; stderr:\n{}",
                log.lock().unwrap_or_else(|e| e.into_inner())
            );
        };
        let addr = url
            .trim_start_matches("http://")
            .split('/')
            .next()
            .and_then(|a| a.parse().ok())
            .unwrap_or_else(|| panic!("the printed URL {url:?} has no socket address"));
        Self {
            child,
            url,
            addr,
            stderr: log,
        }
    }

    /// `host:port` of the server.
    pub fn authority(&self) -> String {
        self.addr.to_string()
    }

    /// The process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// What the server wrote to stderr so far.
    pub fn stderr(&self) -> String {
        self.stderr
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Kills the server (SIGKILL) and reaps it.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Asks the server to stop (SIGTERM) and waits, bounded, for it to exit; returns
    /// whether it exited successfully.
    pub fn terminate(&mut self) -> bool {
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        for _ in 0..300 {
            if let Ok(Some(status)) = self.child.try_wait() {
                return status.success();
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        self.kill();
        false
    }
}

impl Drop for Spawned {
    fn drop(&mut self) {
        self.kill();
    }
}

/// A server built by a test, served in this process on a free loopback port.
#[derive(Debug)]
pub struct InProcess {
    /// The endpoint URL.
    pub url: String,
    /// The address it listens on.
    pub addr: SocketAddr,
    /// The endpoint service (sessions, shutdown).
    pub service: McpHttpService,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    task: Option<tokio::task::JoinHandle<std::io::Result<()>>>,
}

/// Serves `server` with `options` on 127.0.0.1 (port chosen by the OS).
pub async fn serve(server: Server, options: HttpOptions) -> InProcess {
    let http = HttpServer::bind("127.0.0.1:0", server, options)
        .await
        .expect("binding a loopback port works");
    let url = http.url();
    let addr = http.local_addr();
    let service = http.service().clone();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let task = tokio::spawn(http.run_until(async move {
        let _ = stopped.await;
    }));
    InProcess {
        url,
        addr,
        service,
        stop: Some(stop),
        task: Some(task),
    }
}

impl InProcess {
    /// `host:port` of the server.
    pub fn authority(&self) -> String {
        self.addr.to_string()
    }

    /// Starts the graceful shutdown; returns the task that finishes with it.
    pub fn begin_stop(&mut self) -> tokio::task::JoinHandle<std::io::Result<()>> {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        self.task.take().expect("stopped once")
    }
}

impl Drop for InProcess {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

/// A fully read response.
#[derive(Debug)]
pub struct Reply {
    /// The status.
    pub status: StatusCode,
    /// The headers.
    pub headers: HeaderMap,
    /// The body.
    pub body: Bytes,
}

impl Reply {
    /// A header's value as text.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    /// The media type (`Content-Type` without parameters).
    pub fn media_type(&self) -> &str {
        self.header("content-type")
            .and_then(|c| c.split(';').next())
            .unwrap_or_default()
            .trim()
    }

    /// The body as text.
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    /// The body as JSON (panics with the body when it is not).
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("body is not JSON ({e}): {} {}", self.status, self.text()))
    }

    /// The JSON-RPC messages of the response: the body, or each SSE event's data.
    pub fn messages(&self) -> Vec<Value> {
        if self.media_type() == "text/event-stream" {
            parse_sse(&self.text())
                .into_iter()
                .filter_map(|e| e.data)
                .map(|d| {
                    serde_json::from_str(&d)
                        .unwrap_or_else(|e| panic!("event is not JSON ({e}): {d}"))
                })
                .collect()
        } else {
            vec![self.json()]
        }
    }

    /// The last JSON-RPC message (the answer).
    pub fn answer(&self) -> Value {
        self.messages()
            .pop()
            .unwrap_or_else(|| panic!("no message in {} {}", self.status, self.text()))
    }

    /// The `error.code` of the answer.
    pub fn error_code(&self) -> i64 {
        let answer = self.answer();
        answer["error"]["code"]
            .as_i64()
            .unwrap_or_else(|| panic!("not an error: {answer}"))
    }
}

/// One server-sent event.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SseEvent {
    /// The `data` (lines joined with `\n`), if any.
    pub data: Option<String>,
    /// Comment lines (without the `:`).
    pub comments: Vec<String>,
    /// The event's `id`, if it has one.
    pub id: Option<String>,
}

/// Splits an SSE body into events.
pub fn parse_sse(text: &str) -> Vec<SseEvent> {
    let mut events = Vec::new();
    let normalized = text.replace("\r\n", "\n");
    for block in normalized.split("\n\n") {
        let mut event = SseEvent::default();
        for line in block.lines() {
            if let Some(comment) = line.strip_prefix(':') {
                event.comments.push(comment.trim().to_owned());
            } else if let Some(id) = line.strip_prefix("id:") {
                event.id = Some(id.strip_prefix(' ').unwrap_or(id).to_owned());
            } else if let Some(data) = line.strip_prefix("data:") {
                let data = data.strip_prefix(' ').unwrap_or(data);
                match &mut event.data {
                    Some(d) => {
                        d.push('\n');
                        d.push_str(data);
                    }
                    None => event.data = Some(data.to_owned()),
                }
            }
        }
        if event.data.is_some() || !event.comments.is_empty() {
            events.push(event);
        }
    }
    events
}

fn client() -> &'static Client<HttpConnector, Full<Bytes>> {
    static CLIENT: OnceLock<Client<HttpConnector, Full<Bytes>>> = OnceLock::new();
    CLIENT.get_or_init(|| {
        let mut connector = HttpConnector::new();
        connector.set_nodelay(true);
        // No pooling: every test request gets its own connection, so a test that breaks a
        // connection on purpose cannot affect another.
        Client::builder(TokioExecutor::new())
            .pool_max_idle_per_host(0)
            .build(connector)
    })
}

/// Sends a request and returns the response with its body still streaming.
pub async fn open(
    method: Method,
    url: &str,
    headers: &[(&str, &str)],
    body: impl Into<Bytes>,
) -> Response<Incoming> {
    let mut request = Request::builder().method(method).uri(url);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let request = request
        .body(Full::new(body.into()))
        .expect("a valid request");
    tokio::time::timeout(REQUEST_DEADLINE, client().request(request))
        .await
        .unwrap_or_else(|_| panic!("no response from {url} within {REQUEST_DEADLINE:?}"))
        .unwrap_or_else(|e| panic!("request to {url} failed: {e:?}"))
}

/// Sends a request and reads the whole response.
pub async fn send(
    method: Method,
    url: &str,
    headers: &[(&str, &str)],
    body: impl Into<Bytes>,
) -> Reply {
    let response = open(method, url, headers, body).await;
    let (parts, body) = response.into_parts();
    let body = tokio::time::timeout(REQUEST_DEADLINE, body.collect())
        .await
        .unwrap_or_else(|_| panic!("the body from {url} did not end within {REQUEST_DEADLINE:?}"))
        .unwrap_or_else(|e| panic!("reading the body from {url} failed: {e:?}"))
        .to_bytes();
    Reply {
        status: parts.status,
        headers: parts.headers,
        body,
    }
}

/// Like [`send`], but failures (no connection, a broken response, the deadline) are
/// returned instead of panicking.
pub async fn try_send(
    method: Method,
    url: &str,
    headers: &[(&str, &str)],
    body: impl Into<Bytes>,
) -> Result<Reply, String> {
    let mut request = Request::builder().method(method).uri(url);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let request = request
        .body(Full::new(body.into()))
        .map_err(|e| e.to_string())?;
    let exchange = async {
        let response = client()
            .request(request)
            .await
            .map_err(|e| format!("{e:?}"))?;
        let (parts, body) = response.into_parts();
        let body = body
            .collect()
            .await
            .map_err(|e| format!("{e:?}"))?
            .to_bytes();
        Ok(Reply {
            status: parts.status,
            headers: parts.headers,
            body,
        })
    };
    tokio::time::timeout(REQUEST_DEADLINE, exchange)
        .await
        .map_err(|_| format!("no complete response within {REQUEST_DEADLINE:?}"))?
}

/// POSTs a JSON-RPC message with `Content-Type: application/json`, the official clients'
/// `Accept`, and `headers`.
pub async fn post(url: &str, headers: &[(&str, &str)], message: &Value) -> Reply {
    let mut all = vec![
        ("content-type", "application/json"),
        ("accept", ACCEPT_BOTH),
    ];
    all.extend_from_slice(headers);
    send(Method::POST, url, &all, message.to_string()).await
}

/// POSTs `message` as a 2025-era client would: JSON, both answers accepted, the legacy
/// protocol version, and the session it names (if any).
pub async fn legacy_post(url: &str, session: Option<&str>, message: &Value) -> Reply {
    let mut headers = vec![
        ("content-type", "application/json"),
        ("accept", ACCEPT_BOTH),
        ("mcp-protocol-version", LEGACY),
    ];
    if let Some(session) = session {
        headers.push(("mcp-session-id", session));
    }
    post(url, &headers, message).await
}

/// The 2026-07-28 `_meta` envelope.
pub fn envelope() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "http-test", "version": "0"}
    })
}

/// A modern request: `params` with the envelope added, and the headers a correct client
/// sends with it (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` for `tools/call`).
pub fn modern(id: i64, method: &str, params: Value) -> (Value, Vec<(&'static str, String)>) {
    let mut params = params;
    params["_meta"] = envelope();
    let mut headers = vec![
        ("mcp-protocol-version", MODERN.to_owned()),
        ("mcp-method", method.to_owned()),
    ];
    if method == "tools/call" {
        headers.push((
            "mcp-name",
            params["name"].as_str().unwrap_or_default().to_owned(),
        ));
    }
    let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
    (message, headers)
}

/// POSTs a correct modern request.
pub async fn post_modern(url: &str, id: i64, method: &str, params: Value) -> Reply {
    let (message, headers) = modern(id, method, params);
    let headers: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
    post(url, &headers, &message).await
}

/// Opens a correct modern request (the headers of [`modern`], JSON, both media types
/// accepted) and returns the response with its body still streaming: a
/// `subscriptions/listen` stream, a call answered with events.
pub async fn open_modern(url: &str, id: i64, method: &str, params: Value) -> Response<Incoming> {
    let (message, headers) = modern(id, method, params);
    let mut h: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
    h.push(("content-type", "application/json"));
    h.push(("accept", ACCEPT_BOTH));
    open(Method::POST, url, &h, message.to_string()).await
}

/// A legacy `initialize` request.
pub fn initialize(id: i64) -> Value {
    json!({
        "jsonrpc": "2.0", "id": id, "method": "initialize",
        "params": {"protocolVersion": LEGACY, "capabilities": {}, "clientInfo": {"name": "http-test", "version": "0"}}
    })
}

/// A JSON-RPC request without an envelope (legacy traffic).
pub fn legacy(id: i64, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

/// Reads server-sent events from a streaming body, one at a time.
#[derive(Debug)]
pub struct SseReader {
    body: Incoming,
    buffer: String,
}

impl SseReader {
    /// Reads the events of `response`'s body.
    pub fn new(response: Response<Incoming>) -> Self {
        Self {
            body: response.into_body(),
            buffer: String::new(),
        }
    }

    /// The next event (data or comment), `None` at the end of the stream; panics when
    /// nothing arrives within `deadline`.
    pub async fn next(&mut self, deadline: Duration) -> Option<SseEvent> {
        tokio::time::timeout(deadline, self.next_unbounded())
            .await
            .unwrap_or_else(|_| panic!("no server-sent event within {deadline:?}"))
    }

    async fn next_unbounded(&mut self) -> Option<SseEvent> {
        loop {
            let normalized = self.buffer.replace("\r\n", "\n");
            if let Some(end) = normalized.find("\n\n") {
                let block = normalized[..end + 2].to_owned();
                self.buffer = normalized[end + 2..].to_owned();
                if let Some(event) = parse_sse(&block).into_iter().next() {
                    return Some(event);
                }
                continue;
            }
            let frame = self.body.frame().await?.ok()?;
            if let Ok(data) = frame.into_data() {
                self.buffer.push_str(&String::from_utf8_lossy(&data));
            }
        }
    }

    /// The next event that carries data, as JSON.
    pub async fn next_message(&mut self, deadline: Duration) -> Option<Value> {
        loop {
            let event = self.next(deadline).await?;
            if let Some(data) = event.data {
                return Some(
                    serde_json::from_str(&data)
                        .unwrap_or_else(|e| panic!("event is not JSON ({e}): {data}")),
                );
            }
        }
    }
}

/// Polls `check` every 20 ms until it holds or `deadline` passes; returns whether it held.
pub async fn eventually(deadline: Duration, mut check: impl FnMut() -> bool) -> bool {
    let until = tokio::time::Instant::now() + deadline;
    loop {
        if check() {
            return true;
        }
        if tokio::time::Instant::now() >= until {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// What the [`fixture`] server's tools report to the test.
#[derive(Debug, Default)]
pub struct Probe {
    /// Calls of `hang` and `gate` that started.
    pub started: std::sync::atomic::AtomicUsize,
    /// Calls of `hang` and `gate` whose future was dropped before finishing (cancelled).
    pub dropped: std::sync::atomic::AtomicUsize,
    /// Releases every waiting `gate` call.
    pub gate: tokio::sync::Notify,
}

/// Counts a dropped call unless it finished.
struct DropMark(Arc<Probe>, bool);

impl Drop for DropMark {
    fn drop(&mut self) {
        if !self.1 {
            self.0
                .dropped
                .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        }
    }
}

/// A server with tools for HTTP tests:
/// - `echo {text}` and `add {a, b}` as in `echo-server`;
/// - `route {region: string, zone?: integer, dry?: boolean, note?: string}`, whose first
///   three arguments are mirrored into `Mcp-Param-Region`, `-Zone` and `-Dry-Run`;
/// - `progress {steps, ms}`: `steps` progress notifications, `ms` apart, then `"done"`;
/// - `hang {}`: never finishes (until cancelled);
/// - `gate {}`: finishes when the test calls `probe.gate.notify_waiters()`.
pub fn fixture() -> (Server, Arc<Probe>) {
    use mcp_runtime::prelude::*;
    use std::sync::atomic::Ordering;
    let probe = Arc::new(Probe::default());
    let object = |properties: Value, required: &[&str]| json!({"type": "object", "properties": properties, "required": required});
    let echo = tool_fn(
        ToolDefinition::new(
            "echo",
            "Echoes text.",
            object(json!({"text": {"type": "string"}}), &["text"]),
        ),
        |args, _| async move { args["text"].as_str().unwrap_or_default().to_owned() },
    );
    let add = tool_fn(
        ToolDefinition::new(
            "add",
            "Adds two numbers.",
            object(
                json!({"a": {"type": "number"}, "b": {"type": "number"}}),
                &["a", "b"],
            ),
        ),
        |args, _| async move { args["a"].as_f64().unwrap_or(0.0) + args["b"].as_f64().unwrap_or(0.0) },
    );
    let route = tool_fn(
        ToolDefinition::new(
            "route",
            "Routes by region.",
            object(
                json!({
                    "region": {"type": "string", "x-mcp-header": "Region"},
                    "zone": {"type": "integer", "x-mcp-header": "Zone"},
                    "dry": {"type": "boolean", "x-mcp-header": "Dry-Run"},
                    "note": {"type": "string"}
                }),
                &["region"],
            ),
        ),
        |args, _| async move { format!("routed to {}", args["region"].as_str().unwrap_or_default()) },
    );
    let progress = tool_fn(
        ToolDefinition::new(
            "progress",
            "Reports progress.",
            object(
                json!({"steps": {"type": "integer"}, "ms": {"type": "integer"}}),
                &["steps", "ms"],
            ),
        ),
        |args, cx: RequestContext| async move {
            let steps = args["steps"].as_u64().unwrap_or(1);
            let ms = args["ms"].as_u64().unwrap_or(0);
            for step in 1..=steps {
                cx.progress(step as f64, Some(steps as f64), None).await;
                tokio::time::sleep(Duration::from_millis(ms)).await;
            }
            "done"
        },
    );
    let hang = {
        let probe = probe.clone();
        tool_fn(
            ToolDefinition::new("hang", "Never finishes.", object(json!({}), &[])),
            move |_, _| {
                let probe = probe.clone();
                async move {
                    probe.started.fetch_add(1, Ordering::SeqCst);
                    let _mark = DropMark(probe, false);
                    std::future::pending::<()>().await;
                    "unreachable"
                }
            },
        )
    };
    let gate = {
        let probe = probe.clone();
        tool_fn(
            ToolDefinition::new(
                "gate",
                "Finishes when the test opens the gate.",
                object(json!({}), &[]),
            ),
            move |_, _| {
                let probe = probe.clone();
                async move {
                    let opened = probe.gate.notified();
                    probe.started.fetch_add(1, Ordering::SeqCst);
                    let mut mark = DropMark(probe.clone(), false);
                    opened.await;
                    mark.1 = true;
                    "released"
                }
            },
        )
    };
    let server = Server::builder("http-fixture", "1.0.0")
        .tool(echo)
        .tool(add)
        .tool(route)
        .tool(progress)
        .tool(hang)
        .tool(gate)
        .build()
        .expect("the fixture's tools are valid");
    (server, probe)
}
