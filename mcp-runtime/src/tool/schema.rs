//! Schemas: generating them from Rust types in the portable profile, compiling them once,
//! and describing violations to a model.
//!
//! The portable profile (what every client we know of accepts): JSON Schema 2020-12, root
//! `type: "object"` for inputs, subschemas inlined (no `$ref`/`$defs` except for recursive
//! types, which cannot be inlined), optional properties simply absent from `required` (no
//! `["T", "null"]` type arrays or `null` alternatives), no `$schema` key unless asked, and no
//! OpenAPI number formats (`int32`, `uint64`, `double`, …) on numbers: they are not JSON
//! Schema vocabulary and some clients reject them; the ranges schemars derives from the Rust
//! type (`minimum: 0` for unsigned integers) stay.
//! Gemini, Zed, Copilot CLI and Claude Code have been reported to reject schemas that break
//! these rules.

use schemars::generate::{SchemaGenerator, SchemaSettings};
use schemars::transform::{RecursiveTransform, Transform};
use schemars::{JsonSchema, Schema};
use serde_json::{Map, Value};
use std::fmt;

/// The JSON Schema dialect URI of 2020-12.
pub const DIALECT_2020_12: &str = "https://json-schema.org/draft/2020-12/schema";

/// A schema generator configured for the portable profile.
pub(crate) fn generator() -> SchemaGenerator {
    SchemaSettings::draft2020_12()
        .with(|s| {
            s.meta_schema = None;
            s.inline_subschemas = true;
        })
        .with_transform(RecursiveTransform(PortableProfile))
        .into_generator()
}

/// The input schema of an arguments type: an object schema in the portable profile.
///
/// With `dialect`, the schema names its dialect in `$schema`.
pub fn input_schema_for<T: JsonSchema>(dialect: bool) -> Map<String, Value> {
    let mut schema = match generator().into_root_schema_for::<T>().to_value() {
        Value::Object(o) => o,
        // A boolean schema has no root `type`; registration reports it.
        _ => Map::new(),
    };
    schema.remove("title");
    if dialect {
        schema.insert("$schema".into(), DIALECT_2020_12.into());
    }
    schema
}

/// The output schema of a structured result type, in the portable profile. Any root type
/// is allowed (2026-07-28); legacy clients get non-object roots wrapped by the registry.
pub fn output_schema_for<T: JsonSchema + ?Sized>() -> Value {
    let mut schema = generator().into_root_schema_for::<T>().to_value();
    if let Value::Object(o) = &mut schema {
        o.remove("title");
    }
    schema
}

/// Applies the portable profile to each subschema: removes `null` from the schemas of
/// optional properties (those not in `required`), so an `Option<T>` parameter is described
/// as an optional `T`, not as `T | null`; drops number formats.
#[derive(Debug, Clone, Copy)]
struct PortableProfile;

impl Transform for PortableProfile {
    fn transform(&mut self, schema: &mut Schema) {
        let Some(object) = schema.as_object_mut() else {
            return;
        };
        let numeric = |t: &Value| t == "integer" || t == "number";
        let is_number = match object.get("type") {
            Some(Value::Array(types)) => types.iter().any(numeric),
            Some(t) => numeric(t),
            None => false,
        };
        if is_number {
            object.remove("format");
        }
        let required: Vec<String> = match object.get("required") {
            Some(Value::Array(r)) => r
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect(),
            _ => Vec::new(),
        };
        let Some(Value::Object(properties)) = object.get_mut("properties") else {
            return;
        };
        for (name, property) in properties.iter_mut() {
            if !required.contains(name) {
                strip_null(property);
            }
        }
    }
}

fn strip_null(property: &mut Value) {
    let Value::Object(p) = property else { return };
    if let Some(Value::Array(types)) = p.get_mut("type") {
        types.retain(|t| t != "null");
        if types.len() == 1 {
            let only = types.remove(0);
            p.insert("type".into(), only);
        }
    }
    for key in ["anyOf", "oneOf"] {
        let Some(Value::Array(alternatives)) = p.get_mut(key) else {
            continue;
        };
        alternatives.retain(|a| a.get("type").and_then(Value::as_str) != Some("null"));
        if alternatives.len() == 1 {
            let Some(Value::Object(only)) = alternatives.pop() else {
                continue;
            };
            p.remove(key);
            for (k, v) in only {
                p.entry(k).or_insert(v);
            }
        }
    }
    // `"default": null` says nothing once null is no longer allowed.
    if p.get("default") == Some(&Value::Null) {
        p.remove("default");
    }
}

