//! [`HttpServer`] and [`serve_http`]: a listener, hyper's HTTP/1.1 connections with the
//! header read timeout and `TCP_NODELAY`, the endpoint at its path (404 elsewhere), and a
//! graceful shutdown.

use super::access::Access;
use super::options::HttpOptions;
use super::service::McpHttpService;
use crate::server::Server;
use futures::FutureExt as _;
use futures::future::Either;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use std::convert::Infallible;
use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::{TcpListener, ToSocketAddrs};
use tokio::sync::{Semaphore, watch};
use tokio::task::JoinSet;
use tokio_io_timeout::TimeoutStream;
use tokio_util::sync::CancellationToken;
use tower::ServiceExt as _;

/// Adds the protected-resource metadata routes (RFC 9728) to `app`: public (no token is
/// needed to learn where to get one) and readable by browser clients from any origin, the
/// way authorization servers serve their own metadata.
fn serve_resource_metadata(
    app: axum::Router,
    resource: &super::ProtectedResource,
    endpoint: &str,
) -> axum::Router {
    use axum::response::IntoResponse;
    use http::header;
    let body = bytes::Bytes::from(resource.to_json().to_string());
    let cors = || {
        [
            (header::ACCESS_CONTROL_ALLOW_ORIGIN, "*"),
            (header::ACCESS_CONTROL_ALLOW_METHODS, "GET, OPTIONS"),
            (header::ACCESS_CONTROL_ALLOW_HEADERS, "*"),
        ]
    };
    let get = move || {
        let body = body.clone();
        async move { (cors(), [(header::CONTENT_TYPE, "application/json")], body).into_response() }
    };
    let preflight = move || async move { (http::StatusCode::NO_CONTENT, cors()).into_response() };
    resource.paths(endpoint).iter().fold(app, |app, path| {
        app.route(path, axum::routing::get(get.clone()).options(preflight))
    })
}

/// Serves `server` over Streamable HTTP at `http://{addr}/mcp` with default options until
/// Ctrl-C or SIGTERM, then shuts down gracefully.
///
/// Pass a loopback address (`127.0.0.1:8000`) unless the server must be reachable from
/// other machines; the `Host`/`Origin` checks stay on either way.
///
/// ```no_run
/// use mcp_runtime::prelude::*;
/// use mcp_runtime::transport::http::serve_http;
///
/// # async fn run(server: Server) -> std::io::Result<()> {
/// serve_http(server, "127.0.0.1:8000").await
/// # }
/// ```
pub async fn serve_http(server: Server, addr: impl ToSocketAddrs) -> io::Result<()> {
    HttpServer::bind(addr, server, HttpOptions::default())
        .await?
        .run()
        .await
}

/// A bound Streamable HTTP server. [`bind`](Self::bind) it, read its
/// [`url`](Self::url) (useful with port 0), then [`run`](Self::run) it.
///
/// Connections speak HTTP/1.1 (put TLS and HTTP/2 in a proxy in front, or mount
/// [`McpHttpService`] in a server that speaks them). Every accepted socket gets
/// `TCP_NODELAY`: without it, small responses wait for the peer's delayed ACK, about 40 ms
/// per request. A client that does not finish its request headers within the header read
/// timeout (which also bounds idle keep-alive connections) is disconnected, so is one whose
/// writes stay blocked past the write timeout (it stopped reading); at most
/// `max_connections` are open at once (see [`HttpOptions`]).
#[derive(Debug)]
pub struct HttpServer {
    listener: TcpListener,
    local_addr: SocketAddr,
    service: McpHttpService,
}

impl HttpServer {
    /// Binds the listener (nothing is served until [`run`](Self::run)).
    pub async fn bind(
        addr: impl ToSocketAddrs,
        server: Server,
        options: HttpOptions,
    ) -> io::Result<Self> {
        let listener = TcpListener::bind(addr).await?;
        let local_addr = listener.local_addr()?;
        Ok(Self {
            listener,
            local_addr,
            service: McpHttpService::new(server, options),
        })
    }

    /// Binds like [`bind`](Self::bind) with `access` applied: its tokens required, and a
    /// non-loopback address without them refused (checked on the address really bound).
    pub async fn bind_with_access(
        addr: impl ToSocketAddrs,
        server: Server,
        options: HttpOptions,
        access: &Access,
    ) -> io::Result<Self> {
        let http = Self::bind(addr, server, access.options(options)).await?;
        access.check(http.local_addr).map_err(io::Error::other)?;
        Ok(http)
    }

    /// The address it listens on.
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// The endpoint's URL, e.g. `http://127.0.0.1:8000/mcp`.
    pub fn url(&self) -> String {
        format!(
            "http://{}{}",
            self.local_addr,
            self.service.options().path()
        )
    }

    /// The endpoint service (to watch sessions, or to shut it down from elsewhere).
    pub fn service(&self) -> &McpHttpService {
        &self.service
    }

    /// Serves until Ctrl-C or SIGTERM, then shuts down gracefully.
    pub async fn run(self) -> io::Result<()> {
        self.run_until(shutdown_signal()).await
    }

