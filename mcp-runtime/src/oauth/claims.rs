//! What a token says: its claims as read (before and after the signature check), the
//! checks made on them that need no key, and how they become an [`Identity`].

use crate::transport::http::{AuthError, Identity};
use serde::Deserialize;

/// Why a JWT's `typ` header is not an access token's: with `strict`, anything but `at+jwt`
/// (RFC 9068 §4); else anything but `at+jwt`, `JWT` or none. Media types compare without
/// case and without the `application/` prefix (RFC 7515 §4.1.9).
pub(super) fn type_problem(typ: Option<&str>, strict: bool) -> Option<String> {
    let kind = typ.map(|t| {
        let t = t.to_ascii_lowercase();
        t.strip_prefix("application/")
            .map(str::to_owned)
            .unwrap_or(t)
    });
    match kind.as_deref() {
        Some("at+jwt") => None,
        None | Some("jwt") if !strict => None,
        _ => Some(format!(
            "the token's type ({}) is not an access token's (at+jwt{})",
            typ.unwrap_or("none"),
            if strict { "" } else { " or JWT" }
        )),
    }
}

/// Three base64url segments: a JWT, even if one that does not decode.
pub(super) fn looks_like_jwt(token: &str) -> bool {
    token.split('.').count() == 3 && token.starts_with("eyJ")
}

/// The claims checked before the signature (read unverified).
#[derive(Deserialize)]
pub(super) struct PreClaims {
    pub(super) iss: Option<String>,
    pub(super) sub: Option<String>,
    pub(super) aud: Option<serde_json::Value>,
    #[serde(default, deserialize_with = "numeric_date")]
    pub(super) exp: Option<u64>,
    #[serde(default, deserialize_with = "numeric_date")]
    pub(super) nbf: Option<u64>,
}

/// A NumericDate (RFC 7519 §2): seconds, possibly with a fraction (kept whole).
pub(super) fn numeric_date<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Option<u64>, D::Error> {
    let seconds: Option<f64> = Option::deserialize(d)?;
    Ok(seconds
        .filter(|s| s.is_finite() && *s >= 0.0)
        .map(|s| s as u64))
}

/// The claims an access token's identity is made of (RFC 9068 and common practice).
#[derive(Deserialize)]
pub(super) struct Claims {
    #[serde(default, deserialize_with = "numeric_date")]
    pub(super) exp: Option<u64>,
    pub(super) sub: Option<String>,
    scope: Option<String>,
    scp: Option<Scopes>,
    /// The key the token is bound to (RFC 9449 §6: `cnf.jkt`).
    cnf: Option<Confirmation>,
}

/// A token's `cnf` (RFC 7800).
#[derive(Deserialize)]
struct Confirmation {
    jkt: Option<String>,
}

/// `scp` as a list (Okta, Azure) or a space-separated string.
#[derive(Deserialize)]
#[serde(untagged)]
enum Scopes {
    List(Vec<String>),
    Text(String),
}

impl Claims {
    /// The thumbprint of the DPoP key the token is bound to, if it is bound.
    pub(super) fn jkt(&self) -> Option<String> {
        self.cnf.as_ref().and_then(|c| c.jkt.clone())
    }

    /// The identity: `sub`, and the scopes of `scope`/`scp` with `extra` after them.
    pub(super) fn identity(self, extra: Vec<String>) -> Identity {
        let subject = self.sub.filter(|s| !s.is_empty());
        let mut scopes: Vec<String> = match (self.scope, self.scp) {
            (Some(scope), _) | (None, Some(Scopes::Text(scope))) => {
                scope.split_ascii_whitespace().map(str::to_owned).collect()
            }
            (None, Some(Scopes::List(list))) => list,
            (None, None) => Vec::new(),
        };
        for scope in extra {
            if !scopes.contains(&scope) {
                scopes.push(scope);
            }
        }
        let identity = match subject {
            Some(subject) => Identity::subject(subject),
            None => Identity::anonymous(),
        };
        identity.with_scopes(scopes)
    }
}

/// Whether `aud` (a string or a list, from a token or an introspection answer) names
/// `audience`; a trailing `/` on either side is not significant.
pub(super) fn audience_matches(aud: &serde_json::Value, audience: &str) -> bool {
    let want = audience.trim_end_matches('/');
    let same = |v: &serde_json::Value| v.as_str().is_some_and(|a| a.trim_end_matches('/') == want);
    match aud {
        serde_json::Value::Array(list) => list.iter().any(same),
        other => same(other),
    }
}

/// What an [`OAuthBuilder`](super::OAuthBuilder) adds to the standard claim checks for an
/// authorization server's habits (see `oauth::providers`).
#[derive(Debug, Clone, Default)]
pub(super) struct ClaimRules {
    /// Other spellings of the issuer accepted in `iss`.
    pub(super) also_issuers: Vec<String>,
    /// Other values accepted in `aud`.
    pub(super) audiences: Vec<String>,
    /// Claims that must have exactly these string values.
    pub(super) required: Vec<(String, String)>,
    /// Claims (dotted paths) whose values are scopes too.
    pub(super) scope_claims: Vec<String>,
}

impl ClaimRules {
    /// Whether no rule needs the token's other claims.
    pub(super) fn is_empty(&self) -> bool {
        self.required.is_empty() && self.scope_claims.is_empty()
    }

    /// Refuses `claims` when a required claim is missing or has another value.
    pub(super) fn check_required(
        &self,
        claims: &serde_json::Map<String, serde_json::Value>,
    ) -> Result<(), AuthError> {
        for (claim, want) in &self.required {
            match claims.get(claim) {
                Some(got) if got.as_str() == Some(want) => {}
                Some(got) => {
                    return Err(AuthError::invalid_token(format!(
                        "the access token's {claim} is {got}, not {want:?}"
                    )));
                }
                None => {
                    return Err(AuthError::invalid_token(format!(
                        "the access token has no {claim} claim (it must be {want:?})"
                    )));
                }
            }
        }
        Ok(())
    }

    /// The scopes the scope claims hold: each a list of strings or a space-separated string.
    pub(super) fn scopes(
        &self,
        claims: &serde_json::Map<String, serde_json::Value>,
    ) -> Vec<String> {
        let mut scopes = Vec::new();
        for path in &self.scope_claims {
            let mut parts = path.split('.');
            let first = parts.next().and_then(|p| claims.get(p));
            let found = parts.fold(first, |value, part| value.and_then(|v| v.get(part)));
            match found {
                Some(serde_json::Value::Array(list)) => {
                    scopes.extend(list.iter().filter_map(|v| v.as_str()).map(str::to_owned))
                }
                Some(serde_json::Value::String(text)) => {
                    scopes.extend(text.split_ascii_whitespace().map(str::to_owned));
                }
                _ => {}
            }
        }
        scopes
    }
}
