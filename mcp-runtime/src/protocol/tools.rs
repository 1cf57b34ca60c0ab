//! `tools/list` and `tools/call` wire types.

use super::common::{Icon, JsonObject};
use super::content::Content;
use super::meta::RequestMeta;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A tool as `tools/list` describes it (the spec's `Tool`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ToolDefinition {
    /// Unique name: 1–128 characters of `[A-Za-z0-9_.-]`.
    pub name: String,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the tool does; the model reads this to decide when to call it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// JSON Schema of the arguments; root `type: "object"`.
    pub input_schema: JsonObject,
    /// JSON Schema of `structuredContent`, when the tool returns structured output.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Value>,
    /// Behaviour hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<ToolAnnotations>,
    /// Icons.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

impl ToolDefinition {
    /// A definition with a name, a description and an input schema.
    ///
    /// The schema must be a JSON object; anything else is stored as an empty object and
    /// rejected at registration. Use `serde_json::json!({...})` to write it.
    pub fn new(
        name: impl Into<String>,
        description: impl Into<String>,
        input_schema: Value,
    ) -> Self {
        Self {
            name: name.into(),
            title: None,
            description: Some(description.into()),
            input_schema: match input_schema {
                Value::Object(o) => o,
                _ => JsonObject::new(),
            },
            output_schema: None,
            annotations: None,
            icons: None,
            meta: None,
        }
    }

    /// Sets the display title.
    pub fn with_title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// Sets the output schema.
    pub fn with_output_schema(mut self, schema: Value) -> Self {
        self.output_schema = Some(schema);
        self
    }

    /// Sets the annotations.
    pub fn with_annotations(mut self, annotations: ToolAnnotations) -> Self {
        self.annotations = Some(annotations);
        self
    }
}

/// Behaviour hints about a tool. Untrusted from the client's point of view.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ToolAnnotations {
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The tool does not modify its environment (default false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_only_hint: Option<bool>,
    /// The tool may perform destructive updates (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub destructive_hint: Option<bool>,
    /// Repeating a call with the same arguments has no further effect (default false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotent_hint: Option<bool>,
    /// The tool talks to an open world of external entities (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_world_hint: Option<bool>,
}

/// `tools/list` (and other paginated list) params.
#[derive(Debug, Clone, Default, Deserialize)]
#[non_exhaustive]
pub struct PaginatedParams {
    /// Where to continue; opaque.
    #[serde(default)]
    pub cursor: Option<String>,
    /// `_meta`.
    #[serde(rename = "_meta", default)]
    pub meta: Option<RequestMeta>,
}

/// `tools/list` result (the era fields are added by the projection).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ListToolsResult {
    /// One page of tools.
    pub tools: Vec<ToolDefinition>,
    /// Cursor of the next page, absent on the last.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

/// `tools/call` params.
#[derive(Debug, Clone, Deserialize)]
#[non_exhaustive]
pub struct CallToolParams {
    /// The tool's name.
    pub name: String,
    /// The arguments; absent means `{}`.
    #[serde(default)]
    pub arguments: Option<Value>,
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

/// `tools/call` result.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CallToolResult {
    /// Unstructured content.
    #[serde(default)]
    pub content: Vec<Content>,
    /// Structured content, conforming to the tool's `outputSchema` when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured_content: Option<Value>,
    /// Whether the call failed inside the tool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

impl CallToolResult {
    /// A successful result with these content blocks.
    pub fn success(content: Vec<Content>) -> Self {
        Self {
            content,
            ..Self::default()
        }
    }

    /// A successful result with one text block.
    pub fn text(text: impl Into<String>) -> Self {
        Self::success(vec![Content::text(text)])
    }

    /// A tool-level failure (`isError: true`) with one text block the model can act on.
    pub fn error(message: impl Into<String>) -> Self {
        Self {
            content: vec![Content::text(message)],
            is_error: Some(true),
            ..Self::default()
        }
    }

    /// A successful structured result: `structuredContent` plus its text copy.
    pub fn structured(value: Value) -> Self {
        let text = value.to_string();
        Self {
            content: vec![Content::text(text)],
            structured_content: Some(value),
            ..Self::default()
        }
    }

    /// Whether this result reports a failure.
    pub fn is_error(&self) -> bool {
        self.is_error == Some(true)
    }

    /// The text of the first text block, if any (handy in tests).
    pub fn first_text(&self) -> Option<&str> {
        self.content.iter().find_map(Content::as_text)
    }
}
