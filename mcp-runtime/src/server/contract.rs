//! The contract between the server and a transport that frames each request on its own
//! (Streamable HTTP; a request/response RPC of your own): what it hands the dispatcher with
//! [`Connection::request`], and what it gets back.
//!
//! The server decides in protocol terms ([`Disposition`]): answered, invalid, not found,
//! forbidden. What that means on the wire (an HTTP status, a close code, nothing at all) is
//! the transport's decision; Streamable HTTP's mapping is in `transport/http/response.rs`.
//!
//! [`Connection::request`]: crate::server::Connection::request

use crate::context::Caller;
use crate::context::Peer;
use crate::protocol::JsonObject;
use crate::protocol::headers::ParamHeader;
use crate::protocol::meta::TraceContext;
use crate::protocol::{ErrorCode, McpError};
use std::sync::Arc;
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

/// How a request ended, in the protocol's terms. A transport with status codes maps each to
/// one (Streamable HTTP: 200, 400, 404, 403); a transport without them ignores it, since the
/// answer's JSON-RPC body says everything a client needs.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Disposition {
    /// A result, or an error the protocol delivers in an ordinary response.
    Answered,
    /// The request is malformed or disagrees with itself or with its transport: its
    /// envelope, its version, its transport metadata, a required client capability, a
    /// missing session.
    Invalid,
    /// The method does not exist in the request's era, or the session it names is unknown.
    NotFound,
    /// The caller lacks scopes the target requires: a transport that authenticates asks
    /// the client to obtain them (HTTP: 403 with an `insufficient_scope` challenge).
    Forbidden {
        /// The scopes the target requires (all of them, not only the missing ones).
        scopes: Arc<[String]>,
    },
}

/// An error together with how it ended the request.
#[derive(Debug, Clone)]
pub struct Rejection {
    /// The JSON-RPC error.
    pub error: McpError,
    /// What kind of failure it is.
    pub disposition: Disposition,
}

impl Rejection {
    /// A request that is malformed or inconsistent.
    pub fn invalid(error: McpError) -> Self {
        Self {
            error,
            disposition: Disposition::Invalid,
        }
    }

    /// Something the request names does not exist.
    pub fn not_found(error: McpError) -> Self {
        Self {
            error,
            disposition: Disposition::NotFound,
        }
    }
}

impl From<McpError> for Rejection {
    /// An error answered in an ordinary response (unknown tool, bad params, …), except the
    /// codes the spec always treats as a malformed request wherever they come from:
    /// `-32020` (header mismatch), `-32021` (missing client capability), `-32022`
    /// (unsupported version).
    fn from(error: McpError) -> Self {
        let disposition = match error.code {
            ErrorCode::HEADER_MISMATCH
            | ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY
            | ErrorCode::UNSUPPORTED_PROTOCOL_VERSION => Disposition::Invalid,
            _ => Disposition::Answered,
        };
        Self { error, disposition }
    }
}

/// Where one request's messages go, what cancels it, and who sent it.
#[derive(Debug)]
pub struct Exchange {
    /// Request-scoped notifications (progress, a listen stream's events).
    pub(crate) notify: Peer,
    /// The answer, when it is not ready at once.
    pub(crate) respond: oneshot::Sender<Vec<u8>>,
    /// Cancelled by the transport when the client goes away.
    pub(crate) cancel: CancellationToken,
    /// Who sent the request, as far as the transport knows.
    pub(crate) caller: Caller,
    /// Whether `notify` reaches the client while the request runs (HTTP: the client
    /// accepts an event stream). Without it a legacy ask cannot be sent.
    pub(crate) streams: bool,
    /// How a deferred answer ended the request, set before it is sent to `respond` (a
    /// late `-32021` is still a malformed request: HTTP answers it 400 when it can).
    pub(crate) late: Arc<std::sync::OnceLock<Disposition>>,
}

impl Exchange {
    /// One request's exchange: its notifications go to `notify`, a deferred answer to
    /// `respond` (one serialized line), cancelling `cancel` stops the work it started (do it
    /// when the client goes away), and `caller` is who the transport says sent it.
    pub fn new(
        notify: Peer,
        respond: oneshot::Sender<Vec<u8>>,
        cancel: CancellationToken,
        caller: Caller,
    ) -> Self {
        Self {
            notify,
            respond,
            cancel,
            caller,
            streams: true,
            late: Arc::default(),
        }
    }

