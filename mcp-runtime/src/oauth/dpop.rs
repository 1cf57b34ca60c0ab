//! DPoP (RFC 9449, MCP's SEP-1932) on the resource server: a token bound to a client's key
//! (`cnf.jkt`) is accepted only with `Authorization: DPoP <token>` and a `DPoP` header
//! holding a fresh proof signed by that key for this very request.
//!
//! What a proof must be (RFC 9449 §4.3), checked in this order, the cheap checks first:
//!
//! - one `DPoP` header, at most [`MAX_PROOF_BYTES`], a JWT whose header says
//!   `typ: dpop+jwt`, an accepted asymmetric `alg`, and a public `jwk` (no private member);
//! - signed by that `jwk` (by `ring`, as access tokens are);
//! - `htm` the request's method, `htu` the request's URL without query or fragment: this
//!   server's public origin (its OAuth audience's, so a proxy terminating TLS does not
//!   change it) and the request's path;
//! - `iat` no older than [`PROOF_MAX_AGE`] and not in the future, both with the
//!   verifier's leeway;
//! - `ath` the base64url SHA-256 of the access token;
//! - the key's RFC 7638 thumbprint the token's `cnf.jkt`;
//! - `jti` never seen before for this key: spent in the replay store
//!   ([`OAuthBuilder::dpop_replays`](super::OAuthBuilder::dpop_replays); in memory by
//!   default, the fleet's Redis for a server started with `--redis`) until the proof could
//!   no longer pass the `iat` check, so the store holds a few minutes of proofs at most. A
//!   store that cannot answer refuses (503): a replay is never let through.
//!
//! Every refusal names what failed, with `WWW-Authenticate: DPoP error="invalid_dpop_proof"`
//! (or `invalid_token` for a bound token sent as a bearer token, RFC 9449 §7.2) and the
//! accepted `algs`. Server-provided nonces (`use_dpop_nonce`) are not asked for: `jti`, `iat`
//! and the replay store bound a captured proof's use to nothing.

use super::claims::numeric_date;
use super::signature::{PublicKey, signing_parts};
use crate::context::SpentNonces;
use crate::transport::http::AuthError;
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::jwk::{AlgorithmParameters, EllipticCurve, Jwk};
use jsonwebtoken::{Algorithm, AlgorithmFamily};
use serde::Deserialize;
use sha2::{Digest, Sha256};
use std::sync::Arc;
use std::time::Duration;

/// The longest proof read.
pub const MAX_PROOF_BYTES: usize = 8 * 1024;

/// How old a proof may be (`iat`), beside the leeway.
pub const PROOF_MAX_AGE: Duration = Duration::from_secs(60);

/// The longest `jti` accepted.
const MAX_JTI_BYTES: usize = 256;

/// The claims of a proof.
#[derive(Deserialize)]
struct ProofClaims {
    jti: Option<String>,
    htm: Option<String>,
    htu: Option<String>,
    #[serde(default, deserialize_with = "numeric_date")]
    iat: Option<u64>,
    ath: Option<String>,
}

/// Checks proofs for one verifier.
pub(super) struct Proofs {
    pub(super) replays: Arc<dyn SpentNonces>,
    pub(super) algorithms: Vec<Algorithm>,
    pub(super) leeway: Duration,
}

/// What a proof is checked against: the request and the token it came with.
pub(super) struct Request<'a> {
    pub(super) method: &'a str,
    /// The URL the client must have used: this server's public origin and the path.
    pub(super) url: &'a str,
    pub(super) token: &'a str,
    /// The token's `cnf.jkt`.
    pub(super) bound_to: &'a str,
}

impl Proofs {
    /// The `algs` of a DPoP challenge.
    pub(super) fn algs(&self) -> String {
        let names: Vec<String> = self.algorithms.iter().map(|a| format!("{a:?}")).collect();
        names.join(" ")
    }

    /// A refusal with the DPoP challenge.
    pub(super) fn refuse(&self, why: impl Into<String>) -> AuthError {
        AuthError::invalid_dpop_proof(why.into(), self.algs())
    }

