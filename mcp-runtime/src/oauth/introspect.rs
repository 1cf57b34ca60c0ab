//! Opaque tokens checked at the issuer's introspection endpoint (RFC 7662), answers cached by
//! the token's SHA-256 for no longer than the token lives.
//!
//! An answer is judged as a JWT's claims are: the issuer (or one of
//! [`also_issuer`](super::OAuthBuilder::also_issuer)'s), the audience (or one of
//! [`accept_audience`](super::OAuthBuilder::accept_audience)'s), the
//! [`require_claim`](super::OAuthBuilder::require_claim) values, the scopes of `scope` and
//! of [`scopes_from_claim`](super::OAuthBuilder::scopes_from_claim)'s claims, and `cnf.jkt`:
//! a token the answer says is DPoP-bound (RFC 9449 §6.2, `token_type` `DPoP`) is accepted
//! only with a proof of that key, as a bound JWT is.

use super::claims::ClaimRules;
use super::keys::Endpoints;
use crate::net::{NetRequest, NetService};
use crate::transport::http::{AuthError, Identity};
use base64::Engine as _;
use serde::Deserialize;
use sha2::{Digest, Sha256};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// How long a refusal (an inactive or foreign token) is remembered.
const REFUSAL_TTL: Duration = Duration::from_secs(10);

pub(super) struct Introspector {
    net: NetService,
    authorization: String,
    ttl: Duration,
    cache: moka::sync::Cache<[u8; 32], Verdict>,
}

/// An identity, and the DPoP key its token is bound to, if it is.
pub(super) type Introspected = (Identity, Option<Arc<str>>);

#[derive(Clone)]
struct Verdict {
    outcome: Result<Introspected, AuthError>,
    keep: Duration,
}

struct KeepFor;

impl moka::Expiry<[u8; 32], Verdict> for KeepFor {
    fn expire_after_create(&self, _: &[u8; 32], v: &Verdict, _: Instant) -> Option<Duration> {
        Some(v.keep)
    }
}

/// The parts of an introspection answer this server reads.
#[derive(Deserialize)]
struct Answer {
    #[serde(default)]
    active: bool,
    scope: Option<String>,
    sub: Option<String>,
    token_type: Option<String>,
    exp: Option<u64>,
    iss: Option<String>,
    aud: Option<serde_json::Value>,
    cnf: Option<Confirmation>,
}

/// The answer's `cnf` (RFC 7800, RFC 9449 §6.2).
#[derive(Deserialize)]
struct Confirmation {
    jkt: Option<String>,
}

/// What an answer is judged against: this verifier's issuer, audience and claim rules.
pub(super) struct Expect<'a> {
    pub(super) issuer: &'a str,
    pub(super) audience: Option<&'a str>,
    pub(super) rules: &'a ClaimRules,
}

impl Introspector {
    pub(super) fn new(
        net: NetService,
        client_id: String,
        client_secret: String,
        ttl: Duration,
        capacity: u64,
    ) -> Self {
        // RFC 6749 §2.3.1: the id and secret are form-urlencoded before Basic encoding.
        let pair = format!(
            "{}:{}",
            form_urlencoded(&client_id),
            form_urlencoded(&client_secret)
        );
        Self {
            net,
            authorization: format!(
                "Basic {}",
                base64::engine::general_purpose::STANDARD.encode(pair)
            ),
            ttl,
            cache: moka::sync::Cache::builder()
                .max_capacity(capacity)
                .expire_after(KeepFor)
                .build(),
        }
    }

