//! The span of a request the dispatcher answers itself: at once (`tools/list`, the
//! handshake, ...) or refused before the pipeline (see the module documentation).

use super::{Carrier, INSTRUMENTS, SPAN_TARGET};
use crate::protocol::meta::TraceContext;
use opentelemetry::KeyValue;
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

/// The span and duration of a request answered at once by the dispatcher (not through the
/// pipeline): `tools/list`, `initialize`, `ping`, ...
pub(crate) struct Immediate {
    span: tracing::span::EnteredSpan,
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
    let meta = immediate_meta(params);
    let version = meta.as_ref().and_then(|m| m.version.as_deref()).or(session);
    let span = tracing::info_span!(
        target: SPAN_TARGET,
        "mcp_request",
        otel.name = method,
        otel.kind = "server",
        otel.status_code = tracing::field::Empty,
        "mcp.method.name" = method,
        "jsonrpc.request.id" = %PlainId(id),
        "mcp.protocol.version" = version,
        "error.type" = tracing::field::Empty,
    );
    if !span.is_disabled() {
        let keys = meta
            .map(|k| TraceContext::new(k.traceparent, k.tracestate, k.baggage))
            .unwrap_or_default();
        let trace = keys.or(outside());
        if !trace.is_empty() {
            let parent = opentelemetry::global::get_text_map_propagator(|propagator| {
                propagator.extract(&Carrier(&trace))
            });
            let _ = span.set_parent(parent);
        }
    }
    Some(Immediate {
        span: span.entered(),
        start: Instant::now(),
        method,
    })
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

impl Immediate {
    /// Counts the request's duration from `start` (a request whose span is made once it was
    /// refused: its duration is the refusal's).
    pub(crate) fn since(mut self, start: Instant) -> Self {
        self.start = start;
        self
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
        let Some(instruments) = INSTRUMENTS.get() else {
            return;
        };
        let mut attributes = vec![KeyValue::new("mcp.method.name", self.method)];
        if let Some(code) = error {
            let code = code.to_string();
            self.span.record("error.type", code.as_str());
            self.span.record("otel.status_code", "ERROR");
            attributes.push(KeyValue::new("error.type", code));
        }
        instruments
            .duration
            .record(self.start.elapsed().as_secs_f64(), &attributes);
        instruments.requests.add(
            1,
            &[
                KeyValue::new("mcp.method.name", self.method),
                KeyValue::new(
                    "outcome",
                    if error.is_some() {
                        "protocol_error"
                    } else {
                        "ok"
                    },
                ),
            ],
        );
    }
}
