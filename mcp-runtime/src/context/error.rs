//! [`ResourceError`]: how a resource read fails, for a resource's handler and for
//! [`RequestContext::read_resource`](super::RequestContext::read_resource) alike.

use crate::protocol::{Era, ErrorCode, McpError};
use serde_json::json;
use std::fmt;

/// Why a read failed. Answered with the JSON-RPC error the spec gives for the request's era
/// ([`ResourceError::into_mcp_error`]).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ResourceError {
    /// Nothing is at this URI: `-32602` on the modern leg, `-32002` on the legacy one, with
    /// `data.uri` either way.
    NotFound,
    /// The URI is malformed or unsafe: `-32602` with `data.reason = "invalid_uri"`.
    InvalidUri(String),
    /// Anything else: `-32603` with the message.
    Failed(String),
}

impl ResourceError {
    /// Nothing is at this URI.
    pub fn not_found() -> Self {
        Self::NotFound
    }

    /// The read failed for `reason`.
    pub fn failed(reason: impl fmt::Display) -> Self {
        Self::Failed(reason.to_string())
    }

    /// The JSON-RPC error for a read of `uri` in `era` (spec `primitives.md` §2.3).
    ///
    /// ```
    /// use mcp_runtime::protocol::{Era, ErrorCode};
    /// use mcp_runtime::resource::ResourceError;
    ///
    /// let modern = ResourceError::NotFound.into_mcp_error("file:///missing", Era::Modern);
    /// assert_eq!(modern.code, ErrorCode::INVALID_PARAMS);
    /// let legacy = ResourceError::NotFound.into_mcp_error("file:///missing", Era::Legacy);
    /// assert_eq!(legacy.code, ErrorCode::RESOURCE_NOT_FOUND);
    /// ```
    pub fn into_mcp_error(self, uri: &str, era: Era) -> McpError {
        match self {
            Self::NotFound => {
                let code = match era {
                    Era::Modern => ErrorCode::INVALID_PARAMS,
                    Era::Legacy => ErrorCode::RESOURCE_NOT_FOUND,
                };
                McpError::new(code, "Resource not found").with_data(json!({ "uri": uri }))
            }
            Self::InvalidUri(reason) => {
                McpError::new(ErrorCode::INVALID_PARAMS, format!("Invalid URI: {reason}"))
                    .with_data(json!({ "uri": uri, "reason": "invalid_uri" }))
            }
            Self::Failed(message) => McpError::new(ErrorCode::INTERNAL_ERROR, message),
        }
    }
}

impl ResourceError {
    /// The reverse of [`into_mcp_error`](Self::into_mcp_error), for a read that came back as
    /// a JSON-RPC error: "Resource not found" in either era's code, `invalid_uri`, or the
    /// error's message.
    pub(crate) fn from_mcp_error(error: McpError) -> Self {
        let reason = error
            .data
            .as_ref()
            .and_then(|d| d.get("reason"))
            .and_then(serde_json::Value::as_str);
        if error.code == ErrorCode::RESOURCE_NOT_FOUND
            || (error.code == ErrorCode::INVALID_PARAMS && error.message == "Resource not found")
        {
            Self::NotFound
        } else if reason == Some("invalid_uri") {
            Self::InvalidUri(error.message.into_owned())
        } else {
            Self::Failed(error.message.into_owned())
        }
    }
}

impl fmt::Display for ResourceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NotFound => f.write_str("resource not found"),
            Self::InvalidUri(reason) => write!(f, "invalid URI: {reason}"),
            Self::Failed(message) => f.write_str(message),
        }
    }
}

impl std::error::Error for ResourceError {}

impl From<std::io::Error> for ResourceError {
    /// A missing file is "not found"; anything else a failure carrying its text.
    fn from(e: std::io::Error) -> Self {
        match e.kind() {
            std::io::ErrorKind::NotFound => Self::NotFound,
            _ => Self::Failed(e.to_string()),
        }
    }
}

impl From<String> for ResourceError {
    fn from(message: String) -> Self {
        Self::Failed(message)
    }
}

impl From<&str> for ResourceError {
    fn from(message: &str) -> Self {
        Self::Failed(message.to_owned())
    }
}
