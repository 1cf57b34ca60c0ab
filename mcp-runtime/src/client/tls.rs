//! `https://` for the client's Streamable HTTP transport (feature `client-https`): rustls on
//! ring, Mozilla's roots, plus the certificates of the file `SSL_CERT_FILE` names (the
//! variable OpenSSL and most HTTP clients read) for a server behind a private CA.

use rustls::pki_types::pem::PemObject as _;
use rustls::pki_types::{CertificateDer, ServerName};
use std::sync::Arc;

/// The variable naming extra root certificates (PEM).
pub(crate) const CERT_FILE_ENV: &str = "SSL_CERT_FILE";

/// How to open TLS to one server.
#[derive(Clone)]
pub(crate) struct Tls {
    connector: tokio_rustls::TlsConnector,
    name: ServerName<'static>,
}

impl std::fmt::Debug for Tls {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tls").field("name", &self.name).finish()
    }
}

impl Tls {
    /// TLS to `host` (a DNS name or an IP literal, brackets allowed), trusting Mozilla's
    /// roots and those of `extra_pem`.
    pub(crate) fn new(host: &str, extra_pem: Option<&[u8]>) -> Result<Self, String> {
        let mut roots = rustls::RootCertStore::empty();
        roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
        if let Some(pem) = extra_pem {
            for cert in CertificateDer::pem_slice_iter(pem) {
                let cert = cert.map_err(|e| format!("root certificates: {e}"))?;
                roots
                    .add(cert)
                    .map_err(|e| format!("root certificates: {e}"))?;
            }
        }
        let config = rustls::ClientConfig::builder_with_provider(Arc::new(
            rustls::crypto::ring::default_provider(),
        ))
        .with_safe_default_protocol_versions()
        .map_err(|e| e.to_string())?
        .with_root_certificates(roots)
        .with_no_client_auth();
        let host = host.trim_start_matches('[').trim_end_matches(']');
        let name = ServerName::try_from(host.to_owned())
            .map_err(|_| format!("{host:?} is not a host name TLS can check"))?;
        Ok(Self {
            connector: tokio_rustls::TlsConnector::from(Arc::new(config)),
            name,
        })
    }

    /// TLS to `host` with the roots of `SSL_CERT_FILE` too, when it is set.
    pub(crate) fn from_env(host: &str) -> Result<Self, String> {
        match std::env::var_os(CERT_FILE_ENV) {
            Some(path) => {
                let pem = std::fs::read(&path).map_err(|e| {
                    format!(
                        "cannot read {CERT_FILE_ENV}={}: {e}",
                        path.to_string_lossy()
                    )
                })?;
                Self::new(host, Some(&pem))
            }
            None => Self::new(host, None),
        }
    }

    /// The handshake over `stream`.
    pub(crate) async fn connect(
        &self,
        stream: tokio::net::TcpStream,
    ) -> std::io::Result<tokio_rustls::client::TlsStream<tokio::net::TcpStream>> {
        self.connector.connect(self.name.clone(), stream).await
    }
}
