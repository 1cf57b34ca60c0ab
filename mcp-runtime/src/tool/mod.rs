//! Tools: the [`Tool`] trait, closures as tools, return conversions and schema checks. The
//! request context and the extractors are the [`context`](crate::context) layer's, named
//! here too.

mod confirm;
pub(crate) mod name;
mod policy;
mod result;
pub mod schema;

pub use crate::context::{
    Caller, Extensions, FromContext, FromRef, Json, MissingState, RequestContext,
    RequestContextParts, State,
};
pub use confirm::{Confirm, Unconfirmable};
pub use name::{MAX_TOOL_NAME_LEN, tool_name_problem};
pub use policy::{
    MAX_CACHE_TTL, PolicyParseError, Rate, ToolPolicy, is_scope_token, parse_duration,
};
pub use result::IntoToolResult;

use crate::protocol::{CallToolResult, JsonObject, ToolDefinition};
use futures::future::BoxFuture;
use std::fmt;
use std::future::Future;

/// A tool: its definition, and what happens when it is called.
///
/// `#[mcp_tool]` implements this for annotated functions; implement it by hand when a tool's
/// shape is only known at run time (or use [`tool_fn`]).
///
/// The registry validates `arguments` against `definition().input_schema` before `call`
/// runs, so `call` sees only arguments that conform. A panic inside `call` is caught and
/// reported as an `isError` result; the server keeps serving.
pub trait Tool: Send + Sync + 'static {
    /// The tool's definition. Called once, at registration.
    fn definition(&self) -> ToolDefinition;

    /// Runs the tool with validated arguments.
    ///
    /// Cancel safety: the future is dropped when the client cancels the request.
    fn call(&self, arguments: JsonObject, cx: RequestContext)
    -> BoxFuture<'static, CallToolResult>;

    /// The policies the server enforces around this tool's calls (timeout, concurrency,
    /// rate limit, …). Called once, at registration. `#[mcp_tool(timeout = "30s", …)]`
    /// fills it from the attribute; the default declares none.
    fn policy(&self) -> ToolPolicy {
        ToolPolicy::default()
    }

    /// The server state this tool needs that `extensions` (the server's shared state) lacks.
    /// Called at registration, which refuses the tool when anything is missing, so a server
    /// that was not given a tool's state fails to build rather than failing every call.
    ///
    /// `#[mcp_tool]` fills it from the injected parameters
    /// ([`FromContext::missing_state`] of each); the default needs nothing. A hand-written
    /// tool that reads state declares it here:
    ///
    /// ```
    /// use mcp_runtime::prelude::*;
    /// use mcp_runtime::protocol::JsonObject;
    /// use mcp_runtime::tool::{Extensions, FromContext, MissingState};
    /// use futures::future::BoxFuture;
    /// use serde_json::json;
    ///
    /// #[derive(Clone)]
    /// struct Greeting(String);
    ///
    /// struct Greet;
    ///
    /// impl Tool for Greet {
    ///     fn definition(&self) -> ToolDefinition {
    ///         ToolDefinition::new("greet", "Greets.", json!({"type": "object"}))
    ///     }
    ///
    ///     fn call(&self, _: JsonObject, cx: RequestContext) -> BoxFuture<'static, CallToolResult> {
    ///         let result = match State::<Greeting>::from_context(&cx) {
    ///             Ok(State(greeting)) => CallToolResult::text(greeting.0),
    ///             Err(rejection) => CallToolResult::error(rejection.to_string()),
    ///         };
    ///         Box::pin(async move { result })
    ///     }
    ///
    ///     fn missing_state(&self, extensions: &Extensions) -> Vec<MissingState> {
    ///         State::<Greeting>::missing_state(extensions)
    ///     }
    /// }
    ///
    /// let error = Server::builder("demo", "1.0.0").tool(Greet).build().unwrap_err();
    /// assert!(error.to_string().contains("tool `greet` needs state"), "{error}");
    /// let server = Server::builder("demo", "1.0.0")
    ///     .state(Greeting("Hello".into()))
    ///     .tool(Greet)
    ///     .build()
    ///     .unwrap();
    /// # let _ = server;
    /// ```
    fn missing_state(&self, extensions: &Extensions) -> Vec<MissingState> {
        let _ = extensions;
        Vec::new()
    }
}

/// A tool made from a definition and an async closure; see [`tool_fn`].
pub struct FnTool<F> {
    definition: ToolDefinition,
    policy: ToolPolicy,
    f: F,
}

