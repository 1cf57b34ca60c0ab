//! Content blocks: what tool results (and later prompts) carry.

use super::common::{Icon, JsonObject};
use serde::{Deserialize, Serialize};

/// Who a piece of content is meant for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The person using the client.
    User,
    /// The model.
    Assistant,
}

/// Hints about how to use a piece of content.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Annotations {
    /// Who it is meant for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audience: Option<Vec<Role>>,
    /// Importance from 0 (least) to 1 (most).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<f64>,
    /// ISO 8601 time of the last change.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_modified: Option<String>,
}

/// One content block.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Content {
    /// Text.
    Text(TextContent),
    /// A base64-encoded image.
    Image(BinaryContent),
    /// Base64-encoded audio.
    Audio(BinaryContent),
    /// A link to a resource the client may read.
    ResourceLink(ResourceLink),
    /// A resource embedded in the result.
    Resource(EmbeddedResource),
}

impl Content {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        Content::Text(TextContent {
            text: text.into(),
            annotations: None,
            meta: None,
        })
    }

    /// An image block from base64 data and a MIME type.
    pub fn image(data_base64: impl Into<String>, mime_type: impl Into<String>) -> Self {
        Content::Image(BinaryContent::new(data_base64, mime_type))
    }

    /// An audio block from base64 data and a MIME type.
    pub fn audio(data_base64: impl Into<String>, mime_type: impl Into<String>) -> Self {
        Content::Audio(BinaryContent::new(data_base64, mime_type))
    }

    /// An embedded resource: contents read from a resource (see
    /// [`RequestContext::read_resource`](crate::context::RequestContext::read_resource)).
    pub fn embedded(contents: ResourceContents) -> Self {
        Content::Resource(EmbeddedResource {
            resource: contents,
            annotations: None,
            meta: None,
        })
    }

    /// An embedded text resource.
    pub fn embedded_text(
        uri: impl Into<String>,
        mime_type: Option<String>,
        text: impl Into<String>,
    ) -> Self {
        Content::Resource(EmbeddedResource {
            resource: ResourceContents::Text(TextResourceContents {
                uri: uri.into(),
                mime_type,
                text: text.into(),
                meta: None,
            }),
            annotations: None,
            meta: None,
        })
    }

    /// The text of a text block.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            Content::Text(t) => Some(&t.text),
            _ => None,
        }
    }
}

/// A text block.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TextContent {
    /// The text.
    pub text: String,
    /// Hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// An image or audio block.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct BinaryContent {
    /// Base64-encoded bytes.
    pub data: String,
    /// The MIME type, e.g. `image/png`.
    pub mime_type: String,
    /// Hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

impl BinaryContent {
    /// Bytes (already base64) and a MIME type.
    pub fn new(data_base64: impl Into<String>, mime_type: impl Into<String>) -> Self {
        Self {
            data: data_base64.into(),
            mime_type: mime_type.into(),
            annotations: None,
            meta: None,
        }
    }
}

/// A link to a resource.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ResourceLink {
    /// The resource's URI.
    pub uri: String,
    /// Programmatic name.
    pub name: String,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// MIME type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Size in bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// Icons.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// A resource embedded in a result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct EmbeddedResource {
    /// Its contents.
    pub resource: ResourceContents,
    /// Hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// A resource's contents: text or base64 blob. (Exhaustive on purpose, as [`Role`] is:
/// these are the wire format's two forms; a new kind of content would be a new type.)
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ResourceContents {
    /// Text contents.
    Text(TextResourceContents),
    /// Binary contents.
    Blob(BlobResourceContents),
}

/// Text contents of a resource.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct TextResourceContents {
    /// The URI.
    pub uri: String,
    /// MIME type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// The text.
    pub text: String,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// Binary contents of a resource.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct BlobResourceContents {
    /// The URI.
    pub uri: String,
    /// MIME type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Base64-encoded bytes.
    pub blob: String,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

impl TextResourceContents {
    /// The text of the resource at `uri`.
    ///
    /// ```
    /// use mcp_runtime::protocol::{ResourceContents, TextResourceContents};
    ///
    /// let contents = TextResourceContents::new("config://app", "{}").with_mime_type("application/json");
    /// assert_eq!(contents.mime_type.as_deref(), Some("application/json"));
    /// let _: ResourceContents = contents.into();
    /// ```
    pub fn new(uri: impl Into<String>, text: impl Into<String>) -> Self {
        Self {
            uri: uri.into(),
            mime_type: None,
            text: text.into(),
            meta: None,
        }
    }

    /// With its MIME type.
    pub fn with_mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.mime_type = Some(mime_type.into());
        self
    }
}

impl BlobResourceContents {
    /// The bytes of the resource at `uri`, base64-encoded.
    ///
    /// ```
    /// use mcp_runtime::protocol::BlobResourceContents;
    ///
    /// let logo = BlobResourceContents::new("echo://logo", "iVBORw0KGgo=").with_mime_type("image/png");
    /// assert_eq!(logo.blob, "iVBORw0KGgo=");
    /// ```
    pub fn new(uri: impl Into<String>, blob_base64: impl Into<String>) -> Self {
        Self {
            uri: uri.into(),
            mime_type: None,
            blob: blob_base64.into(),
            meta: None,
        }
    }

    /// With its MIME type.
    pub fn with_mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.mime_type = Some(mime_type.into());
        self
    }
}

impl From<TextResourceContents> for ResourceContents {
    fn from(contents: TextResourceContents) -> Self {
        Self::Text(contents)
    }
}

impl From<BlobResourceContents> for ResourceContents {
    fn from(contents: BlobResourceContents) -> Self {
        Self::Blob(contents)
    }
}
