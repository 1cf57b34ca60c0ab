//! The issuer's metadata (discovered once) and its signing keys (cached, refreshed on age and
//! on unknown `kid`s, served stale for a bounded time while the issuer is unreachable).

use super::flight::Flight;
use super::signature::PublicKey;
use crate::net::{NetRequest, NetService};
use crate::transport::http::AuthError;
use futures::FutureExt as _;
use jsonwebtoken::Algorithm;
use jsonwebtoken::jwk::{Jwk, KeyOperations, PublicKeyUse};
use std::sync::{Arc, Mutex, OnceLock, RwLock};
use std::time::{Duration, Instant};

/// How long keys are trusted, and how often they may be fetched.
pub(super) struct Ages {
    pub(super) max_age: Duration,
    pub(super) min_refresh: Duration,
    pub(super) serve_stale_for: Duration,
}

/// What the issuer's metadata says about where to go.
#[derive(Debug)]
pub(super) struct Endpoints {
    pub(super) jwks_uri: Option<String>,
    pub(super) introspection_endpoint: Option<String>,
}

/// The most keys kept from one JWKS; issuers publish a handful.
const MAX_KEYS: usize = 64;

/// How soon a fetch is tried again after a failure when no keys are cached (doubled for
/// each failure in a row, [`flight`](super::flight)); with keys cached the gap is
/// `jwks_min_refresh`.
const RETRY_WITHOUT_KEYS: Duration = Duration::from_secs(1);

pub(super) struct KeyStore {
    issuer: Arc<Issuer>,
    ages: Ages,
    current: RwLock<Option<Arc<KeySet>>>,
    /// The JWKS fetch (discovery first, when not yet done), single-flight.
    refresh: Flight<Arc<KeySet>>,
    /// When the last key fetch started: with keys cached, an unknown `kid` starts one at
    /// most once per `min_refresh`.
    last_start: Mutex<Option<Instant>>,
}

/// What a fetch needs, shared with the fetch in flight (which outlives the request that
/// started it when others wait for it).
struct Issuer {
    net: NetService,
    issuer: String,
    /// Where the metadata is, when not where the issuer's URL says (`OAuthBuilder::metadata_url`).
    metadata_url: Option<String>,
    algorithms: Vec<Algorithm>,
    endpoints: OnceLock<Arc<Endpoints>>,
    discovery: Flight<Arc<Endpoints>>,
}

pub(super) struct KeySet {
    keys: Vec<Key>,
    fetched: Instant,
}

struct Key {
    kid: Option<String>,
    alg: Option<Algorithm>,
    key: Arc<PublicKey>,
}

impl KeyStore {
    /// A store for `issuer`'s keys; each fetch (discovery and the JWKS, together) gets at
    /// most `budget`.
    pub(super) fn new(
        net: NetService,
        issuer: String,
        metadata_url: Option<String>,
        algorithms: Vec<Algorithm>,
        ages: Ages,
        budget: Duration,
    ) -> Self {
        Self {
            issuer: Arc::new(Issuer {
                net,
                issuer,
                metadata_url,
                algorithms,
                endpoints: OnceLock::new(),
                discovery: Flight::new(budget),
            }),
            ages,
            current: RwLock::new(None),
            refresh: Flight::new(budget),
            last_start: Mutex::new(None),
        }
    }

    /// The keys that may have signed a token with `kid` and `alg`: same `kid` (any, when
    /// the token names none), the algorithm's family, and the key's own `alg` if it has one.
    /// `want_new` asks for a refresh first (an unknown `kid`), at most once per
    /// `min_refresh`.
    pub(super) async fn find(
        &self,
        kid: Option<&str>,
        alg: Algorithm,
        want_new: bool,
    ) -> Result<Vec<Arc<PublicKey>>, AuthError> {
        let set = self.keys(want_new).await?;
        Ok(set
            .keys
            .iter()
            .filter(|k| k.key.fits(alg))
            .filter(|k| k.alg.is_none_or(|a| a == alg))
            .filter(|k| kid.is_none() || k.kid.as_deref() == kid)
            .map(|k| k.key.clone())
            .collect())
    }

