//! What every clone of the HTTP endpoint shares: its options, its server and the stateless
//! connection, the legacy sessions, and the limits' permits.

use super::limits::CallerSlots;
use super::options::HttpOptions;
use super::session::{SessionLimits, Sessions};
use crate::server::{Connection, Server};
use std::sync::Arc;
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;

/// What every clone of the service shares.
pub(crate) struct Shared {
    pub(crate) options: HttpOptions,
    server: Server,
    /// Serves every request that has no session.
    pub(crate) stateless: Connection,
    pub(crate) sessions: Arc<Sessions>,
    /// Requests being handled (bodies read), until their responses are written.
    pub(crate) permits: Arc<Semaphore>,
    /// Long-lived streams (GET, `subscriptions/listen`): a pool of their own.
    pub(crate) streams: Arc<Semaphore>,
    /// Request bodies arriving.
    pub(crate) bodies: Semaphore,
    /// Each caller's requests and streams.
    pub(crate) callers: Arc<CallerSlots>,
    /// Each caller's request rate, when limited.
    pub(crate) rates: Option<super::limits::CallerRates>,
    /// Cancelled by shutdown: GET streams end.
    pub(crate) closing: CancellationToken,
}

impl Shared {
    /// The state of a new endpoint for `server`.
    pub(crate) fn new(server: Server, options: HttpOptions) -> Self {
        let sessions = Sessions::new(SessionLimits {
            max: options.max_sessions,
            per_caller: options.max_sessions_per_caller,
            idle: options.session_idle_timeout,
            lifetime: options.max_session_lifetime,
        });
        Shared {
            stateless: server.connect_stateless(),
            permits: Arc::new(Semaphore::new(options.max_concurrent_requests)),
            streams: Arc::new(Semaphore::new(options.max_streams)),
            bodies: Semaphore::new(options.max_concurrent_bodies),
            callers: CallerSlots::new(options.max_requests_per_caller),
            rates: options.rate_per_caller.map(super::limits::CallerRates::new),
            sessions: Arc::new(sessions),
            closing: CancellationToken::new(),
            server,
            options,
        }
    }

    /// The server behind the endpoint.
    pub(crate) fn server(&self) -> &Server {
        &self.server
    }
}
