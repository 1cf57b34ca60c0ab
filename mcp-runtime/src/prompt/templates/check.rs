//! The shape of a prompt file: which keys it may have, its name, description and messages,
//! each message's role. The arguments are checked in [`super::arguments`] and each content
//! item in [`super::content`]. Checking records a problem and goes on, so one load reports
//! every mistake of a file.

use super::checked::{ItemTemplate, MessageTemplate, PromptTemplate};
use super::compile::Compiler;
use super::error::LoadProblem;
use super::source::{Entry, Node, Pos, Str, Val};
use crate::protocol::{PromptDefinition, Role};
use std::path::Path;

const TOP_KEYS: &[&str] = &[
    "name",
    "id",
    "title",
    "description",
    "inputSchema",
    "arguments",
    "messages",
];
const FRONT_MATTER_KEYS: &[&str] = &[
    "name",
    "id",
    "title",
    "description",
    "inputSchema",
    "arguments",
    "role",
];
const MESSAGE_KEYS: &[&str] = &["role", "content"];

/// Checks a parsed prompt file (`body`: a Markdown file's text after its front matter):
/// the template, or every problem found, sorted by position.
pub(super) fn prompt_file(
    file: &Path,
    root: &Node,
    body: Option<Str>,
) -> Result<PromptTemplate, Vec<LoadProblem>> {
    let mut check = Checker {
        file,
        problems: Vec::new(),
    };
    let template = check.template(root, body);
    match template {
        Some(t) if check.problems.is_empty() => Ok(t),
        _ => {
            let mut problems = check.problems;
            problems.sort_by_key(|p| (p.line, p.column));
            Err(problems)
        }
    }
}

/// The problems found so far in one file. Its methods check one piece each, record what is
/// wrong and go on, returning `None` for a piece that cannot be used.
pub(super) struct Checker<'a> {
    pub(super) file: &'a Path,
    pub(super) problems: Vec<LoadProblem>,
}

