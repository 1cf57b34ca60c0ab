//! The secure defaults of the HTTP transport: DNS-rebinding protection (Host/Origin), the
//! body cap, read timeouts (a slow client holds nobody up), the concurrency cap, and the
//! authentication hook.

use futures::future::BoxFuture;
use http::{Method, StatusCode};
use mcp_runtime::transport::http::{AuthError, Authenticator, BearerTokens, HttpOptions, Identity};
use mcp_tests::http::{
    self as t, Spawned, eventually, fixture, initialize, post, post_modern, serve,
};
use serde_json::json;
use std::net::SocketAddr;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpStream;

#[tokio::test]
async fn foreign_hosts_and_origins_are_refused_own_ones_accepted() {
    let server = Spawned::start("echo-server", &[]);
    let url = &server.url;
    let own = server.authority();
    let port = server.addr.port();
    let localhost = format!("localhost:{port}");
    let own_origin = format!("http://{own}");
    let cases: &[(&str, Option<&str>, StatusCode)] = &[
        (&own, None, StatusCode::OK),
        (&localhost, Some("http://localhost:5173"), StatusCode::OK),
        (&own, Some(&own_origin), StatusCode::OK),
        ("evil.example.com", None, StatusCode::FORBIDDEN),
        (
            "evil.example.com:80",
            Some("http://evil.example.com"),
            StatusCode::FORBIDDEN,
        ),
        (&own, Some("http://evil.example.com"), StatusCode::FORBIDDEN),
        (&own, Some("null"), StatusCode::FORBIDDEN),
    ];
    for (host, origin, expected) in cases {
        let mut headers = vec![("host", *host)];
        if let Some(o) = origin {
            headers.push(("origin", o));
        }
        let reply = post(url, &headers, &initialize(1)).await;
        assert_eq!(
            reply.status,
            *expected,
            "Host {host}, Origin {origin:?}: {}",
            reply.text()
        );
        if *expected == StatusCode::FORBIDDEN {
            assert!(reply.header("mcp-session-id").is_none());
            assert!(reply.text().contains("not allowed"), "{}", reply.text());
        }
    }
    // GET and DELETE are checked the same way.
    let reply = t::send(
        Method::GET,
        url,
        &[
            ("host", "evil.example.com"),
            ("accept", "text/event-stream"),
        ],
        "",
    )
    .await;
    assert_eq!(reply.status, StatusCode::FORBIDDEN);
}

#[tokio::test]
async fn allow_lists_admit_configured_names() {
    let server = Spawned::start(
        "echo-server",
        &[
            "--allowed-host",
            "mcp.example.com",
            "--allowed-origin",
            "https://app.example.com",
        ],
    );
    let reply = post(
        &server.url,
        &[
            ("host", "mcp.example.com"),
            ("origin", "https://app.example.com"),
        ],
        &initialize(1),
    )
    .await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
    let reply = post(
        &server.url,
        &[("host", "other.example.com")],
        &initialize(1),
    )
    .await;
    assert_eq!(reply.status, StatusCode::FORBIDDEN);
}

