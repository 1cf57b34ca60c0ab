//! The request pipeline: every request that runs user code passes through a stack of
//! [`tower`] layers, assembled once per tool when it is registered.
//!
//! Outermost first, a `tools/call` goes through:
//!
//! | layer | file | always | what it does |
//! | --- | --- | --- | --- |
//! | [`Audit`] | `audit.rs` | yes | a `tracing` span per request, and exactly one event on target [`AUDIT_TARGET`] when it ends (or is dropped) |
//! | [`CatchPanic`] | `panic.rs` | yes | a panic anywhere inside, while calling or polling, becomes an `isError` result |
//! | server-wide layers | | if added | [`ServerBuilder::layer`](crate::ServerBuilder::layer), first added outermost |
//! | per-tool layers | | if added | [`ServerBuilder::layer_for`](crate::ServerBuilder::layer_for) |
//! | [`ResultCache`] | `cache.rs` | if declared | a repeated call (same tool, caller and arguments) answered from an earlier success for the declared lifetime, skipping everything below |
//! | [`RateLimit`] | `rate_limit.rs` | if declared | calls per caller ([`Caller::key`](crate::context::Caller::key)); over it, an `isError` result that says when to retry |
//! | [`ConcurrencyLimit`] | `concurrency.rs` | if declared | calls of the tool (or of the server) at once; beyond it a call waits up to a bound, then is "busy" |
//! | [`Timeout`] | `timeout.rs` | if declared | past the deadline the call's future is dropped, so its work stops |
//! | [`Validate`] | `validate.rs` | yes | arguments against the input schema, every violation listed |
//! | [`OutputCheck`] | `output.rs` | yes | structured output against the output schema |
//! | [`Invoke`] | `invoke.rs` | yes | the tool itself |
//!
//! The cache sits above the rate limit, the concurrency limits and the timeout so that a
//! cache hit costs no quota, needs no slot and is answered at once; it sits below the user's
//! layers so that an authorization layer still decides first, and below the audit so that
//! every hit is audited (with `cached=true`).
//!
//! Before the stack, the dispatcher (`server/connection/call.rs`) checks what a transport
//! must answer in its own terms: the tool's existence, and its declared scopes against the
//! [`Caller`](crate::context::Caller) (HTTP answers a missing scope with a 403 challenge, which
//! no `isError` result could express).
//!
//! Adding a policy touches this folder: its layer in a file of its own, one line in
//! `stack.rs` to place it, and its declaration (a [`ToolPolicy`](crate::tool::ToolPolicy)
//! field and attribute key, or a [`ServerBuilder`](crate::ServerBuilder) method).
//!
//! The layers that are always there are concrete types with hand-written futures: a call
//! through them allocates nothing beyond the tool's own future, and a policy that is not
//! declared is not in the stack at all. Declared policies and user layers sit behind one
//! boxed service (one allocation per call, only then).
//!
//! A layer works on an [`McpRequest`] (method, target, arguments, [`RequestContext`]) and
//! answers an [`Outcome`]: the tool's result, a [`Refusal`] (a policy said no; a model sees
//! an `isError` result with its message), or a protocol error. Layers are ordinary
//! `tower::Layer`s, so tower's own (`tower::limit`, `tower::filter`, …) work too; an error
//! they return becomes an `isError` result carrying its text (an [`McpError`] stays a
//! protocol error).
//!
//! ```
//! use futures::future::BoxFuture;
//! use mcp_runtime::pipeline::{McpRequest, McpService, Outcome};
//! use mcp_runtime::prelude::*;
//! use tower::ServiceExt as _;
//!
//! /// Refuses calls from callers that did not authenticate.
//! fn require_identity(inner: McpService) -> McpService {
//!     McpService::new(tower::service_fn(move |request: McpRequest| {
//!         let inner = inner.clone();
//!         let call: BoxFuture<'static, _> = Box::pin(async move {
//!             if request.context().caller().identity().is_none() {
//!                 return Ok(Outcome::refuse(format!("sign in to call `{}`", request.target())));
//!             }
//!             inner.oneshot(request).await
//!         });
//!         call
//!     }))
//! }
//!
//! let server = Server::builder("demo", "1.0.0")
//!     .layer(tower::layer::layer_fn(require_identity))
//!     .build()
//!     .unwrap();
//! # let _ = server;
//! ```

mod audit;
mod cache;
mod concurrency;
mod confirm;
mod fleet;
mod invoke;
mod output;
mod panic;
mod rate_limit;
mod stack;
mod timeout;
mod validate;

