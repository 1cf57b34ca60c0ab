//! A message's content items: a string (one text item), or an object whose `type` says
//! which keys it has: `text`, `resource` (read and embedded at render time),
//! `resource_link` (a link, not read), `image` and `audio` (as written). Text and URIs are
//! templates, compiled into the prompt's environment here.

use super::check::Checker;
use super::checked::ItemTemplate;
use super::compile::Compiler;
use super::source::{Node, Val};
use crate::protocol::{BinaryContent, Content};

const CONTENT_TYPES: &[&str] = &["text", "resource", "resource_link", "image", "audio"];

/// The keys an item of type `kind` may have; `None` for a type that is not a content type.
fn item_keys(kind: &str) -> Option<&'static [&'static str]> {
    match kind {
        "text" => Some(&["type", "text"]),
        "resource" => Some(&["type", "uri", "resource", "mimeType"]),
        "resource_link" => Some(&["type", "uri", "name", "title", "description", "mimeType"]),
        "image" | "audio" => Some(&["type", "data", "mimeType"]),
        _ => None,
    }
}

impl Checker<'_> {
    /// One content item; `label` names it in the environment (`messages[0].content[1]`).
    pub(super) fn item(
        &mut self,
        node: &Node,
        label: &str,
        compiler: &mut Compiler<'_>,
    ) -> Option<ItemTemplate> {
        if let Val::Str(_) = node.value {
            return compiler
                .compile(&mut self.problems, node, label)
                .map(ItemTemplate::Text);
        }
        let Val::Object(entries) = &node.value else {
            self.problem(
                node.pos,
                format!(
                    "a content item is an object or a string, not {}",
                    node.kind()
                ),
            );
            return None;
        };
        let Some(kind) = node.get("type") else {
            self.problem(node.pos, "a content item needs a `type`");
            return None;
        };
        let kind_name = self.string(kind)?.to_owned();
        let Some(known) = item_keys(&kind_name) else {
            self.problem(
                kind.value.pos,
                format!(
                    "unknown content type `{kind_name}`; expected one of {}",
                    CONTENT_TYPES.join(", ")
                ),
            );
            return None;
        };
        self.unknown_keys(entries, known);
        match kind_name.as_str() {
            "text" => self.text_item(node, label, compiler),
            "resource" => self.resource_item(node, label, compiler),
            "resource_link" => self.resource_link_item(node, label, compiler),
            _ => self.binary_item(node, &kind_name),
        }
    }

    /// The value of `key`, which an item of type `kind` needs.
    fn needed(&mut self, node: &Node, kind: &str, key: &str) -> Option<Node> {
        match node.get(key) {
            Some(e) => Some(e.value.clone()),
            None => {
                self.problem(node.pos, format!("a `{kind}` content item needs `{key}`"));
                None
            }
        }
    }

    /// `{type: text, text}`: a text block.
    fn text_item(
        &mut self,
        node: &Node,
        label: &str,
        compiler: &mut Compiler<'_>,
    ) -> Option<ItemTemplate> {
        let text = self.needed(node, "text", "text")?;
        compiler
            .compile(&mut self.problems, &text, label)
            .map(ItemTemplate::Text)
    }

    /// `{type: resource, uri, mimeType}` or `{type: resource, resource: {uri, mimeType}}`:
    /// a resource the server reads and embeds.
    fn resource_item(
        &mut self,
        node: &Node,
        label: &str,
        compiler: &mut Compiler<'_>,
    ) -> Option<ItemTemplate> {
        // The seed's shape (`uri` on the item) or MCP's (`resource: {uri, mimeType}`).
        let mut mime_type = self.optional_string(node, "mimeType");
        let uri = match (node.get("uri"), node.get("resource")) {
            (Some(u), None) => u.value.clone(),
            (None, Some(r)) => {
                let Val::Object(inner) = &r.value.value else {
                    self.problem(r.value.pos, "`resource` must be an object");
                    return None;
                };
                self.unknown_keys(inner, &["uri", "mimeType"]);
                if let Some(m) = self.optional_string(&r.value, "mimeType") {
                    mime_type = Some(m);
                }
                match r.value.get("uri") {
                    Some(u) => u.value.clone(),
                    None => {
                        self.problem(r.value.pos, "`resource` needs a `uri`");
                        return None;
                    }
                }
            }
            (Some(_), Some(r)) => {
                self.problem(r.key_pos, "give `uri` or `resource: {uri}`, not both");
                return None;
            }
            (None, None) => {
                self.problem(node.pos, "a `resource` content item needs `uri`");
                return None;
            }
        };
        let uri = compiler.compile_uri(&mut self.problems, &uri, label)?;
        Some(ItemTemplate::Resource { uri, mime_type })
    }

    /// `{type: resource_link, uri, name, title, description, mimeType}`: a link, not read.
    fn resource_link_item(
        &mut self,
        node: &Node,
        label: &str,
        compiler: &mut Compiler<'_>,
    ) -> Option<ItemTemplate> {
        let uri = self.needed(node, "resource_link", "uri")?;
        let name = self.needed(node, "resource_link", "name")?;
        let Val::Str(name) = &name.value else {
            self.problem(name.pos, "`name` must be a string");
            return None;
        };
        let title = self.optional_string(node, "title");
        let description = self.optional_string(node, "description");
        let mime_type = self.optional_string(node, "mimeType");
        let uri = compiler.compile_uri(&mut self.problems, &uri, label)?;
        Some(ItemTemplate::ResourceLink {
            uri,
            name: name.text.clone(),
            title,
            description,
            mime_type,
        })
    }

    /// `{type: image | audio, data, mimeType}`: a block as written.
    fn binary_item(&mut self, node: &Node, kind: &str) -> Option<ItemTemplate> {
        let data = node
            .get("data")
            .and_then(|e| self.string(e))
            .map(str::to_owned);
        let mime = node
            .get("mimeType")
            .and_then(|e| self.string(e))
            .map(str::to_owned);
        if data.is_none() || mime.is_none() {
            self.problem(
                node.pos,
                format!("an `{kind}` content item needs `data` (base64) and `mimeType`"),
            );
            return None;
        }
        let block = BinaryContent::new(data?, mime?);
        Some(ItemTemplate::Static(if kind == "image" {
            Content::Image(block)
        } else {
            Content::Audio(block)
        }))
    }
}
