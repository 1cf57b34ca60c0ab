//! Types many messages share: JSON objects and icons.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// A JSON object.
pub type JsonObject = Map<String, Value>;

/// An icon for a tool, prompt, resource or implementation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Icon {
    /// An `https:` or `data:` URI.
    pub src: String,
    /// MIME type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Sizes such as `48x48` or `any`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sizes: Option<Vec<String>>,
    /// `light` or `dark`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub theme: Option<String>,
}

impl Icon {
    /// An icon at `src` (an `https:` or `data:` URI), with nothing else said of it.
    ///
    /// ```
    /// use mcp_runtime::protocol::Icon;
    ///
    /// let icon = Icon::new("https://example.com/icon.png").with_mime_type("image/png");
    /// assert_eq!(icon.mime_type.as_deref(), Some("image/png"));
    /// ```
    pub fn new(src: impl Into<String>) -> Self {
        Self {
            src: src.into(),
            mime_type: None,
            sizes: None,
            theme: None,
        }
    }

    /// With its MIME type.
    pub fn with_mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.mime_type = Some(mime_type.into());
        self
    }

    /// With the sizes it comes in (`48x48`, `any`).
    pub fn with_sizes<S: Into<String>>(mut self, sizes: impl IntoIterator<Item = S>) -> Self {
        self.sizes = Some(sizes.into_iter().map(Into::into).collect());
        self
    }

    /// For a `light` or `dark` theme.
    pub fn with_theme(mut self, theme: impl Into<String>) -> Self {
        self.theme = Some(theme.into());
        self
    }
}
