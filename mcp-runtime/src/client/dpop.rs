//! DPoP (RFC 9449) on the client's side: the key a client proves it holds, and the proofs.
//!
//! A DPoP-bound access token names the thumbprint of a client's public key (`cnf.jkt`); the
//! resource server accepts it only with `Authorization: DPoP <token>` and a `DPoP` header:
//! a fresh JWT signed by that key for this request's method and URL and this token.
//! [`DpopKey`] is that key, and the HTTP client signs one proof per request with it
//! ([`Client::http_with_dpop`](super::Client::http_with_dpop), and client credentials with
//! [`ClientCredentials::dpop`](super::ClientCredentials::dpop)).
//!
//! # Decisions
//!
//! - **ES256 only** (ECDSA on P-256 with SHA-256): the algorithm every DPoP server accepts
//!   (the RFC's examples, Okta, Keycloak, Auth0, this crate's resource server), small proofs,
//!   and cheap signatures. Keys come from `ring`, which the client's TLS already builds.
//! - **Server nonces** (RFC 9449 §8, §9): a `DPoP-Nonce` header in any answer is kept and
//!   put in the following proofs; a refusal asking for one (`use_dpop_nonce`) is retried
//!   once with the nonce it gave.
//! - `htu` is the request's URL without its query and fragment (RFC 9449 §4.2).

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use ring::rand::{SecureRandom as _, SystemRandom};
use ring::signature::{ECDSA_P256_SHA256_FIXED_SIGNING, EcdsaKeyPair, KeyPair as _};
use std::fmt;
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

/// The header a proof travels in.
pub(crate) const DPOP: &str = "dpop";
/// The header a server gives its nonce in.
pub(crate) const DPOP_NONCE: &str = "dpop-nonce";

/// A client's DPoP key (RFC 9449): an ES256 (P-256) key pair whose public half access
/// tokens are bound to, and which signs one proof per request.
///
/// Cloning is cheap (the key is shared). The private key is never printed; keep it where
/// the tokens bound to it are kept ([`to_pkcs8`](Self::to_pkcs8), read back with
/// [`from_pkcs8`](Self::from_pkcs8)): a refresh token bound to a key is only accepted with a
/// proof by that key.
///
/// ```
/// use mcp_runtime::client::DpopKey;
///
/// let key = DpopKey::generate().unwrap();
/// let again = DpopKey::from_pkcs8(key.to_pkcs8()).unwrap();
/// assert_eq!(key.thumbprint(), again.thumbprint());
///
/// let proof = key.proof("POST", "https://mcp.example.com/mcp?x=1", Some("the-token"), None);
/// let header: serde_json::Value = serde_json::from_slice(
///     &base64::Engine::decode(
///         &base64::engine::general_purpose::URL_SAFE_NO_PAD,
///         proof.split('.').next().unwrap(),
///     )
///     .unwrap(),
/// )
/// .unwrap();
/// assert_eq!(header["typ"], "dpop+jwt");
/// assert_eq!(header["alg"], "ES256");
/// assert_eq!(header["jwk"]["crv"], "P-256");
/// assert!(header["jwk"].get("d").is_none());
/// ```
#[derive(Clone)]
pub struct DpopKey {
    inner: Arc<Inner>,
}

struct Inner {
    pair: EcdsaKeyPair,
    pkcs8: Vec<u8>,
    /// The proof's protected header, base64url (the same for every proof of this key).
    header: String,
    thumbprint: String,
}

impl fmt::Debug for DpopKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The private key is a secret: only the public key's thumbprint.
        f.debug_struct("DpopKey")
            .field("thumbprint", &self.inner.thumbprint)
            .finish_non_exhaustive()
    }
}

/// Why a [`DpopKey`] could not be made.
#[derive(Debug, thiserror::Error)]
pub enum DpopKeyError {
    /// The system gave no randomness to make a key with.
    #[error("cannot make a DPoP key: the system gave no randomness")]
    NoRandomness,
    /// The bytes are not a P-256 private key in PKCS#8.
    #[error("not a P-256 private key in PKCS#8 (DER)")]
    NotAKey,
}

