//! Procedural macros for `mcp-runtime`: `#[mcp_tool]` (and `#[mcp_tools]` on an impl
//! block), `#[mcp_resource]` and `#[mcp_prompt]`.
//!
//! Use them through `mcp_runtime::prelude::*`; the generated code names only paths under
//! `::mcp_runtime` (override with `crate = path` when you re-export the runtime). Each
//! attribute runs one pipeline (`pipeline`): parse → model (`ast`, with `attr`) → check →
//! expand, or `fallback`. Checking records every mistake before anything is generated, so
//! one compile reports them all; on a mistake the function is still emitted unchanged, with
//! a stand-in for what the macro defines, so one error does not bury the file under others.
//!
//! # Injected parameters
//!
//! A parameter is *injected* (built by the server through `FromContext`, invisible to the
//! client) when it is marked `#[mcp(inject)]` or its type is written `RequestContext` or
//! `State<…>`; every other parameter is a *value* the client gives (a tool argument, a
//! template variable, a prompt argument). The macro has to decide before types are known (a
//! tool's arguments become the fields of a derived struct), so it decides by spelling, and
//! the compiler checks the decision through the types' traits: a value parameter whose type
//! implements `FromContext` fails to compile, asking for `#[mcp(inject)]`, and an injected
//! one whose type does not implement it fails on its type. A type alias of `RequestContext`,
//! or a `FileService` parameter, is therefore never silently taken for an argument. `#[mcp(arg)]`
//! takes a parameter as a value whatever its type.

mod ast;
mod attr;
mod check;
mod ctxt;
mod expand;
mod fallback;
mod pipeline;
mod symbol;

use proc_macro::TokenStream;

/// Turns an `async fn` into an MCP tool.
///
/// The function stays callable exactly as written. Beside it the macro defines a type of
/// the same name (in the type namespace) that implements `Tool`: register it with
/// `ServerBuilder::tool(name::tool())`, or register every `#[mcp_tool]` of the program at
/// once with `ServerBuilder::collected_tools()` (or `collected()`, which adds resources and
/// prompts too).
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
/// - confirmation (`mcp_runtime::tool::Confirm`): `confirm` asks the user before every call
///   and runs the tool only on an explicit accept; `confirm = "Delete {path}?"` asks that
///   question (`{path}` or `{{ path }}` name arguments, checked here);
///   `unconfirmable = "run"` runs anyway when the client cannot be asked (the default,
///   `"refuse"`, answers an `isError` result);
/// - tasks (the 2026-07-28 tasks extension, `mcp_runtime::task`): `task = "optional"` (a
///   task for a client that supports them when the call does not finish at once),
///   `task = "required"` (only ever a task; other clients are refused with `-32021`) or
///   `task = "explicit"` (a task for a client that supports them once the tool calls
///   `cx.become_task()`, an ordinary call until then);
/// - MCP Apps (`mcp_runtime::protocol::apps`): `app = "ui://weather/forecast"` shows the tool
///   with that view (`_meta.ui.resourceUri`; a `ui://` URI, checked here; `build()` refuses a
///   view no resource serves), `visibility = ["app"]` lets only the view call it (hidden
///   from, and refused to, clients that render no apps), `["model", "app"]` both (the
///   default);
/// - `crate = path` names the runtime crate when it is re-exported.
///
/// Parameters are JSON arguments (their doc comments become property descriptions;
/// `Option<T>` is optional; `#[mcp(default)]` / `#[mcp(default = expr)]` give defaults;
/// `#[mcp(rename = "...")]` or `#[serde(rename = "...")]` rename) or injected
/// (`RequestContext`, `State<T>`, or anything marked `#[mcp(inject)]` that implements
/// `FromContext`, such as `FileService`; `#[mcp(arg)]` forces an argument): see the crate
/// docs for how the two are told apart.
#[proc_macro_attribute]
pub fn mcp_tool(attr: TokenStream, item: TokenStream) -> TokenStream {
    pipeline::function::<ast::ToolFn>(attr.into(), item.into()).into()
}

/// On an `impl` block: its `#[mcp_tool]` methods (taking `&self`) become tools bound to an
/// instance, returned by a generated `fn mcp_tools(self: &Arc<Self>) -> Vec<Arc<dyn Tool>>`.
///
/// One `#[mcp_tools]` block per type (the generated method would otherwise be defined twice).
#[proc_macro_attribute]
pub fn mcp_tools(attr: TokenStream, item: TokenStream) -> TokenStream {
    pipeline::impl_block(attr.into(), item.into()).into()
}

