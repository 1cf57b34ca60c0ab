//! The file tools' argument and result types: what the reference server's schemas and
//! result shapes need beyond plain strings.

use crate::protocol::{CallToolResult, Content};
use crate::tool::IntoToolResult;
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Value, json};
use std::borrow::Cow;

/// One replacement: the text to find and the text to put in its place.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct EditOperation {
    /// Text to search for - must match exactly
    #[serde(rename = "oldText")]
    pub(crate) old_text: String,
    /// Text to replace with
    #[serde(rename = "newText")]
    pub(crate) new_text: String,
}

/// `sortBy` of `list_directory_with_sizes`.
// `Serialize` lets the schema show the default.
#[derive(Debug, Clone, Copy, Default, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum SortBy {
    #[default]
    Name,
    Size,
}

/// A line count for `head` and `tail`: a whole number ≥ 0, also accepted as `5.0` (the
/// reference declares `number`, and JavaScript clients may send either). 0 means "not given".
#[derive(Debug, Clone, Copy)]
pub(crate) struct LineCount(u64);

impl LineCount {
    pub(crate) fn given(count: Option<LineCount>) -> Option<usize> {
        count
            .filter(|c| c.0 > 0)
            .map(|c| usize::try_from(c.0).unwrap_or(usize::MAX))
    }
}

impl<'de> Deserialize<'de> for LineCount {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = LineCount;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a whole number of lines, 0 or more")
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<LineCount, E> {
                Ok(LineCount(v))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<LineCount, E> {
                u64::try_from(v)
                    .map(LineCount)
                    .map_err(|_| E::invalid_value(serde::de::Unexpected::Signed(v), &self))
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<LineCount, E> {
                if v >= 0.0 && v.fract() == 0.0 {
                    // Saturates past u64::MAX: more lines than any file has.
                    Ok(LineCount(v as u64))
                } else {
                    Err(E::invalid_value(serde::de::Unexpected::Float(v), &self))
                }
            }
        }
        d.deserialize_any(Visitor)
    }
}

impl JsonSchema for LineCount {
    fn schema_name() -> Cow<'static, str> {
        "LineCount".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({"type": "integer", "minimum": 0})
    }
}

/// The reference's text result: the text as a content block and as
/// `structuredContent.content`, plus an optional note in a second block.
pub(crate) struct TextResult {
    text: String,
    note: Option<String>,
}

impl TextResult {
    pub(crate) fn new(text: String) -> Self {
        Self { text, note: None }
    }

    pub(crate) fn with_note(mut self, note: Option<String>) -> Self {
        self.note = note;
        self
    }
}

impl IntoToolResult for TextResult {
    fn into_tool_result(self) -> CallToolResult {
        let structured = json!({ "content": self.text });
        let mut content = vec![Content::text(self.text)];
        content.extend(self.note.map(Content::text));
        CallToolResult {
            content,
            structured_content: Some(structured),
            ..CallToolResult::default()
        }
    }

    fn output_schema() -> Option<Value> {
        Some(json!({
            "type": "object",
            "properties": {"content": {"type": "string"}},
            "required": ["content"],
            "additionalProperties": false
        }))
    }
}

/// `read_media_file`'s result: one block, repeated in `structuredContent.content`.
pub(crate) struct MediaResult(pub(crate) Content);

impl IntoToolResult for MediaResult {
    fn into_tool_result(self) -> CallToolResult {
        let item = serde_json::to_value(&self.0).unwrap_or(Value::Null);
        CallToolResult {
            content: vec![self.0],
            structured_content: Some(json!({ "content": [item] })),
            ..CallToolResult::default()
        }
    }

    fn output_schema() -> Option<Value> {
        let string = json!({"type": "string"});
        Some(json!({
            "type": "object",
            "properties": {
                "content": {
                    "type": "array",
                    "items": {
                        "anyOf": [
                            {
                                "type": "object",
                                "properties": {
                                    "type": {"type": "string", "enum": ["image", "audio"]},
                                    "data": string,
                                    "mimeType": string
                                },
                                "required": ["type", "data", "mimeType"],
                                "additionalProperties": false
                            },
                            {
                                "type": "object",
                                "properties": {
                                    "type": {"type": "string", "const": "resource"},
                                    "resource": {
                                        "type": "object",
                                        "properties": {
                                            "uri": string,
                                            "mimeType": string,
                                            "blob": string
                                        },
                                        "required": ["uri", "blob"],
                                        "additionalProperties": false
                                    }
                                },
                                "required": ["type", "resource"],
                                "additionalProperties": false
                            }
                        ]
                    }
                }
            },
            "required": ["content"],
            "additionalProperties": false
        }))
    }
}
