//! Streamable HTTP in front of the relay (`cargo mcp dev --transport http`): one endpoint,
//! `http://<bind>/mcp`, for one client at a time, that turns HTTP exchanges into the
//! relay's client lines and back.
//!
//! - **POST** of a JSON-RPC request: the line goes to the relay, and the answer with the
//!   same id comes back as the response body (`application/json`). A notification or a
//!   response (the client's answer to a server's question) gets `202 Accepted`. A
//!   `subscriptions/listen` request (2026-07-28) is answered with an event stream that
//!   carries its acknowledgement and, after it, what the server sends unasked.
//! - **GET** (`Accept: text/event-stream`): the stream of what the server sends unasked
//!   (list changes after a rebuild, log messages, a 2025 server's own requests: sampling,
//!   elicitation, roots). Such messages go to the newest open stream; with none open they
//!   wait, the oldest dropped past [`BACKLOG`], and are sent when one opens.
//! - **No session id** is issued (the spec lets a server go without one): `dev` serves one
//!   client, whose `initialize` the relay keeps and replays to each rebuilt server; a
//!   client that connects again simply initializes again. `DELETE` is `405`, as the spec
//!   allows for a server that has no sessions to end.
//! - **Local only, and for the client given the URL.** Only loopback addresses are bound
//!   (any other `--bind` is refused). The URL carries 128 random bits
//!   (`http://127.0.0.1:PORT/<token>/mcp`), and any other path is `404`, so a page or
//!   process that does not know the URL reaches nothing. The token is kept in the target
//!   folder (`cargo-mcp/dev-token-<package>`, the owner's alone), so a client configured
//!   with the URL keeps working across runs. As on the runtime's own transport,
//!   a `Host` that is not loopback (DNS rebinding) and an `Origin` that is not a loopback
//!   page are refused with `403`, and a POST must be `Content-Type: application/json`
//!   (`415`: a browser's form or `text/plain` "simple request" never gets through).
//! - **Bounded.** Bodies are capped at [`MAX_BODY`], request headers at [`MAX_HEADERS`]
//!   bytes read within [`HEADER_TIMEOUT`]; one GET stream at a time (a second gets `409`).
//! - **Answers go to the request that asked.** Each request is relayed under an id of the
//!   front's own and answered with the client's id again, so two clients using the same id
//!   never take each other's answers (a `notifications/cancelled` is translated the same way).
//!
//! Written on hyper directly rather than on `mcp_runtime`'s HTTP transport: that transport
//! serves a `Server` (it dispatches requests itself), while this one relays lines to a
//! process it does not understand, and the CLI builds the runtime without its server side.

use super::{Event, report};
use anyhow::{Context as _, Result};
use bytes::Bytes;
use http::{Method, Request, Response, StatusCode, header};
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt as _, Full, Limited, StreamBody};
use hyper::body::{Frame, Incoming};
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};
use std::collections::{HashMap, VecDeque};
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use tokio::net::TcpListener;
use tokio::sync::{mpsc, oneshot};

/// The path of the endpoint, after its token.
pub const PATH: &str = "/mcp";

/// Where a listen stream's notifications name the request that opened it.
const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";

/// The most bytes of request line and headers read.
pub const MAX_HEADERS: usize = 64 * 1024;

/// How long a client has to send a request's headers.
pub const HEADER_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// The largest request body taken.
pub const MAX_BODY: usize = 4 << 20;

/// How many unasked messages wait for a stream to open before the oldest are dropped.
pub const BACKLOG: usize = 1024;

/// The body of every answer of the dev session's fronts.
pub(super) type Body = BoxBody<Bytes, Infallible>;

/// Who waits for the answer to a request.
#[derive(Debug)]
enum Waiter {
    /// A POST, answered with the response as its body.
    Reply(oneshot::Sender<String>),
    /// A `subscriptions/listen` POST: its acknowledgement goes on its own stream.
    Stream(mpsc::Sender<String>),
}

#[derive(Debug, Default)]
struct Streams {
    /// Open event streams, oldest first.
    open: Vec<mpsc::Sender<String>>,
    /// Unasked messages while no stream is open.
    backlog: VecDeque<String>,
}

#[derive(Debug)]
struct Shared {
    events: mpsc::UnboundedSender<Event>,
    /// Requests in flight, by the front's own id for them (JSON text), with the client's.
    waiting: Mutex<HashMap<String, (Waiter, Value)>>,
    streams: Mutex<Streams>,
    /// The endpoint's path: `/<token>/mcp`.
    path: String,
    /// The next id of the front's own.
    next: std::sync::atomic::AtomicU64,
    /// Whether a GET stream is open.
    get_open: Arc<std::sync::atomic::AtomicBool>,
}

