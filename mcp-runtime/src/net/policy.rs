//! What a [`NetService`](super::NetService) may reach, and how much it may take.

use std::collections::BTreeSet;
use std::time::Duration;

/// The rules of a [`NetService`](super::NetService): where requests may go and the bounds
/// on each.
///
/// By default: `http` and `https`, any host name, any port, every **public** address;
/// every non-public address refused (see the [module documentation](super)). Each rule
/// narrows that; [`allow_origin`](Self::allow_origin) is the only way to reach a non-public
/// address.
///
/// ```
/// use mcp_runtime::net::NetPolicy;
/// use std::time::Duration;
///
/// let policy = NetPolicy::new()
///     .allow_host("example.com")
///     .allow_host("*.wikipedia.org")
///     .allow_origin("http://127.0.0.1:8080")?
///     .max_response_bytes(2 << 20)
///     .total_timeout(Duration::from_secs(20));
/// assert!(policy.host_allowed("en.wikipedia.org"));
/// assert!(!policy.host_allowed("wikipedia.org.evil.test"));
/// # Ok::<(), mcp_runtime::net::NetError>(())
/// ```
#[derive(Debug, Clone)]
pub struct NetPolicy {
    pub(crate) schemes: BTreeSet<String>,
    pub(crate) hosts: Vec<HostPattern>,
    pub(crate) ports: BTreeSet<u16>,
    pub(crate) origins: Vec<Origin>,
    pub(crate) connect_timeout: Duration,
    pub(crate) header_timeout: Duration,
    pub(crate) total_timeout: Duration,
    pub(crate) max_response_bytes: usize,
    pub(crate) max_redirects: usize,
    pub(crate) max_headers: usize,
    pub(crate) max_header_bytes: usize,
    pub(crate) max_concurrent: usize,
    pub(crate) roots: Vec<Vec<u8>>,
}

/// The default of [`NetPolicy::connect_timeout`]: 5 seconds.
///
/// The three defaults are chosen for a request made inside a tool call, whose model and
/// client are waiting (clients commonly give a request 60 s, the reference fetch server a
/// fetch 30 s): an origin that never answers, or trickles its head or body a byte at a
/// time, costs a call at most 15 s, then an error the model can act on (retry, another
/// source), while an ordinary page, 10 MiB at 1 MB/s included, arrives within them.
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// The default of [`NetPolicy::header_timeout`]: 10 seconds.
pub const DEFAULT_HEADER_TIMEOUT: Duration = Duration::from_secs(10);
/// The default of [`NetPolicy::total_timeout`]: 15 seconds.
pub const DEFAULT_TOTAL_TIMEOUT: Duration = Duration::from_secs(15);
/// The default of [`NetPolicy::max_response_bytes`]: 10 MiB, counted after decompression.
pub const DEFAULT_MAX_RESPONSE_BYTES: usize = 10 << 20;
/// The default of [`NetPolicy::max_redirects`]: 5 hops.
pub const DEFAULT_MAX_REDIRECTS: usize = 5;
/// The default of [`NetPolicy::max_headers`]: 100 response header fields.
pub const DEFAULT_MAX_HEADERS: usize = 100;
/// The default of [`NetPolicy::max_header_bytes`]: 64 KiB of response head.
pub const DEFAULT_MAX_HEADER_BYTES: usize = 64 << 10;
/// The default of [`NetPolicy::max_concurrent`]: 16 requests at once per service.
pub const DEFAULT_MAX_CONCURRENT: usize = 16;

impl Default for NetPolicy {
    fn default() -> Self {
        Self {
            schemes: ["http", "https"].into_iter().map(String::from).collect(),
            hosts: Vec::new(),
            ports: BTreeSet::new(),
            origins: Vec::new(),
            connect_timeout: DEFAULT_CONNECT_TIMEOUT,
            header_timeout: DEFAULT_HEADER_TIMEOUT,
            total_timeout: DEFAULT_TOTAL_TIMEOUT,
            max_response_bytes: DEFAULT_MAX_RESPONSE_BYTES,
            max_redirects: DEFAULT_MAX_REDIRECTS,
            max_headers: DEFAULT_MAX_HEADERS,
            max_header_bytes: DEFAULT_MAX_HEADER_BYTES,
            max_concurrent: DEFAULT_MAX_CONCURRENT,
            roots: Vec::new(),
        }
    }
}

