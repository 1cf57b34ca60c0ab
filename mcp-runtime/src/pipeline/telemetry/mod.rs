//! OpenTelemetry for every request (the `otel` feature): a span by the semantic conventions
//! for MCP, joined to the client's trace, and the metrics a dashboard needs.
//!
//! Nothing here runs until [`enable`] is called (the launcher's `init_tracing` calls it when
//! the standard `OTEL_*` environment asks for an exporter): until then a request pays one
//! check of a `OnceLock`.
//!
//! **Spans.** The [`Audit`](super::Audit) layer's span, on target [`SPAN_TARGET`], named
//! `{mcp.method.name} {target}` (`tools/call get_weather`), kind server, with
//! `mcp.method.name`, `gen_ai.tool.name` and `gen_ai.operation.name = "execute_tool"` (tool
//! calls), `gen_ai.prompt.name` (prompts), `mcp.resource.uri` (reads: the URI template a read
//! matched, not the URI filled with the caller's values, unless
//! [`TelemetryOptions::record_resource_uri`]), `jsonrpc.request.id`,
//! `mcp.protocol.version`, `mcp.session.id` (a legacy session as a 12-hex-digit tag of its
//! SHA-256, never the session id, which is a credential), `network.transport` (`tcp` or
//! `pipe`), and at the end `error.type`: `tool_error` for an `isError` result, a refusal's
//! kind (`rate_limited`, `timeout`, ...), the JSON-RPC code of a protocol error, `cancelled`.
//! The caller's identity is recorded (`enduser.id`) only with [`TelemetryOptions::record_caller`].
//! Arguments and results are never recorded. The parent is the trace context the request
//! carried (`_meta`'s `traceparent`/`tracestate`/`baggage`, or the HTTP headers); the
//! requests the server sends its client while serving it (elicitation, sampling, roots on
//! 2025 sessions) carry the span's own context in their `_meta`.
//!
//! **Requests the dispatcher answers itself**, at once (`initialize`, `tools/list`, `ping`,
//! ...) or later (a completion handler that waits, a task read from a shared store, a
//! `subscriptions/listen` stream, whose span lasts until its answer is delivered or its
//! client closes it), **or refuses before the pipeline** (an unknown tool, prompt or
//! resource, a method of the other era, malformed params, an unknown method, a message
//! that names its id but cannot be read as a request): a span `{mcp.method.name}`
//! (`_OTHER` for a method the server does not know, whose name is the client's to choose)
//! with the method, the request id, `mcp.protocol.version` (the request's on the modern
//! leg, the session's once negotiated) and `error.type` (the JSON-RPC code), parented by
//! the trace context the request carried, and the same metrics. **A POST the HTTP
//! transport refuses** before any dispatcher sees it (its `Origin` or `Host`, its token,
//! its media type, a limit, a body that does not decode) gets one too, named by its
//! `Mcp-Method` header (every 2026-07-28 request carries one) or, once the body was read,
//! by the body; `_OTHER` when neither says (a refused body is not read for a span), with
//! `http.response.status_code` and the refusal's reason as the status description. So
//! every request gets exactly one server span. `error.type` follows the conventions: the
//! JSON-RPC code as a string when an error is answered, `tool_error` when the result has
//! `isError: true` (a tool call's refusals, invalid arguments among them, are answered
//! so), and the span's status is ERROR exactly then. The status description is set only
//! from the transport's own words: a JSON-RPC error's message can quote what the request
//! carried (a resource URI, an argument in a validation message), which is never exported.
//!
//! **Children and events** (at `DEBUG` on the same target, so free unless asked for:
//! `RUST_LOG=warn,mcp::audit=info,mcp::request=debug` with `launch::init_tracing`, which
//! otherwise exports the request spans alone): `validate arguments`, `tool` (the tool's
//! body), `ask client` (a question to the client: elicitation, sampling, roots), `file
//! operation` (each `FileService` operation), and the events `progress` (each progress
//! report) and `cancelled` (a request dropped unanswered). A tool call then exports three
//! spans instead of one, which costs 1.8 times as much (`OTEL=1 bench/compare.sh`): why
//! they are not on by default.
//!
//! **Export.** OTLP/HTTP protobuf (the default protocol) goes through this crate's own
//! span exporter, which writes each batch's protobuf straight from the SDK's span data
//! (`otlp_proto`, `otlp_spans`): opentelemetry-otlp's conversion cost more than a whole
//! `tools/call` per span. JSON, gRPC and compressed exports use opentelemetry-otlp's.
//!
//! **Metrics.** `mcp.server.operation.duration` (histogram, seconds; `mcp.method.name`,
//! `gen_ai.tool.name` or `gen_ai.prompt.name`, `error.type`, `mcp.protocol.version`,
//! `network.transport`), `mcp.server.requests` (counter; method and `outcome`) and
//! `mcp.server.refusals` (counter; the refusal's kind: rate limits, busy, timeouts),
//! `mcp.server.session.duration` (histogram, seconds) and `mcp.server.active_sessions`
//! (up-down counter) for 2025 sessions, from `initialize` to the connection's end;
//! `mcp.server.tasks` (counter; `mcp.task.status`: `created`, `completed`, `failed`,
//! `cancelled`) and `mcp.server.active_tasks` (up-down counter) for tasks this instance runs
//! (`gen_ai.tool.name` on both); `mcp.server.active_streams` (up-down counter) for the HTTP
//! transport's event streams (a GET stream, a streamed answer) while they are open. Names
//! come from the server's registry (a request that reaches this layer names a registered
//! tool or prompt), resource URIs are never metric attributes: cardinality stays bounded.