/// The HTTP front of a dev session, bound and ready to serve.
#[derive(Debug)]
pub struct Front {
    listener: TcpListener,
    shared: Arc<Shared>,
}

impl Front {
    /// Binds `address`; client lines are sent to `events`.
    /// The token is read from `token_file` when it holds one, else made and kept there
    /// (readable by the owner only), so the URL a client was given stays the same across
    /// runs of one project.
    pub async fn bind(
        address: SocketAddr,
        events: mpsc::UnboundedSender<Event>,
        token_file: &std::path::Path,
    ) -> Result<Self> {
        if !address.ip().is_loopback() {
            anyhow::bail!(
                "cargo mcp dev serves this machine only: --bind {address} is not a loopback \
                 address (use 127.0.0.1 or [::1]; to serve others, run the server itself with \
                 `--transport http` and its authentication)"
            );
        }
        let listener = TcpListener::bind(address)
            .await
            .with_context(|| format!("cannot listen on {address}"))?;
        Ok(Front {
            listener,
            shared: Arc::new(Shared::new(events, &kept_token(token_file)?)),
        })
    }

    /// The endpoint's URL, its token included.
    pub fn url(&self) -> Result<String> {
        let address = self.listener.local_addr().context("no local address")?;
        Ok(format!("http://{address}{}", self.shared.path))
    }

    /// Serves connections, and delivers the relay's lines for the client (`outbox`) to the
    /// request or stream each belongs to, until the outbox closes.
    pub async fn run(self, mut outbox: mpsc::UnboundedReceiver<String>) {
        let shared = Arc::clone(&self.shared);
        let accept = tokio::spawn(accept(self.listener, Arc::clone(&self.shared)));
        while let Some(line) = outbox.recv().await {
            shared.deliver(line);
        }
        accept.abort();
    }
}

async fn accept(listener: TcpListener, shared: Arc<Shared>) {
    serve_connections(listener, move |request| {
        let shared = Arc::clone(&shared);
        async move { shared.handle(request).await }
    })
    .await;
}

/// Serves every connection `listener` accepts with `handle`, over HTTP/1.1 with bounded
/// request headers ([`MAX_HEADERS`], read within [`HEADER_TIMEOUT`]); a failed accept is
/// reported and retried. Shared by the dev session's fronts (this one and the preview's).
pub(super) async fn serve_connections<F, Fut>(listener: TcpListener, handle: F)
where
    F: Fn(Request<Incoming>) -> Fut + Clone + Send + 'static,
    Fut: std::future::Future<Output = Response<Body>> + Send + 'static,
{
    loop {
        let (stream, _) = match listener.accept().await {
            Ok(accepted) => accepted,
            Err(e) => {
                report(format_args!("accepting a connection failed: {e}"));
                tokio::time::sleep(std::time::Duration::from_millis(100)).await;
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        let handle = handle.clone();
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |request| {
                let answer = handle(request);
                async move { Ok::<_, Infallible>(answer.await) }
            });
            let _ = hyper::server::conn::http1::Builder::new()
                .timer(hyper_util::rt::TokioTimer::new())
                .header_read_timeout(HEADER_TIMEOUT)
                .max_buf_size(MAX_HEADERS)
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}

/// The token kept in `path`, or a new one kept there.
fn kept_token(path: &std::path::Path) -> Result<String> {
    if let Ok(text) = std::fs::read_to_string(path) {
        let text = text.trim();
        if text.len() == 32 && text.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Ok(text.to_owned());
        }
    }
    let token = token();
    if let Some(folder) = path.parent() {
        std::fs::create_dir_all(folder)
            .with_context(|| format!("cannot create {}", folder.display()))?;
    }
    crate::ops::write::replace(path, token.as_bytes(), crate::ops::write::Mode::Private)?;
    Ok(token)
}

/// 128 random bits, hex.
pub(super) fn token() -> String {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).expect("the operating system's random generator works");
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Whether a `Host` header names this machine: `localhost`, `127.0.0.1` or `[::1]`, with
/// or without a port.
fn is_loopback_host(host: &str) -> bool {
    let name = match host.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or(""),
        None => host.rsplit_once(':').map_or(host, |(name, _)| name),
    };
    matches!(name, "localhost" | "127.0.0.1" | "::1")
}

/// Whether the request's body is declared JSON.
pub(super) fn is_json(request: &Request<Incoming>) -> bool {
    request
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|media| media.trim().eq_ignore_ascii_case("application/json"))
}