impl NetPolicy {
    /// The defaults: public addresses over `http` and `https`, the bounds of the `DEFAULT_*`
    /// constants.
    pub fn new() -> Self {
        Self::default()
    }

    /// Only these schemes (replaces the default `http`, `https`; only those two can be
    /// fetched at all, so this can only narrow).
    pub fn schemes<I, S>(mut self, schemes: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        self.schemes = schemes
            .into_iter()
            .map(|s| s.as_ref().to_ascii_lowercase())
            .filter(|s| s == "http" || s == "https")
            .collect();
        self
    }

    /// Only hosts matching these patterns (the first call turns the allowlist on): an exact
    /// name (`example.com`) or `*.domain`, which matches names *below* `domain`, not
    /// `domain` itself. ASCII-case-insensitive, a trailing dot ignored. An IP literal in a
    /// URL matches only a pattern that is the same literal. Matching a pattern never makes a
    /// non-public address reachable: that takes [`allow_origin`](Self::allow_origin).
    pub fn allow_host(mut self, pattern: impl AsRef<str>) -> Self {
        self.hosts.push(HostPattern::new(pattern.as_ref()));
        self
    }

    /// Only these ports (the first call turns the allowlist on; a URL without a port uses its
    /// scheme's: 80 or 443).
    pub fn allow_port(mut self, port: u16) -> Self {
        self.ports.insert(port);
        self
    }

    /// Allows one exact origin, `scheme://host[:port]`, at whatever address it resolves to,
    /// non-public ones included: the way to let a tool reach a service on this machine or
    /// network (`http://127.0.0.1:8080`, `http://wiki.internal`). Nothing else changes: a
    /// redirect from it to another origin is judged as any request. Fails on anything but a
    /// bare origin (a path, userinfo, a query).
    pub fn allow_origin(mut self, origin: impl AsRef<str>) -> Result<Self, super::NetError> {
        self.origins.push(Origin::parse(origin.as_ref())?);
        Ok(self)
    }

    /// How long resolving and connecting may take, all addresses together.
    pub fn connect_timeout(mut self, limit: Duration) -> Self {
        self.connect_timeout = limit;
        self
    }

    /// How long the response's head may take to arrive once the request is sent.
    pub fn header_timeout(mut self, limit: Duration) -> Self {
        self.header_timeout = limit;
        self
    }

    /// How long one request may take from start to the last byte, redirects included: the
    /// bound on a server that trickles.
    pub fn total_timeout(mut self, limit: Duration) -> Self {
        self.total_timeout = limit;
        self
    }

    /// The most body bytes a response may have, counted after decompression while they
    /// arrive: reading stops at the limit.
    pub fn max_response_bytes(mut self, limit: usize) -> Self {
        self.max_response_bytes = limit;
        self
    }

    /// How many redirects one request may follow (0: none, the 3xx answer is returned).
    pub fn max_redirects(mut self, limit: usize) -> Self {
        self.max_redirects = limit;
        self
    }

    /// The most header fields a response may have.
    pub fn max_headers(mut self, limit: usize) -> Self {
        self.max_headers = limit;
        self
    }

    /// The most bytes a response's head (status line and headers) may have; at least 8 KiB.
    pub fn max_header_bytes(mut self, limit: usize) -> Self {
        self.max_header_bytes = limit.max(8 << 10);
        self
    }

    /// How many requests the service runs at once; more wait (within their total timeout).
    pub fn max_concurrent(mut self, limit: usize) -> Self {
        self.max_concurrent = limit.max(1);
        self
    }

    /// Also trusts the certificates of `pem` (one or more `CERTIFICATE` blocks) as roots, beside
    /// Mozilla's, which are always trusted: for an internal service with its own CA behind an
    /// [`allow_origin`](Self::allow_origin). Fails when `pem` holds no certificate.
    pub fn add_root_certificates_pem(mut self, pem: &[u8]) -> Result<Self, super::NetError> {
        let certs = crate::tls::pem_certificates(pem).map_err(super::NetError::InvalidRequest)?;
        if certs.is_empty() {
            return Err(super::NetError::InvalidRequest(
                "root certificate PEM: no CERTIFICATE block".to_owned(),
            ));
        }
        self.roots.extend(certs.iter().map(|cert| cert.to_vec()));
        Ok(self)
    }