pub use crate::targets::AUDIT_TARGET;
pub(crate) use crate::targets::REQUEST_TARGET;
pub use audit::{Audit, AuditLayer, AuditOptions};
pub use cache::{
    DEFAULT_CACHE_BYTES, DEFAULT_CACHE_ENTRIES, ResultCache, ResultCacheLayer, ResultStore,
};
pub use concurrency::{ConcurrencyLimit, ConcurrencyLimitLayer, DEFAULT_QUEUE_WAIT};
pub(crate) use fleet::FleetPipeline;
pub use fleet::{MemoryRateBudgets, MemoryResults, RateBudgets, SharedResults};
pub use invoke::{GetPrompt, Invoke, ReadResource};
pub use output::OutputCheck;
pub use panic::{CatchPanic, CatchPanicLayer};
pub use rate_limit::{RateLimit, RateLimitLayer};
pub(crate) use stack::Remap;
pub use timeout::{Timeout, TimeoutLayer};
pub use validate::Validate;

pub(crate) use cache::LazyStore;
pub(crate) use confirm::ConfirmLayer;
pub(crate) use invoke::ReadTarget;
#[cfg(feature = "http")]
pub(crate) use rate_limit::quota;
pub(crate) use stack::{ItemStack, ServerPolicies, ToolStack, boxed};

use crate::context::RequestContext;
use crate::protocol::methods::MethodSpec;
use crate::protocol::{CallToolResult, GetPromptResult, JsonObject, McpError, ReadResourceResult};
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

/// The error type of the pipeline's services: anything a layer may fail with.
pub type BoxError = tower::BoxError;

/// A boxed pipeline service, what user layers wrap.
pub type McpService = tower::util::BoxCloneSyncService<McpRequest, Outcome, BoxError>;

/// A request that runs user code, as the pipeline's layers see it.
#[derive(Debug)]
pub struct McpRequest {
    method: &'static MethodSpec,
    target: Arc<str>,
    arguments: JsonObject,
    context: RequestContext,
    /// A template read's variables, typed, when nothing before [`ReadResource`] looks at the
    /// arguments (no user layers, no argument audit): the read then skips building them as
    /// JSON and back. Otherwise `None`, and the variables are the arguments.
    variables: Option<crate::resource::Variables>,
    /// The URI template a read matched (telemetry names the read by it).
    template: Option<Arc<str>>,
}

impl McpRequest {
    /// A request for `method` ([`methods::TOOLS_CALL`](crate::protocol::methods::TOOLS_CALL))
    /// on `target` (the tool's name).
    pub fn new(
        method: &'static MethodSpec,
        target: impl Into<Arc<str>>,
        arguments: JsonObject,
        context: RequestContext,
    ) -> Self {
        Self {
            method,
            target: target.into(),
            arguments,
            context,
            variables: None,
            template: None,
        }
    }

    /// A read that matched the URI template `template`.
    pub(crate) fn with_template(mut self, template: Arc<str>) -> Self {
        self.template = Some(template);
        self
    }

    /// The URI template a `resources/read` matched (`None` for a resource read by its exact
    /// URI, and for other methods).
    pub fn uri_template(&self) -> Option<&str> {
        self.template.as_deref()
    }

    /// A template read whose variables travel typed (see the field's docs).
    pub(crate) fn with_variables(mut self, variables: crate::resource::Variables) -> Self {
        self.variables = Some(variables);
        self
    }

    /// The JSON-RPC method: `"tools/call"`.
    pub fn method(&self) -> &'static str {
        self.method.name
    }

    /// What the protocol says of the method (its target, its `Mcp-Name` field).
    pub fn method_spec(&self) -> &'static MethodSpec {
        self.method
    }

    /// What the request targets: the tool's name.
    pub fn target(&self) -> &str {
        &self.target
    }

    /// The arguments (validated only once the request reaches [`Validate`]).
    pub fn arguments(&self) -> &JsonObject {
        &self.arguments
    }

    /// The arguments, to change before they are validated.
    pub fn arguments_mut(&mut self) -> &mut JsonObject {
        &mut self.arguments
    }

    /// The request's context: era, client, caller, cancellation.
    pub fn context(&self) -> &RequestContext {
        &self.context
    }

    /// The request, served by a mounted server (its state and resources).
    pub(crate) fn rehome(&mut self, home: Arc<crate::context::Home>) {
        self.context = self.context.at_home(home);
    }

    pub(crate) fn target_arc(&self) -> &Arc<str> {
        &self.target
    }

    /// What telemetry names the request by: the target, or the URI template a read matched
    /// (unless `filled`: then the URI itself).
    pub(crate) fn telemetry_target(&self, filled: bool) -> &Arc<str> {
        match &self.template {
            Some(template) if !filled => template,
            _ => &self.target,
        }
    }
}

