//! Request spans written straight into the OTLP/HTTP protobuf batch: what a request pays for
//! its span when the launcher's exporter ([`from_env`](super::from_env), protobuf, the
//! default) sends it and no child span is asked for (the default).
//!
//! Why: a span made through the SDK's tracer is a `SynchronizedSpan` behind a mutex, its
//! attributes copied into `KeyValue`s, turned into a `SpanData` at its end, moved through the
//! batch processor's channel and again into the exporter's batch, encoded there and
//! dropped: about 7,000 instructions a request, a third of a whole `tools/call` over stdio
//! (`OTEL=1 bench/callgrind.sh`). Here the span's attributes stay the request's own values
//! (static texts and shared names), its bytes are written once, at its end, into the batch
//! the exporting thread posts, and nothing is moved or dropped after that.
//!
//! The batch follows the batch span processor's standard variables: it is posted every
//! `OTEL_BSP_SCHEDULE_DELAY` (ms, 5,000) or as soon as it holds
//! `OTEL_BSP_MAX_EXPORT_BATCH_SIZE` spans (512); at most `OTEL_BSP_MAX_QUEUE_SIZE` (2,048)
//! wait, and spans past that, while the collector is slow, are dropped and counted in a
//! warning, not queued without bound. One post carries every span waiting when it starts
//! (so, behind a slow collector, up to the queue's size: about 0.7 MB). Sampling is the SDK's default, parent-based
//! always-on (a request whose client's trace is not sampled records nothing, and the
//! requests the server sends on its behalf carry the client's decision), or always-on when
//! `OTEL_TRACES_SAMPLER` says so; any other sampler keeps request spans on the SDK's tracer
//! ([`wanted`]). The span joins the OpenTelemetry context while its request runs
//! ([`Call::attach`](super::Call)), so the application's own spans are its children.

use super::otlp_proto;
use super::otlp_spans::ProtoSpans;
use opentelemetry::trace::{SpanContext, SpanId, TraceContextExt as _, TraceFlags, TraceState};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::trace::{IdGenerator as _, RandomIdGenerator};
use std::borrow::Cow;
use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::time::{Duration, SystemTime};

/// The sink request spans go to, when the launcher's exporter set one up.
static SINK: OnceLock<Arc<Sink>> = OnceLock::new();

/// The sink, when request spans are written by this module.
pub(super) fn sink() -> Option<&'static Sink> {
    SINK.get().map(|sink| &**sink)
}

/// Whether the environment's sampler is one this module follows (unset, `always_on`,
/// `parentbased_always_on`): `Some(parent_based)`.
pub(super) fn wanted() -> Option<bool> {
    match std::env::var("OTEL_TRACES_SAMPLER")
        .ok()
        .map(|s| s.trim().to_ascii_lowercase())
        .as_deref()
    {
        None | Some("" | "parentbased_always_on") => Some(true),
        Some("always_on") => Some(false),
        Some(_) => None,
    }
}

/// Starts the exporting thread of request spans for `exporter` and makes it where request
/// spans go. The first call wins.
pub(super) fn install(exporter: ProtoSpans, resource: Resource, parent_based: bool) -> Arc<Sink> {
    let env = |name: &str, default: usize| {
        std::env::var(name)
            .ok()
            .and_then(|v| v.trim().parse::<usize>().ok())
            .filter(|n| *n > 0)
            .unwrap_or(default)
    };
    let delay = Duration::from_millis(env("OTEL_BSP_SCHEDULE_DELAY", 5_000) as u64);
    let queue = env("OTEL_BSP_MAX_QUEUE_SIZE", 2_048);
    let batch = env("OTEL_BSP_MAX_EXPORT_BATCH_SIZE", 512).min(queue);
    let envelope = otlp_proto::Envelope::new(&resource, "mcp-runtime");
    let sink = Arc::new(Sink {
        pending: Mutex::new(Pending {
            spans: vec![0; envelope.room()],
            ..Pending::default()
        }),
        wake: Condvar::new(),
        done: Condvar::new(),
        batch,
        queue,
        delay,
        parent_based,
        exporter,
        envelope,
        thread: Mutex::new(None),
    });
    let worker = sink.clone();
    let handle = std::thread::Builder::new()
        .name("otlp-request-spans".to_owned())
        .spawn(move || worker.run());
    match handle {
        Ok(handle) => {
            *sink.thread.lock().unwrap_or_else(|e| e.into_inner()) = Some(handle);
            let _ = SINK.set(sink.clone());
        }
        Err(e) => {
            // Request spans stay with the SDK's tracer; a flush does not wait for a thread
            // that is not there.
            sink.lock().shutdown = true;
            tracing::warn!("cannot start the thread that exports request spans: {e}");
        }
    }
    sink
}

