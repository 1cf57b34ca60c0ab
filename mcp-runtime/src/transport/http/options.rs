//! [`HttpOptions`]: everything about the HTTP transport that a deployment may tune. Every
//! default is the safe one.

use super::auth::Authenticator;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

/// How clients of the 2025 revisions (the `initialize` handshake) are served.
///
/// Modern (2026-07-28) requests are stateless in both modes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LegacyMode {
    /// `initialize` opens a session named by an `Mcp-Session-Id` (256 random bits); the
    /// client gets a GET stream for server-initiated messages (`tools/list_changed`), may
    /// end the session with DELETE, and its capabilities from `initialize` apply to every
    /// later request. Idle sessions expire and their number is capped. Behind a load
    /// balancer this mode needs sticky routing on `Mcp-Session-Id`.
    ///
    /// The default: it gives 2025 clients everything they expect from one server process
    /// (what a local deployment is), and the official Python SDK defaults to it too.
    #[default]
    Sessionful,
    /// Every POST is a throwaway session: `initialize` is answered but nothing is kept, no
    /// session id is minted, and GET and DELETE get 405. Later requests are served under
    /// the version in their `MCP-Protocol-Version` header, with no client capabilities.
    /// Any instance can serve any request, so replicas behind a plain load balancer work.
    /// The official TypeScript SDK's default.
    Stateless,
}

/// Which `Host` and `Origin` values the endpoint accepts (DNS-rebinding protection).
///
/// By default a request is accepted when its `Host` is `localhost` or an IP address
/// (a rebinding attack needs a DNS name) and its `Origin`, if it has one, is a loopback
/// origin or the same host and port as `Host`. Deployments reached through a DNS name
/// list it with [`allow_host`](HttpOptions::allow_host); browsers on other origins with
/// [`allow_origin`](HttpOptions::allow_origin).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct HostPolicy {
    /// Extra host names, `name` (any port) or `name:port`, lowercase.
    pub(crate) hosts: Vec<String>,
    /// Extra origins, `scheme://host[:port]`, lowercase.
    pub(crate) origins: Vec<String>,
    /// Accept any `Host` and `Origin` (only behind something that checks them).
    pub(crate) disabled: bool,
}

/// Options of the Streamable HTTP transport. Build with [`HttpOptions::default`] and the
/// methods below.
///
/// ```
/// use mcp_runtime::transport::http::{HttpOptions, LegacyMode};
/// use std::time::Duration;
///
/// let options = HttpOptions::default()
///     .legacy_mode(LegacyMode::Stateless)
///     .allow_host("mcp.example.com")
///     .max_body_bytes(1 << 20)
///     .session_idle_timeout(Duration::from_secs(600));
/// assert_eq!(options.path(), "/mcp");
/// ```
#[derive(Clone)]
pub struct HttpOptions {
    pub(crate) path: String,
    pub(crate) legacy: LegacyMode,
    pub(crate) hosts: HostPolicy,
    pub(crate) max_body_bytes: usize,
    pub(crate) header_read_timeout: Duration,
    pub(crate) body_read_timeout: Duration,
    pub(crate) max_concurrent_requests: usize,
    pub(crate) max_concurrent_bodies: usize,
    pub(crate) max_requests_per_caller: usize,
    pub(crate) write_timeout: Duration,
    pub(crate) max_connections: usize,
    pub(crate) max_streams: usize,
    pub(crate) trusted_proxies: Vec<ipnet::IpNet>,
    pub(crate) rate_per_caller: Option<crate::tool::Rate>,
    pub(crate) max_sessions: usize,
    pub(crate) max_sessions_per_caller: usize,
    pub(crate) max_session_lifetime: Duration,
    pub(crate) max_stream_lifetime: Duration,
    pub(crate) session_idle_timeout: Duration,
    pub(crate) keep_alive: Duration,
    pub(crate) shutdown_grace: Duration,
    pub(crate) auth: Option<Arc<dyn Authenticator>>,
}