use super::Outcome;
use crate::context::RequestContext;
use opentelemetry::KeyValue;
use opentelemetry::metrics::{Counter, Histogram, Meter};
use std::sync::OnceLock;
use std::time::Instant;
use tracing_opentelemetry::OpenTelemetrySpanExt as _;

mod counted;
mod direct;
mod immediate;
mod otlp_http;
mod otlp_proto;
mod otlp_spans;
#[cfg(feature = "http")]
pub(crate) use counted::OpenStream;
pub(crate) use counted::{Session, Task};
use immediate::PlainId;
#[cfg(feature = "http")]
pub(crate) use immediate::Unrouted;
pub(crate) use immediate::{Immediate, defer, method_of, start_immediate, take_deferred};

thread_local! {
    /// Pipeline spans started on this thread: the dispatcher compares the count around a
    /// request it routes to tell whether the request got a span from the pipeline (it ran
    /// there, at least its first step, on this thread) or needs one of its own (refused
    /// before it).
    static PIPELINE_SPANS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// Whether telemetry is on (one check of a `OnceLock`).
pub(crate) fn enabled() -> bool {
    INSTRUMENTS.get().is_some()
}

/// [`PIPELINE_SPANS`] now.
pub(crate) fn pipeline_spans() -> u64 {
    PIPELINE_SPANS.with(std::cell::Cell::get)
}

/// The `tracing` target of the request spans (and of their events).
pub const SPAN_TARGET: &str = super::REQUEST_TARGET;

/// What the request telemetry records beyond the defaults.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct TelemetryOptions {
    /// Records the caller's identity as `enduser.id` on spans (off: identities can be
    /// personal data).
    pub record_caller: bool,
    /// Records a template read's filled URI in the span's name and `mcp.resource.uri` (off:
    /// the URI template is recorded, `notes://{id}`, since the values a caller fills in can
    /// be anything, secrets included, and each distinct URI would be a distinct span name).
    /// Resources read by their exact, registered URI are recorded by it either way.
    pub record_resource_uri: bool,
}

impl TelemetryOptions {
    /// The defaults.
    pub fn new() -> Self {
        Self::default()
    }

    /// Records the caller's identity on spans.
    pub fn record_caller(mut self, on: bool) -> Self {
        self.record_caller = on;
        self
    }

    /// Records template reads' filled URIs on spans ([`record_resource_uri`](Self::record_resource_uri)).
    pub fn record_resource_uri(mut self, on: bool) -> Self {
        self.record_resource_uri = on;
        self
    }
}

pub(crate) struct Instruments {
    duration: Histogram<f64>,
    session_duration: Histogram<f64>,
    active_sessions: opentelemetry::metrics::UpDownCounter<i64>,
    requests: Counter<u64>,
    refusals: Counter<u64>,
    tasks: Counter<u64>,
    active_tasks: opentelemetry::metrics::UpDownCounter<i64>,
    #[cfg_attr(not(feature = "http"), allow(dead_code, reason = "HTTP streams only"))]
    active_streams: opentelemetry::metrics::UpDownCounter<i64>,
    options: TelemetryOptions,
}

static INSTRUMENTS: OnceLock<Instruments> = OnceLock::new();

