//! Building responses: JSON-RPC messages as JSON bodies, errors with their status, and the
//! SSE streams of per-request answers and session streams.

use crate::protocol::jsonrpc::encode_error;
use crate::protocol::{McpError, RequestId};
use crate::transport::Disposition;
use axum::body::Body;
use axum::response::IntoResponse as _;
use axum::response::sse::{Event, KeepAlive, Sse};
use futures::Stream;
use http::header::{ALLOW, CONTENT_TYPE, RETRY_AFTER};
use http::{HeaderName, HeaderValue, Response, StatusCode};
use std::convert::Infallible;
use std::time::Duration;

/// `X-Accel-Buffering: no` tells nginx (and proxies that copy it) not to buffer a stream.
static X_ACCEL_BUFFERING: HeaderName = HeaderName::from_static("x-accel-buffering");

/// The HTTP status of a dispatched answer.
pub(crate) fn status_of(disposition: &Disposition) -> StatusCode {
    match disposition {
        Disposition::Answered => StatusCode::OK,
        Disposition::Invalid => StatusCode::BAD_REQUEST,
        Disposition::NotFound => StatusCode::NOT_FOUND,
        Disposition::Forbidden { .. } => StatusCode::FORBIDDEN,
    }
}

/// A JSON body (one serialized JSON-RPC message).
pub(crate) fn json(status: StatusCode, body: Vec<u8>) -> Response<Body> {
    let mut resp = Response::new(Body::from(body));
    *resp.status_mut() = status;
    resp.headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    resp
}

/// A JSON-RPC error response with its status. `id` is `null` when the request's id is
/// unknown (the body was not read, or could not be decoded).
pub(crate) fn error(
    status: StatusCode,
    id: Option<&RequestId>,
    error: &McpError,
) -> Response<Body> {
    let mut resp = json(status, encode_error(id, error));
    // Kept for the refusal's span (`traced::Watch`).
    if crate::telemetry::enabled() {
        resp.extensions_mut().insert(super::traced::Refused {
            code: error.code.0,
            message: error.message.clone(),
        });
    }
    resp
}

/// A request refused by the transport, before or instead of the dispatcher.
#[derive(Debug)]
pub(crate) struct Refusal {
    pub(crate) status: StatusCode,
    pub(crate) text: String,
}

impl Refusal {
    pub(crate) fn new(status: StatusCode, text: impl Into<String>) -> Self {
        Self {
            status,
            text: text.into(),
        }
    }

    pub(crate) fn into_response(self) -> Response<Body> {
        message(self.status, &self.text)
    }
}

/// A transport-level refusal (before any JSON-RPC message was read): a JSON-RPC error with
/// id `null` and code `-32600`, so clients that show the body show the reason.
pub(crate) fn message(status: StatusCode, text: &str) -> Response<Body> {
    let reason = status.canonical_reason().unwrap_or("Error");
    error(
        status,
        None,
        &McpError::invalid_request(format!("{reason}: {text}")),
    )
}

/// 405 with the methods the endpoint takes.
pub(crate) fn method_not_allowed(allow: &'static str) -> Response<Body> {
    let mut resp = message(
        StatusCode::METHOD_NOT_ALLOWED,
        &format!("this endpoint takes {allow}"),
    );
    resp.headers_mut()
        .insert(ALLOW, HeaderValue::from_static(allow));
    resp
}

/// 503 with `Retry-After`.
pub(crate) fn unavailable(text: &str) -> Response<Body> {
    let mut resp = message(StatusCode::SERVICE_UNAVAILABLE, text);
    resp.headers_mut()
        .insert(RETRY_AFTER, HeaderValue::from_static("1"));
    resp
}

/// 429 with `Retry-After`: the caller holds as many requests as it may.
pub(crate) fn too_many(text: &str) -> Response<Body> {
    let mut resp = message(StatusCode::TOO_MANY_REQUESTS, text);
    resp.headers_mut()
        .insert(RETRY_AFTER, HeaderValue::from_static("1"));
    resp
}

/// 429 for a caller over its request rate, with `Retry-After` in whole seconds (at least 1).
pub(crate) fn rate_limited(wait: std::time::Duration) -> Response<Body> {
    let secs = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
    let mut resp = message(
        StatusCode::TOO_MANY_REQUESTS,
        &format!("this caller sends requests faster than the server allows; retry in {secs} s"),
    );
    if let Ok(value) = HeaderValue::from_str(&secs.max(1).to_string()) {
        resp.headers_mut().insert(RETRY_AFTER, value);
    }
    resp
}

