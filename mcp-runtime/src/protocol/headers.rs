//! What Streamable HTTP mirrors from the body into headers (2026-07-28 streamable-http
//! §Standard Request Headers, §Custom Headers): the header names, the value encoding with
//! its `=?base64?…?=` sentinel, and the `x-mcp-header` schema annotation that makes a tool
//! argument travel as an `Mcp-Param-{Name}` header. Pure data rules, no I/O: the registry
//! validates annotations with them, the HTTP transport checks requests against them.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Map, Value};
use std::borrow::Cow;

/// The protocol version of the request (every era; required on modern requests).
pub const MCP_PROTOCOL_VERSION: &str = "mcp-protocol-version";
/// The JSON-RPC method of a modern request.
pub const MCP_METHOD: &str = "mcp-method";
/// `params.name` (`tools/call`, `prompts/get`) or `params.uri` (`resources/read`).
pub const MCP_NAME: &str = "mcp-name";
/// The legacy Streamable HTTP session.
pub const MCP_SESSION_ID: &str = "mcp-session-id";
/// Prefix of the headers that mirror `x-mcp-header` arguments.
pub const MCP_PARAM_PREFIX: &str = "mcp-param-";
/// The schema keyword that marks a property as mirrored into a header.
pub const X_MCP_HEADER: &str = "x-mcp-header";

/// The body field `Mcp-Name` mirrors for `method`, if any: its
/// [`name_field`](super::methods::MethodSpec::name_field).
pub fn name_field(method: &str) -> Option<&'static str> {
    super::methods::lookup(method)?.name_field
}

const SENTINEL_PREFIX: &str = "=?base64?";
const SENTINEL_SUFFIX: &str = "?=";

/// Encodes a value for a header: printable ASCII without edge whitespace goes as is,
/// anything else as `=?base64?{base64 of the UTF-8}?=` (so does a value that already looks
/// like the sentinel).
pub fn encode_value(value: &str) -> Cow<'_, str> {
    let plain = !value.is_empty()
        && value.trim() == value
        && value
            .bytes()
            .all(|b| b == b'\t' || (0x20..=0x7e).contains(&b))
        && !(value.starts_with(SENTINEL_PREFIX) && value.ends_with(SENTINEL_SUFFIX));
    if plain {
        Cow::Borrowed(value)
    } else {
        Cow::Owned(format!(
            "{SENTINEL_PREFIX}{}{SENTINEL_SUFFIX}",
            STANDARD.encode(value)
        ))
    }
}

/// Decodes a header value: the sentinel form is base64-decoded (canonical padding, UTF-8);
/// any other value is returned as it is. `None` for a malformed sentinel, so a corrupt
/// header never matches a body value by accident.
pub fn decode_value(raw: &str) -> Option<Cow<'_, str>> {
    let Some(payload) = raw
        .strip_prefix(SENTINEL_PREFIX)
        .and_then(|r| r.strip_suffix(SENTINEL_SUFFIX))
    else {
        return Some(Cow::Borrowed(raw));
    };
    // The STANDARD engine rejects non-canonical padding and trailing bits.
    let bytes = STANDARD.decode(payload).ok()?;
    String::from_utf8(bytes).ok().map(Cow::Owned)
}

/// The JSON type of an argument mirrored into a header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ParamKind {
    /// `"type": "string"`: compared as text.
    String,
    /// `"type": "integer"`: compared numerically (`42` matches `42.0`).
    Integer,
    /// `"type": "boolean"`: `true` or `false`.
    Boolean,
}

/// One `x-mcp-header` annotation of a tool's input schema.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ParamHeader {
    /// The property's path from the root through `properties` (`["region"]`, or deeper).
    pub path: Vec<String>,
    /// The annotation's token: the header is `Mcp-Param-{name}`.
    pub name: String,
    /// The property's type.
    pub kind: ParamKind,
}

impl ParamHeader {
    /// The lowercase header name, `mcp-param-{name}`.
    pub fn header_name(&self) -> String {
        format!("{MCP_PARAM_PREFIX}{}", self.name.to_ascii_lowercase())
    }

    /// The argument this header mirrors; `None` when absent or `null` (then no header is sent).
    pub fn value_in<'a>(&self, arguments: &'a Map<String, Value>) -> Option<&'a Value> {
        let (first, rest) = self.path.split_first()?;
        let mut node = arguments.get(first)?;
        for key in rest {
            node = node.as_object()?.get(key)?;
        }
        (!node.is_null()).then_some(node)
    }

    /// Whether a decoded header value agrees with the argument `value`.
    pub fn matches(&self, value: &Value, decoded: &str) -> bool {
        match (self.kind, value) {
            (ParamKind::String, Value::String(s)) => s == decoded,
            (ParamKind::Boolean, Value::Bool(b)) => decoded == if *b { "true" } else { "false" },
            (ParamKind::Integer, Value::Number(n)) => integer_matches(n, decoded),
            _ => false,
        }
    }
}

