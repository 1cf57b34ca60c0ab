//! `prompts/list` and `prompts/get` wire types (spec `primitives.md` §3).

use super::common::Icon;
use super::common::JsonObject;
use super::content::{Content, Role};
use super::meta::RequestMeta;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A prompt as `prompts/list` describes it (the spec's `Prompt`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct PromptDefinition {
    /// Unique name.
    pub name: String,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the prompt is for. Optional in the spec, required by clients and the
    /// conformance suite, so required at registration here.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The arguments it takes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Vec<PromptArgument>>,
    /// Icons.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

impl PromptDefinition {
    /// A prompt with a name and a description, taking no arguments.
    ///
    /// ```
    /// use mcp_runtime::protocol::{PromptArgument, PromptDefinition};
    ///
    /// let review = PromptDefinition::new("code_review", "Asks for a review of some code.")
    ///     .with_argument(PromptArgument::required("code", "The code to review"));
    /// assert_eq!(review.arguments.unwrap()[0].required, Some(true));
    /// ```
    pub fn new(name: impl Into<String>, description: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            title: None,
            description: Some(description.into()),
            arguments: None,
            icons: None,
            meta: None,
        }
    }

    /// With one more argument.
    pub fn with_argument(mut self, argument: PromptArgument) -> Self {
        self.arguments.get_or_insert_with(Vec::new).push(argument);
        self
    }

    /// With a display title.
    pub fn with_title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }
}

/// One argument of a prompt. Its value always arrives as a string.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct PromptArgument {
    /// The argument's name.
    pub name: String,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What to give.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Whether it must be given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required: Option<bool>,
}

impl PromptArgument {
    /// A required argument.
    pub fn required(name: impl Into<String>, description: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            title: None,
            description: Some(description.into()),
            required: Some(true),
        }
    }

    /// An optional argument.
    pub fn optional(name: impl Into<String>, description: impl Into<String>) -> Self {
        Self {
            required: Some(false),
            ..Self::required(name, description)
        }
    }
}

/// One message of a prompt: a role and exactly one content block.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PromptMessage {
    /// Who says it.
    pub role: Role,
    /// What is said.
    pub content: Content,
}

impl PromptMessage {
    /// A message of `role` with one content block.
    pub fn new(role: Role, content: Content) -> Self {
        Self { role, content }
    }

    /// A user message with one text block.
    pub fn user(text: impl Into<String>) -> Self {
        Self {
            role: Role::User,
            content: Content::text(text),
        }
    }

    /// An assistant message with one text block.
    pub fn assistant(text: impl Into<String>) -> Self {
        Self {
            role: Role::Assistant,
            content: Content::text(text),
        }
    }
}

/// `prompts/list` result.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ListPromptsResult {
    /// One page of prompts.
    pub prompts: Vec<PromptDefinition>,
    /// Cursor of the next page, absent on the last.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

/// `prompts/get` params.
#[derive(Debug, Clone, Deserialize)]
#[non_exhaustive]
pub struct GetPromptParams {
    /// The prompt's name.
    pub name: String,
    /// The arguments, all strings.
    #[serde(default)]
    pub arguments: Option<BTreeMap<String, String>>,
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

/// `prompts/get` result.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct GetPromptResult {
    /// A description of this rendering.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The messages.
    pub messages: Vec<PromptMessage>,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

impl GetPromptResult {
    /// A result with these messages.
    pub fn new(messages: Vec<PromptMessage>) -> Self {
        Self {
            description: None,
            messages,
            meta: None,
        }
    }
}
