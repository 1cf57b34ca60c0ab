//! Per-request SSE streams over HTTP: progress then the answer, keep-alive comments, a
//! client closing the stream cancels the request, `subscriptions/listen`; graceful
//! shutdown; and the service mounted in an axum `Router` of the user's.

use http::{Method, StatusCode};
use mcp_runtime::prelude::*;
use mcp_runtime::transport::http::{HttpOptions, McpHttpService};
use mcp_tests::http::{
    self as t, SseReader, eventually, fixture, modern, open_modern, post, post_modern, serve,
};
use serde_json::json;
use std::sync::atomic::Ordering;
use std::time::Duration;

const WAIT: Duration = Duration::from_secs(10);

/// Opens a modern request as a stream.

#[tokio::test]
async fn progress_streams_before_the_answer() {
    let (server, _) = fixture();
    let s = serve(server, HttpOptions::default()).await;
    let mut params = json!({"name": "progress", "arguments": {"steps": 3, "ms": 20}});
    params["_meta"] = json!({"progressToken": "p-1"});
    let (mut message, headers) = modern(1, "tools/call", params);
    message["params"]["_meta"]["progressToken"] = json!("p-1");
    let h: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let reply = post(&s.url, &h, &message).await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(reply.media_type(), "text/event-stream", "{}", reply.text());
    assert_eq!(reply.header("x-accel-buffering"), Some("no"));
    let messages = reply.messages();
    assert_eq!(
        messages.len(),
        4,
        "three notifications, then the answer: {messages:?}"
    );
    for (i, note) in messages[..3].iter().enumerate() {
        assert_eq!(note["method"], "notifications/progress");
        assert_eq!(note["params"]["progressToken"], "p-1");
        assert_eq!(note["params"]["progress"], (i + 1) as f64);
    }
    assert_eq!(messages[3]["id"], 1);
    assert_eq!(messages[3]["result"]["content"][0]["text"], "done");
    assert_eq!(messages[3]["result"]["resultType"], "complete");

    // Without a progress token the same call has nothing to stream: plain JSON.
    let reply = post_modern(
        &s.url,
        2,
        "tools/call",
        json!({"name": "progress", "arguments": {"steps": 2, "ms": 10}}),
    )
    .await;
    assert_eq!(reply.media_type(), "application/json");
    assert_eq!(reply.json()["result"]["content"][0]["text"], "done");
}

#[tokio::test]
async fn quiet_streams_carry_keep_alive_comments() {
    let (server, _) = fixture();
    let s = serve(
        server,
        HttpOptions::default().keep_alive(Duration::from_millis(50)),
    )
    .await;
    let reply = post_modern(
        &s.url,
        1,
        "tools/call",
        json!({"name": "progress", "arguments": {"steps": 1, "ms": 400}}),
    )
    .await;
    // Still running after one keep-alive interval, so it became a stream, with comments.
    assert_eq!(reply.media_type(), "text/event-stream", "{}", reply.text());
    let events = t::parse_sse(&reply.text());
    assert!(
        events
            .iter()
            .any(|e| e.comments.iter().any(|c| c == "keep-alive")),
        "{events:?}"
    );
    assert_eq!(reply.answer()["result"]["content"][0]["text"], "done");
}

#[tokio::test]
async fn closing_the_stream_cancels_the_request() {
    let (server, probe) = fixture();

    // Gone before the response started: with a long keep-alive interval the request is
    // still waiting to be answered as JSON when the client disconnects.
    let patient = HttpOptions::default().keep_alive(Duration::from_secs(600));
    let s = serve(server.clone(), patient).await;
    let pending = tokio::spawn({
        let url = s.url.clone();
        async move {
            open_modern(
                &url,
                1,
                "tools/call",
                json!({"name": "hang", "arguments": {}}),
            )
            .await
        }
    });
    assert!(eventually(WAIT, || probe.started.load(Ordering::SeqCst) == 1).await);
    pending.abort();
    assert!(
        eventually(WAIT, || probe.dropped.load(Ordering::SeqCst) == 1).await,
        "the tool's future was dropped when the client left"
    );

    // Gone after the stream started (a short interval makes it a stream at once).
    let s = serve(
        server,
        HttpOptions::default().keep_alive(Duration::from_millis(50)),
    )
    .await;
    let response = open_modern(
        &s.url,
        2,
        "tools/call",
        json!({"name": "hang", "arguments": {}}),
    )
    .await;
    assert_eq!(response.headers()["content-type"], "text/event-stream");
    let mut stream = SseReader::new(response);
    let first = stream.next(WAIT).await.expect("a keep-alive");
    assert!(first.data.is_none(), "{first:?}");
    assert_eq!(probe.started.load(Ordering::SeqCst), 2);
    drop(stream);
    assert!(
        eventually(WAIT, || probe.dropped.load(Ordering::SeqCst) == 2).await,
        "the tool's future was dropped when the stream closed"
    );
}

