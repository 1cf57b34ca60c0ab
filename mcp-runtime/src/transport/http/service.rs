//! [`McpHttpService`]: the MCP endpoint as a `tower::Service`, and the order in which a
//! request meets the checks: `Host`/`Origin` (403), authentication (401/403), the HTTP
//! method (405), then the method's own handling.

use super::auth::{self, Identity};
use super::limits;
use super::options::{HttpOptions, LegacyMode};
use super::post;
use super::response;
use super::security;
use super::session_methods;
use super::state::Shared;
use super::traced;
use crate::server::Server;
use axum::body::Body;
use bytes::Bytes;
use futures::future::BoxFuture;
use http::{Method, Request, Response};
use std::convert::Infallible;
use std::fmt;
use std::sync::Arc;
use std::task::{Context, Poll};

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

impl fmt::Debug for McpHttpService {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("McpHttpService")
            .field("server", &self.shared.server().info().name)
            .field("options", &self.shared.options)
            .field("sessions", &self.shared.sessions.len())
            .finish()
    }
}

impl McpHttpService {
    /// The endpoint for `server`.
    pub fn new(server: Server, options: HttpOptions) -> Self {
        let shared = Arc::new(Shared::new(server, options));
        // Instances sharing sessions pass each other what belongs to sessions held here.
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
                session_methods::handle(&self, &parts, &identity, client).await
            }
            _ => response::method_not_allowed(allow),
        }
    }
}
