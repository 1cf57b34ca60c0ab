//! The authentication hook: an [`Authenticator`] checks the bearer token of every request
//! before its body is read; a failure is answered with 401 (or 403 for a token without
//! the needed scope) and a `WWW-Authenticate` challenge (RFC 6750, with the RFC 9728
//! `resource_metadata` parameter the MCP authorization spec asks for).

use super::resource_metadata::ProtectedResource;
use super::response;
use crate::server::AUDIT_TARGET;
use crate::transport::Disposition;
use axum::body::Body;
use futures::future::BoxFuture;
use http::header::{AUTHORIZATION, WWW_AUTHENTICATE};
use http::{HeaderValue, Response, StatusCode};
use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

/// Checks the credentials of each HTTP request, e.g. by validating an OAuth access token
/// issued by your authorization server (signature, expiry, audience, scopes).
///
/// Called once per request (POST, GET and DELETE alike) before the body is read, so an
/// unauthenticated client costs little. Sessions remember the [`Identity`] that opened
/// them: a request with another identity is answered as if the session did not exist.
///
/// ```
/// use futures::future::BoxFuture;
/// use mcp_runtime::transport::http::{AuthError, Authenticator, Identity, http};
///
/// struct Jwt; // holds your verification keys
///
/// impl Authenticator for Jwt {
///     fn authenticate<'a>(
///         &'a self,
///         token: Option<&'a str>,
///         _request: &'a http::request::Parts,
///     ) -> BoxFuture<'a, Result<Identity, AuthError>> {
///         Box::pin(async move {
///             let token = token.ok_or_else(AuthError::missing)?;
///             // Verify the token here; this sketch accepts one fixed value.
///             if token == "let-me-in" {
///                 Ok(Identity::subject("alice"))
///             } else {
///                 Err(AuthError::invalid_token("the token is not valid"))
///             }
///         })
///     }
///
///     fn resource_metadata(&self) -> Option<&str> {
///         Some("https://mcp.example.com/.well-known/oauth-protected-resource")
///     }
/// }
/// ```
pub trait Authenticator: Send + Sync + 'static {
    /// Checks one request. `token` is the value of `Authorization: Bearer …` (or
    /// `Authorization: DPoP …`, RFC 9449: the header in `request` says which), `None` when
    /// the request has none; `request` has the method, URI and every header, and the peer's
    /// address as axum's `ConnectInfo<SocketAddr>` extension (under
    /// [`HttpServer`](super::HttpServer), or an axum router served with
    /// `into_make_service_with_connect_info`).
    fn authenticate<'a>(
        &'a self,
        token: Option<&'a str>,
        request: &'a http::request::Parts,
    ) -> BoxFuture<'a, Result<Identity, AuthError>>;

    /// The URL of this resource's OAuth protected-resource metadata (RFC 9728), sent in
    /// every challenge so a client can find the authorization server.
    fn resource_metadata(&self) -> Option<&str> {
        None
    }

    /// This server as an OAuth protected resource: when `Some`,
    /// [`HttpServer`](super::HttpServer) serves it at the RFC 9728 well-known paths, and
    /// [`resource_metadata`](Self::resource_metadata) should return its
    /// [`metadata_url`](ProtectedResource::metadata_url).
    fn protected_resource(&self) -> Option<&ProtectedResource> {
        None
    }
}

/// Who a request is from, as the [`Authenticator`] established it: a principal and the
/// scopes its token grants.
///
/// A tool that declares scopes (`#[mcp_tool(scopes = ["files:write"])]`) is called only
/// with an identity that has every one of them; otherwise the request is answered with 403
/// and an `insufficient_scope` challenge naming them, so the client can ask its
/// authorization server for more (the spec's step-up flow).
///
/// ```
/// use mcp_runtime::transport::http::Identity;
///
/// let alice = Identity::subject("alice").with_scopes(["files:read", "files:write"]);
/// assert_eq!(alice.subject_name(), Some("alice"));
/// assert!(alice.scopes().iter().any(|s| s == "files:write"));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Identity {
    subject: Option<Arc<str>>,
    scopes: Arc<[String]>,
}

impl Identity {
    /// No particular principal, no scopes.
    pub fn anonymous() -> Self {
        Self::default()
    }

    /// A principal, e.g. the token's `sub` claim.
    pub fn subject(subject: impl Into<Arc<str>>) -> Self {
        Self {
            subject: Some(subject.into()),
            scopes: Arc::default(),
        }
    }

    /// With the scopes the credentials grant (e.g. the token's `scope` claim, split on
    /// spaces).
    pub fn with_scopes<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        self.scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// The principal, if any.
    pub fn subject_name(&self) -> Option<&str> {
        self.subject.as_deref()
    }

