//! `resources/list`, `resources/templates/list`, `resources/read` and the subscription
//! wire types (spec `primitives.md` §2).

use super::common::Icon;
use super::common::JsonObject;
use super::content::{Annotations, ResourceContents};
use super::meta::RequestMeta;
use serde::{Deserialize, Serialize};

/// A resource with a fixed URI, as `resources/list` describes it (the spec's `Resource`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ResourceDefinition {
    /// The resource's URI.
    pub uri: String,
    /// Programmatic name.
    pub name: String,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What it is; the model and the user read this.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// MIME type of its contents.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Size in bytes, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// Icons.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Hints (audience, priority, last modification).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

impl ResourceDefinition {
    /// A resource with a URI and a name.
    ///
    /// ```
    /// use mcp_runtime::protocol::ResourceDefinition;
    ///
    /// let config = ResourceDefinition::new("config://app", "config")
    ///     .with_description("The application's configuration.")
    ///     .with_mime_type("application/json");
    /// assert_eq!(config.mime_type.as_deref(), Some("application/json"));
    /// ```
    pub fn new(uri: impl Into<String>, name: impl Into<String>) -> Self {
        Self {
            uri: uri.into(),
            name: name.into(),
            title: None,
            description: None,
            mime_type: None,
            size: None,
            icons: None,
            annotations: None,
            meta: None,
        }
    }

    /// With a description.
    pub fn with_description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// With a MIME type.
    pub fn with_mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.mime_type = Some(mime_type.into());
        self
    }

    /// With a display title.
    pub fn with_title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }
}

/// A family of resources named by an RFC 6570 URI template, as `resources/templates/list`
/// describes it (the spec's `ResourceTemplate`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ResourceTemplateDefinition {
    /// The URI template, e.g. `users://{id}/profile`.
    pub uri_template: String,
    /// Programmatic name.
    pub name: String,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the resources are.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// MIME type of every resource the template names, when they share one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
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

impl ResourceTemplateDefinition {
    /// A template with a URI template and a name.
    pub fn new(uri_template: impl Into<String>, name: impl Into<String>) -> Self {
        Self {
            uri_template: uri_template.into(),
            name: name.into(),
            title: None,
            description: None,
            mime_type: None,
            icons: None,
            annotations: None,
            meta: None,
        }
    }

    /// With a description.
    pub fn with_description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// With a MIME type.
    pub fn with_mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.mime_type = Some(mime_type.into());
        self
    }
}

/// `resources/list` result (the era fields are added by the projection).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ListResourcesResult {
    /// One page of resources.
    pub resources: Vec<ResourceDefinition>,
    /// Cursor of the next page, absent on the last.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

/// `resources/templates/list` result.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ListResourceTemplatesResult {
    /// One page of templates.
    pub resource_templates: Vec<ResourceTemplateDefinition>,
    /// Cursor of the next page, absent on the last.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

/// `resources/read`, `resources/subscribe` and `resources/unsubscribe` params.
#[derive(Debug, Clone, Deserialize)]
#[non_exhaustive]
pub struct ResourceUriParams {
    /// The resource's URI (concrete, never a template).
    pub uri: String,
    /// `_meta`.
    #[serde(rename = "_meta", default)]
    pub meta: Option<RequestMeta>,
    /// Modern retries: the answers to an input-required result's requests, by key.
    #[serde(rename = "inputResponses", default)]
    pub input_responses: Option<serde_json::Value>,
    /// Modern retries: the `requestState` of the input-required result, echoed.
    #[serde(rename = "requestState", default)]
    pub request_state: Option<serde_json::Value>,
}

/// `resources/read` result.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ReadResourceResult {
    /// The contents: one, or several (a directory's files).
    pub contents: Vec<ResourceContents>,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

impl ReadResourceResult {
    /// A read that found `contents`.
    pub fn new(contents: Vec<ResourceContents>) -> Self {
        Self {
            contents,
            meta: None,
        }
    }
}
