//! The `requestedSchema` of a form elicitation, from a Rust type's `schemars` schema.
//!
//! A client renders the schema as a form, so the spec allows only a flat object of
//! primitive fields (`primitives.md` §5.1): strings (`minLength`, `maxLength`, `format` ∈
//! `email|uri|date|date-time`), numbers and integers (`minimum`, `maximum`), booleans,
//! single-choice enums (`enum`, or `oneOf` of `{const, title}` when the variants are
//! titled), multi-choice enums (an array of those, `minItems`/`maxItems`), each with an
//! optional `title`, `description` and `default`. This module maps what `schemars` makes of
//! a struct onto exactly that:
//!
//! - `$ref`s into `$defs` are inlined, `Option<T>` becomes `T` and is not `required`;
//! - a unit enum's variant doc comment or `#[schemars(title = …)]` becomes its `title`
//!   (titled enums: `oneOf`/`anyOf` of `{const, title}`; untitled: a plain `enum`);
//! - number formats (`int32`, `uint8`, …) are dropped, `uniqueItems` too (not in the spec);
//! - anything else (a nested struct, a list of strings, a map) is refused with the field's
//!   name, since no client could render it. The check runs once per type.

use super::InputError;
use schemars::JsonSchema;
use serde_json::{Map, Value, json};
use std::any::TypeId;
use std::collections::HashMap;
use std::sync::{LazyLock, Mutex};

/// The elicitation schema of `T`, computed once per type.
pub(crate) fn of<T: JsonSchema + 'static>() -> Result<Value, InputError> {
    static CACHE: LazyLock<Mutex<HashMap<TypeId, Result<Value, String>>>> =
        LazyLock::new(Default::default);
    let id = TypeId::of::<T>();
    if let Some(found) = CACHE.lock().unwrap_or_else(|e| e.into_inner()).get(&id) {
        return found.clone().map_err(InputError::InvalidSchema);
    }
    let schema = schemars::schema_for!(T).to_value();
    let made = convert(&schema, std::any::type_name::<T>());
    CACHE
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(id, made.clone());
    made.map_err(InputError::InvalidSchema)
}

/// Maps a root schema onto the elicitation subset (see the module docs).
pub(crate) fn convert(root: &Value, name: &str) -> Result<Value, String> {
    let defs = root
        .get("$defs")
        .or_else(|| root.get("definitions"))
        .and_then(Value::as_object);
    let root = resolve(root, defs);
    if root.get("type").and_then(Value::as_str) != Some("object") {
        return Err(format!(
            "`{name}` is not a struct with named fields; an elicitation asks for an object"
        ));
    }
    let mut properties = Map::new();
    let required: Vec<&str> = root
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut kept_required = Vec::new();
    for (field, schema) in root
        .get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        let (converted, optional) =
            property(schema, defs).map_err(|why| format!("field `{field}` of `{name}`: {why}"))?;
        if required.contains(&field.as_str()) && !optional {
            kept_required.push(Value::String(field.clone()));
        }
        properties.insert(field.clone(), converted);
    }
    let mut out = json!({ "type": "object", "properties": properties });
    if !kept_required.is_empty() {
        out["required"] = Value::Array(kept_required);
    }
    Ok(out)
}

/// Follows a `$ref` (possibly wrapped in a one-item `allOf`) into `$defs`.
fn resolve<'a>(schema: &'a Value, defs: Option<&'a Map<String, Value>>) -> &'a Value {
    let target = schema.get("$ref").or_else(|| {
        schema
            .get("allOf")
            .and_then(Value::as_array)
            .filter(|a| a.len() == 1)
            .and_then(|a| a[0].get("$ref"))
    });
    match target.and_then(Value::as_str).and_then(|r| {
        r.rsplit('/')
            .next()
            .and_then(|name| defs.and_then(|d| d.get(name)))
    }) {
        Some(found) => found,
        None => schema,
    }
}

/// One field: its elicitation schema, and whether it may be left out (`Option`).
fn property(schema: &Value, defs: Option<&Map<String, Value>>) -> Result<(Value, bool), String> {
    // Annotations on the field itself (doc comment, default) win over the referenced type's.
    let mut annotations = Map::new();
    for key in ["title", "description", "default"] {
        if let Some(v) = schema.get(key) {
            annotations.insert(key.to_owned(), v.clone());
        }
    }
    let (inner, optional) = strip_null(schema, defs);
    let mut out = primitive(inner, defs)?;
    let obj = out.as_object_mut().expect("primitive returns objects");
    for (k, v) in annotations {
        if !(k == "default" && v.is_null()) {
            obj.insert(k, v);
        }
    }
    Ok((out, optional))
}

