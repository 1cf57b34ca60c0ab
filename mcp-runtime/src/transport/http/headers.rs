//! The header cross-checks of Streamable HTTP (streamable-http §Standard Request Headers,
//! §Custom Headers): what the dispatcher calls, through [`RequestChecks`], once it has
//! classified a request. The body is the source of truth; a header that is missing,
//! repeated, malformed or different is `-32020` with HTTP 400.
//!
//! Choices the spec leaves open:
//! - A routing header (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`, a declared
//!   `Mcp-Param-*`) sent twice is a mismatch: readers taking the first or the last copy
//!   would disagree.
//! - A declared `Mcp-Param-*` header whose argument is absent or `null` is a mismatch (it
//!   routes on a value the body does not carry); undeclared `Mcp-Param-*` headers are ignored.
//! - On a legacy request, `MCP-Protocol-Version` may be absent (2025-03-26 clients) or any
//!   legacy version this server speaks, not only the negotiated one; anything else
//!   (`2026-07-28` included) is a mismatch with the body.

use crate::protocol::JsonObject;
use crate::protocol::McpError;
use crate::protocol::headers::{self, MCP_METHOD, MCP_NAME, MCP_PROTOCOL_VERSION, ParamHeader};
use crate::protocol::version::LEGACY_VERSIONS;
use crate::transport::{Rejection, RequestChecks};
use http::{HeaderMap, HeaderName};

/// What a legacy request without a session gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Sessionless {
    /// Served as a throwaway session (stateless legacy mode).
    Serve,
    /// Refused with 400: the endpoint keeps sessions and the request named none.
    Missing,
    /// Refused with 404: the session it names does not exist (any more).
    Unknown,
}

/// The checks of one HTTP request.
pub(crate) struct HttpChecks<'a> {
    pub(crate) headers: &'a HeaderMap,
    pub(crate) sessionless: Sessionless,
}

/// The routing headers, parsed once: a lookup by `&str` parses and validates the name on
/// every request.
static VERSION_HEADER: HeaderName = HeaderName::from_static(MCP_PROTOCOL_VERSION);
static METHOD_HEADER: HeaderName = HeaderName::from_static(MCP_METHOD);
static NAME_HEADER: HeaderName = HeaderName::from_static(MCP_NAME);
static TRACEPARENT: HeaderName = HeaderName::from_static("traceparent");
static TRACESTATE: HeaderName = HeaderName::from_static("tracestate");
static BAGGAGE: HeaderName = HeaderName::from_static("baggage");

/// The single value of a header, `None` when absent; repeated or non-ASCII values fail.
fn single<'h>(headers: &'h HeaderMap, name: &HeaderName) -> Result<Option<&'h str>, McpError> {
    let mut values = headers.get_all(name).iter();
    let Some(first) = values.next() else {
        return Ok(None);
    };
    if values.next().is_some() {
        return Err(McpError::header_mismatch(format!(
            "the {name} header appears more than once"
        )));
    }
    first.to_str().map(Some).map_err(|_| {
        McpError::header_mismatch(format!(
            "the {name} header has characters outside visible ASCII; encode the value as =?base64?…?="
        ))
    })
}

fn required<'h>(headers: &'h HeaderMap, name: &HeaderName) -> Result<&'h str, McpError> {
    single(headers, name)?.ok_or_else(|| {
        McpError::header_mismatch(format!("the {name} header is required on this request"))
    })
}

/// The W3C trace context `headers` carry, if any.
pub(crate) fn trace_context(headers: &HeaderMap) -> Option<crate::protocol::meta::TraceContext> {
    let text = |name: &HeaderName| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
    };
    let trace = crate::protocol::meta::TraceContext::new(
        text(&TRACEPARENT),
        text(&TRACESTATE),
        text(&BAGGAGE),
    );
    (!trace.is_empty()).then_some(trace)
}

