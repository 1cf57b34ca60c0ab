//! What `read` and `prompt` show: resource contents (text as it is, bytes summarized or
//! saved), prompt arguments from `key=value` pairs checked against the prompt's definition,
//! and prompt messages with their roles.

use crate::error::usage;
use anyhow::{Result, anyhow};
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use mcp_runtime::protocol::{
    Content, ErrorCode, GetPromptResult, McpError, PromptDefinition, ReadResourceResult,
    ResourceContents, Role,
};
use std::collections::BTreeMap;

/// How a failed `resources/read` reads to a person.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadFailure {
    /// Nothing is at the URI (`-32002`, or `-32602` "Resource not found").
    NotFound,
    /// The server refused the URI (`-32602`: invalid, or not allowed), with its message.
    Refused(String),
    /// Anything else, with the error's code and message.
    Failed(String),
}

impl ReadFailure {
    /// Classifies a JSON-RPC error answering `resources/read` (spec: `-32002` on the legacy
    /// leg and `-32602` on the modern one mean "not found").
    pub fn of(error: &McpError) -> Self {
        if error.code == ErrorCode::RESOURCE_NOT_FOUND
            || (error.code == ErrorCode::INVALID_PARAMS && error.message == "Resource not found")
        {
            Self::NotFound
        } else if error.code == ErrorCode::INVALID_PARAMS {
            Self::Refused(error.message.to_string())
        } else {
            Self::Failed(format!(
                "the server answered with error {}: {}",
                error.code, error.message
            ))
        }
    }
}

fn uri_of(contents: &ResourceContents) -> &str {
    match contents {
        ResourceContents::Text(t) => &t.uri,
        ResourceContents::Blob(b) => &b.uri,
    }
}

fn mime_of(contents: &ResourceContents) -> Option<&str> {
    match contents {
        ResourceContents::Text(t) => t.mime_type.as_deref(),
        ResourceContents::Blob(b) => b.mime_type.as_deref(),
    }
}

/// The length of what base64 text decodes to, or `None` when it is not base64.
fn decoded_len(data: &str) -> Option<usize> {
    STANDARD.decode(data).ok().map(|b| b.len())
}

fn bytes_summary(kind: &str, mime: Option<&str>, data: &str) -> String {
    let mime = mime.map(|m| format!(" {m}")).unwrap_or_default();
    match decoded_len(data) {
        Some(n) => format!("[{kind}{mime}, {n} bytes"),
        None => format!("[{kind}{mime}, {} characters of invalid base64", data.len()),
    }
}

/// A read for people: text as it is, blobs as one line saying how many bytes (and how to
/// save them). Several contents are each headed by `--- URI (MIME type)`.
pub fn render_read(result: &ReadResourceResult) -> String {
    let several = result.contents.len() > 1;
    let mut out = String::new();
    for item in &result.contents {
        if several {
            let mime = mime_of(item).map(|m| format!(" ({m})")).unwrap_or_default();
            out.push_str(&format!("--- {}{mime}\n", uri_of(item)));
        }
        match item {
            ResourceContents::Text(t) => out.push_str(&t.text),
            ResourceContents::Blob(b) => {
                out.push_str(&bytes_summary("blob", b.mime_type.as_deref(), &b.blob));
                out.push_str("; save them with --output FILE]");
            }
        }
        if !out.ends_with('\n') {
            out.push('\n');
        }
    }
    out
}

/// The bytes `--output` writes: the only item's text (UTF-8) or decoded blob, and its MIME
/// type. Several items, or none, are a usage error: a file holds one.
pub fn single_item_bytes(result: &ReadResourceResult) -> Result<(Vec<u8>, Option<String>)> {
    let [item] = result.contents.as_slice() else {
        return Err(usage(format!(
            "the resource has {} contents; --output saves exactly one (use --json to see them all)",
            result.contents.len()
        )));
    };
    let bytes = match item {
        ResourceContents::Text(t) => t.text.clone().into_bytes(),
        ResourceContents::Blob(b) => STANDARD
            .decode(&b.blob)
            .map_err(|e| anyhow!("the server sent a blob that is not valid base64: {e}"))?,
    };
    Ok((bytes, mime_of(item).map(str::to_owned)))
}

