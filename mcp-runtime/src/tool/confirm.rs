//! [`Confirm`]: a tool that asks the user before it runs (`#[mcp_tool(confirm)]`).

use crate::protocol::JsonObject;
use serde_json::Value;
use std::borrow::Cow;
use std::fmt::Write as _;

/// How long one argument's value may be in a confirmation question, in characters.
const SHOWN_VALUE_CHARS: usize = 200;

/// Asking the user before a tool runs ([`ToolPolicy::confirm`](super::ToolPolicy::confirm),
/// `#[mcp_tool(confirm)]`).
///
/// The question is an elicitation with no fields, so every client that can elicit shows it
/// as a yes/no dialogue: a legacy session's `elicitation/create` request, a 2026-07-28
/// `input_required` round (the call runs again, from the top, with the answer), or a task's
/// `input_required` status when the call is already a task. A task tool is asked in its
/// call's first round, before its task exists (so none of the tool's work runs before the
/// answer). The tool runs only when the answer is `accept`; `decline`, `cancel`, a timeout or a broken answer stop the call with an `isError` result that tells
/// the model the user did not allow it. The arguments are validated before anyone is asked
/// (nobody is asked about a call that would be refused anyway), and the question is asked
/// outside the tool's timeout, concurrency and rate limits, so a person's time to think
/// holds no slot and spends no budget.
///
/// A client that cannot elicit (it declared no `elicitation` capability, or the request has
/// no way back, like a legacy HTTP client's request without a session) gets
/// [`Unconfirmable::Refuse`] (the default: an `isError` result saying why, which the model
/// can relay) or [`Unconfirmable::Run`] (the tool runs as if no confirmation were
/// configured), chosen per tool.
///
/// What an answer proves: the client is what shows the question, so an `accept` is the
/// client's word that its user accepted; a client that auto-approves (or a 2026-07-28 client
/// that sends the answer with its first call, which the protocol allows) is trusted like
/// one that asks. Every decision is audited on [`AUDIT_TARGET`](crate::pipeline::AUDIT_TARGET)
/// with the caller, the tool and the answer.
///
/// The message is a template over the arguments: `{path}` (or `{{ path }}`, as prompt
/// templates write it) is the argument `path` (a string as it is, anything else as compact
/// JSON, each value shortened to 200 characters); any other `{{` and `}}` are braces. Without a message, the question names the tool and lists the
/// arguments. Placeholders are checked against the tool's input schema at registration
/// (and against the function's parameters at compile time by `#[mcp_tool]`). The template
/// syntax is this small on purpose: the attribute checks it at compile time, which a
/// general template engine's syntax would not allow.
///
/// ```
/// use mcp_runtime::tool::{Confirm, ToolPolicy, Unconfirmable};
/// use serde_json::json;
///
/// let confirm = Confirm::new().message("Delete {path}?");
/// let args = json!({"path": "notes/old.md"});
/// assert_eq!(confirm.render("delete", args.as_object().unwrap()), "Delete notes/old.md?");
///
/// // Without a message the question names the tool and shows the arguments.
/// let plain = Confirm::new().render("delete", args.as_object().unwrap());
/// assert!(plain.starts_with("Allow the tool `delete` to run?") && plain.contains("notes/old.md"));
///
/// let policy = ToolPolicy::new().confirm(Confirm::new().unconfirmable(Unconfirmable::Run));
/// assert!(policy.confirm.is_some());
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Confirm {
    message: Option<Cow<'static, str>>,
    unconfirmable: Unconfirmable,
}

/// What a confirmed tool does when the client cannot be asked.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum Unconfirmable {
    /// Refuse the call with an `isError` result that says the user could not be asked (the
    /// default: a tool that needs a person's approval does not act without one).
    #[default]
    Refuse,
    /// Run the tool as if no confirmation were configured (for tools whose confirmation is
    /// a courtesy, not a safeguard).
    Run,
}

impl Confirm {
    /// Confirmation with the default question, refusing when the client cannot be asked.
    pub fn new() -> Self {
        Self::default()
    }

    /// The question, a template over the arguments (`"Delete {path}?"`; see the
    /// [type's docs](Confirm)).
    pub fn message(mut self, template: impl Into<Cow<'static, str>>) -> Self {
        self.message = Some(template.into());
        self
    }

    /// What happens when the client cannot be asked.
    pub fn unconfirmable(mut self, unconfirmable: Unconfirmable) -> Self {
        self.unconfirmable = unconfirmable;
        self
    }

    /// What happens when the client cannot be asked.
    pub fn when_unconfirmable(&self) -> Unconfirmable {
        self.unconfirmable
    }

    /// The question's template, if one was given.
    pub fn template(&self) -> Option<&str> {
        self.message.as_deref()
    }

    /// The question for a call of `tool` with `arguments`.
    pub fn render(&self, tool: &str, arguments: &JsonObject) -> String {
        let Some(template) = &self.message else {
            let mut out = format!("Allow the tool `{tool}` to run?");
            if !arguments.is_empty() {
                out.push_str("\nArguments:");
                for (name, value) in arguments {
                    let _ = write!(out, "\n  {name}: {}", shown(Some(value)));
                }
            }
            return out;
        };
        let mut out = String::with_capacity(template.len());
        for piece in pieces(template) {
            match piece {
                Piece::Text(text) => out.push_str(text),
                Piece::Argument(name) => out.push_str(&shown(arguments.get(name))),
            }
        }
        out
    }

