//! Procedural macros for `mcp-runtime`: `#[mcp_tool]` and `#[mcp_tools]`.
//!
//! Use them through `mcp_runtime::prelude::*`; the generated code names only paths under
//! `::mcp_runtime` (override with `#[mcp_tool(crate = path)]` when you re-export the runtime).
//! Each macro is a pipeline: parse → model (`ast`) → check → expand. Checking records every
//! mistake before anything is generated, so one compile reports them all; on a mistake the
//! function is still emitted unchanged, so one error does not bury the file under others.

mod ast;
mod attr;
mod check;
mod ctxt;
mod expand;
mod impl_block;
mod symbol;

use proc_macro::TokenStream;

/// Turns an `async fn` into an MCP tool.
///
/// The function stays callable exactly as written. Beside it the macro defines a type of
/// the same name (in the type namespace) that implements `Tool`: register it with
/// `ServerBuilder::tool(name::tool())`, or register every `#[mcp_tool]` of the program at
/// once with `ServerBuilder::collected_tools()`.
///
/// - name: the function's name, or `name = "..."`; description: the doc comment, or
///   `description = "..."`; `title = "..."`;
/// - annotations: `read_only`, `destructive`, `idempotent`, `open_world` (each also
///   `= true` / `= false`); `icons = ["https://…"]`;
/// - schema: `additional_properties` accepts unknown arguments (the default rejects them);
///   `schema_dialect` adds `"$schema"`;
/// - policies the server enforces (`Tool::policy`): `timeout = "30s"`, `concurrency = 4`,
///   `rate_limit = "10/s"`, `cache = "60s"` (only with `read_only` and `idempotent`),
///   `scopes = ["files:write"]`; durations are a whole number and `ms`, `s`, `m` or `h`;
/// - `crate = path` names the runtime crate when it is re-exported.
///
/// Parameters are JSON arguments (their doc comments become property descriptions;
/// `Option<T>` is optional; `#[mcp(default)]` / `#[mcp(default = expr)]` give defaults;
/// `#[mcp(rename = "...")]` or `#[serde(rename = "...")]` rename) or injected
/// (`RequestContext`, `State<T>`, `FileService`, or anything marked `#[mcp(inject)]` that
/// implements `FromContext`; `#[mcp(arg)]` forces an argument).
#[proc_macro_attribute]
pub fn mcp_tool(attr: TokenStream, item: TokenStream) -> TokenStream {
    impl_block::tool_attribute(attr.into(), item.into()).into()
}

/// On an `impl` block: its `#[mcp_tool]` methods (taking `&self`) become tools bound to an
/// instance, returned by a generated `fn mcp_tools(self: &Arc<Self>) -> Vec<Arc<dyn Tool>>`.
///
/// One `#[mcp_tools]` block per type (the generated method would otherwise be defined twice).
#[proc_macro_attribute]
pub fn mcp_tools(attr: TokenStream, item: TokenStream) -> TokenStream {
    impl_block::tools_attribute(attr.into(), item.into()).into()
}
