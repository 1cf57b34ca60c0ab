//! A discarding OTLP/HTTP receiver: reads every POST body (`/v1/traces`, `/v1/metrics`, ...)
//! to its end and answers `200` with an empty protobuf message (an export response that
//! accepted everything). It stands in for a collector when `bench/compare.sh` measures what
//! exporting costs a server: the server does all its own work (spans built, batched,
//! encoded, sent over loopback), and the receiving end costs as little as it can.
//!
//! Prints `otlp-sink: receiving at http://ADDR` on stderr; `--bind ADDR` (default
//! `127.0.0.1:0`). Counts the bytes it received and prints them when stdin closes, so a
//! script can check that the server exported at all.

use http_body_util::Full;
use hyper::body::{Bytes, Incoming};
use hyper::{Request, Response};
use mcp_bench::floor;
use std::convert::Infallible;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

async fn handle(
    request: Request<Incoming>,
    received: Arc<AtomicU64>,
) -> Result<Response<Full<Bytes>>, Infallible> {
    let body = floor::body(request).await;
    received.fetch_add(body.len() as u64, Ordering::Relaxed);
    Ok(Response::builder()
        .header("content-type", "application/x-protobuf")
        .body(Full::new(Bytes::new()))
        .expect("a valid response"))
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> std::io::Result<()> {
    let listener = tokio::net::TcpListener::bind(floor::bind_arg()).await?;
    eprintln!("otlp-sink: receiving at http://{}", listener.local_addr()?);
    let received = Arc::new(AtomicU64::new(0));
    let total = received.clone();
    // Ends with the script that started it: stdin closes.
    std::thread::spawn(move || {
        let _ = std::io::copy(&mut std::io::stdin(), &mut std::io::sink());
        eprintln!(
            "otlp-sink: {} bytes received",
            total.load(Ordering::Relaxed)
        );
        std::process::exit(0);
    });
    floor::serve_http1(listener, move |r| handle(r, received.clone())).await
}