/// `Option<T>`: `type: [T, "null"]` or `anyOf: [T, {type: null}]`.
fn strip_null<'a>(schema: &'a Value, defs: Option<&'a Map<String, Value>>) -> (Value, bool) {
    let schema = resolve(schema, defs);
    if let Some(types) = schema.get("type").and_then(Value::as_array) {
        let rest: Vec<&Value> = types.iter().filter(|t| *t != "null").collect();
        if rest.len() == 1 && rest.len() < types.len() {
            let mut s = schema.clone();
            s["type"] = rest[0].clone();
            // An optional enum lists `null` among its values too.
            if let Some(values) = s.get_mut("enum").and_then(Value::as_array_mut) {
                values.retain(|v| !v.is_null());
            }
            return (s, true);
        }
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(alternatives) = schema.get(key).and_then(Value::as_array) {
            let rest: Vec<&Value> = alternatives
                .iter()
                .filter(|a| a.get("type").and_then(Value::as_str) != Some("null"))
                .collect();
            if rest.len() == 1 && rest.len() < alternatives.len() {
                return (resolve(rest[0], defs).clone(), true);
            }
        }
    }
    (schema.clone(), false)
}

fn copy(from: &Value, to: &mut Map<String, Value>, keys: &[&str]) {
    for key in keys {
        if let Some(v) = from.get(*key) {
            to.insert((*key).to_owned(), v.clone());
        }
    }
}

fn primitive(schema: Value, defs: Option<&Map<String, Value>>) -> Result<Value, String> {
    let schema = resolve(&schema, defs).clone();
    let mut out = Map::new();
    copy(&schema, &mut out, &["title", "description", "default"]);
    if let Some(choices) = single_choice(&schema) {
        out.insert("type".into(), "string".into());
        out.extend(choices);
        return Ok(Value::Object(out));
    }
    match schema.get("type").and_then(Value::as_str) {
        Some("string") => {
            out.insert("type".into(), "string".into());
            copy(&schema, &mut out, &["minLength", "maxLength"]);
            if let Some(format) = schema.get("format").and_then(Value::as_str) {
                if !matches!(format, "email" | "uri" | "date" | "date-time") {
                    return Err(format!(
                        "string format `{format}` is not one a client renders (email, uri, date, date-time)"
                    ));
                }
                out.insert("format".into(), format.into());
            }
        }
        Some(t @ ("integer" | "number")) => {
            out.insert("type".into(), t.into());
            copy(&schema, &mut out, &["minimum", "maximum"]);
        }
        Some("boolean") => {
            out.insert("type".into(), "boolean".into());
        }
        Some("array") => {
            let items = schema.get("items").map(|i| resolve(i, defs)).cloned();
            let Some(choices) = items.as_ref().and_then(single_choice) else {
                return Err(
                    "a list is allowed only of unit-enum choices (a multi-select)".to_owned(),
                );
            };
            out.insert("type".into(), "array".into());
            copy(&schema, &mut out, &["minItems", "maxItems"]);
            let mut items = Map::new();
            match choices.get("oneOf") {
                // Titled multi-select: `items.anyOf` of `{const, title}`.
                Some(titled) => {
                    items.insert("anyOf".into(), titled.clone());
                }
                None => {
                    items.insert("type".into(), "string".into());
                    items.extend(choices);
                }
            }
            out.insert("items".into(), Value::Object(items));
        }
        Some(other) => {
            return Err(format!(
                "type `{other}` cannot be asked in a form; use strings, numbers, booleans and unit enums"
            ));
        }
        None => {
            return Err(
                "it has no single primitive type; use strings, numbers, booleans and unit enums"
                    .to_owned(),
            );
        }
    }
    Ok(Value::Object(out))
}

