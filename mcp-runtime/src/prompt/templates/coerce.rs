//! Prompt arguments arrive as strings (the protocol has no other kind); a template's schema
//! says what they are. Each is converted by its property's `type`, schema `default`s fill
//! the ones not given, and the whole is validated, every violation reported at once.
//!
//! Conversion never fails on its own: a string that is not what its type asks for stays a
//! string, and validation then says so, naming the argument, along with everything else
//! that is wrong. So one `-32602` lists every problem, as tool arguments' validation does.

use crate::tool::schema::Violations;
use serde_json::{Map, Number, Value};

/// The arguments as JSON values: converted by their schemas, defaults applied.
pub(crate) fn coerce(
    arguments: &crate::prompt::PromptArguments,
    properties: &Map<String, Value>,
) -> Map<String, Value> {
    let mut out = Map::new();
    for (name, raw) in arguments {
        let value = match properties.get(name) {
            Some(schema) => coerce_one(raw, schema),
            None => Value::String(raw.clone()),
        };
        out.insert(name.clone(), value);
    }
    for (name, schema) in properties {
        if !out.contains_key(name)
            && let Some(default) = schema.get("default")
        {
            out.insert(name.clone(), default.clone());
        }
    }
    out
}

/// `raw` as the first of the property's types it parses as; else the string itself.
fn coerce_one(raw: &str, schema: &Value) -> Value {
    let types: Vec<&str> = match schema.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    // A string is kept as is whenever a string is allowed.
    if types.is_empty() || types.contains(&"string") {
        return Value::String(raw.to_owned());
    }
    types
        .iter()
        .find_map(|t| parse_as(raw, t))
        .unwrap_or_else(|| Value::String(raw.to_owned()))
}

fn parse_as(raw: &str, ty: &str) -> Option<Value> {
    let trimmed = raw.trim();
    match ty {
        "integer" => trimmed
            .parse::<i64>()
            .map(Value::from)
            .or_else(|_| trimmed.parse::<u64>().map(Value::from))
            .ok(),
        "number" => match trimmed.parse::<i64>() {
            Ok(i) => Some(i.into()),
            Err(_) => trimmed
                .parse::<f64>()
                .ok()
                .and_then(Number::from_f64)
                .map(Value::Number),
        },
        "boolean" => match trimmed {
            "true" => Some(Value::Bool(true)),
            "false" => Some(Value::Bool(false)),
            _ => None,
        },
        "null" => (trimmed == "null").then_some(Value::Null),
        "array" => serde_json::from_str::<Value>(trimmed)
            .ok()
            .filter(Value::is_array),
        "object" => serde_json::from_str::<Value>(trimmed)
            .ok()
            .filter(Value::is_object),
        _ => None,
    }
}

/// The violations of the schema by `arguments`, each naming its argument (bounded: see
/// [`Violations`]).
pub(crate) fn violations(validator: &jsonschema::Validator, arguments: &Value) -> Violations {
    Violations::collect(validator.iter_errors(arguments), |out, e| {
        let path = e.instance_path().as_str();
        let mut segments = path.split('/').skip(1);
        match segments.next() {
            Some(argument) => {
                let argument = argument.replace("~1", "/").replace("~0", "~");
                let rest: Vec<&str> = segments.collect();
                if rest.is_empty() {
                    write!(out, "argument `{argument}`: {e}")
                } else {
                    write!(out, "argument `{argument}` at /{}: {e}", rest.join("/"))
                }
            }
            None => write!(out, "{e}"),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn props() -> Map<String, Value> {
        json!({
            "n": {"type": "integer", "default": 100},
            "x": {"type": "number"},
            "b": {"type": "boolean"},
            "tags": {"type": "array", "items": {"type": "string"}},
            "opts": {"type": "object"},
            "s": {"type": "string"},
            "maybe": {"type": ["integer", "null"]},
            "either": {"type": ["integer", "string"]}
        })
        .as_object()
        .unwrap()
        .clone()
    }

    fn args(pairs: &[(&str, &str)]) -> crate::prompt::PromptArguments {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn converts_by_type_and_applies_defaults() {
        let out = coerce(
            &args(&[
                ("x", "2.5"),
                ("b", "true"),
                ("tags", r#"["a","b"]"#),
                ("opts", r#"{"k": 1}"#),
                ("s", "100"),
                ("maybe", "null"),
                ("either", "7"),
            ]),
            &props(),
        );
        assert_eq!(
            Value::Object(out),
            json!({"n": 100, "x": 2.5, "b": true, "tags": ["a", "b"], "opts": {"k": 1},
                   "s": "100", "maybe": null, "either": "7"})
        );
        let out = coerce(&args(&[("n", "42"), ("x", "3")]), &props());
        assert_eq!(out["n"], json!(42));
        assert_eq!(out["x"], json!(3));
    }

    #[test]
    fn what_does_not_parse_stays_a_string() {
        let out = coerce(
            &args(&[("n", "1.5"), ("b", "yes"), ("tags", "a,b")]),
            &props(),
        );
        assert_eq!(out["n"], json!("1.5"));
        assert_eq!(out["b"], json!("yes"));
        assert_eq!(out["tags"], json!("a,b"));
    }

    #[test]
    fn violations_name_their_arguments() {
        let schema = json!({"type": "object", "properties": props(), "required": ["s"]});
        let validator = jsonschema::validator_for(&schema).unwrap();
        let out = coerce(&args(&[("n", "x"), ("b", "yes")]), &props());
        let found = violations(&validator, &Value::Object(out)).listed;
        assert_eq!(found.len(), 3, "{found:?}");
        assert!(
            found.iter().any(|v| v.starts_with("argument `n`:")),
            "{found:?}"
        );
        assert!(
            found.iter().any(|v| v.starts_with("argument `b`:")),
            "{found:?}"
        );
        assert!(found.iter().any(|v| v.contains("\"s\"")), "{found:?}");
    }
}
