//! The shapes that must compile: free functions, every attribute key, injected parameters,
//! defaults, renames, structured output, and calling the function as written.

use mcp_runtime::prelude::*;
use mcp_runtime::tool::State;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

#[derive(Deserialize, Serialize, schemars::JsonSchema)]
struct Point {
    x: f64,
    y: f64,
}

/// No parameters, unit result.
#[mcp_tool]
async fn nothing() {}

/// Every key.
#[mcp_tool(
    name = "all.keys",
    description = "Overrides the doc comment.",
    title = "All keys",
    read_only = false,
    destructive = true,
    idempotent,
    open_world = false,
    icons = ["https://example.com/i.png", "data:image/png;base64,AAAA"],
    additional_properties,
    schema_dialect
)]
async fn all_keys(
    /// A point
    point: Point,
    #[mcp(rename = "labelText")] label: Option<String>,
    #[mcp(default = 3)] count: u8,
    #[serde(default)] flag: bool,
    #[mcp(arg)] state: Option<String>,
    State(shared): State<Arc<String>>,
    cx: RequestContext,
) -> Result<Json<Point>, std::io::Error> {
    let _ = (label, count, flag, state, shared, cx);
    Ok(Json(point))
}

/// A raw identifier name.
#[mcp_tool]
async fn r#type(r#type: String) -> String {
    r#type
}

struct Counter;

#[mcp_tools]
impl Counter {
    /// Reads with `&self`.
    #[mcp_tool(read_only)]
    async fn read(&self, /// Which
        which: u32) -> u32 {
        which
    }

    /// An associated function is a tool too.
    #[mcp_tool]
    async fn version() -> &'static str {
        "1"
    }

    fn helper(&self) {}
}

fn main() {
    let counter = Arc::new(Counter);
    counter.helper();
    let _server = Server::builder("pass", "1")
        .state(Arc::new(String::new()))
        .tool(nothing::tool())
        .tool(all_keys::tool())
        .tool(r#type::tool())
        .tools(counter.mcp_tools())
        .build()
        .unwrap();
    let _future = all_keys(Point { x: 1.0, y: 2.0 }, None, 1, false, None, State(Arc::new(String::new())), RequestContext::detached());
}
