//! Fetching URLs for tools without opening the server's network to the caller (SSRF): a
//! [`NetService`] that reaches public addresses, and non-public ones only at origins allowed
//! exactly.
//!
//! A tool that fetches what a model asks for is a proxy into wherever the server runs: the
//! cloud metadata endpoint (`169.254.169.254`), the admin port on `127.0.0.1`, the database on
//! `10.0.0.5`. The reference `mcp-server-fetch` fetches any of them. This service refuses
//! them unless [`NetPolicy::allow_origin`] names the origin, and bounds every request.
//!
//! ```no_run
//! use mcp_runtime::net::{NetError, NetPolicy, NetService};
//! use mcp_runtime::prelude::*;
//!
//! /// Fetches a page and returns its size.
//! #[mcp_tool]
//! async fn page_size(#[mcp(inject)] net: NetService, url: String) -> Result<String, NetError> {
//!     let page = net.get(&url).await?;
//!     Ok(format!("{} bytes", page.body().len()))
//! }
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let net = NetService::new(NetPolicy::new().allow_host("*.example.com"))?;
//! let server = Server::builder("pages", "1.0.0")
//!     .state(net.for_tool("page_size"))
//!     .tool(page_size::tool())
//!     .build()?;
//! # let _ = server;
//! # Ok(())
//! # }
//! ```
//!
//! # What is checked, and where
//!
//! - **Each URL**, the first and every redirect's (by [`NetService::send`]): parsed the way
//!   browsers parse it (WHATWG, the `url` crate), so `http://2130706433/`, `http://0x7f000001/`,
//!   `http://0177.0.0.1/` and `http://127.1/` are all `127.0.0.1` before anything is judged, and
//!   the normalized URL is the one sent. Scheme `http` or `https` (narrower with
//!   [`NetPolicy::schemes`]); no userinfo (`http://user:pass@host/` is refused, not
//!   stripped); the host against [`NetPolicy::allow_host`]'s patterns, the port against
//!   [`NetPolicy::allow_port`], when set.
//! - **Each connection** (by the connector, see `connect.rs`): the host is resolved through
//!   the service's [`Resolve`], every answer is checked, and only checked addresses reach the
//!   [`Connect`] that opens the socket: the address it receives is the one checked, so DNS
//!   rebinding cannot swap it in between. IP literals are checked the same way. Refused:
//!   loopback, private (RFC 1918), link-local (cloud metadata), CGNAT, unique-local,
//!   multicast, unspecified, documentation, benchmarking and reserved ranges, and the
//!   IPv4-mapped, IPv4-compatible, NAT64 and 6to4 forms of them (see `address.rs`). A name
//!   with one refused answer among public ones is refused.
//! - **Redirects** are followed by the service, not by a library underneath: each hop is a
//!   new request, checked as above, up to [`NetPolicy::max_redirects`]. `303`, and `301`/`302`
//!   after a non-`GET`, continue as `GET` without a body; `Authorization`, `Cookie` and
//!   `Proxy-Authorization` are dropped when a hop leaves the origin.
//! - **TLS**: rustls, Mozilla's roots built in (plus [`NetPolicy::add_root_certificates_pem`]),
//!   the certificate checked against the URL's host name.
//! - **Proxies**: none. `HTTP_PROXY` and friends are not read (a proxy would make the
//!   address checks meaningless); a proxy cannot be configured yet.
//!
//! # Bounds
//!
//! Connect ([`NetPolicy::connect_timeout`]), response head ([`NetPolicy::header_timeout`]) and
//! overall ([`NetPolicy::total_timeout`], the bound on a server that trickles); the body capped
//! at [`NetPolicy::max_response_bytes`] while it streams, after decompression (`gzip` and
//! `deflate` are asked for and inflated into a buffer that refuses to grow past the cap, so a
//! compression bomb stops at the cap); response heads capped at [`NetPolicy::max_headers`]
//! fields and [`NetPolicy::max_header_bytes`]; [`NetPolicy::max_concurrent`] requests at once,
//! the rest waiting within their overall timeout; connections pooled and reused (keyed by
//! origin, each opened through the checks above).
//!
//! # Audit and errors
//!
//! Every HTTP exchange (each redirect hop) is an audit event on target
//! [`AUDIT_TARGET`]: `operation = "http_request"`, `tool`,
//! `method`, `origin` (never the path or query, which can carry secrets; never headers),
//! `status`, `bytes`, `duration_ms`, `outcome` (`ok`, `denied`, `error`) and `error` (the
//! [`NetError::kind_label`]). Errors say what was refused and why (`refused: 10.0.0.5 is a
//! private (10.0.0.0/8) address`) and never include a response body.

