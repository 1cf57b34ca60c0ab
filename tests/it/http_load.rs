//! Load on loopback against `echo-server --transport http`: many concurrent clients mixing
//! 2026-07-28 calls and 2025 sessions, with zero failed calls and bounded memory, while slow
//! clients trickle bodies and hold streams and a normal client is still answered quickly.
//!
//! `cargo test` runs a small version (100 clients, 32 slow ones); the full one (1,000
//! clients, 256 slow ones) is `cargo test -p mcp-tests --test it -- --ignored http_load`.
//! A well-behaved client retries a 503 or 429 after its `Retry-After`; a call counts as
//! failed only when it never gets its right answer.

use http::{Method, StatusCode};
use mcp_tests::http::{ACCEPT_BOTH, Spawned, initialize, legacy, modern, try_send};
use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};
use tokio::io::AsyncWriteExt as _;
use tokio::net::TcpStream;

const SLOW_TOKEN: &str = "slow-client-token-0123456789abcdef";

/// Client `n`'s own token: each client is a caller of its own, as distinct users are (one
/// caller's share is capped; see `HttpOptions::max_requests_per_caller`).
fn token(n: usize) -> String {
    format!("load-test-token-{n:08}-0123456789")
}

/// POSTs `message` as client `n` with `headers`, retrying 503 and 429 as told, for at most
/// 60 s.
async fn call(
    url: &str,
    n: usize,
    headers: &[(&str, String)],
    message: &Value,
) -> Result<Value, String> {
    let bearer = format!("Bearer {}", token(n));
    let mut all: Vec<(&str, &str)> = vec![
        ("content-type", "application/json"),
        ("accept", ACCEPT_BOTH),
        ("authorization", &bearer),
    ];
    all.extend(headers.iter().map(|(k, v)| (*k, v.as_str())));
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let reply = try_send(Method::POST, url, &all, message.to_string()).await?;
        match reply.status {
            StatusCode::SERVICE_UNAVAILABLE | StatusCode::TOO_MANY_REQUESTS
                if Instant::now() < deadline =>
            {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            StatusCode::OK => return Ok(reply.answer()),
            status => return Err(format!("HTTP {status}: {}", reply.text())),
        }
    }
}

