//! From a file's text to a checked, compiled [`PromptTemplate`], collecting every problem
//! (with its position) instead of stopping at the first.

use super::compile::Compiler;
use super::error::{LoadError, LoadProblem};
use super::source::{self, Entry, Node, Pos, Str, Val};
use crate::protocol::{BinaryContent, Content, PromptArgument, PromptDefinition, Role};
use minijinja::Environment;
use serde_json::{Map, Value, json};
use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

/// A prompt file's format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Format {
    Json,
    Yaml,
    Markdown,
}

impl Format {
    /// The format of `path` by its extension (ASCII case-insensitive), or `None` for a file
    /// that is not a prompt file (hidden files included: editors' swap files start with `.`).
    pub(crate) fn of(path: &Path) -> Option<Format> {
        let name = path.file_name()?.to_str()?;
        if name.starts_with('.') {
            return None;
        }
        match path.extension()?.to_str()?.to_ascii_lowercase().as_str() {
            "json" => Some(Format::Json),
            "yaml" | "yml" => Some(Format::Yaml),
            "md" | "markdown" => Some(Format::Markdown),
            _ => None,
        }
    }
}

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
const ARGUMENT_KEYS: &[&str] = &["name", "title", "description", "required"];
const MESSAGE_KEYS: &[&str] = &["role", "content"];
const CONTENT_TYPES: &[&str] = &["text", "resource", "resource_link", "image", "audio"];

/// A checked prompt file, its templates compiled.
pub(crate) struct PromptTemplate {
    /// The file it came from.
    pub(crate) file: PathBuf,
    /// Where its name is (the `name`/`id` value, or the file's start for a name taken from
    /// the file name).
    pub(crate) name_pos: Pos,
    pub(crate) definition: PromptDefinition,
    /// Each argument's schema, by name.
    pub(crate) properties: Map<String, Value>,
    pub(crate) validator: jsonschema::Validator,
    pub(crate) messages: Vec<MessageTemplate>,
    pub(crate) env: Environment<'static>,
}

impl PromptTemplate {
    pub(crate) fn name(&self) -> &str {
        &self.definition.name
    }
}

/// One message: a role and one content item (a file's content arrays are flattened).
pub(crate) struct MessageTemplate {
    pub(crate) role: Role,
    pub(crate) item: ItemTemplate,
}

/// A template compiled into the prompt's environment.
pub(crate) struct Compiled {
    /// Its name in the environment.
    pub(crate) name: String,
    /// The arguments it uses.
    pub(crate) uses: Vec<String>,
    /// Where it is, `file:line:column`, for messages at render time.
    pub(crate) at: String,
}

/// What one message holds, before rendering.
pub(crate) enum ItemTemplate {
    /// A text block rendered from a template.
    Text(Compiled),
    /// A resource read through the server's own resources and embedded.
    Resource {
        uri: Compiled,
        mime_type: Option<String>,
    },
    /// A link to a resource (not read).
    ResourceLink {
        uri: Compiled,
        name: String,
        title: Option<String>,
        description: Option<String>,
        mime_type: Option<String>,
    },
    /// An image or audio block, as written.
    Static(Content),
}

/// Every prompt file of `dir` (not its subdirectories), sorted by name.
pub(crate) fn prompt_files(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let path = entry.path();
        if Format::of(&path).is_some() && std::fs::metadata(&path).is_ok_and(|m| m.is_file()) {
            files.push(path);
        }
    }
    files.sort();
    Ok(files)
}

/// Loads every prompt file of `dir`: all of them, or every problem of every file.
pub(crate) fn load_dir(dir: &Path) -> Result<Vec<PromptTemplate>, LoadError> {
    let files = prompt_files(dir).map_err(|e| {
        LoadError::new(vec![LoadProblem::file(
            dir,
            format!("cannot read the prompt directory: {e}"),
        )])
    })?;
    let mut problems = Vec::new();
    let mut templates = Vec::with_capacity(files.len());
    for file in &files {
        match load_file(file) {
            Ok(t) => templates.push(t),
            Err(found) => problems.extend(found),
        }
    }
    problems.extend(duplicates(&templates));
    if problems.is_empty() {
        Ok(templates)
    } else {
        Err(LoadError::new(problems))
    }
}

