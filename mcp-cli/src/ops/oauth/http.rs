//! The HTTP the OAuth flow needs (metadata, registration, tokens, the 401 probe): hyper's
//! client with rustls (`mcp_runtime::tls`: Mozilla's roots and `SSL_CERT_FILE`'s), bounded
//! in time and size. The MCP traffic itself goes
//! through `mcp_runtime`'s client.

use anyhow::{Context as _, Result, anyhow};
use base64::Engine as _;
use bytes::Bytes;
use http::header::{ACCEPT, AUTHORIZATION, CONTENT_TYPE, WWW_AUTHENTICATE};
use http::{Method, Request, StatusCode};
use http_body_util::{BodyExt as _, Full, Limited};
use hyper_rustls::HttpsConnector;
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use serde_json::Value;
use std::time::Duration;

/// How long one request to a server or an authorization server may take.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);
/// The largest answer read (metadata and token answers are a few KiB).
const MAX_BODY: usize = 1024 * 1024;

/// An HTTP(S) client for JSON and form requests.
pub struct Http {
    client: Client<HttpsConnector<HttpConnector>, Full<Bytes>>,
}

/// An answer: its status, its `WWW-Authenticate`, its body as JSON (`Null` when it is not).
#[derive(Debug)]
pub struct Answer {
    /// The status.
    pub status: StatusCode,
    /// The `WWW-Authenticate` header, if any.
    pub challenge: Option<String>,
    /// The body as JSON.
    pub json: Value,
    /// The `DPoP-Nonce` header (RFC 9449 §8), if any.
    pub dpop_nonce: Option<String>,
}

impl std::fmt::Debug for Http {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Http").finish_non_exhaustive()
    }
}

impl Http {
    /// A client that speaks `http` and `https`.
    pub fn new() -> Result<Self> {
        // The roots the MCP connection trusts: Mozilla's and those of `SSL_CERT_FILE`, so a
        // server behind a private CA is reached for its OAuth metadata as for its tools.
        let roots = mcp_runtime::tls::env_roots().map_err(|e| anyhow!(e))?;
        let config = mcp_runtime::tls::client_config(roots).context("cannot set up TLS")?;
        let https = hyper_rustls::HttpsConnectorBuilder::new()
            .with_tls_config(config)
            .https_or_http()
            .enable_http1()
            .build();
        Ok(Self {
            client: Client::builder(TokioExecutor::new()).build(https),
        })
    }

    /// GETs `url` asking for JSON.
    pub async fn get_json(&self, url: &str) -> Result<Answer> {
        let request = Request::get(url)
            .header(ACCEPT, "application/json")
            .body(Full::default())?;
        self.send(request).await
    }

    /// POSTs `body` as JSON.
    pub async fn post_json(&self, url: &str, body: &Value) -> Result<Answer> {
        let request = Request::post(url)
            .header(ACCEPT, "application/json")
            .header(CONTENT_TYPE, "application/json")
            .body(Full::new(Bytes::from(body.to_string())))?;
        self.send(request).await
    }

    /// POSTs `form` form-encoded, with HTTP Basic client authentication when `basic` is
    /// given (RFC 6749 §2.3.1: id and secret form-encoded first) and a `DPoP` proof when
    /// `dpop` is.
    pub async fn post_form(
        &self,
        url: &str,
        form: &[(&str, &str)],
        basic: Option<(&str, &str)>,
        dpop: Option<String>,
    ) -> Result<Answer> {
        let body = url::form_urlencoded::Serializer::new(String::new())
            .extend_pairs(form)
            .finish();
        let mut request = Request::post(url)
            .header(ACCEPT, "application/json")
            .header(CONTENT_TYPE, "application/x-www-form-urlencoded");
        if let Some((id, secret)) = basic {
            let encode =
                |s: &str| url::form_urlencoded::byte_serialize(s.as_bytes()).collect::<String>();
            let pair = format!("{}:{}", encode(id), encode(secret));
            let value = format!(
                "Basic {}",
                base64::engine::general_purpose::STANDARD.encode(pair)
            );
            request = request.header(AUTHORIZATION, value);
        }
        if let Some(proof) = dpop {
            request = request.header("dpop", proof);
        }
        self.send(request.body(Full::new(Bytes::from(body)))?).await
    }

