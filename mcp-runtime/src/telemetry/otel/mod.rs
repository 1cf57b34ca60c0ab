//! OpenTelemetry for every request (the `otel` feature): a span by the semantic conventions
//! for MCP, joined to the client's trace, and the metrics a dashboard needs.
//!
//! Nothing here runs until [`enable`] is called (the launcher's `init_tracing` calls it when
//! the standard `OTEL_*` environment asks for an exporter): until then a request pays one
//! check of a `OnceLock`.
//!
//! **Spans.** The [`Audit`](crate::pipeline::Audit) layer's span, on target [`SPAN_TARGET`], named
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
//! With [`from_env`]'s protobuf exporter and the default sampler, a request span with no
//! children is not an SDK span at all: it is written into the batch at its end (`own`),
//! its name, kind and fixed attributes copied from bytes made once per kind of request.
//! A request span is made by the SDK's tracer without `tracing` (`direct`) when the tracer
//! is there but `own` is not (a provider the program built, another sampler), and through
//! `tracing` when its children are asked for. All three give the same span.
//!
//! **Cost.** Exporting a request's span and metrics costs 1.25 times a `tools/call` not
//! exporting, over stdio, exporter threads included (`OTEL=1 bench/callgrind.sh`; it was
//! 3.02 times before these paths): metrics go through instruments bound once per series
//! (`series`), the span filter's verdict is asked every 256 requests (`direct::tracer`).
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

use super::{EndKind, Ended};
use crate::context::RequestContext;
use crate::protocol::methods::Target;
use opentelemetry::KeyValue;
use opentelemetry::metrics::{Counter, Histogram, Meter};
use series::{ErrorType, Series};
use std::sync::OnceLock;
use std::time::Instant;
use tracing_opentelemetry::OpenTelemetrySpanExt as _;

mod counted;
mod direct;
mod export;
mod immediate;
#[cfg(feature = "otel-grpc")]
mod otlp_grpc;
mod otlp_http;
mod otlp_proto;
mod otlp_spans;
mod otlp_wire;
mod own;
#[cfg(feature = "otel-prometheus")]
mod prometheus;
mod series;
#[cfg(feature = "http")]
pub(crate) use counted::OpenStream;
pub(crate) use counted::{Session, Task};
pub use export::{ExportError, Providers, from_env, wanted_by_env};
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
pub const SPAN_TARGET: &str = crate::targets::REQUEST_TARGET;

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
    /// What the method acts on.
    target: Option<Target>,
    /// The tool or prompt name for metrics (never a resource URI).
    name: Option<(&'static str, std::sync::Arc<str>)>,
    version: &'static str,
    transport: &'static str,
    /// The request's trace (the audit line leads to it).
    trace_id: Option<opentelemetry::trace::TraceId>,
    span: Traced,
    finished: bool,
}

/// A request's span: a `tracing` one (`tracing-opentelemetry` exports it), or one made by
/// the SDK's tracer itself (see `direct`).
#[derive(Debug)]
enum Traced {
    Tracing(tracing::Span),
    Direct(opentelemetry::Context),
    /// One written by `own`; the context has its span context.
    Own(opentelemetry::Context, Box<own::OwnSpan>),
}

impl Call {
    /// The request's trace id in lower-case hex (the audit line leads to it).
    pub(crate) fn trace_hex(&self) -> Option<[u8; 32]> {
        self.trace_id.map(hex_trace_id)
    }

    /// Makes the request's OpenTelemetry context the current one until the guard drops
    /// (a span made by the SDK's tracer; a `tracing` span is entered instead).
    pub(crate) fn attach(&self) -> Option<opentelemetry::ContextGuard> {
        match &self.span {
            Traced::Direct(cx) | Traced::Own(cx, _) => Some(cx.clone().attach()),
            Traced::Tracing(_) => None,
        }
    }
}

