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

use opentelemetry::trace::{SpanKind, Status, TraceContextExt as _, Tracer as _};
use opentelemetry::{Context, KeyValue};
use super::own::{OwnSpan, Text};
use std::borrow::Cow;
use std::sync::{Arc, OnceLock};

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
    pub(super) method: &'static str,
    pub(super) target: &'a Arc<str>,
    pub(super) tool: bool,
    pub(super) prompt: bool,
    pub(super) uri: bool,
    pub(super) id: Text,
    pub(super) version: &'static str,
    pub(super) session: Option<String>,
    pub(super) transport: &'static str,
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
        method,
        target,
        tool,
        prompt,
        uri,
        id,
        version,
        session,
        transport,
        caller,
        parent,
    } = made;
    let mut attributes = Vec::with_capacity(10);
    attributes.push(("mcp.method.name", Text::Static(method)));
    if tool {
        attributes.push(("gen_ai.operation.name", Text::Static("execute_tool")));
        attributes.push(("gen_ai.tool.name", Text::Shared(target.clone())));
    }
    if prompt {
        attributes.push(("gen_ai.prompt.name", Text::Shared(target.clone())));
    }
    if uri {
        attributes.push(("mcp.resource.uri", Text::Shared(target.clone())));
    }
    attributes.push(("jsonrpc.request.id", id));
    attributes.push(("mcp.protocol.version", Text::Static(version)));
    if let Some(session) = session {
        attributes.push(("mcp.session.id", Text::Owned(session)));
    }
    attributes.push(("network.transport", Text::Static(transport)));
    if let Some(caller) = caller {
        attributes.push(("enduser.id", Text::Owned(caller.to_owned())));
    }
    // Not `format!`: its machinery costs more than the copy.
    let name: Cow<'static, str> = if target.is_empty() {
        Cow::Borrowed(method)
    } else {
        let mut name = String::with_capacity(method.len() + 1 + target.len());
        name.push_str(method);
        name.push(' ');
        name.push_str(target);
        Cow::Owned(name)
    };
    if let Some(sink) = super::own::sink() {
        let (context, span) = OwnSpan::start(sink, &parent, name, attributes);
        return (parent.with_remote_span_context(context), span);
    }
    let attributes = attributes
        .into_iter()
        .map(|(key, value)| KeyValue::new(key, value.into_value()))
        .collect::<Vec<_>>();
    let span = tracer
        .span_builder(name)
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
