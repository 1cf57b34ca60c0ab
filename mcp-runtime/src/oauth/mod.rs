//! A server as an OAuth 2.1 resource server, the way the MCP authorization spec asks: access
//! tokens verified against the issuer's keys (JWT) or by introspection (opaque tokens),
//! accepted only when issued *for this server* (audience binding, RFC 8707), and the
//! protected-resource metadata (RFC 9728) published so clients find the authorization server.
//!
//! ```no_run
//! use mcp_runtime::oauth::OAuth;
//! use mcp_runtime::transport::http::HttpOptions;
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let oauth = OAuth::issuer("https://auth.example.com")
//!     .audience("https://mcp.example.com/mcp")
//!     .scopes_supported(["files:read", "files:write"])
//!     .build()?;
//! let options = HttpOptions::default().auth(oauth);
//! # let _ = options;
//! # Ok(()) }
//! ```
//!
//! Presets for Entra ID (v1 and v2 tokens), Auth0, Okta, Keycloak and Google are in
//! [`providers`]; each is an [`OAuthBuilder`] set for how that provider issues tokens.
//!
//! Server binaries get the same from the command line: `--oauth-issuer URL` and
//! `--oauth-audience URL` (`MCP_OAUTH_ISSUER`, `MCP_OAUTH_AUDIENCE`), see
//! [`launch`](crate::launch).
//!
//! # What is verified
//!
//! - **The issuer's metadata** is discovered from its URL (RFC 8414
//!   `/.well-known/oauth-authorization-server`, then OpenID Connect discovery), and its
//!   `issuer` must be the configured URL exactly (RFC 8414 §3.3).
//! - **JWT access tokens**: the header's `alg` must be in [`OAuthBuilder::algorithms`]
//!   (asymmetric only: `none` and the HMAC algorithms are refused, so a public key can never
//!   be used as an HMAC secret); the key is chosen from the issuer's JWKS by `kid` among keys
//!   of the algorithm's family (`kty`), whose `use` is `sig` (or absent) and whose own `alg`,
//!   if any, is the token's (and for ECDSA, whose curve is the algorithm's); `iss` exactly;
//!   `aud` must contain the audience (the canonical URI of this server); `exp` required, `exp`
//!   and `nbf` with [`OAuthBuilder::leeway`] (default 60 s); `sub` required; the header's
//!   `typ`, when given, `at+jwt` or `JWT` ([`OAuthBuilder::require_access_token_type`] for
//!   `at+jwt` only). These claims are checked first,
//!   so a token for another audience, from another issuer or out of its time costs no
//!   signature work; then the signature, by `ring` (RSA keys of 2048 bits or more, PKCS#1
//!   v1.5 and PSS; ECDSA P-256 and P-384; Ed25519; headers and JWKS parsed by
//!   [`jsonwebtoken`]; no cryptography here). A verified token is remembered by its SHA-256
//!   until it expires (at most 5 min, 10 000 tokens), so a client sending its token with
//!   every request pays for the signature once. Tokens longer than
//!   [`OAuthBuilder::max_token_bytes`] are refused before any parsing.
//! - **Opaque tokens** (anything that is not a JWT), when
//!   [`OAuthBuilder::introspection`] is configured: asked of the issuer's
//!   `introspection_endpoint` (RFC 7662) with the server's client credentials (HTTP Basic);
//!   `active` must be true, `iss` (when given) the issuer, `aud` must contain the audience,
//!   `exp` in the future, `token_type` (when given) an access token's (`Bearer` or `DPoP`);
//!   the claim rules (`accept_audience`, `also_issuer`, `require_claim`,
//!   `scopes_from_claim`) hold as for JWTs, and an answer's `cnf.jkt` binds the token to a
//!   DPoP key as a JWT's does. Answers are cached by the token's SHA-256, never past the
//!   token's `exp` nor [`OAuthBuilder::introspection_cache`]'s time, bounded in number;
//!   refusals for a short time (10 s) so a flood of bad tokens is not a flood of
//!   introspection requests.
//! - **Identity**: `sub` is the [`Identity`]'s subject (required, RFC 9068 §2.2: a token or
//!   an introspection answer without it is refused; `client_id` names clients in another
//!   namespace, which could equal a user's `sub`, so it never stands in), its scopes those
//!   of `scope` (space-separated) or `scp` (a list or a string); tools with
//!   `#[mcp_tool(scopes = [...])]` answer 403 `insufficient_scope` naming the scopes they
//!   need, which MCP clients take as a cue to ask for more (step-up).
//!
//! # Keys and outages
//!
//! The JWKS is fetched on first use and kept for [`OAuthBuilder::jwks_max_age`] (default
//! 1 h); a token signed with a key the cache does not know triggers one refresh, at most once
//! per [`OAuthBuilder::jwks_min_refresh`] (default 30 s), which is how key rotation is picked
//! up. When the issuer cannot be reached, cached keys keep serving for
//! [`OAuthBuilder::serve_stale_for`] past their age (default 1 h, with a warning); after that,
//! and when nothing was ever fetched, requests get 503 with a message saying the
//! authorization server's keys cannot be fetched. Keys whose `kty` or `alg` is not usable are
//! skipped, not fatal.
//!
//! The issuer is reached through a [`NetService`](crate::net::NetService) whose policy allows the issuer's own
//! origin (even on a loopback or private address: the operator configured it) and the public
//! internet; a `jwks_uri` or `introspection_endpoint` on *another* non-public origin is
//! refused unless [`OAuthBuilder::net`] is given a service that allows it. An `http://`
//! issuer is refused unless its host is loopback.
//!
//! # What stays the operator's job
//!
//! Registering this server (its audience) and its scopes with the authorization server,
//! issuing tokens whose `aud` names it, revoking tokens (a JWT stays valid until `exp`; use
//! short lifetimes or introspection), and TLS in front of the server. The raw token never
//! reaches tools: it is not in the request context, and the audit records the subject, never
//! the token. A tool that must call another API for the user needs a token *for that API*
//! (token exchange), never this one passed through.