/// The method (`Mcp-Method`) and protocol version (`MCP-Protocol-Version`) `headers`
/// name, each as this server knows it: `_OTHER` for a method it does not serve, no version
/// for one it does not speak (the client's text never becomes an attribute).
pub(crate) fn traced_names(headers: &HeaderMap) -> (&'static str, Option<&'static str>) {
    let text = |name: &HeaderName| headers.get(name).and_then(|v| v.to_str().ok());
    let method = crate::server::traced_name(text(&METHOD_HEADER).unwrap_or_default());
    let version = text(&VERSION_HEADER).and_then(|v| {
        crate::protocol::version::MODERN_VERSIONS
            .iter()
            .chain(crate::protocol::version::LEGACY_VERSIONS)
            .find(|known| **known == v)
            .copied()
    });
    (method, version)
}

impl RequestChecks for HttpChecks<'_> {
    fn trace_context(&self) -> Option<crate::protocol::meta::TraceContext> {
        trace_context(self.headers)
    }

    fn modern(&self, method: &str, version: &str) -> Result<(), McpError> {
        let header = required(self.headers, &VERSION_HEADER)?;
        if header != version {
            return Err(McpError::header_mismatch(format!(
                "{MCP_PROTOCOL_VERSION} is {header:?} but params._meta names {version:?}"
            )));
        }
        let header = required(self.headers, &METHOD_HEADER)?;
        if header != method {
            return Err(McpError::header_mismatch(format!(
                "{MCP_METHOD} is {header:?} but the body's method is {method:?}"
            )));
        }
        Ok(())
    }

    fn name(&self, method: &str, name: &str) -> Result<(), McpError> {
        let field = headers::name_field(method).unwrap_or("name");
        let raw = required(self.headers, &NAME_HEADER)?;
        let decoded = headers::decode_value(raw).ok_or_else(|| {
            McpError::header_mismatch(format!("{MCP_NAME} has a malformed =?base64?…?= value"))
        })?;
        if decoded != name {
            return Err(McpError::header_mismatch(format!(
                "{MCP_NAME} is {decoded:?} but params.{field} is {name:?}"
            )));
        }
        Ok(())
    }

    fn params(&self, declared: &[ParamHeader], arguments: &JsonObject) -> Result<(), McpError> {
        for param in declared {
            // A declared name is a valid header name (checked at registration); one that
            // were not could not have been sent either.
            let raw = match HeaderName::try_from(param.header_name()) {
                Ok(header) => single(self.headers, &header)?,
                Err(_) => None,
            };
            let at = || param.path.join(".");
            match (param.value_in(arguments), raw) {
                (None, None) => {}
                (None, Some(_)) => {
                    return Err(McpError::header_mismatch(format!(
                        "Mcp-Param-{} is present but the argument `{}` is absent",
                        param.name,
                        at()
                    )));
                }
                (Some(_), None) => {
                    return Err(McpError::header_mismatch(format!(
                        "Mcp-Param-{} is required: the argument `{}` is present",
                        param.name,
                        at()
                    )));
                }
                (Some(value), Some(raw)) => {
                    let decoded = headers::decode_value(raw).ok_or_else(|| {
                        McpError::header_mismatch(format!(
                            "Mcp-Param-{} has a malformed =?base64?…?= value",
                            param.name
                        ))
                    })?;
                    if !param.matches(value, &decoded) {
                        return Err(McpError::header_mismatch(format!(
                            "Mcp-Param-{} is {decoded:?} but the argument `{}` is {value}",
                            param.name,
                            at()
                        )));
                    }
                }
            }
        }
        Ok(())
    }

    fn legacy(&self) -> Result<(), McpError> {
        legacy_version(self.headers).map(|_| ())
    }

    fn sessionless(&self) -> Result<Option<&'static str>, Rejection> {
        match self.sessionless {
            Sessionless::Serve => legacy_version(self.headers).map_err(Rejection::invalid),
            Sessionless::Missing => Err(Rejection::invalid(McpError::invalid_request(
                "this endpoint keeps sessions: send initialize first, then the Mcp-Session-Id \
                 header it returns on every request",
            ))),
            Sessionless::Unknown => Err(Rejection::not_found(McpError::invalid_request(
                "session not found (it expired, was deleted, or belongs to someone else); \
                 send initialize again without Mcp-Session-Id",
            ))),
        }
    }
}