    /// Checks `proof` for `request`: `Ok` when it is fresh, signed by the key the token is
    /// bound to, for this method, URL and token, and was never used before.
    pub(super) async fn check(&self, proof: &str, request: Request<'_>) -> Result<(), AuthError> {
        if proof.len() > MAX_PROOF_BYTES {
            return Err(self.refuse(format!(
                "the DPoP proof is longer than {MAX_PROOF_BYTES} bytes"
            )));
        }
        let header = jsonwebtoken::decode_header(proof)
            .map_err(|_| self.refuse("the DPoP proof is not a JWT"))?;
        if !header
            .typ
            .as_deref()
            .is_some_and(|t| t.eq_ignore_ascii_case("dpop+jwt"))
        {
            return Err(self.refuse("the DPoP proof's typ is not dpop+jwt"));
        }
        let alg = header.alg;
        if alg.family() == AlgorithmFamily::Hmac || !self.algorithms.contains(&alg) {
            return Err(self.refuse(format!(
                "the DPoP proof is signed with {alg:?}, which this server does not accept"
            )));
        }
        let jwk = header
            .jwk
            .as_ref()
            .ok_or_else(|| self.refuse("the DPoP proof has no jwk header"))?;
        if has_private_member(proof) {
            return Err(self.refuse("the DPoP proof's jwk holds a private key"));
        }
        let key = PublicKey::from_jwk(jwk)
            .map(|(key, _)| key)
            .filter(|key| key.fits(alg))
            .ok_or_else(|| self.refuse("the DPoP proof's jwk is not a usable key for its alg"))?;
        let (input, signature) =
            signing_parts(proof).ok_or_else(|| self.refuse("the DPoP proof is not a JWS"))?;
        if !key.verify(alg, input.as_bytes(), &signature) {
            return Err(self.refuse("the DPoP proof's signature is not valid"));
        }
        let claims: ProofClaims = jsonwebtoken::dangerous::insecure_decode_claims(proof)
            .map_err(|_| self.refuse("the DPoP proof's claims cannot be read"))?;
        if claims.htm.as_deref() != Some(request.method) {
            return Err(self.refuse(format!(
                "the DPoP proof is for another method (htm is not {})",
                request.method
            )));
        }
        if !claims
            .htu
            .as_deref()
            .is_some_and(|htu| same_url(htu, request.url))
        {
            return Err(self.refuse(format!(
                "the DPoP proof is for another URL (htu is not {})",
                request.url
            )));
        }
        let now = jsonwebtoken::get_current_timestamp();
        let leeway = self.leeway.as_secs();
        let oldest = now.saturating_sub(PROOF_MAX_AGE.as_secs() + leeway);
        let iat = claims
            .iat
            .ok_or_else(|| self.refuse("the DPoP proof has no iat"))?;
        if iat < oldest || iat > now.saturating_add(leeway) {
            return Err(self.refuse(
                "the DPoP proof's iat is not recent (make a new proof for every request)",
            ));
        }
        let ath = URL_SAFE_NO_PAD.encode(Sha256::digest(request.token.as_bytes()));
        if claims.ath.as_deref() != Some(ath.as_str()) {
            return Err(self.refuse("the DPoP proof's ath is not this access token's hash"));
        }
        let jkt =
            thumbprint(jwk).ok_or_else(|| self.refuse("the DPoP proof's jwk has no thumbprint"))?;
        if jkt != request.bound_to {
            return Err(self.refuse(
                "the DPoP proof is signed by another key than the one the access token is bound to (cnf.jkt)",
            ));
        }
        let jti = claims
            .jti
            .filter(|j| !j.is_empty() && j.len() <= MAX_JTI_BYTES)
            .ok_or_else(|| self.refuse("the DPoP proof has no usable jti"))?;
        // The key and the jti, hashed: a fixed-size key whatever the client sent.
        let mut id = Sha256::new();
        id.update(jkt.as_bytes());
        id.update([0]);
        id.update(jti.as_bytes());
        let nonce = format!("dpop:{}", URL_SAFE_NO_PAD.encode(id.finalize()));
        let until = iat + PROOF_MAX_AGE.as_secs() + 2 * leeway;
        match self.replays.spend_nonce(nonce, until).await {
            Ok(true) => Ok(()),
            Ok(false) => Err(self.refuse("the DPoP proof was used before (its jti is spent)")),
            Err(e) => Err(AuthError::unavailable(format!(
                "DPoP proofs cannot be checked for replay now: {e}"
            ))),
        }
    }
}