/// The largest piece of a body handed to hyper at once. Hyper takes a body's frames as
/// long as its write buffer has room and drops the body after the last one, so a body of
/// one big frame would be "done" (and its guard released) before most of it was written;
/// in pieces, the guard lives until all but the last few hundred KiB have reached the
/// socket.
const PIECE: usize = 64 * 1024;

pin_project_lite::pin_project! {
    /// A body that keeps `guard` until it has been written out (or dropped), handed to
    /// hyper in pieces of at most [`PIECE`] bytes.
    struct Holding<G> {
        #[pin]
        inner: Body,
        rest: bytes::Bytes,
        guard: G,
    }
}

impl<G> http_body::Body for Holding<G> {
    type Data = bytes::Bytes;
    type Error = axum::Error;

    fn poll_frame(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<http_body::Frame<Self::Data>, Self::Error>>> {
        use std::task::Poll;
        let this = self.project();
        if this.rest.is_empty() {
            match this.inner.poll_frame(cx) {
                Poll::Ready(Some(Ok(frame))) => match frame.into_data() {
                    Ok(data) => *this.rest = data,
                    Err(frame) => return Poll::Ready(Some(Ok(frame))),
                },
                other => return other,
            }
        }
        let piece = this.rest.split_to(this.rest.len().min(PIECE));
        Poll::Ready(Some(Ok(http_body::Frame::data(piece))))
    }

    fn is_end_stream(&self) -> bool {
        self.rest.is_empty() && self.inner.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        let mut hint = self.inner.size_hint();
        let rest = self.rest.len() as u64;
        hint.set_lower(hint.lower() + rest);
        if let Some(upper) = hint.upper() {
            hint.set_upper(upper + rest);
        }
        hint
    }
}

/// `resp`, holding `guard` (a concurrency permit, a caller's slot) until its body has been
/// written out, not merely produced: a slow reader keeps counting against the caps.
pub(crate) fn holding<G: Send + 'static>(resp: Response<Body>, guard: G) -> Response<Body> {
    resp.map(|inner| {
        Body::new(Holding {
            inner,
            rest: bytes::Bytes::new(),
            guard,
        })
    })
}

/// 202 Accepted, no body (a notification or a client's response was taken).
pub(crate) fn accepted() -> Response<Body> {
    let mut resp = Response::new(Body::empty());
    *resp.status_mut() = StatusCode::ACCEPTED;
    resp
}

/// An SSE response: one event per serialized message, keep-alive comments while quiet,
/// and `X-Accel-Buffering: no`.
pub(crate) fn sse<S>(messages: S, keep_alive: Duration) -> Response<Body>
where
    S: Stream<Item = Vec<u8>> + Send + 'static,
{
    use futures::StreamExt as _;
    sse_events(messages.map(event), keep_alive)
}

/// The SSE response of `events`, keep-alives and headers added.
fn sse_events<S>(events: S, keep_alive: Duration) -> Response<Body>
where
    S: Stream<Item = Event> + Send + 'static,
{
    use futures::StreamExt as _;
    // Counted as an open stream (telemetry) for as long as the body lives.
    let open = crate::telemetry::OpenStream::start();
    let events = events.map(move |event| {
        let _ = &open;
        Ok::<_, Infallible>(event)
    });
    let mut resp = Sse::new(events)
        .keep_alive(KeepAlive::new().interval(keep_alive).text("keep-alive"))
        .into_response();
    resp.headers_mut()
        .insert(&X_ACCEL_BUFFERING, HeaderValue::from_static("no"));
    resp
}

/// A stream of messages with event ids (a resumable stream), as an SSE response.
pub(crate) fn sse_with_ids<S>(messages: S, keep_alive: Duration) -> Response<Body>
where
    S: Stream<Item = (Option<String>, Vec<u8>)> + Send + 'static,
{
    use futures::StreamExt as _;
    let events = messages.map(|(id, line)| {
        let event = event(line);
        match id {
            Some(id) => event.id(id),
            None => event,
        }
    });
    sse_events(events, keep_alive)
}

/// One message as an SSE event (`data: {json}`).
fn event(mut line: Vec<u8>) -> Event {
    while line.last() == Some(&b'\n') {
        line.pop();
    }
    // Serialized JSON is UTF-8 and, with its newline gone, a single line.
    let text = String::from_utf8(line)
        .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
    Event::default().data(text)
}