    /// Fetches metadata and keys unless fresh ones are cached.
    pub(super) async fn prefetch(&self) -> Result<(), AuthError> {
        self.keys(false).await.map(drop)
    }

    fn cached(&self) -> Option<Arc<KeySet>> {
        self.current
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Fresh cached keys; else a fetch's (started, or the running one joined: see
    /// [`Flight::run`]); else cached keys within `serve_stale_for`; else 503.
    async fn keys(&self, want_new: bool) -> Result<Arc<KeySet>, AuthError> {
        let asked = Instant::now();
        let cached = self.cached();
        let fresh = |set: &KeySet| asked.saturating_duration_since(set.fetched) < self.ages.max_age;
        if let Some(set) = &cached
            && !want_new
            && fresh(set)
        {
            return Ok(set.clone());
        }
        let gap = match &cached {
            Some(_) => self.ages.min_refresh,
            None => RETRY_WITHOUT_KEYS,
        };
        // With keys cached, a fetch started within `min_refresh` is not repeated (an
        // unknown `kid` must not make every request ask the issuer).
        let too_soon = cached.is_some()
            && !self.refresh.is_running()
            && self
                .last_start
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .is_some_and(|last| asked.saturating_duration_since(last) < gap);
        let mut error = None;
        if !too_soon {
            let issuer = self.issuer.clone();
            let outcome = self
                .refresh
                .run(gap, || {
                    *self.last_start.lock().unwrap_or_else(|e| e.into_inner()) = Some(asked);
                    async move { issuer.fetch().await.map(Arc::new) }.boxed()
                })
                .await;
            match outcome {
                Ok(set) => {
                    let mut current = self.current.write().unwrap_or_else(|e| e.into_inner());
                    // A fetch that ended after a newer one's does not replace it.
                    if current.as_ref().is_none_or(|c| c.fetched <= set.fetched) {
                        *current = Some(set.clone());
                    }
                    return Ok(set);
                }
                Err(e) => error = Some(e),
            }
        }
        // Not fetched now: what is cached serves while it is not too old.
        match cached {
            Some(set)
                if asked.saturating_duration_since(set.fetched)
                    < self.ages.max_age + self.ages.serve_stale_for =>
            {
                Ok(set)
            }
            _ => Err(AuthError::unavailable(format!(
                "the authorization server's keys cannot be fetched ({}); try again later",
                error.as_deref().unwrap_or("no answer yet")
            ))),
        }
    }

    /// The issuer's endpoints, discovered on first use (single-flight, with the same gap
    /// after failures as keys without a cache: introspection of opaque tokens does not
    /// retry a failed discovery for each token).
    pub(super) async fn endpoints(&self) -> Result<Arc<Endpoints>, AuthError> {
        self.issuer.endpoints().await.map_err(|e| {
            AuthError::unavailable(format!(
                "the authorization server's metadata cannot be fetched ({e}); try again later"
            ))
        })
    }
}

impl Issuer {
    async fn endpoints(self: &Arc<Self>) -> Result<Arc<Endpoints>, String> {
        if let Some(endpoints) = self.endpoints.get() {
            return Ok(endpoints.clone());
        }
        let this = self.clone();
        let endpoints = self
            .discovery
            .run(RETRY_WITHOUT_KEYS, || {
                async move { this.discover().await.map(Arc::new) }.boxed()
            })
            .await?;
        Ok(self.endpoints.get_or_init(|| endpoints).clone())
    }