/// A problem for every template whose name an earlier one (in file order) already has.
pub(crate) fn duplicates(templates: &[PromptTemplate]) -> Vec<LoadProblem> {
    let mut first: HashMap<&str, &PromptTemplate> = HashMap::new();
    let mut problems = Vec::new();
    for t in templates {
        match first.get(t.name()) {
            Some(earlier) => problems.push(LoadProblem::at(
                &t.file,
                t.name_pos,
                format!(
                    "the prompt name `{}` is already used by {}:{}:{}",
                    t.name(),
                    earlier.file.display(),
                    earlier.name_pos.line,
                    earlier.name_pos.column
                ),
            )),
            None => {
                first.insert(t.name(), t);
            }
        }
    }
    problems
}

/// Reads and checks one prompt file.
pub(crate) fn load_file(file: &Path) -> Result<PromptTemplate, Vec<LoadProblem>> {
    let Some(format) = Format::of(file) else {
        return Err(vec![LoadProblem::file(file, "not a prompt file")]);
    };
    let text = std::fs::read_to_string(file).map_err(|e| {
        vec![LoadProblem::file(
            file,
            format!("cannot read the file: {e}"),
        )]
    })?;
    load_source(file, format, &text)
}

/// Checks one prompt file's text.
pub(crate) fn load_source(
    file: &Path,
    format: Format,
    text: &str,
) -> Result<PromptTemplate, Vec<LoadProblem>> {
    let syntax = |errors: Vec<source::SyntaxError>| -> Vec<LoadProblem> {
        errors
            .into_iter()
            .map(|e| LoadProblem::at(file, e.pos, e.message))
            .collect()
    };
    let (root, body) = match format {
        Format::Json => (source::parse_json(text).map_err(syntax)?, None),
        Format::Yaml => (source::parse_yaml(text, 0).map_err(syntax)?, None),
        Format::Markdown => {
            let md = source::split_markdown(text).map_err(|e| syntax(vec![e]))?;
            let root = match md.front_matter {
                Some((yaml, offset)) if !yaml.trim().is_empty() => {
                    source::parse_yaml(yaml, offset).map_err(syntax)?
                }
                _ => Node {
                    pos: Pos::START,
                    value: Val::Object(Vec::new()),
                },
            };
            (root, Some(md.body))
        }
    };
    let mut check = Checker {
        file,
        problems: Vec::new(),
    };
    let template = check.template(&root, body);
    match template {
        Some(t) if check.problems.is_empty() => Ok(t),
        _ => {
            let mut problems = check.problems;
            problems.sort_by_key(|p| (p.line, p.column));
            Err(problems)
        }
    }
}

struct Checker<'a> {
    file: &'a Path,
    problems: Vec<LoadProblem>,
}