impl DpopKey {
    /// A new random key.
    pub fn generate() -> Result<Self, DpopKeyError> {
        let rng = SystemRandom::new();
        let document = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &rng)
            .map_err(|_| DpopKeyError::NoRandomness)?;
        Self::from_pkcs8(document.as_ref())
    }

    /// The key stored by [`to_pkcs8`](Self::to_pkcs8).
    pub fn from_pkcs8(pkcs8: &[u8]) -> Result<Self, DpopKeyError> {
        let rng = SystemRandom::new();
        let pair = EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, pkcs8, &rng)
            .map_err(|_| DpopKeyError::NotAKey)?;
        // The public key is the uncompressed point: 0x04, x, y (32 bytes each).
        let point = pair.public_key().as_ref();
        let (x, y) = point[1..].split_at(32);
        let (x, y) = (URL_SAFE_NO_PAD.encode(x), URL_SAFE_NO_PAD.encode(y));
        // RFC 7638: the required members in lexicographic order, no spaces.
        let canonical = format!(r#"{{"crv":"P-256","kty":"EC","x":"{x}","y":"{y}"}}"#);
        let thumbprint = URL_SAFE_NO_PAD.encode(ring::digest::digest(
            &ring::digest::SHA256,
            canonical.as_bytes(),
        ));
        let header = serde_json::json!({
            "typ": "dpop+jwt",
            "alg": "ES256",
            "jwk": {"kty": "EC", "crv": "P-256", "x": x, "y": y},
        });
        Ok(Self {
            inner: Arc::new(Inner {
                pair,
                pkcs8: pkcs8.to_vec(),
                header: URL_SAFE_NO_PAD.encode(header.to_string()),
                thumbprint,
            }),
        })
    }

    /// The private key in PKCS#8 (DER), to store beside the tokens bound to it.
    pub fn to_pkcs8(&self) -> &[u8] {
        &self.inner.pkcs8
    }

    /// The public key's RFC 7638 thumbprint (SHA-256, base64url): what a token bound to
    /// this key carries as `cnf.jkt`.
    pub fn thumbprint(&self) -> &str {
        &self.inner.thumbprint
    }

    /// A proof for one request: `method` (`POST`), the request's `url` (its query and
    /// fragment are left out), the access token it carries if any (`ath`), and the
    /// server's latest nonce if it gave one.
    pub fn proof(
        &self,
        method: &str,
        url: &str,
        access_token: Option<&str>,
        nonce: Option<&str>,
    ) -> String {
        let htu = url.split(['?', '#']).next().unwrap_or(url);
        let iat = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let mut jti = [0u8; 16];
        // A failed draw leaves zeros; the proof is then refused as a replay, not forged.
        let _ = SystemRandom::new().fill(&mut jti);
        let mut claims = serde_json::json!({
            "jti": URL_SAFE_NO_PAD.encode(jti),
            "htm": method,
            "htu": htu,
            "iat": iat,
        });
        if let Some(token) = access_token {
            let hash = ring::digest::digest(&ring::digest::SHA256, token.as_bytes());
            claims["ath"] = URL_SAFE_NO_PAD.encode(hash).into();
        }
        if let Some(nonce) = nonce {
            claims["nonce"] = nonce.into();
        }
        let signing_input = format!(
            "{}.{}",
            self.inner.header,
            URL_SAFE_NO_PAD.encode(claims.to_string())
        );
        let signature = self
            .inner
            .pair
            .sign(&SystemRandom::new(), signing_input.as_bytes())
            .map(|s| URL_SAFE_NO_PAD.encode(s.as_ref()))
            // Signing fails only without randomness: an unsigned proof is refused.
            .unwrap_or_default();
        format!("{signing_input}.{signature}")
    }
}

/// Whether a refusal asks for a DPoP nonce (`error="use_dpop_nonce"` in a `DPoP`
/// challenge, RFC 9449 §9, or in a token endpoint's JSON error, §8).
pub(crate) fn asks_for_nonce(challenge: Option<&str>) -> bool {
    challenge.is_some_and(|c| c.contains("use_dpop_nonce"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn part(jwt: &str, i: usize) -> serde_json::Value {
        let part = jwt.split('.').nth(i).unwrap();
        serde_json::from_slice(&URL_SAFE_NO_PAD.decode(part).unwrap()).unwrap()
    }

    #[test]
    fn a_proof_names_the_request_and_the_token_and_is_signed_by_the_key() {
        let key = DpopKey::generate().unwrap();
        let proof = key.proof(
            "GET",
            "http://127.0.0.1:8000/mcp?a=b#c",
            Some("tok"),
            Some("n1"),
        );
        let claims = part(&proof, 1);
        assert_eq!(claims["htm"], "GET");
        assert_eq!(claims["htu"], "http://127.0.0.1:8000/mcp");
        assert_eq!(claims["nonce"], "n1");
        // RFC 9449 §4.2: ath is base64url(SHA-256(token)).
        assert_eq!(
            claims["ath"],
            URL_SAFE_NO_PAD.encode(ring::digest::digest(&ring::digest::SHA256, b"tok"))
        );
        let other = key.proof("GET", "http://127.0.0.1:8000/mcp", None, None);
        assert_ne!(part(&other, 1)["jti"], claims["jti"]);
        assert!(part(&other, 1).get("ath").is_none());

        let header = part(&proof, 0);
        let jwk = &header["jwk"];
        let point: Vec<u8> = [
            &[4u8][..],
            &URL_SAFE_NO_PAD.decode(jwk["x"].as_str().unwrap()).unwrap(),
            &URL_SAFE_NO_PAD.decode(jwk["y"].as_str().unwrap()).unwrap(),
        ]
        .concat();
        let (input, signature) = proof.rsplit_once('.').unwrap();
        ring::signature::UnparsedPublicKey::new(&ring::signature::ECDSA_P256_SHA256_FIXED, point)
            .verify(
                input.as_bytes(),
                &URL_SAFE_NO_PAD.decode(signature).unwrap(),
            )
            .expect("the proof is signed by the key in its header");
        assert!(DpopKey::from_pkcs8(b"not a key").is_err());
    }
}