/// `42`, `-7` or `42.0` in the header against an integral JSON number, exactly (no float
/// round trip, so values past 2^53 compare too).
fn integer_matches(n: &serde_json::Number, decoded: &str) -> bool {
    let (whole, fraction) = decoded.split_once('.').unwrap_or((decoded, ""));
    let digits = whole.strip_prefix('-').unwrap_or(whole);
    if digits.is_empty()
        || !digits.bytes().all(|b| b.is_ascii_digit())
        || !fraction.bytes().all(|b| b == b'0')
        || (decoded.contains('.') && fraction.is_empty())
    {
        return false;
    }
    let body = if let Some(i) = n.as_i64() {
        i.to_string()
    } else if let Some(u) = n.as_u64() {
        u.to_string()
    } else {
        match n.as_f64() {
            Some(f) if f.fract() == 0.0 && f.abs() < 1e18 => format!("{f:.0}"),
            _ => return false,
        }
    };
    let trimmed = digits.trim_start_matches('0');
    let canonical = if trimmed.is_empty() { "0" } else { trimmed };
    let negative = whole.starts_with('-') && canonical != "0";
    let header = if negative {
        format!("-{canonical}")
    } else {
        canonical.to_owned()
    };
    header == body
}

/// Keywords whose subschemas are off the `properties` chain: an annotation under one of
/// them makes the tool definition invalid (clients drop such tools).
const SINGLE: &[&str] = &[
    "items",
    "contains",
    "unevaluatedItems",
    "additionalProperties",
    "propertyNames",
    "unevaluatedProperties",
    "not",
    "if",
    "then",
    "else",
    "contentSchema",
];
const LIST: &[&str] = &["allOf", "anyOf", "oneOf", "prefixItems"];
const MAP: &[&str] = &[
    "patternProperties",
    "dependentSchemas",
    "$defs",
    "definitions",
];

/// Collects a tool input schema's `x-mcp-header` annotations, or says why one is invalid.
///
/// Valid: a non-empty RFC 9110 token, case-insensitively unique, on a `string`, `integer`
/// or `boolean` property reached from the root through `properties` only. The rules are the
/// ones the official SDKs apply (a client drops a tool that breaks them), so a server
/// refuses to register such a tool rather than serve one that clients silently ignore.
pub(crate) fn scan(schema: &Map<String, Value>) -> Result<Vec<ParamHeader>, String> {
    let mut found = Vec::new();
    // Each schema position with its `properties` path, or `None` once off that chain.
    type Position<'a> = (Option<Vec<String>>, &'a Map<String, Value>);
    let mut stack: Vec<Position<'_>> = vec![(Some(Vec::new()), schema)];
    while let Some((path, node)) = stack.pop() {
        if let Some(raw) = node.get(X_MCP_HEADER) {
            found.push(annotation(path.as_deref(), raw, node)?);
        }
        for (keyword, value) in node {
            match (keyword.as_str(), value) {
                ("properties", Value::Object(props)) => {
                    for (name, sub) in props {
                        if let Value::Object(sub) = sub {
                            let child = path.as_ref().map(|p| {
                                let mut p = p.clone();
                                p.push(name.clone());
                                p
                            });
                            stack.push((child, sub));
                        }
                    }
                }
                (k, Value::Object(sub)) if SINGLE.contains(&k) => stack.push((None, sub)),
                // `items` as an array is the tuple form of older drafts.
                (k, Value::Array(subs)) if LIST.contains(&k) || SINGLE.contains(&k) => {
                    stack.extend(subs.iter().filter_map(Value::as_object).map(|s| (None, s)));
                }
                (k, Value::Object(subs)) if MAP.contains(&k) => {
                    stack.extend(
                        subs.values()
                            .filter_map(Value::as_object)
                            .map(|s| (None, s)),
                    );
                }
                _ => {}
            }
        }
    }
    let mut seen: Vec<String> = Vec::with_capacity(found.len());
    for p in &found {
        let lower = p.name.to_ascii_lowercase();
        if seen.contains(&lower) {
            return Err(format!(
                "{X_MCP_HEADER} {:?} is declared twice (names are case-insensitive)",
                p.name
            ));
        }
        seen.push(lower);
    }
    found.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(found)
}

fn annotation(
    path: Option<&[String]>,
    raw: &Value,
    node: &Map<String, Value>,
) -> Result<ParamHeader, String> {
    let path = match path {
        Some(p) if !p.is_empty() => p,
        _ => {
            return Err(format!(
                "{X_MCP_HEADER} is only allowed on a property reached through `properties` alone \
                 (not the root, items, additionalProperties, oneOf/anyOf/allOf/not, if/then/else or $defs)"
            ));
        }
    };
    let at = path.join(".");
    let name = raw.as_str().filter(|s| is_token(s)).ok_or_else(|| {
        format!(
            "property `{at}`: {X_MCP_HEADER} must be a non-empty HTTP token (RFC 9110), got {raw}"
        )
    })?;
    let kind = match node.get("type").and_then(Value::as_str) {
        Some("string") => ParamKind::String,
        Some("integer") => ParamKind::Integer,
        Some("boolean") => ParamKind::Boolean,
        other => {
            return Err(format!(
                "property `{at}`: {X_MCP_HEADER} is only allowed on string, integer or boolean properties (type is {})",
                other.map_or_else(|| "not a single string".to_owned(), |t| format!("{t:?}"))
            ));
        }
    };
    Ok(ParamHeader {
        path: path.to_vec(),
        name: name.to_owned(),
        kind,
    })
}