/// The arguments of `prompts/get` from `key=value` pairs (values are strings, as the
/// protocol has them; everything after the first `=` is the value). An argument the prompt
/// does not declare, a repeated one or a missing required one is a usage error that lists
/// what the prompt takes.
pub fn prompt_arguments(
    pairs: &[String],
    prompt: &PromptDefinition,
) -> Result<BTreeMap<String, String>> {
    let declared = prompt.arguments.as_deref().unwrap_or_default();
    let takes = || {
        let summary = crate::ops::inspect::prompt_argument_summary(prompt);
        if summary.is_empty() {
            "it takes no arguments".to_owned()
        } else {
            format!("it takes: {summary}")
        }
    };
    let mut arguments = BTreeMap::new();
    for pair in pairs {
        let (key, value) = pair
            .split_once('=')
            .ok_or_else(|| usage(format!("`{pair}` is not key=value")))?;
        if !declared.iter().any(|a| a.name == key) {
            return Err(usage(format!(
                "the prompt `{}` has no argument `{key}`; {}",
                prompt.name,
                takes()
            )));
        }
        if arguments.insert(key.to_owned(), value.to_owned()).is_some() {
            return Err(usage(format!("`{key}` is given twice")));
        }
    }
    let missing: Vec<&str> = declared
        .iter()
        .filter(|a| a.required == Some(true) && !arguments.contains_key(&a.name))
        .map(|a| a.name.as_str())
        .collect();
    if !missing.is_empty() {
        let list = missing
            .iter()
            .map(|m| format!("{m}=…"))
            .collect::<Vec<_>>()
            .join(" ");
        return Err(usage(format!(
            "the prompt `{}` needs {list}; {}",
            prompt.name,
            takes()
        )));
    }
    Ok(arguments)
}

/// One content block of a prompt message for people: text as it is, media and resources
/// summarized (an embedded text resource is shown with its text).
fn render_block(content: &Content) -> String {
    match content {
        Content::Text(t) => t.text.clone(),
        Content::Image(b) => bytes_summary("image", Some(&b.mime_type), &b.data) + "]",
        Content::Audio(b) => bytes_summary("audio", Some(&b.mime_type), &b.data) + "]",
        Content::ResourceLink(l) => format!("[resource link {} ({})]", l.uri, l.name),
        Content::Resource(r) => match &r.resource {
            ResourceContents::Text(t) => {
                let mime = t
                    .mime_type
                    .as_deref()
                    .map(|m| format!(" ({m})"))
                    .unwrap_or_default();
                format!("[resource {}{mime}]\n{}", t.uri, t.text)
            }
            ResourceContents::Blob(b) => {
                bytes_summary(
                    &format!("resource {}", b.uri),
                    b.mime_type.as_deref(),
                    &b.blob,
                ) + "]"
            }
        },
        // A kind of content newer than this match: shown as it came.
        other => serde_json::to_string(other).unwrap_or_default(),
    }
}

