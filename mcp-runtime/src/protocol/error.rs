//! JSON-RPC error codes and the one protocol error type, [`McpError`].

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::borrow::Cow;
use std::fmt;

/// A JSON-RPC error code.
///
/// The constants are the codes the specification defines; anything else a server sends must
/// lie outside `-32768..=-32000` (spec `basic/index` §Error Codes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ErrorCode(pub i32);

impl ErrorCode {
    /// Invalid JSON was received.
    pub const PARSE_ERROR: Self = Self(-32700);
    /// The JSON sent is not a valid request object.
    pub const INVALID_REQUEST: Self = Self(-32600);
    /// The method does not exist or is not available (in this era, or without its capability).
    pub const METHOD_NOT_FOUND: Self = Self(-32601);
    /// Invalid method parameters: malformed params, a missing or malformed modern envelope,
    /// an unknown tool, an invalid cursor.
    pub const INVALID_PARAMS: Self = Self(-32602);
    /// Internal error.
    pub const INTERNAL_ERROR: Self = Self(-32603);
    /// Legacy only: the requested resource was not found.
    pub const RESOURCE_NOT_FOUND: Self = Self(-32002);
    /// Modern: a header is missing, malformed, or disagrees with the body.
    pub const HEADER_MISMATCH: Self = Self(-32020);
    /// Modern: the request needs a client capability absent from its envelope.
    pub const MISSING_REQUIRED_CLIENT_CAPABILITY: Self = Self(-32021);
    /// Modern: the envelope names a protocol version this server does not serve.
    pub const UNSUPPORTED_PROTOCOL_VERSION: Self = Self(-32022);
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// A protocol-level error: what goes into a JSON-RPC error response.
///
/// Problems inside a tool are not `McpError`s; they become a `CallToolResult` with
/// `isError: true` so the model can act on them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, thiserror::Error)]
#[error("{message} ({code})")]
#[non_exhaustive]
pub struct McpError {
    /// The error code.
    pub code: ErrorCode,
    /// A short description, readable by people and models.
    pub message: Cow<'static, str>,
    /// Structured detail the specification requires for some codes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

impl McpError {
    /// An error with a code and a message.
    pub fn new(code: ErrorCode, message: impl Into<Cow<'static, str>>) -> Self {
        Self {
            code,
            message: message.into(),
            data: None,
        }
    }

    /// Attaches `data`.
    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }

    /// `-32700`: the bytes were not JSON.
    pub fn parse_error(detail: impl fmt::Display) -> Self {
        Self::new(ErrorCode::PARSE_ERROR, format!("Parse error: {detail}"))
    }

    /// `-32600`: JSON, but not a valid JSON-RPC request.
    pub fn invalid_request(detail: impl fmt::Display) -> Self {
        Self::new(
            ErrorCode::INVALID_REQUEST,
            format!("Invalid request: {detail}"),
        )
    }

    /// `-32601` for `method`.
    pub fn method_not_found(method: &str) -> Self {
        Self::new(
            ErrorCode::METHOD_NOT_FOUND,
            format!("Method not found: {method}"),
        )
    }

    /// `-32602` with a message.
    pub fn invalid_params(detail: impl fmt::Display) -> Self {
        Self::new(
            ErrorCode::INVALID_PARAMS,
            format!("Invalid params: {detail}"),
        )
    }

    /// `-32603` with a message.
    pub fn internal(detail: impl fmt::Display) -> Self {
        Self::new(
            ErrorCode::INTERNAL_ERROR,
            format!("Internal error: {detail}"),
        )
    }

    /// `-32022` with the `data` the spec requires: `{supported, requested}`.
    pub fn unsupported_protocol_version(requested: &str, supported: &[&str]) -> Self {
        Self::new(
            ErrorCode::UNSUPPORTED_PROTOCOL_VERSION,
            format!(
                "Unsupported protocol version {requested:?}; this server supports {}",
                supported.join(", ")
            ),
        )
        .with_data(serde_json::json!({ "supported": supported, "requested": requested }))
    }

    /// `-32021` with `data.requiredCapabilities` (a `ClientCapabilities` object); the
    /// message names them (`sampling`, `elicitation.url`, …).
    pub fn missing_client_capability(required: Value) -> Self {
        let mut names = Vec::new();
        if let Some(top) = required.as_object() {
            for (name, inner) in top {
                match inner.as_object().filter(|o| !o.is_empty()) {
                    Some(sub) => names.extend(sub.keys().map(|k| format!("{name}.{k}"))),
                    None => names.push(name.clone()),
                }
            }
        }
        Self::new(
            ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY,
            format!(
                "Missing required client capability: {} (declare it to use this)",
                names.join(", ")
            ),
        )
        .with_data(serde_json::json!({ "requiredCapabilities": required }))
    }

    /// `-32020` with a message naming the header.
    pub fn header_mismatch(detail: impl fmt::Display) -> Self {
        Self::new(
            ErrorCode::HEADER_MISMATCH,
            format!("Header mismatch: {detail}"),
        )
    }
}