/// Encoded request spans waiting for the exporting thread, and what it was asked.
#[derive(Default)]
struct Pending {
    /// Room for the envelope (`Envelope::room`), then `ScopeSpans.spans` fields, one per
    /// span.
    spans: Vec<u8>,
    count: usize,
    /// Spans dropped because the queue was full, since the last report.
    dropped: u64,
    /// Flushes asked for, and done.
    asked: u64,
    flushed: u64,
    shutdown: bool,
}

/// Where request spans are written, and the thread that posts them.
pub(crate) struct Sink {
    pending: Mutex<Pending>,
    /// Wakes the exporting thread (a full batch, a flush, the shutdown).
    wake: Condvar,
    /// Wakes those waiting for a flush.
    done: Condvar,
    batch: usize,
    queue: usize,
    delay: Duration,
    parent_based: bool,
    exporter: ProtoSpans,
    envelope: otlp_proto::Envelope,
    thread: Mutex<Option<std::thread::JoinHandle<()>>>,
}

impl std::fmt::Debug for Sink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sink").field("batch", &self.batch).finish()
    }
}

impl Sink {
    fn lock(&self) -> std::sync::MutexGuard<'_, Pending> {
        self.pending.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The exporting thread: posts a batch when it is full, when the delay has passed, when
    /// a flush is asked for, and what is left at the shutdown.
    fn run(&self) {
        let mut pending = self.lock();
        loop {
            let wanted = |p: &Pending| p.count >= self.batch || p.asked > p.flushed || p.shutdown;
            if !wanted(&pending) {
                pending = self
                    .wake
                    .wait_timeout_while(pending, self.delay, |p| !wanted(p))
                    .unwrap_or_else(|e| e.into_inner())
                    .0;
            }
            let asked = pending.asked;
            let shutdown = pending.shutdown;
            let room = self.envelope.room();
            let mut next = Vec::with_capacity(pending.spans.capacity());
            next.resize(room, 0);
            let spans = std::mem::replace(&mut pending.spans, next);
            let dropped = std::mem::take(&mut pending.dropped);
            pending.count = 0;
            drop(pending);
            if dropped > 0 {
                tracing::warn!(
                    dropped,
                    "request spans dropped: the OTLP collector did not keep up"
                );
            }
            if spans.len() > room {
                let (body, from) = self.envelope.wrap(spans);
                if let Err(e) = self.exporter.post(bytes::Bytes::from(body).slice(from..)) {
                    tracing::warn!("request spans not exported: {e}");
                }
            }
            pending = self.lock();
            pending.flushed = pending.flushed.max(asked);
            self.done.notify_all();
            if shutdown {
                return;
            }
        }
    }

    /// Posts what is pending and waits for it (up to the exporter's 10 s, and a margin).
    pub(crate) fn flush(&self) {
        let mut pending = self.lock();
        if pending.shutdown {
            return;
        }
        pending.asked += 1;
        let ticket = pending.asked;
        self.wake.notify_one();
        let _ = self
            .done
            .wait_timeout_while(pending, Duration::from_secs(15), |p| p.flushed < ticket);
    }

    /// Posts what is pending and stops the exporting thread.
    pub(crate) fn shutdown(&self) {
        self.lock().shutdown = true;
        self.wake.notify_one();
        let handle = self.thread.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(handle) = handle {
            let _ = handle.join();
        }
    }

    /// Writes `span`, ended now with `error` as its `error.type`, into the batch.
    fn write(&self, span: &OwnSpan, end: SystemTime, error: Option<super::ErrorType>) {
        let mut pending = self.lock();
        if pending.shutdown {
            return;
        }
        if pending.count >= self.queue {
            pending.dropped += 1;
            return;
        }
        span.encode(end, error, &mut pending.spans);
        pending.count += 1;
        if pending.count == self.batch {
            self.wake.notify_one();
        }
    }
}