/// Turns request telemetry on for this process: spans get their semantic-convention names
/// and attributes (a `tracing-opentelemetry` layer turns them into OpenTelemetry spans),
/// metrics go to `meter`, and the W3C trace-context and baggage propagators are installed.
/// The first call wins; later ones change nothing.
pub fn enable(meter: &Meter, options: TelemetryOptions) {
    INSTRUMENTS.get_or_init(|| {
        let _ = crate::context::input::OUTGOING_TRACE.set(outgoing_trace);
        opentelemetry::global::set_text_map_propagator(
            opentelemetry::propagation::TextMapCompositePropagator::new(vec![
                Box::new(opentelemetry_sdk::propagation::TraceContextPropagator::new()),
                Box::new(opentelemetry_sdk::propagation::BaggagePropagator::new()),
            ]),
        );
        Instruments {
            duration: meter
                .f64_histogram("mcp.server.operation.duration")
                .with_unit("s")
                .with_description("Duration of MCP requests as seen by the server")
                .with_boundaries(vec![
                    0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5,
                    10.0, 30.0, 60.0, 120.0, 300.0,
                ])
                .build(),
            session_duration: meter
                .f64_histogram("mcp.server.session.duration")
                .with_unit("s")
                .with_description(
                    "Duration of MCP sessions (2025 handshakes) as seen by the server",
                )
                .with_boundaries(vec![
                    0.1, 1.0, 10.0, 60.0, 300.0, 900.0, 1800.0, 3600.0, 14400.0, 43200.0, 86400.0,
                ])
                .build(),
            active_sessions: meter
                .i64_up_down_counter("mcp.server.active_sessions")
                .with_description("MCP sessions (2025 handshakes) open now")
                .build(),
            requests: meter
                .u64_counter("mcp.server.requests")
                .with_description("MCP requests by method and outcome")
                .build(),
            refusals: meter
                .u64_counter("mcp.server.refusals")
                .with_description("Requests refused by a policy (rate limit, concurrency, timeout)")
                .build(),
            tasks: meter
                .u64_counter("mcp.server.tasks")
                .with_description("Tasks created, and ended by status")
                .build(),
            active_tasks: meter
                .i64_up_down_counter("mcp.server.active_tasks")
                .with_description("Tasks running on this instance now")
                .build(),
            active_streams: meter
                .i64_up_down_counter("mcp.server.active_streams")
                .with_description(
                    "Server-sent event streams open now (GET streams and streamed answers)",
                )
                .build(),
            options,
        }
    });
}

/// Whether [`enable`] was called.
pub fn is_enabled() -> bool {
    INSTRUMENTS.get().is_some()
}