/// Clears the GET-stream flag when the stream's body is dropped.
struct OpenGet(Arc<std::sync::atomic::AtomicBool>);

impl Drop for OpenGet {
    fn drop(&mut self) {
        self.0.store(false, std::sync::atomic::Ordering::Release);
    }
}

impl Shared {
    fn new(events: mpsc::UnboundedSender<Event>, token: &str) -> Self {
        Shared {
            events,
            waiting: Mutex::new(HashMap::new()),
            streams: Mutex::new(Streams::default()),
            path: format!("/{token}{PATH}"),
            next: std::sync::atomic::AtomicU64::new(1),
            get_open: Arc::default(),
        }
    }

    /// Routes one line from the relay: an answer to its waiting request (with the client's
    /// id again), anything else to the newest open stream (or the backlog).
    fn deliver(&self, line: String) {
        let message: Option<Value> = serde_json::from_str(&line).ok();
        let is_response = message
            .as_ref()
            .is_some_and(|m| m.get("method").is_none() && m.get("id").is_some());
        let mut line = line;
        // A listen stream's notifications name its request by the front's id: they go to
        // that stream, naming the client's.
        if !is_response
            && let Some(mut message) = message.clone()
            && let Some(tag) = message["params"]["_meta"].get(SUBSCRIPTION_ID).cloned()
        {
            let waiting = self.waiting.lock().expect("not poisoned");
            if let Some((Waiter::Stream(stream), client_id)) = waiting.get(&tag.to_string()) {
                message["params"]["_meta"][SUBSCRIPTION_ID] = client_id.clone();
                if stream.try_send(message.to_string()).is_ok() {
                    return;
                }
            }
        }
        if is_response && let Some(mut message) = message {
            let id = message["id"].to_string();
            let waiter = self.waiting.lock().expect("not poisoned").remove(&id);
            if let Some((waiter, client_id)) = waiter {
                message["id"] = client_id;
                line = message.to_string();
                match waiter {
                    Waiter::Reply(reply) => {
                        let _ = reply.send(line);
                        return;
                    }
                    Waiter::Stream(stream) if stream.try_send(line.clone()).is_ok() => return,
                    // An answer nobody waits for (its POST or stream went away): the open
                    // streams may want it.
                    Waiter::Stream(_) => {}
                }
            }
        }
        let mut streams = self.streams.lock().expect("not poisoned");
        let mut line = Some(line);
        while let Some(newest) = streams.open.last() {
            match newest.try_send(line.take().expect("sent at most once")) {
                Ok(()) => return,
                Err(
                    mpsc::error::TrySendError::Full(back) | mpsc::error::TrySendError::Closed(back),
                ) => {
                    line = Some(back);
                    streams.open.pop();
                }
            }
        }
        if streams.backlog.len() == BACKLOG {
            streams.backlog.pop_front();
            report("no event stream is open; dropped the oldest waiting server message");
        }
        streams.backlog.extend(line);
    }

    /// A new event stream: it gets what waited for one first.
    fn open_stream(&self) -> (mpsc::Sender<String>, mpsc::Receiver<String>) {
        // Room for the whole backlog; a reader that falls that far behind counts as gone.
        let (sender, receiver) = mpsc::channel(BACKLOG);
        let mut streams = self.streams.lock().expect("not poisoned");
        for line in streams.backlog.drain(..) {
            let _ = sender.try_send(line);
        }
        streams.open.push(sender.clone());
        (sender, receiver)
    }

    async fn handle(&self, request: Request<Incoming>) -> Response<Body> {
        if request.uri().path() != self.path {
            // The token is the client's to know: nothing here hints at it.
            return plain(StatusCode::NOT_FOUND, "not found");
        }
        let host = request
            .headers()
            .get(header::HOST)
            .and_then(|h| h.to_str().ok());
        if !host.is_some_and(is_loopback_host) {
            return plain(
                StatusCode::FORBIDDEN,
                "this development server answers to localhost, 127.0.0.1 and [::1] only",
            );
        }
        if let Some(origin) = request.headers().get(header::ORIGIN)
            && !is_loopback_origin(origin.to_str().unwrap_or(""))
        {
            return plain(
                StatusCode::FORBIDDEN,
                "only pages served from this machine may connect",
            );
        }
        match *request.method() {
            Method::POST => self.post(request).await,
            Method::GET => {
                let accepts_events = request
                    .headers()
                    .get(header::ACCEPT)
                    .and_then(|a| a.to_str().ok())
                    .is_some_and(|a| a.contains("text/event-stream"));
                if !accepts_events {
                    return plain(StatusCode::NOT_ACCEPTABLE, "GET opens a text/event-stream");
                }
                if self
                    .get_open
                    .swap(true, std::sync::atomic::Ordering::AcqRel)
                {
                    return plain(
                        StatusCode::CONFLICT,
                        "a GET stream is open already; close it first",
                    );
                }
                let open = OpenGet(Arc::clone(&self.get_open));
                let (_, receiver) = self.open_stream();
                events_holding(receiver, Some(open))
            }
            _ => {
                let mut response = plain(StatusCode::METHOD_NOT_ALLOWED, "POST or GET");
                response
                    .headers_mut()
                    .insert(header::ALLOW, header::HeaderValue::from_static("GET, POST"));
                response
            }
        }
    }