mod builder;
mod claims;
pub mod dpop;
mod flight;
mod introspect;
mod keys;
pub mod providers;
mod signature;
#[cfg(test)]
mod tests;

pub use builder::{DEFAULT_ALGORITHMS, OAuthBuilder};

use crate::net::NetError;
use crate::transport::http::{AuthError, Authenticator, Identity, ProtectedResource};
use claims::{Claims, PreClaims, audience_matches, looks_like_jwt, type_problem};
use futures::future::BoxFuture;
use jsonwebtoken::Algorithm;
use jsonwebtoken::errors::ErrorKind;
use sha2::{Digest, Sha256};
use std::sync::Arc;
use std::time::Duration;

/// An [`Authenticator`] that verifies OAuth access tokens issued by one authorization server
/// for this server. Built with [`OAuth::issuer`]; cheap to clone (the key cache is shared).
#[derive(Clone)]
pub struct OAuth {
    inner: Arc<Inner>,
}

struct Inner {
    issuer: String,
    audience: Option<String>,
    /// The audience's origin (`https://host:port`): DPoP proofs' `htu` start with it.
    audience_origin: Option<String>,
    algorithms: Vec<Algorithm>,
    leeway: Duration,
    max_token_bytes: usize,
    keys: keys::KeyStore,
    introspection: Option<introspect::Introspector>,
    resource: Option<ProtectedResource>,
    metadata_url: Option<String>,
    /// Tokens whose signature and claims were verified, by SHA-256, until they expire.
    verified: moka::sync::Cache<[u8; 32], Verified>,
    /// The longest a verified token is remembered (zero: never).
    verified_ttl: Duration,
    /// [`OAuthBuilder::require_access_token_type`].
    strict_type: bool,
    /// Other issuers' spellings, other audiences, required claims, scope claims.
    rules: claims::ClaimRules,
    /// DPoP proofs of bound tokens.
    dpop: dpop::Proofs,
}

