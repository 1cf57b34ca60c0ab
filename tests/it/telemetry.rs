//! OpenTelemetry end to end: `echo-server` exports its traces over OTLP/HTTP (JSON and
//! protobuf) and OTLP/gRPC to a receiver this test runs on 127.0.0.1, configured by the
//! standard variables alone; the client's trace context, sent in `_meta` and as an HTTP
//! header, is the parent of the server's spans; no argument reaches an exported byte. And the
//! Prometheus scrape endpoint that `OTEL_METRICS_EXPORTER=prometheus` opens. A request is
//! exported as one span; its children too when `RUST_LOG` names `mcp::request` at `debug`.

use http::Method;
use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use mcp_tests::http::{ACCEPT_BOTH, modern, send};
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

// One span per request, by the conventions (issue #41).
mod spans;

const SECRET: &str = "sk-otel-secret-7f3a";

/// What the receiver got: (path, content type, body).
type Received = Arc<Mutex<Vec<(String, String, Vec<u8>)>>>;

/// Keeps one export (path, content type, body) and returns its content type.
async fn keep_export(keep: &Received, request: http::Request<hyper::body::Incoming>) -> String {
    let path = request.uri().path().to_owned();
    let media = request
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_owned();
    let body = request.into_body().collect().await.unwrap().to_bytes();
    keep.lock()
        .unwrap()
        .push((path, media.clone(), body.to_vec()));
    media
}

/// An OTLP/HTTP receiver on 127.0.0.1 that keeps every export and answers success.
async fn receiver() -> (u16, Received) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let received: Received = Arc::default();
    let keep = received.clone();
    tokio::spawn(async move {
        while let Ok((conn, _)) = listener.accept().await {
            let keep = keep.clone();
            tokio::spawn(async move {
                let service = hyper::service::service_fn(
                    move |request: http::Request<hyper::body::Incoming>| {
                        let keep = keep.clone();
                        async move {
                            let media = keep_export(&keep, request).await;
                            let answer = if media.contains("json") { "{}" } else { "" };
                            Ok::<_, std::convert::Infallible>(
                                http::Response::builder()
                                    .header("content-type", media)
                                    .body(Full::new(Bytes::from(answer)))
                                    .unwrap(),
                            )
                        }
                    },
                );
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(hyper_util::rt::TokioIo::new(conn), service)
                    .await;
            });
        }
    });
    (port, received)
}

/// An OTLP/gRPC receiver on 127.0.0.1 (HTTP/2 without TLS, as the exporter speaks to an
/// `http://` endpoint) that keeps every export (the gRPC frame: a 5-byte prefix and the
/// protobuf message) and answers success (an empty message, `grpc-status: 0`).
async fn grpc_receiver() -> (u16, Received) {
    use http_body_util::StreamBody;
    use hyper::body::Frame;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let received: Received = Arc::default();
    let keep = received.clone();
    tokio::spawn(async move {
        while let Ok((conn, _)) = listener.accept().await {
            let keep = keep.clone();
            tokio::spawn(async move {
                let service = hyper::service::service_fn(
                    move |request: http::Request<hyper::body::Incoming>| {
                        let keep = keep.clone();
                        async move {
                            keep_export(&keep, request).await;
                            let mut trailers = http::HeaderMap::new();
                            trailers.insert("grpc-status", http::HeaderValue::from_static("0"));
                            let frames = futures::stream::iter([
                                Ok::<_, std::convert::Infallible>(Frame::data(Bytes::from_static(
                                    &[0, 0, 0, 0, 0],
                                ))),
                                Ok(Frame::trailers(trailers)),
                            ]);
                            Ok::<_, std::convert::Infallible>(
                                http::Response::builder()
                                    .header("content-type", "application/grpc")
                                    .body(StreamBody::new(frames))
                                    .unwrap(),
                            )
                        }
                    },
                );
                let _ =
                    hyper::server::conn::http2::Builder::new(hyper_util::rt::TokioExecutor::new())
                        .serve_connection(hyper_util::rt::TokioIo::new(conn), service)
                        .await;
            });
        }
    });
    (port, received)
}

/// Starts `echo-server` over HTTP exporting to `port` with `protocol`; returns the child and
/// its endpoint URL.
fn echo_server(port: u16, protocol: &str) -> (std::process::Child, String) {
    echo_server_with(|c| {
        c.env(
            "OTEL_EXPORTER_OTLP_ENDPOINT",
            format!("http://127.0.0.1:{port}"),
        )
        .env("OTEL_EXPORTER_OTLP_PROTOCOL", protocol)
        .env_remove("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")
        .env_remove("OTEL_EXPORTER_OTLP_METRICS_PROTOCOL")
        .env("OTEL_SERVICE_NAME", "echo-under-test")
        .env("OTEL_BSP_SCHEDULE_DELAY", "100")
        .env("OTEL_METRIC_EXPORT_INTERVAL", "200")
        .env_remove("OTEL_TRACES_EXPORTER")
        .env_remove("OTEL_METRICS_EXPORTER");
    })
}

