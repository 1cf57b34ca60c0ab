//! What a token says: its claims as read (before and after the signature check), the
//! checks made on them that need no key, and how they become an [`Identity`].

use crate::transport::http::Identity;
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
fn numeric_date<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
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
}

/// `scp` as a list (Okta, Azure) or a space-separated string.
#[derive(Deserialize)]
#[serde(untagged)]
enum Scopes {
    List(Vec<String>),
    Text(String),
}

impl Claims {
    pub(super) fn identity(self) -> Identity {
        let subject = self.sub.filter(|s| !s.is_empty());
        let scopes: Vec<String> = match (self.scope, self.scp) {
            (Some(scope), _) | (None, Some(Scopes::Text(scope))) => {
                scope.split_ascii_whitespace().map(str::to_owned).collect()
            }
            (None, Some(Scopes::List(list))) => list,
            (None, None) => Vec::new(),
        };
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