/// A verified token's identity, kept until the token expires (at most
/// [`OAuthBuilder::remember_verified`]).
#[derive(Clone)]
struct Verified {
    identity: Identity,
    /// The DPoP key the token is bound to (`cnf.jkt`).
    jkt: Option<Arc<str>>,
    keep: Duration,
}

/// How many verified tokens are remembered.
const VERIFIED_CAPACITY: u64 = 10_000;

struct KeepVerified;

impl moka::Expiry<[u8; 32], Verified> for KeepVerified {
    fn expire_after_create(
        &self,
        _: &[u8; 32],
        v: &Verified,
        _: std::time::Instant,
    ) -> Option<Duration> {
        Some(v.keep)
    }
}

impl std::fmt::Debug for OAuth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuth")
            .field("issuer", &self.inner.issuer)
            .field("audience", &self.inner.audience)
            .field("algorithms", &self.inner.algorithms)
            .field("introspection", &self.inner.introspection.is_some())
            .finish_non_exhaustive()
    }
}

/// Why an [`OAuth`] configuration was refused.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum OAuthError {
    /// The issuer is not an absolute `https://` URL (or `http://` on loopback).
    #[error("the OAuth issuer {url:?} {why}")]
    Issuer {
        /// The URL given.
        url: String,
        /// What is wrong with it.
        why: &'static str,
    },
    /// The audience is not an absolute `http(s)://` URL.
    #[error(
        "the OAuth audience {url:?} is not an absolute http(s) URL (use this server's public MCP endpoint URL, e.g. https://mcp.example.com/mcp)"
    )]
    Audience {
        /// The URL given.
        url: String,
    },
    /// No audience, and the audience check was not explicitly turned off.
    #[error(
        "no OAuth audience: give this server's canonical URL (e.g. https://mcp.example.com/mcp) with `audience`, so that tokens issued for other services are refused"
    )]
    NoAudience,
    /// An algorithm that is not accepted for access tokens.
    #[error(
        "{0:?} is not accepted: only asymmetric algorithms (RS*, PS*, ES*, EdDSA) verify tokens against an issuer's published keys"
    )]
    Algorithm(Algorithm),
    /// No algorithms.
    #[error("no algorithms are accepted")]
    NoAlgorithms,
    /// The HTTP client could not be built.
    #[error("cannot set up the HTTP client for the issuer: {0}")]
    Net(#[from] NetError),
    /// The issuer's metadata or keys could not be fetched ([`OAuth::prefetch`]).
    #[error("{0}")]
    Unreachable(String),
    /// Introspection was asked for with an empty client id or secret (RFC 7662 §2.1: the
    /// protected resource authenticates to the introspection endpoint).
    #[error(
        "introspection needs the client id and secret the authorization server registered for this server ({0} is empty; from the command line the secret is read from MCP_OAUTH_CLIENT_SECRET)"
    )]
    IntrospectionClient(&'static str),
}

impl OAuth {
    /// Starts a configuration for tokens issued by the authorization server at `issuer`
    /// (its issuer identifier, e.g. `https://auth.example.com` or
    /// `https://login.example.com/realms/mcp`).
    pub fn issuer(issuer: impl Into<String>) -> OAuthBuilder {
        OAuthBuilder::new(issuer.into())
    }

    /// The issuer URL.
    pub fn issuer_url(&self) -> &str {
        &self.inner.issuer
    }

    /// The audience tokens must name, unless the check was turned off.
    pub fn audience(&self) -> Option<&str> {
        self.inner.audience.as_deref()
    }

    /// Fetches the issuer's metadata and keys now, so that a misconfiguration shows at
    /// startup rather than on the first request. Server binaries call it once and log the
    /// error (the issuer may come up later).
    pub async fn prefetch(&self) -> Result<(), OAuthError> {
        self.inner
            .keys
            .prefetch()
            .await
            .map_err(|e| OAuthError::Unreachable(e.to_string()))
    }