/// A compiled JSON Schema, ready to check instances.
///
/// The type is this crate's own: the `jsonschema` crate that does the work is pinned exactly,
/// and a pin must not become public API (a new `jsonschema` would be a breaking change of
/// this crate otherwise).
///
/// ```
/// use mcp_runtime::tool::schema;
/// use serde_json::json;
///
/// let validator = schema::compile(&json!({"type": "object", "required": ["city"]})).unwrap();
/// assert!(validator.is_valid(&json!({"city": "Seoul"})));
/// assert_eq!(validator.violations(&json!({})).count(), "1 problem");
/// ```
pub struct Validator(jsonschema::Validator);

impl Validator {
    /// Whether `instance` conforms.
    pub fn is_valid(&self, instance: &Value) -> bool {
        self.0.is_valid(instance)
    }

    /// The violations of `instance`, bounded (see [`Violations`]), one line each naming its
    /// JSON path: a JSON Pointer into the instance (`/items/0/name`); `(root)` is the
    /// instance itself.
    pub fn violations(&self, instance: &Value) -> Violations {
        Violations::collect(self.0.iter_errors(instance), |out, e| {
            let path = e.instance_path().as_str();
            let path = if path.is_empty() { "(root)" } else { path };
            write!(out, "at {path}: {e}")
        })
    }
}

impl fmt::Debug for Validator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Validator").finish_non_exhaustive()
    }
}

/// Compiles a JSON Schema (2020-12 unless it names another dialect with `$schema`).
///
/// Remote `$ref`s are never fetched: the `jsonschema` crate is built without its HTTP and
/// file resolvers, so such a schema fails to compile (spec tools §schema dialects: MUST NOT
/// dereference network references by default).
pub fn compile(schema: &Value) -> Result<Validator, SchemaError> {
    jsonschema::validator_for(schema)
        .map(Validator)
        .map_err(|e| SchemaError(e.to_string()))
}

/// Why a schema is unusable: the meta-schema's or the compiler's reason, as a message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct SchemaError(String);

/// A tool schema checked at registration and compiled into a [`Validator`] when first needed.
///
/// Registration meta-validates every schema (so a malformed one is still refused at start
/// with the reason), and compiles at once the schemas whose compilation could fail even so:
/// those that reference (`$ref`, `$dynamicRef`, `$id`, `$anchor`, any `$` keyword other than
/// `$comment` and `$defs`) or hold regular expressions (`pattern`, `patternProperties`, whose
/// syntax the meta-schema leaves unchecked). The rest (in practice every schema `#[mcp_tool]`
/// generates for a flat argument list) compile on the tool's first call: a server's start-up,
/// and so its answer to `initialize`, doesn't wait for validators of tools a session may never
/// call (about 45k instructions and a hundred KiB of `jsonschema` code each; see `bench/`).
pub struct CheckedSchema {
    schema: Value,
    compiled: std::sync::OnceLock<Result<Validator, String>>,
}

impl CheckedSchema {
    /// Meta-validates `schema` (against the dialect it names, 2020-12 by default) and
    /// compiles it now if compilation could still fail; returns the reason it is unusable.
    pub fn check(schema: Value) -> Result<Self, SchemaError> {
        let compiled = std::sync::OnceLock::new();
        if needs_eager_compile(&schema) {
            // Compiling meta-validates first.
            let _ = compiled.set(Ok(compile(&schema)?));
        } else {
            jsonschema::meta::validate(&schema).map_err(|e| SchemaError(e.to_string()))?;
        }
        Ok(Self { schema, compiled })
    }

    /// The compiled validator, compiling it on first use. The error (a schema that passed
    /// its meta-schema but still doesn't compile, which [`check`](Self::check) makes
    /// unexpected) is kept, not retried.
    pub fn validator(&self) -> Result<&Validator, &str> {
        self.compiled
            .get_or_init(|| compile(&self.schema).map_err(|e| e.0))
            .as_ref()
            .map_err(String::as_str)
    }

    /// Whether the validator has been compiled (successfully or not) yet.
    pub fn is_compiled(&self) -> bool {
        self.compiled.get().is_some()
    }
}