#[tokio::test]
async fn listen_streams_acknowledge_then_carry_list_changes() {
    let (server, _) = fixture();
    let s = serve(server.clone(), HttpOptions::default()).await;
    let response = open_modern(
        &s.url,
        7,
        "subscriptions/listen",
        json!({"notifications": {"toolsListChanged": true, "promptsListChanged": true}}),
    )
    .await;
    assert_eq!(response.status(), StatusCode::OK);
    let mut stream = SseReader::new(response);
    let ack = stream
        .next_message(WAIT)
        .await
        .expect("the acknowledgement");
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    assert_eq!(
        ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        7
    );
    assert_eq!(
        ack["params"]["notifications"],
        json!({"toolsListChanged": true}),
        "only what is honoured"
    );

    let extra = tool_fn(
        ToolDefinition::new("extra", "Added at run time.", json!({"type": "object"})),
        |_, _| async { "extra" },
    );
    server.tools().register(extra).unwrap();
    let change = stream.next_message(WAIT).await.expect("a change");
    assert_eq!(change["method"], "notifications/tools/list_changed");
    assert_eq!(
        change["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        7
    );
}

#[tokio::test]
async fn graceful_shutdown_finishes_in_flight_requests_and_ends_streams() {
    let (server, probe) = fixture();
    let mut s = serve(server, HttpOptions::default()).await;
    let in_flight = tokio::spawn({
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
    let listen = open_modern(
        &s.url,
        2,
        "subscriptions/listen",
        json!({"notifications": {"toolsListChanged": true}}),
    )
    .await;
    let mut listen = SseReader::new(listen);
    listen
        .next_message(WAIT)
        .await
        .expect("the acknowledgement");
    assert!(eventually(WAIT, || probe.started.load(Ordering::SeqCst) == 1).await);

    let stopped = s.begin_stop();
    // The listen stream ends with its result.
    let last = listen.next_message(WAIT).await.expect("the listen result");
    assert_eq!(last["id"], 2);
    assert_eq!(last["result"]["resultType"], "complete");
    assert_eq!(
        last["result"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        2
    );
    assert!(listen.next(WAIT).await.is_none(), "then the stream ends");

    // The in-flight call is still answered, then the server is done.
    probe.gate.notify_waiters();
    let reply = in_flight.await.unwrap();
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(reply.answer()["result"]["content"][0]["text"], "released");
    tokio::time::timeout(Duration::from_secs(20), stopped)
        .await
        .expect("shutdown completes")
        .unwrap()
        .unwrap();
    assert!(
        tokio::net::TcpStream::connect(s.addr).await.is_err(),
        "no longer listening"
    );
}

#[tokio::test]
async fn the_service_mounts_in_a_users_axum_router() {
    let (server, _) = fixture();
    let mcp = McpHttpService::new(server, HttpOptions::default());
    let app = axum::Router::new()
        .route_service("/api/mcp", mcp.clone())
        .route("/healthz", axum::routing::get(|| async { "ok" }));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let serving = tokio::spawn(async move { axum::serve(listener, app).await });
    let url = format!("http://{addr}/api/mcp");
    let reply = post_modern(
        &url,
        1,
        "tools/call",
        json!({"name": "add", "arguments": {"a": 20, "b": 22}}),
    )
    .await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
    assert_eq!(reply.json()["result"]["content"][0]["text"], "42");
    let reply = post(&url, &[], &t::initialize(1)).await;
    assert!(reply.header("mcp-session-id").is_some());
    assert_eq!(mcp.session_count(), 1);
    let health = t::send(Method::GET, &format!("http://{addr}/healthz"), &[], "").await;
    assert_eq!(health.text(), "ok");
    // The checks travel with the service.
    let reply = post(&url, &[("host", "evil.example.com")], &t::initialize(2)).await;
    assert_eq!(reply.status, StatusCode::FORBIDDEN);
    serving.abort();
}

#[tokio::test]
async fn the_example_server_stops_gracefully_on_sigterm() {
    let mut server = mcp_tests::http::Spawned::start("echo-server", &[]);
    let reply = post_modern(&server.url, 1, "tools/list", json!({})).await;
    assert_eq!(reply.status, StatusCode::OK);
    let exited_cleanly = tokio::task::spawn_blocking(move || server.terminate())
        .await
        .unwrap();
    assert!(
        exited_cleanly,
        "SIGTERM ends echo-server --transport http with success"
    );
}
