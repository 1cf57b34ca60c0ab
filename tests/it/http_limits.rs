//! What one HTTP client can no longer do to the others: hold the request slots with slow
//! bodies, take every slot for itself, pin a slot (and the memory of its response) by not
//! reading, or open connections without bound.

use http::StatusCode;
use mcp_runtime::transport::http::{BearerTokens, HttpOptions};
use mcp_tests::http::{eventually, fixture, modern, post, post_modern, serve};
use serde_json::json;
use std::sync::atomic::Ordering;
use std::time::Duration;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpStream;

/// The head of a modern POST of `body`, as a client writes it.
fn head(authority: &str, method: &str, name: Option<&str>, length: usize) -> String {
    let name = name
        .map(|n| format!("Mcp-Name: {n}\r\n"))
        .unwrap_or_default();
    format!(
        "POST /mcp HTTP/1.1\r\nHost: {authority}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n\
         Mcp-Method: {method}\r\n{name}Content-Length: {length}\r\n\r\n"
    )
}

#[tokio::test]
async fn slow_bodies_do_not_take_the_request_slots() {
    let (server, _) = fixture();
    let options = HttpOptions::default()
        .max_concurrent_requests(2)
        .body_read_timeout(Duration::from_secs(20));
    let s = serve(server, options).await;
    // Four clients start a body and stall: more than there are request slots.
    let mut stalled = Vec::new();
    for _ in 0..4 {
        let mut stream = TcpStream::connect(s.addr).await.unwrap();
        let start = head(&s.authority(), "tools/list", None, 200);
        stream.write_all(start.as_bytes()).await.unwrap();
        stream.write_all(b"{\"jsonrpc\":").await.unwrap();
        stalled.push(stream);
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    // A request that is ready is served meanwhile.
    let reply = post_modern(&s.url, 1, "tools/list", json!({})).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
    drop(stalled);
}

#[tokio::test]
async fn bodies_arriving_at_once_have_their_own_cap() {
    let (server, _) = fixture();
    let options = HttpOptions::default()
        .max_concurrent_bodies(2)
        .body_read_timeout(Duration::from_secs(20));
    let s = serve(server, options).await;
    let mut stalled = Vec::new();
    for _ in 0..2 {
        let mut stream = TcpStream::connect(s.addr).await.unwrap();
        let start = head(&s.authority(), "tools/list", None, 200);
        stream.write_all(start.as_bytes()).await.unwrap();
        stalled.push(stream);
    }
    // Once the server has read both stalled heads (on a loaded machine that can take a
    // while), a third body finds the cap taken.
    let mut reply = post_modern(&s.url, 1, "tools/list", json!({})).await;
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while reply.status == StatusCode::OK && std::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(100)).await;
        reply = post_modern(&s.url, 1, "tools/list", json!({})).await;
    }
    assert_eq!(
        reply.status,
        StatusCode::SERVICE_UNAVAILABLE,
        "{}",
        reply.text()
    );
    assert!(reply.text().contains("request bodies"), "{}", reply.text());
    drop(stalled);
    let url = s.url.clone();
    let served = async move {
        loop {
            if post_modern(&url, 2, "tools/list", json!({})).await.status == StatusCode::OK {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    };
    tokio::time::timeout(Duration::from_secs(10), served)
        .await
        .expect("the slots come back when the bodies end");
}

/// A modern `tools/call` of `tool` (no arguments) with a bearer `token`.
async fn call_as(url: String, token: &str, tool: &str, id: i64) -> mcp_tests::http::Reply {
    let (message, headers) = modern(id, "tools/call", json!({"name": tool, "arguments": {}}));
    let bearer = format!("Bearer {token}");
    let mut headers: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
    headers.push(("authorization", &bearer));
    post(&url, &headers, &message).await
}

#[tokio::test]
async fn one_caller_cannot_take_every_slot() {
    let (server, probe) = fixture();
    let auth = BearerTokens::new([("alice", "token-a"), ("bob", "token-b")]);
    let options = HttpOptions::default().auth(auth).max_requests_per_caller(2);
    let s = serve(server, options).await;
    let call =
        |token: &'static str, tool: &'static str, id: i64| call_as(s.url.clone(), token, tool, id);
    let held: Vec<_> = (0..2)
        .map(|i| tokio::spawn(call("token-a", "gate", i)))
        .collect();
    let started = eventually(Duration::from_secs(10), || {
        probe.started.load(Ordering::SeqCst) == 2
    })
    .await;
    assert!(started, "alice's two calls are running");
    // Alice is at her share; Bob is not.
    let third = call("token-a", "gate", 3).await;
    assert_eq!(
        third.status,
        StatusCode::TOO_MANY_REQUESTS,
        "{}",
        third.text()
    );
    assert_eq!(third.header("retry-after"), Some("1"));
    let bob = call("token-b", "echo", 4).await;
    assert_eq!(bob.status, StatusCode::OK, "{}", bob.text());
    probe.gate.notify_waiters();
    for call in held {
        assert_eq!(call.await.unwrap().status, StatusCode::OK);
    }
    // Her slots came back with her answers.
    let again = call("token-a", "echo", 5).await;
    assert_eq!(again.status, StatusCode::OK, "{}", again.text());
}

#[tokio::test]
async fn a_response_nobody_reads_holds_its_slot_until_the_write_timeout_cuts_it_off() {
    let (server, _) = fixture();
    let options = HttpOptions::default()
        .max_concurrent_requests(1)
        .max_body_bytes(64 << 20)
        // Long enough for the 503 below to be seen while the write is still stalled, on a
        // loaded machine.
        .write_timeout(Duration::from_secs(5));
    let s = serve(server, options).await;
    // A 24 MiB echo, far more than the socket buffers take, from a client that never reads.
    let text = "x".repeat(24 << 20);
    let (message, _) = modern(
        1,
        "tools/call",
        json!({"name": "echo", "arguments": {"text": text}}),
    );
    let body = message.to_string();
    let mut reader = TcpStream::connect(s.addr).await.unwrap();
    let start = head(&s.authority(), "tools/call", Some("echo"), body.len());
    reader.write_all(start.as_bytes()).await.unwrap();
    reader.write_all(body.as_bytes()).await.unwrap();
    // Read the start of the answer, then stop reading.
    let mut got = Vec::new();
    let mut chunk = [0u8; 4096];
    while !got.windows(4).any(|w| w == b"\r\n\r\n") {
        let n = tokio::time::timeout(Duration::from_secs(30), reader.read(&mut chunk))
            .await
            .expect("the answer starts")
            .unwrap();
        assert!(n > 0, "the connection closed early");
        got.extend_from_slice(&chunk[..n]);
    }
    assert!(
        got.starts_with(b"HTTP/1.1 200"),
        "{}",
        String::from_utf8_lossy(&got)
    );
    // The answer is being written: its slot is still taken (it used to come back as soon
    // as the answer was made, before most of it was written).
    let busy = post_modern(&s.url, 2, "tools/list", json!({})).await;
    assert_eq!(
        busy.status,
        StatusCode::SERVICE_UNAVAILABLE,
        "{}",
        busy.text()
    );
    // The stalled write is cut off after the timeout, and the slot comes back.
    let url = s.url.clone();
    let freed = async move {
        loop {
            if post_modern(&url, 3, "tools/list", json!({})).await.status == StatusCode::OK {
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    };
    tokio::time::timeout(Duration::from_secs(30), freed)
        .await
        .expect("the slot returns once the stalled write times out");
    drop(reader);
}

#[tokio::test]
async fn at_the_connection_cap_idle_connections_make_room_and_busy_ones_finish() {
    let (server, probe) = fixture();
    // The header timeout is long: only the shedding can make room in time.
    let options = HttpOptions::default()
        .max_connections(3)
        .header_read_timeout(Duration::from_secs(600));
    let s = serve(server, options).await;
    // A busy connection: a call that waits for the gate.
    let busy = tokio::spawn({
        let url = s.url.clone();
        async move {
            post_modern(
                &url,
                1,
                "tools/call",
                json!({"name": "gate", "arguments": {}}),
            )
            .await
        }
    });
    let started = eventually(Duration::from_secs(10), || {
        probe.started.load(Ordering::SeqCst) == 1
    })
    .await;
    assert!(started, "the busy call runs");
    // Two idle connections that never send a request (a slowloris's, or idle keep-alives).
    let mut idle: Vec<TcpStream> =
        futures::future::join_all((0..2).map(|_| TcpStream::connect(s.addr)))
            .await
            .into_iter()
            .map(Result::unwrap)
            .collect();
    // At the cap, a new client is served: the idle connections are closed to make room
    // (bounded loosely: without the shedding it would wait the 600 s header timeout).
    let served = tokio::time::timeout(
        Duration::from_secs(60),
        post_modern(&s.url, 2, "tools/list", json!({})),
    )
    .await
    .expect("served once idle connections were closed");
    assert_eq!(served.status, StatusCode::OK);
    for stream in &mut idle {
        let mut byte = [0u8; 1];
        let read = tokio::time::timeout(Duration::from_secs(60), stream.read(&mut byte))
            .await
            .expect("the idle connection was closed");
        assert!(
            matches!(read, Ok(0) | Err(_)),
            "closed, not answered: {read:?}"
        );
    }
    // The busy call was not cut: it finishes with its answer.
    probe.gate.notify_waiters();
    let busy = busy.await.unwrap();
    assert_eq!(busy.status, StatusCode::OK, "{}", busy.text());
}

#[tokio::test]
async fn a_caller_at_its_limit_can_still_cancel_and_answer() {
    use mcp_tests::http::{initialize, legacy};
    let (server, probe) = fixture();
    let options = HttpOptions::default().max_requests_per_caller(2);
    let s = serve(server, options).await;
    let init = post(&s.url, &[], &initialize(1)).await;
    let session = init.header("mcp-session-id").unwrap().to_owned();
    let headers = [
        ("mcp-session-id", session.as_str()),
        ("mcp-protocol-version", "2025-11-25"),
    ];
    let done = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(
        post(&s.url, &headers, &done).await.status,
        StatusCode::ACCEPTED
    );
    // Two calls that never finish take both of the caller's slots.
    let hung: Vec<_> = (10..12)
        .map(|id| {
            let url = s.url.clone();
            let session = session.clone();
            tokio::spawn(async move {
                let headers = [
                    ("mcp-session-id", session.as_str()),
                    ("mcp-protocol-version", "2025-11-25"),
                ];
                post(
                    &url,
                    &headers,
                    &legacy(id, "tools/call", json!({"name": "hang", "arguments": {}})),
                )
                .await
            })
        })
        .collect();
    let started = eventually(Duration::from_secs(10), || {
        probe.started.load(Ordering::SeqCst) == 2
    })
    .await;
    assert!(started);
    let third = post(&s.url, &headers, &legacy(13, "tools/list", json!({}))).await;
    assert_eq!(
        third.status,
        StatusCode::TOO_MANY_REQUESTS,
        "{}",
        third.text()
    );
    // Its cancellation still gets through (it used to get 429 too), and frees the slot.
    let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                        "params": {"requestId": 10, "reason": "user"}});
    assert_eq!(
        post(&s.url, &headers, &cancel).await.status,
        StatusCode::ACCEPTED
    );
    let url = s.url.clone();
    let freed = async move {
        loop {
            let reply = post(&url, &headers, &legacy(14, "tools/list", json!({}))).await;
            if reply.status == StatusCode::OK {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    };
    tokio::time::timeout(Duration::from_secs(10), freed)
        .await
        .expect("the cancelled call gave its slot back");
    for call in hung {
        call.abort();
    }
}

#[tokio::test]
async fn the_last_quarter_of_the_permits_is_kept_for_callers_holding_few() {
    let (server, probe) = fixture();
    let auth = BearerTokens::new([("alice", "token-a"), ("bob", "token-b")]);
    let options = HttpOptions::default()
        .auth(auth)
        .max_concurrent_requests(8)
        .max_requests_per_caller(64);
    let s = serve(server, options).await;
    let call =
        |token: &'static str, tool: &'static str, id: i64| call_as(s.url.clone(), token, tool, id);
    // Alice holds six of the eight permits: all but the reserved quarter.
    let held: Vec<_> = (0..6)
        .map(|i| tokio::spawn(call("token-a", "gate", i)))
        .collect();
    let started = eventually(Duration::from_secs(10), || {
        probe.started.load(Ordering::SeqCst) == 6
    })
    .await;
    assert!(started, "alice's six calls are running");
    let seventh = call("token-a", "gate", 7).await;
    assert_eq!(
        seventh.status,
        StatusCode::SERVICE_UNAVAILABLE,
        "the reserve is not hers: {}",
        seventh.text()
    );
    let bob = call("token-b", "echo", 8).await;
    assert_eq!(bob.status, StatusCode::OK, "{}", bob.text());
    probe.gate.notify_waiters();
    for call in held {
        assert_eq!(call.await.unwrap().status, StatusCode::OK);
    }
}

#[tokio::test]
async fn long_lived_streams_have_their_own_pool_and_never_take_request_permits() {
    use mcp_tests::http::open_modern;
    let (server, _) = fixture();
    let options = HttpOptions::default()
        .max_concurrent_requests(2)
        .max_streams(3);
    let s = serve(server, options).await;
    let listen = |id: i64| {
        open_modern(
            &s.url,
            id,
            "subscriptions/listen",
            json!({"notifications": {"toolsListChanged": true}}),
        )
    };
    let mut streams = Vec::new();
    for id in 0..3 {
        let stream = listen(id).await;
        assert_eq!(stream.status(), StatusCode::OK);
        streams.push(stream);
    }
    // Three streams open, more than the two request permits: requests are still served.
    for id in 10..13 {
        let answer = post_modern(
            &s.url,
            id,
            "tools/call",
            json!({"name": "echo", "arguments": {}}),
        )
        .await;
        assert_eq!(answer.status, StatusCode::OK, "{}", answer.text());
    }
    // The streams' own pool is full.
    let fourth = listen(3).await;
    assert_eq!(fourth.status(), StatusCode::SERVICE_UNAVAILABLE);
    drop(streams);
}