impl std::fmt::Debug for CheckedSchema {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CheckedSchema")
            .field("schema", &self.schema)
            .field("compiled", &self.is_compiled())
            .finish()
    }
}

/// Whether compiling `schema` could fail after its meta-schema accepted it: it holds a key
/// (at any depth) that names or resolves a resource or anchor, or a regular expression.
fn needs_eager_compile(schema: &Value) -> bool {
    match schema {
        Value::Object(map) => map.iter().any(|(key, value)| {
            (key.starts_with('$') && key != "$comment" && key != "$defs")
                || key == "pattern"
                || key == "patternProperties"
                || needs_eager_compile(value)
        }),
        Value::Array(items) => items.iter().any(needs_eager_compile),
        _ => false,
    }
}

/// Checks that an input schema is usable for MCP: root `type: "object"`.
pub(crate) fn check_input_root(schema: &serde_json::Map<String, Value>) -> Result<(), String> {
    match schema.get("type") {
        Some(Value::String(t)) if t == "object" => Ok(()),
        Some(other) => Err(format!("root \"type\" must be \"object\", found {other}")),
        None => Err("root \"type\" must be \"object\" (it is missing)".to_owned()),
    }
}

/// How many violations a message lists; the rest are counted ("…and N more").
pub const MAX_LISTED_VIOLATIONS: usize = 20;

/// How many violations are counted at most (past it: "…and more than N more"), so a 4 MiB
/// array of wrong types costs bounded time, not one message per element.
pub const MAX_COUNTED_VIOLATIONS: usize = 100_000;

/// The longest a listed violation may be, in bytes: a violation quotes the offending value,
/// which may be megabytes long.
pub const MAX_VIOLATION_LEN: usize = 300;

/// The violations of a schema, bounded: at most [`MAX_LISTED_VIOLATIONS`] lines of at most
/// [`MAX_VIOLATION_LEN`] bytes each, and a count of the rest. A response that reports them
/// stays a few kilobytes whatever the input.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Violations {
    /// The first violations, one line each.
    pub listed: Vec<String>,
    /// How many there are in all (at most [`MAX_COUNTED_VIOLATIONS`]).
    pub total: usize,
    /// Whether counting stopped at [`MAX_COUNTED_VIOLATIONS`].
    pub more_than_counted: bool,
}

impl Violations {
    /// Lists the first of `items`, each written by `describe` (cut at
    /// [`MAX_VIOLATION_LEN`]: the writing stops there, so a quoted value of megabytes is
    /// never formatted whole), and counts the rest without describing them.
    pub fn collect<T>(
        items: impl IntoIterator<Item = T>,
        mut describe: impl FnMut(&mut dyn fmt::Write, T) -> fmt::Result,
    ) -> Self {
        let mut found = Self::default();
        for item in items {
            if found.total == MAX_COUNTED_VIOLATIONS {
                found.more_than_counted = true;
                break;
            }
            if found.listed.len() < MAX_LISTED_VIOLATIONS {
                let mut line = Capped::default();
                let complete = describe(&mut line, item).is_ok();
                let mut text = line.text;
                if !complete || line.cut {
                    text.push('…');
                }
                found.listed.push(text);
            }
            found.total += 1;
        }
        found
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.total == 0
    }

    /// `N problem(s)`, for a message's heading.
    pub fn count(&self) -> String {
        let plural = if self.total == 1 { "" } else { "s" };
        match self.more_than_counted {
            true => format!("more than {} problems", self.total),
            false => format!("{} problem{plural}", self.total),
        }
    }

    /// The listed lines as a bullet list (`- …` on each line after the first `- `), with
    /// `…and N more` when some were left out.
    pub fn bullets(&self) -> String {
        let mut out = self.listed.join("\n- ");
        let left = self.total - self.listed.len();
        if left > 0 {
            let over = if self.more_than_counted {
                "more than "
            } else {
                ""
            };
            out.push_str(&format!("\n- …and {over}{left} more"));
        }
        out
    }
}

/// Text that stops growing at [`MAX_VIOLATION_LEN`] bytes: a write past it keeps what fits
/// (on a character boundary) and fails, which ends the formatting.
#[derive(Default)]
struct Capped {
    text: String,
    cut: bool,
}

