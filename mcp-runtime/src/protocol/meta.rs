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
///
/// The keys the server does not read itself are kept in [`other`](Self::other) (a
/// `_meta` with none of them costs nothing more): what a tool may read
/// (`RequestContext::meta`), and what a proxy sends on upstream.
///
/// ```
/// use mcp_runtime::protocol::meta::RequestMeta;
///
/// let meta: RequestMeta = serde_json::from_str(
///     r#"{"progressToken": 7, "com.example/tenant": "acme"}"#,
/// ).unwrap();
/// assert!(meta.progress_token.is_some());
/// assert_eq!(meta.other.unwrap()["com.example/tenant"], "acme");
/// ```
#[derive(Debug, Default, Clone)]
#[non_exhaustive]
pub struct RequestMeta {
    /// `io.modelcontextprotocol/protocolVersion`.
    pub protocol_version: Option<String>,
    /// `io.modelcontextprotocol/clientCapabilities`.
    pub client_capabilities: Option<ClientCapabilities>,
    /// `io.modelcontextprotocol/clientInfo`.
    pub client_info: Option<Implementation>,
    /// `io.modelcontextprotocol/logLevel` (deprecated).
    pub log_level: Option<LoggingLevel>,
    /// `progressToken`: the client wants progress notifications for this request.
    pub progress_token: Option<ProgressToken>,
    /// `traceparent` (W3C Trace Context; the key is reserved for OpenTelemetry).
    pub traceparent: Option<String>,
    /// `tracestate` (W3C Trace Context).
    pub tracestate: Option<String>,
    /// `baggage` (W3C Baggage).
    pub baggage: Option<String>,
    /// Every other key, as sent; `None` when there is none.
    pub other: Option<serde_json::Map<String, serde_json::Value>>,
}

/// Hand-written rather than derived with `#[serde(flatten)]` for [`RequestMeta::other`]:
/// flattening buffers every `_meta` of every request before reading it, and most carry only
/// the keys above.
impl<'de> Deserialize<'de> for RequestMeta {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Fields;
        impl<'de> serde::de::Visitor<'de> for Fields {
            type Value = RequestMeta;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a `_meta` object")
            }

            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<RequestMeta, A::Error> {
                fn once<'de, A: serde::de::MapAccess<'de>, T: Deserialize<'de>>(
                    map: &mut A,
                    slot: &mut Option<T>,
                    key: &'static str,
                ) -> Result<(), A::Error> {
                    if slot.is_some() {
                        return Err(serde::de::Error::duplicate_field(key));
                    }
                    *slot = map.next_value()?;
                    Ok(())
                }
                let mut meta = RequestMeta::default();
                while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                    match &*key {
                        PROTOCOL_VERSION_KEY => {
                            once(&mut map, &mut meta.protocol_version, PROTOCOL_VERSION_KEY)?
                        }
                        CLIENT_CAPABILITIES_KEY => once(
                            &mut map,
                            &mut meta.client_capabilities,
                            CLIENT_CAPABILITIES_KEY,
                        )?,
                        CLIENT_INFO_KEY => once(&mut map, &mut meta.client_info, CLIENT_INFO_KEY)?,
                        LOG_LEVEL_KEY => once(&mut map, &mut meta.log_level, LOG_LEVEL_KEY)?,
                        "progressToken" => {
                            once(&mut map, &mut meta.progress_token, "progressToken")?
                        }
                        "traceparent" => once(&mut map, &mut meta.traceparent, "traceparent")?,
                        "tracestate" => once(&mut map, &mut meta.tracestate, "tracestate")?,
                        "baggage" => once(&mut map, &mut meta.baggage, "baggage")?,
                        _ => {
                            let value = map.next_value::<serde_json::Value>()?;
                            meta.other
                                .get_or_insert_with(serde_json::Map::new)
                                .insert(key.into_owned(), value);
                        }
                    }
                }
                Ok(meta)
            }
        }
        deserializer.deserialize_map(Fields)
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