/// A text attribute's value, kept as the request had it.
#[derive(Debug)]
pub(super) enum Text {
    /// A shared text (a string request id).
    Shared(Arc<str>),
    /// An integer (a request id), written in decimal.
    Number(i64),
}

impl Text {
    /// The value as an OpenTelemetry attribute's.
    pub(super) fn into_value(self) -> opentelemetry::Value {
        match self {
            Self::Shared(s) => s.into(),
            Self::Number(n) => n.to_string().into(),
        }
    }
}

/// What a request span's fixed part is made of: the span is `{method} {target}` (or
/// `{method}`), and the target is recorded as the tool's or the prompt's name or the
/// resource's URI by `role`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(super) struct Kind {
    pub(super) method: &'static str,
    pub(super) target: Arc<str>,
    pub(super) role: Role,
    pub(super) version: &'static str,
    pub(super) transport: &'static str,
}

/// What a request's target is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) enum Role {
    Tool,
    Prompt,
    Resource,
    Other,
}

impl Kind {
    /// The span's name.
    pub(super) fn name(&self) -> Cow<'static, str> {
        if self.target.is_empty() {
            return Cow::Borrowed(self.method);
        }
        // Not `format!`: its machinery costs more than the copy.
        let mut name = String::with_capacity(self.method.len() + 1 + self.target.len());
        name.push_str(self.method);
        name.push(' ');
        name.push_str(&self.target);
        Cow::Owned(name)
    }

    /// The attributes every request of this kind has, in order; a request's own
    /// (`jsonrpc.request.id`, `mcp.session.id`, `enduser.id`, `error.type`) come after.
    pub(super) fn attributes<'a>(
        &'a self,
    ) -> impl Iterator<Item = (&'static str, &'a str)> + Clone + 'a {
        let target = &*self.target;
        let (first, second) = match self.role {
            Role::Tool => (
                Some(("gen_ai.operation.name", "execute_tool")),
                Some(("gen_ai.tool.name", target)),
            ),
            Role::Prompt => (Some(("gen_ai.prompt.name", target)), None),
            Role::Resource => (Some(("mcp.resource.uri", target)), None),
            Role::Other => (None, None),
        };
        std::iter::once(("mcp.method.name", self.method))
            .chain(first)
            .chain(second)
            .chain([
                ("mcp.protocol.version", self.version),
                ("network.transport", self.transport),
            ])
    }

    /// The span's fixed fields ([`otlp_proto::fixed_fields`]): made once per kind and
    /// thread, and kept (at most [`KINDS_PER_THREAD`] kinds a thread; past that, made for
    /// each request).
    fn fixed(&self) -> Arc<[u8]> {
        let make = || {
            let mut out = Vec::new();
            let space = if self.target.is_empty() { "" } else { " " };
            otlp_proto::fixed_fields(
                [self.method, space, &self.target],
                self.attributes(),
                &mut out,
            );
            Arc::<[u8]>::from(out)
        };
        FIXED
            .try_with(|fixed| {
                let mut fixed = fixed.borrow_mut();
                if let Some(bytes) = fixed.get(self) {
                    return bytes.clone();
                }
                let bytes = make();
                if fixed.len() < KINDS_PER_THREAD {
                    fixed.insert(self.clone(), bytes.clone());
                }
                bytes
            })
            .unwrap_or_else(|_| make())
    }
}

/// How many kinds of request a thread keeps the fixed fields of (bounded: with
/// `record_resource_uri`, every URI a client reads is a kind).
const KINDS_PER_THREAD: usize = 256;

thread_local! {
    static FIXED: std::cell::RefCell<
        std::collections::HashMap<Kind, Arc<[u8]>, foldhash::fast::RandomState>,
    > = std::cell::RefCell::new(std::collections::HashMap::default());
}

/// A request span, until its end.
#[derive(Debug)]
pub(super) struct OwnSpan {
    context: SpanContext,
    /// The parent's span id and whether it came from the client.
    parent: Option<(SpanId, bool)>,
    start: SystemTime,
    /// The name, kind and fixed attributes, written.
    fixed: Arc<[u8]>,
    /// The request's own attributes.
    id: Text,
    session: Option<String>,
    caller: Option<String>,
}