/// The default request body cap: 4 MiB.
pub const DEFAULT_MAX_BODY_BYTES: usize = 4 * 1024 * 1024;

impl Default for HttpOptions {
    fn default() -> Self {
        Self {
            path: "/mcp".to_owned(),
            legacy: LegacyMode::default(),
            hosts: HostPolicy::default(),
            max_body_bytes: DEFAULT_MAX_BODY_BYTES,
            header_read_timeout: Duration::from_secs(10),
            body_read_timeout: Duration::from_secs(30),
            max_concurrent_requests: 256,
            max_concurrent_bodies: 1024,
            max_requests_per_caller: 64,
            write_timeout: Duration::from_secs(30),
            max_connections: 2048,
            max_streams: 512,
            trusted_proxies: Vec::new(),
            rate_per_caller: None,
            max_sessions: 1024,
            max_sessions_per_caller: 32,
            max_session_lifetime: Duration::from_secs(24 * 60 * 60),
            max_stream_lifetime: Duration::from_secs(60 * 60),
            session_idle_timeout: Duration::from_secs(30 * 60),
            keep_alive: Duration::from_secs(15),
            shutdown_grace: Duration::from_secs(10),
            auth: None,
        }
    }
}

impl fmt::Debug for HttpOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpOptions")
            .field("path", &self.path)
            .field("legacy", &self.legacy)
            .field("hosts", &self.hosts)
            .field("max_body_bytes", &self.max_body_bytes)
            .field("max_concurrent_requests", &self.max_concurrent_requests)
            .field("max_concurrent_bodies", &self.max_concurrent_bodies)
            .field("max_requests_per_caller", &self.max_requests_per_caller)
            .field("max_connections", &self.max_connections)
            .field("max_streams", &self.max_streams)
            .field("trusted_proxies", &self.trusted_proxies)
            .field("rate_per_caller", &self.rate_per_caller)
            .field("max_sessions", &self.max_sessions)
            .field("auth", &self.auth.is_some())
            .finish_non_exhaustive()
    }
}

impl HttpOptions {
    /// The endpoint's path for [`HttpServer`](super::HttpServer) (default `/mcp`). A
    /// service mounted in your own router answers wherever you mount it.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// Sets the endpoint's path (must start with `/`).
    pub fn with_path(mut self, path: impl Into<String>) -> Self {
        let path = path.into();
        self.path = if path.starts_with('/') {
            path
        } else {
            format!("/{path}")
        };
        self
    }

    /// How 2025-era clients are served (default [`LegacyMode::Sessionful`]).
    pub fn legacy_mode(mut self, mode: LegacyMode) -> Self {
        self.legacy = mode;
        self
    }

    /// Also accepts this `Host`: `name` (any port) or `name:port`, e.g. the DNS name a
    /// load balancer or Kubernetes Service is reached by.
    pub fn allow_host(mut self, host: impl Into<String>) -> Self {
        self.hosts.hosts.push(host.into().to_ascii_lowercase());
        self
    }

    /// Also accepts this `Origin` (`https://app.example.com`), for browser-based clients.
    pub fn allow_origin(mut self, origin: impl Into<String>) -> Self {
        let origin = origin.into().to_ascii_lowercase();
        self.hosts
            .origins
            .push(origin.trim_end_matches('/').to_owned());
        self
    }

    /// Accepts any `Host` and `Origin`. Only for an endpoint behind a proxy or gateway that
    /// validates them itself: without the check, a web page can reach a local server
    /// through DNS rebinding.
    pub fn disable_host_check(mut self) -> Self {
        self.hosts.disabled = true;
        self
    }

    /// The largest request body accepted (default 4 MiB); a larger one gets 413.
    pub fn max_body_bytes(mut self, bytes: usize) -> Self {
        self.max_body_bytes = bytes;
        self
    }