/// One request's telemetry, from its start to its outcome.
#[derive(Debug)]
pub(crate) struct Call {
    start: Instant,
    method: &'static str,
    /// The tool or prompt name for metrics (never a resource URI).
    name: Option<(&'static str, std::sync::Arc<str>)>,
    version: &'static str,
    transport: &'static str,
    /// The request's trace (the audit line leads to it).
    pub(crate) trace_id: Option<opentelemetry::trace::TraceId>,
    span: Traced,
    finished: bool,
}

/// A request's span: a `tracing` one (`tracing-opentelemetry` exports it), or one made by
/// the SDK's tracer itself (see `direct`).
#[derive(Debug)]
enum Traced {
    Tracing(tracing::Span),
    Direct(opentelemetry::Context),
}

impl Call {
    /// Makes the request's OpenTelemetry context the current one until the guard drops
    /// (a span made by the SDK's tracer; a `tracing` span is entered instead).
    pub(crate) fn attach(&self) -> Option<opentelemetry::ContextGuard> {
        match &self.span {
            Traced::Direct(cx) => Some(cx.clone().attach()),
            Traced::Tracing(_) => None,
        }
    }
}

/// The request's span and its telemetry, when [`enable`] was called.
pub(crate) fn start(
    request: &super::McpRequest,
    cx: &RequestContext,
) -> Option<(tracing::Span, Call)> {
    let instruments = INSTRUMENTS.get()?;
    PIPELINE_SPANS.with(|n| n.set(n.get().wrapping_add(1)));
    let method = request.method();
    let target = request.telemetry_target(instruments.options.record_resource_uri);
    let transport = if cx.caller().address().is_some() {
        "tcp"
    } else {
        "pipe"
    };
    // Every attribute is known now and given to the span at its creation: each later
    // `record` is a registry lookup and a lock in `tracing-opentelemetry`.
    let (tool, prompt, uri) = match method {
        "tools/call" => (Some(&**target), None, None),
        "prompts/get" => (None, Some(&**target), None),
        "resources/read" => (None, None, Some(&**target)),
        _ => (None, None, None),
    };
    let name = tool
        .map(|_| ("gen_ai.tool.name", target.clone()))
        .or(prompt.map(|_| ("gen_ai.prompt.name", target.clone())));
    let session = cx.caller().session_tag();
    let caller = if instruments.options.record_caller {
        cx.caller().identity()
    } else {
        None
    };
    let parent = || {
        cx.trace_context().map(|trace| {
            opentelemetry::global::get_text_map_propagator(|propagator| {
                propagator.extract(&Carrier(trace))
            })
        })
    };
    let version = known_version(cx.protocol_version());
    if let Some(tracer) = direct::tracer() {
        use opentelemetry::trace::TraceContextExt as _;
        let otel = direct::start(
            tracer,
            direct::Made {
                method,
                target,
                tool: tool.is_some(),
                prompt: prompt.is_some(),
                uri: uri.is_some(),
                id: PlainId(cx.request_id()).to_string(),
                version,
                session,
                transport,
                caller,
                parent: parent().unwrap_or_default(),
            },
        );
        let id = otel.span().span_context().trace_id();
        return Some((
            tracing::Span::none(),
            Call {
                start: Instant::now(),
                method,
                name,
                version,
                transport,
                trace_id: (id != opentelemetry::trace::TraceId::INVALID).then_some(id),
                span: Traced::Direct(otel),
                finished: false,
            },
        ));
    }
    let otel_name = if target.is_empty() {
        method.to_owned()
    } else {
        let mut name = String::with_capacity(method.len() + 1 + target.len());
        name.push_str(method);
        name.push(' ');
        name.push_str(target);
        name
    };
    let span = tracing::info_span!(
        target: SPAN_TARGET,
        "mcp_request",
        otel.name = otel_name.as_str(),
        otel.kind = "server",
        otel.status_code = tracing::field::Empty,
        "mcp.method.name" = method,
        "gen_ai.operation.name" = tool.map(|_| "execute_tool"),
        "gen_ai.tool.name" = tool,
        "gen_ai.prompt.name" = prompt,
        "mcp.resource.uri" = uri,
        "jsonrpc.request.id" = %PlainId(cx.request_id()),
        "mcp.protocol.version" = cx.protocol_version(),
        "mcp.session.id" = session.as_deref(),
        "network.transport" = transport,
        "enduser.id" = caller,
        "error.type" = tracing::field::Empty,
    );
    if span.is_disabled() {
        return None;
    }
    if let Some(parent) = parent() {
        let _ = span.set_parent(parent);
    }
    let trace_id = {
        use opentelemetry::trace::TraceContextExt as _;
        let id = span.context().span().span_context().trace_id();
        (id != opentelemetry::trace::TraceId::INVALID).then_some(id)
    };
    Some((
        span.clone(),
        Call {
            start: Instant::now(),
            method,
            name,
            version,
            transport,
            trace_id,
            span: Traced::Tracing(span),
            finished: false,
        },
    ))
}

/// `version` as one of the revisions this server speaks (a request that reaches the
/// pipeline speaks one): a `&'static str`, so a metric attribute of it allocates nothing.
fn known_version(version: &str) -> &'static str {
    use crate::protocol::version::{LEGACY_VERSIONS, MODERN_VERSIONS};
    MODERN_VERSIONS
        .iter()
        .chain(LEGACY_VERSIONS)
        .find(|known| **known == version)
        .copied()
        .unwrap_or("_OTHER")
}

/// `id` in lower-case hex, as the W3C trace context writes it.
pub(crate) fn hex_trace_id(id: opentelemetry::trace::TraceId) -> [u8; 32] {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut hex = [0; 32];
    for (i, byte) in id.to_bytes().into_iter().enumerate() {
        hex[2 * i] = DIGITS[usize::from(byte >> 4)];
        hex[2 * i + 1] = DIGITS[usize::from(byte & 0xf)];
    }
    hex
}