    /// Serves until `signal` completes, then shuts down gracefully: stops accepting,
    /// closes sessions and streams (a `subscriptions/listen` stream gets its final result),
    /// lets in-flight requests finish within the shutdown grace period, and then drops
    /// whatever is left.
    pub async fn run_until(self, signal: impl Future<Output = ()> + Send) -> io::Result<()> {
        let options = self.service.options().clone();
        // Every other path (the protected-resource metadata, 404 elsewhere) goes through an
        // axum `Router`; the endpoint's requests skip it: matching one path needs no router,
        // and its boxing, routing and response mapping were a twentieth of a call's work.
        let mut app = axum::Router::new();
        if let Some(resource) = options.auth.as_ref().and_then(|a| a.protected_resource()) {
            app = serve_resource_metadata(app, resource, options.path());
        }
        let endpoint: Arc<str> = options.path().into();
        let mut http = http1::Builder::new();
        http.timer(TokioTimer::new())
            .header_read_timeout(options.header_read_timeout)
            .keep_alive(true);
        // Each connection's own graceful end: on shutdown, and when the connections are at
        // their cap (below). Hand-made rather than hyper-util's `GracefulShutdown`, which
        // can end all connections but not shed idle ones.
        let closing = CancellationToken::new();
        let (shed, _) = watch::channel(());
        let mut connections = JoinSet::new();
        // At most `max_connections` open: at the cap, every connection is asked to end
        // gracefully, which closes the idle ones (keep-alive connections waiting for a
        // request, connections that never sent one) at once and the busy ones after their
        // response; new connections then take their place (as nginx closes keep-alive
        // connections when it runs out). Past the cap, new ones wait in the listen backlog.
        let slots = Arc::new(Semaphore::new(options.max_connections));
        tokio::pin!(signal);
        loop {
            if slots.available_permits() == 0 {
                shed.send_replace(());
            }
            let slot = tokio::select! {
                () = &mut signal => break,
                slot = slots.clone().acquire_owned() => slot.expect("the semaphore is never closed"),
            };
            let accepted = tokio::select! {
                () = &mut signal => break,
                accepted = self.listener.accept() => accepted,
            };
            while connections.try_join_next().is_some() {}
            match accepted {
                Ok((stream, peer)) => {
                    if let Err(e) = stream.set_nodelay(true) {
                        tracing::debug!(error = %e, "TCP_NODELAY could not be set");
                    }
                    let (mcp, app, endpoint) =
                        (self.service.clone(), app.clone(), endpoint.clone());
                    let service = hyper::service::service_fn(
                        move |mut request: http::Request<hyper::body::Incoming>| {
                            // The peer's address tells callers apart when they have no
                            // identity or session: the endpoint is given it directly, other
                            // routes find it where axum's own `ConnectInfo` puts it.
                            if request.uri().path() == &*endpoint {
                                Either::Left(
                                    mcp.respond(request, Some(peer)).map(Ok::<_, Infallible>),
                                )
                            } else {
                                request
                                    .extensions_mut()
                                    .insert(axum::extract::ConnectInfo(peer));
                                Either::Right(app.clone().oneshot(request))
                            }
                        },
                    );
                    // A client that stops reading is cut off after the write timeout, which
                    // releases what its response held.
                    let mut io = TimeoutStream::new(stream);
                    io.set_write_timeout(Some(options.write_timeout));
                    let connection = http.serve_connection(TokioIo::new(Box::pin(io)), service);
                    let mut shed = shed.subscribe();
                    let closing = closing.clone();
                    connections.spawn(async move {
                        let _slot = slot;
                        let mut connection = std::pin::pin!(connection);
                        let mut ending = false;
                        loop {
                            tokio::select! {
                                ended = connection.as_mut() => {
                                    if let Err(e) = ended {
                                        tracing::debug!(error = %e, "HTTP connection ended with an error");
                                    }
                                    break;
                                }
                                _ = shed.changed(), if !ending => {
                                    connection.as_mut().graceful_shutdown();
                                    ending = true;
                                }
                                () = closing.cancelled(), if !ending => {
                                    connection.as_mut().graceful_shutdown();
                                    ending = true;
                                }
                            }
                        }
                    });
                }
                Err(e) => {
                    drop(slot);
                    // Out of file descriptors and the like: back off instead of spinning.
                    tracing::warn!(error = %e, "accepting a connection failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            }
        }
        drop(self.listener);
        tracing::info!("shutting down: no new connections");
        self.service.begin_shutdown();
        closing.cancel();
        let drained = tokio::time::timeout(options.shutdown_grace, async {
            while connections.join_next().await.is_some() {}
            self.service.shutdown().await;
        })
        .await;
        if drained.is_err() {
            tracing::warn!(
                grace = ?options.shutdown_grace,
                "requests still running after the shutdown grace period were dropped"
            );
        }
        connections.shutdown().await;
        Ok(())
    }
}

/// Ctrl-C; SIGTERM on Unix (what Kubernetes and systemd send); Ctrl-Break, closing the
/// console and shutdown on Windows.
async fn shutdown_signal() {
    let ctrl_c = async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    // Windows: Ctrl-Break, the console closing, and the system shutting down.
    #[cfg(windows)]
    let terminate = async {
        use tokio::signal::windows as w;
        match (w::ctrl_break(), w::ctrl_close(), w::ctrl_shutdown()) {
            (Ok(mut brk), Ok(mut close), Ok(mut shutdown)) => {
                tokio::select! {
                    _ = brk.recv() => {}
                    _ = close.recv() => {}
                    _ = shutdown.recv() => {}
                }
            }
            _ => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(any(unix, windows)))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {}
        () = terminate => {}
    }
}
