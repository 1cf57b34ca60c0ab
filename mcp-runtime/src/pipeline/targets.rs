//! The `tracing` targets the runtime writes to, named once: subscribers (the launcher's
//! filters, an operator's `RUST_LOG`) and every module that writes read them from here.

/// The `tracing` target of the audit trail: the [`Audit`](super::Audit) layer's one event per request, the
/// file service's one per file operation, and the refusals that never reach a handler (a
/// missing scope, a failed bearer token, a refused `Host` or `Origin`). A subscriber filters
/// on it to keep the audit trail (`mcp::audit=info`) apart from other logs.
pub const AUDIT_TARGET: &str = "mcp::audit";

/// The `tracing` target of a request's span and of its children (argument validation, the
/// tool's body, questions to the client, file operations) and events (progress,
/// cancellation). The children and events are at `DEBUG`, so they cost nothing unless a
/// subscriber asks for them (`init_tracing` does when it exports OpenTelemetry).
pub(crate) const REQUEST_TARGET: &str = "mcp::request";