impl Checker<'_> {
    fn problem(&mut self, pos: Pos, message: impl Into<String>) {
        self.problems.push(LoadProblem::at(self.file, pos, message));
    }

    fn template(&mut self, root: &Node, body: Option<Str>) -> Option<PromptTemplate> {
        let Val::Object(entries) = &root.value else {
            self.problem(
                root.pos,
                format!("a prompt file holds an object, not {}", root.kind()),
            );
            return None;
        };
        // Front matter is shared with other tools (editors' and agents' command files carry
        // keys such as `argument-hint` or `allowed-tools`), so keys this loader does not use
        // are left alone there; in a JSON or YAML prompt file every key is this loader's, and
        // an unknown one is most likely a typo.
        if body.is_none() {
            self.unknown_keys(entries, TOP_KEYS);
        } else {
            for e in entries
                .iter()
                .filter(|e| !FRONT_MATTER_KEYS.contains(&e.key.as_str()))
            {
                tracing::debug!(target: "mcp::prompts", file = %self.file.display(), key = %e.key, "front matter key not used by prompt templates");
            }
        }
        let (name, name_pos) = self.name(root);
        let title = self.optional_string(root, "title");
        let description = match root.get("description") {
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
        };
        let schema = self.input_schema(root);
        let mut compiler = Compiler::new(self.file, schema.as_ref().map(|s| s.declared.clone()));
        let messages = match &body {
            Some(body) => {
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

    fn unknown_keys(&mut self, entries: &[Entry], known: &[&str]) {
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

    fn string<'n>(&mut self, entry: &'n Entry) -> Option<&'n str> {
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

    fn optional_string(&mut self, node: &Node, key: &str) -> Option<String> {
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

    /// The input schema (`inputSchema`, or made from `arguments`), checked and compiled.
    fn input_schema(&mut self, root: &Node) -> Option<Schema> {
        match (root.get("inputSchema"), root.get("arguments")) {
            (Some(_), Some(a)) => {
                self.problem(
                    a.key_pos,
                    "give either `inputSchema` or `arguments`, not both",
                );
                None
            }
            (Some(s), None) => self.schema(&s.value),
            (None, Some(a)) => self.arguments(&a.value),
            (None, None) => self.schema(&Node {
                pos: root.pos,
                value: Val::Object(vec![Entry {
                    key: "type".into(),
                    key_pos: root.pos,
                    value: Node {
                        pos: root.pos,
                        value: Val::Str(Str {
                            text: "object".into(),
                            first_line: None,
                            indent: 0,
                        }),
                    },
                }]),
            }),
        }
    }

    /// `arguments: [{name, title, description, required}]`: string arguments.
    fn arguments(&mut self, node: &Node) -> Option<Schema> {
        let Val::Array(items) = &node.value else {
            self.problem(
                node.pos,
                format!("`arguments` must be an array, not {}", node.kind()),
            );
            return None;
        };
        let mut properties = Map::new();
        let mut required = Vec::new();
        let mut arguments = Vec::new();
        let mut ok = true;
        for item in items {
            let Val::Object(entries) = &item.value else {
                self.problem(
                    item.pos,
                    format!("an argument is an object, not {}", item.kind()),
                );
                ok = false;
                continue;
            };
            self.unknown_keys(entries, ARGUMENT_KEYS);
            let Some(name) = item
                .get("name")
                .and_then(|e| self.string(e))
                .map(str::to_owned)
            else {
                if item.get("name").is_none() {
                    self.problem(item.pos, "an argument needs a `name`");
                }
                ok = false;
                continue;
            };
            if properties.contains_key(&name) {
                self.problem(item.pos, format!("the argument `{name}` is declared twice"));
                ok = false;
                continue;
            }
            let title = self.optional_string(item, "title");
            let description = self.optional_string(item, "description");
            let is_required = match item.get("required") {
                None => false,
                Some(e) => match e.value.value {
                    Val::Bool(b) => b,
                    _ => {
                        self.problem(e.value.pos, "`required` must be true or false");
                        false
                    }
                },
            };
            let mut schema = json!({"type": "string"});
            if let Some(d) = &description {
                schema["description"] = d.clone().into();
            }
            properties.insert(name.clone(), schema);
            if is_required {
                required.push(Value::String(name.clone()));
            }
            arguments.push(PromptArgument {
                name,
                title,
                description,
                required: Some(is_required),
            });
        }
        if !ok {
            return None;
        }
        let schema = json!({"type": "object", "properties": properties, "required": required});
        let validator = jsonschema::validator_for(&schema).ok()?;
        Some(Schema {
            declared: properties.keys().cloned().collect(),
            properties,
            arguments,
            validator,
        })
    }

    /// A JSON Schema for the arguments: an object schema, valid against its meta-schema,
    /// every `required` name declared, compiled.
    fn schema(&mut self, node: &Node) -> Option<Schema> {
        let schema = node.to_json();
        let Value::Object(map) = &schema else {
            self.problem(
                node.pos,
                format!("`inputSchema` must be an object, not {}", node.kind()),
            );
            return None;
        };
        if let Err(reason) = crate::tool::schema::check_input_root(map) {
            self.problem(node.pos, format!("invalid `inputSchema`: {reason}"));
            return None;
        }
        let meta = match jsonschema::meta::validator_for(&schema) {
            Ok(meta) => meta,
            Err(e) => {
                self.problem(node.pos, format!("invalid `inputSchema`: {e}"));
                return None;
            }
        };
        let mut valid = true;
        for e in meta.iter_errors(&schema) {
            valid = false;
            let at = node.locate(e.instance_path().as_str());
            self.problem(at, format!("invalid `inputSchema`: {e}"));
        }
        if !valid {
            return None;
        }
        let validator = match jsonschema::validator_for(&schema) {
            Ok(v) => v,
            Err(e) => {
                let at = node.locate(e.instance_path().as_str());
                self.problem(at, format!("invalid `inputSchema`: {e}"));
                return None;
            }
        };
        let properties = match map.get("properties") {
            Some(Value::Object(p)) => p.clone(),
            _ => Map::new(),
        };
        let required: BTreeSet<&str> = map
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        for name in &required {
            if !properties.contains_key(*name) {
                let at = node.locate("/required");
                self.problem(
                    at,
                    format!(
                        "`{name}` is required but not declared in `properties`, so no client could give it"
                    ),
                );
                valid = false;
            }
        }
        if !valid {
            return None;
        }
        // The arguments in file order (the map above is sorted).
        let order: Vec<String> = match node.get("properties").map(|e| &e.value.value) {
            Some(Val::Object(entries)) => entries.iter().map(|e| e.key.clone()).collect(),
            _ => Vec::new(),
        };
        let arguments = order
            .iter()
            .map(|name| {
                let p = &properties[name];
                let text = |k: &str| p.get(k).and_then(Value::as_str).map(str::to_owned);
                PromptArgument {
                    name: name.clone(),
                    title: text("title"),
                    description: text("description"),
                    // An argument with a default need not be given, whatever `required` says.
                    required: Some(required.contains(name.as_str()) && p.get("default").is_none()),
                }
            })
            .collect();
        Some(Schema {
            declared: properties.keys().cloned().collect(),
            properties,
            arguments,
            validator,
        })
    }

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

    fn item(
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
        let known: &[&str] = match kind_name.as_str() {
            "text" => &["type", "text"],
            "resource" => &["type", "uri", "resource", "mimeType"],
            "resource_link" => &["type", "uri", "name", "title", "description", "mimeType"],
            "image" | "audio" => &["type", "data", "mimeType"],
            other => {
                self.problem(
                    kind.value.pos,
                    format!(
                        "unknown content type `{other}`; expected one of {}",
                        CONTENT_TYPES.join(", ")
                    ),
                );
                return None;
            }
        };
        self.unknown_keys(entries, known);
        let needed = |this: &mut Self, key: &str| -> Option<Node> {
            match node.get(key) {
                Some(e) => Some(e.value.clone()),
                None => {
                    this.problem(
                        node.pos,
                        format!("a `{kind_name}` content item needs `{key}`"),
                    );
                    None
                }
            }
        };
        match kind_name.as_str() {
            "text" => {
                let text = needed(self, "text")?;
                compiler
                    .compile(&mut self.problems, &text, label)
                    .map(ItemTemplate::Text)
            }
            "resource" => {
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
                let uri = compiler.compile(&mut self.problems, &uri, label)?;
                Some(ItemTemplate::Resource { uri, mime_type })
            }
            "resource_link" => {
                let uri = needed(self, "uri")?;
                let name = needed(self, "name")?;
                let Val::Str(name) = &name.value else {
                    self.problem(name.pos, "`name` must be a string");
                    return None;
                };
                let title = self.optional_string(node, "title");
                let description = self.optional_string(node, "description");
                let mime_type = self.optional_string(node, "mimeType");
                let uri = compiler.compile(&mut self.problems, &uri, label)?;
                Some(ItemTemplate::ResourceLink {
                    uri,
                    name: name.text.clone(),
                    title,
                    description,
                    mime_type,
                })
            }
            _ => {
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
                        format!(
                            "an `{kind_name}` content item needs `data` (base64) and `mimeType`"
                        ),
                    );
                    return None;
                }
                let block = BinaryContent::new(data?, mime?);
                Some(ItemTemplate::Static(if kind_name == "image" {
                    Content::Image(block)
                } else {
                    Content::Audio(block)
                }))
            }
        }
    }
}

/// The checked input schema.
struct Schema {
    declared: BTreeSet<String>,
    properties: Map<String, Value>,
    arguments: Vec<PromptArgument>,
    validator: jsonschema::Validator,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_by_extension() {
        assert_eq!(Format::of(Path::new("p/a.JSON")), Some(Format::Json));
        assert_eq!(Format::of(Path::new("p/a.yml")), Some(Format::Yaml));
        assert_eq!(Format::of(Path::new("p/a.md")), Some(Format::Markdown));
        assert_eq!(Format::of(Path::new("p/a.txt")), None);
        assert_eq!(Format::of(Path::new("p/.a.json")), None);
        assert_eq!(Format::of(Path::new("p/a.json~")), None);
        for ext in super::super::PROMPT_FILE_EXTENSIONS {
            assert!(
                Format::of(Path::new(&format!("p/a.{ext}"))).is_some(),
                "{ext}"
            );
        }
    }
}
