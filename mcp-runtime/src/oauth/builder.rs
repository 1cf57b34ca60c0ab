//! [`OAuthBuilder`]: what an [`OAuth`] verifies and how (issuer, audience, algorithms,
//! clock leeway, key and introspection caching, limits), checked at
//! [`build`](OAuthBuilder::build).

use super::claims::ClaimRules;
use super::{Inner, KeepVerified, OAuth, OAuthError, VERIFIED_CAPACITY, introspect, keys};
use crate::context::{MemoryNonces, SpentNonces};
use crate::net::{NetPolicy, NetService};
use crate::transport::http::ProtectedResource;
use jsonwebtoken::{Algorithm, AlgorithmFamily};
use std::sync::Arc;
use std::time::Duration;

/// Builds an [`OAuth`]: [`OAuth::issuer`], then [`audience`](Self::audience), then
/// [`build`](Self::build).
#[derive(Clone)]
#[must_use]
pub struct OAuthBuilder {
    issuer: String,
    audience: Option<String>,
    any_audience: bool,
    algorithms: Vec<Algorithm>,
    leeway: Duration,
    scopes_supported: Vec<String>,
    jwks_max_age: Duration,
    jwks_min_refresh: Duration,
    serve_stale_for: Duration,
    introspection: Option<(String, String)>,
    introspection_ttl: Duration,
    introspection_capacity: u64,
    max_token_bytes: usize,
    timeout: Duration,
    net: Option<NetService>,
    resource_name: Option<String>,
    verified_ttl: Duration,
    strict_type: bool,
    rules: ClaimRules,
    metadata_url: Option<String>,
    authorization_server: Option<String>,
    dpop_replays: Option<Arc<dyn SpentNonces>>,
}

/// The algorithms accepted unless [`OAuthBuilder::algorithms`] says otherwise: every
/// asymmetric one `jsonwebtoken` verifies.
pub const DEFAULT_ALGORITHMS: [Algorithm; 9] = [
    Algorithm::RS256,
    Algorithm::RS384,
    Algorithm::RS512,
    Algorithm::PS256,
    Algorithm::PS384,
    Algorithm::PS512,
    Algorithm::ES256,
    Algorithm::ES384,
    Algorithm::EdDSA,
];

impl std::fmt::Debug for OAuthBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuthBuilder")
            .field("issuer", &self.issuer)
            .field("audience", &self.audience)
            .field("algorithms", &self.algorithms)
            .field("rules", &self.rules)
            .field("metadata_url", &self.metadata_url)
            .field("dpop_replays", &self.dpop_replays.is_some())
            .finish_non_exhaustive()
    }
}

impl OAuthBuilder {
    /// The defaults, for tokens `issuer` issues ([`OAuth::issuer`]).
    pub(super) fn new(issuer: String) -> Self {
        Self {
            issuer,
            audience: None,
            any_audience: false,
            algorithms: DEFAULT_ALGORITHMS.to_vec(),
            leeway: Duration::from_secs(60),
            scopes_supported: Vec::new(),
            jwks_max_age: Duration::from_secs(3600),
            jwks_min_refresh: Duration::from_secs(30),
            serve_stale_for: Duration::from_secs(3600),
            introspection: None,
            introspection_ttl: Duration::from_secs(300),
            introspection_capacity: 10_000,
            max_token_bytes: 16 * 1024,
            timeout: Duration::from_secs(10),
            net: None,
            resource_name: None,
            verified_ttl: Duration::from_secs(300),
            strict_type: false,
            rules: ClaimRules::default(),
            metadata_url: None,
            authorization_server: None,
            dpop_replays: None,
        }
    }

    /// The canonical URI of this server, which tokens' `aud` must contain (RFC 8707): its
    /// public MCP endpoint URL, e.g. `https://mcp.example.com/mcp`. Also the `resource` of
    /// the published metadata. A trailing `/` is not significant.
    pub fn audience(mut self, audience: impl Into<String>) -> Self {
        self.audience = Some(audience.into());
        self
    }

