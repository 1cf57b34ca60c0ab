//! The `tracing` targets the runtime writes to, each named once, below every module that
//! logs: subscribers (the launcher's filters, an operator's `RUST_LOG`, a user's own
//! `tracing` setup) and every module that writes read them from here.
//!
//! ```
//! // Keep the audit trail, and only warnings about sharing state.
//! let filter = format!("{}=info,{}=warn", mcp_runtime::targets::AUDIT_TARGET, mcp_runtime::targets::REDIS_TARGET);
//! assert_eq!(filter, "mcp::audit=info,mcp::redis=warn");
//! ```

/// The `tracing` target of the audit trail: the pipeline's `Audit` layer's one event per request, the
/// file service's one per file operation, and the refusals that never reach a handler (a
/// missing scope, a failed bearer token, a refused `Host` or `Origin`). A subscriber filters
/// on it to keep the audit trail (`mcp::audit=info`) apart from other logs.
pub const AUDIT_TARGET: &str = "mcp::audit";

/// The `tracing` target of a request's span and of its children (argument validation, the
/// tool's body, questions to the client, file operations) and events (progress,
/// cancellation). The children and events are at `DEBUG`, so they cost nothing unless a
/// subscriber asks for them (`init_tracing` does when it exports OpenTelemetry).
pub const REQUEST_TARGET: &str = "mcp::request";

/// Sharing state with other instances (Redis): what could not be shared or read back.
pub const REDIS_TARGET: &str = "mcp::redis";

/// Prompt template files: reloads, and what a file says that templates do not use.
pub const PROMPTS_TARGET: &str = "mcp::prompts";

/// Skills folders: reloads and what stops them.
pub const SKILLS_TARGET: &str = "mcp::skills";
