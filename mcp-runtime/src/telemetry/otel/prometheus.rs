//! The Prometheus scrape endpoint (feature `otel-prometheus`): the request metrics read by the
//! OpenTelemetry project's Prometheus exporter into a registry of their own, and `GET /metrics`
//! answering its text exposition on a listener of its own, the way the OpenTelemetry
//! specification configures it: `OTEL_METRICS_EXPORTER=prometheus`,
//! `OTEL_EXPORTER_PROMETHEUS_HOST` (default `localhost`) and `OTEL_EXPORTER_PROMETHEUS_PORT`
//! (default 9464).
//!
//! A listener of its own rather than a route beside `/mcp`: metrics are for the operator's
//! scraper, not for whoever may reach the MCP endpoint, and a stdio server has no HTTP
//! endpoint at all. It runs on a thread and a one-thread runtime of its own, so it answers
//! whatever the server's runtime is doing.

use http_body_util::Full;
use hyper::body::Bytes;
use prometheus::Encoder as _;
use std::convert::Infallible;

/// The default host and port (the specification's).
const DEFAULT_HOST: &str = "localhost";
const DEFAULT_PORT: u16 = 9464;

/// Binds the scrape endpoint the environment names and starts serving it; returns the
/// reader to give the meter provider. Fails (at start) when the address cannot be bound.
pub(crate) fn start() -> Result<opentelemetry_prometheus::PrometheusExporter, String> {
    let registry = prometheus::Registry::new();
    let reader = opentelemetry_prometheus::exporter()
        .with_registry(registry.clone())
        .build()
        .map_err(|e| format!("Prometheus exporter: {e}"))?;
    let var = |name: &str| {
        std::env::var(name)
            .ok()
            .map(|v| v.trim().to_owned())
            .filter(|v| !v.is_empty())
    };
    let host = var("OTEL_EXPORTER_PROMETHEUS_HOST").unwrap_or_else(|| DEFAULT_HOST.to_owned());
    let port = match var("OTEL_EXPORTER_PROMETHEUS_PORT") {
        Some(port) => port
            .parse::<u16>()
            .map_err(|_| format!("OTEL_EXPORTER_PROMETHEUS_PORT={port:?} is not a port"))?,
        None => DEFAULT_PORT,
    };
    let listener = std::net::TcpListener::bind((host.as_str(), port))
        .map_err(|e| format!("cannot listen for Prometheus on {host}:{port}: {e}"))?;
    listener
        .set_nonblocking(true)
        .map_err(|e| format!("Prometheus listener: {e}"))?;
    let addr = listener
        .local_addr()
        .map_err(|e| format!("Prometheus listener: {e}"))?;
    std::thread::Builder::new()
        .name("prometheus".to_owned())
        .spawn(move || {
            let Ok(runtime) = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
            else {
                return;
            };
            runtime.block_on(serve(listener, registry));
        })
        .map_err(|e| format!("cannot start the Prometheus thread: {e}"))?;
    tracing::info!("Prometheus metrics at http://{addr}/metrics");
    Ok(reader)
}

async fn serve(listener: std::net::TcpListener, registry: prometheus::Registry) {
    let Ok(listener) = tokio::net::TcpListener::from_std(listener) else {
        return;
    };
    while let Ok((conn, _)) = listener.accept().await {
        let registry = registry.clone();
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |request: hyper::Request<_>| {
                let registry = registry.clone();
                async move { Ok::<_, Infallible>(answer(&request, &registry)) }
            });
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(hyper_util::rt::TokioIo::new(conn), service)
                .await;
        });
    }
}

/// `GET /metrics`: the text exposition; anything else 404.
fn answer<B>(
    request: &hyper::Request<B>,
    registry: &prometheus::Registry,
) -> hyper::Response<Full<Bytes>> {
    let response = |status: u16, media: &str, body: Vec<u8>| {
        hyper::Response::builder()
            .status(status)
            .header("content-type", media)
            .body(Full::new(Bytes::from(body)))
            .unwrap_or_default()
    };
    if request.method() != hyper::Method::GET || request.uri().path() != "/metrics" {
        return response(
            404,
            "text/plain",
            b"not found; metrics are at /metrics\n".to_vec(),
        );
    }
    let encoder = prometheus::TextEncoder::new();
    let mut body = Vec::new();
    match encoder.encode(&registry.gather(), &mut body) {
        Ok(()) => response(200, encoder.format_type(), body),
        Err(e) => response(500, "text/plain", e.to_string().into_bytes()),
    }
}
