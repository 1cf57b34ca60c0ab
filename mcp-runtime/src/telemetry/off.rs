//! Telemetry without the `otel` feature: the calls `otel/` answers, doing nothing. Every
//! handle is an uninhabited type (no value of it can exist), so what a caller would do
//! with one is dead code the compiler removes, and [`enabled`] is a constant `false`.

use super::Ended;
use crate::context::RequestContext;
use crate::protocol::RequestId;
use crate::protocol::meta::TraceContext;
use crate::protocol::methods::MethodSpec;
use serde_json::value::RawValue;
use std::sync::Arc;
use std::time::Instant;

/// Whether telemetry is on: never, without `otel`.
pub(crate) const fn enabled() -> bool {
    false
}

/// Pipeline spans started on this thread: none.
pub(crate) fn pipeline_spans() -> u64 {
    0
}

/// A request's telemetry in the pipeline: none can exist.
#[derive(Debug)]
pub(crate) enum Call {}

impl Call {
    pub(crate) fn attach(&self) -> Option<()> {
        match *self {}
    }

    pub(crate) fn trace_hex(&self) -> Option<[u8; 32]> {
        match *self {}
    }

    pub(crate) fn finish(self, _ended: Option<Ended>) {
        match self {}
    }
}

/// No span, no metrics.
pub(crate) fn start<'a>(
    _spec: &'static MethodSpec,
    _target: impl FnOnce(bool) -> &'a Arc<str>,
    _cx: &RequestContext,
) -> Option<(tracing::Span, Call)> {
    None
}

/// A legacy session's metrics: none.
#[derive(Debug)]
pub(crate) enum Session {}

impl Session {
    pub(crate) fn start(_version: &'static str) -> Option<Self> {
        None
    }
}

/// A task's metrics: none.
#[derive(Debug)]
pub(crate) enum Task {}

impl Task {
    pub(crate) fn start(_tool: &Arc<str>) -> Option<Self> {
        None
    }

    pub(crate) fn end(self, _failed: bool) {
        match self {}
    }
}

/// An open event stream's count: none.
#[cfg(feature = "http")]
#[derive(Debug)]
pub(crate) enum OpenStream {}

#[cfg(feature = "http")]
impl OpenStream {
    pub(crate) fn start() -> Option<Self> {
        None
    }
}

/// The span of a request the dispatcher answers itself: none can exist.
#[derive(Debug)]
pub(crate) enum Immediate {}

impl Immediate {
    pub(crate) fn span(&self) -> &tracing::Span {
        match *self {}
    }

    pub(crate) fn since(&mut self, _start: Instant) {
        match *self {}
    }

    pub(crate) fn finish_with(self, _line: &[u8]) {
        match self {}
    }

    pub(crate) fn finish(self, _error: Option<i32>) {
        match self {}
    }

    pub(crate) fn cancelled(self) {
        match self {}
    }
}

pub(crate) fn start_immediate(
    _method: &'static str,
    _id: &RequestId,
    _params: Option<&RawValue>,
    _session: Option<&str>,
    _outside: impl FnOnce() -> Option<TraceContext>,
) -> Option<Immediate> {
    None
}

pub(crate) fn defer(span: Immediate) {
    match span {}
}

pub(crate) fn take_deferred() -> Option<Immediate> {
    None
}

/// Never asked for a method name: nothing is named.
pub(crate) fn method_of(_message: &[u8]) -> std::borrow::Cow<'_, str> {
    std::borrow::Cow::Borrowed("")
}

/// A POST's span until the dispatcher takes it: none can exist.
#[cfg(feature = "http")]
#[derive(Debug)]
pub(crate) enum Unrouted {}

#[cfg(feature = "http")]
impl Unrouted {
    pub(crate) fn begin(
        _method: &'static str,
        _version: Option<&'static str>,
        _trace: impl FnOnce() -> Option<TraceContext>,
    ) -> Option<Self> {
        None
    }

    pub(crate) fn read(&mut self, _id: Option<RequestId>, _method: &'static str) {
        match *self {}
    }

    pub(crate) fn finish(self, _status: u16, _code: i32, _message: &str) {
        match self {}
    }
}
