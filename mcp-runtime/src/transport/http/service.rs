//! [`McpHttpService`]: the MCP endpoint as a `tower::Service`, and the order in which a
//! request meets the checks: `Host`/`Origin` (403), authentication (401/403), the HTTP
//! method (405), then the method's own handling.

use super::auth::{self, Identity};
use super::headers;
use super::limits::{self, CallerSlots};
use super::options::{HttpOptions, LegacyMode};
use super::post;
use super::response;
use super::security;
use super::session::{self, Lookup, SessionLimits, Sessions};
use super::traced;
use crate::server::{Connection, Server};
use axum::body::Body;
use bytes::Bytes;
use futures::future::BoxFuture;
use http::{Method, Request, Response, StatusCode};
use std::convert::Infallible;
use std::fmt;
use std::net::IpAddr;
use std::sync::Arc;
use std::task::{Context, Poll};
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;

/// The Streamable HTTP endpoint of a [`Server`], as a `tower::Service`.
///
/// Mount it in your own axum `Router` (it answers every HTTP method itself, so use
/// `route_service`), or let [`HttpServer`](super::HttpServer) serve it. Cheap to clone;
/// clones share sessions and limits.
///
/// ```no_run
/// use mcp_runtime::prelude::*;
/// use mcp_runtime::transport::http::{HttpOptions, McpHttpService};
///
/// # async fn run(server: Server) -> std::io::Result<()> {
/// let mcp = McpHttpService::new(server, HttpOptions::default());
/// let app = axum::Router::new()
///     .route_service("/mcp", mcp.clone())
///     .route("/healthz", axum::routing::get(|| async { "ok" }));
/// let listener = tokio::net::TcpListener::bind("127.0.0.1:8000").await?;
/// axum::serve(listener, app).await?;
/// # Ok(()) }
/// ```
///
/// Served this way, the header read timeout and `TCP_NODELAY` are your server's business
/// (`HttpServer` sets both); everything else in [`HttpOptions`] applies.
#[derive(Clone)]
pub struct McpHttpService {
    shared: Arc<Shared>,
}

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
    /// Cancelled by shutdown: GET streams end.
    pub(crate) closing: CancellationToken,
}

impl fmt::Debug for McpHttpService {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("McpHttpService")
            .field("server", &self.shared.server.info().name)
            .field("options", &self.shared.options)
            .field("sessions", &self.shared.sessions.len())
            .finish()
    }
}

impl McpHttpService {
    /// The endpoint for `server`.
    pub fn new(server: Server, options: HttpOptions) -> Self {
        let sessions = Sessions::new(SessionLimits {
            max: options.max_sessions,
            per_caller: options.max_sessions_per_caller,
            idle: options.session_idle_timeout,
            lifetime: options.max_session_lifetime,
        });
        let shared = Arc::new(Shared {
            stateless: server.connect_stateless(),
            permits: Arc::new(Semaphore::new(options.max_concurrent_requests)),
            streams: Arc::new(Semaphore::new(options.max_streams)),
            bodies: Semaphore::new(options.max_concurrent_bodies),
            callers: CallerSlots::new(options.max_requests_per_caller),
            sessions: Arc::new(sessions),
            closing: CancellationToken::new(),
            server,
            options,
        });
        // Instances sharing sessions pass each other what belongs to sessions held here.
        #[cfg(feature = "redis")]
        super::fleet::listen(&shared);
        Self { shared }
    }

    /// The options it was built with.
    pub fn options(&self) -> &HttpOptions {
        &self.shared.options
    }

    /// How many legacy sessions are open.
    pub fn session_count(&self) -> usize {
        self.shared.sessions.len()
    }

    /// Starts shutting down: sessions end, GET and listen streams close (a listen stream
    /// gets its final result first). Requests still arriving are served; stop accepting
    /// them first.
    pub fn begin_shutdown(&self) {
        self.shared.closing.cancel();
        self.shared.stateless.end_streams();
        self.shared.sessions.close_all();
    }

    /// [`begin_shutdown`](Self::begin_shutdown), then waits until every tool call of
    /// requests without a session has finished and been answered.
    ///
    /// Cancel safety: stopping the wait early leaves the calls running.
    pub async fn shutdown(&self) {
        self.begin_shutdown();
        self.shared.stateless.shutdown().await;
    }
}

impl<B> tower::Service<Request<B>> for McpHttpService
where
    B: http_body::Body<Data = Bytes> + Send + 'static,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    type Response = Response<Body>;
    type Error = Infallible;
    type Future = BoxFuture<'static, Result<Response<Body>, Infallible>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        // Always ready: the concurrency cap answers 503 instead of queueing requests.
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        // In a user's axum router, the peer is where `into_make_service_with_connect_info`
        // records it.
        let peer = request
            .extensions()
            .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>()
            .map(|axum::extract::ConnectInfo(peer)| *peer);
        let response = self.respond(request, peer);
        Box::pin(async move { Ok(response.await) })
    }
}

