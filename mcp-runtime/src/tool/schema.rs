//! Schema checks: compiling tool schemas once, and describing violations to a model.

use jsonschema::Validator;
use serde_json::Value;

/// Compiles a JSON Schema (2020-12 unless it names another dialect with `$schema`).
///
/// Remote `$ref`s are never fetched: the `jsonschema` crate is built without its HTTP and
/// file resolvers, so such a schema fails to compile (spec tools §schema dialects: MUST NOT
/// dereference network references by default).
pub fn compile(schema: &Value) -> Result<Validator, String> {
    jsonschema::validator_for(schema).map_err(|e| e.to_string())
}

/// Checks that an input schema is usable for MCP: root `type: "object"`.
pub fn check_input_root(schema: &serde_json::Map<String, Value>) -> Result<(), String> {
    match schema.get("type") {
        Some(Value::String(t)) if t == "object" => Ok(()),
        Some(other) => Err(format!("root \"type\" must be \"object\", found {other}")),
        None => Err("root \"type\" must be \"object\" (it is missing)".to_owned()),
    }
}

/// Every violation of `validator` by `instance`, one line each, naming its JSON path.
///
/// The path is a JSON Pointer into the instance (`/items/0/name`); `(root)` is the
/// instance itself.
pub fn violations(validator: &Validator, instance: &Value) -> Vec<String> {
    validator
        .iter_errors(instance)
        .map(|e| {
            let path = e.instance_path().as_str();
            let path = if path.is_empty() { "(root)" } else { path };
            format!("at {path}: {e}")
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn lists_every_violation_with_its_path() {
        let v = compile(&json!({
            "type": "object",
            "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
            "required": ["a", "b"],
            "additionalProperties": false
        }))
        .unwrap();
        let found = violations(&v, &json!({"a": "x", "c": 1}));
        assert_eq!(found.len(), 3, "{found:?}");
        assert!(found.iter().any(|l| l.starts_with("at /a:")), "{found:?}");
        assert!(
            found
                .iter()
                .any(|l| l.starts_with("at (root):") && l.contains("\"b\"")),
            "{found:?}"
        );
        assert!(found.iter().any(|l| l.contains("'c'")), "{found:?}");
        assert!(violations(&v, &json!({"a": 1, "b": 2})).is_empty());
    }

    #[test]
    fn never_fetches_remote_refs() {
        let err = compile(&json!({"$ref": "https://example.com/schema.json"})).unwrap_err();
        assert!(!err.is_empty());
    }
}