/// The legacy version a legacy request's `MCP-Protocol-Version` names (`None` when absent).
pub(crate) fn legacy_version(headers: &HeaderMap) -> Result<Option<&'static str>, McpError> {
    let Some(value) = single(headers, &VERSION_HEADER)? else {
        return Ok(None);
    };
    LEGACY_VERSIONS
        .iter()
        .copied()
        .find(|v| *v == value)
        .map(Some)
        .ok_or_else(|| {
            McpError::header_mismatch(format!(
                "{MCP_PROTOCOL_VERSION} is {value:?}, but the body is a request of the 2025 \
                 revisions (no 2026-07-28 envelope in params._meta); this server speaks {} there",
                LEGACY_VERSIONS.join(", ")
            ))
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::ErrorCode;
    use crate::protocol::headers::ParamKind;
    use http::HeaderValue;
    use serde_json::json;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.append(*k, HeaderValue::from_str(v).unwrap());
        }
        h
    }

    fn checks(h: &HeaderMap) -> HttpChecks<'_> {
        HttpChecks {
            headers: h,
            sessionless: Sessionless::Serve,
        }
    }

    fn mismatch(r: Result<(), McpError>) {
        assert_eq!(r.unwrap_err().code, ErrorCode::HEADER_MISMATCH);
    }

    #[test]
    fn standard_headers_must_match_the_body() {
        let good = headers(&[
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/list"),
        ]);
        assert!(checks(&good).modern("tools/list", "2026-07-28").is_ok());
        mismatch(checks(&good).modern("tools/call", "2026-07-28"));
        mismatch(
            checks(&headers(&[("mcp-method", "tools/list")])).modern("tools/list", "2026-07-28"),
        );
        mismatch(
            checks(&headers(&[("mcp-protocol-version", "2026-07-28")]))
                .modern("tools/list", "2026-07-28"),
        );
        let twice = headers(&[
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/list"),
            ("mcp-method", "tools/list"),
        ]);
        mismatch(checks(&twice).modern("tools/list", "2026-07-28"));
    }

    #[test]
    fn mcp_name_is_decoded_and_case_sensitive() {
        assert!(
            checks(&headers(&[("mcp-name", "echo")]))
                .name("tools/call", "echo")
                .is_ok()
        );
        assert!(
            checks(&headers(&[("mcp-name", "=?base64?WsO8cmljaA==?=")]))
                .name("tools/call", "Zürich")
                .is_ok()
        );
        mismatch(checks(&headers(&[("mcp-name", "Echo")])).name("tools/call", "echo"));
        mismatch(checks(&headers(&[])).name("tools/call", "echo"));
        mismatch(checks(&headers(&[("mcp-name", "=?base64?%%?=")])).name("tools/call", "echo"));
    }

    #[test]
    fn param_headers_follow_their_arguments() {
        let declared = [ParamHeader {
            path: vec!["region".into()],
            name: "Region".into(),
            kind: ParamKind::String,
        }];
        let args = json!({"region": "eu-west"}).as_object().cloned().unwrap();
        let none = JsonObject::new();
        let with = headers(&[("mcp-param-region", "eu-west")]);
        assert!(checks(&with).params(&declared, &args).is_ok());
        assert!(checks(&headers(&[])).params(&declared, &none).is_ok());
        mismatch(checks(&headers(&[])).params(&declared, &args));
        mismatch(checks(&with).params(&declared, &none));
        mismatch(checks(&headers(&[("mcp-param-region", "us-east")])).params(&declared, &args));
    }

    #[test]
    fn legacy_requests_take_any_legacy_version_header() {
        assert_eq!(legacy_version(&headers(&[])).unwrap(), None);
        assert_eq!(
            legacy_version(&headers(&[("mcp-protocol-version", "2025-03-26")])).unwrap(),
            Some("2025-03-26")
        );
        assert!(legacy_version(&headers(&[("mcp-protocol-version", "2026-07-28")])).is_err());
        assert!(legacy_version(&headers(&[("mcp-protocol-version", "2099-01-01")])).is_err());
    }
}
