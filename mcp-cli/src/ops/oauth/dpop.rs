//! DPoP (RFC 9449) in `cargo mcp`'s logins: when tokens are bound to a key, the key kept
//! with them, and the proofs of the token requests (see the [parent module](super)).

use super::http::{Answer, Http};
use super::store::Login;
use anyhow::{Context as _, Result, bail};
use base64::Engine as _;
use mcp_runtime::client::DpopKey;
use serde_json::Value;

/// What a request to a server is sent with: an access token, and the DPoP key it is bound
/// to, if it is.
#[derive(Debug, Clone)]
pub struct Credential {
    /// The access token.
    pub access_token: String,
    /// The key a DPoP-bound token is bound to; `None` for a bearer token.
    pub dpop: Option<DpopKey>,
}

impl Credential {
    /// A bearer token (`--token`).
    pub fn bearer(token: &str) -> Self {
        Self {
            access_token: token.to_owned(),
            dpop: None,
        }
    }

    /// The credential a login holds.
    pub fn of(login: &Login) -> Result<Self> {
        Ok(Self {
            access_token: login.access_token.clone(),
            dpop: dpop_key(login)?,
        })
    }
}

/// The DPoP key stored with `login`, if any.
pub(super) fn dpop_key(login: &Login) -> Result<Option<DpopKey>> {
    let Some(stored) = &login.dpop_key else {
        return Ok(None);
    };
    let key = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(stored)
        .ok()
        .and_then(|der| DpopKey::from_pkcs8(&der).ok())
        .with_context(|| {
            format!(
                "the DPoP key stored for {} is damaged; run `cargo mcp logout {0}` and log in again",
                login.server
            )
        })?;
    Ok(Some(key))
}

/// A token request, with a proof of `key` when the tokens are to be DPoP-bound; asked once
/// more with the authorization server's nonce when it wants one (RFC 9449 §8).
pub(super) async fn token_request(
    http: &Http,
    endpoint: &str,
    form: &[(&str, &str)],
    basic: Option<(&str, &str)>,
    key: Option<&DpopKey>,
) -> Result<Answer> {
    let proof = |nonce: Option<&str>| key.map(|key| key.proof("POST", endpoint, None, nonce));
    let answer = http.post_form(endpoint, form, basic, proof(None)).await?;
    if key.is_some()
        && answer.json["error"] == "use_dpop_nonce"
        && let Some(nonce) = &answer.dpop_nonce
    {
        return http
            .post_form(endpoint, form, basic, proof(Some(nonce)))
            .await;
    }
    Ok(answer)
}

/// Whether the login binds its tokens to a DPoP key: the server verifies ES256 proofs
/// (RFC 9728's `dpop_signing_alg_values_supported`) and the authorization server issues
/// tokens bound to ES256 keys (RFC 9449 §5.1); an error when the server takes only bound
/// tokens and that cannot be.
pub(super) fn wants_dpop(
    resource: &Value,
    authorization_server: &Value,
    issuer: &str,
) -> Result<bool> {
    let algs = |doc: &Value| doc["dpop_signing_alg_values_supported"].as_array().cloned();
    let es256 = |algs: &Option<Vec<Value>>| {
        algs.as_ref()
            .is_some_and(|a| a.iter().any(|v| v == "ES256"))
    };
    let required = resource["dpop_bound_access_tokens_required"] == true;
    let server_takes = es256(&algs(resource)) || (required && algs(resource).is_none());
    let issued = es256(&algs(authorization_server));
    if required && !(server_takes && issued) {
        bail!(
            "the server takes only DPoP-bound tokens, and either it or its authorization server \
             {issuer} does not say it takes ES256 proofs (the only kind cargo mcp makes)"
        );
    }
    Ok(server_takes && issued)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn tokens_are_bound_only_where_both_sides_take_es256_proofs() {
        let es256 = json!({"dpop_signing_alg_values_supported": ["RS256", "ES256"]});
        let rs256 = json!({"dpop_signing_alg_values_supported": ["RS256"]});
        let silent = json!({});
        let required = json!({"dpop_bound_access_tokens_required": true});
        let wants = |resource: &Value, issuer: &Value| wants_dpop(resource, issuer, "https://as");
        assert!(wants(&es256, &es256).unwrap());
        assert!(!wants(&es256, &silent).unwrap());
        assert!(!wants(&silent, &es256).unwrap());
        assert!(!wants(&rs256, &es256).unwrap());
        // A server that takes only bound tokens: bound when possible, else a clear error.
        assert!(wants(&required, &es256).unwrap());
        let error = wants(&required, &silent).unwrap_err().to_string();
        assert!(error.contains("only DPoP-bound tokens"), "{error}");
    }
}
