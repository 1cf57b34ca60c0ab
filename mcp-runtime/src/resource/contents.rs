//! [`IntoContents`]: what a resource read may return, and [`ResourceError`]: how it fails.

use crate::protocol::{
    BlobResourceContents, Era, ErrorCode, McpError, ResourceContents, TextResourceContents,
};
use crate::tool::Json;
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde::Serialize;
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

/// Turns what a read returns into the contents of `uri`.
///
/// Implemented for text (`String`, `&str`: a text item, `text/plain` unless the definition
/// names a MIME type), bytes (`Vec<u8>`: a base64 `blob`, `application/octet-stream`
/// unless named), [`Json<T>`] (text, `application/json`), [`ResourceContents`] and
/// `Vec<ResourceContents>` (as they are), and `Result<T, E>` where `E: Into<ResourceError>`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from an MCP resource",
    label = "this type does not implement `IntoContents`",
    note = "return text (`String`), bytes (`Vec<u8>`), `Json<T>`, `ResourceContents`, `Vec<ResourceContents>`, or `Result<T, E>` with `E: Into<ResourceError>`"
)]
pub trait IntoContents {
    /// The conversion; `mime_type` is the definition's, when it has one.
    fn into_contents(
        self,
        uri: &str,
        mime_type: Option<&str>,
    ) -> Result<Vec<ResourceContents>, ResourceError>;
}

fn text(uri: &str, mime_type: &str, text: String) -> ResourceContents {
    ResourceContents::Text(TextResourceContents {
        uri: uri.to_owned(),
        mime_type: Some(mime_type.to_owned()),
        text,
        meta: None,
    })
}

impl IntoContents for String {
    fn into_contents(
        self,
        uri: &str,
        mime_type: Option<&str>,
    ) -> Result<Vec<ResourceContents>, ResourceError> {
        Ok(vec![text(uri, mime_type.unwrap_or("text/plain"), self)])
    }
}

impl IntoContents for &str {
    fn into_contents(
        self,
        uri: &str,
        mime_type: Option<&str>,
    ) -> Result<Vec<ResourceContents>, ResourceError> {
        self.to_owned().into_contents(uri, mime_type)
    }
}

impl IntoContents for Vec<u8> {
    fn into_contents(
        self,
        uri: &str,
        mime_type: Option<&str>,
    ) -> Result<Vec<ResourceContents>, ResourceError> {
        Ok(vec![ResourceContents::Blob(BlobResourceContents {
            uri: uri.to_owned(),
            mime_type: Some(mime_type.unwrap_or("application/octet-stream").to_owned()),
            blob: STANDARD.encode(self),
            meta: None,
        })])
    }
}

impl<T: Serialize> IntoContents for Json<T> {
    fn into_contents(
        self,
        uri: &str,
        mime_type: Option<&str>,
    ) -> Result<Vec<ResourceContents>, ResourceError> {
        let body = serde_json::to_string(&self.0).map_err(ResourceError::failed)?;
        Ok(vec![text(
            uri,
            mime_type.unwrap_or("application/json"),
            body,
        )])
    }
}

impl IntoContents for ResourceContents {
    fn into_contents(
        self,
        _: &str,
        _: Option<&str>,
    ) -> Result<Vec<ResourceContents>, ResourceError> {
        Ok(vec![self])
    }
}

impl IntoContents for Vec<ResourceContents> {
    fn into_contents(
        self,
        _: &str,
        _: Option<&str>,
    ) -> Result<Vec<ResourceContents>, ResourceError> {
        Ok(self)
    }
}

impl<T: IntoContents, E: Into<ResourceError>> IntoContents for Result<T, E> {
    fn into_contents(
        self,
        uri: &str,
        mime_type: Option<&str>,
    ) -> Result<Vec<ResourceContents>, ResourceError> {
        self.map_err(Into::into)?.into_contents(uri, mime_type)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn returns_become_contents_of_the_uri() {
        let t = "hi".into_contents("a://x", None).unwrap();
        assert_eq!(
            serde_json::to_value(&t).unwrap(),
            json!([{"uri": "a://x", "mimeType": "text/plain", "text": "hi"}])
        );
        let b = vec![0u8, 255]
            .into_contents("a://y", Some("image/png"))
            .unwrap();
        assert_eq!(
            serde_json::to_value(&b).unwrap(),
            json!([{"uri": "a://y", "mimeType": "image/png", "blob": "AP8="}])
        );
        let j = Json(json!({"k": 1})).into_contents("a://z", None).unwrap();
        assert_eq!(serde_json::to_value(&j).unwrap()[0]["text"], r#"{"k":1}"#);
        let missing: Result<String, ResourceError> = Err(ResourceError::NotFound);
        assert_eq!(
            missing.into_contents("a://w", None),
            Err(ResourceError::NotFound)
        );
        let io: Result<String, std::io::Error> =
            Err(std::io::Error::from(std::io::ErrorKind::NotFound));
        assert_eq!(
            io.into_contents("a://w", None),
            Err(ResourceError::NotFound)
        );
    }
}