/// The JWK's RFC 7638 thumbprint (SHA-256, base64url): its required members in
/// lexicographic order, without spaces. Written here because `Jwk::thumbprint` hashes
/// through jsonwebtoken's crypto backend, which this crate does not enable (see
/// `signature.rs`); the members were checked to be base64url by `PublicKey::from_jwk`.
fn thumbprint(jwk: &Jwk) -> Option<String> {
    let canonical = match &jwk.algorithm {
        AlgorithmParameters::EllipticCurve(ec) => {
            let crv = match ec.curve {
                EllipticCurve::P256 => "P-256",
                EllipticCurve::P384 => "P-384",
                EllipticCurve::P521 => "P-521",
                _ => return None,
            };
            format!(
                r#"{{"crv":"{crv}","kty":"EC","x":"{}","y":"{}"}}"#,
                ec.x, ec.y
            )
        }
        AlgorithmParameters::RSA(rsa) => {
            format!(r#"{{"e":"{}","kty":"RSA","n":"{}"}}"#, rsa.e, rsa.n)
        }
        AlgorithmParameters::OctetKeyPair(okp) if okp.curve == EllipticCurve::Ed25519 => {
            format!(r#"{{"crv":"Ed25519","kty":"OKP","x":"{}"}}"#, okp.x)
        }
        _ => return None,
    };
    Some(URL_SAFE_NO_PAD.encode(Sha256::digest(canonical.as_bytes())))
}

/// Whether the proof's `jwk` header holds a private member (`d`, RSA's primes and
/// exponents): a client that sent its private key has no key worth binding to.
fn has_private_member(proof: &str) -> bool {
    let Some(header) = proof
        .split('.')
        .next()
        .and_then(|h| URL_SAFE_NO_PAD.decode(h).ok())
        .and_then(|h| serde_json::from_slice::<serde_json::Value>(&h).ok())
    else {
        return true;
    };
    ["d", "p", "q", "dp", "dq", "qi", "k"]
        .iter()
        .any(|m| header["jwk"].get(m).is_some())
}

/// Whether `htu` names `url` (RFC 9449 §4.3: without query and fragment, compared after
/// syntax-based normalization: scheme and host case, default ports, dot segments).
fn same_url(htu: &str, url: &str) -> bool {
    let (Ok(a), Ok(b)) = (url::Url::parse(htu), url::Url::parse(url)) else {
        return false;
    };
    a.scheme() == b.scheme()
        && a.host_str().map(str::to_ascii_lowercase) == b.host_str().map(str::to_ascii_lowercase)
        && a.port_or_known_default() == b.port_or_known_default()
        && a.path() == b.path()
}

#[cfg(test)]
mod tests {
    use super::{same_url, thumbprint};

    #[test]
    fn the_thumbprint_is_rfc_7638s() {
        // RFC 7638 §3.1's example key and thumbprint.
        let jwk: jsonwebtoken::jwk::Jwk = serde_json::from_value(serde_json::json!({
            "kty": "RSA",
            "n": "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw",
            "e": "AQAB",
            "alg": "RS256",
            "kid": "2011-04-29"
        }))
        .unwrap();
        assert_eq!(
            thumbprint(&jwk).as_deref(),
            Some("NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs")
        );
    }

    #[test]
    fn urls_compare_after_normalization_and_without_query() {
        assert!(same_url(
            "https://MCP.example.com:443/mcp?x=1#f",
            "https://mcp.example.com/mcp"
        ));
        assert!(same_url(
            "https://mcp.example.com/a/../mcp",
            "https://mcp.example.com/mcp"
        ));
        assert!(!same_url(
            "https://mcp.example.com/other",
            "https://mcp.example.com/mcp"
        ));
        assert!(!same_url(
            "http://mcp.example.com/mcp",
            "https://mcp.example.com/mcp"
        ));
        assert!(!same_url(
            "https://evil.example.com/mcp",
            "https://mcp.example.com/mcp"
        ));
        assert!(!same_url("not a url", "https://mcp.example.com/mcp"));
    }

    /// The client's proofs (`client::DpopKey`) are what this side checks for.
    #[tokio::test]
    async fn the_clients_proofs_pass_and_a_replay_does_not() {
        let key = crate::client::DpopKey::generate().unwrap();
        let proofs = super::Proofs {
            replays: std::sync::Arc::new(crate::context::MemoryNonces::new()),
            algorithms: crate::oauth::DEFAULT_ALGORITHMS.to_vec(),
            leeway: std::time::Duration::from_secs(5),
        };
        let url = "http://127.0.0.1:8000/mcp";
        let request = || super::Request {
            method: "POST",
            url,
            token: "tok",
            bound_to: key.thumbprint(),
        };
        let proof = key.proof("POST", "http://127.0.0.1:8000/mcp?q", Some("tok"), None);
        proofs.check(&proof, request()).await.unwrap();
        assert!(proofs.check(&proof, request()).await.is_err(), "a replay");
        let other_token = key.proof("POST", url, Some("other"), None);
        assert!(proofs.check(&other_token, request()).await.is_err());
        let other_key = crate::client::DpopKey::generate().unwrap();
        let other_key = other_key.proof("POST", url, Some("tok"), None);
        assert!(proofs.check(&other_key, request()).await.is_err());
    }
}