    /// How long a client may take to send a request's headers, including the wait for the
    /// next request on an idle keep-alive connection (default 10 s; [`HttpServer`] only).
    ///
    /// [`HttpServer`]: super::HttpServer
    pub fn header_read_timeout(mut self, timeout: Duration) -> Self {
        self.header_read_timeout = timeout;
        self
    }

    /// How long a client may take to send a request's body (default 30 s); a slower one
    /// gets 408.
    pub fn body_read_timeout(mut self, timeout: Duration) -> Self {
        self.body_read_timeout = timeout;
        self
    }

    /// How many POSTs are handled at once, streams included (default 256); the next one
    /// gets 503 with `Retry-After`. With the body cap this bounds the memory requests use.
    /// A request counts from the moment its body has arrived until its response has been
    /// written out: bodies still arriving count separately
    /// ([`max_concurrent_bodies`](Self::max_concurrent_bodies)), so slow uploads cannot
    /// lock out the requests that are ready.
    pub fn max_concurrent_requests(mut self, requests: usize) -> Self {
        self.max_concurrent_requests = requests.max(1);
        self
    }

    /// How many request bodies may be arriving at once (default 1024); the next POST gets
    /// 503. Each is also bounded by [`body_read_timeout`](Self::body_read_timeout) and
    /// [`max_body_bytes`](Self::max_body_bytes).
    pub fn max_concurrent_bodies(mut self, bodies: usize) -> Self {
        self.max_concurrent_bodies = bodies.max(1);
        self
    }

    /// How many requests one caller may have at once, from the first byte of a body to the
    /// last byte of its response, open streams (`subscriptions/listen`, a session's GET
    /// stream) included (default 64); the next one gets 429 with `Retry-After`. A caller is
    /// its authenticated identity, else its IP address (known when served by
    /// [`HttpServer`](super::HttpServer), which records it; a service mounted elsewhere
    /// without axum's `ConnectInfo` has no per-caller cap). So one caller cannot take every
    /// slot of [`max_concurrent_requests`](Self::max_concurrent_requests).
    pub fn max_requests_per_caller(mut self, requests: usize) -> Self {
        self.max_requests_per_caller = requests.max(1);
        self
    }

    /// How long one write to a client may stay blocked (default 30 s): a client that stops
    /// reading its response or stream is disconnected then, and what it held is released
    /// ([`HttpServer`](super::HttpServer) only).
    pub fn write_timeout(mut self, timeout: Duration) -> Self {
        self.write_timeout = timeout;
        self
    }

    /// How many long-lived streams are open at once (default 512): legacy GET streams and
    /// `subscriptions/listen` streams. They have a pool of their own, so streams held open
    /// never take the permits requests need ([`max_concurrent_requests`](Self::max_concurrent_requests));
    /// past it a new stream gets 503.
    pub fn max_streams(mut self, streams: usize) -> Self {
        self.max_streams = streams.max(1);
        self
    }

    /// At most `rate` JSON-RPC requests per caller (an authenticated identity, else the
    /// client's network: see [`trust_proxy`](Self::trust_proxy) behind a proxy), as
    /// `governor`'s GCRA (a burst of the count, one more each period / count). A request
    /// over it gets 429 with `Retry-After` and is not dispatched; notifications and the
    /// client's answers to the server's questions are not counted. None by default.
    ///
    /// ```
    /// use mcp_runtime::tool::Rate;
    /// use mcp_runtime::transport::http::HttpOptions;
    ///
    /// let options = HttpOptions::default().rate_limit_per_caller(Rate::per_minute(600));
    /// # let _ = options;
    /// ```
    pub fn rate_limit_per_caller(mut self, rate: crate::tool::Rate) -> Self {
        self.rate_per_caller = Some(rate);
        self
    }

