//! The `_meta` of a request: the modern envelope and the fields both eras share.

use super::capabilities::{ClientCapabilities, Implementation};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::sync::Arc;

/// `_meta` key: the protocol version of a modern request (required).
pub const PROTOCOL_VERSION_KEY: &str = "io.modelcontextprotocol/protocolVersion";
/// `_meta` key: the client's capabilities for this request (required on modern requests).
pub const CLIENT_CAPABILITIES_KEY: &str = "io.modelcontextprotocol/clientCapabilities";
/// `_meta` key: the client's identity (optional, SHOULD).
pub const CLIENT_INFO_KEY: &str = "io.modelcontextprotocol/clientInfo";
/// `_meta` key: the requested log level (optional, deprecated).
pub const LOG_LEVEL_KEY: &str = "io.modelcontextprotocol/logLevel";
/// `_meta` key on results: the server's identity.
pub const SERVER_INFO_KEY: &str = "io.modelcontextprotocol/serverInfo";

/// A progress token: a string or an integer, echoed in `notifications/progress`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ProgressToken {
    /// An integer token.
    Number(i64),
    /// A string token.
    String(Arc<str>),
}

impl fmt::Display for ProgressToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProgressToken::Number(n) => write!(f, "{n}"),
            ProgressToken::String(s) => f.write_str(s),
        }
    }
}

/// The `params._meta` of an incoming request, as far as the server reads it.
///
/// A request is **modern** when its `_meta` carries any `io.modelcontextprotocol/` envelope
/// key. Classification looks at the protocol version (spec `dual-era.md` §3.1 rule 1); this
/// toolkit also counts a lone `clientCapabilities` or `clientInfo` as a claim, so an envelope
/// that lost its version is answered with `-32602` instead of being served as legacy traffic
/// with a legacy-shaped result the client cannot read.
#[derive(Debug, Default, Clone, Deserialize)]
#[non_exhaustive]
pub struct RequestMeta {
    /// `io.modelcontextprotocol/protocolVersion`.
    #[serde(rename = "io.modelcontextprotocol/protocolVersion", default)]
    pub protocol_version: Option<String>,
    /// `io.modelcontextprotocol/clientCapabilities`.
    #[serde(rename = "io.modelcontextprotocol/clientCapabilities", default)]
    pub client_capabilities: Option<ClientCapabilities>,
    /// `io.modelcontextprotocol/clientInfo`.
    #[serde(rename = "io.modelcontextprotocol/clientInfo", default)]
    pub client_info: Option<Implementation>,
    /// `io.modelcontextprotocol/logLevel` (deprecated).
    #[serde(rename = "io.modelcontextprotocol/logLevel", default)]
    pub log_level: Option<LoggingLevel>,
    /// `progressToken`: the client wants progress notifications for this request.
    #[serde(rename = "progressToken", default)]
    pub progress_token: Option<ProgressToken>,
    /// `traceparent` (W3C Trace Context; the key is reserved for OpenTelemetry).
    #[serde(default)]
    pub traceparent: Option<String>,
    /// `tracestate` (W3C Trace Context).
    #[serde(default)]
    pub tracestate: Option<String>,
    /// `baggage` (W3C Baggage).
    #[serde(default)]
    pub baggage: Option<String>,
}

/// The trace context a request carried: the `_meta` keys the spec reserves for OpenTelemetry
/// (`traceparent`, `tracestate`, `baggage`) or, over HTTP, the headers of the same names
/// (`_meta` wins where both are present). Kept as text: whoever traces parses it.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct TraceContext {
    /// `traceparent`.
    pub traceparent: Option<String>,
    /// `tracestate`.
    pub tracestate: Option<String>,
    /// `baggage`.
    pub baggage: Option<String>,
}

impl TraceContext {
    /// A context from its three values.
    pub fn new(
        traceparent: Option<String>,
        tracestate: Option<String>,
        baggage: Option<String>,
    ) -> Self {
        Self {
            traceparent,
            tracestate,
            baggage,
        }
    }

    /// Whether it carries nothing.
    pub fn is_empty(&self) -> bool {
        self.traceparent.is_none() && self.tracestate.is_none() && self.baggage.is_none()
    }

    /// `self`'s values, each one the transport's (`other`) where `self` has none.
    pub fn or(self, other: Option<TraceContext>) -> Self {
        let Some(other) = other else { return self };
        Self {
            traceparent: self.traceparent.or(other.traceparent),
            tracestate: self.tracestate.or(other.tracestate),
            baggage: self.baggage.or(other.baggage),
        }
    }
}

impl RequestMeta {
    /// The trace context of this `_meta` (moved out of it).
    pub fn take_trace_context(&mut self) -> TraceContext {
        TraceContext::new(
            self.traceparent.take(),
            self.tracestate.take(),
            self.baggage.take(),
        )
    }

    /// Whether this `_meta` claims the modern era.
    pub fn claims_modern(&self) -> bool {
        self.protocol_version.is_some()
            || self.client_capabilities.is_some()
            || self.client_info.is_some()
            || self.log_level.is_some()
    }
}

/// A syslog severity, as MCP logging uses them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[allow(missing_docs)]
pub enum LoggingLevel {
    Debug,
    Info,
    Notice,
    Warning,
    Error,
    Critical,
    Alert,
    Emergency,
}

impl LoggingLevel {
    /// Every level, least severe first.
    pub const ALL: [LoggingLevel; 8] = [
        LoggingLevel::Debug,
        LoggingLevel::Info,
        LoggingLevel::Notice,
        LoggingLevel::Warning,
        LoggingLevel::Error,
        LoggingLevel::Critical,
        LoggingLevel::Alert,
        LoggingLevel::Emergency,
    ];
}