/// Starts `echo-server --transport http` with the environment `configure` sets; returns
/// the child and its endpoint URL (the `/mcp` URL it prints; a Prometheus endpoint's line
/// may come first).
fn echo_server_with(configure: impl FnOnce(&mut Command)) -> (std::process::Child, String) {
    let mut command = Command::new(mcp_tests::example_bin("echo-server"));
    command
        .args(["--transport", "http", "--bind", "127.0.0.1:0"])
        .env_remove("OTEL_SDK_DISABLED")
        .env_remove("RUST_LOG")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    configure(&mut command);
    let mut child = command.spawn().unwrap();
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut tx = Some(tx);
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if let Some(url) = line
                .split_whitespace()
                .find(|w| w.starts_with("http://") && w.ends_with("/mcp"))
                && let Some(tx) = tx.take()
            {
                let _ = tx.send(url.to_owned());
            }
        }
    });
    let url = rx
        .recv_timeout(Duration::from_secs(60))
        .expect("the server prints its URL");
    (child, url)
}

/// Stops `child` gracefully (SIGTERM), as a service manager does, and waits for it: a
/// graceful stop exports what is left, so what the receiver lacks then is absent, not late.
fn stop(child: &mut std::process::Child) {
    let _ = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status();
    let _ = child.wait();
}

async fn call(
    url: &str,
    id: i64,
    traceparent_meta: Option<&str>,
    traceparent_header: Option<&str>,
) {
    let (mut message, headers) = modern(
        id,
        "tools/call",
        serde_json::json!({"name": "echo", "arguments": {"text": SECRET}}),
    );
    if let Some(tp) = traceparent_meta {
        message["params"]["_meta"]["traceparent"] = tp.into();
    }
    let mut h: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
    h.push(("content-type", "application/json"));
    h.push(("accept", ACCEPT_BOTH));
    if let Some(tp) = traceparent_header {
        h.push(("traceparent", tp));
    }
    let reply = send(Method::POST, url, &h, message.to_string()).await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    assert!(reply.text().contains(&SECRET.len().to_string()) || reply.text().contains(SECRET));
}

/// A template value that must never be exported (review #40 item 13: a filled URI's values
/// were in span names and `mcp.resource.uri`).
const URI_SECRET: &str = "PASSWORD-in-a-uri-8c1f";

/// Reads `echo://greeting/{URI_SECRET}` (the `echo://greeting/{name}` template).
async fn read_greeting(url: &str, id: i64) {
    let uri = format!("echo://greeting/{URI_SECRET}");
    let (message, headers) = modern(id, "resources/read", serde_json::json!({"uri": uri}));
    let mut h: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
    if !h.iter().any(|(k, _)| k.eq_ignore_ascii_case("mcp-name")) {
        h.push(("mcp-name", &uri));
    }
    h.push(("content-type", "application/json"));
    h.push(("accept", ACCEPT_BOTH));
    let reply = send(Method::POST, url, &h, message.to_string()).await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    assert!(reply.text().contains(URI_SECRET), "{}", reply.text());
}

/// Whether any export the receiver got holds `text`.
fn exported(received: &Received, text: &str) -> bool {
    received
        .lock()
        .unwrap()
        .iter()
        .any(|(_, _, body)| body.windows(text.len()).any(|w| w == text.as_bytes()))
}

