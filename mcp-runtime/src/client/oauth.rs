//! OAuth 2.1 client credentials (RFC 6749 §4.4) for a client of a Streamable HTTP server:
//! how a service (a gateway in front of a protected upstream) authenticates as itself.
//!
//! The client asks the authorization server's token endpoint for an access token with its
//! own id and secret (HTTP Basic, RFC 6749 §2.3.1), for the server's URL as the `resource`
//! (RFC 8707, so the token's audience is that server and nothing else), keeps it until a
//! little before it expires, and asks again when it has expired or the server refused it
//! (401: the request is sent once more with a new token).
//!
//! # Decisions
//!
//! - **The token endpoint is configured, not discovered.** A service's credentials belong
//!   to one authorization server, which its operator knows; discovery from the server's
//!   protected-resource metadata would let the server choose where the client's secret is
//!   sent. The endpoint must be `https://`, or `http://` to this machine (a development
//!   authorization server): a secret never crosses a network in the clear.
//! - **Bearer tokens, or DPoP-bound ones** (RFC 9449) with [`ClientCredentials::dpop`]:
//!   the token request then carries a proof of the client's key, a `DPoP` token answer is
//!   sent as `Authorization: DPoP` with a proof per request, and a token endpoint that asks
//!   for a nonce (`use_dpop_nonce`) is asked once more with it. A token of another type is
//!   refused with an error that says so.
//! - Hand-written over the client's own HTTP connection pool rather than the `oauth2`
//!   crate: one form POST and one JSON answer, with the pool's TLS settings and the
//!   client's bounds on what it reads.

use ::http::header::{ACCEPT, AUTHORIZATION, CONTENT_TYPE, HOST};
use ::http::{HeaderValue, Method, Request, Uri};
use base64::Engine as _;
use bytes::Bytes;
use http_body_util::{BodyExt as _, Full, Limited};
use std::fmt;
use std::time::{Duration, Instant};

/// The client's connection pool (whatever opens its connections: TCP, TLS).
type Pool<C> = hyper_util::client::legacy::Client<C, Full<Bytes>>;

/// What opens the pool's connections.
pub(crate) trait Connect:
    hyper_util::client::legacy::connect::Connect + Clone + Send + Sync + 'static
{
}

impl<C: hyper_util::client::legacy::connect::Connect + Clone + Send + Sync + 'static> Connect
    for C
{
}

/// The longest token endpoint answer read.
const MAX_TOKEN_ANSWER: usize = 64 * 1024;

/// How long before its end a token is replaced.
const MARGIN: Duration = Duration::from_secs(30);

/// A token without `expires_in` is asked again after this.
const DEFAULT_LIFETIME: Duration = Duration::from_secs(300);

/// A client's OAuth client credentials and where to exchange them for access tokens
/// ([`Client::http_with_credentials`](super::Client::http_with_credentials)).
///
/// ```
/// use mcp_runtime::client::ClientCredentials;
///
/// let credentials = ClientCredentials::new(
///     "https://auth.example.com/oauth2/token",
///     "gateway",
///     "the-client-secret",
/// )
/// .scope("notes:read")
/// .scope("notes:write");
/// assert!(!format!("{credentials:?}").contains("the-client-secret"));
/// ```
#[derive(Clone)]
pub struct ClientCredentials {
    token_url: String,
    client_id: String,
    client_secret: String,
    scopes: Vec<String>,
    resource: Option<String>,
    dpop: Option<super::DpopKey>,
}

impl fmt::Debug for ClientCredentials {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The secret is a secret: never in a debug print.
        f.debug_struct("ClientCredentials")
            .field("token_url", &self.token_url)
            .field("client_id", &self.client_id)
            .field("scopes", &self.scopes)
            .field("resource", &self.resource)
            .field("dpop", &self.dpop)
            .finish_non_exhaustive()
    }
}

impl ClientCredentials {
    /// The credentials of client `client_id` with `client_secret`, exchanged at the token
    /// endpoint `token_url`.
    pub fn new(
        token_url: impl Into<String>,
        client_id: impl Into<String>,
        client_secret: impl Into<String>,
    ) -> Self {
        Self {
            token_url: token_url.into(),
            client_id: client_id.into(),
            client_secret: client_secret.into(),
            scopes: Vec::new(),
            resource: None,
            dpop: None,
        }
    }

    /// Asks for tokens bound to `key` (DPoP, RFC 9449): each token request carries a proof
    /// of it, and each request to the server a proof for that request. An authorization
    /// server that answers with a bearer token anyway gets it used as one.
    pub fn dpop(mut self, key: super::DpopKey) -> Self {
        self.dpop = Some(key);
        self
    }