impl Checker<'_> {
    pub(super) fn problem(&mut self, pos: Pos, message: impl Into<String>) {
        self.problems.push(LoadProblem::at(self.file, pos, message));
    }

    /// The whole file: its keys, name, title, description, arguments and messages, in that
    /// order (the order problems are found in, before they are sorted by position).
    fn template(&mut self, root: &Node, body: Option<Str>) -> Option<PromptTemplate> {
        let Val::Object(entries) = &root.value else {
            self.problem(
                root.pos,
                format!("a prompt file holds an object, not {}", root.kind()),
            );
            return None;
        };
        self.top_keys(entries, body.is_some());
        let (name, name_pos) = self.name(root);
        let title = self.optional_string(root, "title");
        let description = self.description(root);
        let schema = self.input_schema(root);
        let mut compiler = Compiler::new(self.file, schema.as_ref().map(|s| s.declared.clone()));
        let messages = match &body {
            Some(body) => self.body_message(root, body, &mut compiler),
            None => self.messages(root, &mut compiler),
        };
        let schema = schema?;
        let definition = PromptDefinition {
            name: name?,
            title,
            description: Some(description?),
            arguments: (!schema.arguments.is_empty()).then_some(schema.arguments),
            icons: None,
            meta: None,
        };
        Some(PromptTemplate {
            file: self.file.to_owned(),
            name_pos,
            definition,
            properties: schema.properties,
            validator: schema.validator,
            messages,
            env: compiler.env,
        })
    }

    /// The file's own keys: each known in a JSON or YAML file; anything in front matter.
    fn top_keys(&mut self, entries: &[Entry], front_matter: bool) {
        // Front matter is shared with other tools (editors' and agents' command files carry
        // keys such as `argument-hint` or `allowed-tools`), so keys this loader does not use
        // are left alone there; in a JSON or YAML prompt file every key is this loader's, and
        // an unknown one is most likely a typo.
        if front_matter {
            for e in entries
                .iter()
                .filter(|e| !FRONT_MATTER_KEYS.contains(&e.key.as_str()))
            {
                tracing::debug!(target: crate::targets::PROMPTS_TARGET, file = %self.file.display(), key = %e.key, "front matter key not used by prompt templates");
            }
        } else {
            self.unknown_keys(entries, TOP_KEYS);
        }
    }

    /// The required, non-empty `description`.
    fn description(&mut self, root: &Node) -> Option<String> {
        match root.get("description") {
            None => {
                self.problem(
                    root.pos,
                    "missing `description`: clients show it to people choosing a prompt, and models read it",
                );
                None
            }
            Some(e) => match &e.value.value {
                Val::Str(s) if !s.text.trim().is_empty() => Some(s.text.clone()),
                _ => {
                    self.problem(e.value.pos, "`description` must be a non-empty string");
                    None
                }
            },
        }
    }

    /// A Markdown file's one message: its body, in the front matter's `role` (`user` when
    /// there is none).
    fn body_message(
        &mut self,
        root: &Node,
        body: &Str,
        compiler: &mut Compiler<'_>,
    ) -> Vec<MessageTemplate> {
        let role = match root.get("role") {
            None => Some(Role::User),
            Some(e) => self.role(&e.value),
        };
        let node = Node {
            pos: Pos {
                line: body.first_line.unwrap_or(1),
                column: 1,
            },
            value: Val::Str(body.clone()),
        };
        if body.text.is_empty() {
            self.problem(
                node.pos,
                "the prompt's body (after the front matter) is empty",
            );
        }
        let text = compiler.compile(&mut self.problems, &node, "body");
        match (role, text) {
            (Some(role), Some(text)) => vec![MessageTemplate {
                role,
                item: ItemTemplate::Text(text),
            }],
            _ => Vec::new(),
        }
    }

    pub(super) fn unknown_keys(&mut self, entries: &[Entry], known: &[&str]) {
        for e in entries {
            if !known.contains(&e.key.as_str()) {
                self.problem(
                    e.key_pos,
                    format!(
                        "unknown key `{}`; expected one of {}",
                        e.key,
                        known
                            .iter()
                            .map(|k| format!("`{k}`"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                );
            }
        }
    }

    pub(super) fn string<'n>(&mut self, entry: &'n Entry) -> Option<&'n str> {
        match &entry.value.value {
            Val::Str(s) => Some(&s.text),
            _ => {
                self.problem(
                    entry.value.pos,
                    format!(
                        "`{}` must be a string, not {}",
                        entry.key,
                        entry.value.kind()
                    ),
                );
                None
            }
        }
    }

    pub(super) fn optional_string(&mut self, node: &Node, key: &str) -> Option<String> {
        node.get(key)
            .and_then(|e| self.string(e))
            .map(str::to_owned)
    }

    /// The name (`name` or `id`, else the file's stem) and where it is.
    fn name(&mut self, root: &Node) -> (Option<String>, Pos) {
        let name = root.get("name");
        let id = root.get("id");
        let given = match (name, id) {
            (Some(n), Some(i)) => {
                let (a, b) = (self.string(n), self.string(i));
                if a.is_some() && b.is_some() && a != b {
                    self.problem(
                        i.key_pos,
                        "`id` and `name` differ; give one of them (they mean the same)",
                    );
                }
                a.map(|a| (a.to_owned(), n.value.pos))
            }
            (Some(e), None) | (None, Some(e)) => {
                self.string(e).map(|s| (s.to_owned(), e.value.pos))
            }
            (None, None) => {
                let stem = self.file.file_stem().and_then(|s| s.to_str());
                stem.map(|s| (s.to_owned(), Pos::START))
            }
        };
        let Some((name, pos)) = given else {
            return (None, Pos::START);
        };
        match crate::tool::tool_name_problem(&name) {
            None => (Some(name), pos),
            Some(reason) => {
                let from_file = root.get("name").is_none() && root.get("id").is_none();
                self.problem(
                    pos,
                    format!(
                        "invalid prompt name {name:?}{}: {reason}",
                        if from_file {
                            " (taken from the file name; give `name` to choose another)"
                        } else {
                            ""
                        }
                    ),
                );
                (None, pos)
            }
        }
    }

    fn role(&mut self, node: &Node) -> Option<Role> {
        match &node.value {
            Val::Str(s) => match s.text.as_str() {
                "user" => Some(Role::User),
                "assistant" => Some(Role::Assistant),
                // MCP prompt messages have no system role: see the module's documentation.
                "system" => Some(Role::User),
                other => {
                    self.problem(
                        node.pos,
                        format!(
                            "unknown role `{other}`; expected `user`, `assistant` or `system` (served as `user`)"
                        ),
                    );
                    None
                }
            },
            _ => {
                self.problem(
                    node.pos,
                    format!("`role` must be a string, not {}", node.kind()),
                );
                None
            }
        }
    }

    /// `messages: [{role, content}]`, each content array flattened into one message per item.
    fn messages(&mut self, root: &Node, compiler: &mut Compiler<'_>) -> Vec<MessageTemplate> {
        let Some(entry) = root.get("messages") else {
            self.problem(
                root.pos,
                "missing `messages`: a prompt needs at least one message",
            );
            return Vec::new();
        };
        let Val::Array(list) = &entry.value.value else {
            self.problem(
                entry.value.pos,
                format!("`messages` must be an array, not {}", entry.value.kind()),
            );
            return Vec::new();
        };
        if list.is_empty() {
            self.problem(
                entry.value.pos,
                "`messages` is empty: a prompt needs at least one",
            );
        }
        let mut out = Vec::new();
        for (i, message) in list.iter().enumerate() {
            let Val::Object(entries) = &message.value else {
                self.problem(
                    message.pos,
                    format!("a message is an object, not {}", message.kind()),
                );
                continue;
            };
            self.unknown_keys(entries, MESSAGE_KEYS);
            let role = match message.get("role") {
                Some(e) => self.role(&e.value),
                None => {
                    self.problem(message.pos, "a message needs a `role`");
                    None
                }
            };
            let Some(content) = message.get("content") else {
                self.problem(message.pos, "a message needs `content`");
                continue;
            };
            // `content` is an array of items, one item, or a string (one text item).
            let items: Vec<&Node> = match &content.value.value {
                Val::Array(items) => {
                    if items.is_empty() {
                        self.problem(content.value.pos, "`content` is empty");
                    }
                    items.iter().collect()
                }
                _ => vec![&content.value],
            };
            for (j, item) in items.into_iter().enumerate() {
                let label = format!("messages[{i}].content[{j}]");
                if let Some(item) = self.item(item, &label, compiler)
                    && let Some(role) = role
                {
                    out.push(MessageTemplate { role, item });
                }
            }
        }
        out
    }
}
