//! What a server tells its operators about the requests it serves: the audit trail's sink
//! ([`AuditSink`], always) and OpenTelemetry (the `otel` feature): a span per request by the
//! semantic conventions for MCP, joined to the client's trace, the request metrics, and the
//! exporters (OTLP over HTTP, and with `otel-grpc` over gRPC; a Prometheus endpoint with
//! `otel-prometheus`). The [`pipeline`](crate::pipeline)'s audit layer, the server's
//! dispatcher, the HTTP [`transport`](crate::transport) and the [`launch`](crate::launch)er
//! use it; it uses only the wire types, the request context and the TLS configuration.
//!
//! **Without `otel`, the same calls do nothing.** Its users call one set of functions
//! whatever the features: without `otel` they are the no-ops of `off.rs`, every handle
//! among them an uninhabited type and `enabled()` a constant `false`, so the compiler
//! removes the code that would use them and a build without telemetry pays nothing. Only
//! this module and the launcher (whose command line and environment name the exporters)
//! say `cfg(feature = "otel")`.
//!
//! With `otel`, the public items are `TelemetryOptions`, `enable`, `is_enabled`, `layer`,
//! `from_env`, `wanted_by_env`, `Providers`, `ExportError` and `SPAN_TARGET`; what each span
//! and metric records is written in `otel/mod.rs`.

mod audit_sink;
#[cfg(not(feature = "otel"))]
mod off;
#[cfg(feature = "otel")]
mod otel;

pub(crate) use audit_sink::RequestLine;
pub use audit_sink::{AuditSink, DEFAULT_CAPACITY, LINGER};

#[cfg(not(feature = "otel"))]
pub(crate) use off::*;
#[cfg(feature = "otel")]
pub(crate) use otel::{
    Call, Immediate, Session, Task, defer, enabled, method_of, pipeline_spans, start,
    start_immediate, take_deferred,
};
#[cfg(feature = "otel")]
pub use otel::{
    ExportError, Providers, SPAN_TARGET, TelemetryOptions, enable, from_env, is_enabled, layer,
    wanted_by_env,
};
#[cfg(all(feature = "otel", feature = "http"))]
pub(crate) use otel::{OpenStream, Unrouted};

/// How a request the pipeline served ended, as its telemetry records it (the pipeline
/// tells it so from its own outcome; this module knows nothing of the pipeline's types).
#[derive(Debug, Clone, Copy)]
#[cfg_attr(not(feature = "otel"), allow(dead_code))]
pub(crate) struct Ended {
    /// The audit trail's word for it (`ok`, `error`, a refusal's kind, ...): the
    /// `mcp.server.requests` counter's `outcome`.
    pub(crate) outcome: &'static str,
    /// What it was.
    pub(crate) kind: EndKind,
}

/// [`Ended`]'s kinds, as `error.type` distinguishes them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(not(feature = "otel"), allow(dead_code))]
pub(crate) enum EndKind {
    /// A result that is no error.
    Answered,
    /// A tool's result with `isError: true`.
    ToolError,
    /// A layer refused it; the refusal's kind (`rate_limited`, `invalid_arguments`, ...).
    Refused(&'static str),
    /// A protocol error with this JSON-RPC code.
    Error(i32),
}