    /// What is wrong with the template for a tool whose input schema is `input_schema`: a
    /// placeholder that is not a name, or that names no property of the schema.
    pub(crate) fn problems(&self, input_schema: &JsonObject) -> Vec<String> {
        let properties = input_schema.get("properties").and_then(Value::as_object);
        match self.placeholders() {
            Err(problem) => vec![problem],
            Ok(names) => names
                .into_iter()
                .filter(|name| properties.is_none_or(|p| !p.contains_key(*name)))
                .map(|name| {
                    format!(
                        "the confirmation message has `{{{name}}}`, but the tool has no \
                         argument `{name}`"
                    )
                })
                .collect(),
        }
    }

    /// The argument names the template uses, or why it does not parse.
    fn placeholders(&self) -> Result<Vec<&str>, String> {
        let Some(template) = &self.message else {
            return Ok(Vec::new());
        };
        let mut names = Vec::new();
        for piece in pieces(template) {
            match piece {
                Piece::Argument(name) if is_placeholder(name) => names.push(name),
                Piece::Argument(name) => {
                    return Err(format!(
                        "the confirmation message {template:?} has `{{{name}}}`, which is not \
                         an argument's name; write `{{{{` and `}}}}` for braces"
                    ));
                }
                Piece::Text(_) => {}
            }
        }
        Ok(names)
    }
}

/// A placeholder's name: what a parameter may be called.
fn is_placeholder(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '-' || c == '.')
}

enum Piece<'a> {
    Text(&'a str),
    Argument(&'a str),
}

/// The template's text and placeholders, in order. An unmatched `{` or `}` is text.
fn pieces(template: &str) -> impl Iterator<Item = Piece<'_>> {
    let mut rest = template;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        // `{{ name }}`, the Jinja spelling (prompt templates use it), is a placeholder too.
        if let Some(inner) = rest.strip_prefix("{{")
            && let Some(end) = inner.find("}}")
            && is_placeholder(inner[..end].trim())
        {
            let name = &inner[..end];
            rest = &inner[end + 2..];
            return Some(Piece::Argument(name.trim()));
        }
        for escaped in ["{{", "}}"] {
            if let Some(after) = rest.strip_prefix(escaped) {
                let text = &rest[..1];
                rest = after;
                return Some(Piece::Text(text));
            }
        }
        if let Some(inner) = rest.strip_prefix('{')
            && let Some(end) = inner.find('}')
        {
            let name = &inner[..end];
            rest = &inner[end + 1..];
            return Some(Piece::Argument(name.trim()));
        }
        // The first character is text (a lone brace, or none): scan from the next one.
        let first = rest.chars().next().map_or(1, char::len_utf8);
        let end = rest[first..]
            .find(['{', '}'])
            .map_or(rest.len(), |i| i + first);
        let text = &rest[..end];
        rest = &rest[end..];
        Some(Piece::Text(text))
    })
}

/// An argument's value as a question shows it.
fn shown(value: Option<&Value>) -> String {
    let full = match value {
        None | Some(Value::Null) => return "(none)".to_owned(),
        Some(Value::String(s)) => Cow::Borrowed(s.as_str()),
        Some(other) => Cow::Owned(other.to_string()),
    };
    match full.char_indices().nth(SHOWN_VALUE_CHARS) {
        None => full.into_owned(),
        Some((cut, _)) => format!("{}… ({} characters)", &full[..cut], full.chars().count()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn args(v: Value) -> JsonObject {
        v.as_object().cloned().unwrap()
    }

    #[test]
    fn templates_fill_in_arguments() {
        let a = args(json!({"path": "a.txt", "n": 3, "tags": ["x"]}));
        let render = |t: &'static str| Confirm::new().message(t).render("t", &a);
        assert_eq!(render("Delete {path}?"), "Delete a.txt?");
        assert_eq!(render("{n} of {tags}"), "3 of [\"x\"]");
        assert_eq!(render("{{path}} is {path}"), "a.txt is a.txt");
        assert_eq!(render("{{ n }} and {{ }}"), "3 and { }");
        assert_eq!(render("{{{{"), "{{");
        assert_eq!(render("{missing}"), "(none)");
        assert_eq!(render("a { alone"), "a { alone");
        assert_eq!(render("and } too"), "and } too");
        assert_eq!(render("é{path}ü"), "éa.txtü");
        let long = args(json!({"content": "x".repeat(500)}));
        let shown = Confirm::new().message("{content}").render("t", &long);
        assert!(shown.ends_with("… (500 characters)") && shown.chars().count() < 230);
    }

    #[test]
    fn placeholders_are_names() {
        let names = |t: &'static str| {
            let confirm = Confirm::new().message(t);
            confirm
                .placeholders()
                .map(|n| n.into_iter().map(str::to_owned).collect::<Vec<_>>())
        };
        assert_eq!(
            names("Move {source} to {destination}?"),
            Ok(vec!["source".to_owned(), "destination".to_owned()])
        );
        assert_eq!(names("{{literal}}"), Ok(vec!["literal".to_owned()]));
        assert_eq!(names("{{ not a name }}"), Ok(vec![]));
        assert!(names("{not a name}").is_err());
        assert!(names("{}").is_err());
        let schema = args(json!({"type": "object", "properties": {"path": {"type": "string"}}}));
        let problems = |t: &'static str| Confirm::new().message(t).problems(&schema);
        assert!(problems("Delete {path}?").is_empty());
        assert_eq!(problems("Delete {file}?").len(), 1);
        assert!(Confirm::new().problems(&schema).is_empty());
    }
}