    async fn post(&self, request: Request<Incoming>) -> Response<Body> {
        if !is_json(&request) {
            return plain(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "send the JSON-RPC message with Content-Type: application/json",
            );
        }
        let body = match Limited::new(request.into_body(), MAX_BODY).collect().await {
            Ok(collected) => collected.to_bytes(),
            Err(_) => {
                return rpc_error(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    -32600,
                    &format!("the body is over {MAX_BODY} bytes"),
                );
            }
        };
        let message: Value = match serde_json::from_slice(&body) {
            Ok(message) => message,
            Err(e) => {
                return rpc_error(
                    StatusCode::BAD_REQUEST,
                    -32700,
                    &format!("parse error: {e}"),
                );
            }
        };
        let Some(object) = message.as_object() else {
            return rpc_error(
                StatusCode::BAD_REQUEST,
                -32600,
                "one JSON-RPC message per request (batches are not supported)",
            );
        };
        let (Some(client_id), Some(method)) = (object.get("id"), object.get("method")) else {
            // A notification (a cancellation names the front's id for its request) or a
            // response to a server's request: as it is, on one line for the relay.
            let line = self.translate_cancellation(message).to_string();
            let _ = self.events.send(Event::Client(line));
            return empty(StatusCode::ACCEPTED);
        };
        let client_id = client_id.clone();
        let listen = method == "subscriptions/listen";
        // Relayed under an id of the front's own: answers cannot cross between clients.
        let own = json!(format!(
            "dev-{}",
            self.next.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
        ));
        let mut message = message;
        message["id"] = own.clone();
        let line = message.to_string();
        if listen {
            let (sender, receiver) = self.open_stream();
            self.waiting
                .lock()
                .expect("not poisoned")
                .insert(own.to_string(), (Waiter::Stream(sender), client_id));
            let _ = self.events.send(Event::Client(line));
            return events(receiver);
        }
        let (reply, answer) = oneshot::channel();
        self.waiting
            .lock()
            .expect("not poisoned")
            .insert(own.to_string(), (Waiter::Reply(reply), client_id));
        let _ = self.events.send(Event::Client(line));
        match answer.await {
            Ok(line) => Response::builder()
                .status(StatusCode::OK)
                .header(header::CONTENT_TYPE, "application/json")
                .body(Full::new(Bytes::from(line)).boxed())
                .expect("a valid response"),
            Err(_) => rpc_error(
                StatusCode::SERVICE_UNAVAILABLE,
                -32603,
                "the dev session ended before the server answered",
            ),
        }
    }
}

impl Shared {
    /// A `notifications/cancelled` names the client's id of its request: the relay knows
    /// it by the front's. (With two requests of one id in flight, the latest is meant.)
    fn translate_cancellation(&self, mut message: Value) -> Value {
        if message["method"] == "notifications/cancelled"
            && let Some(client_id) = message["params"].get("requestId").cloned()
        {
            let waiting = self.waiting.lock().expect("not poisoned");
            let own = waiting
                .iter()
                .filter(|(_, (_, id))| *id == client_id)
                .map(|(own, _)| own.clone())
                .max_by_key(|own| {
                    own.trim_matches('"')
                        .trim_start_matches("dev-")
                        .parse::<u64>()
                        .unwrap_or(0)
                });
            if let Some(own) = own.and_then(|own| serde_json::from_str::<Value>(&own).ok()) {
                message["params"]["requestId"] = own;
            }
        }
        message
    }
}

/// Whether `origin` is a page of this machine: `http(s)://localhost`, `127.0.0.1` or
/// `[::1]`, any port.
fn is_loopback_origin(origin: &str) -> bool {
    let Some(rest) = origin
        .strip_prefix("http://")
        .or_else(|| origin.strip_prefix("https://"))
    else {
        return false;
    };
    let host = match rest.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or(""),
        None => rest.split(':').next().unwrap_or(""),
    };
    matches!(host, "localhost" | "127.0.0.1" | "::1")
}