    /// The scopes the credentials grant.
    pub fn scopes(&self) -> &[String] {
        &self.scopes
    }

    /// The principal, shared.
    pub(crate) fn subject_arc(&self) -> Option<&Arc<str>> {
        self.subject.as_ref()
    }

    /// The scopes, shared.
    pub(crate) fn scope_set(&self) -> &Arc<[String]> {
        &self.scopes
    }
}

/// Why a request was not authenticated.
#[derive(Debug, Clone)]
pub struct AuthError {
    status: StatusCode,
    code: Option<&'static str>,
    description: Option<Cow<'static, str>>,
    scope: Option<String>,
    /// A DPoP challenge's `algs` (RFC 9449 §7.1): the challenge is `DPoP`, not `Bearer`.
    dpop_algs: Option<String>,
}

impl AuthError {
    /// No credentials: 401 with a bare challenge.
    pub fn missing() -> Self {
        Self {
            status: StatusCode::UNAUTHORIZED,
            code: None,
            description: None,
            scope: None,
            dpop_algs: None,
        }
    }

    /// Credentials that are malformed, expired, revoked or for another audience: 401
    /// with `error="invalid_token"`.
    pub fn invalid_token(description: impl Into<Cow<'static, str>>) -> Self {
        Self {
            status: StatusCode::UNAUTHORIZED,
            code: Some("invalid_token"),
            description: Some(description.into()),
            scope: None,
            dpop_algs: None,
        }
    }

    /// A DPoP proof (RFC 9449) that is missing, malformed, stale, replayed, for another
    /// request or signed by another key than the token's: 401 with a `DPoP` challenge,
    /// `error="invalid_dpop_proof"` and the signature algorithms accepted (`algs`, space
    /// separated).
    pub fn invalid_dpop_proof(
        description: impl Into<Cow<'static, str>>,
        algs: impl Into<String>,
    ) -> Self {
        Self {
            status: StatusCode::UNAUTHORIZED,
            code: Some("invalid_dpop_proof"),
            description: Some(description.into()),
            scope: None,
            dpop_algs: Some(algs.into()),
        }
    }

    /// Answered with a `DPoP` challenge naming `algs` instead of a `Bearer` one (a
    /// DPoP-bound token sent as a bearer token is `invalid_token` with this challenge).
    pub fn with_dpop_challenge(mut self, algs: impl Into<String>) -> Self {
        self.dpop_algs = Some(algs.into());
        self
    }

    /// A valid token without the scope needed: 403 with `error="insufficient_scope"` and
    /// the `scope` to ask for (several scopes separated by spaces).
    pub fn insufficient_scope(scope: impl Into<String>) -> Self {
        Self {
            status: StatusCode::FORBIDDEN,
            code: Some("insufficient_scope"),
            description: None,
            scope: Some(scope.into()),
            dpop_algs: None,
        }
    }

    /// The credentials cannot be checked now (the authorization server is unreachable and
    /// what was cached of it is too old): 503, no challenge. The client may retry.
    pub fn unavailable(description: impl Into<Cow<'static, str>>) -> Self {
        Self {
            status: StatusCode::SERVICE_UNAVAILABLE,
            code: None,
            description: Some(description.into()),
            scope: None,
            dpop_algs: None,
        }
    }