impl McpHttpService {
    /// Answers `request` from `peer`: what [`call`](tower::Service::call) does, without
    /// boxing the future, for [`HttpServer`](super::HttpServer), which holds it in the
    /// connection's own task and knows the peer without putting it in the request's
    /// extensions (three allocations a request).
    pub(crate) fn respond<B>(
        &self,
        request: Request<B>,
        peer: Option<std::net::SocketAddr>,
    ) -> impl Future<Output = Response<Body>> + Send + use<B>
    where
        B: http_body::Body<Data = Bytes> + Send + 'static,
        B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
    {
        use tracing::Instrument as _;
        let shared = self.shared.clone();
        let span = tracing::debug_span!("mcp_http", method = %request.method());
        async move {
            let response = shared.handle(request, peer).await;
            tracing::debug!(status = response.status().as_u16(), "answered");
            response
        }
        .instrument(span)
    }
}

impl Shared {
    pub(crate) fn server(&self) -> &Server {
        &self.server
    }

    async fn handle<B>(
        self: Arc<Self>,
        request: Request<B>,
        peer: Option<std::net::SocketAddr>,
    ) -> Response<Body>
    where
        B: http_body::Body<Data = Bytes> + Send + 'static,
        B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
    {
        let mut watch = traced::Watch::of(&request);
        let response = self.answer(request, peer, &mut watch).await;
        watch.finish(&response);
        response
    }

    /// Answers `request`; `watch` gives a POST refused before the dispatcher its span.
    async fn answer<B>(
        self: Arc<Self>,
        request: Request<B>,
        peer: Option<std::net::SocketAddr>,
        watch: &mut traced::Watch,
    ) -> Response<Body>
    where
        B: http_body::Body<Data = Bytes> + Send + 'static,
        B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
    {
        let (mut parts, body) = request.into_parts();
        if let Err(refused) = security::check(&self.options.hosts, &parts) {
            return refused.into_response();
        }
        let identity = match &self.options.auth {
            Some(a) => {
                // An authenticator (and the audit line of a refusal) finds the peer where
                // axum's `ConnectInfo` puts it, as behind any axum router. Only then: the
                // map it goes in costs three allocations a request.
                if let Some(peer) = peer
                    && parts
                        .extensions
                        .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>()
                        .is_none()
                {
                    parts.extensions.insert(axum::extract::ConnectInfo(peer));
                }
                match auth::check(a.as_ref(), &parts).await {
                    Ok(identity) => identity,
                    Err(refused) => return *refused,
                }
            }
            None => Identity::anonymous(),
        };
        let client = limits::client_address(&parts, peer, &self.options.trusted_proxies);
        let allow = match self.options.legacy {
            LegacyMode::Sessionful => "POST, GET, DELETE",
            LegacyMode::Stateless => "POST",
        };
        match parts.method {
            Method::POST => post::handle(&self, parts, body, identity, client, watch).await,
            Method::GET | Method::DELETE if self.options.legacy == LegacyMode::Sessionful => {
                self.session_method(&parts, &identity, client).await
            }
            _ => response::method_not_allowed(allow),
        }
    }

    /// GET (the session's stream) and DELETE (end it), for legacy sessions.
    async fn session_method(
        self: &Arc<Self>,
        parts: &http::request::Parts,
        identity: &Identity,
        client: Option<IpAddr>,
    ) -> Response<Body> {
        if let Err(e) = headers::legacy_version(&parts.headers) {
            return response::error(StatusCode::BAD_REQUEST, None, &e);
        }
        if parts.method == Method::GET && !post::Accept::of(&parts.headers).sse {
            return response::message(
                StatusCode::NOT_ACCEPTABLE,
                "a GET stream is text/event-stream; accept it",
            );
        }
        let lookup = self.sessions.lookup(&parts.headers, identity);
        #[cfg(feature = "redis")]
        let lookup = match super::fleet::resolve(self, parts, identity, client, lookup).await {
            Ok(lookup) => lookup,
            Err(refused) => return refused,
        };
        match lookup {
            Lookup::Absent => response::message(
                StatusCode::BAD_REQUEST,
                "Mcp-Session-Id is required (GET and DELETE act on a session of the 2025 \
                 revisions; 2026-07-28 clients use subscriptions/listen)",
            ),
            Lookup::Unknown => response::message(StatusCode::NOT_FOUND, "session not found"),
            Lookup::Found(s) if parts.method == Method::GET => {
                // A stream is held like a request against its caller's share, and takes
                // from the streams' pool, never a request permit.
                let Ok(stream) = self.streams.clone().try_acquire_owned() else {
                    return response::unavailable("too many streams are open; retry shortly");
                };
                match self.callers.take(limits::caller_key(identity, client)) {
                    Ok(slot) => {
                        let last_event = parts
                            .headers
                            .get("last-event-id")
                            .and_then(|v| v.to_str().ok())
                            .map(str::to_owned);
                        response::holding(
                            session::open_stream(self, &s, last_event),
                            (slot, stream),
                        )
                    }
                    Err(limits::OverLimit) => response::too_many(
                        "this caller has as many requests and streams open as it may",
                    ),
                }
            }
            Lookup::Found(s) => session::delete(self, &s).await,
        }
    }
}
