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
//! - **Local only.** The default address is the loopback one, and a request whose `Origin`
//!   is not a loopback page is refused with `403` (DNS rebinding: a web page must not reach
//!   a development server). Bodies are capped at [`MAX_BODY`].
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

/// The path of the endpoint.
pub const PATH: &str = "/mcp";

/// The largest request body taken.
pub const MAX_BODY: usize = 4 << 20;

/// How many unasked messages wait for a stream to open before the oldest are dropped.
pub const BACKLOG: usize = 1024;

type Body = BoxBody<Bytes, Infallible>;

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
    /// Requests in flight, by their id as JSON text.
    waiting: Mutex<HashMap<String, Waiter>>,
    streams: Mutex<Streams>,
}

/// The HTTP front of a dev session, bound and ready to serve.
#[derive(Debug)]
pub struct Front {
    listener: TcpListener,
    shared: Arc<Shared>,
}

impl Front {
    /// Binds `address`; client lines are sent to `events`.
    pub async fn bind(address: SocketAddr, events: mpsc::UnboundedSender<Event>) -> Result<Self> {
        let listener = TcpListener::bind(address)
            .await
            .with_context(|| format!("cannot listen on {address}"))?;
        Ok(Front {
            listener,
            shared: Arc::new(Shared {
                events,
                waiting: Mutex::new(HashMap::new()),
                streams: Mutex::new(Streams::default()),
            }),
        })
    }

    /// The endpoint's URL.
    pub fn url(&self) -> Result<String> {
        let address = self.listener.local_addr().context("no local address")?;
        Ok(format!("http://{address}{PATH}"))
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
        let shared = Arc::clone(&shared);
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |request| {
                let shared = Arc::clone(&shared);
                async move { Ok::<_, Infallible>(shared.handle(request).await) }
            });
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}

impl Shared {
    /// Routes one line from the relay: an answer to its waiting request, anything else to
    /// the newest open stream (or the backlog).
    fn deliver(&self, line: String) {
        let message: Option<Value> = serde_json::from_str(&line).ok();
        let is_response = message
            .as_ref()
            .is_some_and(|m| m.get("method").is_none() && m.get("id").is_some());
        if is_response {
            let id = message
                .as_ref()
                .map(|m| m["id"].to_string())
                .unwrap_or_default();
            let waiter = self.waiting.lock().expect("not poisoned").remove(&id);
            match waiter {
                Some(Waiter::Reply(reply)) => {
                    let _ = reply.send(line);
                    return;
                }
                Some(Waiter::Stream(stream)) if stream.try_send(line.clone()).is_ok() => return,
                // An answer nobody waits for (its POST or stream went away): the open
                // streams may want it.
                Some(Waiter::Stream(_)) | None => {}
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
        if request.uri().path() != PATH {
            return plain(StatusCode::NOT_FOUND, "the MCP endpoint is /mcp");
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
                let (_, receiver) = self.open_stream();
                events(receiver)
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
        // One line for the relay, whatever the body's layout.
        let line = message.to_string();
        let (Some(id), Some(method)) = (object.get("id"), object.get("method")) else {
            let _ = self.events.send(Event::Client(line));
            return empty(StatusCode::ACCEPTED);
        };
        let id = id.to_string();
        if method == "subscriptions/listen" {
            let (sender, receiver) = self.open_stream();
            self.waiting
                .lock()
                .expect("not poisoned")
                .insert(id, Waiter::Stream(sender));
            let _ = self.events.send(Event::Client(line));
            return events(receiver);
        }
        let (reply, answer) = oneshot::channel();
        self.waiting
            .lock()
            .expect("not poisoned")
            .insert(id, Waiter::Reply(reply));
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
    let frames = futures::stream::unfold(receiver, |mut receiver| async move {
        let line = receiver.recv().await?;
        let frame = Frame::data(Bytes::from(format!("event: message\ndata: {line}\n\n")));
        Some((Ok::<_, Infallible>(frame), receiver))
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
        let shared = Shared {
            events,
            waiting: Mutex::new(HashMap::new()),
            streams: Mutex::new(Streams::default()),
        };
        (shared, inbox)
    }

    #[tokio::test]
    async fn answers_go_to_their_request_and_the_rest_to_the_newest_stream() {
        let (shared, _inbox) = shared();
        let (reply, answer) = oneshot::channel();
        shared
            .waiting
            .lock()
            .unwrap()
            .insert("7".into(), Waiter::Reply(reply));
        // Nothing is open yet: this waits in the backlog.
        shared.deliver(r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#.into());
        shared.deliver(r#"{"jsonrpc":"2.0","id":7,"result":{}}"#.into());
        assert_eq!(
            answer.await.unwrap(),
            r#"{"jsonrpc":"2.0","id":7,"result":{}}"#
        );

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