impl<F> FnTool<F> {
    /// Declares policies for this tool (what `#[mcp_tool(timeout = …)]` does for a function).
    ///
    /// ```
    /// use mcp_runtime::prelude::*;
    /// use mcp_runtime::tool::ToolPolicy;
    /// use serde_json::json;
    /// use std::time::Duration;
    ///
    /// let slow = tool_fn(
    ///     ToolDefinition::new("slow", "Takes its time.", json!({"type": "object"})),
    ///     |_, _| async { "done" },
    /// )
    /// .with_policy(ToolPolicy::new().timeout(Duration::from_secs(5)).concurrency(2));
    /// # let _ = slow;
    /// ```
    pub fn with_policy(mut self, policy: ToolPolicy) -> Self {
        self.policy = policy;
        self
    }
}

impl<F> fmt::Debug for FnTool<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FnTool")
            .field("name", &self.definition.name)
            .finish_non_exhaustive()
    }
}

/// Makes a tool from a definition and an async closure over the arguments and context.
///
/// ```
/// use mcp_runtime::prelude::*;
/// use serde_json::json;
///
/// let echo = tool_fn(
///     ToolDefinition::new(
///         "echo",
///         "Returns its input text unchanged.",
///         json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}),
///     ),
///     |args, _cx| async move { args["text"].as_str().unwrap_or_default().to_owned() },
/// );
/// let server = Server::builder("demo", "1.0.0").tool(echo).build().unwrap();
/// assert_eq!(server.tools().names(), ["echo"]);
/// ```
pub fn tool_fn<F, Fut, R>(definition: ToolDefinition, f: F) -> FnTool<F>
where
    F: Fn(JsonObject, RequestContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = R> + Send + 'static,
    R: IntoToolResult,
{
    FnTool {
        definition,
        policy: ToolPolicy::default(),
        f,
    }
}

impl<F, Fut, R> Tool for FnTool<F>
where
    F: Fn(JsonObject, RequestContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = R> + Send + 'static,
    R: IntoToolResult,
{
    fn definition(&self) -> ToolDefinition {
        self.definition.clone()
    }

    fn call(
        &self,
        arguments: JsonObject,
        cx: RequestContext,
    ) -> BoxFuture<'static, CallToolResult> {
        let fut = (self.f)(arguments, cx);
        Box::pin(async move { fut.await.into_tool_result() })
    }

    fn policy(&self) -> ToolPolicy {
        self.policy.clone()
    }
}

/// A type a tool can take as an argument: deserializable from the call's JSON and
/// describable by a JSON Schema. Implemented for every such type.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool argument",
    label = "tool arguments must implement `serde::Deserialize` and `schemars::JsonSchema`",
    note = "derive both on your type: `#[derive(serde::Deserialize, schemars::JsonSchema)]`; if the server provides this value, mark the parameter `#[mcp(inject)]` and implement `FromContext`"
)]
pub trait ToolArgument: serde::de::DeserializeOwned + schemars::JsonSchema {}

impl<T: serde::de::DeserializeOwned + schemars::JsonSchema> ToolArgument for T {}

/// Plumbing of the macros: crate-private here, named by generated code through
/// `__private` only.
pub(crate) mod tool_factory {
    use super::*;

    /// A tool registered by `#[mcp_tool]` for automatic discovery; see [`collected`]. Plumbing
    /// of the macro (named through `__private`), not a public API.
    #[derive(Debug, Clone, Copy)]
    pub struct ToolFactory {
        /// Builds the tool.
        pub make: fn() -> std::sync::Arc<dyn Tool>,
    }

    inventory::collect!(ToolFactory);
}
use tool_factory::ToolFactory;

/// Every tool defined with `#[mcp_tool]` on a free function anywhere in the program.
///
/// Tools on methods (`#[mcp_tools] impl …`) need an instance and are registered by hand.
pub fn collected() -> Vec<std::sync::Arc<dyn Tool>> {
    inventory::iter::<ToolFactory>()
        .map(|f| (f.make)())
        .collect()
}

/// What registration checks: the types of state `tool` needs that `extensions` lacks, each
/// named once, in the order the tool lists them. The registry turns an `Err` into
/// `RegistrationError::MissingToolState`.
pub(crate) fn check_state(
    tool: &dyn Tool,
    extensions: &Extensions,
) -> Result<(), Vec<&'static str>> {
    let mut missing: Vec<&'static str> = Vec::new();
    for m in tool.missing_state(extensions) {
        if !missing.contains(&m.type_name()) {
            missing.push(m.type_name());
        }
    }
    if missing.is_empty() {
        Ok(())
    } else {
        Err(missing)
    }
}
