//! `completion/complete` wire types (spec `primitives.md` §4).

use super::meta::RequestMeta;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The most values one completion result may carry (schema `CompleteResult`).
pub const MAX_COMPLETION_VALUES: usize = 100;

/// What is being completed: a prompt's argument or a resource template's variable.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type")]
#[non_exhaustive]
pub enum CompletionReference {
    /// A prompt, by name.
    #[serde(rename = "ref/prompt")]
    Prompt {
        /// The prompt's name.
        name: String,
    },
    /// A resource template, by its URI template string.
    #[serde(rename = "ref/resource")]
    Resource {
        /// The URI template (or a URI).
        uri: String,
    },
}

/// The argument being completed and what has been typed so far.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct CompletionArgument {
    /// The argument's (or variable's) name.
    pub name: String,
    /// What has been typed so far.
    pub value: String,
}

/// Arguments already chosen.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct CompletionContext {
    /// Already-resolved arguments, by name.
    #[serde(default)]
    pub arguments: Option<BTreeMap<String, String>>,
}

/// `completion/complete` params.
#[derive(Debug, Clone, Deserialize)]
#[non_exhaustive]
pub struct CompleteParams {
    /// What is being completed.
    #[serde(rename = "ref")]
    pub reference: CompletionReference,
    /// The argument and its partial value.
    pub argument: CompletionArgument,
    /// Arguments already chosen.
    #[serde(default)]
    pub context: Option<CompletionContext>,
    /// `_meta`.
    #[serde(rename = "_meta", default)]
    pub meta: Option<RequestMeta>,
}

/// Suggested values.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Completion {
    /// At most [`MAX_COMPLETION_VALUES`] values, best first.
    pub values: Vec<String>,
    /// How many values there are in all, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<u64>,
    /// Whether there are more than `values` holds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub has_more: Option<bool>,
}

impl Completion {
    /// A completion from every matching value: the first [`MAX_COMPLETION_VALUES`] are sent,
    /// with `total` and `hasMore` saying how many there were.
    ///
    /// ```
    /// use mcp_runtime::protocol::Completion;
    ///
    /// let c = Completion::from_all((0..250).map(|i| i.to_string()));
    /// assert_eq!((c.values.len(), c.total, c.has_more), (100, Some(250), Some(true)));
    /// ```
    pub fn from_all(values: impl IntoIterator<Item = String>) -> Self {
        Self::from_all_inner(values)
    }

    /// Keeps at most [`MAX_COMPLETION_VALUES`] values; when it drops some, `total` counts
    /// them (unless already larger) and `hasMore` is `true`. What a server sends is always
    /// capped this way, whatever a completion handler returned.
    pub fn capped(mut self) -> Self {
        let n = self.values.len();
        if n > MAX_COMPLETION_VALUES {
            self.values.truncate(MAX_COMPLETION_VALUES);
            self.total = Some(self.total.unwrap_or(0).max(n as u64));
            self.has_more = Some(true);
        }
        self
    }

    fn from_all_inner(values: impl IntoIterator<Item = String>) -> Self {
        let mut values: Vec<String> = values.into_iter().collect();
        let total = values.len();
        values.truncate(MAX_COMPLETION_VALUES);
        Self {
            has_more: Some(total > values.len()),
            total: Some(total as u64),
            values,
        }
    }
}

/// `completion/complete` result.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct CompleteResult {
    /// The suggestions.
    pub completion: Completion,
}
