//! A request's span made through the OpenTelemetry SDK's tracer itself, not through a
//! `tracing` span that `tracing-opentelemetry` turns into one: what a request pays when its
//! span is exported and no child span is asked for (the default).
//!
//! Why: `tracing-opentelemetry` visits every field of a `tracing` span and copies each text
//! into a new `String`, and looks the span up in the registry at each enter, exit and
//! close: about 8,000 instructions a request (`OTEL=1 bench/callgrind.sh`), more than a third
//! of a whole `tools/call`. Here the attributes are static texts and shared names, given to
//! the span once. The `tracing` path stays for `RUST_LOG=mcp::request=debug` (the children,
//! `validate arguments`, `tool`, `ask client`, ..., are `tracing` spans and need a `tracing`
//! parent) and for programs that install [`layer`](super::layer) without the tracer
//! ([`set_tracer`] is how `layer` gives it).
//!
//! While the request's future runs, its context is the current OpenTelemetry context
//! ([`Call::attach`](super::Call)), so the requests the server sends its client carry it.

use super::own::{Kind, OwnSpan, Text};
use opentelemetry::trace::{SpanKind, Status, TraceContextExt as _, Tracer as _};
use opentelemetry::{Context, KeyValue};
use std::sync::OnceLock;

static TRACER: OnceLock<opentelemetry_sdk::trace::SdkTracer> = OnceLock::new();

/// The tracer request spans are made with when no child span is asked for.
pub(super) fn set_tracer(tracer: opentelemetry_sdk::trace::SdkTracer) {
    let _ = TRACER.set(tracer);
}

/// The tracer, when the request spans are wanted (`RUST_LOG` can switch their target off,
/// as it can for the `tracing` path) and their children are not (they need the `tracing`
/// path).
///
/// The subscriber's verdict is asked once every [`RECHECK`] requests on each thread, not at
/// every request: with a per-layer filter, which [`layer`](super::layer) has, `enabled!` asks
/// every layer's filter each time (two of them here: about 750 instructions a request, a
/// fifteenth of what exporting a request costs). A filter reloaded while the server runs
/// (`tracing_subscriber::reload`) is followed within that many requests a thread.
pub(super) fn tracer() -> Option<&'static opentelemetry_sdk::trace::SdkTracer> {
    let tracer = TRACER.get()?;
    let wanted = VERDICT.with(|verdict| {
        let (left, wanted) = verdict.get();
        if left > 0 {
            verdict.set((left - 1, wanted));
            return wanted;
        }
        let wanted = tracing::enabled!(target: super::SPAN_TARGET, tracing::Level::INFO)
            && !tracing::enabled!(target: super::SPAN_TARGET, tracing::Level::DEBUG);
        verdict.set((RECHECK - 1, wanted));
        wanted
    });
    wanted.then_some(tracer)
}

/// How many requests a thread makes spans by the subscriber's last verdict before asking
/// it again.
const RECHECK: u32 = 256;

thread_local! {
    /// Requests left before the subscriber is asked again, and its last verdict (none yet:
    /// ask at the next request).
    static VERDICT: std::cell::Cell<(u32, bool)> = const { std::cell::Cell::new((0, false)) };
}

/// What a request's span is made of.
pub(super) struct Made<'a> {
    pub(super) kind: Kind,
    pub(super) id: Text,
    pub(super) session: Option<String>,
    pub(super) caller: Option<&'a str>,
    pub(super) parent: Context,
}

/// Starts the span: its context (the parent's, with the span in it), and the span itself
/// when `own` writes it (else the SDK's tracer made it, and it is in the context).
pub(super) fn start(
    tracer: &opentelemetry_sdk::trace::SdkTracer,
    made: Made<'_>,
) -> (Context, Option<OwnSpan>) {
    let Made {
        kind,
        id,
        session,
        caller,
        parent,
    } = made;
    if let Some(sink) = super::own::sink() {
        let caller = caller.map(str::to_owned);
        let (context, span) = OwnSpan::start(sink, &parent, &kind, id, session, caller);
        return (parent.with_remote_span_context(context), span);
    }
    // The same attributes in the same order as `own` writes them.
    let mut attributes: Vec<KeyValue> = kind
        .attributes()
        .map(|(key, value)| KeyValue::new(key, value.to_owned()))
        .collect();
    attributes.push(KeyValue::new("jsonrpc.request.id", id.into_value()));
    if let Some(session) = session {
        attributes.push(KeyValue::new("mcp.session.id", session));
    }
    if let Some(caller) = caller {
        attributes.push(KeyValue::new("enduser.id", caller.to_owned()));
    }
    let span = tracer
        .span_builder(kind.name())
        .with_kind(SpanKind::Server)
        .with_attributes(attributes)
        .start_with_context(tracer, &parent);
    (parent.with_span(span), None)
}

/// Ends the span of `cx`; `error` is its `error.type`.
pub(super) fn end(cx: &Context, error: Option<super::ErrorType>) {
    let span = cx.span();
    if let Some(error) = error {
        span.set_attribute(KeyValue::new("error.type", error.value()));
        span.set_status(Status::error(""));
    }
    span.end();
}