/// The request's span and its telemetry, when [`enable`] was called.
///
/// `target` names what the request acts on, given whether a read is named by the URI it
/// read (`true`, [`TelemetryOptions::record_resource_uri`]) or by the template it matched.
pub(crate) fn start<'a>(
    spec: &'static crate::protocol::methods::MethodSpec,
    target: impl FnOnce(bool) -> &'a std::sync::Arc<str>,
    cx: &RequestContext,
) -> Option<(tracing::Span, Call)> {
    let instruments = INSTRUMENTS.get()?;
    PIPELINE_SPANS.with(|n| n.set(n.get().wrapping_add(1)));
    let method = spec.name;
    let target = target(instruments.options.record_resource_uri);
    let transport = if cx.caller().address().is_some() {
        "tcp"
    } else {
        "pipe"
    };
    // Every attribute is known now and given to the span at its creation: each later
    // `record` is a registry lookup and a lock in `tracing-opentelemetry`.
    let (tool, prompt, uri) = match spec.target {
        Some(Target::Tool) => (Some(&**target), None, None),
        Some(Target::Prompt) => (None, Some(&**target), None),
        Some(Target::Resource) => (None, None, Some(&**target)),
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
    // The request's telemetry, its span's context `otel` (for the trace id).
    let call = |otel: &opentelemetry::Context| {
        use opentelemetry::trace::TraceContextExt as _;
        let id = otel.span().span_context().trace_id();
        move |span: Traced| Call {
            start: Instant::now(),
            method,
            target: spec.target,
            name,
            version,
            transport,
            trace_id: (id != opentelemetry::trace::TraceId::INVALID).then_some(id),
            span,
            finished: false,
        }
    };
    if let Some(tracer) = direct::tracer() {
        let otel = direct::start(
            tracer,
            direct::Made {
                kind: own::Kind {
                    method,
                    target: target.clone(),
                    role: if tool.is_some() {
                        own::Role::Tool
                    } else if prompt.is_some() {
                        own::Role::Prompt
                    } else if uri.is_some() {
                        own::Role::Resource
                    } else {
                        own::Role::Other
                    },
                    version,
                    transport,
                },
                // Not through `PlainId`'s `Display` (`core::fmt`): a number is written when
                // the span is (`itoa`), a text shared.
                id: match cx.request_id() {
                    crate::protocol::RequestId::Number(n) => own::Text::Number(*n),
                    crate::protocol::RequestId::String(s) => own::Text::Shared(s.clone()),
                },
                session,
                caller,
                parent: parent().unwrap_or_default(),
            },
        );
        let (otel, own) = otel;
        let call = call(&otel)(match own {
            Some(own) => Traced::Own(otel, Box::new(own)),
            None => Traced::Direct(otel),
        });
        return Some((tracing::Span::none(), call));
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
    let call = call(&span.context())(Traced::Tracing(span.clone()));
    Some((span, call))
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
fn hex_trace_id(id: opentelemetry::trace::TraceId) -> [u8; 32] {
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
fn error_type(target: Option<Target>, ended: Option<Ended>) -> Option<ErrorType> {
    use crate::protocol::ErrorCode;
    match ended.map(|e| e.kind) {
        None => Some(ErrorType::Word("cancelled")),
        Some(EndKind::ToolError) => Some(ErrorType::Word("tool_error")),
        Some(EndKind::Refused(_)) if target == Some(Target::Tool) => {
            Some(ErrorType::Word("tool_error"))
        }
        Some(EndKind::Refused("invalid_arguments")) => {
            Some(ErrorType::Code(ErrorCode::INVALID_PARAMS.0))
        }
        Some(EndKind::Refused(_)) => Some(ErrorType::Code(ErrorCode::INTERNAL_ERROR.0)),
        Some(EndKind::Error(code)) => Some(ErrorType::Code(code)),
        Some(EndKind::Answered) => None,
    }
}

impl Call {
    /// Records the outcome (`None`: the request was dropped unanswered) on the span and in
    /// the metrics.
    pub(crate) fn finish(mut self, ended: Option<Ended>) {
        self.record(ended);
    }

    fn record(&mut self, outcome: Option<Ended>) {
        self.finished = true;
        let Some(instruments) = INSTRUMENTS.get() else {
            return;
        };
        let error = error_type(self.target, outcome);
        let elapsed = self.start.elapsed();
        match &self.span {
            Traced::Tracing(span) => {
                if outcome.is_none() {
                    span.in_scope(|| tracing::debug!(target: SPAN_TARGET, "cancelled"));
                }
                if let Some(error) = error {
                    span.record("error.type", error.value().as_str().as_ref());
                    span.record("otel.status_code", "ERROR");
                }
            }
            Traced::Direct(cx) => direct::end(cx, error),
            Traced::Own(_, span) => span.end(elapsed, error),
        }
        Series {
            method: self.method,
            name: self.name.take(),
            version: Some(self.version),
            transport: Some(self.transport),
            error,
            outcome: outcome.map_or("cancelled", |e| e.outcome),
        }
        .record(elapsed.as_secs_f64());
        if let Some(Ended {
            kind: EndKind::Refused(kind),
            ..
        }) = outcome
        {
            instruments.refusals.add(
                1,
                &[
                    KeyValue::new("mcp.method.name", self.method),
                    KeyValue::new("kind", kind),
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