    /// Verifies `token`: a JWT against the issuer's keys, anything else by introspection
    /// (when configured). The same check as the [`Authenticator`] implementation, for
    /// transports and tests that hold a token without an HTTP request.
    ///
    /// A DPoP-bound token (`cnf.jkt`) is refused here: it is accepted only with a proof, by
    /// the [`Authenticator`] (see [`dpop`]).
    pub async fn verify(&self, token: &str) -> Result<Identity, AuthError> {
        match self.verify_token(token).await? {
            (identity, None) => Ok(identity),
            (_, Some(_)) => Err(self.bound_as_bearer()),
        }
    }

    /// The refusal of a DPoP-bound token without DPoP (RFC 9449 §7.2).
    fn bound_as_bearer(&self) -> AuthError {
        AuthError::invalid_token(
            "the access token is DPoP-bound: send it as `Authorization: DPoP <token>` with a DPoP proof",
        )
        .with_dpop_challenge(self.inner.dpop.algs())
    }

    /// Checks one request's credentials: the token, and for a DPoP-bound one (or the `DPoP`
    /// scheme) the request's proof.
    async fn authenticate_request(
        &self,
        token: &str,
        request: &http::request::Parts,
    ) -> Result<Identity, AuthError> {
        let dpop_scheme = request
            .headers
            .get(http::header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split_once(' '))
            .is_some_and(|(scheme, _)| scheme.eq_ignore_ascii_case("dpop"));
        let (identity, jkt) = self.verify_token(token).await?;
        let proofs = &self.inner.dpop;
        let jkt = match (jkt, dpop_scheme) {
            (None, false) => return Ok(identity),
            (Some(_), false) => return Err(self.bound_as_bearer()),
            (None, true) => {
                return Err(proofs.refuse(
                    "the access token is not DPoP-bound (no cnf.jkt): send it as a bearer token",
                ));
            }
            (Some(jkt), true) => jkt,
        };
        let mut proof = request.headers.get_all("dpop").iter();
        let (Some(proof), None) = (proof.next(), proof.next()) else {
            return Err(proofs.refuse("a DPoP-bound token needs exactly one DPoP proof header"));
        };
        let proof = proof
            .to_str()
            .map_err(|_| proofs.refuse("the DPoP proof is not text"))?;
        let url = self.request_url(request);
        proofs
            .check(
                proof,
                dpop::Request {
                    method: request.method.as_str(),
                    url: &url,
                    token,
                    bound_to: &jkt,
                },
            )
            .await?;
        Ok(identity)
    }

    /// The URL a client used for `request`, as a DPoP proof's `htu` names it: this server's
    /// public origin (its audience's: a proxy that terminates TLS does not change it), else
    /// the request's `Host` over `http`, and the request's path.
    fn request_url(&self, request: &http::request::Parts) -> String {
        let path = request.uri.path();
        match &self.inner.audience_origin {
            Some(origin) => format!("{origin}{path}"),
            None => {
                let host = request
                    .headers
                    .get(http::header::HOST)
                    .and_then(|h| h.to_str().ok())
                    .unwrap_or("localhost");
                format!("http://{host}{path}")
            }
        }
    }

