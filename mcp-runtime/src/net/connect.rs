//! Resolving and connecting: the one place that decides which addresses a request reaches.
//!
//! The connector gets the URL's host, resolves it through the [`Resolve`] it was given,
//! checks **every** answer, and hands [`Connect`] only checked addresses, one at a time. A
//! name is resolved again for each new connection and never looked up a second time between
//! the check and the connection, so an answer that changes (DNS rebinding) is checked as it
//! is used.

use super::NetPolicy;
use super::address::non_public;
use futures::future::BoxFuture;
use hyper_util::rt::TokioIo;
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::task::{Context, Poll};
use tokio::net::TcpStream;

/// Resolves host names for a [`NetService`](super::NetService). The default is the system's
/// resolver ([`SystemResolver`]); tests inject one that never asks the network.
pub trait Resolve: Send + Sync + 'static {
    /// The addresses of `host` (a name, never an IP literal), with `port` filled in.
    fn resolve(&self, host: &str, port: u16) -> BoxFuture<'static, io::Result<Vec<SocketAddr>>>;
}

/// The system's resolver (`getaddrinfo` on a blocking thread, through tokio).
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemResolver;

impl Resolve for SystemResolver {
    fn resolve(&self, host: &str, port: u16) -> BoxFuture<'static, io::Result<Vec<SocketAddr>>> {
        let host = host.to_owned();
        Box::pin(async move {
            Ok(tokio::net::lookup_host((host.as_str(), port))
                .await?
                .collect())
        })
    }
}

/// Opens TCP connections for a [`NetService`](super::NetService): it receives an address the
/// policy has checked, never a name. The default is [`TcpConnect`]; tests inject one that
/// refuses every address but the loopback servers they started.
pub trait Connect: Send + Sync + 'static {
    /// A connection to `addr`.
    fn connect(&self, addr: SocketAddr) -> BoxFuture<'static, io::Result<TcpStream>>;
}

/// Plain TCP (`TCP_NODELAY` set).
#[derive(Debug, Clone, Copy, Default)]
pub struct TcpConnect;

impl Connect for TcpConnect {
    fn connect(&self, addr: SocketAddr) -> BoxFuture<'static, io::Result<TcpStream>> {
        Box::pin(async move {
            let stream = TcpStream::connect(addr).await?;
            stream.set_nodelay(true)?;
            Ok(stream)
        })
    }
}

/// A refusal from the connector, found again in the client's error chain.
#[derive(Debug)]
pub(crate) struct Refusal(pub(crate) String);

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Refusal {}

/// The connect phase's timeout, found again in the client's error chain.
#[derive(Debug)]
pub(crate) struct ConnectTimeout;

impl std::fmt::Display for ConnectTimeout {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("connect timeout")
    }
}

impl std::error::Error for ConnectTimeout {}

/// The `tower::Service<Uri>` hyper's client (and the TLS layer over it) connects through.
#[derive(Clone)]
pub(crate) struct Connector {
    pub(crate) policy: Arc<NetPolicy>,
    pub(crate) resolver: Arc<dyn Resolve>,
    pub(crate) connect: Arc<dyn Connect>,
}

impl std::fmt::Debug for Connector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Connector").finish_non_exhaustive()
    }
}

type BoxError = Box<dyn std::error::Error + Send + Sync>;

impl tower::Service<http::Uri> for Connector {
    type Response = TokioIo<TcpStream>;
    type Error = BoxError;
    type Future = BoxFuture<'static, Result<Self::Response, BoxError>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, uri: http::Uri) -> Self::Future {
        let this = self.clone();
        Box::pin(async move {
            let limit = this.policy.connect_timeout;
            match tokio::time::timeout(limit, this.open(uri)).await {
                Ok(result) => result.map(TokioIo::new),
                Err(_) => Err(Box::new(ConnectTimeout) as BoxError),
            }
        })
    }
}

impl Connector {
    async fn open(&self, uri: http::Uri) -> Result<TcpStream, BoxError> {
        let refuse = |why: String| Box::new(Refusal(why)) as BoxError;
        let scheme = uri.scheme_str().unwrap_or("http");
        let host = uri.host().ok_or_else(|| refuse("no host".to_owned()))?;
        let port = uri
            .port_u16()
            .unwrap_or(if scheme == "https" { 443 } else { 80 });
        let exact = self.policy.origin_allowed(scheme, host, port);
        let bare = host
            .strip_prefix('[')
            .and_then(|h| h.strip_suffix(']'))
            .unwrap_or(host);
        let addrs = match bare.parse::<IpAddr>() {
            Ok(ip) => vec![SocketAddr::new(ip, port)],
            Err(_) => {
                let addrs = self.resolver.resolve(bare, port).await?;
                if addrs.is_empty() {
                    return Err(refuse(format!("{host} has no address")));
                }
                addrs
            }
        };
        if !exact {
            // Every answer is checked, not only the one used: a name that mixes public and
            // non-public answers is a name to refuse.
            for addr in &addrs {
                if let Some(class) = non_public(addr.ip()) {
                    return Err(refuse(if bare.parse::<IpAddr>().is_ok() {
                        format!("{host} is a {class} address")
                    } else {
                        format!("{host} resolves to a {class} address")
                    }));
                }
            }
        }
        let mut last = None;
        for addr in addrs {
            match self.connect.connect(addr).await {
                Ok(stream) => return Ok(stream),
                Err(e) => last = Some(e),
            }
        }
        Err(Box::new(
            last.unwrap_or_else(|| io::Error::other("no address")),
        ))
    }
}
