//! The benchmark harness: a load client for MCP servers over stdio ([`load`]) and HTTP
//! ([`http_load`]), side-by-side
//! comparisons ([`compare`]), `/proc` readings ([`procfs`]), the stdio floors' answers
//! ([`floor`]), and the same tool written three ways so the criterion benchmarks can compare
//! the macro path with hand-written ones.

pub mod compare;
pub mod floor;
pub mod http_load;
pub mod load;
pub mod procfs;
pub mod task_lines;

use futures::future::BoxFuture;
use mcp_runtime::prelude::*;
use mcp_runtime::protocol::JsonObject;
use serde_json::json;

/// Adds two numbers (the `#[mcp_tool]` version).
#[mcp_tool(read_only)]
pub async fn add(
    /// The first addend
    a: f64,
    /// The second addend
    b: f64,
) -> f64 {
    a + b
}

/// `add` with its results cached: a repeated call is answered without running it.
#[mcp_tool(read_only, idempotent, cache = "60s")]
pub async fn cached_add(
    /// The first addend
    a: f64,
    /// The second addend
    b: f64,
) -> f64 {
    a + b
}

/// `add` implemented by hand on the `Tool` trait: what the macro is measured against.
#[derive(Debug, Clone, Copy)]
pub struct HandAdd;

impl Tool for HandAdd {
    fn definition(&self) -> ToolDefinition {
        ToolDefinition::new(
            "add",
            "Adds two numbers.",
            json!({
                "type": "object",
                "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
                "required": ["a", "b"],
                "additionalProperties": false
            }),
        )
    }

    fn call(
        &self,
        arguments: JsonObject,
        _cx: RequestContext,
    ) -> BoxFuture<'static, CallToolResult> {
        let a = arguments
            .get("a")
            .and_then(serde_json::Value::as_f64)
            .unwrap_or_default();
        let b = arguments
            .get("b")
            .and_then(serde_json::Value::as_f64)
            .unwrap_or_default();
        Box::pin(async move { (a + b).into_tool_result() })
    }
}

/// `add` by hand, but decoding its arguments with serde as the macro does.
#[derive(Debug, Clone, Copy)]
pub struct HandSerdeAdd;

#[derive(serde::Deserialize)]
struct AddArgs {
    a: f64,
    b: f64,
}

impl Tool for HandSerdeAdd {
    fn definition(&self) -> ToolDefinition {
        HandAdd.definition()
    }

    fn call(
        &self,
        arguments: JsonObject,
        _cx: RequestContext,
    ) -> BoxFuture<'static, CallToolResult> {
        match serde_json::from_value::<AddArgs>(serde_json::Value::Object(arguments)) {
            Ok(args) => Box::pin(async move { (args.a + args.b).into_tool_result() }),
            Err(e) => Box::pin(async move { CallToolResult::error(e.to_string()) }),
        }
    }
}

/// A server with one `add` tool, built from the given tool.
pub fn server_with(tool: impl Tool) -> Server {
    Server::builder("bench", "0.0.0")
        .tool(tool)
        .build()
        .expect("valid tool")
}