mod address;
mod body;
mod connect;
mod error;
mod policy;
#[cfg(test)]
mod tests;

pub use connect::{Connect, Resolve, SystemResolver, TcpConnect};
pub use error::NetError;
pub use policy::{
    DEFAULT_CONNECT_TIMEOUT, DEFAULT_HEADER_TIMEOUT, DEFAULT_MAX_CONCURRENT,
    DEFAULT_MAX_HEADER_BYTES, DEFAULT_MAX_HEADERS, DEFAULT_MAX_REDIRECTS,
    DEFAULT_MAX_RESPONSE_BYTES, DEFAULT_TOTAL_TIMEOUT, NetPolicy,
};

use crate::context::{Extensions, FromContext, MissingState, RequestContext, State};
use crate::pipeline::AUDIT_TARGET;
use bytes::Bytes;
use connect::{ConnectTimeout, Connector, Refusal};
use http_body_util::Full;
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use std::sync::Arc;
use std::time::Instant;
use tokio::sync::Semaphore;

type HttpsClient = Client<hyper_rustls::HttpsConnector<Connector>, Full<Bytes>>;

/// An outbound HTTP client for tools, confined by a [`NetPolicy`]: see the
/// [module documentation](self). Cheap to clone (one pool, one concurrency limit shared by
/// the clones); injected into tools from the server's state like the `FileService`.
#[derive(Clone)]
pub struct NetService {
    inner: Arc<Inner>,
    tool: Option<Arc<str>>,
}

struct Inner {
    policy: Arc<NetPolicy>,
    client: HttpsClient,
    permits: Semaphore,
}

impl std::fmt::Debug for NetService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NetService")
            .field("policy", &self.inner.policy)
            .field("tool", &self.tool)
            .finish_non_exhaustive()
    }
}

/// Builds a [`NetService`] with a resolver or connector of its own (tests, or a resolver
/// that is not the system's).
pub struct NetServiceBuilder {
    policy: NetPolicy,
    resolver: Arc<dyn Resolve>,
    connect: Arc<dyn Connect>,
}

impl std::fmt::Debug for NetServiceBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NetServiceBuilder")
            .field("policy", &self.policy)
            .finish_non_exhaustive()
    }
}

impl NetServiceBuilder {
    /// Resolves host names with `resolver` instead of the system's.
    pub fn resolver(mut self, resolver: impl Resolve) -> Self {
        self.resolver = Arc::new(resolver);
        self
    }

    /// Opens connections with `connect` instead of plain TCP. It receives checked addresses
    /// only.
    pub fn connector(mut self, connect: impl Connect) -> Self {
        self.connect = Arc::new(connect);
        self
    }

