//! The connections of the HTTP client ([`Client::http`](super::Client::http)): one pool
//! per endpoint (hyper-util's), TCP, and rustls for `https://` with the `client-https`
//! feature.

use bytes::Bytes;
use http_body_util::Full;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::{TokioExecutor, TokioTimer};

/// What opens the client's connections: TCP, and TLS for `https://` with the
/// `client-https` feature.
#[cfg(feature = "client-https")]
type Connector = hyper_rustls::HttpsConnector<HttpConnector>;
/// What opens the client's connections: TCP (`https://` needs the `client-https` feature).
#[cfg(not(feature = "client-https"))]
type Connector = HttpConnector;

/// One client's connections, kept open between requests.
pub(super) type Pool = hyper_util::client::legacy::Client<Connector, Full<Bytes>>;

/// How long an idle connection stays open, and how many may.
const IDLE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(60);
const MAX_IDLE: usize = 16;

/// The connection pool of a client of an `https` (or plain) endpoint: rustls on ring,
/// trusting Mozilla's roots and those of `SSL_CERT_FILE`, when it is set.
#[cfg(feature = "client-https")]
pub(super) fn pool(https: bool) -> Result<Pool, String> {
    let mut http = HttpConnector::new();
    http.set_nodelay(true);
    http.enforce_http(false);
    // A plain endpoint never opens TLS: it does not read `SSL_CERT_FILE` either.
    let roots = if https {
        crate::tls::env_roots().map_err(|e| e.to_string())?
    } else {
        Vec::new()
    };
    let config = crate::tls::client_config(roots).map_err(|e| e.to_string())?;
    let connector = hyper_rustls::HttpsConnectorBuilder::new()
        .with_tls_config(config)
        .https_or_http()
        .enable_http1()
        .wrap_connector(http);
    Ok(pooled(connector))
}

/// The connection pool of a client of a plain endpoint; `https` is refused without the
/// `client-https` feature.
#[cfg(not(feature = "client-https"))]
pub(super) fn pool(https: bool) -> Result<Pool, String> {
    if https {
        return Err(
            "https needs the `client-https` feature of mcp-runtime; reach the server over \
             http (e.g. through a local proxy)"
                .to_owned(),
        );
    }
    let mut http = HttpConnector::new();
    http.set_nodelay(true);
    Ok(pooled(http))
}

/// A pooled HTTP/1.1 client over `connector`.
fn pooled(connector: Connector) -> Pool {
    hyper_util::client::legacy::Client::builder(TokioExecutor::new())
        .pool_idle_timeout(IDLE_TIMEOUT)
        .pool_max_idle_per_host(MAX_IDLE)
        .pool_timer(TokioTimer::new())
        .build(connector)
}