impl OwnSpan {
    /// Starts a span of `kind` under `parent` (the client's trace context, or none): its own
    /// context, and the span when it is sampled.
    pub(super) fn start(
        sink: &Sink,
        parent: &opentelemetry::Context,
        kind: &Kind,
        id: Text,
        session: Option<String>,
        caller: Option<String>,
    ) -> (SpanContext, Option<Self>) {
        let ids = RandomIdGenerator::default();
        let parent_span = parent.span();
        let parent_context = parent_span.span_context();
        let (trace_id, state, sampled, parent) = if parent_context.is_valid() {
            (
                parent_context.trace_id(),
                parent_context.trace_state().clone(),
                !sink.parent_based || parent_context.is_sampled(),
                Some((parent_context.span_id(), parent_context.is_remote())),
            )
        } else {
            (ids.new_trace_id(), TraceState::default(), true, None)
        };
        let flags = if sampled {
            TraceFlags::SAMPLED
        } else {
            TraceFlags::default()
        };
        let context = SpanContext::new(trace_id, ids.new_span_id(), flags, false, state);
        let span = sampled.then(|| Self {
            context: context.clone(),
            parent,
            start: SystemTime::now(),
            fixed: kind.fixed(),
            id,
            session,
            caller,
        });
        (context, span)
    }

    /// Ends the span `elapsed` after its start, with `error` as its `error.type` (and
    /// status ERROR then).
    pub(super) fn end(&self, elapsed: Duration, error: Option<super::ErrorType>) {
        if let Some(sink) = sink() {
            sink.write(self, self.start + elapsed, error);
        }
    }

    /// Appends the span as a `ScopeSpans.spans` field.
    fn encode(&self, end: SystemTime, error: Option<super::ErrorType>, out: &mut Vec<u8>) {
        let mut code = itoa::Buffer::new();
        let error = error.map(|error| match error {
            super::ErrorType::Word(word) => word,
            super::ErrorType::Code(c) => code.format(c),
        });
        let mut number = itoa::Buffer::new();
        let id = match &self.id {
            Text::Shared(id) => &**id,
            Text::Number(n) => number.format(*n),
        };
        let state = self.context.trace_state().header();
        let attributes = std::iter::once(("jsonrpc.request.id", id))
            .chain(self.session.as_deref().map(|s| ("mcp.session.id", s)))
            .chain(self.caller.as_deref().map(|c| ("enduser.id", c)))
            .chain(error.map(|error| ("error.type", error)));
        otlp_proto::RequestSpan {
            trace_id: self.context.trace_id().to_bytes(),
            span_id: self.context.span_id().to_bytes(),
            trace_state: &state,
            parent_span_id: self.parent.map(|(id, _)| id.to_bytes()),
            fixed: &self.fixed,
            start: self.start,
            end,
            error: error.is_some(),
            flags: u32::from(self.context.trace_flags().to_u8()),
            parent_is_remote: self.parent.is_some_and(|(_, remote)| remote),
        }
        .encode(attributes, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(target: &str) -> Kind {
        Kind {
            method: "tools/call",
            target: Arc::from(target),
            role: Role::Tool,
            version: "2025-11-25",
            transport: "pipe",
        }
    }

    #[test]
    fn a_kinds_fixed_fields_are_made_once_a_thread() {
        let echo = kind("echo").fixed();
        assert!(Arc::ptr_eq(&echo, &kind("echo").fixed()));
        assert!(!Arc::ptr_eq(&echo, &kind("add").fixed()));
        let mut expected = Vec::new();
        otlp_proto::fixed_fields(
            ["tools/call", " ", "echo"],
            [
                ("mcp.method.name", "tools/call"),
                ("gen_ai.operation.name", "execute_tool"),
                ("gen_ai.tool.name", "echo"),
                ("mcp.protocol.version", "2025-11-25"),
                ("network.transport", "pipe"),
            ]
            .into_iter(),
            &mut expected,
        );
        assert_eq!(&*echo, &expected[..]);
        // Past the bound, still right, no longer kept.
        for n in 0..KINDS_PER_THREAD {
            kind(&format!("t{n}")).fixed();
        }
        let late = kind("late");
        assert!(!Arc::ptr_eq(&late.fixed(), &late.fixed()));
        assert!(late.fixed().ends_with(b"pipe"));
    }
}
