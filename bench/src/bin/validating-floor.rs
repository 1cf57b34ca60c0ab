//! The validating floor: the stdio floor plus the one thing every server built on the toolkit
//! must do, checking each call's arguments against its tool's input schema with `jsonschema`
//! (validators compiled once at start, from the schemas `#[mcp_tool]` generates for
//! `echo-server`'s tools). Its distance from the plain floor is what the validator alone costs:
//! its code in memory, its start-up, its time per call. No server that validates with
//! `jsonschema` can go below it.

use serde_json::json;

fn main() -> std::io::Result<()> {
    let echo = jsonschema::validator_for(&json!({
        "type": "object", "additionalProperties": false, "required": ["text"],
        "properties": {"text": {"type": "string", "description": "The text to echo back"}}
    }))
    .expect("the echo schema compiles");
    let add = jsonschema::validator_for(&json!({
        "type": "object", "additionalProperties": false, "required": ["a", "b"],
        "properties": {
            "a": {"type": "number", "description": "The first addend"},
            "b": {"type": "number", "description": "The second addend"}
        }
    }))
    .expect("the add schema compiles");
    mcp_bench::floor::serve("validating-floor", |tool, arguments| {
        let validator = if tool == "echo" { &echo } else { &add };
        validator
            .iter_errors(arguments)
            .map(|e| e.to_string())
            .collect()
    })
}