/// What went wrong, by the conventions' `error.type`: `tool_error` for a result with
/// `isError: true` (how a tool call's refusals are answered too: invalid arguments, a rate
/// limit, a timeout), the JSON-RPC code as a string when an error is returned (a read's or a
/// prompt's refusal: `-32602` for invalid arguments, else `-32603`), `cancelled` for a
/// request dropped unanswered; `None` for a success. The refusal's own kind is the
/// `mcp.server.refusals` counter's attribute.
fn error_type(method: &str, outcome: Option<&Outcome>) -> Option<String> {
    match outcome {
        None => Some("cancelled".to_owned()),
        Some(Outcome::Tool(r)) if r.is_error() => Some("tool_error".to_owned()),
        Some(Outcome::Refused(_)) if method == "tools/call" => Some("tool_error".to_owned()),
        Some(Outcome::Refused(r)) if r.kind() == "invalid_arguments" => {
            Some(crate::protocol::ErrorCode::INVALID_PARAMS.0.to_string())
        }
        Some(Outcome::Refused(_)) => Some(crate::protocol::ErrorCode::INTERNAL_ERROR.0.to_string()),
        Some(Outcome::Error(e)) => Some(e.code.0.to_string()),
        Some(_) => None,
    }
}

impl Call {
    /// Records the outcome (`None`: the request was dropped unanswered) on the span and in
    /// the metrics.
    pub(crate) fn finish(mut self, outcome: Option<&Outcome>) {
        self.record(outcome);
    }

    fn record(&mut self, outcome: Option<&Outcome>) {
        self.finished = true;
        let Some(instruments) = INSTRUMENTS.get() else {
            return;
        };
        let error = error_type(self.method, outcome);
        match &self.span {
            Traced::Tracing(span) => {
                if outcome.is_none() {
                    span.in_scope(|| tracing::debug!(target: SPAN_TARGET, "cancelled"));
                }
                if let Some(error) = &error {
                    span.record("error.type", error.as_str());
                    span.record("otel.status_code", "ERROR");
                }
            }
            Traced::Direct(cx) => direct::end(cx, error.as_deref()),
        }
        let mut attributes = vec![
            KeyValue::new("mcp.method.name", self.method),
            KeyValue::new("mcp.protocol.version", self.version),
            KeyValue::new("network.transport", self.transport),
        ];
        if let Some((key, name)) = &self.name {
            attributes.push(KeyValue::new(*key, name.clone()));
        }
        if let Some(error) = &error {
            attributes.push(KeyValue::new("error.type", error.clone()));
        }
        instruments
            .duration
            .record(self.start.elapsed().as_secs_f64(), &attributes);
        let outcome_word = match outcome {
            Some(o) => o.audit_outcome(),
            None => "cancelled",
        };
        instruments.requests.add(
            1,
            &[
                KeyValue::new("mcp.method.name", self.method),
                KeyValue::new("outcome", outcome_word),
            ],
        );
        if let Some(Outcome::Refused(r)) = outcome {
            instruments.refusals.add(
                1,
                &[
                    KeyValue::new("mcp.method.name", self.method),
                    KeyValue::new("kind", r.kind()),
                ],
            );
        }
    }
}

impl Drop for Call {
    fn drop(&mut self) {
        if !self.finished {
            self.record(None);
        }
    }
}

/// The current span's trace context as `_meta` fields, for a request to the client.
fn outgoing_trace() -> Vec<(String, String)> {
    use opentelemetry::trace::TraceContextExt as _;
    let cx = tracing::Span::current().context();
    // A request span made by the SDK's tracer is the current OpenTelemetry context instead.
    let cx = if cx.has_active_span() {
        cx
    } else {
        opentelemetry::Context::current()
    };
    let mut fields = std::collections::HashMap::new();
    opentelemetry::global::get_text_map_propagator(|propagator| {
        propagator.inject_context(&cx, &mut fields)
    });
    fields.into_iter().collect()
}

/// A request's trace context as the propagators read it.
struct Carrier<'a>(&'a crate::protocol::meta::TraceContext);

impl opentelemetry::propagation::Extractor for Carrier<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        match key {
            "traceparent" => self.0.traceparent.as_deref(),
            "tracestate" => self.0.tracestate.as_deref(),
            "baggage" => self.0.baggage.as_deref(),
            _ => None,
        }
    }

    fn keys(&self) -> Vec<&str> {
        vec!["traceparent", "tracestate", "baggage"]
    }
}

/// The OpenTelemetry providers a process exports through: flushed and shut down when
/// dropped (the launcher's `LogGuard` keeps them until `main` returns).
pub struct Providers {
    tracer: Option<opentelemetry_sdk::trace::SdkTracerProvider>,
    meter: Option<opentelemetry_sdk::metrics::SdkMeterProvider>,
}