/// Prompt messages for people: `[user]` or `[assistant]`, then the content, messages
/// separated by a blank line.
pub fn render_messages(result: &GetPromptResult) -> String {
    let mut out = String::new();
    for (i, message) in result.messages.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let role = match message.role {
            Role::User => "user",
            Role::Assistant => "assistant",
        };
        out.push_str(&format!("[{role}]\n{}", render_block(&message.content)));
        if !out.ends_with('\n') {
            out.push('\n');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcp_runtime::protocol::{
        BlobResourceContents, PromptArgument, PromptMessage, TextResourceContents,
    };
    use serde_json::json;

    fn text(uri: &str, text: &str) -> ResourceContents {
        TextResourceContents::new(uri, text)
            .with_mime_type("text/plain")
            .into()
    }

    fn blob(uri: &str, data: &str) -> ResourceContents {
        BlobResourceContents::new(uri, data)
            .with_mime_type("image/png")
            .into()
    }

    fn read(contents: Vec<ResourceContents>) -> ReadResourceResult {
        ReadResourceResult::new(contents)
    }

    #[test]
    fn reads_render_text_and_count_bytes() {
        assert_eq!(render_read(&read(vec![text("a://x", "hi")])), "hi\n");
        assert_eq!(
            render_read(&read(vec![blob("a://y", "AAEC")])),
            "[blob image/png, 3 bytes; save them with --output FILE]\n"
        );
        assert_eq!(
            render_read(&read(vec![text("a://x", "one\n"), blob("a://y", "AA==")])),
            "--- a://x (text/plain)\none\n--- a://y (image/png)\n\
             [blob image/png, 1 bytes; save them with --output FILE]\n"
        );
        let (bytes, mime) = single_item_bytes(&read(vec![blob("a://y", "AAEC")])).unwrap();
        assert_eq!((bytes, mime.as_deref()), (vec![0, 1, 2], Some("image/png")));
        assert!(single_item_bytes(&read(vec![])).is_err());
        assert!(single_item_bytes(&read(vec![blob("a://y", "!!")])).is_err());
    }

    #[test]
    fn read_errors_are_classified_by_era_code() {
        let legacy = McpError::new(ErrorCode::RESOURCE_NOT_FOUND, "Resource not found");
        let modern = McpError::new(ErrorCode::INVALID_PARAMS, "Resource not found");
        assert_eq!(ReadFailure::of(&legacy), ReadFailure::NotFound);
        assert_eq!(ReadFailure::of(&modern), ReadFailure::NotFound);
        let refused = McpError::new(ErrorCode::INVALID_PARAMS, "Invalid URI: no")
            .with_data(json!({"reason": "invalid_uri"}));
        assert_eq!(
            ReadFailure::of(&refused),
            ReadFailure::Refused("Invalid URI: no".into())
        );
        let internal = McpError::new(ErrorCode::INTERNAL_ERROR, "boom");
        assert!(
            matches!(ReadFailure::of(&internal), ReadFailure::Failed(m) if m.ends_with("boom"))
        );
    }

    #[test]
    fn prompt_arguments_are_checked_against_the_definition() {
        let greet = PromptDefinition::new("greet", "Greets.")
            .with_argument(PromptArgument::required("name", "Who"))
            .with_argument(PromptArgument::optional("style", "How"));
        let args = prompt_arguments(&["name=Ada=Lovelace".into()], &greet).unwrap();
        assert_eq!(args["name"], "Ada=Lovelace");
        let message = |pairs: &[&str]| {
            let pairs: Vec<String> = pairs.iter().map(|p| (*p).to_owned()).collect();
            prompt_arguments(&pairs, &greet).unwrap_err().to_string()
        };
        assert_eq!(
            message(&["style=formal"]),
            "the prompt `greet` needs name=…; it takes: name, style?"
        );
        assert_eq!(
            message(&["name=a", "mood=x"]),
            "the prompt `greet` has no argument `mood`; it takes: name, style?"
        );
        assert_eq!(message(&["name=a", "name=b"]), "`name` is given twice");
        assert_eq!(message(&["name"]), "`name` is not key=value");
    }

    #[test]
    fn messages_show_their_roles() {
        let result = GetPromptResult::new(vec![
            PromptMessage::user("Hello"),
            PromptMessage::assistant("Hi!\n"),
            PromptMessage::new(Role::User, Content::embedded(text("a://x", "body"))),
        ]);
        assert_eq!(
            render_messages(&result),
            "[user]\nHello\n\n[assistant]\nHi!\n\n[user]\n[resource a://x (text/plain)]\nbody\n"
        );
    }
}
