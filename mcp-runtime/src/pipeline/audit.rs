//! [`Audit`]: a `tracing` span around each request, and exactly one event on target
//! [`AUDIT_TARGET`] (`mcp::audit`) when it ends: request id, era, method, target, caller, duration and outcome
//! (see [`Outcome::audit_outcome`]; `cancelled` when the request is dropped unanswered), and
//! `cached=true` when the [`ResultCache`](super::ResultCache) answered it.
//!
//! Arguments are not recorded unless [`AuditOptions::log_arguments`] says so, and then pass
//! through the redaction hook first. When no subscriber listens to [`AUDIT_TARGET`] at INFO the
//! layer records nothing and costs one cached check per request.

use super::{BoxError, McpRequest, Outcome};
use crate::context::RequestContext;
use crate::protocol::{JsonObject, RequestId};
use crate::targets::AUDIT_TARGET;
use crate::telemetry::{self, AuditSink, RequestLine};
use pin_project_lite::pin_project;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, ready};
use std::time::Instant;

/// A hook that removes secrets from arguments before they are audited.
type Redact = dyn Fn(&mut JsonObject) + Send + Sync;

/// What the audit events contain beyond the always-recorded fields.
///
/// ```
/// use mcp_runtime::pipeline::AuditOptions;
///
/// let options = AuditOptions::new()
///     .log_arguments(true)
///     .redact(|arguments| {
///         if let Some(v) = arguments.get_mut("password") {
///             *v = "[redacted]".into();
///         }
///     });
/// # let _ = options;
/// ```
#[derive(Clone, Default)]
pub struct AuditOptions {
    arguments: bool,
    redact: Option<Arc<Redact>>,
}

impl fmt::Debug for AuditOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AuditOptions")
            .field("arguments", &self.arguments)
            .field("redact", &self.redact.is_some())
            .finish()
    }
}

impl AuditOptions {
    /// The defaults: arguments not recorded.
    pub fn new() -> Self {
        Self::default()
    }

    /// Records each request's arguments (as JSON, field `arguments`), after redaction.
    pub fn log_arguments(mut self, on: bool) -> Self {
        self.arguments = on;
        self
    }

    /// Runs `hook` on a copy of the arguments before they are recorded.
    pub fn redact(mut self, hook: impl Fn(&mut JsonObject) + Send + Sync + 'static) -> Self {
        self.redact = Some(Arc::new(hook));
        self
    }
}

/// Makes [`Audit`].
#[derive(Debug, Clone, Default)]
pub struct AuditLayer {
    options: Arc<AuditOptions>,
}

impl AuditLayer {
    /// Audits with `options`.
    pub fn new(options: AuditOptions) -> Self {
        Self {
            options: Arc::new(options),
        }
    }
}

impl AuditLayer {
    /// Whether audit events record the arguments.
    pub(crate) fn logs_arguments(&self) -> bool {
        self.options.arguments
    }
}

impl<S> tower::Layer<S> for AuditLayer {
    type Service = Audit<S>;

    fn layer(&self, inner: S) -> Audit<S> {
        Audit {
            inner,
            options: self.options.clone(),
        }
    }
}

/// Audits each request through `S`.
#[derive(Debug, Clone)]
pub struct Audit<S> {
    inner: S,
    options: Arc<AuditOptions>,
}

impl<S> tower::Service<McpRequest> for Audit<S>
where
    S: tower::Service<McpRequest, Response = Outcome, Error = BoxError>,
{
    type Response = Outcome;
    type Error = BoxError;
    type Future = AuditFuture<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: McpRequest) -> Self::Future {
        // With telemetry on, the span is the semantic conventions' (see `telemetry`).
        let telemetry = telemetry::start(
            request.method_spec(),
            |filled| request.telemetry_target(filled),
            request.context(),
        );
        let (span, telemetry) = match telemetry {
            Some((span, call)) => (span, Some(call)),
            None => (Self::plain_span(&request), None),
        };
        let record = tracing::enabled!(target: AUDIT_TARGET, tracing::Level::INFO).then(|| {
            let arguments = self.options.arguments.then(|| {
                let mut arguments = request.arguments().clone();
                if let Some(redact) = &self.options.redact {
                    redact(&mut arguments);
                }
                serde_json::Value::Object(arguments).to_string()
            });
            Record {
                trace_id: telemetry.as_ref().and_then(telemetry::Call::trace_hex),
                start: Instant::now(),
                method: request.method(),
                target: request.target_arc().clone(),
                context: request.context().clone(),
                arguments,
                written: false,
            }
        });
        let inner = {
            let _entered = span.enter();
            self.inner.call(request)
        };
        AuditFuture {
            inner,
            span,
            record,
            telemetry,
        }
    }
}