/// Waits (bounded) until the receiver holds a trace export containing every needle.
async fn wait_for(received: &Received, needles: &[&[u8]]) -> Vec<(String, String, Vec<u8>)> {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let got = received.lock().unwrap().clone();
        let traces: Vec<u8> = got
            .iter()
            .filter(|(path, _, _)| path == "/v1/traces" || path.ends_with("TraceService/Export"))
            .flat_map(|(_, _, body)| body.clone())
            .collect();
        if needles
            .iter()
            .all(|n| traces.windows(n.len()).any(|w| w == *n))
        {
            return got;
        }
        assert!(
            Instant::now() < deadline,
            "no trace export with every id; got {got:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Every OTLP/HTTP trace export the receiver holds, one after the other.
fn http_trace_bodies(received: &Received) -> Vec<u8> {
    received
        .lock()
        .unwrap()
        .iter()
        .filter(|(path, _, _)| path == "/v1/traces")
        .flat_map(|(_, _, body)| body.clone())
        .collect()
}

fn hex_bytes(hex: &str) -> Vec<u8> {
    (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn spans_join_the_clients_trace_over_otlp_json_and_protobuf() {
    // "" leaves the protocol unset: the specification's default, protobuf.
    for protocol in ["http/json", "http/protobuf", "", "grpc"] {
        let started = Instant::now();
        let (port, received) = if protocol == "grpc" {
            grpc_receiver().await
        } else {
            receiver().await
        };
        let (mut child, url) = echo_server(port, protocol);
        let in_meta = "0af7651916cd43dd8448eb211c80319c";
        let in_header = "4bf92f3577b34da6a3ce929d0e0e4736";
        call(
            &url,
            1,
            Some(&format!("00-{in_meta}-b7ad6b7169203331-01")),
            None,
        )
        .await;
        call(
            &url,
            2,
            None,
            Some(&format!("00-{in_header}-00f067aa0ba902b7-01")),
        )
        .await;
        read_greeting(&url, 3).await;
        let (meta_id, header_id): (Vec<u8>, Vec<u8>) = if protocol == "http/json" {
            (in_meta.into(), in_header.into())
        } else {
            (hex_bytes(in_meta), hex_bytes(in_header))
        };
        let got = wait_for(
            &received,
            &[
                &meta_id,
                &header_id,
                b"tools/call echo",
                b"resources/read echo://greeting/{name}",
            ],
        )
        .await;
        let expected_media = match protocol {
            "http/json" => "application/json",
            "grpc" => "application/grpc",
            _ => "application/x-protobuf",
        };
        let (traces_path, metrics_path) = if protocol == "grpc" {
            (
                "/opentelemetry.proto.collector.trace.v1.TraceService/Export",
                "/opentelemetry.proto.collector.metrics.v1.MetricsService/Export",
            )
        } else {
            ("/v1/traces", "/v1/metrics")
        };
        for (path, media, _) in &got {
            assert_eq!(media, expected_media, "{protocol}: {path}");
        }
        let traces: Vec<u8> = got
            .iter()
            .filter(|(p, _, _)| p == traces_path)
            .flat_map(|(_, _, b)| b.clone())
            .collect();
        for needle in [
            &b"echo-under-test"[..],
            b"mcp.method.name",
            b"gen_ai.tool.name",
            b"jsonrpc.request.id",
        ] {
            assert!(
                traces.windows(needle.len()).any(|w| w == needle),
                "{protocol}: {} missing",
                String::from_utf8_lossy(needle)
            );
        }
        // Metrics arrive too (the periodic reader, every 200 ms).
        let deadline = Instant::now() + Duration::from_secs(60);
        while !received.lock().unwrap().iter().any(|(p, _, b)| {
            p == metrics_path && b.windows(29).any(|w| w == b"mcp.server.operation.duration")
        }) {
            assert!(Instant::now() < deadline, "{protocol}: no metrics export");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        eprintln!("{protocol:?}: exported in {:?}", started.elapsed());
        stop(&mut child);
        assert!(
            !exported(&received, SECRET),
            "{protocol}: an argument was exported"
        );
        assert!(
            !exported(&received, URI_SECRET),
            "{protocol}: a value filled into a URI template was exported"
        );
    }
}

/// Request spans follow the sampler: the default (parent-based) records nothing for a
/// request whose client's trace is not sampled, `always_on` records it anyway, and
/// `always_off` (the SDK's tracer then) records nothing at all; a graceful stop exports
/// what was pending.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn request_spans_follow_the_sampler() {
    let sampled = "5a6d0f1e2c3b4a59687766554433221a";
    let unsampled = "0badc0ffee0ddf00d0000000000000bb";
    for sampler in ["", "always_on", "always_off"] {
        let (port, received) = receiver().await;
        let (mut child, url) = echo_server_with(|c| {
            c.env(
                "OTEL_EXPORTER_OTLP_ENDPOINT",
                format!("http://127.0.0.1:{port}"),
            )
            .env_remove("OTEL_EXPORTER_OTLP_PROTOCOL")
            .env_remove("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")
            .env_remove("OTEL_TRACES_EXPORTER")
            .env("OTEL_METRICS_EXPORTER", "none")
            // Long enough that only the stop can export the spans.
            .env("OTEL_BSP_SCHEDULE_DELAY", "600000");
            if sampler.is_empty() {
                c.env_remove("OTEL_TRACES_SAMPLER");
            } else {
                c.env("OTEL_TRACES_SAMPLER", sampler);
            }
        });
        call(
            &url,
            1,
            Some(&format!("00-{unsampled}-b7ad6b7169203331-00")),
            None,
        )
        .await;
        call(
            &url,
            2,
            Some(&format!("00-{sampled}-b7ad6b7169203331-01")),
            None,
        )
        .await;
        stop(&mut child);
        let traces = http_trace_bodies(&received);
        let has = |hex: &str| {
            let id = hex_bytes(hex);
            traces.windows(id.len()).any(|w| w == id)
        };
        let expected = match sampler {
            "" => (true, false),
            "always_on" => (true, true),
            _ => (false, false),
        };
        assert_eq!(
            (has(sampled), has(unsampled)),
            expected,
            "sampler {sampler:?}"
        );
        if expected.0 {
            assert!(traces.windows(15).any(|w| w == b"tools/call echo"));
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prometheus_scrapes_the_request_metrics_from_a_listener_of_their_own() {
    let port = mcp_tests::oauth::free_port();
    let (mut child, url) = echo_server_with(|c| {
        c.env("OTEL_METRICS_EXPORTER", "prometheus")
            .env("OTEL_EXPORTER_PROMETHEUS_HOST", "127.0.0.1")
            .env("OTEL_EXPORTER_PROMETHEUS_PORT", port.to_string())
            .env("OTEL_TRACES_EXPORTER", "none")
            .env_remove("OTEL_EXPORTER_OTLP_ENDPOINT");
    });
    call(&url, 1, None, None).await;
    let scrape = format!("http://127.0.0.1:{port}/metrics");
    // A 2025 session's GET stream, open while scraped: one active stream; then none.
    let initialized = mcp_tests::http::post(&url, &[], &mcp_tests::http::initialize(1)).await;
    let session = initialized
        .header("mcp-session-id")
        .expect("a sessionful server mints a session")
        .to_owned();
    let stream = mcp_tests::http::open(
        Method::GET,
        &url,
        &[
            ("mcp-session-id", &session),
            ("accept", "text/event-stream"),
        ],
        "",
    )
    .await;
    assert_eq!(stream.status(), 200);
    let streams = |text: &str| {
        text.lines()
            .find(|l| l.starts_with("mcp_server_active_streams"))
            .and_then(|l| l.rsplit(' ').next())
            .map(str::to_owned)
    };
    let open_now = send(Method::GET, &scrape, &[], String::new()).await.text();
    assert_eq!(streams(&open_now).as_deref(), Some("1"), "{open_now}");
    drop(stream);
    let deadline = Instant::now() + Duration::from_secs(90);
    loop {
        let now = send(Method::GET, &scrape, &[], String::new()).await.text();
        if streams(&now).as_deref() == Some("0") {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the stream is still counted: {now}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let scraped = send(Method::GET, &scrape, &[], String::new()).await;
    assert_eq!(scraped.status, 200, "{}", scraped.text());
    assert!(
        scraped
            .header("content-type")
            .is_some_and(|t| t.starts_with("text/plain")),
        "{:?}",
        scraped.header("content-type")
    );
    let text = scraped.text();
    stop(&mut child);
    assert!(
        text.contains("mcp_server_operation_duration_seconds_bucket"),
        "{text}"
    );
    assert!(text.contains(r#"gen_ai_tool_name="echo""#), "{text}");
    assert!(!text.contains(SECRET), "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_is_one_span_unless_rust_log_asks_for_its_children() {
    for (rust_log, children) in [
        (None, false),
        (Some("warn,mcp::audit=info,mcp::request=debug"), true),
    ] {
        let (port, received) = receiver().await;
        let (mut child, url) = echo_server_with(|c| {
            c.env(
                "OTEL_EXPORTER_OTLP_ENDPOINT",
                format!("http://127.0.0.1:{port}"),
            )
            .env("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json")
            .env("OTEL_BSP_SCHEDULE_DELAY", "100")
            .env("OTEL_METRICS_EXPORTER", "none")
            .env_remove("OTEL_TRACES_EXPORTER");
            if let Some(filter) = rust_log {
                c.env("RUST_LOG", filter);
            }
        });
        call(&url, 1, None, None).await;
        wait_for(&received, &[b"tools/call echo"]).await;
        stop(&mut child);
        let traces = http_trace_bodies(&received);
        for name in [&b"\"validate arguments\""[..], b"\"tool\""] {
            assert_eq!(
                traces.windows(name.len()).any(|w| w == name),
                children,
                "RUST_LOG={rust_log:?}: span {} {}",
                String::from_utf8_lossy(name),
                if children { "missing" } else { "exported" }
            );
        }
    }
}

/// A signal switched off keeps its settings to itself: metrics set to gRPC towards an
/// `https://` endpoint (refused when metrics are exported) do not stop the traces.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_switched_off_signals_settings_do_not_stop_the_other_signal() {
    let (port, received) = receiver().await;
    let (mut child, url) = echo_server_with(|c| {
        c.env(
            "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
            format!("http://127.0.0.1:{port}/v1/traces"),
        )
        .env("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "http/json")
        .env("OTEL_EXPORTER_OTLP_METRICS_PROTOCOL", "grpc")
        .env(
            "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
            "https://localhost:4317",
        )
        .env("OTEL_METRICS_EXPORTER", "none")
        .env("OTEL_BSP_SCHEDULE_DELAY", "100")
        .env_remove("OTEL_EXPORTER_OTLP_ENDPOINT")
        .env_remove("OTEL_EXPORTER_OTLP_PROTOCOL")
        .env_remove("OTEL_TRACES_EXPORTER");
    });
    call(&url, 1, None, None).await;
    wait_for(&received, &[b"tools/call echo"]).await;
    stop(&mut child);
}

/// A plain test: the TLS proxy runs a runtime of its own, which cannot start or stop inside
/// the test's.
#[test]
fn spans_reach_an_https_collector_whose_root_ssl_cert_file_names() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let certs = tempfile::tempdir().unwrap();
    // Trusted through SSL_CERT_FILE: exported; untrusted (Mozilla's roots only): nothing.
    for trusted in [true, false] {
        let (port, received) = runtime.block_on(receiver());
        let proxy = mcp_tests::tls::TlsProxy::start(([127, 0, 0, 1], port).into());
        let cert_file = certs.path().join(format!("collector-{trusted}.pem"));
        std::fs::write(&cert_file, &proxy.cert_pem).unwrap();
        let (mut child, url) = echo_server_with(|c| {
            c.env(
                "OTEL_EXPORTER_OTLP_ENDPOINT",
                format!("https://localhost:{}", proxy.port),
            )
            .env_remove("OTEL_EXPORTER_OTLP_PROTOCOL")
            .env("OTEL_EXPORTER_OTLP_TIMEOUT", "3000")
            .env("OTEL_BSP_SCHEDULE_DELAY", "100")
            .env("OTEL_METRICS_EXPORTER", "none")
            .env_remove("OTEL_TRACES_EXPORTER");
            if trusted {
                c.env("SSL_CERT_FILE", &cert_file);
            } else {
                c.env_remove("SSL_CERT_FILE");
            }
        });
        runtime.block_on(call(&url, 1, None, None));
        if trusted {
            let got = runtime.block_on(wait_for(&received, &[b"tools/call echo"]));
            assert!(
                got.iter()
                    .all(|(_, media, _)| media == "application/x-protobuf")
            );
        }
        stop(&mut child);
        if !trusted {
            let got = received.lock().unwrap().clone();
            assert!(
                got.is_empty(),
                "exported to an untrusted collector: {got:?}"
            );
        }
    }
}

/// An exporter that cannot be built leaves the server serving without export, and says why:
/// gRPC to an `https://` collector (tonic is built without TLS), an endpoint that is no URL
/// (which once panicked the server: the gRPC exporters' runtime was dropped on its async
/// `main`). Neither connects anywhere.
#[test]
fn a_bad_otlp_configuration_is_reported_and_the_server_serves() {
    use std::io::Write as _;
    for (endpoint, says) in [
        (
            "https://localhost:4317",
            "reaches `http://` collectors only",
        ),
        ("http://exa mple:4317", "invalid endpoint"),
    ] {
        let mut child = Command::new(mcp_tests::example_bin("echo-server"))
            .env("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")
            .env("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint)
            .env_remove("OTEL_SDK_DISABLED")
            .env_remove("OTEL_TRACES_EXPORTER")
            .env_remove("OTEL_METRICS_EXPORTER")
            .env_remove("RUST_LOG")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let initialize = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
        let mut stdin = child.stdin.take().unwrap();
        writeln!(stdin, "{initialize}").unwrap();
        drop(stdin);
        let out = child.wait_with_output().unwrap();
        let (stdout, stderr) = (
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
        );
        assert!(out.status.success(), "{endpoint}: {stderr}");
        assert!(
            stdout.contains(r#""id":1,"result""#),
            "{endpoint}: {stdout}"
        );
        assert!(
            stderr.contains("OpenTelemetry export is off") && stderr.contains(says),
            "{endpoint}: {stderr}"
        );
    }
}