    /// Also accepts tokens whose `aud` names `audience` (any string, not only a URL): the
    /// identifier the authorization server puts in tokens for this server when it is not
    /// its URL (Entra ID's application ID, an Auth0 API identifier, Okta's
    /// `api://default`). The published metadata keeps [`audience`](Self::audience).
    pub fn accept_audience(mut self, audience: impl Into<String>) -> Self {
        self.rules.audiences.push(audience.into());
        self
    }

    /// Also accepts this spelling of the issuer in `iss` (Google's ID tokens say
    /// `accounts.google.com` as often as `https://accounts.google.com`).
    pub fn also_issuer(mut self, issuer: impl Into<String>) -> Self {
        self.rules.also_issuers.push(issuer.into());
        self
    }

    /// Refuses tokens whose claim `claim` is not the string `value` (Entra ID's `tid`
    /// tenant and `ver` token version, Google's `hd` Workspace domain); checked with the
    /// claims that need no key, before the signature (and on introspection answers).
    pub fn require_claim(mut self, claim: impl Into<String>, value: impl Into<String>) -> Self {
        self.rules.required.push((claim.into(), value.into()));
        self
    }

    /// Also counts the values of `claim` (a list, or a space-separated string) as the
    /// caller's scopes, beside `scope`/`scp`: Entra ID's `roles` (an application's
    /// permissions), Auth0's `permissions`. A dotted name reaches into objects
    /// (`realm_access.roles`).
    pub fn scopes_from_claim(mut self, claim: impl Into<String>) -> Self {
        self.rules.scope_claims.push(claim.into());
        self
    }

    /// Fetches the issuer's metadata from this URL instead of discovering it from the
    /// issuer's (for an issuer whose tokens name a host that serves no metadata, like
    /// Entra ID's v1 `https://sts.windows.net/{tenant}/`). The document must still name the
    /// issuer.
    pub fn metadata_url(mut self, url: impl Into<String>) -> Self {
        self.metadata_url = Some(url.into());
        self
    }

    /// The authorization server the published metadata sends clients to, when it is not
    /// the issuer (Entra ID v1 tokens are obtained from the v2 endpoint).
    pub fn authorization_server(mut self, url: impl Into<String>) -> Self {
        self.authorization_server = Some(url.into());
        self
    }

    /// Where the `jti`s of DPoP proofs already used are kept ([`dpop`](super::dpop)): in
    /// this process by default; give every instance of a fleet the same store (its
    /// `RedisState`, which a server binary started with `--redis` uses by itself) so a
    /// proof used on one is refused on all.
    pub fn dpop_replays(mut self, store: Arc<dyn SpentNonces>) -> Self {
        self.dpop_replays = Some(store);
        self
    }

    /// [`dpop_replays`](Self::dpop_replays) unless one was given.
    pub(crate) fn dpop_replays_or(mut self, store: Option<Arc<dyn SpentNonces>>) -> Self {
        if self.dpop_replays.is_none() {
            self.dpop_replays = store;
        }
        self
    }

    /// **Turns the audience check off**: tokens the issuer made for *any* service are
    /// accepted, so a token a client obtained for another API works here too, and this
    /// server's tokens there. Only for an issuer that issues tokens for this server alone.
    /// No protected-resource metadata is published without an audience.
    pub fn dangerously_accept_any_audience(mut self) -> Self {
        self.any_audience = true;
        self
    }

    /// The signature algorithms accepted (default [`DEFAULT_ALGORITHMS`]). HMAC algorithms
    /// are refused by [`build`](Self::build).
    pub fn algorithms(mut self, algorithms: impl IntoIterator<Item = Algorithm>) -> Self {
        self.algorithms = algorithms.into_iter().collect();
        self
    }

    /// Clock skew allowed on `exp` and `nbf` (default 60 s).
    pub fn leeway(mut self, leeway: Duration) -> Self {
        self.leeway = leeway;
        self
    }