    /// Asks for `scope` too (the token request's `scope`; none by default).
    pub fn scope(mut self, scope: impl Into<String>) -> Self {
        self.scopes.push(scope.into());
        self
    }

    /// The `resource` the token is asked for (RFC 8707). Default: the server's URL.
    pub fn resource(mut self, resource: impl Into<String>) -> Self {
        self.resource = Some(resource.into());
        self
    }

    /// The token endpoint, checked: `https://`, or `http://` to a loopback address.
    pub(crate) fn token_uri(&self) -> Result<Uri, String> {
        let uri: Uri = self
            .token_url
            .parse()
            .map_err(|e| format!("the token endpoint {:?} is not a URL: {e}", self.token_url))?;
        let loopback = uri.host().is_some_and(|h| {
            h == "localhost"
                || h.trim_start_matches('[')
                    .trim_end_matches(']')
                    .parse::<std::net::IpAddr>()
                    .is_ok_and(|ip| ip.is_loopback())
        });
        match uri.scheme_str() {
            Some("https") => Ok(uri),
            Some("http") if loopback => Ok(uri),
            _ => Err(format!(
                "the token endpoint {:?} must be https:// (or http:// to this machine): a client secret is never sent in the clear",
                self.token_url
            )),
        }
    }
}

/// Access tokens for one server, from its client credentials, kept until shortly before
/// they expire.
pub(crate) struct Tokens {
    credentials: ClientCredentials,
    token_uri: Uri,
    resource: String,
    current: tokio::sync::Mutex<Option<(HeaderValue, Instant)>>,
    /// The token endpoint's latest `DPoP-Nonce`.
    nonce: std::sync::Mutex<Option<String>>,
}

impl fmt::Debug for Tokens {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The tokens are secrets: only where they come from.
        f.debug_struct("Tokens")
            .field("credentials", &self.credentials)
            .field("resource", &self.resource)
            .finish_non_exhaustive()
    }
}

impl Tokens {
    /// Tokens for the server at `server_url`; fails on a token endpoint that is not
    /// allowed.
    pub(crate) fn new(credentials: ClientCredentials, server_url: &str) -> Result<Self, String> {
        let token_uri = credentials.token_uri()?;
        let resource = credentials
            .resource
            .clone()
            .unwrap_or_else(|| server_url.to_owned());
        Ok(Self {
            credentials,
            token_uri,
            resource,
            current: tokio::sync::Mutex::new(None),
            nonce: std::sync::Mutex::new(None),
        })
    }

    /// The key the tokens are asked to be bound to, if any.
    pub(crate) fn dpop_key(&self) -> Option<&super::DpopKey> {
        self.credentials.dpop.as_ref()
    }

    /// The `Authorization` header: the token held, or a new one when none is held, it is
    /// about to expire, or it is `refused` (the server answered 401 to it).
    pub(crate) async fn authorization<C: Connect>(
        &self,
        pool: &Pool<C>,
        refused: Option<&HeaderValue>,
    ) -> Result<HeaderValue, String> {
        let mut current = self.current.lock().await;
        if let Some((header, until)) = &*current
            && Instant::now() < *until
            && refused != Some(header)
        {
            return Ok(header.clone());
        }
        let (header, until) = self.fetch(pool).await?;
        *current = Some((header.clone(), until));
        Ok(header)
    }

    /// One token request (twice when the endpoint asks for a DPoP nonce).
    async fn fetch<C: Connect>(&self, pool: &Pool<C>) -> Result<(HeaderValue, Instant), String> {
        let (status, answer) = self.ask(pool).await?;
        let c = &self.credentials;
        let where_ = &c.token_url;
        let error = answer.get("error").and_then(|e| e.as_str()).unwrap_or("");
        let (status, answer) = if error == "use_dpop_nonce" && c.dpop.is_some() {
            self.ask(pool).await?
        } else {
            (status, answer)
        };
        if !status.is_success() {
            let error = answer.get("error").and_then(|e| e.as_str()).unwrap_or("");
            let description = answer
                .get("error_description")
                .and_then(|e| e.as_str())
                .unwrap_or("");
            return Err(format!(
                "the token endpoint {where_} refused client `{}` ({status}): {error} {description}",
                c.client_id
            ));
        }
        let token = answer
            .get("access_token")
            .and_then(|t| t.as_str())
            .ok_or_else(|| {
                format!("the token endpoint {where_} answered without an access_token")
            })?;
        let kind = answer
            .get("token_type")
            .and_then(|t| t.as_str())
            .unwrap_or("Bearer");
        let scheme = if kind.eq_ignore_ascii_case("bearer") {
            "Bearer"
        } else if kind.eq_ignore_ascii_case("dpop") && c.dpop.is_some() {
            "DPoP"
        } else {
            return Err(format!(
                "the token endpoint {where_} issued a {kind} token; only Bearer tokens{} are supported",
                if c.dpop.is_some() {
                    " and DPoP ones"
                } else {
                    ""
                }
            ));
        };
        let lifetime = answer
            .get("expires_in")
            .and_then(|e| e.as_u64())
            .map_or(DEFAULT_LIFETIME, Duration::from_secs);
        let mut header = HeaderValue::from_str(&format!("{scheme} {token}")).map_err(|_| {
            format!("the token endpoint {where_} issued a token a header cannot carry")
        })?;
        header.set_sensitive(true);
        let until = Instant::now() + lifetime.saturating_sub(MARGIN).max(Duration::from_secs(1));
        Ok((header, until))
    }