    /// With a description for the client's user (`error_description`).
    pub fn with_description(mut self, description: impl Into<Cow<'static, str>>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// The HTTP status this is answered with.
    pub fn status(&self) -> StatusCode {
        self.status
    }

    pub(crate) fn challenge(&self, resource_metadata: Option<&str>) -> String {
        let mut parts = vec![r#"realm="mcp""#.to_owned()];
        if let Some(code) = self.code {
            parts.push(format!(r#"error="{code}""#));
        }
        if let Some(d) = &self.description {
            parts.push(format!(r#"error_description="{}""#, quoted(d)));
        }
        if let Some(scope) = &self.scope {
            parts.push(format!(r#"scope="{}""#, quoted(scope)));
        }
        if let Some(url) = resource_metadata {
            parts.push(format!(r#"resource_metadata="{}""#, quoted(url)));
        }
        match &self.dpop_algs {
            Some(algs) => {
                parts.push(format!(r#"algs="{}""#, quoted(algs)));
                format!("DPoP {}", parts.join(", "))
            }
            None => format!("Bearer {}", parts.join(", ")),
        }
    }
}

impl fmt::Display for AuthError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.code, &self.description) {
            (_, Some(d)) => f.write_str(d),
            (Some(code), None) => f.write_str(code),
            (None, None) => f.write_str("authentication required"),
        }
    }
}

impl std::error::Error for AuthError {}

/// Keeps a quoted-string parameter quoted: no `"` or `\`, visible ASCII only.
fn quoted(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_ascii() && !c.is_ascii_control() && *c != '"' && *c != '\\')
        .collect()
}

/// Runs `auth` for a request; the error is the response to send.
pub(crate) async fn check(
    auth: &dyn Authenticator,
    parts: &http::request::Parts,
) -> Result<Identity, Box<http::Response<axum::body::Body>>> {
    let token = parts
        .headers
        .get(AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| {
            let (scheme, rest) = v.split_once(' ')?;
            (scheme.eq_ignore_ascii_case("bearer") || scheme.eq_ignore_ascii_case("dpop"))
                .then(|| rest.trim())
        })
        .filter(|t| !t.is_empty());
    match auth.authenticate(token, parts).await {
        Ok(identity) => Ok(identity),
        Err(e) => {
            // Refused requests are audited at WARN: repeated ones are what an operator
            // looks for (a leaked token being tried, a misconfigured client). At most
            // `REFUSALS_LOGGED_PER_SECOND` lines a second, so a flood of bad tokens cannot
            // flood the log; the lines left out are counted in the next one.
            let (log, left_out) = REFUSALS.admit(std::time::Instant::now());
            if log {
                let address = parts
                    .extensions
                    .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>()
                    .map(|c| c.0.ip().to_string());
                tracing::warn!(
                    target: AUDIT_TARGET,
                    method = %parts.method,
                    path = parts.uri.path(),
                    status = e.status.as_u16(),
                    address,
                    outcome = "unauthenticated",
                    error = %e,
                    refusals_not_logged = left_out,
                    "request refused"
                );
            }
            let mut resp = response::message(e.status, &e.to_string());
            if e.status == StatusCode::SERVICE_UNAVAILABLE {
                return Err(Box::new(resp));
            }
            if let Ok(v) = HeaderValue::from_str(&e.challenge(auth.resource_metadata())) {
                resp.headers_mut().insert(WWW_AUTHENTICATE, v);
            }
            Err(Box::new(resp))
        }
    }
}

/// How many refused requests are logged each second, at most.
pub(crate) const REFUSALS_LOGGED_PER_SECOND: u32 = 10;

/// The process's log of refused requests.
static REFUSALS: Throttle = Throttle::new(REFUSALS_LOGGED_PER_SECOND);

/// Lets at most `per_second` events a second through, counting the others.
pub(crate) struct Throttle {
    per_second: u32,
    /// The second (since the first event), the events let through in it, and those left
    /// out since the last one let through.
    state: std::sync::Mutex<(Option<std::time::Instant>, u64, u32, u64)>,
}

impl Throttle {
    pub(crate) const fn new(per_second: u32) -> Self {
        Self {
            per_second,
            state: std::sync::Mutex::new((None, 0, 0, 0)),
        }
    }

    /// Whether the event at `now` is let through, and how many were left out before it
    /// (reported once, with the next one let through).
    pub(crate) fn admit(&self, now: std::time::Instant) -> (bool, u64) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let (start, second, passed, left_out) = &mut *state;
        let start = *start.get_or_insert(now);
        let this_second = now.saturating_duration_since(start).as_secs();
        if this_second != *second {
            *second = this_second;
            *passed = 0;
        }
        if *passed < self.per_second {
            *passed += 1;
            (true, std::mem::take(left_out))
        } else {
            *left_out += 1;
            (false, 0)
        }
    }
}

/// A dispatched answer as JSON with its status; a forbidden one carries the
/// `insufficient_scope` challenge naming the scopes to obtain (RFC 6750 §3.1, the MCP
/// authorization spec's step-up flow), with the authenticator's resource metadata URL.
pub(crate) fn dispatched(
    disposition: &Disposition,
    line: Vec<u8>,
    auth: Option<&dyn Authenticator>,
) -> Response<Body> {
    let mut resp = response::json(response::status_of(disposition), line);
    if let Disposition::Forbidden { scopes } = disposition {
        let challenge = AuthError::insufficient_scope(scopes.join(" "))
            .with_description("the tool requires scopes the access token does not grant")
            .challenge(auth.and_then(Authenticator::resource_metadata));
        if let Ok(v) = HeaderValue::from_str(&challenge) {
            resp.headers_mut().insert(http::header::WWW_AUTHENTICATE, v);
        }
    }
    resp
}

/// An [`Authenticator`] with a fixed set of bearer tokens, each naming its subject. For
/// service-to-service deployments and tests; an OAuth deployment validates tokens instead.
///
/// ```
/// use mcp_runtime::transport::http::{BearerTokens, HttpOptions};
///
/// let options = HttpOptions::default().auth(BearerTokens::new([("ci", "a-long-random-secret")]));
/// ```
#[derive(Clone)]
pub struct BearerTokens {
    tokens: Arc<[KnownToken]>,
}

/// A subject, its token, and the scopes the token grants.
type KnownToken = (Arc<str>, Box<[u8]>, Arc<[String]>);

impl fmt::Debug for BearerTokens {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BearerTokens")
            .field(
                "subjects",
                &self.tokens.iter().map(|t| &t.0).collect::<Vec<_>>(),
            )
            .finish()
    }
}

impl BearerTokens {
    /// Accepts each `(subject, token)` pair's token as that subject, with no scopes.
    pub fn new<S, T>(tokens: impl IntoIterator<Item = (S, T)>) -> Self
    where
        S: Into<Arc<str>>,
        T: AsRef<str>,
    {
        Self {
            tokens: tokens
                .into_iter()
                .map(|(s, t)| (s.into(), t.as_ref().as_bytes().into(), Arc::default()))
                .collect(),
        }
    }

    /// Grants `scopes` to the tokens of `subject` (replacing what they had).
    ///
    /// ```
    /// use mcp_runtime::transport::http::BearerTokens;
    ///
    /// let tokens = BearerTokens::new([("ci", "a-long-random-secret"), ("viewer", "another-secret")])
    ///     .grant("ci", ["files:read", "files:write"])
    ///     .grant("viewer", ["files:read"]);
    /// # let _ = tokens;
    /// ```
    pub fn grant<S: Into<String>>(
        mut self,
        subject: &str,
        scopes: impl IntoIterator<Item = S>,
    ) -> Self {
        let scopes: Arc<[String]> = scopes.into_iter().map(Into::into).collect();
        self.tokens = self
            .tokens
            .iter()
            .map(|(s, t, old)| {
                let granted = if &**s == subject { &scopes } else { old };
                (s.clone(), t.clone(), granted.clone())
            })
            .collect();
        self
    }
}

impl Authenticator for BearerTokens {
    fn authenticate<'a>(
        &'a self,
        token: Option<&'a str>,
        _request: &'a http::request::Parts,
    ) -> BoxFuture<'a, Result<Identity, AuthError>> {
        let outcome = match token {
            None => Err(AuthError::missing()),
            Some(token) => self
                .tokens
                .iter()
                .find(|(_, known, _)| constant_time_eq(known, token.as_bytes()))
                .map(|(subject, _, scopes)| Identity {
                    subject: Some(subject.clone()),
                    scopes: scopes.clone(),
                })
                .ok_or_else(|| AuthError::invalid_token("unknown token")),
        };
        Box::pin(std::future::ready(outcome))
    }
}

/// Compares without an early exit on the first differing byte, so response timing does not
/// reveal how much of a guessed token was right.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_are_logged_ten_a_second_and_the_rest_counted() {
        let throttle = Throttle::new(10);
        let start = std::time::Instant::now();
        let verdicts: Vec<(bool, u64)> = (0..100).map(|_| throttle.admit(start)).collect();
        assert_eq!(verdicts.iter().filter(|v| v.0).count(), 10);
        assert!(verdicts.iter().all(|v| v.1 == 0));
        // The next second: let through again, with the 90 left out reported once.
        let later = start + std::time::Duration::from_millis(1500);
        assert_eq!(throttle.admit(later), (true, 90));
        assert_eq!(throttle.admit(later), (true, 0));
    }

    #[test]
    fn challenges_follow_rfc_6750() {
        assert_eq!(
            AuthError::missing().challenge(None),
            r#"Bearer realm="mcp""#
        );
        assert_eq!(
            AuthError::invalid_token("expired \"yesterday\"")
                .challenge(Some("https://x/.well-known/oauth-protected-resource")),
            r#"Bearer realm="mcp", error="invalid_token", error_description="expired yesterday", resource_metadata="https://x/.well-known/oauth-protected-resource""#
        );
        let scope = AuthError::insufficient_scope("tools:call");
        assert_eq!(scope.status(), StatusCode::FORBIDDEN);
        assert!(scope.challenge(None).contains(r#"scope="tools:call""#));
    }

    #[test]
    fn token_comparison_is_exact() {
        assert!(constant_time_eq(b"secret", b"secret"));
        assert!(!constant_time_eq(b"secret", b"secreT"));
        assert!(!constant_time_eq(b"secret", b"secret2"));
    }
}