/// RFC 9110 §5.6.2 `token`.
fn is_token(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn object(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap()
    }

    #[test]
    fn values_round_trip_through_the_sentinel() {
        for v in [
            "us-west1",
            "Zürich",
            " padded ",
            "",
            "=?base64?abc?=",
            "tab\there",
            "line\nbreak",
        ] {
            let encoded = encode_value(v);
            assert!(
                encoded
                    .bytes()
                    .all(|b| (0x20..=0x7e).contains(&b) || b == b'\t')
            );
            assert_eq!(decode_value(&encoded).as_deref(), Some(v), "{encoded}");
        }
        assert_eq!(encode_value("us-west1"), "us-west1");
        assert_eq!(encode_value("Zürich"), "=?base64?WsO8cmljaA==?=");
        assert_eq!(decode_value("=?base64?not base64?="), None);
        assert_eq!(decode_value("=?base64?WsO8cmljaA=?="), None, "bad padding");
        assert_eq!(decode_value("=?base64?/w==?="), None, "not UTF-8");
    }

    #[test]
    fn integers_compare_numerically() {
        let p = ParamHeader {
            path: vec!["n".into()],
            name: "N".into(),
            kind: ParamKind::Integer,
        };
        assert!(p.matches(&json!(42), "42"));
        assert!(p.matches(&json!(42), "42.0"));
        assert!(p.matches(&json!(42.0), "42"));
        assert!(p.matches(&json!(-7), "-7"));
        assert!(p.matches(&json!(0), "-0"));
        assert!(p.matches(&json!(9_007_199_254_740_993_u64), "9007199254740993"));
        assert!(!p.matches(&json!(42), "43"));
        assert!(!p.matches(&json!(42), "42.5"));
        assert!(!p.matches(&json!(42), "4.2e1"));
        assert!(!p.matches(&json!(42), "42."));
        assert!(!p.matches(&json!(42), ""));
        assert!(!p.matches(&json!("42"), "42"));
    }

    #[test]
    fn scan_finds_nested_annotations_and_rejects_bad_ones() {
        let schema = object(json!({
            "type": "object",
            "properties": {
                "region": {"type": "string", "x-mcp-header": "Region"},
                "where": {"type": "object", "properties": {"zone": {"type": "integer", "x-mcp-header": "Zone"}}},
                "dry": {"type": "boolean", "x-mcp-header": "Dry-Run"}
            }
        }));
        let found = scan(&schema).unwrap();
        let names: Vec<_> = found.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["Dry-Run", "Region", "Zone"]);
        assert_eq!(found[2].path, ["where", "zone"]);
        assert_eq!(found[0].header_name(), "mcp-param-dry-run");

        let bad = [
            json!({"type": "object", "properties": {"a": {"type": "number", "x-mcp-header": "A"}}}),
            json!({"type": "object", "properties": {"a": {"type": "string", "x-mcp-header": "has space"}}}),
            json!({"type": "object", "properties": {"a": {"type": "string", "x-mcp-header": ""}}}),
            json!({"type": "object", "properties": {"a": {"type": "string", "x-mcp-header": "A"}, "b": {"type": "string", "x-mcp-header": "a"}}}),
            json!({"type": "object", "properties": {"a": {"type": "array", "items": {"type": "string", "x-mcp-header": "A"}}}}),
            json!({"type": "object", "anyOf": [{"properties": {"a": {"type": "string", "x-mcp-header": "A"}}}]}),
            json!({"type": "object", "$defs": {"d": {"type": "string", "x-mcp-header": "A"}}}),
            json!({"type": "object", "x-mcp-header": "Root"}),
        ];
        for schema in bad {
            assert!(scan(&object(schema.clone())).is_err(), "{schema}");
        }
    }

    #[test]
    fn values_are_found_by_path_and_null_counts_as_absent() {
        let p = ParamHeader {
            path: vec!["where".into(), "zone".into()],
            name: "Zone".into(),
            kind: ParamKind::Integer,
        };
        let args = object(json!({"where": {"zone": 3}}));
        assert_eq!(p.value_in(&args), Some(&json!(3)));
        assert_eq!(p.value_in(&object(json!({"where": {"zone": null}}))), None);
        assert_eq!(p.value_in(&object(json!({"where": 1}))), None);
    }
}