/// Turns an `async fn` into an MCP resource (a fixed URI) or resource template (a URI
/// template whose variables are the function's parameters).
///
/// The function stays callable as written. Beside it the macro defines a type of the same
/// name: with `uri`, it implements `Resource` (register `name::resource()` with
/// `ServerBuilder::resource`); with `template`, `ResourceTemplate` (register
/// `name::template()` with `ServerBuilder::resource_template`).
/// `ServerBuilder::collected_resources()` registers every one in the program.
///
/// - `uri = "config://app"` or `template = "users://{id}/profile"` (RFC 6570, the subset of
///   `mcp_runtime::resource::uri_template`, whose rules are checked at compile time);
/// - name: the function's name, or `name = "..."`; description: the doc comment, or
///   `description = "..."`; `title = "..."`; `mime_type = "application/json"` (also the MIME
///   type of text and bytes the function returns); `icons = ["https://…"]`;
/// - annotations: `audience = ["user", "assistant"]`, `priority = 0.8` (0 to 1);
/// - `size = 1024` (fixed resources); `allow_dot_segments` (templates: let variables match
///   `.` and `..`, which they do not by default);
/// - `scopes = ["files:read"]`: only callers whose token grants them see and read it (to
///   others it is not listed and reads as not found; see `mcp_runtime::server::visibility`);
/// - `crate = path` names the runtime crate when it is re-exported.
///
/// Template parameters take their variable's value: any type implementing `FromStr` (a
/// value that does not parse fails the read with "invalid URI", naming the variable);
/// `Option<T>` for a variable a URI may leave out (those of `{?a,b}`, `{/x}`, `{.x}`,
/// `{#x}`; required there); `Vec<T>` for an exploded one (`{/path*}`). Every variable needs
/// a parameter and every value parameter a variable (`#[mcp(rename = "...")]` maps a
/// parameter to a differently named variable). `#[mcp(complete = f)]` names the function
/// that completes a variable (`fn(value: &str, chosen: &BTreeMap<String, String>) ->
/// Vec<String>`, see `mcp_runtime::completion`); without one, an enum deriving `JsonSchema`
/// completes from its values. Injected parameters work as in tools. The function returns
/// anything `IntoContents`: text, `Vec<u8>` (a blob), `Json<T>`, `ResourceContents`,
/// `Vec<ResourceContents>`, or a `Result` of one.
#[proc_macro_attribute]
pub fn mcp_resource(attr: TokenStream, item: TokenStream) -> TokenStream {
    pipeline::function::<ast::ResourceFn>(attr.into(), item.into()).into()
}

/// Turns an `async fn` into an MCP prompt.
///
/// The function stays callable as written. Beside it the macro defines a type of the same
/// name that implements `Prompt`: register `name::prompt()` with `ServerBuilder::prompt`,
/// or every prompt of the program with `ServerBuilder::collected_prompts()`.
///
/// - description: the doc comment, or `description = "..."`, required (clients and the
///   conformance suite reject prompts without one); name: the function's name, or
///   `name = "..."`, following the tool-name rule (checked at compile time); `title = "..."`;
///   `icons = ["https://…"]`; `scopes = ["reports:read"]` (only callers whose token grants
///   them see and get it; see `mcp_runtime::server::visibility`); `crate = path`.
///
/// Parameters are the prompt's arguments, strings on the wire: any type implementing
/// `FromStr` (a value that does not parse is answered with "invalid arguments", naming the
/// argument); `Option<T>` is not required. A parameter's doc comment or
/// `#[mcp(description = "...")]` describes it; `#[mcp(rename = "...")]` renames it;
/// `#[mcp(complete = f)]` names the function that completes it, which gets the arguments
/// already chosen; without one, an enum deriving `JsonSchema` completes from its values.
/// Injected parameters work as in tools. The function returns anything `IntoPromptResult`:
/// `String` (one user message), `PromptMessage`, `Vec<PromptMessage>`, `GetPromptResult`,
/// or a `Result` of one.
#[proc_macro_attribute]
pub fn mcp_prompt(attr: TokenStream, item: TokenStream) -> TokenStream {
    pipeline::function::<ast::PromptFn>(attr.into(), item.into()).into()
}
