//! The span of a request the dispatcher answers itself: at once (`tools/list`, the
//! handshake, ...) or refused before the pipeline (see the module documentation).

use super::{Carrier, ErrorType, INSTRUMENTS, SPAN_TARGET, Series};
use crate::protocol::meta::TraceContext;
use std::time::Instant;
use tracing_opentelemetry::OpenTelemetrySpanExt as _;

/// A request id as the conventions record it: a number as digits, a string as itself (the
/// id's `Display`, for logs, quotes strings).
pub(super) struct PlainId<'a>(pub(super) &'a crate::protocol::RequestId);

impl std::fmt::Display for PlainId<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            crate::protocol::RequestId::Number(n) => write!(f, "{n}"),
            crate::protocol::RequestId::String(s) => f.write_str(s),
        }
    }
}

/// The span and duration of a request the dispatcher answers itself (not through the
/// pipeline): at once (`tools/list`, `initialize`, `ping`, ...), later (a task read from a
/// shared store, a completion handler that waits, a `subscriptions/listen` stream, ended
/// when its answer is delivered), or refused before any handler ran. Not entered: the
/// dispatcher enters it while a handler runs; it may be finished on another thread.
pub(crate) struct Immediate {
    span: tracing::Span,
    start: Instant,
    method: &'static str,
}

/// Starts [`Immediate`] telemetry for `method`, when telemetry is on.
/// `params` (the request's, unparsed) and `outside` (the transport's headers) give the
/// client's trace context, `_meta`'s values first, as for the pipeline's requests; the
/// protocol version is `_meta`'s (a modern request), else `session`'s (the version a legacy
/// connection negotiated), absent before `initialize`.
pub(crate) fn start_immediate(
    method: &'static str,
    id: &crate::protocol::RequestId,
    params: Option<&serde_json::value::RawValue>,
    session: Option<&str>,
    outside: impl FnOnce() -> Option<TraceContext>,
) -> Option<Immediate> {
    INSTRUMENTS.get()?;
    let (inside, version) = match immediate_meta(params) {
        Some(m) => (
            TraceContext::new(m.traceparent, m.tracestate, m.baggage),
            m.version,
        ),
        None => (TraceContext::default(), None),
    };
    let version = version.as_deref().or(session);
    Some(immediate(method, Some(id), version, || {
        Some(inside.or(outside()))
    }))
}

/// The span of `method` (known to be on), parented by `trace`'s context.
fn immediate(
    method: &'static str,
    id: Option<&crate::protocol::RequestId>,
    version: Option<&str>,
    trace: impl FnOnce() -> Option<TraceContext>,
) -> Immediate {
    let span = tracing::info_span!(
        target: SPAN_TARGET,
        "mcp_request",
        otel.name = method,
        otel.kind = "server",
        otel.status_code = tracing::field::Empty,
        otel.status_description = tracing::field::Empty,
        "mcp.method.name" = method,
        "jsonrpc.request.id" = id.map(|id| tracing::field::display(PlainId(id))),
        "mcp.protocol.version" = version,
        "http.response.status_code" = tracing::field::Empty,
        "error.type" = tracing::field::Empty,
    );
    if !span.is_disabled()
        && let Some(trace) = trace()
        && !trace.is_empty()
    {
        let parent = opentelemetry::global::get_text_map_propagator(|propagator| {
            propagator.extract(&Carrier(&trace))
        });
        let _ = span.set_parent(parent);
    }
    Immediate {
        span,
        start: Instant::now(),
        method,
    }
}

/// What a request the dispatcher answers itself carries in `_meta` for telemetry (read only
/// when telemetry is on).
#[derive(serde::Deserialize)]
struct ImmediateMeta {
    traceparent: Option<String>,
    tracestate: Option<String>,
    baggage: Option<String>,
    #[serde(rename = "io.modelcontextprotocol/protocolVersion")]
    version: Option<String>,
}

/// The `method` a JSON-RPC message names, if any (read only for the span of a message
/// that could not be decoded as a whole).
pub(crate) fn method_of(message: &[u8]) -> std::borrow::Cow<'_, str> {
    #[derive(serde::Deserialize)]
    struct Named<'a> {
        #[serde(borrow)]
        method: Option<std::borrow::Cow<'a, str>>,
    }
    serde_json::from_slice::<Named<'_>>(message)
        .ok()
        .and_then(|n| n.method)
        .unwrap_or_default()
}

fn immediate_meta(params: Option<&serde_json::value::RawValue>) -> Option<ImmediateMeta> {
    #[derive(serde::Deserialize)]
    struct Params {
        #[serde(rename = "_meta")]
        meta: Option<ImmediateMeta>,
    }
    params
        .and_then(|p| serde_json::from_str::<Params>(p.get()).ok())
        .and_then(|p| p.meta)
}