    /// RFC 8414 metadata, then OpenID Connect discovery (both of its forms for an issuer
    /// with a path), or only the configured metadata URL; the first document found must
    /// name this issuer exactly.
    async fn discover(&self) -> Result<Endpoints, String> {
        let url = url::Url::parse(&self.issuer).map_err(|e| e.to_string())?;
        let origin = url.origin().ascii_serialization();
        let path = url.path().trim_end_matches('/');
        let mut candidates = match &self.metadata_url {
            Some(url) => vec![url.clone()],
            None => vec![
                format!("{origin}/.well-known/oauth-authorization-server{path}"),
                format!(
                    "{}/.well-known/openid-configuration",
                    self.issuer.trim_end_matches('/')
                ),
            ],
        };
        if !path.is_empty() && self.metadata_url.is_none() {
            candidates.push(format!("{origin}/.well-known/openid-configuration{path}"));
        }
        let mut failures = Vec::new();
        for candidate in candidates {
            let document = match self.get_json(&candidate).await {
                Ok(document) => document,
                Err(e) => {
                    failures.push(e);
                    continue;
                }
            };
            let issuer = document.get("issuer").and_then(|v| v.as_str());
            if issuer != Some(self.issuer.as_str()) {
                return Err(format!(
                    "{candidate} names the issuer {issuer:?}, not {:?}",
                    self.issuer
                ));
            }
            let field = |name: &str| {
                document
                    .get(name)
                    .and_then(|v| v.as_str())
                    .map(str::to_owned)
            };
            return Ok(Endpoints {
                jwks_uri: field("jwks_uri"),
                introspection_endpoint: field("introspection_endpoint"),
            });
        }
        Err(failures.join("; "))
    }

    async fn fetch(self: Arc<Self>) -> Result<KeySet, String> {
        let endpoints = self.endpoints().await?;
        let uri = endpoints
            .jwks_uri
            .as_deref()
            .ok_or("the issuer's metadata has no jwks_uri")?;
        let document = self.get_json(uri).await?;
        let listed = document
            .get("keys")
            .and_then(|k| k.as_array())
            .ok_or_else(|| format!("{uri} is not a JWK set (no \"keys\" list)"))?;
        let keys: Vec<Key> = listed
            .iter()
            .filter_map(|jwk| self.usable(jwk))
            .take(MAX_KEYS)
            .collect();
        if keys.is_empty() {
            return Err(format!(
                "{uri} has no signing key for the accepted algorithms ({} listed)",
                listed.len()
            ));
        }
        Ok(KeySet {
            keys,
            fetched: Instant::now(),
        })
    }

    /// A JWK as a verification key, if it is one: a public key (never `oct`; RSA, ECDSA on
    /// P-256 or P-384, Ed25519), for
    /// signatures (`use` `sig` or absent, `key_ops` with `verify` or absent), with an
    /// accepted `alg` of its family if it names one.
    fn usable(&self, value: &serde_json::Value) -> Option<Key> {
        let jwk: Jwk = serde_json::from_value(value.clone()).ok()?;
        let (key, family) = PublicKey::from_jwk(&jwk)?;
        if jwk
            .common
            .public_key_use
            .as_ref()
            .is_some_and(|u| *u != PublicKeyUse::Signature)
        {
            return None;
        }
        if jwk
            .common
            .key_operations
            .as_ref()
            .is_some_and(|ops| !ops.contains(&KeyOperations::Verify))
        {
            return None;
        }
        let alg = match value.get("alg") {
            Some(named) => {
                // An `alg` that is not a signature algorithm (`RSA-OAEP`) is an encryption key.
                let alg: Algorithm = named.as_str()?.parse().ok()?;
                if alg.family() != family || !self.algorithms.contains(&alg) {
                    return None;
                }
                Some(alg)
            }
            None => None,
        };
        if alg.is_some_and(|alg| !key.fits(alg)) {
            return None;
        }
        Some(Key {
            kid: jwk.common.key_id,
            alg,
            key: Arc::new(key),
        })
    }

    async fn get_json(&self, url: &str) -> Result<serde_json::Value, String> {
        let response = self
            .net
            .send(NetRequest::get(url).header("accept", "application/json"))
            .await
            .map_err(|e| format!("{url}: {e}"))?;
        if !response.is_success() {
            return Err(format!("{url} answered {}", response.status()));
        }
        serde_json::from_slice(response.body()).map_err(|e| format!("{url} is not JSON: {e}"))
    }
}
