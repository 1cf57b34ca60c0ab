//! [`IntoContents`]: what a resource read may return.

use super::ResourceError;
use crate::context::Json;
use crate::protocol::{BlobResourceContents, ResourceContents, TextResourceContents};
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde::Serialize;

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
    use serde_json::json;

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
