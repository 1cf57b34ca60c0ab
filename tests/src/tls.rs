//! TLS in front of a plain-HTTP server on loopback: what a reverse proxy does, so that the
//! clients' `https://` paths can be tested against the example servers.

use std::net::SocketAddr;
use std::sync::Arc;

/// A TLS listener on `127.0.0.1` forwarding each connection to `upstream`, with a
/// certificate made for `localhost` and `127.0.0.1`.
#[derive(Debug)]
pub struct TlsProxy {
    /// The port it listens on.
    pub port: u16,
    /// Its certificate (PEM), the root a client must trust.
    pub cert_pem: String,
    _runtime: tokio::runtime::Runtime,
}

impl TlsProxy {
    /// Starts the proxy on a runtime of its own.
    pub fn start(upstream: SocketAddr) -> Self {
        let key = rcgen::generate_simple_self_signed(vec![
            "localhost".to_owned(),
            "127.0.0.1".to_owned(),
        ])
        .expect("a self-signed certificate");
        let cert_pem = key.cert.pem();
        let config = rustls::ServerConfig::builder_with_provider(Arc::new(
            rustls::crypto::ring::default_provider(),
        ))
        .with_safe_default_protocol_versions()
        .expect("TLS versions")
        .with_no_client_auth()
        .with_single_cert(
            vec![key.cert.der().clone()],
            rustls::pki_types::PrivateKeyDer::Pkcs8(key.signing_key.serialize_der().into()),
        )
        .expect("the certificate and key");
        let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .expect("a runtime");
        let listener = runtime
            .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
            .expect("a loopback port");
        let port = listener.local_addr().expect("its address").port();
        runtime.spawn(async move {
            while let Ok((conn, _)) = listener.accept().await {
                let acceptor = acceptor.clone();
                tokio::spawn(async move {
                    let Ok(mut tls) = acceptor.accept(conn).await else {
                        return;
                    };
                    let Ok(mut plain) = tokio::net::TcpStream::connect(upstream).await else {
                        return;
                    };
                    let _ = tokio::io::copy_bidirectional(&mut tls, &mut plain).await;
                });
            }
        });
        Self {
            port,
            cert_pem,
            _runtime: runtime,
        }
    }
}
