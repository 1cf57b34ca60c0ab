//! Completions of `#[mcp_resource]` template variables and `#[mcp_prompt]` arguments
//! (`completion/complete`).
//!
//! A parameter marked `#[mcp(complete = suggest)]` is completed by `suggest`, a function
//! `fn(value: &str, chosen: &BTreeMap<String, String>) -> R` that gets what the user typed
//! so far and the arguments (or variables) already chosen, and returns the suggestions as
//! any [`IntoCompletion`]: `Vec<String>`, `Vec<&'static str>`, a [`Completion`], or a
//! `BoxFuture<'static, Vec<String>>`. It filters and orders them itself (by prefix, fuzzily,
//! …); the server sends at most [`MAX_COMPLETION_VALUES`] of them.
//!
//! **Synchronous, with an async way out.** A completion is asked for at every keystroke,
//! and most are a filter over a list, so the function is a plain `fn`: no future to box,
//! and a wrong signature is one clear error at the attribute. One whose suggestions need I/O
//! returns a boxed future (`Box::pin(async move { … })`), which runs like any other.
//!
//! **Enums complete by default.** Without `complete`, a parameter whose type has a JSON
//! Schema listing its values (an enum deriving `schemars::JsonSchema`, also inside `Option`
//! or `Vec`) completes from those values that start with what was typed, ignoring ASCII case.
//! The schema is the one `schemars` derives, so the values are the names `serde` gives the
//! variants (`rename_all` included); the parameter's `FromStr` should accept them.
//!
//! [`MAX_COMPLETION_VALUES`]: crate::protocol::MAX_COMPLETION_VALUES

use crate::protocol::Completion;
use futures::future::BoxFuture;
use serde_json::Value;
use std::collections::BTreeMap;

/// What a completion function may return.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a completion function",
    label = "this type does not implement `IntoCompletion`",
    note = "return `Vec<String>`, `Vec<&'static str>`, `Completion`, or `BoxFuture<'static, Vec<String>>` for suggestions that need I/O"
)]
pub trait IntoCompletion {
    /// The suggestions, once ready.
    fn into_completion(self) -> BoxFuture<'static, Completion>;
}

impl IntoCompletion for Vec<String> {
    fn into_completion(self) -> BoxFuture<'static, Completion> {
        Completion::from_all(self).into_completion()
    }
}

impl IntoCompletion for Vec<&'static str> {
    fn into_completion(self) -> BoxFuture<'static, Completion> {
        Completion::from_all(self.into_iter().map(str::to_owned)).into_completion()
    }
}

impl IntoCompletion for Completion {
    fn into_completion(self) -> BoxFuture<'static, Completion> {
        Box::pin(std::future::ready(self))
    }
}

impl IntoCompletion for BoxFuture<'static, Vec<String>> {
    fn into_completion(self) -> BoxFuture<'static, Completion> {
        Box::pin(async move { Completion::from_all(self.await) })
    }
}

/// A completion function: what `#[mcp(complete = …)]` names. Implemented for every
/// `Fn(&str, &BTreeMap<String, String>) -> impl IntoCompletion`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a completion function",
    label = "`complete` names a function `fn(value: &str, chosen: &BTreeMap<String, String>) -> Vec<String>`",
    note = "a completion function gets what was typed so far and the values already chosen, and returns `Vec<String>`, `Vec<&'static str>`, `Completion` or `BoxFuture<'static, Vec<String>>`"
)]
pub trait CompleteFn {
    /// Suggests values for `value`, given the `chosen` ones.
    fn suggest(
        &self,
        value: &str,
        chosen: &BTreeMap<String, String>,
    ) -> BoxFuture<'static, Completion>;
}

impl<F, R> CompleteFn for F
where
    F: Fn(&str, &BTreeMap<String, String>) -> R,
    R: IntoCompletion,
{
    fn suggest(
        &self,
        value: &str,
        chosen: &BTreeMap<String, String>,
    ) -> BoxFuture<'static, Completion> {
        self(value, chosen).into_completion()
    }
}

/// The values a JSON Schema lists: the strings of its `enum`, and the `const` (or `enum`)
/// strings of its `oneOf` / `anyOf` alternatives (how `schemars` writes an enum whose
/// variants have doc comments). Nothing for a schema that lists no values.
///
/// ```
/// use mcp_runtime::completion::schema_values;
/// use serde_json::json;
///
/// assert_eq!(schema_values(&json!({"type": "string", "enum": ["celsius", "fahrenheit"]})), ["celsius", "fahrenheit"]);
/// let documented = json!({"oneOf": [
///     {"type": "string", "const": "celsius", "description": "Degrees Celsius"},
///     {"type": "string", "const": "fahrenheit", "description": "Degrees Fahrenheit"},
/// ]});
/// assert_eq!(schema_values(&documented), ["celsius", "fahrenheit"]);
/// assert!(schema_values(&json!({"type": "string"})).is_empty());
/// ```
pub fn schema_values(schema: &Value) -> Vec<String> {
    let mut values = Vec::new();
    collect_values(schema, &mut values);
    values
}

fn collect_values(schema: &Value, values: &mut Vec<String>) {
    let strings = |v: &Value| -> Vec<String> {
        v.as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect()
    };
    if let Some(listed) = schema.get("enum") {
        values.extend(strings(listed));
    }
    if let Some(Value::String(one)) = schema.get("const") {
        values.push(one.clone());
    }
    for key in ["oneOf", "anyOf"] {
        for alternative in schema
            .get(key)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            collect_values(alternative, values);
        }
    }
}

/// The `values` that start with `typed`, ignoring ASCII case, in their order.
///
/// ```
/// use mcp_runtime::completion::matching;
///
/// let c = matching(["celsius", "fahrenheit", "Kelvin"].map(String::from), "k");
/// assert_eq!(c.values, ["Kelvin"]);
/// ```
pub fn matching(values: impl IntoIterator<Item = String>, typed: &str) -> Completion {
    let typed = typed.to_ascii_lowercase();
    Completion::from_all(
        values
            .into_iter()
            .filter(|v| v.to_ascii_lowercase().starts_with(&typed)),
    )
}