    /// The service.
    pub fn build(self) -> Result<NetService, NetError> {
        let policy = Arc::new(self.policy);
        let connector = Connector {
            policy: policy.clone(),
            resolver: self.resolver,
            connect: self.connect,
        };
        let tls = |e: &dyn std::fmt::Display| NetError::Transport(format!("TLS setup: {e}"));
        let roots = policy
            .roots
            .iter()
            .map(|der| rustls::pki_types::CertificateDer::from(der.as_slice()));
        let config = crate::tls::client_config(roots).map_err(|e| tls(&e))?;
        let https = hyper_rustls::HttpsConnectorBuilder::new()
            .with_tls_config(config)
            .https_or_http()
            .enable_http1()
            .wrap_connector(connector);
        let mut builder = Client::builder(TokioExecutor::new());
        builder
            .http1_max_headers(policy.max_headers)
            .http1_max_buf_size(policy.max_header_bytes);
        let client = builder.build(https);
        Ok(NetService {
            inner: Arc::new(Inner {
                permits: Semaphore::new(policy.max_concurrent),
                policy,
                client,
            }),
            tool: None,
        })
    }
}

/// One request: method, URL, headers, body.
///
/// ```
/// use mcp_runtime::net::NetRequest;
///
/// let request = NetRequest::new("POST", "https://api.example.com/v1/items")
///     .header("content-type", "application/json")
///     .body(r#"{"name":"x"}"#);
/// assert_eq!(request.method(), "POST");
/// ```
#[derive(Debug, Clone)]
pub struct NetRequest {
    method: String,
    url: String,
    headers: Vec<(String, String)>,
    body: Bytes,
    truncate: bool,
}

impl NetRequest {
    /// A request with `method` (`GET`, `POST`, ...) to `url`.
    pub fn new(method: impl Into<String>, url: impl Into<String>) -> Self {
        Self {
            method: method.into(),
            url: url.into(),
            headers: Vec::new(),
            body: Bytes::new(),
            truncate: false,
        }
    }

    /// A `GET` of `url`.
    pub fn get(url: impl Into<String>) -> Self {
        Self::new("GET", url)
    }

    /// Adds a header. `Host`, `Content-Length` and `Transfer-Encoding` are the service's.
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// The request body.
    pub fn body(mut self, body: impl Into<Bytes>) -> Self {
        self.body = body.into();
        self
    }

    /// A body longer than [`NetPolicy::max_response_bytes`] is cut there (and
    /// [`NetResponse::truncated`] says so) instead of failing the request.
    pub fn allow_truncation(mut self) -> Self {
        self.truncate = true;
        self
    }

    /// The method.
    pub fn method(&self) -> &str {
        &self.method
    }

    /// The URL as given.
    pub fn url(&self) -> &str {
        &self.url
    }
}

/// A response, its body read (and decompressed) in full, within the policy's cap.
#[derive(Debug, Clone)]
pub struct NetResponse {
    status: u16,
    url: String,
    headers: http::HeaderMap,
    body: Bytes,
    truncated: bool,
}

impl NetResponse {
    /// The status code.
    pub fn status(&self) -> u16 {
        self.status
    }

    /// The URL that answered, after redirects.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The response headers (`Content-Encoding` and `Content-Length` describe the body as
    /// sent; [`body`](Self::body) is decompressed).
    pub fn headers(&self) -> &http::HeaderMap {
        &self.headers
    }

    /// A header's value, when present and text.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    /// The media type, without parameters, lowercase (`text/html`), when given.
    pub fn content_type(&self) -> Option<String> {
        let value = self.header("content-type")?;
        let media = value.split(';').next().unwrap_or("").trim();
        (!media.is_empty()).then(|| media.to_ascii_lowercase())
    }

    /// The body, decompressed.
    pub fn body(&self) -> &Bytes {
        &self.body
    }

    /// The body as text (UTF-8, invalid sequences replaced).
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    /// Whether the body was cut at the cap ([`NetRequest::allow_truncation`]).
    pub fn truncated(&self) -> bool {
        self.truncated
    }

    /// Whether the status is 2xx.
    pub fn is_success(&self) -> bool {
        (200..300).contains(&self.status)
    }
}

impl NetService {
    /// A service with the system's resolver and plain TCP. Fails only when TLS cannot be set
    /// up.
    pub fn new(policy: NetPolicy) -> Result<Self, NetError> {
        Self::builder(policy).build()
    }

