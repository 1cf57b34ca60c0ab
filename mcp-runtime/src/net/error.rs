//! What a [`NetService`](super::NetService) request can fail with.

use std::time::Duration;

/// Why a request was refused or failed. The message says what and why, in words a model can
/// act on; it never carries a response body or request headers.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum NetError {
    /// The URL does not parse, or is not one this service fetches (no host, userinfo).
    #[error("invalid URL: {0}")]
    InvalidUrl(String),
    /// The request cannot be sent as given (a method or header that is not valid HTTP).
    #[error("invalid request: {0}")]
    InvalidRequest(String),
    /// The policy refuses the destination: scheme, host, port or address.
    #[error("refused: {0}")]
    Refused(String),
    /// A phase took longer than the policy allows.
    #[error("timed out {phase} (limit {limit:?})")]
    Timeout {
        /// `connecting`, `waiting for the response headers`, or `overall`.
        phase: &'static str,
        /// The limit that ran out.
        limit: Duration,
    },
    /// The body is larger than [`NetPolicy::max_response_bytes`](super::NetPolicy::max_response_bytes)
    /// (after decompression).
    #[error("response body larger than {limit} bytes")]
    TooLarge {
        /// The limit.
        limit: usize,
    },
    /// More redirects than [`NetPolicy::max_redirects`](super::NetPolicy::max_redirects).
    #[error("more than {limit} redirects")]
    TooManyRedirects {
        /// The limit.
        limit: usize,
    },
    /// The connection or the HTTP exchange failed (refused connection, TLS, a malformed or
    /// oversized response head, a body that does not decompress).
    #[error("request failed: {0}")]
    Transport(String),
}

impl NetError {
    /// A short label for audit events and metrics: `invalid_url`, `invalid_request`, `refused`, `timeout`,
    /// `too_large`, `too_many_redirects`, `transport`.
    pub fn kind_label(&self) -> &'static str {
        match self {
            Self::InvalidUrl(_) => "invalid_url",
            Self::InvalidRequest(_) => "invalid_request",
            Self::Refused(_) => "refused",
            Self::Timeout { .. } => "timeout",
            Self::TooLarge { .. } => "too_large",
            Self::TooManyRedirects { .. } => "too_many_redirects",
            Self::Transport(_) => "transport",
        }
    }

    /// Whether the policy refused the request (rather than the network failing it).
    pub fn is_refusal(&self) -> bool {
        matches!(self, Self::Refused(_))
    }
}
