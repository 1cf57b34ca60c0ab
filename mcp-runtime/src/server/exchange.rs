//! One request's exchange with a transport that frames each request on its own (HTTP):
//! where the request's notifications and its deferred answer go, what cancels it, the
//! checks the transport makes against what it saw outside the body, and how the answer
//! should be presented ([`Verdict`]).
//!
//! Line transports (stdio, in-memory) need none of this: everything goes to the
//! connection's peer, and a request is cancelled with `notifications/cancelled`. Without
//! the `http` feature, no transport frames requests on their own and parts of this go unused.
#![cfg_attr(not(feature = "http"), allow(dead_code))]

use crate::protocol::JsonObject;
use crate::protocol::headers::ParamHeader;
use crate::protocol::{ErrorCode, McpError};
use crate::tool::{Caller, Peer};
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

/// How a transport with status codes should present a request's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// A result, or an error the protocol delivers in an ordinary response (HTTP 200).
    Answered,
    /// The request is malformed or disagrees with itself: its envelope, its version, its
    /// headers, a required capability, a missing session (HTTP 400).
    Invalid,
    /// The method does not exist in the request's era, or the session it names is
    /// unknown (HTTP 404).
    NotFound,
}

/// An error together with how to present it.
#[derive(Debug)]
pub(crate) struct Rejection {
    pub(crate) error: McpError,
    pub(crate) verdict: Verdict,
}

impl Rejection {
    /// A request that is malformed or inconsistent (HTTP 400).
    pub(crate) fn invalid(error: McpError) -> Self {
        Self {
            error,
            verdict: Verdict::Invalid,
        }
    }

    /// Something the request names does not exist (HTTP 404).
    pub(crate) fn not_found(error: McpError) -> Self {
        Self {
            error,
            verdict: Verdict::NotFound,
        }
    }
}

impl From<McpError> for Rejection {
    /// An error answered in an ordinary response (unknown tool, bad params, …), except the
    /// codes whose status the spec fixes at 400 wherever they come from: `-32020`
    /// (header mismatch), `-32021` (missing client capability), `-32022` (unsupported
    /// version).
    fn from(error: McpError) -> Self {
        let verdict = match error.code {
            ErrorCode::HEADER_MISMATCH
            | ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY
            | ErrorCode::UNSUPPORTED_PROTOCOL_VERSION => Verdict::Invalid,
            _ => Verdict::Answered,
        };
        Self { error, verdict }
    }
}

/// Where one request's messages go, and what cancels it.
#[derive(Debug)]
pub(crate) struct Exchange {
    /// Request-scoped notifications (progress, a listen stream's events).
    pub(crate) notify: Peer,
    /// The answer, when it is not ready at once.
    pub(crate) respond: oneshot::Sender<Vec<u8>>,
    /// Cancelled by the transport when the client goes away (HTTP: closing the stream).
    pub(crate) cancel: CancellationToken,
    /// Who sent the request, as far as the transport knows.
    pub(crate) caller: Caller,
}

/// What became of a request handed to [`Connection::request`](super::Connection::request).
#[derive(Debug)]
pub(crate) enum Dispatched {
    /// The answer, ready now.
    Reply {
        /// The serialized response (with its newline).
        line: Vec<u8>,
        /// How to present it.
        verdict: Verdict,
    },
    /// The answer will come through the exchange's `respond` (its notifications first).
    Pending,
}

/// Checks a transport makes against what it saw outside the body (HTTP headers), called by
/// the dispatcher at the point of the validation ladder where each applies: after the
/// request is classified, before the method runs.
pub(crate) trait RequestChecks: Send + Sync {
    /// A modern request: `MCP-Protocol-Version` and `Mcp-Method` against the envelope's
    /// version and the body's method.
    fn modern(&self, method: &str, version: &str) -> Result<(), McpError>;

    /// A modern request that names something: `Mcp-Name` against `params.name`/`params.uri`.
    fn name(&self, method: &str, name: &str) -> Result<(), McpError>;

    /// A modern `tools/call`: `Mcp-Param-*` against the arguments the tool mirrors.
    fn params(&self, declared: &[ParamHeader], arguments: &JsonObject) -> Result<(), McpError>;

    /// A legacy request (`initialize` included): its `MCP-Protocol-Version`, if any.
    fn legacy(&self) -> Result<(), McpError>;

    /// A legacy request with no `initialize` behind it: the legacy version to serve it under
    /// (`None`: the latest), or why it is refused (a sessionful endpoint wants a session).
    fn sessionless(&self) -> Result<Option<&'static str>, Rejection>;
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn codes_the_spec_pins_to_400_are_invalid_wherever_they_come_from() {
        let pinned = [
            McpError::header_mismatch("x"),
            McpError::missing_client_capability(json!({"elicitation": {}})),
            McpError::unsupported_protocol_version("2099-01-01", &["2026-07-28"]),
        ];
        for error in pinned {
            assert_eq!(Rejection::from(error).verdict, Verdict::Invalid);
        }
        for error in [
            McpError::invalid_params("unknown tool"),
            McpError::internal("x"),
            McpError::method_not_found("x"),
        ] {
            assert_eq!(Rejection::from(error).verdict, Verdict::Answered);
        }
    }
}