    /// A builder, to give the service a resolver or connector of its own.
    pub fn builder(policy: NetPolicy) -> NetServiceBuilder {
        NetServiceBuilder {
            policy,
            resolver: Arc::new(SystemResolver),
            connect: Arc::new(TcpConnect),
        }
    }

    /// The same service (same pool and limits), with audit events naming `tool`.
    pub fn for_tool(&self, tool: impl Into<Arc<str>>) -> Self {
        Self {
            inner: self.inner.clone(),
            tool: Some(tool.into()),
        }
    }

    /// The policy.
    pub fn policy(&self) -> &NetPolicy {
        &self.inner.policy
    }

    /// `GET url`.
    pub async fn get(&self, url: &str) -> Result<NetResponse, NetError> {
        self.send(NetRequest::get(url)).await
    }

    /// Sends `request`, following redirects, within the policy: see the
    /// [module documentation](self).
    pub async fn send(&self, request: NetRequest) -> Result<NetResponse, NetError> {
        let limit = self.inner.policy.total_timeout;
        let overall = NetError::Timeout {
            phase: "overall",
            limit,
        };
        tokio::time::timeout(limit, async {
            let _permit = self
                .inner
                .permits
                .acquire()
                .await
                .map_err(|_| NetError::Transport("service closed".to_owned()))?;
            self.exchange(request).await
        })
        .await
        .unwrap_or(Err(overall))
    }

    async fn exchange(&self, request: NetRequest) -> Result<NetResponse, NetError> {
        let policy = &*self.inner.policy;
        let NetRequest {
            method,
            url,
            headers,
            mut body,
            truncate,
        } = request;
        let mut method = http::Method::from_bytes(method.as_bytes())
            .map_err(|_| NetError::InvalidRequest(format!("method {method:?}")))?;
        let mut headers = request_headers(&headers)?;
        let mut url = parse(&url)?;
        let mut hops = 0;
        loop {
            let origin = origin_of(&url);
            let started = Instant::now();
            let audit = Audit {
                tool: self.tool.as_deref(),
                method: method.as_str(),
                origin: &origin,
                started,
            };
            if let Err(e) = self.check(&url) {
                audit.emit(None, 0, Some(&e));
                return Err(e);
            }
            let response = match self.round(&method, &url, &headers, body.clone()).await {
                Ok(r) => r,
                Err(e) => {
                    audit.emit(None, 0, Some(&e));
                    return Err(e);
                }
            };
            let status = response.status().as_u16();
            if let Some(next) = redirect(&url, &response, policy.max_redirects) {
                audit.emit(Some(status), 0, None);
                if hops == policy.max_redirects {
                    return Err(NetError::TooManyRedirects {
                        limit: policy.max_redirects,
                    });
                }
                hops += 1;
                let next = next?;
                if status == 303 || (matches!(status, 301 | 302) && method != http::Method::GET) {
                    if method != http::Method::HEAD {
                        method = http::Method::GET;
                    }
                    body = Bytes::new();
                    headers.remove(http::header::CONTENT_TYPE);
                }
                if origin_of(&next) != origin {
                    for name in [
                        http::header::AUTHORIZATION,
                        http::header::COOKIE,
                        http::header::PROXY_AUTHORIZATION,
                    ] {
                        headers.remove(name);
                    }
                }
                url = next;
                continue;
            }
            let (parts, incoming) = response.into_parts();
            let read = body::read(
                incoming,
                &parts.headers,
                policy.max_response_bytes,
                truncate,
            )
            .await;
            return match read {
                Ok((bytes, truncated)) => {
                    audit.emit(Some(status), bytes.len(), None);
                    Ok(NetResponse {
                        status,
                        url: url.into(),
                        headers: parts.headers,
                        body: bytes,
                        truncated,
                    })
                }
                Err(e) => {
                    audit.emit(Some(status), 0, Some(&e));
                    Err(e)
                }
            };
        }
    }

