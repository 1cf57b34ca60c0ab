//! `https://` for the client's Streamable HTTP transport (feature `client-https`): rustls on
//! ring, Mozilla's roots, plus the certificates of the file `SSL_CERT_FILE` names (the
//! variable OpenSSL and most HTTP clients read) for a server behind a private CA.

use rustls::pki_types::ServerName;
use std::sync::Arc;

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
    /// roots and those of `SSL_CERT_FILE`, when it is set.
    pub(crate) fn from_env(host: &str) -> Result<Self, String> {
        let config = crate::tls::client_config(crate::tls::env_roots().map_err(|e| e.to_string())?)
            .map_err(|e| e.to_string())?;
        let host = host.trim_start_matches('[').trim_end_matches(']');
        let name = ServerName::try_from(host.to_owned())
            .map_err(|_| format!("{host:?} is not a host name TLS can check"))?;
        Ok(Self {
            connector: tokio_rustls::TlsConnector::from(Arc::new(config)),
            name,
        })
    }

    /// The handshake over `stream`.
    pub(crate) async fn connect(
        &self,
        stream: tokio::net::TcpStream,
    ) -> std::io::Result<tokio_rustls::client::TlsStream<tokio::net::TcpStream>> {
        self.connector.connect(self.name.clone(), stream).await
    }
}