thread_local! {
    /// The span of a request whose handler may answer later without the pipeline, while
    /// the handler runs on this thread: what spawns the answer's task takes it along
    /// ([`take_deferred`]), to end it when the answer is delivered.
    static DEFERRED: std::cell::RefCell<Option<Immediate>> = const { std::cell::RefCell::new(None) };
}

/// Puts `span` where a handler that answers later finds it ([`take_deferred`]).
pub(crate) fn defer(span: Immediate) {
    DEFERRED.with(|d| *d.borrow_mut() = Some(span));
}

/// The span [`defer`]red on this thread, if it was not taken yet.
pub(crate) fn take_deferred() -> Option<Immediate> {
    DEFERRED.with(|d| d.borrow_mut().take())
}

/// A request the HTTP transport refuses before any dispatcher sees it (its `Origin`, its
/// token, its media type, a limit, a body that does not decode): its span, made only if it
/// is refused, from what the transport knows by then. The method is the `Mcp-Method`
/// header's (every 2026-07-28 request carries it) until the body is read and decoded;
/// a refused request's body is not read for its span (reading it is the cost a refusal
/// spares the server). `_OTHER` when neither names a method the server knows.
#[cfg(feature = "http")]
pub(crate) struct Unrouted {
    start: Instant,
    method: &'static str,
    version: Option<&'static str>,
    id: Option<crate::protocol::RequestId>,
    trace: Option<TraceContext>,
}

#[cfg(feature = "http")]
impl Unrouted {
    /// Starts watching a POST, when telemetry is on: `method` as its headers name it,
    /// `version` their protocol version (one this server knows), `trace` their context.
    pub(crate) fn begin(
        method: &'static str,
        version: Option<&'static str>,
        trace: impl FnOnce() -> Option<TraceContext>,
    ) -> Option<Self> {
        INSTRUMENTS.get()?;
        Some(Self {
            start: Instant::now(),
            method,
            version,
            id: None,
            trace: trace(),
        })
    }

    /// What the body said, once decoded: the request's id and method.
    pub(crate) fn read(&mut self, id: Option<crate::protocol::RequestId>, method: &'static str) {
        self.id = id;
        self.method = method;
    }

    /// The span of the refusal: HTTP `status`, JSON-RPC `code` and `message` (the
    /// transport's own words, which name no argument).
    pub(crate) fn finish(self, status: u16, code: i32, message: &str) {
        let trace = self.trace;
        let mut span = immediate(self.method, self.id.as_ref(), self.version, || trace);
        span.span.record("http.response.status_code", status);
        span.since(self.start);
        span.end(Some(ErrorType::Code(code)), "protocol_error", Some(message));
    }
}

impl Immediate {
    /// The span, to enter while the request's handler runs.
    pub(crate) fn span(&self) -> &tracing::Span {
        &self.span
    }

    /// Counts the request's duration from `start` (a request whose span is made once it was
    /// refused: its duration is the refusal's).
    pub(crate) fn since(&mut self, start: Instant) {
        self.start = start;
    }

    /// Ends the span with the answer `line`: a JSON-RPC error's code, or a success.
    pub(crate) fn finish_with(self, line: &[u8]) {
        #[derive(serde::Deserialize)]
        struct Answer {
            error: Option<Code>,
        }
        #[derive(serde::Deserialize)]
        struct Code {
            code: i32,
        }
        let code = serde_json::from_slice::<Answer>(line)
            .ok()
            .and_then(|a| a.error)
            .map(|e| e.code);
        self.finish(code);
    }

    /// Ends the span; `error` is the JSON-RPC code of a failure.
    pub(crate) fn finish(self, error: Option<i32>) {
        match error {
            Some(code) => self.end(Some(ErrorType::Code(code)), "protocol_error", None),
            None => self.end(None, "ok", None),
        }
    }

    /// Ends the span of a request dropped unanswered (its client cancelled it, or the
    /// connection ended).
    pub(crate) fn cancelled(self) {
        self.end(Some(ErrorType::Word("cancelled")), "cancelled", None);
    }

    /// Ends the span: `error` its `error.type`, `outcome` the requests counter's, and
    /// `description` the status's (only words of the server's own: a JSON-RPC error's
    /// message may quote what the request carried, an argument or a resource URI, and is
    /// not recorded).
    fn end(self, error: Option<ErrorType>, outcome: &'static str, description: Option<&str>) {
        if let Some(error) = error {
            self.span
                .record("error.type", error.value().as_str().as_ref());
            self.span.record("otel.status_code", "ERROR");
            if let Some(description) = description {
                self.span.record("otel.status_description", description);
            }
        }
        Series {
            method: self.method,
            name: None,
            version: None,
            transport: None,
            error,
            outcome,
        }
        .record(self.start.elapsed().as_secs_f64());
    }
}