/// How a request through the pipeline ended.
#[derive(Debug)]
#[non_exhaustive]
pub enum Outcome {
    /// The tool ran (or a layer answered for it); `isError` results included.
    Tool(CallToolResult),
    /// A layer refused the request: a model sees an `isError` result with the message.
    Refused(Refusal),
    /// A protocol error: the request is answered with a JSON-RPC error.
    Error(McpError),
    /// A resource was read (`resources/read`).
    Read(ReadResourceResult),
    /// A prompt was rendered (`prompts/get`).
    Prompt(GetPromptResult),
    /// The handler asked the client for something this request did not answer (modern
    /// leg; see [`crate::input`]): the request is answered with an `input_required` result
    /// listing the request context's asks.
    InputRequired,
}

impl Outcome {
    /// A refusal with `message` (audited as `refused`).
    pub fn refuse(message: impl Into<String>) -> Self {
        Self::Refused(Refusal::new("refused", message))
    }

    /// How it ended, as telemetry records it.
    pub(crate) fn ended(&self) -> crate::telemetry::Ended {
        use crate::telemetry::{EndKind, Ended};
        let kind = match self {
            Self::Tool(r) if r.is_error() => EndKind::ToolError,
            Self::Refused(r) => EndKind::Refused(r.kind),
            Self::Error(e) => EndKind::Error(e.code.0),
            _ => EndKind::Answered,
        };
        Ended {
            outcome: self.audit_outcome(),
            kind,
        }
    }

    /// The word the audit event records: `ok`, `error` (an `isError` result), a refusal's
    /// kind (`invalid_arguments`, `timeout`, `busy`, `rate_limited`, `panic`, `refused`),
    /// or `protocol_error`.
    pub fn audit_outcome(&self) -> &'static str {
        match self {
            Self::Tool(r) if r.is_error() => "error",
            Self::Tool(_) => "ok",
            Self::Refused(r) => r.kind,
            Self::Error(_) => "protocol_error",
            Self::Read(_) | Self::Prompt(_) => "ok",
            Self::InputRequired => "input_required",
        }
    }

    /// Turns a layer's error into an outcome: an [`McpError`] stays a protocol error,
    /// anything else becomes a refusal carrying its text.
    pub fn from_error(error: BoxError) -> Self {
        match error.downcast::<McpError>() {
            Ok(e) => Self::Error(*e),
            Err(other) => Self::Refused(Refusal::new("error", other.to_string())),
        }
    }
}

/// A layer's refusal: why, in words a model can act on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    kind: &'static str,
    message: String,
    retry_after: Option<Duration>,
}

impl Refusal {
    /// A refusal of `kind` (the audit outcome word) with `message`.
    pub fn new(kind: &'static str, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
            retry_after: None,
        }
    }

    /// With a hint of when retrying may succeed.
    pub fn retry_after(mut self, after: Duration) -> Self {
        self.retry_after = Some(after);
        self
    }

    /// The kind, as audited.
    pub fn kind(&self) -> &'static str {
        self.kind
    }

    /// The message.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// When retrying may succeed, if the layer knows.
    pub fn retry_hint(&self) -> Option<Duration> {
        self.retry_after
    }

    /// The `isError` result a model sees.
    pub fn into_tool_result(self) -> CallToolResult {
        CallToolResult::error(self.message)
    }

    /// The JSON-RPC error a request that has no `isError` form (`resources/read`,
    /// `prompts/get`) is answered with: `-32602` for arguments a layer found invalid,
    /// `-32603` otherwise, with the refusal's kind in `data.reason` (and `data.retryAfterMs`
    /// when known).
    pub fn into_mcp_error(self) -> McpError {
        let code = if self.kind == "invalid_arguments" {
            crate::protocol::ErrorCode::INVALID_PARAMS
        } else {
            crate::protocol::ErrorCode::INTERNAL_ERROR
        };
        let mut data = serde_json::json!({ "reason": self.kind });
        if let Some(after) = self.retry_after {
            data["retryAfterMs"] = (after.as_millis() as u64).into();
        }
        McpError::new(code, self.message).with_data(data)
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// Formats a duration for a model to read: `250ms`, `30s`, `1.5s`, `2m`.
pub(crate) fn human(d: Duration) -> String {
    let ms = d.as_millis();
    if ms < 1000 {
        format!("{ms}ms")
    } else if ms.is_multiple_of(60_000) {
        format!("{}m", ms / 60_000)
    } else if ms.is_multiple_of(1000) {
        format!("{}s", ms / 1000)
    } else {
        format!("{:.1}s", d.as_secs_f64())
    }
}
