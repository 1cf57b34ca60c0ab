//! A prompt's arguments: an `inputSchema` (a JSON Schema, checked against its meta-schema
//! and compiled), or the short form `arguments: [{name, title, description, required}]` of
//! string arguments, or, with neither, no arguments. Either way the result is one schema
//! that validates a `prompts/get`'s arguments, and the list `prompts/list` shows.

use super::check::Checker;
use super::source::{Entry, Node, Str, Val};
use crate::protocol::PromptArgument;
use serde_json::{Map, Value, json};
use std::collections::BTreeSet;

const ARGUMENT_KEYS: &[&str] = &["name", "title", "description", "required"];

impl Checker<'_> {
    /// The input schema (`inputSchema`, or made from `arguments`), checked and compiled.
    pub(super) fn input_schema(&mut self, root: &Node) -> Option<Schema> {
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
}

/// The checked input schema.
pub(super) struct Schema {
    /// The declared argument names: the only variables the templates may use.
    pub(super) declared: BTreeSet<String>,
    /// Each argument's schema, by name.
    pub(super) properties: Map<String, Value>,
    /// The arguments as `prompts/list` shows them, in file order.
    pub(super) arguments: Vec<PromptArgument>,
    pub(super) validator: jsonschema::Validator,
}