    /// The checks on a URL itself (the addresses are the connector's).
    fn check(&self, url: &url::Url) -> Result<(), NetError> {
        let policy = &*self.inner.policy;
        if !policy.schemes.contains(url.scheme()) {
            return Err(NetError::Refused(format!(
                "scheme {:?} is not allowed",
                url.scheme()
            )));
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err(NetError::Refused(
                "URLs with credentials (user:password@) are not fetched".to_owned(),
            ));
        }
        let host = url
            .host_str()
            .ok_or_else(|| NetError::InvalidUrl("no host".to_owned()))?;
        let port = url.port_or_known_default().unwrap_or(0);
        if policy.origin_allowed(url.scheme(), host, port) {
            return Ok(());
        }
        if !policy.host_allowed(host) {
            return Err(NetError::Refused(format!("host {host} is not allowed")));
        }
        if !policy.ports.is_empty() && !policy.ports.contains(&port) {
            return Err(NetError::Refused(format!("port {port} is not allowed")));
        }
        Ok(())
    }

    /// One HTTP exchange, up to the response head.
    async fn round(
        &self,
        method: &http::Method,
        url: &url::Url,
        headers: &http::HeaderMap,
        body: Bytes,
    ) -> Result<http::Response<hyper::body::Incoming>, NetError> {
        let policy = &*self.inner.policy;
        let uri: http::Uri = url
            .as_str()
            .parse()
            .map_err(|e| NetError::InvalidUrl(format!("{e}")))?;
        let mut request = http::Request::builder()
            .method(method.clone())
            .uri(uri)
            .body(Full::new(body))
            .map_err(|e| NetError::InvalidRequest(e.to_string()))?;
        *request.headers_mut() = headers.clone();
        let exchange = self.inner.client.request(request);
        let response = match tokio::time::timeout(policy.header_timeout, exchange).await {
            Ok(Ok(response)) => response,
            Ok(Err(e)) => return Err(client_error(&e, policy)),
            Err(_) => {
                return Err(NetError::Timeout {
                    phase: "waiting for the response headers",
                    limit: policy.header_timeout,
                });
            }
        };
        let head_bytes: usize = response
            .headers()
            .iter()
            .map(|(n, v)| n.as_str().len() + v.len() + 4)
            .sum();
        if head_bytes > policy.max_header_bytes {
            return Err(NetError::Transport(format!(
                "response headers larger than {} bytes",
                policy.max_header_bytes
            )));
        }
        Ok(response)
    }
}

/// The request's headers, checked once; `Accept-Encoding` asked for when the caller did not
/// (the body is then inflated by the service), a `User-Agent` when none is given.
fn request_headers(given: &[(String, String)]) -> Result<http::HeaderMap, NetError> {
    let mut headers = http::HeaderMap::new();
    for (name, value) in given {
        let name = http::HeaderName::from_bytes(name.as_bytes())
            .map_err(|_| NetError::InvalidRequest(format!("header name {name:?}")))?;
        if matches!(
            name,
            http::header::HOST | http::header::CONTENT_LENGTH | http::header::TRANSFER_ENCODING
        ) {
            continue;
        }
        let value = http::HeaderValue::from_str(value)
            .map_err(|_| NetError::InvalidRequest(format!("value of header {name}")))?;
        headers.append(name, value);
    }
    headers
        .entry(http::header::ACCEPT_ENCODING)
        .or_insert(http::HeaderValue::from_static("gzip, deflate"));
    headers
        .entry(http::header::USER_AGENT)
        .or_insert(http::HeaderValue::from_static(concat!(
            "mcp-runtime/",
            env!("CARGO_PKG_VERSION")
        )));
    Ok(headers)
}