impl<S> Audit<S> {
    fn plain_span(request: &McpRequest) -> tracing::Span {
        tracing::info_span!(
            "mcp_request",
            method = request.method(),
            target = request.target(),
            id = %request.context().request_id(),
        )
    }
}

/// A request's telemetry (dropped unfinished, it records a cancellation).
type TelemetryCall = telemetry::Call;

pin_project! {
    /// [`Audit`]'s future.
    #[derive(Debug)]
    pub struct AuditFuture<F> {
        #[pin]
        inner: F,
        span: tracing::Span,
        record: Option<Record>,
        telemetry: Option<TelemetryCall>,
    }
}

impl<F> Future for AuditFuture<F>
where
    F: Future<Output = Result<Outcome, BoxError>>,
{
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        let out = {
            let _entered = this.span.enter();
            let _context = this.telemetry.as_ref().and_then(TelemetryCall::attach);
            ready!(this.inner.poll(cx))
        };
        if let Some(call) = this.telemetry.take() {
            call.finish(out.as_ref().ok().map(Outcome::ended));
        }
        if let Some(record) = this.record.take() {
            let outcome = match &out {
                Ok(outcome) => outcome.audit_outcome(),
                Err(_) => "error",
            };
            record.emit(outcome);
        }
        Poll::Ready(out)
    }
}

/// What an audit event needs, kept from the call until the outcome is known. Dropped
/// without an outcome (the request was cancelled, or its server shut down), it records
/// `cancelled`.
#[derive(Debug)]
struct Record {
    start: Instant,
    method: &'static str,
    target: Arc<str>,
    context: RequestContext,
    arguments: Option<String>,
    written: bool,
    /// The request's trace id in hex, when telemetry is on: the audit line leads to it.
    trace_id: Option<[u8; 32]>,
}

impl Record {
    fn emit(mut self, outcome: &'static str) {
        self.write(outcome);
    }

    /// Emits the event. Every field is text or a number (no `%` field formatted through
    /// `core::fmt`): this runs once per request.
    fn write(&mut self, outcome: &'static str) {
        self.written = true;
        let cx = &self.context;
        let caller = cx.caller().log_name();
        let caller = caller.as_str();
        let era = cx.era().as_str();
        let duration_ms = self.start.elapsed().as_secs_f64() * 1000.0;
        let cached = cx.answered_from_cache().then_some(true);
        let task = cx.task_id();
        let arguments = self.arguments.as_deref();
        let (method, target) = (self.method, &*self.target);
        // In hex on the stack: no `core::fmt` and no allocation, once per request.
        let trace_id = self
            .trace_id
            .as_ref()
            .map(|h| std::str::from_utf8(h).unwrap_or_default());
        // One event, two call sites: a number id is recorded as a number, a string id as text.
        macro_rules! event {
            ($id:expr) => {
                tracing::info!(
                    target: AUDIT_TARGET,
                    id = $id,
                    era,
                    method,
                    target,
                    caller,
                    duration_ms,
                    outcome,
                    cached,
                    task,
                    arguments,
                    trace_id,
                    "request"
                )
            };
        }
        // The sink `init_tracing` installs takes the record itself, skipping the event.
        let direct = tracing::dispatcher::get_default(|dispatch| {
            match dispatch.downcast_ref::<AuditSink>() {
                Some(sink) if sink.is_exclusive() => {
                    sink.push_request(&RequestLine {
                        id: cx.request_id(),
                        era,
                        method,
                        target,
                        caller,
                        duration_ms,
                        outcome,
                        cached: cached.is_some(),
                        task,
                        arguments,
                        trace_id,
                    });
                    true
                }
                _ => false,
            }
        });
        if direct {
            return;
        }
        match cx.request_id() {
            RequestId::Number(id) => event!(*id),
            RequestId::String(id) => event!(&**id),
        }
    }
}

impl Drop for Record {
    fn drop(&mut self) {
        if !self.written {
            self.write("cancelled");
        }
    }
}