impl fmt::Write for Capped {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let room = MAX_VIOLATION_LEN - self.text.len();
        if s.len() <= room {
            self.text.push_str(s);
            return Ok(());
        }
        let mut end = room;
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        self.text.push_str(&s[..end]);
        self.cut = true;
        Err(fmt::Error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn lists_violations_with_their_paths() {
        let v = compile(&json!({
            "type": "object",
            "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
            "required": ["a", "b"],
            "additionalProperties": false
        }))
        .unwrap();
        let found = v.violations(&json!({"a": "x", "c": 1}));
        assert_eq!(found.total, 3, "{found:?}");
        assert_eq!(found.count(), "3 problems");
        let found = found.listed;
        assert!(found.iter().any(|l| l.starts_with("at /a:")), "{found:?}");
        assert!(
            found
                .iter()
                .any(|l| l.starts_with("at (root):") && l.contains("\"b\"")),
            "{found:?}"
        );
        assert!(found.iter().any(|l| l.contains("'c'")), "{found:?}");
        assert!(v.violations(&json!({"a": 1, "b": 2})).is_empty());
    }

    #[test]
    fn a_flood_of_violations_is_listed_short_and_counted() {
        let v = compile(&json!({
            "type": "object",
            "properties": {"xs": {"type": "array", "items": {"type": "number"}},
                           "s": {"type": "number"}},
        }))
        .unwrap();
        // 200,000 wrong items and one 1 MiB string where a number belongs.
        let instance = json!({"s": "x".repeat(1 << 20), "xs": vec!["a"; 200_000]});
        let found = v.violations(&instance);
        assert_eq!(found.listed.len(), MAX_LISTED_VIOLATIONS);
        assert!(found.more_than_counted);
        assert_eq!(found.count(), "more than 100000 problems");
        assert!(
            found
                .listed
                .iter()
                .all(|l| l.len() <= MAX_VIOLATION_LEN + 3),
            "{found:?}"
        );
        assert!(
            found
                .listed
                .iter()
                .any(|l| l.starts_with("at /s: \"xxx") && l.ends_with('…'))
        );
        let text = found.bullets();
        assert!(
            text.ends_with("\n- …and more than 99980 more"),
            "{}",
            &text[text.len() - 60..]
        );
        assert!(text.len() < 8 * 1024, "{} bytes", text.len());

        let few = v.violations(&json!({"xs": vec!["a"; 25]}));
        assert_eq!(few.count(), "25 problems");
        assert!(few.bullets().ends_with("\n- …and 5 more"));
        assert!(!few.more_than_counted);
    }

    #[test]
    fn plain_schemas_compile_on_first_use_and_risky_ones_at_once() {
        let plain = CheckedSchema::check(json!({
            "type": "object",
            "properties": {"a": {"type": "number"}},
            "required": ["a"]
        }))
        .unwrap();
        assert!(!plain.is_compiled());
        let v = plain.validator().unwrap();
        assert!(!v.is_valid(&json!({"a": "x"})));
        assert!(plain.is_compiled());

        for risky in [
            json!({"type": "object", "properties": {"p": {"$ref": "#/$defs/P"}}, "$defs": {"P": {"type": "string"}}}),
            json!({"type": "object", "properties": {"p": {"type": "string", "pattern": "^a"}}}),
            json!({"type": "object", "patternProperties": {"^x-": {}}}),
            json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object"}),
        ] {
            let checked = CheckedSchema::check(risky.clone()).unwrap();
            assert!(checked.is_compiled(), "{risky}");
        }
    }

    #[test]
    fn registration_checks_still_refuse_what_would_not_compile() {
        // Refused by the meta-schema: not a type name; `required` not an array.
        for bad in [
            json!({"type": "object", "properties": {"a": {"type": "strng"}}}),
            json!({"type": "object", "required": "a"}),
            // Meta-valid, but the reference or the expression doesn't resolve or parse.
            json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/Missing"}}}),
            json!({"type": "object", "properties": {"a": {"type": "string", "pattern": "(unclosed"}}}),
        ] {
            assert!(CheckedSchema::check(bad.clone()).is_err(), "{bad}");
        }
    }

    #[test]
    fn never_fetches_remote_refs() {
        let err = compile(&json!({"$ref": "https://example.com/schema.json"})).unwrap_err();
        assert!(!err.to_string().is_empty());
    }
}