    /// [`verify`](Self::verify), with the key a DPoP-bound token is bound to.
    async fn verify_token(&self, token: &str) -> Result<(Identity, Option<Arc<str>>), AuthError> {
        let inner = &*self.inner;
        if token.len() > inner.max_token_bytes {
            return Err(AuthError::invalid_token(format!(
                "the access token is longer than {} bytes",
                inner.max_token_bytes
            )));
        }
        match jsonwebtoken::decode_header(token) {
            Ok(header) => {
                let key: [u8; 32] = Sha256::digest(token.as_bytes()).into();
                if let Some(verified) = inner.verified.get(&key) {
                    return Ok((verified.identity, verified.jkt));
                }
                let (identity, exp, jkt) = self.verify_jwt(token, header).await?;
                let left = exp.saturating_sub(jsonwebtoken::get_current_timestamp());
                let keep = inner.verified_ttl.min(Duration::from_secs(left));
                if !keep.is_zero() {
                    inner.verified.insert(
                        key,
                        Verified {
                            identity: identity.clone(),
                            jkt: jkt.clone(),
                            keep,
                        },
                    );
                }
                Ok((identity, jkt))
            }
            Err(_) if looks_like_jwt(token) => Err(AuthError::invalid_token(
                "the access token is a malformed JWT",
            )),
            Err(_) => match &inner.introspection {
                Some(introspector) => {
                    let endpoints = inner.keys.endpoints().await?;
                    let expect = introspect::Expect {
                        issuer: &inner.issuer,
                        audience: inner.audience.as_deref(),
                        rules: &inner.rules,
                    };
                    introspector.check(token, &endpoints, expect).await
                }
                None => Err(AuthError::invalid_token(
                    "the access token is not a JWT, and this server does not introspect tokens",
                )),
            },
        }
    }

    /// Verifies a JWT: its claims first (a token for another audience, from another issuer
    /// or out of its time costs a base64 decode, no key lookup and no signature check), then
    /// its signature and the claims again, together, by `jsonwebtoken`. Returns the identity,
    /// the token's `exp` and the DPoP key it is bound to.
    async fn verify_jwt(
        &self,
        token: &str,
        header: jsonwebtoken::Header,
    ) -> Result<(Identity, u64, Option<Arc<str>>), AuthError> {
        let inner = &*self.inner;
        let alg = header.alg;
        if !inner.algorithms.contains(&alg) {
            return Err(AuthError::invalid_token(format!(
                "the access token is signed with {alg:?}, which this server does not accept"
            )));
        }
        if let Some(problem) = type_problem(header.typ.as_deref(), inner.strict_type) {
            return Err(AuthError::invalid_token(problem));
        }
        // Read without verification, only to refuse early; nothing here is trusted until
        // `decode` below has checked the signature.
        let unverified: PreClaims = jsonwebtoken::dangerous::insecure_decode_claims(token)
            .map_err(|_| AuthError::invalid_token("the access token's claims cannot be read"))?;
        self.precheck(&unverified)?;
        // The claims the configured rules name (required values, scope claims): read only
        // when there are rules, and trusted for scopes only once the signature is checked.
        let all = match inner.rules.is_empty() {
            true => None,
            false => {
                let all: serde_json::Map<String, serde_json::Value> =
                    jsonwebtoken::dangerous::insecure_decode_claims(token).map_err(|_| {
                        AuthError::invalid_token("the access token's claims cannot be read")
                    })?;
                inner.rules.check_required(&all)?;
                Some(all)
            }
        };
        let kid = header.kid.as_deref();
        let mut candidates = inner.keys.find(kid, alg, false).await?;
        if candidates.is_empty() && kid.is_some() {
            // A key the cache does not know: the issuer may have rotated its keys.
            candidates = inner.keys.find(kid, alg, true).await?;
        }
        if candidates.is_empty() {
            return Err(AuthError::invalid_token(match kid {
                Some(kid) => format!("the access token's key {kid:?} is not one of the issuer's"),
                None => "the issuer has no key for the access token's algorithm".to_owned(),
            }));
        }
        let Some((input, sig)) = signature::signing_parts(token) else {
            return Err(AuthError::invalid_token(
                "the access token is a malformed JWT",
            ));
        };
        if !candidates
            .iter()
            .any(|key| key.verify(alg, input.as_bytes(), &sig))
        {
            return Err(self.refusal(&ErrorKind::InvalidSignature));
        }
        // Signed by the issuer: its claims are now the issuer's word.
        let claims: Claims = jsonwebtoken::dangerous::insecure_decode_claims(token)
            .map_err(|_| AuthError::invalid_token("the access token's claims cannot be read"))?;
        let exp = claims.exp.unwrap_or_default();
        let extra = all.map(|all| inner.rules.scopes(&all)).unwrap_or_default();
        let jkt = claims.jkt().map(Arc::from);
        Ok((claims.identity(extra), exp, jkt))
    }

