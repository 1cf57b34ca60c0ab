//! The signature check of a JWT: the issuer's public keys as `ring` takes them, and the
//! verification of `header.payload` against the token's signature (RFC 7515 §5.2).
//!
//! Why `ring` and not `jsonwebtoken::decode`: jsonwebtoken's verification runs on one of its
//! two backends, RustCrypto (an RS256 check cost 190 µs on the benchmark machine, ten times
//! the budget of a request) or aws-lc (a C library built from source with every build of
//! this crate). `ring` is already compiled for the TLS of `net` and verifies RS256 in a
//! fraction of that. jsonwebtoken still parses the headers and the JWKS; the claims are
//! checked in `mod.rs`. No cryptography is written here: ring does it, this file picks the
//! algorithm constant for each JWS `alg` and lays out the key bytes.

use base64::Engine as _;
use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
use jsonwebtoken::jwk::{AlgorithmParameters, EllipticCurve, Jwk};
use jsonwebtoken::{Algorithm, AlgorithmFamily};
use ring::signature::{self, RsaPublicKeyComponents, UnparsedPublicKey};

/// base64url, with or without padding (JWKS writers differ).
const B64: GeneralPurpose = GeneralPurpose::new(
    &base64::alphabet::URL_SAFE,
    GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
);

/// A public key from a JWKS.
#[derive(Debug)]
pub(super) enum PublicKey {
    /// RSA: modulus and exponent, big-endian.
    Rsa { n: Vec<u8>, e: Vec<u8> },
    /// ECDSA on P-256 or P-384: the uncompressed point `04 || x || y`.
    Ecdsa {
        curve: EllipticCurve,
        point: Vec<u8>,
    },
    /// Ed25519: the public key.
    Ed25519(Vec<u8>),
}

impl PublicKey {
    /// The key of a JWK, and its algorithm family; `None` for symmetric keys, curves ring
    /// does not verify (P-521) and malformed components.
    pub(super) fn from_jwk(jwk: &Jwk) -> Option<(Self, AlgorithmFamily)> {
        match &jwk.algorithm {
            AlgorithmParameters::RSA(rsa) => Some((
                PublicKey::Rsa {
                    n: B64.decode(&rsa.n).ok()?,
                    e: B64.decode(&rsa.e).ok()?,
                },
                AlgorithmFamily::Rsa,
            )),
            AlgorithmParameters::EllipticCurve(ec) => {
                let size = match ec.curve {
                    EllipticCurve::P256 => 32,
                    EllipticCurve::P384 => 48,
                    _ => return None,
                };
                let (x, y) = (B64.decode(&ec.x).ok()?, B64.decode(&ec.y).ok()?);
                if x.len() != size || y.len() != size {
                    return None;
                }
                let mut point = Vec::with_capacity(1 + 2 * size);
                point.push(4);
                point.extend_from_slice(&x);
                point.extend_from_slice(&y);
                Some((
                    PublicKey::Ecdsa {
                        curve: ec.curve.clone(),
                        point,
                    },
                    AlgorithmFamily::Ec,
                ))
            }
            AlgorithmParameters::OctetKeyPair(okp) if okp.curve == EllipticCurve::Ed25519 => {
                Some((
                    PublicKey::Ed25519(B64.decode(&okp.x).ok()?),
                    AlgorithmFamily::Ed,
                ))
            }
            _ => None,
        }
    }

    /// Whether this key can have made a signature with `alg` (family and curve).
    pub(super) fn fits(&self, alg: Algorithm) -> bool {
        match (self, alg) {
            (PublicKey::Rsa { .. }, a) => a.family() == AlgorithmFamily::Rsa,
            (PublicKey::Ecdsa { curve, .. }, Algorithm::ES256) => *curve == EllipticCurve::P256,
            (PublicKey::Ecdsa { curve, .. }, Algorithm::ES384) => *curve == EllipticCurve::P384,
            (PublicKey::Ed25519(_), Algorithm::EdDSA) => true,
            _ => false,
        }
    }

    /// Whether `signature` is this key's signature of `message` with `alg`. RSA keys shorter
    /// than 2048 bits never verify (ring refuses them).
    pub(super) fn verify(&self, alg: Algorithm, message: &[u8], signature: &[u8]) -> bool {
        match self {
            PublicKey::Rsa { n, e } => {
                let params: &signature::RsaParameters = match alg {
                    Algorithm::RS256 => &signature::RSA_PKCS1_2048_8192_SHA256,
                    Algorithm::RS384 => &signature::RSA_PKCS1_2048_8192_SHA384,
                    Algorithm::RS512 => &signature::RSA_PKCS1_2048_8192_SHA512,
                    Algorithm::PS256 => &signature::RSA_PSS_2048_8192_SHA256,
                    Algorithm::PS384 => &signature::RSA_PSS_2048_8192_SHA384,
                    Algorithm::PS512 => &signature::RSA_PSS_2048_8192_SHA512,
                    _ => return false,
                };
                RsaPublicKeyComponents { n, e }
                    .verify(params, message, signature)
                    .is_ok()
            }
            PublicKey::Ecdsa { point, .. } => {
                let params: &'static dyn signature::VerificationAlgorithm = match alg {
                    Algorithm::ES256 => &signature::ECDSA_P256_SHA256_FIXED,
                    Algorithm::ES384 => &signature::ECDSA_P384_SHA384_FIXED,
                    _ => return false,
                };
                self.fits(alg)
                    && UnparsedPublicKey::new(params, point)
                        .verify(message, signature)
                        .is_ok()
            }
            PublicKey::Ed25519(key) => {
                alg == Algorithm::EdDSA
                    && UnparsedPublicKey::new(&signature::ED25519, key)
                        .verify(message, signature)
                        .is_ok()
            }
        }
    }
}

/// A compact JWS split for verification: the signing input (`header.payload`, as sent) and
/// the decoded signature.
pub(super) fn signing_parts(token: &str) -> Option<(&str, Vec<u8>)> {
    let (input, signature) = token.rsplit_once('.')?;
    if input.matches('.').count() != 1 {
        return None;
    }
    Some((input, B64.decode(signature).ok()?))
}