    /// The scopes this server uses, published as `scopes_supported`.
    pub fn scopes_supported<S: Into<String>>(
        mut self,
        scopes: impl IntoIterator<Item = S>,
    ) -> Self {
        self.scopes_supported = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// A name for people in the published metadata (`resource_name`).
    pub fn resource_name(mut self, name: impl Into<String>) -> Self {
        self.resource_name = Some(name.into());
        self
    }

    /// How long fetched keys are used before they are fetched again (default 1 h).
    pub fn jwks_max_age(mut self, age: Duration) -> Self {
        self.jwks_max_age = age;
        self
    }

    /// The least time between two fetches of the keys when tokens name unknown keys
    /// (default 30 s): bounds what tokens with made-up `kid`s cost the issuer.
    pub fn jwks_min_refresh(mut self, interval: Duration) -> Self {
        self.jwks_min_refresh = interval;
        self
    }

    /// How long past their age cached keys still serve while the issuer is unreachable
    /// (default 1 h); after that, requests get 503.
    pub fn serve_stale_for(mut self, time: Duration) -> Self {
        self.serve_stale_for = time;
        self
    }

    /// Introspects opaque (non-JWT) tokens at the issuer's `introspection_endpoint`,
    /// authenticating as `client_id` with `client_secret` (HTTP Basic, RFC 7662 §2.1).
    pub fn introspection(
        mut self,
        client_id: impl Into<String>,
        client_secret: impl Into<String>,
    ) -> Self {
        self.introspection = Some((client_id.into(), client_secret.into()));
        self
    }

    /// Accepts only JWTs whose header says they are access tokens (`typ` `at+jwt`, RFC 9068
    /// §4). Off by default, since many issuers still type theirs `JWT`: without it a `typ`
    /// of `at+jwt`, `JWT` or none is accepted and any other (`logout+jwt`, `secevent+jwt`,
    /// `dpop+jwt`, ...: tokens made for something else) refused.
    pub fn require_access_token_type(mut self, strict: bool) -> Self {
        self.strict_type = strict;
        self
    }

    /// How long an introspection answer is kept at most (never past the token's `exp`;
    /// default 5 min) and how many are kept (default 10 000).
    pub fn introspection_cache(mut self, ttl: Duration, capacity: u64) -> Self {
        self.introspection_ttl = ttl;
        self.introspection_capacity = capacity;
        self
    }

    /// How long a verified JWT is remembered (by its SHA-256, never past its `exp`; default
    /// 5 min), so that a client sending the same token with every request pays for its
    /// signature once. `Duration::ZERO` verifies every request's token afresh.
    pub fn remember_verified(mut self, ttl: Duration) -> Self {
        self.verified_ttl = ttl;
        self
    }

    /// The longest token accepted (default 16 KiB); longer ones are refused unread.
    pub fn max_token_bytes(mut self, limit: usize) -> Self {
        self.max_token_bytes = limit;
        self
    }

    /// How long a request to the issuer may take (default 10 s), discovery, keys and
    /// introspection alike; also the budget of one whole fetch (discovery with all of its
    /// candidate documents, then the JWKS). One fetch runs at a time: requests that need
    /// keys while it runs wait for it at most 1 s, and after a failure the issuer is not
    /// asked again for 1 s (with keys cached: `jwks_min_refresh`), doubled for each failure
    /// in a row up to 60 s; meanwhile requests get 503 at once.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Reaches the issuer through `net` instead of a service built for it (another policy,
    /// a proxy-free resolver, tests).
    pub fn net(mut self, net: NetService) -> Self {
        self.net = Some(net);
        self
    }

    /// Checks the configuration and builds the authenticator. Nothing is fetched yet (see
    /// [`OAuth::prefetch`]).
    pub fn build(self) -> Result<OAuth, OAuthError> {
        if let Some((id, secret)) = &self.introspection {
            if id.is_empty() {
                return Err(OAuthError::IntrospectionClient("the client id"));
            }
            if secret.is_empty() {
                return Err(OAuthError::IntrospectionClient("the client secret"));
            }
        }
        let issuer_url = url::Url::parse(&self.issuer).map_err(|_| OAuthError::Issuer {
            url: self.issuer.clone(),
            why: "is not an absolute URL",
        })?;
        match issuer_url.scheme() {
            "https" => {}
            "http" if is_loopback(&issuer_url) => {}
            "http" => {
                return Err(OAuthError::Issuer {
                    url: self.issuer,
                    why: "uses http:// on a host that is not loopback (tokens and keys must come over https)",
                });
            }
            _ => {
                return Err(OAuthError::Issuer {
                    url: self.issuer,
                    why: "is not an https:// URL",
                });
            }
        }
        if issuer_url.query().is_some() || issuer_url.fragment().is_some() {
            return Err(OAuthError::Issuer {
                url: self.issuer,
                why: "has a query or fragment (RFC 8414 forbids them)",
            });
        }
        let audience = match (self.audience, self.any_audience) {
            (Some(audience), _) => {
                let ok = url::Url::parse(&audience)
                    .is_ok_and(|u| matches!(u.scheme(), "https" | "http") && u.has_host());
                if !ok {
                    return Err(OAuthError::Audience { url: audience });
                }
                Some(audience)
            }
            (None, true) => None,
            (None, false) => return Err(OAuthError::NoAudience),
        };
        if self.algorithms.is_empty() {
            return Err(OAuthError::NoAlgorithms);
        }
        if let Some(alg) = self
            .algorithms
            .iter()
            .find(|a| a.family() == AlgorithmFamily::Hmac)
        {
            return Err(OAuthError::Algorithm(*alg));
        }
        let metadata_origin = match &self.metadata_url {
            None => None,
            Some(url) => Some(
                url::Url::parse(url)
                    .map_err(|_| OAuthError::Issuer {
                        url: url.clone(),
                        why: "(its metadata URL) is not an absolute URL",
                    })?
                    .origin()
                    .ascii_serialization(),
            ),
        };
        let net = match self.net {
            Some(net) => net,
            None => NetService::new(
                metadata_origin
                    .into_iter()
                    .try_fold(NetPolicy::new(), |policy, origin| {
                        policy.allow_origin(origin)
                    })?
                    .allow_origin(issuer_url.origin().ascii_serialization())?
                    .connect_timeout(self.timeout)
                    .total_timeout(self.timeout)
                    .max_response_bytes(1024 * 1024)
                    .max_redirects(0),
            )?,
        }
        .for_tool("oauth");
        let resource = audience.as_ref().map(|audience| {
            let server = self.authorization_server.as_ref().unwrap_or(&self.issuer);
            let mut resource = ProtectedResource::new(audience.clone())
                .authorization_server(server.clone())
                .scopes_supported(self.scopes_supported.clone())
                // DPoP proofs are checked with the algorithms tokens are.
                .dpop_signing_algs(self.algorithms.iter().map(|a| format!("{a:?}")));
            if let Some(name) = &self.resource_name {
                resource = resource.resource_name(name.clone());
            }
            resource
        });
        let keys = keys::KeyStore::new(
            net.clone(),
            self.issuer.clone(),
            self.metadata_url,
            self.algorithms.clone(),
            keys::Ages {
                max_age: self.jwks_max_age,
                min_refresh: self.jwks_min_refresh,
                serve_stale_for: self.serve_stale_for,
            },
            self.timeout,
        );
        let introspection = self.introspection.map(|(id, secret)| {
            introspect::Introspector::new(
                net,
                id,
                secret,
                self.introspection_ttl,
                self.introspection_capacity,
            )
        });
        Ok(OAuth {
            inner: Arc::new(Inner {
                metadata_url: resource.as_ref().map(ProtectedResource::metadata_url),
                issuer: self.issuer,
                audience_origin: audience
                    .as_deref()
                    .and_then(|a| url::Url::parse(a).ok())
                    .map(|u| u.origin().ascii_serialization()),
                audience,
                algorithms: self.algorithms.clone(),
                leeway: self.leeway,
                max_token_bytes: self.max_token_bytes,
                keys,
                introspection,
                resource,
                verified_ttl: self.verified_ttl,
                strict_type: self.strict_type,
                rules: self.rules,
                dpop: super::dpop::Proofs {
                    replays: self
                        .dpop_replays
                        .unwrap_or_else(|| Arc::new(MemoryNonces::default())),
                    algorithms: self.algorithms,
                    leeway: self.leeway,
                },
                verified: moka::sync::Cache::builder()
                    .max_capacity(VERIFIED_CAPACITY)
                    .expire_after(KeepVerified)
                    .build(),
            }),
        })
    }
}

fn is_loopback(url: &url::Url) -> bool {
    match url.host() {
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        Some(url::Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
        None => false,
    }
}