    /// Sends the token request; its status and JSON answer. Keeps the endpoint's
    /// `DPoP-Nonce`, if it gives one.
    async fn ask<C: Connect>(
        &self,
        pool: &Pool<C>,
    ) -> Result<(::http::StatusCode, serde_json::Value), String> {
        let c = &self.credentials;
        // Made whole before any wait: the serializer is not `Send`.
        let form = {
            let mut form = form_urlencoded::Serializer::new(String::new());
            form.append_pair("grant_type", "client_credentials")
                .append_pair("resource", &self.resource);
            if !c.scopes.is_empty() {
                form.append_pair("scope", &c.scopes.join(" "));
            }
            form.finish()
        };
        // RFC 6749 §2.3.1: the id and secret are form-encoded before they are joined.
        let encode = |s: &str| form_urlencoded::byte_serialize(s.as_bytes()).collect::<String>();
        let basic = base64::engine::general_purpose::STANDARD.encode(format!(
            "{}:{}",
            encode(&c.client_id),
            encode(&c.client_secret)
        ));
        let mut basic = HeaderValue::from_str(&format!("Basic {basic}"))
            .map_err(|_| "the client id or secret cannot be sent in a header".to_owned())?;
        basic.set_sensitive(true);
        let authority = self
            .token_uri
            .authority()
            .map(|a| a.as_str().to_owned())
            .unwrap_or_default();
        let mut request = Request::builder()
            .method(Method::POST)
            .uri(self.token_uri.clone())
            .header(HOST, authority)
            .header(CONTENT_TYPE, "application/x-www-form-urlencoded")
            .header(ACCEPT, "application/json")
            .header(AUTHORIZATION, basic);
        if let Some(key) = &c.dpop {
            let nonce = self.nonce.lock().unwrap_or_else(|e| e.into_inner()).clone();
            let proof = key.proof("POST", &c.token_url, None, nonce.as_deref());
            request = request.header(super::dpop::DPOP, proof);
        }
        let request = request
            .body(Full::new(Bytes::from(form)))
            .map_err(|e| format!("cannot build the token request: {e}"))?;
        let where_ = &c.token_url;
        let response = pool
            .request(request)
            .await
            .map_err(|e| format!("the token endpoint {where_} cannot be reached: {e}"))?;
        let status = response.status();
        if let Some(nonce) = response
            .headers()
            .get(super::dpop::DPOP_NONCE)
            .and_then(|v| v.to_str().ok())
        {
            *self.nonce.lock().unwrap_or_else(|e| e.into_inner()) = Some(nonce.to_owned());
        }
        let body = Limited::new(response.into_body(), MAX_TOKEN_ANSWER)
            .collect()
            .await
            .map_err(|e| format!("the token endpoint {where_} answered badly: {e}"))?
            .to_bytes();
        Ok((status, serde_json::from_slice(&body).unwrap_or_default()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_secret_goes_only_over_tls_or_to_this_machine() {
        let at = |url: &str| ClientCredentials::new(url, "id", "secret").token_uri();
        for allowed in [
            "https://auth.example.com/token",
            "http://127.0.0.1:9000/token",
            "http://127.8.9.10/token",
            "http://[::1]:9000/token",
            "http://localhost:9000/token",
        ] {
            assert!(at(allowed).is_ok(), "{allowed}");
        }
        for refused in [
            "http://auth.example.com/token",
            "http://10.0.0.1/token",
            "http://localhost.example.com/token",
            "ftp://127.0.0.1/token",
            "not a url",
        ] {
            assert!(at(refused).is_err(), "{refused}");
        }
    }
}