fn parse(text: &str) -> Result<url::Url, NetError> {
    let url = url::Url::parse(text).map_err(|e| NetError::InvalidUrl(format!("{text:?}: {e}")))?;
    if url.host_str().is_none_or(str::is_empty) {
        return Err(NetError::InvalidUrl(format!("{text:?} has no host")));
    }
    Ok(url)
}

/// `scheme://host:port`, the port always written.
fn origin_of(url: &url::Url) -> String {
    format!(
        "{}://{}:{}",
        url.scheme(),
        url.host_str().unwrap_or(""),
        url.port_or_known_default().unwrap_or(0)
    )
}

/// Where a 3xx answer leads, when it is a redirect to follow.
fn redirect<B>(
    from: &url::Url,
    response: &http::Response<B>,
    max: usize,
) -> Option<Result<url::Url, NetError>> {
    if max == 0 || !matches!(response.status().as_u16(), 301 | 302 | 303 | 307 | 308) {
        return None;
    }
    let location = response.headers().get(http::header::LOCATION)?;
    Some(
        location
            .to_str()
            .ok()
            .and_then(|l| from.join(l).ok())
            .ok_or_else(|| NetError::InvalidUrl("a redirect's Location does not parse".to_owned()))
            .and_then(|u| parse(u.as_str())),
    )
}

/// The client's error, said plainly: the connector's refusal or timeout when that is what it
/// is.
fn client_error(e: &hyper_util::client::legacy::Error, policy: &NetPolicy) -> NetError {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(e);
    let mut innermost = e.to_string();
    while let Some(err) = source {
        if let Some(refusal) = err.downcast_ref::<Refusal>() {
            return NetError::Refused(refusal.to_string());
        }
        if err.downcast_ref::<ConnectTimeout>().is_some() {
            return NetError::Timeout {
                phase: "connecting",
                limit: policy.connect_timeout,
            };
        }
        if let Some(h) = err.downcast_ref::<hyper::Error>()
            && h.is_parse_too_large()
        {
            return NetError::Transport(format!(
                "response head too large (more than {} header fields or {} bytes)",
                policy.max_headers, policy.max_header_bytes
            ));
        }
        innermost = err.to_string();
        source = err.source();
    }
    NetError::Transport(innermost)
}

/// One exchange's audit event.
struct Audit<'a> {
    tool: Option<&'a str>,
    method: &'a str,
    origin: &'a str,
    started: Instant,
}

impl Audit<'_> {
    fn emit(&self, status: Option<u16>, bytes: usize, error: Option<&NetError>) {
        let tool = self.tool.unwrap_or("");
        let method = self.method;
        let origin = self.origin;
        let status = status.unwrap_or(0);
        let bytes = bytes as u64;
        let duration_ms = self.started.elapsed().as_millis() as u64;
        match error {
            None => tracing::info!(
                target: AUDIT_TARGET,
                operation = "http_request", tool, method, origin, status, bytes, duration_ms,
                outcome = "ok",
                "http request"
            ),
            Some(e) if e.is_refusal() => tracing::warn!(
                target: AUDIT_TARGET,
                operation = "http_request", tool, method, origin, status, bytes, duration_ms,
                outcome = "denied", error = e.kind_label(),
                "http request denied"
            ),
            Some(e) => tracing::info!(
                target: AUDIT_TARGET,
                operation = "http_request", tool, method, origin, status, bytes, duration_ms,
                outcome = "error", error = e.kind_label(),
                "http request failed"
            ),
        }
    }
}

/// A parameter of type `NetService` is the server's [`State<NetService>`]: give it with
/// `ServerBuilder::state(net.for_tool("name"))`.
impl FromContext for NetService {
    type Rejection = MissingState;

    fn from_context(cx: &RequestContext) -> Result<Self, MissingState> {
        State::<NetService>::from_context(cx).map(|State(net)| net)
    }

    fn missing_state(extensions: &Extensions) -> Vec<MissingState> {
        State::<NetService>::missing_state(extensions)
    }
}