/// One client: `calls` modern `add` calls, or a legacy session making them.
async fn client(url: String, n: usize, calls: usize) -> Result<(), String> {
    let mut session: Vec<(&str, String)> = Vec::new();
    let is_legacy = n % 2 == 1;
    if is_legacy {
        // The session id comes back in a header, which `call` does not return: ask for it.
        let bearer = format!("Bearer {}", token(n));
        let headers = [
            ("content-type", "application/json"),
            ("accept", ACCEPT_BOTH),
            ("authorization", bearer.as_str()),
        ];
        let reply = loop {
            let reply = try_send(Method::POST, &url, &headers, initialize(1).to_string()).await?;
            if reply.status == StatusCode::OK {
                break reply;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        };
        let id = reply
            .header("mcp-session-id")
            .ok_or("no session id")?
            .to_owned();
        session.push(("mcp-session-id", id));
        session.push(("mcp-protocol-version", "2025-11-25".to_owned()));
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        let mut headers = headers.to_vec();
        headers.extend(session.iter().map(|(k, v)| (*k, v.as_str())));
        try_send(Method::POST, &url, &headers, initialized.to_string()).await?;
    }
    for i in 0..calls {
        let (a, b) = (n as i64, i as i64);
        let params = json!({"name": "add", "arguments": {"a": a, "b": b}});
        let answer = if is_legacy {
            call(
                &url,
                n,
                &session,
                &legacy(i as i64 + 2, "tools/call", params),
            )
            .await?
        } else {
            let (message, headers) = modern(i as i64, "tools/call", params);
            call(&url, n, &headers, &message).await?
        };
        let text = answer["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or_default();
        if text != (a + b).to_string() {
            return Err(format!("client {n} call {i}: {answer}"));
        }
    }
    Ok(())
}

/// Peak resident memory of a process, from `/proc`.
fn peak_rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

/// Slow clients: half trickle a body a byte at a time, half hold a 2026-07-28
/// `subscriptions/listen` stream.
async fn slow_clients(server: &Spawned, count: usize) -> Vec<tokio::task::JoinHandle<()>> {
    let mut held = Vec::new();
    for i in 0..count {
        let authority = server.authority();
        held.push(tokio::spawn(async move {
            let Ok(mut stream) = TcpStream::connect(&authority).await else {
                return;
            };
            let (body, method) = if i % 2 == 0 {
                (json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).to_string(), "tools/list")
            } else {
                let (listen, _) = modern(1, "subscriptions/listen", json!({"notifications": {}}));
                (listen.to_string(), "subscriptions/listen")
            };
            let head = format!(
                "POST /mcp HTTP/1.1\r\nHost: {authority}\r\nContent-Type: application/json\r\n\
                 Accept: application/json, text/event-stream\r\nAuthorization: Bearer {SLOW_TOKEN}\r\n\
                 MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: {method}\r\n\
                 Content-Length: {}\r\n\r\n",
                body.len()
            );
            if stream.write_all(head.as_bytes()).await.is_err() {
                return;
            }
            if method == "tools/list" {
                for byte in body.bytes() {
                    if stream.write_all(&[byte]).await.is_err() {
                        return;
                    }
                    tokio::time::sleep(Duration::from_millis(400)).await;
                }
            } else {
                let _ = stream.write_all(body.as_bytes()).await;
            }
            // Hold the connection (and the stream) until the test ends.
            std::future::pending::<()>().await;
        }));
    }
    held
}

/// Runs the load; `strict` also holds the normal client to its one-second answer (the full
/// run; on a shared CI machine the small run only reports the time).
async fn load(clients: usize, calls: usize, slow: usize, strict: bool) {
    let dir = tempfile::tempdir().unwrap();
    let tokens = dir.path().join("tokens");
    let mut lines = format!("slow {SLOW_TOKEN}\nprobe {}\n", token(usize::MAX));
    for n in 0..clients {
        lines.push_str(&format!("c{n} {}\n", token(n)));
    }
    std::fs::write(&tokens, lines).unwrap();
    let server = Spawned::start("echo-server", &["--token-file", tokens.to_str().unwrap()]);
    let before = peak_rss_kib(server.pid());

    let held = slow_clients(&server, slow).await;
    tokio::time::sleep(Duration::from_millis(500)).await;

    // While the slow ones hold on, a normal client is answered at once.
    let (list, headers) = modern(1, "tools/list", json!({}));
    let started = Instant::now();
    let answer = call(&server.url, usize::MAX, &headers, &list)
        .await
        .expect("tools/list");
    let quiet_latency = started.elapsed();
    assert!(answer["result"]["tools"].is_array(), "{answer}");

    let failures = Arc::new(AtomicUsize::new(0));
    let tasks: Vec<_> = (0..clients)
        .map(|n| {
            let url = server.url.clone();
            let failures = failures.clone();
            tokio::spawn(async move {
                if let Err(e) = client(url, n, calls).await {
                    eprintln!("client {n}: {e}");
                    failures.fetch_add(1, Ordering::SeqCst);
                }
            })
        })
        .collect();
    // And answered within a second while everyone else is busy too.
    let started = Instant::now();
    call(&server.url, usize::MAX, &headers, &list)
        .await
        .expect("tools/list under load");
    let busy_latency = started.elapsed();
    for task in tasks {
        task.await.unwrap();
    }
    for task in held {
        task.abort();
    }
    let peak = peak_rss_kib(server.pid());
    eprintln!(
        "load: {clients} clients x {calls} calls, {slow} slow clients: tools/list {quiet_latency:?} \
         before the load, {busy_latency:?} during it; peak RSS {} MiB (at start {} MiB)",
        peak / 1024,
        before / 1024
    );
    assert_eq!(failures.load(Ordering::SeqCst), 0, "failed clients (above)");
    if strict {
        assert!(
            busy_latency < Duration::from_secs(1),
            "tools/list took {busy_latency:?} under load"
        );
    }
    // Bounded: the caps on requests, bodies and connections bound what is held.
    assert!(peak < 512 * 1024, "peak RSS {} MiB", peak / 1024);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hundred_clients_and_slow_ones_all_get_their_answers() {
    load(100, 10, 32, false).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "the full load run: a minute or more; run with --ignored"]
async fn a_thousand_clients_and_256_slow_ones_all_get_their_answers() {
    load(1000, 20, 256, true).await;
}