    /// Trusts `network` (`10.0.0.0/8`, `192.0.2.7`, `fd00::/8`) as a proxy in front of the
    /// server: for a request that comes from it, the client's address is taken from
    /// `Forwarded: for=` or `X-Forwarded-For` (the nearest address there that is not a
    /// trusted proxy itself). From any other peer those headers are ignored, so a client
    /// cannot claim another's address. Per-caller limits, rate limits and the audit use the
    /// client's address.
    ///
    /// # Panics
    ///
    /// When `network` is neither an address nor a CIDR network (a programming error in a
    /// fixed configuration; parse user input with `str::parse::<ipnet::IpNet>` first).
    ///
    /// ```
    /// use mcp_runtime::transport::http::HttpOptions;
    ///
    /// let options = HttpOptions::default().trust_proxy("10.0.0.0/8");
    /// # let _ = options;
    /// ```
    pub fn trust_proxy(mut self, network: &str) -> Self {
        let net = network
            .parse::<ipnet::IpNet>()
            .or_else(|_| network.parse::<std::net::IpAddr>().map(ipnet::IpNet::from))
            .unwrap_or_else(|_| panic!("{network:?} is neither an IP address nor a CIDR network"));
        self.trusted_proxies.push(net);
        self
    }

    /// How many connections are open at once (default 2048; [`HttpServer`](super::HttpServer)
    /// only). At the cap, every connection is asked to end gracefully: idle ones (keep-alives
    /// waiting for a request, connections that never sent one) close at once, busy ones
    /// after their response, and new connections take their place; they wait in the listen
    /// backlog meanwhile.
    pub fn max_connections(mut self, connections: usize) -> Self {
        self.max_connections = connections.max(1);
        self
    }

    /// How many legacy sessions may exist at once (default 1024). At the cap, an
    /// `initialize` first sweeps expired sessions, then ends the session idle the longest
    /// (its client gets 404 on its next request, which tells it to initialize again); only
    /// when every session has a request in flight or a stream open does it get 503.
    /// Sessionful mode only.
    pub fn max_sessions(mut self, sessions: usize) -> Self {
        self.max_sessions = sessions.max(1);
        self
    }

    /// How many legacy sessions one caller (identity, else IP address; see
    /// [`max_requests_per_caller`](Self::max_requests_per_caller)) may have (default 32). Its
    /// next `initialize` ends its own session idle the longest, or gets 429 when all of
    /// them are in use; other callers' sessions are never touched for it.
    pub fn max_sessions_per_caller(mut self, sessions: usize) -> Self {
        self.max_sessions_per_caller = sessions.max(1);
        self
    }

    /// How long a legacy session may live, busy or not (default 24 h); then it ends and
    /// its client initializes again.
    pub fn max_session_lifetime(mut self, lifetime: Duration) -> Self {
        self.max_session_lifetime = lifetime;
        self
    }

    /// How long a session's GET stream stays open (default 1 h); then it ends and the
    /// client opens another (messages sent meanwhile wait for it).
    pub fn max_stream_lifetime(mut self, lifetime: Duration) -> Self {
        self.max_stream_lifetime = lifetime;
        self
    }

    /// How long a legacy session may go without requests (and without an open GET stream)
    /// before it expires (default 30 min). A request naming an expired session gets 404,
    /// which tells a 2025 client to initialize again.
    pub fn session_idle_timeout(mut self, timeout: Duration) -> Self {
        self.session_idle_timeout = timeout;
        self
    }

    /// The interval of SSE keep-alive comments on quiet streams (default 15 s), so proxies
    /// with an idle timeout keep them open. A request still running after one interval
    /// without having sent a notification is switched to an SSE stream for the same reason.
    pub fn keep_alive(mut self, interval: Duration) -> Self {
        self.keep_alive = interval.max(Duration::from_millis(10));
        self
    }

    /// How long a graceful shutdown waits for in-flight requests (default 10 s).
    pub fn shutdown_grace(mut self, grace: Duration) -> Self {
        self.shutdown_grace = grace;
        self
    }

    /// Checks every request's credentials with `auth` before anything else is read.
    pub fn auth(mut self, auth: impl Authenticator) -> Self {
        self.auth = Some(Arc::new(auth));
        self
    }
}