/// A unit enum: `{enum: [...]}` when no variant has a title, `{oneOf: [{const, title}]}`
/// when one does (variants without one are titled with their value).
fn single_choice(schema: &Value) -> Option<Map<String, Value>> {
    let mut out = Map::new();
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        if !values.iter().all(Value::is_string) {
            return None;
        }
        out.insert("enum".into(), Value::Array(values.clone()));
        copy(schema, &mut out, &["enumNames"]);
        return Some(out);
    }
    let variants = schema
        .get("oneOf")
        .or_else(|| schema.get("anyOf"))
        .and_then(Value::as_array)?;
    let mut titled = Vec::new();
    let mut plain = Vec::new();
    let mut any_title = false;
    for variant in variants {
        let values: Vec<Value> = match (variant.get("const"), variant.get("enum")) {
            (Some(c), _) => vec![c.clone()],
            (None, Some(Value::Array(e))) => e.clone(),
            _ => return None,
        };
        let title = variant
            .get("title")
            .or_else(|| variant.get("description"))
            .cloned();
        any_title |= title.is_some();
        for value in values {
            let text = value.as_str()?.to_owned();
            titled.push(json!({
                "const": text,
                "title": title.clone().unwrap_or_else(|| Value::String(text.clone())),
            }));
            plain.push(Value::String(text));
        }
    }
    if any_title {
        out.insert("oneOf".into(), Value::Array(titled));
    } else {
        out.insert("enum".into(), Value::Array(plain));
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code)]
    enum Status {
        Active,
        Inactive,
    }

    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code)]
    enum Titled {
        /// First Option
        #[serde(rename = "value1")]
        One,
        /// Second Option
        #[serde(rename = "value2")]
        Two,
    }

    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct Form {
        /// Your name
        name: String,
        #[schemars(email)]
        email: Option<String>,
        #[schemars(range(min = 0, max = 150))]
        age: u8,
        score: f64,
        #[serde(default = "yes")]
        verified: bool,
        status: Status,
        titled: Option<Titled>,
        #[schemars(length(min = 1, max = 2))]
        many: Vec<Titled>,
        plain_many: Vec<Status>,
    }

    fn yes() -> bool {
        true
    }

    #[test]
    fn a_struct_of_primitives_and_enums_becomes_the_spec_shapes() {
        let schema = of::<Form>().unwrap();
        let p = &schema["properties"];
        assert_eq!(schema["type"], "object");
        assert_eq!(
            p["name"],
            json!({"type": "string", "description": "Your name"})
        );
        assert_eq!(p["email"], json!({"type": "string", "format": "email"}));
        assert_eq!(p["age"]["type"], "integer");
        assert_eq!(p["age"]["maximum"], 150);
        assert!(p["age"].get("format").is_none());
        assert_eq!(p["score"], json!({"type": "number"}));
        assert_eq!(p["verified"], json!({"type": "boolean", "default": true}));
        assert_eq!(
            p["status"],
            json!({"type": "string", "enum": ["Active", "Inactive"]})
        );
        assert_eq!(
            p["titled"],
            json!({"type": "string", "oneOf": [
                {"const": "value1", "title": "First Option"},
                {"const": "value2", "title": "Second Option"}
            ]})
        );
        assert_eq!(p["many"]["type"], "array");
        assert_eq!(p["many"]["minItems"], 1);
        assert_eq!(
            p["many"]["items"]["anyOf"][1],
            json!({"const": "value2", "title": "Second Option"})
        );
        assert_eq!(
            p["plain_many"]["items"],
            json!({"type": "string", "enum": ["Active", "Inactive"]})
        );
        let required: Vec<&str> = schema["required"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        assert!(required.contains(&"name") && required.contains(&"age"));
        assert!(!required.contains(&"email") && !required.contains(&"titled"));
        assert!(
            !required.contains(&"verified"),
            "a field with a default may be left out"
        );
    }

    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct Inner {
        x: u8,
    }

    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct Nested {
        inner: Inner,
    }

    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct Tags {
        tags: Vec<String>,
    }

    #[test]
    fn what_no_client_can_render_is_refused_with_the_field_named() {
        let e = of::<Nested>().unwrap_err().to_string();
        assert!(e.contains("field `inner`"), "{e}");
        let e = of::<Tags>().unwrap_err().to_string();
        assert!(
            e.contains("field `tags`") && e.contains("multi-select"),
            "{e}"
        );
        let e = of::<String>().unwrap_err().to_string();
        assert!(e.contains("not a struct"), "{e}");
    }
}