    /// The claims checks that need no key, on claims not yet verified.
    fn precheck(&self, claims: &PreClaims) -> Result<(), AuthError> {
        let inner = &*self.inner;
        let now = jsonwebtoken::get_current_timestamp();
        let leeway = inner.leeway.as_secs();
        let refuse = |kind: ErrorKind| Err(self.refusal(&kind));
        let iss = claims.iss.as_deref();
        if iss != Some(inner.issuer.as_str())
            && !iss.is_some_and(|iss| inner.rules.also_issuers.iter().any(|i| i == iss))
        {
            return match claims.iss {
                None => refuse(ErrorKind::MissingRequiredClaim("iss".into())),
                Some(_) => refuse(ErrorKind::InvalidIssuer),
            };
        }
        if let Some(audience) = &inner.audience {
            match &claims.aud {
                None => return refuse(ErrorKind::MissingRequiredClaim("aud".into())),
                Some(aud)
                    if !audience_matches(aud, audience)
                        && !inner
                            .rules
                            .audiences
                            .iter()
                            .any(|a| audience_matches(aud, a)) =>
                {
                    return refuse(ErrorKind::InvalidAudience);
                }
                Some(_) => {}
            }
        }
        match claims.exp {
            None => return refuse(ErrorKind::MissingRequiredClaim("exp".into())),
            Some(exp) if exp.saturating_add(leeway) < now => {
                return refuse(ErrorKind::ExpiredSignature);
            }
            Some(_) => {}
        }
        if claims
            .nbf
            .is_some_and(|nbf| nbf > now.saturating_add(leeway))
        {
            return refuse(ErrorKind::ImmatureSignature);
        }
        // RFC 9068 §2.2: `sub` is required. It alone names the caller (sessions, tasks and
        // limits are theirs): a `client_id` is another issuer namespace, which could equal a
        // user's `sub`, and a token naming no one would own nothing.
        if claims.sub.as_deref().is_none_or(str::is_empty) {
            return refuse(ErrorKind::MissingRequiredClaim("sub".into()));
        }
        Ok(())
    }

    /// What a client is told about a token that failed verification.
    fn refusal(&self, kind: &ErrorKind) -> AuthError {
        AuthError::invalid_token(match kind {
            ErrorKind::ExpiredSignature => "the access token has expired".to_owned(),
            ErrorKind::ImmatureSignature => "the access token is not valid yet (nbf)".to_owned(),
            ErrorKind::InvalidAudience => format!(
                "the access token was issued for another resource (its aud does not name {})",
                self.inner.audience.as_deref().unwrap_or("this server")
            ),
            ErrorKind::InvalidIssuer => {
                format!("the access token was not issued by {}", self.inner.issuer)
            }
            ErrorKind::InvalidSignature => "the access token's signature is not valid".to_owned(),
            ErrorKind::MissingRequiredClaim(claim) => {
                format!("the access token has no {claim} claim")
            }
            ErrorKind::InvalidAlgorithm => {
                "the access token's algorithm does not match its key".to_owned()
            }
            other => format!("the access token is not valid ({other:?})"),
        })
    }
}

impl Authenticator for OAuth {
    fn authenticate<'a>(
        &'a self,
        token: Option<&'a str>,
        request: &'a http::request::Parts,
    ) -> BoxFuture<'a, Result<Identity, AuthError>> {
        Box::pin(async move {
            match token {
                None => Err(AuthError::missing()),
                Some(token) => self.authenticate_request(token, request).await,
            }
        })
    }

    fn resource_metadata(&self) -> Option<&str> {
        self.inner.metadata_url.as_deref()
    }

    fn protected_resource(&self) -> Option<&ProtectedResource> {
        self.inner.resource.as_ref()
    }
}