    pub(super) async fn check(
        &self,
        token: &str,
        endpoints: &Endpoints,
        expect: Expect<'_>,
    ) -> Result<Introspected, AuthError> {
        let key: [u8; 32] = Sha256::digest(token.as_bytes()).into();
        if let Some(verdict) = self.cache.get(&key) {
            return verdict.outcome;
        }
        let endpoint = endpoints.introspection_endpoint.as_deref().ok_or_else(|| {
            AuthError::unavailable("the authorization server publishes no introspection_endpoint")
        })?;
        let body = format!(
            "token={}&token_type_hint=access_token",
            form_urlencoded(token)
        );
        let request = NetRequest::new("POST", endpoint)
            .header("content-type", "application/x-www-form-urlencoded")
            .header("accept", "application/json")
            .header("authorization", self.authorization.clone())
            .body(body);
        let response = self.net.send(request).await.map_err(|e| {
            AuthError::unavailable(format!(
                "the authorization server could not be asked about the token ({e}); try again later"
            ))
        })?;
        if !response.is_success() {
            return Err(AuthError::unavailable(format!(
                "the authorization server's introspection endpoint answered {}; try again later",
                response.status()
            )));
        }
        let invalid = |e: serde_json::Error| {
            AuthError::unavailable(format!(
                "the introspection endpoint's answer is not valid: {e}"
            ))
        };
        let all: serde_json::Map<String, serde_json::Value> =
            serde_json::from_slice(response.body()).map_err(invalid)?;
        let answer: Answer =
            serde_json::from_value(serde_json::Value::Object(all.clone())).map_err(invalid)?;
        let verdict = self.judge(answer, &all, &expect);
        self.cache.insert(key, verdict.clone());
        verdict.outcome
    }

    fn judge(
        &self,
        answer: Answer,
        all: &serde_json::Map<String, serde_json::Value>,
        expect: &Expect<'_>,
    ) -> Verdict {
        let Expect {
            issuer,
            audience,
            rules,
        } = *expect;
        let refuse = |why: String| Verdict {
            outcome: Err(AuthError::invalid_token(why)),
            keep: REFUSAL_TTL,
        };
        if !answer.active {
            return refuse("the access token is not active".to_owned());
        }
        // RFC 7662 §2.2 `token_type` (RFC 6749 §7.1 types, or the RFC 8693 URI): a refresh
        // token an issuer also introspects is not a credential for a request.
        if let Some(kind) = answer.token_type.as_deref()
            && ![
                "bearer",
                "dpop",
                "access_token",
                "urn:ietf:params:oauth:token-type:access_token",
            ]
            .iter()
            .any(|k| kind.eq_ignore_ascii_case(k))
        {
            return refuse(format!("the token is a {kind} token, not an access token"));
        }
        if answer
            .iss
            .as_deref()
            .is_some_and(|iss| iss != issuer && !rules.also_issuers.iter().any(|i| i == iss))
        {
            return refuse(format!("the access token was not issued by {issuer}"));
        }
        if let Some(audience) = audience {
            match &answer.aud {
                Some(aud)
                    if super::audience_matches(aud, audience)
                        || rules
                            .audiences
                            .iter()
                            .any(|a| super::audience_matches(aud, a)) => {}
                Some(_) => {
                    return refuse(format!(
                        "the access token was issued for another resource (its aud does not name {audience})"
                    ));
                }
                None => {
                    return refuse(format!(
                        "the introspection answer names no audience, so the token cannot be shown to be for {audience}"
                    ));
                }
            }
        }
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default()
            .as_secs();
        let keep = match answer.exp {
            Some(exp) if exp <= now => return refuse("the access token has expired".to_owned()),
            Some(exp) => self.ttl.min(Duration::from_secs(exp - now)),
            None => self.ttl,
        };
        // `sub` alone names the caller, as for JWTs (`client_id` is another namespace).
        let Some(subject) = answer.sub.filter(|s| !s.is_empty()) else {
            return refuse(
                "the introspection answer names no subject (sub), so the caller cannot be told apart"
                    .to_owned(),
            );
        };
        if let Err(refused) = rules.check_required(all) {
            return Verdict {
                outcome: Err(refused),
                keep: REFUSAL_TTL,
            };
        }
        let mut scopes: Vec<String> = answer
            .scope
            .as_deref()
            .unwrap_or("")
            .split_ascii_whitespace()
            .map(str::to_owned)
            .collect();
        for scope in rules.scopes(all) {
            if !scopes.contains(&scope) {
                scopes.push(scope);
            }
        }
        let identity = Identity::subject(subject).with_scopes(scopes);
        let jkt = answer.cnf.and_then(|c| c.jkt).map(Arc::from);
        Verdict {
            outcome: Ok((identity, jkt)),
            keep,
        }
    }
}

/// `application/x-www-form-urlencoded` encoding of one value.
fn form_urlencoded(value: &str) -> String {
    url::form_urlencoded::byte_serialize(value.as_bytes()).collect()
}