#[tokio::test]
async fn bodies_over_the_cap_get_413() {
    // The default cap (4 MiB) on echo-server: a declared length over it is refused before
    // the body is read; a large body under it is served.
    let server = Spawned::start("echo-server", &[]);
    let mut stream = TcpStream::connect(server.addr).await.unwrap();
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\n\r\n{{",
        server.authority(),
        4 * 1024 * 1024 + 1
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    let response = read_response_head(&mut stream).await;
    assert!(response.starts_with("HTTP/1.1 413"), "{response}");

    let big = "x".repeat(3 * 1024 * 1024);
    let reply = post_modern(
        &server.url,
        1,
        "tools/call",
        json!({"name": "echo", "arguments": {"text": big}}),
    )
    .await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(
        reply.json()["result"]["content"][0]["text"]
            .as_str()
            .map(str::len),
        Some(big.len())
    );

    // A configured cap, with a chunked body (no length declared) that runs over it.
    let (fixture, _) = fixture();
    let s = serve(fixture, HttpOptions::default().max_body_bytes(1024)).await;
    let mut stream = TcpStream::connect(s.addr).await.unwrap();
    let chunk = "y".repeat(2048);
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n{:x}\r\n{chunk}\r\n0\r\n\r\n",
        s.authority(),
        chunk.len()
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    let response = read_response_head(&mut stream).await;
    assert!(response.starts_with("HTTP/1.1 413"), "{response}");
    let reply = post_modern(&s.url, 2, "tools/list", json!({})).await;
    assert_eq!(reply.status, StatusCode::OK, "small requests still pass");
}

/// Reads until the end of the response head (or EOF), bounded.
async fn read_response_head(stream: &mut TcpStream) -> String {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    let read = async {
        loop {
            match stream.read(&mut chunk).await {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    buf.extend_from_slice(&chunk[..n]);
                    if buf.windows(4).any(|w| w == b"\r\n\r\n") {
                        break;
                    }
                }
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(30), read)
        .await
        .expect("a response in time");
    String::from_utf8_lossy(&buf).into_owned()
}

#[tokio::test]
async fn a_slow_client_holds_up_nobody_and_is_timed_out() {
    let (server, _) = fixture();
    let options = HttpOptions::default()
        .header_read_timeout(Duration::from_secs(1))
        .body_read_timeout(Duration::from_secs(1));
    let s = serve(server, options).await;

    // One client sends half a body and stalls; another sends half its headers and stalls.
    let mut slow_body = TcpStream::connect(s.addr).await.unwrap();
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{{\"jsonrpc\":",
        s.authority()
    );
    slow_body.write_all(head.as_bytes()).await.unwrap();
    let mut slow_head = TcpStream::connect(s.addr).await.unwrap();
    slow_head
        .write_all(b"POST /mcp HTTP/1.1\r\nHost: 127.0")
        .await
        .unwrap();

    // Meanwhile everyone else is served.
    let others: Vec<_> = (0..20)
        .map(|i| {
            let url = s.url.clone();
            tokio::spawn(async move {
                post_modern(
                    &url,
                    i,
                    "tools/call",
                    json!({"name": "add", "arguments": {"a": i, "b": 1}}),
                )
                .await
            })
        })
        .collect();
    for (i, other) in others.into_iter().enumerate() {
        let reply = other.await.unwrap();
        assert_eq!(reply.status, StatusCode::OK);
        assert_eq!(
            reply.json()["result"]["content"][0]["text"],
            (i + 1).to_string()
        );
    }

    // The stalled body gets 408; the stalled headers get the connection closed.
    let response = read_response_head(&mut slow_body).await;
    assert!(response.starts_with("HTTP/1.1 408"), "{response:?}");
    let response = read_response_head(&mut slow_head).await;
    assert!(!response.contains("200 OK"), "{response:?}");
    let mut rest = [0u8; 16];
    let closed = tokio::time::timeout(Duration::from_secs(30), slow_head.read(&mut rest)).await;
    assert!(
        matches!(closed, Ok(Ok(0)) | Ok(Err(_))),
        "the slow client was disconnected: {closed:?}"
    );
}

#[tokio::test]
async fn requests_beyond_the_concurrency_cap_get_503() {
    let (server, probe) = fixture();
    let s = serve(server, HttpOptions::default().max_concurrent_requests(2)).await;
    let held: Vec<_> = (0..2)
        .map(|i| {
            let url = s.url.clone();
            tokio::spawn(async move {
                post_modern(
                    &url,
                    i,
                    "tools/call",
                    json!({"name": "gate", "arguments": {}}),
                )
                .await
            })
        })
        .collect();
    let started = eventually(Duration::from_secs(10), || {
        probe.started.load(Ordering::SeqCst) == 2
    })
    .await;
    assert!(started, "both gated calls are running");
    let reply = post_modern(&s.url, 9, "tools/list", json!({})).await;
    assert_eq!(
        reply.status,
        StatusCode::SERVICE_UNAVAILABLE,
        "{}",
        reply.text()
    );
    assert_eq!(reply.header("retry-after"), Some("1"));
    probe.gate.notify_waiters();
    for call in held {
        let reply = call.await.unwrap();
        assert_eq!(reply.status, StatusCode::OK);
        assert_eq!(reply.answer()["result"]["content"][0]["text"], "released");
    }
    // Permits come back with the responses.
    let url = s.url.clone();
    let freed = async move {
        loop {
            if post_modern(&url, 10, "tools/list", json!({})).await.status == StatusCode::OK {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    };
    tokio::time::timeout(Duration::from_secs(10), freed)
        .await
        .expect("capacity returns");
}

#[tokio::test]
async fn the_auth_hook_guards_every_request() {
    let (server, _) = fixture();
    let s = serve(
        server,
        HttpOptions::default().auth(BearerTokens::new([("ci", "s3cret")])),
    )
    .await;
    let reply = post_modern(&s.url, 1, "tools/list", json!({})).await;
    assert_eq!(reply.status, StatusCode::UNAUTHORIZED);
    assert_eq!(
        reply.header("www-authenticate"),
        Some(r#"Bearer realm="mcp""#)
    );

    let (message, headers) = t::modern(2, "tools/list", json!({}));
    let mut with: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
    with.push(("authorization", "Bearer wrong"));
    let reply = post(&s.url, &with, &message).await;
    assert_eq!(reply.status, StatusCode::UNAUTHORIZED);
    let challenge = reply.header("www-authenticate").unwrap_or_default();
    assert!(
        challenge.starts_with("Bearer ") && challenge.contains(r#"error="invalid_token""#),
        "{challenge}"
    );

    with.pop();
    with.push(("authorization", "Bearer s3cret"));
    let reply = post(&s.url, &with, &message).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
    // GET and DELETE are guarded too.
    let reply = t::send(Method::GET, &s.url, &[("accept", "text/event-stream")], "").await;
    assert_eq!(reply.status, StatusCode::UNAUTHORIZED);
}

/// An authenticator that accepts everyone and remembers the peer each request came from.
struct PeerSeen(Arc<Mutex<Vec<Option<SocketAddr>>>>);

impl Authenticator for PeerSeen {
    fn authenticate<'a>(
        &'a self,
        _token: Option<&'a str>,
        request: &'a http::request::Parts,
    ) -> BoxFuture<'a, Result<Identity, AuthError>> {
        let peer = request
            .extensions
            .get::<axum::extract::ConnectInfo<SocketAddr>>()
            .map(|c| c.0);
        self.0.lock().unwrap().push(peer);
        Box::pin(async { Ok(Identity::subject("anyone")) })
    }
}

#[tokio::test]
async fn the_auth_hook_sees_the_peer_address() {
    let (server, _) = fixture();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let s = serve(server, HttpOptions::default().auth(PeerSeen(seen.clone()))).await;
    let reply = post_modern(&s.url, 1, "tools/list", json!({})).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 1, "{seen:?}");
    let peer = seen[0].expect("the authenticator is given the peer as ConnectInfo");
    assert!(peer.ip().is_loopback(), "{peer}");
    assert_ne!(
        peer.port(),
        s.addr.port(),
        "the client's port, not the server's"
    );
}

#[tokio::test]
async fn shipped_binaries_refuse_other_machines_without_tokens_and_require_them_when_given() {
    use std::process::Command;
    for bin in ["echo-server", "file-server"] {
        let dir = tempfile::tempdir().unwrap();
        let dir_arg = dir.path().to_str().unwrap().to_owned();
        let extra: Vec<&str> = if bin == "file-server" {
            vec![&dir_arg]
        } else {
            vec![]
        };
        // Every address, no tokens: refused before serving anything.
        let out = Command::new(mcp_tests::example_bin(bin))
            .args(["--transport", "http", "--bind", "0.0.0.0:0"])
            .args(&extra)
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        assert!(!out.status.success(), "{bin}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("refusing to serve 0.0.0.0:")
                && stderr.contains("--token-file")
                && stderr.contains("--allow-unauthenticated"),
            "{bin}: {stderr}"
        );
        assert!(!stderr.contains("serving MCP"), "{bin}: {stderr}");

        // With a token file, every request needs one of its tokens.
        let tokens = dir.path().join("tokens");
        std::fs::write(&tokens, "ci 0123456789abcdef0123456789abcdef\n").unwrap();
        let mut args = vec!["--token-file", tokens.to_str().unwrap()];
        args.extend(&extra);
        let server = Spawned::start(bin, &args);
        let (message, headers) = t::modern(1, "tools/list", json!({}));
        let mut headers: Vec<(&str, &str)> =
            headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let anonymous = post(&server.url, &headers, &message).await;
        assert_eq!(anonymous.status, StatusCode::UNAUTHORIZED, "{bin}");
        headers.push(("authorization", "Bearer 0123456789abcdef0123456789abcdef"));
        let allowed = post(&server.url, &headers, &message).await;
        assert_eq!(allowed.status, StatusCode::OK, "{bin}: {}", allowed.text());
    }
}