    /// Where the disposition of a deferred answer will be, once it is sent.
    #[cfg(feature = "http")]
    pub(crate) fn late_disposition(&self) -> Arc<std::sync::OnceLock<Disposition>> {
        self.late.clone()
    }

    /// Marks the exchange as one whose notifications never reach the client while the
    /// request runs (an HTTP client that accepts only JSON): asks of the client fail at once
    /// instead of waiting for an answer that cannot come.
    pub fn without_stream(mut self) -> Self {
        self.streams = false;
        self
    }
}

/// What became of a request handed to
/// [`Connection::request`](crate::server::Connection::request).
#[derive(Debug)]
pub enum Dispatched {
    /// The answer, ready now.
    Reply {
        /// The serialized response (with its newline).
        line: Vec<u8>,
        /// How the request ended.
        disposition: Disposition,
    },
    /// The answer will come through the exchange's `respond` channel (its notifications
    /// first, through `notify`); it ends the request as [`Disposition::Answered`] unless it
    /// is an error the spec treats as a malformed request (`-32021` of a tool that waited
    /// on something first), which HTTP answers 400 when the answer comes before a stream.
    Pending,
}

/// Checks a transport makes against what it saw outside the body (HTTP headers), called by
/// the dispatcher at the rung of the validation ladder where each applies: after the
/// request is classified, before the method runs. A transport with nothing outside the
/// body uses [`NoChecks`].
pub trait RequestChecks: Send + Sync {
    /// A modern request: the transport's protocol version and method against the envelope's
    /// version and the body's method. An `Err` is answered as it is (`-32020` for a mismatch).
    fn modern(&self, method: &str, version: &str) -> Result<(), McpError>;

    /// A modern request that names something: the transport's name against
    /// `params.name`/`params.uri`.
    fn name(&self, method: &str, name: &str) -> Result<(), McpError>;

    /// A modern `tools/call`: mirrored parameters against the arguments the tool declares
    /// mirrored (`x-mcp-header`).
    fn params(&self, declared: &[ParamHeader], arguments: &JsonObject) -> Result<(), McpError>;

    /// A legacy request (`initialize` included): the transport's protocol version, if any.
    fn legacy(&self) -> Result<(), McpError>;

    /// A legacy request with no `initialize` behind it: the legacy version to serve it under
    /// (`None`: the latest), or why it is refused (a sessionful endpoint wants a session).
    fn sessionless(&self) -> Result<Option<&'static str>, Rejection>;

    /// The trace context the transport saw outside the body (HTTP's `traceparent`,
    /// `tracestate` and `baggage` headers); `_meta`'s values win over these.
    fn trace_context(&self) -> Option<TraceContext> {
        None
    }
}

/// The checks of a transport with nothing outside the body: every request passes, and a
/// legacy request without a session is served under the latest legacy version.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoChecks;

impl RequestChecks for NoChecks {
    fn modern(&self, _: &str, _: &str) -> Result<(), McpError> {
        Ok(())
    }
    fn name(&self, _: &str, _: &str) -> Result<(), McpError> {
        Ok(())
    }
    fn params(&self, _: &[ParamHeader], _: &JsonObject) -> Result<(), McpError> {
        Ok(())
    }
    fn legacy(&self) -> Result<(), McpError> {
        Ok(())
    }
    fn sessionless(&self) -> Result<Option<&'static str>, Rejection> {
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn codes_the_spec_pins_to_invalid_are_invalid_wherever_they_come_from() {
        let pinned = [
            McpError::header_mismatch("x"),
            McpError::missing_client_capability(json!({"elicitation": {}})),
            McpError::unsupported_protocol_version("2099-01-01", &["2026-07-28"]),
        ];
        for error in pinned {
            assert_eq!(Rejection::from(error).disposition, Disposition::Invalid);
        }
        for error in [
            McpError::invalid_params("unknown tool"),
            McpError::internal("x"),
            McpError::method_not_found("x"),
        ] {
            assert_eq!(Rejection::from(error).disposition, Disposition::Answered);
        }
    }
}