/// An event stream of `data:` events, one per line from `receiver`.
fn events(receiver: mpsc::Receiver<String>) -> Response<Body> {
    events_holding(receiver, None)
}

/// [`events`], holding `open` (the GET stream's flag) until the stream's body is dropped.
fn events_holding(receiver: mpsc::Receiver<String>, open: Option<OpenGet>) -> Response<Body> {
    let frames = futures::stream::unfold((receiver, open), |(mut receiver, open)| async move {
        let line = receiver.recv().await?;
        let frame = Frame::data(Bytes::from(format!("event: message\ndata: {line}\n\n")));
        Some((Ok::<_, Infallible>(frame), (receiver, open)))
    });
    Response::builder()
        .status(StatusCode::OK)
        .header(header::CONTENT_TYPE, "text/event-stream")
        .header(header::CACHE_CONTROL, "no-cache")
        .body(StreamBody::new(frames).boxed())
        .expect("a valid response")
}

fn plain(status: StatusCode, text: &'static str) -> Response<Body> {
    Response::builder()
        .status(status)
        .header(header::CONTENT_TYPE, "text/plain; charset=utf-8")
        .body(Full::new(Bytes::from_static(text.as_bytes())).boxed())
        .expect("a valid response")
}

fn empty(status: StatusCode) -> Response<Body> {
    Response::builder()
        .status(status)
        .body(Full::new(Bytes::new()).boxed())
        .expect("a valid response")
}

/// A JSON-RPC error without an id (the request could not be read), with an HTTP status.
fn rpc_error(status: StatusCode, code: i64, message: &str) -> Response<Body> {
    let body = json!({"jsonrpc": "2.0", "id": null, "error": {"code": code, "message": message}});
    Response::builder()
        .status(status)
        .header(header::CONTENT_TYPE, "application/json")
        .body(Full::new(Bytes::from(body.to_string())).boxed())
        .expect("a valid response")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_loopback_pages_may_connect() {
        for origin in [
            "http://localhost",
            "http://localhost:6274",
            "http://127.0.0.1:3000",
            "https://[::1]:8443",
        ] {
            assert!(is_loopback_origin(origin), "{origin}");
        }
        for origin in [
            "http://evil.example",
            "http://localhost.evil.example",
            "http://127.0.0.1.nip.io",
            "null",
            "file://",
        ] {
            assert!(!is_loopback_origin(origin), "{origin}");
        }
    }

    fn shared() -> (Shared, mpsc::UnboundedReceiver<Event>) {
        let (events, inbox) = mpsc::unbounded_channel();
        (Shared::new(events, "t0ken"), inbox)
    }

    #[test]
    fn only_loopback_hosts_are_answered() {
        for host in [
            "localhost",
            "localhost:8000",
            "127.0.0.1:3000",
            "[::1]:8443",
            "[::1]",
        ] {
            assert!(is_loopback_host(host), "{host}");
        }
        for host in [
            "evil.example",
            "evil.example:80",
            "127.0.0.1.nip.io",
            "localhost.evil",
            "",
        ] {
            assert!(!is_loopback_host(host), "{host}");
        }
    }

    #[tokio::test]
    async fn answers_go_to_their_request_and_the_rest_to_the_newest_stream() {
        let (shared, _inbox) = shared();
        let (reply, answer) = oneshot::channel();
        shared
            .waiting
            .lock()
            .unwrap()
            .insert("7".into(), (Waiter::Reply(reply), json!(7)));
        // Nothing is open yet: this waits in the backlog.
        shared.deliver(r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#.into());
        shared.deliver(r#"{"jsonrpc":"2.0","id":7,"result":{}}"#.into());
        let answer: Value = serde_json::from_str(&answer.await.unwrap()).unwrap();
        assert_eq!(answer, json!({"jsonrpc": "2.0", "id": 7, "result": {}}));

        let (_old, mut old) = shared.open_stream();
        assert!(
            old.recv().await.unwrap().contains("list_changed"),
            "the backlog"
        );
        let (newest, mut new) = shared.open_stream();
        shared.deliver(r#"{"jsonrpc":"2.0","id":"s1","method":"roots/list"}"#.into());
        assert!(new.recv().await.unwrap().contains("roots/list"));
        assert!(old.try_recv().is_err(), "only the newest stream gets it");

        // A closed newest stream is dropped, and the next one takes over.
        drop(new);
        drop(newest);
        shared.deliver(r#"{"jsonrpc":"2.0","method":"notifications/message"}"#.into());
        assert!(old.recv().await.unwrap().contains("notifications/message"));
    }
}