impl std::fmt::Debug for Providers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Providers")
            .field("traces", &self.tracer.is_some())
            .field("metrics", &self.meter.is_some())
            .finish()
    }
}

impl Providers {
    /// The tracer provider, when traces are exported.
    pub fn tracer_provider(&self) -> Option<&opentelemetry_sdk::trace::SdkTracerProvider> {
        self.tracer.as_ref()
    }

    /// The meter provider, when metrics are exported.
    pub fn meter_provider(&self) -> Option<&opentelemetry_sdk::metrics::SdkMeterProvider> {
        self.meter.as_ref()
    }

    /// Exports what is pending now.
    pub fn flush(&self) {
        if let Some(t) = &self.tracer {
            let _ = t.force_flush();
        }
        if let Some(m) = &self.meter {
            let _ = m.force_flush();
        }
    }
}

impl Drop for Providers {
    fn drop(&mut self) {
        if let Some(t) = self.tracer.take() {
            let _ = t.shutdown();
        }
        if let Some(m) = self.meter.take() {
            let _ = m.shutdown();
        }
    }
}

/// Whether the standard environment asks for OTLP export, and of what: `(traces, metrics)`.
///
/// Export is on when an endpoint is set (`OTEL_EXPORTER_OTLP_ENDPOINT`, or the per-signal
/// `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` / `..._METRICS_ENDPOINT`) or the signal's exporter
/// is `otlp` (`OTEL_TRACES_EXPORTER`, `OTEL_METRICS_EXPORTER`; for metrics also
/// `prometheus`, a scrape endpoint); `none` switches a signal off,
/// and `OTEL_SDK_DISABLED=true` switches everything off.
pub fn wanted_by_env() -> (bool, bool) {
    let var = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
    if var("OTEL_SDK_DISABLED").is_some_and(|v| v.eq_ignore_ascii_case("true")) {
        return (false, false);
    }
    let common = var("OTEL_EXPORTER_OTLP_ENDPOINT").is_some();
    let signal = |endpoint: &str, exporter: &str| match var(exporter) {
        Some(e) if e.eq_ignore_ascii_case("none") => false,
        Some(e) if e.eq_ignore_ascii_case("otlp") || e.eq_ignore_ascii_case("prometheus") => true,
        _ => common || var(endpoint).is_some(),
    };
    (
        signal("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_TRACES_EXPORTER"),
        signal(
            "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
            "OTEL_METRICS_EXPORTER",
        ),
    )
}