    /// POSTs a `ping` to an MCP endpoint without credentials: a server that wants them
    /// answers 401 with its challenge.
    pub async fn probe(&self, mcp_url: &str) -> Result<Answer> {
        let request = Request::builder()
            .method(Method::POST)
            .uri(mcp_url)
            .header(ACCEPT, "application/json, text/event-stream")
            .header(CONTENT_TYPE, "application/json")
            .body(Full::new(Bytes::from_static(
                br#"{"jsonrpc":"2.0","id":0,"method":"ping"}"#,
            )))?;
        self.send(request).await
    }

    async fn send(&self, request: Request<Full<Bytes>>) -> Result<Answer> {
        let url = request.uri().to_string();
        let response = tokio::time::timeout(REQUEST_TIMEOUT, self.client.request(request))
            .await
            .map_err(|_| anyhow!("{url}: no answer within {} s", REQUEST_TIMEOUT.as_secs()))?
            .map_err(|e| anyhow!("{url}: {e}"))?;
        let status = response.status();
        let challenge = response
            .headers()
            .get(WWW_AUTHENTICATE)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        let dpop_nonce = response
            .headers()
            .get("dpop-nonce")
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        let body = tokio::time::timeout(
            REQUEST_TIMEOUT,
            Limited::new(response.into_body(), MAX_BODY).collect(),
        )
        .await
        .map_err(|_| {
            anyhow!(
                "{url}: the answer did not arrive within {} s",
                REQUEST_TIMEOUT.as_secs()
            )
        })?
        .map_err(|e| anyhow!("{url}: reading the answer failed: {e}"))?
        .to_bytes();
        Ok(Answer {
            status,
            challenge,
            json: serde_json::from_slice(&body).unwrap_or(Value::Null),
            dpop_nonce,
        })
    }
}

/// The parameters of a `Bearer` challenge (RFC 6750 §3): `error`, `scope`,
/// `resource_metadata`, ... Quoted values are unquoted; other schemes are ignored.
pub fn challenge_params(header: &str) -> Vec<(String, String)> {
    let Some(rest) = header
        .trim_start()
        .get(..6)
        .filter(|s| s.eq_ignore_ascii_case("bearer"))
        .map(|_| &header.trim_start()[6..])
    else {
        return Vec::new();
    };
    let mut params = Vec::new();
    let mut chars = rest.chars().peekable();
    loop {
        while chars.next_if(|c| c.is_whitespace() || *c == ',').is_some() {}
        let name: String =
            std::iter::from_fn(|| chars.next_if(|c| *c != '=' && *c != ',')).collect();
        if name.trim().is_empty() || chars.next() != Some('=') {
            break;
        }
        let value = if chars.next_if_eq(&'"').is_some() {
            let mut value = String::new();
            while let Some(c) = chars.next() {
                match c {
                    '\\' => value.extend(chars.next()),
                    '"' => break,
                    c => value.push(c),
                }
            }
            value
        } else {
            std::iter::from_fn(|| chars.next_if(|c| *c != ','))
                .collect::<String>()
                .trim()
                .to_owned()
        };
        params.push((name.trim().to_ascii_lowercase(), value));
    }
    params
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn challenges_are_read_like_rfc_6750_writes_them() {
        let params = challenge_params(
            r#"Bearer realm="mcp", error="insufficient_scope", scope="a b", resource_metadata="http://x/.well-known/oauth-protected-resource/mcp""#,
        );
        let get = |k: &str| params.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str());
        assert_eq!(get("error"), Some("insufficient_scope"));
        assert_eq!(get("scope"), Some("a b"));
        assert_eq!(
            get("resource_metadata"),
            Some("http://x/.well-known/oauth-protected-resource/mcp")
        );
        assert!(challenge_params(r#"Basic realm="x""#).is_empty());
        assert_eq!(
            challenge_params("Bearer error=invalid_token")[0].1,
            "invalid_token"
        );
    }
}