    /// Whether a host name (or IP literal, as written in a URL) passes the host allowlist.
    pub fn host_allowed(&self, host: &str) -> bool {
        self.hosts.is_empty() || self.hosts.iter().any(|p| p.matches(host))
    }

    /// Whether `scheme://host:port` is one of the origins allowed exactly.
    pub(crate) fn origin_allowed(&self, scheme: &str, host: &str, port: u16) -> bool {
        let host = normalize(host);
        self.origins
            .iter()
            .any(|o| o.scheme == scheme && o.host == host && o.port == port)
    }
}

/// `example.com` or `*.example.com`.
#[derive(Debug, Clone)]
pub(crate) struct HostPattern {
    /// The name, lowercase, without a trailing dot.
    name: String,
    /// `*.` patterns: names strictly below `name`.
    below: bool,
}

impl HostPattern {
    fn new(pattern: &str) -> Self {
        let (below, name) = match pattern.strip_prefix("*.") {
            Some(rest) => (true, rest),
            None => (false, pattern),
        };
        Self {
            name: normalize(name),
            below,
        }
    }

    fn matches(&self, host: &str) -> bool {
        let host = normalize(host);
        if self.below {
            host.len() > self.name.len() + 1
                && host.ends_with(&self.name)
                && host.as_bytes()[host.len() - self.name.len() - 1] == b'.'
        } else {
            host == self.name
        }
    }
}

/// A host as compared: lowercase, no trailing dot, IPv6 without brackets.
fn normalize(host: &str) -> String {
    let host = host.strip_suffix('.').unwrap_or(host);
    let host = host
        .strip_prefix('[')
        .and_then(|h| h.strip_suffix(']'))
        .unwrap_or(host);
    host.to_ascii_lowercase()
}

/// An origin allowed exactly.
#[derive(Debug, Clone)]
pub(crate) struct Origin {
    scheme: String,
    host: String,
    port: u16,
}

impl Origin {
    fn parse(text: &str) -> Result<Self, super::NetError> {
        let bad = |why: &str| super::NetError::InvalidUrl(format!("origin {text:?}: {why}"));
        let url = url::Url::parse(text).map_err(|e| bad(&e.to_string()))?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(bad("only http and https origins"));
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err(bad("userinfo is not part of an origin"));
        }
        if url.path() != "/" || url.query().is_some() || url.fragment().is_some() {
            return Err(bad("an origin is scheme://host[:port], nothing after"));
        }
        let host = url.host_str().ok_or_else(|| bad("no host"))?;
        Ok(Self {
            scheme: url.scheme().to_owned(),
            host: normalize(host),
            port: url.port_or_known_default().ok_or_else(|| bad("no port"))?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::NetPolicy;

    #[test]
    fn host_patterns() {
        let p = NetPolicy::new()
            .allow_host("Example.com")
            .allow_host("*.docs.rs");
        assert!(p.host_allowed("example.com"));
        assert!(p.host_allowed("EXAMPLE.COM."));
        assert!(!p.host_allowed("www.example.com"));
        assert!(p.host_allowed("a.docs.rs"));
        assert!(p.host_allowed("a.b.docs.rs"));
        assert!(!p.host_allowed("docs.rs"));
        assert!(!p.host_allowed("evildocs.rs"));
        assert!(!p.host_allowed("docs.rs.evil.test"));
        assert!(NetPolicy::new().host_allowed("anything.test"));
    }

    #[test]
    fn origins_are_exact() {
        let p = NetPolicy::new()
            .allow_origin("http://127.0.0.1:8080")
            .unwrap()
            .allow_origin("https://wiki.internal")
            .unwrap()
            .allow_origin("http://[::1]:9000")
            .unwrap();
        assert!(p.origin_allowed("http", "127.0.0.1", 8080));
        assert!(!p.origin_allowed("https", "127.0.0.1", 8080));
        assert!(!p.origin_allowed("http", "127.0.0.1", 8081));
        assert!(p.origin_allowed("https", "WIKI.internal", 443));
        assert!(!p.origin_allowed("http", "wiki.internal", 80));
        assert!(p.origin_allowed("http", "[::1]", 9000));
        for bad in [
            "http://127.0.0.1:8080/path",
            "http://user@127.0.0.1",
            "ftp://127.0.0.1",
            "http://127.0.0.1/?q",
            "127.0.0.1:8080",
        ] {
            assert!(
                NetPolicy::new().allow_origin(bad).is_err(),
                "{bad} accepted"
            );
        }
    }
}
