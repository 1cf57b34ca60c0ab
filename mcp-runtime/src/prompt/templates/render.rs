//! Rendering a loaded template: arguments converted and validated, every template rendered
//! with them as data, resources read through the server's own resources and embedded.

use super::checked::{Compiled, ItemTemplate, PromptTemplate};
use super::coerce;
use crate::context::RequestContext;
use crate::prompt::{PromptArguments, PromptError};
use crate::protocol::{
    Completion, Content, GetPromptResult, PromptMessage, ResourceContents, ResourceLink,
};
use serde_json::Value;

/// A message rendered, or a resource still to read.
enum Step {
    Ready(PromptMessage),
    Read {
        role: crate::protocol::Role,
        uri: String,
        mime_type: Option<String>,
        uses: Vec<String>,
    },
}

/// The most one template of a prompt renders (its values included); past it the render
/// stops with an error, never a prompt of any size.
pub(crate) const MAX_RENDERED_BYTES: usize = 1024 * 1024;

/// A render's output, refused past [`MAX_RENDERED_BYTES`] (one byte more is kept, so the
/// caller can tell).
struct Bounded(Vec<u8>);

impl std::io::Write for Bounded {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        if self.0.len() + bytes.len() > MAX_RENDERED_BYTES {
            let room = MAX_RENDERED_BYTES + 1 - self.0.len().min(MAX_RENDERED_BYTES + 1);
            self.0.extend_from_slice(&bytes[..room.min(bytes.len())]);
            return Err(std::io::Error::other("the rendered prompt is too long"));
        }
        self.0.extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl PromptTemplate {
    /// Renders the prompt: `-32602` naming the arguments when they are wrong (every
    /// violation at once) or a resource they name cannot be read.
    pub(crate) async fn render(
        &self,
        arguments: PromptArguments,
        cx: RequestContext,
    ) -> Result<GetPromptResult, PromptError> {
        let values = Value::Object(coerce::coerce(&arguments, &self.properties));
        let found = coerce::violations(&self.validator, &values);
        if !found.is_empty() {
            return Err(PromptError::invalid_arguments(format!(
                "invalid arguments for prompt `{}` ({}):\n- {}",
                self.name(),
                found.count(),
                found.bullets()
            )));
        }
        // The values go in as data: whatever they contain is never parsed as a template.
        let context = minijinja::Value::from(minijinja::value::Serde(&values));
        let given = |name: &String| values.get(name.as_str()).is_some();
        let mut steps = Vec::with_capacity(self.messages.len());
        for message in &self.messages {
            let role = message.role;
            let step = match &message.item {
                ItemTemplate::Text(t) => {
                    let text = self.render_one(t, &context, &given)?;
                    Step::Ready(PromptMessage::new(role, Content::text(text)))
                }
                ItemTemplate::Static(content) => {
                    Step::Ready(PromptMessage::new(role, content.clone()))
                }
                ItemTemplate::ResourceLink {
                    uri,
                    name,
                    title,
                    description,
                    mime_type,
                } => {
                    let uri = self.render_one(uri, &context, &given)?;
                    Step::Ready(PromptMessage::new(
                        role,
                        Content::ResourceLink(ResourceLink {
                            uri,
                            name: name.clone(),
                            title: title.clone(),
                            description: description.clone(),
                            mime_type: mime_type.clone(),
                            size: None,
                            icons: None,
                            annotations: None,
                            meta: None,
                        }),
                    ))
                }
                ItemTemplate::Resource { uri, mime_type } => Step::Read {
                    role,
                    uri: self.render_one(uri, &context, &given)?,
                    mime_type: mime_type.clone(),
                    uses: uri.uses.clone(),
                },
            };
            steps.push(step);
        }
        let mut messages = Vec::with_capacity(steps.len());
        for step in steps {
            match step {
                Step::Ready(m) => messages.push(m),
                Step::Read {
                    role,
                    uri,
                    mime_type,
                    uses,
                } => {
                    let contents = cx.read_resource(&uri).await.map_err(|e| {
                        let reason = format!("the resource `{uri}` cannot be read: {e}");
                        if uses.is_empty() {
                            PromptError::failed(format!("prompt `{}`: {reason}", self.name()))
                        } else {
                            PromptError::invalid_arguments(format!(
                                "{}: {reason}",
                                argument_list(&uses)
                            ))
                        }
                    })?;
                    if contents.is_empty() {
                        return Err(PromptError::failed(format!(
                            "prompt `{}`: the resource `{uri}` has no contents",
                            self.name()
                        )));
                    }
                    for mut c in contents {
                        if let Some(m) = &mime_type {
                            let slot = match &mut c {
                                ResourceContents::Text(t) => &mut t.mime_type,
                                ResourceContents::Blob(b) => &mut b.mime_type,
                            };
                            slot.get_or_insert_with(|| m.clone());
                        }
                        messages.push(PromptMessage::new(role, Content::embedded(c)));
                    }
                }
            }
        }
        Ok(GetPromptResult {
            description: self.definition.description.clone(),
            messages,
            meta: None,
        })
    }

    /// Renders one template. An undefined value is an error: when the template uses
    /// arguments that were not given, the error names them.
    fn render_one(
        &self,
        template: &Compiled,
        context: &minijinja::Value,
        given: &dyn Fn(&String) -> bool,
    ) -> Result<String, PromptError> {
        let compiled = self
            .env
            .get_template(&template.name)
            .map_err(|e| PromptError::failed(format!("{}: {e}", template.at)))?;
        let mut out = Bounded(Vec::new());
        let rendered = compiled.render_captured_to(context, &mut out).map(drop);
        if out.0.len() > MAX_RENDERED_BYTES {
            return Err(PromptError::failed(format!(
                "prompt `{}`: the template at {} renders more than {} KiB",
                self.name(),
                template.at,
                MAX_RENDERED_BYTES / 1024
            )));
        }
        rendered.map(|()| String::from_utf8(out.0).unwrap_or_default()).map_err(|e| {
            let missing: Vec<String> = template
                .uses
                .iter()
                .filter(|u| !given(u))
                .cloned()
                .collect();
            if e.kind() == minijinja::ErrorKind::UndefinedError && !missing.is_empty() {
                PromptError::invalid_arguments(format!(
                    "prompt `{}` needs {} here: the template at {} uses {} (guard an optional argument with `{{% if name is defined %}}`)",
                    self.name(),
                    argument_list(&missing),
                    template.at,
                    if missing.len() == 1 { "it" } else { "them" }
                ))
            } else {
                let detail = e.detail().map_or_else(|| e.kind().to_string(), str::to_owned);
                PromptError::failed(format!(
                    "prompt `{}`: the template at {} failed: {detail}",
                    self.name(),
                    template.at
                ))
            }
        })
    }

    /// Values for `argument` starting with `value`: its schema's `enum` (or `true`/`false`
    /// for a boolean).
    pub(crate) fn complete(&self, argument: &str, value: &str) -> Completion {
        let Some(schema) = self.properties.get(argument) else {
            return Completion::default();
        };
        let candidates: Vec<String> = match schema.get("enum") {
            Some(Value::Array(values)) => values
                .iter()
                .map(|v| match v {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                })
                .collect(),
            _ if schema.get("type").and_then(Value::as_str) == Some("boolean") => {
                vec!["true".into(), "false".into()]
            }
            _ => return Completion::default(),
        };
        Completion::from_all(candidates.into_iter().filter(|c| c.starts_with(value)))
    }
}

fn argument_list(names: &[String]) -> String {
    let quoted: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
    format!(
        "argument{} {}",
        if names.len() == 1 { "" } else { "s" },
        quoted.join(", ")
    )
}
