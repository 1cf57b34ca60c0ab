//! The TLS client configuration of every connection this crate opens (the client's
//! `https://` transport, the `net` feature's `NetService`, the `otel` feature's OTLP/HTTP
//! exports), public so that programs
//! built on the crate (`cargo mcp`'s OAuth requests) trust the same roots: rustls on ring,
//! its safe default protocol versions (TLS 1.2 and 1.3), Mozilla's roots (`webpki-roots`,
//! built in, so a server needs no system certificate store) plus whatever roots the caller
//! adds, such as those of the file [`CERT_FILE_ENV`] names.
//!
//! ```
//! let config = mcp_runtime::tls::client_config(mcp_runtime::tls::env_roots()?)?;
//! assert!(config.alpn_protocols.is_empty());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use rustls::pki_types::CertificateDer;
use rustls::pki_types::pem::PemObject as _;
use std::sync::Arc;

/// The variable naming a PEM file of extra root certificates (the one OpenSSL and most
/// HTTP clients read), for servers behind a private certificate authority.
pub const CERT_FILE_ENV: &str = "SSL_CERT_FILE";

/// A client configuration trusting Mozilla's roots and `extra`.
///
/// # Errors
///
/// A certificate of `extra` is not a usable root.
pub fn client_config<'a>(
    extra: impl IntoIterator<Item = CertificateDer<'a>>,
) -> Result<rustls::ClientConfig, rustls::Error> {
    let mut roots = rustls::RootCertStore::empty();
    roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
    for cert in extra {
        roots.add(cert)?;
    }
    Ok(rustls::ClientConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()?
    .with_root_certificates(roots)
    .with_no_client_auth())
}

/// The certificates of the `CERTIFICATE` blocks of `pem` (other blocks are skipped).
///
/// # Errors
///
/// A block is malformed; the message says so.
pub(crate) fn pem_certificates(pem: &[u8]) -> Result<Vec<CertificateDer<'static>>, String> {
    CertificateDer::pem_slice_iter(pem)
        .map(|cert| cert.map_err(|e| format!("root certificate PEM: {e}")))
        .collect()
}

/// The roots of the file [`CERT_FILE_ENV`] names; none when the variable is unset.
///
/// # Errors
///
/// The file cannot be read, or holds a malformed block; the message names the file.
pub fn env_roots() -> Result<Vec<CertificateDer<'static>>, RootsError> {
    let Some(path) = std::env::var_os(CERT_FILE_ENV) else {
        return Ok(Vec::new());
    };
    let shown = || format!("{CERT_FILE_ENV}={}", path.to_string_lossy());
    let pem =
        std::fs::read(&path).map_err(|e| RootsError(format!("cannot read {}: {e}", shown())))?;
    pem_certificates(&pem).map_err(|e| RootsError(format!("{}: {e}", shown())))
}

/// Why the extra roots could not be read: the file and what is wrong with it, as a message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct RootsError(String);

#[cfg(test)]
mod tests {
    use super::*;

    /// A whole handshake in memory between `client` and a server presenting `cert`.
    fn handshake(
        client: rustls::ClientConfig,
        cert: &rcgen::CertifiedKey<rcgen::KeyPair>,
    ) -> Result<(), rustls::Error> {
        let server = rustls::ServerConfig::builder_with_provider(Arc::new(
            rustls::crypto::ring::default_provider(),
        ))
        .with_safe_default_protocol_versions()?
        .with_no_client_auth()
        .with_single_cert(
            vec![cert.cert.der().clone()],
            rustls::pki_types::PrivateKeyDer::Pkcs8(cert.signing_key.serialize_der().into()),
        )?;
        let name = "private.test".try_into().expect("a DNS name");
        let mut c = rustls::ClientConnection::new(Arc::new(client), name)?;
        let mut s = rustls::ServerConnection::new(Arc::new(server))?;
        fn pass(
            from: &mut impl std::ops::DerefMut<Target = rustls::ConnectionCommon<impl Sized>>,
            to: &mut impl std::ops::DerefMut<Target = rustls::ConnectionCommon<impl Sized>>,
        ) -> Result<(), rustls::Error> {
            let mut bytes = Vec::new();
            while from.wants_write() {
                from.write_tls(&mut bytes).expect("writes to a Vec");
            }
            let mut rest = bytes.as_slice();
            while !rest.is_empty() {
                to.read_tls(&mut rest).expect("reads from a slice");
                to.process_new_packets()?;
            }
            Ok(())
        }
        for _ in 0..8 {
            pass(&mut c, &mut s)?;
            pass(&mut s, &mut c)?;
            if !c.is_handshaking() && !s.is_handshaking() {
                return Ok(());
            }
        }
        panic!("the handshake made no progress");
    }

    #[test]
    fn a_private_root_from_pem_is_trusted_beside_mozillas() {
        let cert = rcgen::generate_simple_self_signed(vec!["private.test".to_owned()]).unwrap();
        // A key block beside the certificate is skipped, as in a combined PEM file.
        let pem = format!("{}{}", cert.signing_key.serialize_pem(), cert.cert.pem());
        let roots = pem_certificates(pem.as_bytes()).unwrap();
        assert_eq!(roots.len(), 1);
        assert_eq!(roots[0].as_ref(), cert.cert.der().as_ref());

        handshake(client_config(roots).unwrap(), &cert).expect("trusted through the extra root");
        let refused = handshake(client_config([]).unwrap(), &cert).unwrap_err();
        assert!(
            matches!(refused, rustls::Error::InvalidCertificate(_)),
            "{refused:?}"
        );
    }

    #[test]
    fn a_malformed_block_is_an_error_not_a_missing_root() {
        let pem = b"-----BEGIN CERTIFICATE-----\nnot base64!\n-----END CERTIFICATE-----\n";
        let e = pem_certificates(pem).unwrap_err();
        assert!(e.starts_with("root certificate PEM:"), "{e}");
        assert!(client_config([CertificateDer::from(&b"junk"[..])]).is_err());
    }
}
