//! The HTTP client of the OTLP/HTTP exporters: reqwest's blocking client (opentelemetry-otlp's
//! own default) given the crate's TLS configuration ([`crate::tls`]: rustls on ring,
//! Mozilla's roots and those of `SSL_CERT_FILE`).
//!
//! The exporter's default client is built without TLS here (this crate links one crypto
//! library, ring, and reqwest's TLS features would bring another): it could reach `http://`
//! collectors only, and an `https://` endpoint (every hosted OTLP backend) exported nothing,
//! without a word. With this client an `https://` collector is verified like any server this
//! crate connects to, and one behind a private CA is trusted through `SSL_CERT_FILE`.

use std::time::Duration;

/// The specification's default for `OTEL_EXPORTER_OTLP_TIMEOUT`.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

/// How long one export may take: `signal_var` (`OTEL_EXPORTER_OTLP_TRACES_TIMEOUT` or
/// `..._METRICS_TIMEOUT`), else `OTEL_EXPORTER_OTLP_TIMEOUT`, in milliseconds, else 10 s;
/// what the exporter would give its own client.
fn timeout(signal_var: &str) -> Duration {
    [signal_var, "OTEL_EXPORTER_OTLP_TIMEOUT"]
        .into_iter()
        .find_map(|var| std::env::var(var).ok()?.trim().parse().ok())
        .map_or(DEFAULT_TIMEOUT, Duration::from_millis)
}

/// The client for one signal's exporter (`signal_var` names its timeout variable).
///
/// # Errors
///
/// `SSL_CERT_FILE` names a file without usable certificates, or the client cannot start.
pub(super) fn client(signal_var: &str) -> Result<reqwest::blocking::Client, String> {
    let roots = crate::tls::env_roots().map_err(|e| e.to_string())?;
    let tls = crate::tls::client_config(roots).map_err(|e| format!("OTLP over TLS: {e}"))?;
    let timeout = timeout(signal_var);
    // The blocking client runs a runtime of its own, which cannot be made on a thread that
    // is inside another (the server's `main` may be): it is built on a thread of its own,
    // as opentelemetry-otlp builds its default one.
    std::thread::Builder::new()
        .name("otlp-http-client".to_owned())
        .spawn(move || {
            reqwest::blocking::Client::builder()
                .timeout(timeout)
                .tls_backend_preconfigured(tls)
                .build()
        })
        .map_err(|e| format!("cannot start the OTLP HTTP client: {e}"))?
        .join()
        .map_err(|_| "building the OTLP HTTP client panicked".to_owned())?
        .map_err(|e| format!("cannot build the OTLP HTTP client: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_client_is_built_inside_a_runtime_too() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        runtime.block_on(async {
            client("OTEL_EXPORTER_OTLP_TRACES_TIMEOUT").expect("a client");
        });
    }
}