/// OTLP exporters as the standard environment configures them (endpoint, protocol
/// `http/protobuf` or `http/json`, headers, timeouts, `OTEL_SERVICE_NAME` — `service` when
/// unset —, `OTEL_RESOURCE_ATTRIBUTES`, `OTEL_TRACES_SAMPLER`), and request telemetry
/// [enabled](enable) on them. `None` when the environment asks for nothing
/// ([`wanted_by_env`]); `Err` says why an exporter could not be built.
pub fn from_env(service: &str) -> Result<Option<Providers>, String> {
    use opentelemetry_otlp::{WithExportConfig as _, WithHttpConfig as _};
    let (traces, metrics) = wanted_by_env();
    if !traces && !metrics {
        return Ok(None);
    }
    let protocol = |signal: &str| {
        std::env::var(signal)
            .or_else(|_| std::env::var("OTEL_EXPORTER_OTLP_PROTOCOL"))
            .ok()
            .map(|p| p.trim().to_ascii_lowercase())
            .filter(|p| !p.is_empty())
    };
    let prometheus = std::env::var("OTEL_METRICS_EXPORTER")
        .is_ok_and(|e| e.trim().eq_ignore_ascii_case("prometheus"));
    // Only the signals exported over OTLP have a protocol: a switched-off signal's (or a
    // Prometheus scrape's) settings neither start a gRPC runtime nor refuse an endpoint.
    let (traces_protocol, metrics_protocol) = (
        protocol("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL").filter(|_| traces),
        protocol("OTEL_EXPORTER_OTLP_METRICS_PROTOCOL").filter(|_| metrics && !prometheus),
    );
    let grpc = |p: &Option<String>| p.as_deref() == Some("grpc");
    #[cfg(not(feature = "otel-grpc"))]
    if grpc(&traces_protocol) || grpc(&metrics_protocol) {
        return Err(
            "OTEL_EXPORTER_OTLP_PROTOCOL=grpc needs mcp-runtime's `otel-grpc` feature: use \
             http/protobuf (port 4318) or http/json, or build with it"
                .to_owned(),
        );
    }
    // tonic is built without TLS (a second TLS stack beside the one `tls` configures):
    // OTLP/HTTP reaches `https://` collectors, gRPC only `http://` ones.
    #[cfg(feature = "otel-grpc")]
    for (protocol, endpoint) in [
        (&traces_protocol, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"),
        (&metrics_protocol, "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT"),
    ] {
        let endpoint = std::env::var(endpoint)
            .or_else(|_| std::env::var("OTEL_EXPORTER_OTLP_ENDPOINT"))
            .unwrap_or_default();
        if grpc(protocol) && endpoint.trim().starts_with("https://") {
            return Err(format!(
                "OTLP over gRPC reaches `http://` collectors only, not {endpoint}: use \
                 http/protobuf (the default; port 4318), which speaks to `https://` ones"
            ));
        }
    }
    #[cfg(feature = "otel-grpc")]
    let grpc_runtime = if grpc(&traces_protocol) || grpc(&metrics_protocol) {
        Some(super::otlp_grpc::runtime()?)
    } else {
        None
    };
    let mut resource = opentelemetry_sdk::Resource::builder();
    if std::env::var_os("OTEL_SERVICE_NAME").is_none() {
        resource = resource.with_service_name(service.to_owned());
    }
    let resource = resource.build();
    let tracer = if traces {
        let provider =
            opentelemetry_sdk::trace::SdkTracerProvider::builder().with_resource(resource.clone());
        let builder = opentelemetry_otlp::SpanExporter::builder();
        let trace_error =
            |e: opentelemetry_otlp::ExporterBuildError| format!("OTLP trace exporter: {e}");
        let provider = match (&traces_protocol, grpc(&traces_protocol)) {
            #[cfg(feature = "otel-grpc")]
            (_, true) => provider.with_batch_exporter(super::otlp_grpc::spans(
                grpc_runtime.as_ref().expect("started for grpc"),
            )?),
            // Protobuf (the default) through this crate's encoder (see `otlp_proto` for why).
            (protocol, _)
                if http_protocol(protocol.as_deref())?
                    == opentelemetry_otlp::Protocol::HttpBinary
                    && otlp_spans::wanted() =>
            {
                provider.with_batch_exporter(otlp_spans::ProtoSpans::from_env(otlp_http::client(
                    "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT",
                )?)?)
            }
            (protocol, _) => provider.with_batch_exporter(
                builder
                    .with_http()
                    .with_http_client(otlp_http::client("OTEL_EXPORTER_OTLP_TRACES_TIMEOUT")?)
                    .with_protocol(http_protocol(protocol.as_deref())?)
                    .build()
                    .map_err(trace_error)?,
            ),
        };
        Some(provider.build())
    } else {
        None
    };
    #[cfg(not(feature = "otel-prometheus"))]
    if prometheus && metrics {
        return Err(
            "OTEL_METRICS_EXPORTER=prometheus needs mcp-runtime's `otel-prometheus` feature"
                .to_owned(),
        );
    }
    let meter = if metrics {
        let provider =
            opentelemetry_sdk::metrics::SdkMeterProvider::builder().with_resource(resource);
        #[cfg(feature = "otel-prometheus")]
        if prometheus {
            let reader = super::prometheus::start()?;
            return finish(tracer, Some(provider.with_reader(reader).build()));
        }
        let builder = opentelemetry_otlp::MetricExporter::builder();
        let metric_error =
            |e: opentelemetry_otlp::ExporterBuildError| format!("OTLP metric exporter: {e}");
        let provider = match (&metrics_protocol, grpc(&metrics_protocol)) {
            #[cfg(feature = "otel-grpc")]
            (_, true) => provider.with_reader(periodic(super::otlp_grpc::metrics(
                grpc_runtime.as_ref().expect("started for grpc"),
            )?)),
            (protocol, _) => provider.with_reader(periodic(
                builder
                    .with_http()
                    .with_http_client(otlp_http::client("OTEL_EXPORTER_OTLP_METRICS_TIMEOUT")?)
                    .with_protocol(http_protocol(protocol.as_deref())?)
                    .build()
                    .map_err(metric_error)?,
            )),
        };
        Some(provider.build())
    } else {
        None
    };
    finish(tracer, meter)
}

/// The OTLP/HTTP encoding `protocol` (the signal's `OTEL_EXPORTER_OTLP_*PROTOCOL`) names.
/// Unset, it is the specification's default, `http/protobuf` (the exporter crate would pick
/// JSON, having both built in).
fn http_protocol(protocol: Option<&str>) -> Result<opentelemetry_otlp::Protocol, String> {
    use opentelemetry_otlp::Protocol;
    match protocol {
        None | Some("http/protobuf") => Ok(Protocol::HttpBinary),
        Some("http/json") => Ok(Protocol::HttpJson),
        Some(other) => Err(format!(
            "OTEL_EXPORTER_OTLP_PROTOCOL={other} is not an OTLP protocol: use http/protobuf, \
             http/json or grpc"
        )),
    }
}

/// Telemetry [enabled](enable) on `meter` (or on nothing, metrics off), and the providers.
fn finish(
    tracer: Option<opentelemetry_sdk::trace::SdkTracerProvider>,
    meter: Option<opentelemetry_sdk::metrics::SdkMeterProvider>,
) -> Result<Option<Providers>, String> {
    let noop;
    let meter_ref: &dyn opentelemetry::metrics::MeterProvider = match &meter {
        Some(m) => m,
        None => {
            noop = opentelemetry::metrics::NoopMeterProvider::new();
            &noop
        }
    };
    enable(&meter_ref.meter("mcp-runtime"), TelemetryOptions::default());
    Ok(Some(Providers { tracer, meter }))
}

/// A periodic reader of `exporter` at `OTEL_METRIC_EXPORT_INTERVAL` (milliseconds, 60 s by
/// default; read here, the SDK's reader does not).
fn periodic<E: opentelemetry_sdk::metrics::exporter::PushMetricExporter>(
    exporter: E,
) -> opentelemetry_sdk::metrics::PeriodicReader<E> {
    let mut reader = opentelemetry_sdk::metrics::PeriodicReader::builder(exporter);
    if let Some(ms) = std::env::var("OTEL_METRIC_EXPORT_INTERVAL")
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .filter(|ms| *ms > 0)
    {
        reader = reader.with_interval(std::time::Duration::from_millis(ms));
    }
    reader.build()
}

/// The `tracing` layer that turns request spans ([`SPAN_TARGET`]) into OpenTelemetry spans
/// of `provider`, filtered to them: other `tracing` spans (hyper's, the application's own)
/// are not exported.
///
/// The spans carry the semantic conventions' attributes and nothing else: not the source
/// location, the thread (a request moves between a runtime's threads, so neither says
/// anything about it) or `tracing-opentelemetry`'s busy and idle times, which would cost
/// every request a clock reading at each poll and three more attributes.
pub fn layer<S>(
    provider: &opentelemetry_sdk::trace::SdkTracerProvider,
) -> impl tracing_subscriber::Layer<S>
where
    S: tracing::Subscriber + for<'span> tracing_subscriber::registry::LookupSpan<'span>,
{
    use opentelemetry::trace::TracerProvider as _;
    use tracing_subscriber::Layer as _;
    direct::set_tracer(provider.tracer("mcp-runtime"));
    tracing_opentelemetry::layer()
        .with_tracer(provider.tracer("mcp-runtime"))
        .with_location(false)
        .with_threads(false)
        .with_tracked_inactivity(false)
        // Asked at every span, not cached per callsite: with a cached verdict a span skips
        // `enabled()` and reads the per-layer filter state the last `enabled()` left, and
        // `tracing::enabled!` (the audit layer asks it right after starting the request span)
        // leaves this filter's "no" for the audit target there, which silently dropped the
        // next child span (`validate arguments`) from the export.
        .with_filter(tracing_subscriber::filter::dynamic_filter_fn(
            |metadata, _| metadata.target() == SPAN_TARGET,
        ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_trace_id_in_hex_is_its_w3c_form() {
        for id in [0, 1, 0x4bf9_2f35_77b3_4da6_a3ce_929d_0e0e_4736, u128::MAX] {
            let id = opentelemetry::trace::TraceId::from(id);
            assert_eq!(
                std::str::from_utf8(&hex_trace_id(id)).unwrap(),
                id.to_string()
            );
        }
    }

    #[test]
    fn versions_become_the_revisions_this_server_speaks() {
        assert_eq!(known_version("2026-07-28"), "2026-07-28");
        assert_eq!(known_version("2025-06-18"), "2025-06-18");
        assert_eq!(known_version("1999-01-01"), "_OTHER");
    }
}
