//! Legacy (2025-era) clients over HTTP: the session lifecycle in sessionful mode (id, GET
//! stream, DELETE, expiry, cap, identity), and stateless mode (405s, no session).

use http::{Method, StatusCode};
use mcp_runtime::prelude::*;
use mcp_runtime::transport::http::{BearerTokens, HttpOptions, LegacyMode};
use mcp_tests::http::{
    self as t, ACCEPT_BOTH, LEGACY, Spawned, SseReader, eventually, fixture, initialize, legacy,
    post, post_modern, serve,
};
use serde_json::json;
use std::time::Duration;

/// Initializes a session; returns its id.
async fn open_session(url: &str, extra: &[(&str, &str)]) -> String {
    let reply = post(url, extra, &initialize(1)).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
    assert_eq!(reply.json()["result"]["protocolVersion"], LEGACY);
    let id = reply
        .header("mcp-session-id")
        .unwrap_or_else(|| panic!("initialize must mint a session: {:?}", reply.headers))
        .to_owned();
    let mut headers = extra.to_vec();
    headers.push(("mcp-session-id", &id));
    let done = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(
        post(url, &headers, &done).await.status,
        StatusCode::ACCEPTED
    );
    id
}

/// The audit line of a legacy session's call names the session by a tag: its id is the
/// only credential an unauthenticated client has, and logs are read by more people than
/// the client.
#[tokio::test]
async fn the_audit_names_a_session_by_a_tag_never_by_its_id() {
    let server = Spawned::start("echo-server", &["--legacy-mode", "sessionful"]);
    let url = &server.url;
    let id = open_session(url, &[]).await;
    let call = legacy(
        2,
        "tools/call",
        json!({"name": "echo", "arguments": {"text": "hi"}}),
    );
    let reply = post(url, &[("mcp-session-id", &id)], &call).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
    let audited = eventually(Duration::from_secs(30), || {
        server
            .stderr()
            .lines()
            .any(|l| l.contains("mcp::audit") && l.contains("tools/call"))
    })
    .await;
    let log = server.stderr();
    assert!(audited, "no audit line for the call:\n{log}");
    assert!(!log.contains(&id), "the session id is in the log:\n{log}");
    assert!(log.contains("caller=session:"), "{log}");
}

#[tokio::test]
async fn a_sessionful_legacy_client_lives_and_dies_by_its_session_id() {
    let server = Spawned::start("echo-server", &["--legacy-mode", "sessionful"]);
    let url = &server.url;
    let id = open_session(url, &[]).await;
    // 256 bits of randomness, base64url: 43 visible ASCII characters.
    assert_eq!(id.len(), 43, "{id}");
    assert!(
        id.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'),
        "{id}"
    );
    let other = open_session(url, &[]).await;
    assert_ne!(id, other, "every session gets its own id");

    // Requests on the session, under any legacy version header, get 2025-shaped answers.
    for version in [LEGACY, "2025-06-18", "2025-03-26"] {
        let reply = post(
            url,
            &[("mcp-session-id", &id), ("mcp-protocol-version", version)],
            &legacy(2, "tools/list", json!({})),
        )
        .await;
        assert_eq!(reply.status, StatusCode::OK, "{version}: {}", reply.text());
        let result = &reply.json()["result"];
        assert!(
            result["tools"].as_array().is_some_and(|t| t.len() == 5),
            "{result}"
        );
        assert!(
            result.get("resultType").is_none(),
            "legacy results carry no era fields: {result}"
        );
    }
    let reply = post(
        url,
        &[("mcp-session-id", &id)],
        &legacy(
            3,
            "tools/call",
            json!({"name": "echo", "arguments": {"text": "hey"}}),
        ),
    )
    .await;
    assert_eq!(reply.json()["result"]["content"][0]["text"], "hey");
    let reply = post(
        url,
        &[("mcp-session-id", &id)],
        &legacy(4, "ping", json!({})),
    )
    .await;
    assert_eq!(reply.json()["result"], json!({}));

    // A modern version header on a legacy body: 400 -32020.
    let reply = post(
        url,
        &[
            ("mcp-session-id", &id),
            ("mcp-protocol-version", "2026-07-28"),
        ],
        &legacy(5, "tools/list", json!({})),
    )
    .await;
    assert_eq!(
        (reply.status, reply.error_code()),
        (StatusCode::BAD_REQUEST, -32020),
        "{}",
        reply.text()
    );
    let reply = post(
        url,
        &[
            ("mcp-session-id", &id),
            ("mcp-protocol-version", "2099-01-01"),
        ],
        &legacy(5, "tools/list", json!({})),
    )
    .await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);

    // No session id: 400. An unknown one: 404 (the client's cue to initialize again).
    let reply = post(url, &[], &legacy(6, "tools/list", json!({}))).await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{}", reply.text());
    let reply = post(
        url,
        &[("mcp-session-id", "no-such-session")],
        &legacy(7, "tools/list", json!({})),
    )
    .await;
    assert_eq!(reply.status, StatusCode::NOT_FOUND, "{}", reply.text());
    let reply = post(
        url,
        &[("mcp-session-id", "no-such-session")],
        &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    )
    .await;
    assert_eq!(reply.status, StatusCode::NOT_FOUND);

    // Modern requests need no session, and an unknown session id does not matter to them.
    let reply = post_modern(url, 8, "tools/list", json!({})).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
    let (message, headers) = t::modern(9, "tools/list", json!({}));
    let mut headers: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
    headers.push(("mcp-session-id", "no-such-session"));
    let reply = post(url, &headers, &message).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
    assert!(reply.header("mcp-session-id").is_none());

    // GET opens the session's stream; a second one at the same time is refused.
    let get = t::open(
        Method::GET,
        url,
        &[("mcp-session-id", &id), ("accept", "text/event-stream")],
        "",
    )
    .await;
    assert_eq!(get.status(), StatusCode::OK);
    assert_eq!(get.headers()["content-type"], "text/event-stream");
    assert_eq!(get.headers()["x-accel-buffering"], "no");
    let second = t::send(
        Method::GET,
        url,
        &[("mcp-session-id", &id), ("accept", "text/event-stream")],
        "",
    )
    .await;
    assert_eq!(second.status, StatusCode::CONFLICT);
    let reply = t::send(Method::GET, url, &[("accept", "text/event-stream")], "").await;
    assert_eq!(
        reply.status,
        StatusCode::BAD_REQUEST,
        "GET without a session"
    );
    let reply = t::send(
        Method::GET,
        url,
        &[("mcp-session-id", "nope"), ("accept", "text/event-stream")],
        "",
    )
    .await;
    assert_eq!(reply.status, StatusCode::NOT_FOUND);
    let reply = t::send(
        Method::GET,
        url,
        &[("mcp-session-id", &id), ("accept", "application/json")],
        "",
    )
    .await;
    assert_eq!(reply.status, StatusCode::NOT_ACCEPTABLE);

    // DELETE ends it: the GET stream ends, and the id is unknown from then on.
    let mut stream = SseReader::new(get);
    let reply = t::send(Method::DELETE, url, &[("mcp-session-id", &id)], "").await;
    assert_eq!(reply.status, StatusCode::NO_CONTENT);
    loop {
        match stream.next(Duration::from_secs(10)).await {
            None => break,
            Some(event) => assert!(
                event.data.is_none(),
                "only keep-alives before the end: {event:?}"
            ),
        }
    }
    let reply = post(
        url,
        &[("mcp-session-id", &id)],
        &legacy(9, "tools/list", json!({})),
    )
    .await;
    assert_eq!(reply.status, StatusCode::NOT_FOUND);
    assert_eq!(
        t::send(Method::DELETE, url, &[("mcp-session-id", &id)], "")
            .await
            .status,
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        t::send(Method::DELETE, url, &[], "").await.status,
        StatusCode::BAD_REQUEST
    );
    // The other session is untouched.
    let reply = post(
        url,
        &[("mcp-session-id", &other)],
        &legacy(10, "tools/list", json!({})),
    )
    .await;
    assert_eq!(reply.status, StatusCode::OK);
}

#[tokio::test]
async fn the_get_stream_carries_list_changes_and_survives_reconnects() {
    let (server, _) = fixture();
    // Short keep-alives: a closed stream is noticed at the next write at the latest.
    let options = HttpOptions::default().keep_alive(Duration::from_millis(50));
    let s = serve(server.clone(), options).await;
    let id = open_session(&s.url, &[]).await;
    let headers = [
        ("mcp-session-id", id.as_str()),
        ("accept", "text/event-stream"),
    ];
    let mut stream = SseReader::new(t::open(Method::GET, &s.url, &headers, "").await);
    let extra = tool_fn(
        ToolDefinition::new("extra", "Added at run time.", json!({"type": "object"})),
        |_, _| async { "extra" },
    );
    server.tools().register(extra).unwrap();
    let message = stream
        .next_message(Duration::from_secs(10))
        .await
        .expect("an event");
    assert_eq!(
        message["method"], "notifications/tools/list_changed",
        "{message}"
    );

    // Reconnect: the stream can be opened again, and gets what comes next.
    drop(stream);
    let reconnect = async {
        loop {
            let response = t::open(Method::GET, &s.url, &headers, "").await;
            if response.status() == StatusCode::OK {
                break SseReader::new(response);
            }
            // The old stream is let go of once the server notices it closed; try again.
            assert_eq!(response.status(), StatusCode::CONFLICT);
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    };
    let mut stream = tokio::time::timeout(Duration::from_secs(20), reconnect)
        .await
        .expect("the session's stream can be reopened");
    assert!(server.tools().remove("extra"));
    let message = stream
        .next_message(Duration::from_secs(10))
        .await
        .expect("an event");
    assert_eq!(message["method"], "notifications/tools/list_changed");
}

#[tokio::test]
async fn idle_sessions_expire_and_the_cap_holds() {
    let (server, _) = fixture();
    let options = HttpOptions::default()
        .max_sessions(2)
        // Long enough for both sessions to open their streams on a loaded machine.
        .session_idle_timeout(Duration::from_secs(2))
        .keep_alive(Duration::from_millis(50));
    let s = serve(server, options).await;
    let first = open_session(&s.url, &[]).await;
    let second = open_session(&s.url, &[]).await;
    // Open GET streams keep both sessions in use, so neither can expire meanwhile.
    let mut streams = Vec::new();
    for id in [&first, &second] {
        let headers = [
            ("mcp-session-id", id.as_str()),
            ("accept", "text/event-stream"),
        ];
        let get = t::open(Method::GET, &s.url, &headers, "").await;
        assert_eq!(get.status(), StatusCode::OK);
        streams.push(get);
    }
    // At the cap, with both sessions live: 503, no third session.
    let reply = post(&s.url, &[], &initialize(1)).await;
    assert_eq!(
        reply.status,
        StatusCode::SERVICE_UNAVAILABLE,
        "{}",
        reply.text()
    );
    assert!(reply.header("retry-after").is_some());
    assert_eq!(s.service.session_count(), 2);

    // Once idle long enough, sessions expire: requests get 404 and room opens up.
    drop(streams);
    let service = s.service.clone();
    assert!(
        eventually(Duration::from_secs(20), || service.session_count() == 0).await,
        "sessions expired"
    );
    let reply = post(
        &s.url,
        &[("mcp-session-id", &first)],
        &legacy(2, "tools/list", json!({})),
    )
    .await;
    assert_eq!(reply.status, StatusCode::NOT_FOUND);
    open_session(&s.url, &[]).await;
}

#[tokio::test]
async fn a_session_with_an_open_stream_does_not_expire() {
    let (server, _) = fixture();
    // Long enough for the stream to open on a loaded machine; then several idle periods
    // pass while it is open.
    let options = HttpOptions::default().session_idle_timeout(Duration::from_secs(1));
    let s = serve(server, options).await;
    let id = open_session(&s.url, &[]).await;
    let get = t::open(
        Method::GET,
        &s.url,
        &[("mcp-session-id", &id), ("accept", "text/event-stream")],
        "",
    )
    .await;
    assert_eq!(get.status(), StatusCode::OK);
    // Several idle periods pass while the stream is open.
    tokio::time::sleep(Duration::from_secs(3)).await;
    let reply = post(
        &s.url,
        &[("mcp-session-id", &id)],
        &legacy(2, "tools/list", json!({})),
    )
    .await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
    drop(get);
}

#[tokio::test]
async fn sessions_belong_to_the_identity_that_opened_them() {
    let (server, _) = fixture();
    let options = HttpOptions::default().auth(BearerTokens::new([
        ("alice", "token-a"),
        ("bob", "token-b"),
    ]));
    let s = serve(server, options).await;
    let alice = [("authorization", "Bearer token-a")];
    let id = open_session(&s.url, &alice).await;
    let reply = post(
        &s.url,
        &[("authorization", "Bearer token-a"), ("mcp-session-id", &id)],
        &legacy(2, "tools/list", json!({})),
    )
    .await;
    assert_eq!(reply.status, StatusCode::OK);
    let reply = post(
        &s.url,
        &[("authorization", "Bearer token-b"), ("mcp-session-id", &id)],
        &legacy(3, "tools/list", json!({})),
    )
    .await;
    assert_eq!(
        reply.status,
        StatusCode::NOT_FOUND,
        "bob cannot use alice's session"
    );
}

#[tokio::test]
async fn stateless_legacy_mode_keeps_nothing_and_refuses_get_and_delete() {
    let server = Spawned::start("echo-server", &["--legacy-mode", "stateless"]);
    let url = &server.url;
    let reply = post(url, &[], &initialize(1)).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
    assert_eq!(reply.json()["result"]["protocolVersion"], LEGACY);
    assert!(
        reply.header("mcp-session-id").is_none(),
        "no session is minted"
    );
    let done = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(post(url, &[], &done).await.status, StatusCode::ACCEPTED);

    // Every request stands alone, with or without a (meaningless) session id.
    for headers in [
        vec![],
        vec![("mcp-session-id", "whatever")],
        vec![("mcp-protocol-version", "2025-06-18")],
    ] {
        let reply = post(
            url,
            &headers,
            &legacy(
                2,
                "tools/call",
                json!({"name": "add", "arguments": {"a": 1, "b": 2}}),
            ),
        )
        .await;
        assert_eq!(
            reply.status,
            StatusCode::OK,
            "{headers:?}: {}",
            reply.text()
        );
        let result = &reply.json()["result"];
        assert_eq!(result["content"][0]["text"], "3");
        assert!(
            result.get("resultType").is_none(),
            "legacy-shaped: {result}"
        );
    }
    let reply = post(
        url,
        &[("mcp-protocol-version", "2026-07-28")],
        &legacy(3, "tools/list", json!({})),
    )
    .await;
    assert_eq!(
        (reply.status, reply.error_code()),
        (StatusCode::BAD_REQUEST, -32020)
    );

    for method in [Method::GET, Method::DELETE] {
        let reply = t::send(
            method.clone(),
            url,
            &[("mcp-session-id", "x"), ("accept", ACCEPT_BOTH)],
            "",
        )
        .await;
        assert_eq!(reply.status, StatusCode::METHOD_NOT_ALLOWED, "{method}");
        assert_eq!(reply.header("allow"), Some("POST"));
    }
    // Modern clients are served the same in both modes.
    let reply = post_modern(url, 4, "tools/list", json!({})).await;
    assert_eq!(reply.json()["result"]["resultType"], "complete");
}

#[tokio::test]
async fn stateless_mode_is_an_option_of_the_library_too() {
    let (server, _) = fixture();
    let s = serve(
        server,
        HttpOptions::default().legacy_mode(LegacyMode::Stateless),
    )
    .await;
    let reply = post(&s.url, &[], &initialize(1)).await;
    assert!(reply.header("mcp-session-id").is_none());
    assert_eq!(s.service.session_count(), 0);
    let reply = t::send(Method::GET, &s.url, &[("accept", "text/event-stream")], "").await;
    assert_eq!(reply.status, StatusCode::METHOD_NOT_ALLOWED);
}

#[tokio::test]
async fn resource_updates_reach_subscribed_sessions_on_their_get_stream() {
    use mcp_runtime::protocol::ResourceDefinition;
    use mcp_runtime::resource::resource_fn;
    let server = Server::builder("watched", "1.0.0")
        .resource(resource_fn(
            ResourceDefinition::new("test://watched", "watched"),
            |_| async { "v1" },
        ))
        .build()
        .unwrap();
    let options = HttpOptions::default().keep_alive(Duration::from_millis(50));
    let s = serve(server.clone(), options).await;
    let subscriber = open_session(&s.url, &[]).await;
    let bystander = open_session(&s.url, &[]).await;
    let mut streams = Vec::new();
    for id in [&subscriber, &bystander] {
        let headers = [
            ("mcp-session-id", id.as_str()),
            ("accept", "text/event-stream"),
        ];
        streams.push(SseReader::new(
            t::open(Method::GET, &s.url, &headers, "").await,
        ));
    }
    let subscribe = legacy(2, "resources/subscribe", json!({"uri": "test://watched"}));
    let reply = post(&s.url, &[("mcp-session-id", &subscriber)], &subscribe).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
    assert_eq!(reply.answer()["result"], json!({}));

    server.resources().updated("test://watched");
    let message = streams[0]
        .next_message(Duration::from_secs(10))
        .await
        .expect("the subscriber's stream gets the update");
    assert_eq!(
        message,
        json!({"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"uri": "test://watched"}})
    );
    // Keep-alive comments arrive meanwhile; no message does.
    let bystander = streams[1].next_message(Duration::from_secs(10));
    assert!(
        tokio::time::timeout(Duration::from_millis(300), bystander)
            .await
            .is_err(),
        "a session that did not subscribe hears nothing"
    );
}

#[tokio::test]
async fn stateless_legacy_subscriptions_are_acknowledged_but_not_kept() {
    use mcp_runtime::protocol::ResourceDefinition;
    use mcp_runtime::resource::resource_fn;
    let server = Server::builder("watched", "1.0.0")
        .resource(resource_fn(
            ResourceDefinition::new("test://watched", "watched"),
            |_| async { "v1" },
        ))
        .build()
        .unwrap();
    let s = serve(
        server,
        HttpOptions::default().legacy_mode(LegacyMode::Stateless),
    )
    .await;
    // Acknowledged exactly as `{}` (what the suite and the reference expect), though a
    // stateless endpoint has no stream to announce updates on.
    let subscribe = legacy(2, "resources/subscribe", json!({"uri": "test://watched"}));
    let reply = post(&s.url, &[], &subscribe).await;
    assert_eq!(reply.answer()["result"], json!({}), "{}", reply.text());
    let unsubscribe = legacy(4, "resources/unsubscribe", json!({"uri": "test://watched"}));
    let reply = post(&s.url, &[], &unsubscribe).await;
    assert_eq!(reply.answer()["result"], json!({}), "{}", reply.text());
    // A URI that is not one is still refused.
    let bad = legacy(5, "resources/subscribe", json!({"uri": "no scheme"}));
    let reply = post(&s.url, &[], &bad).await;
    assert_eq!(reply.answer()["error"]["code"], -32602, "{}", reply.text());
    // Reads work without a session.
    let read = legacy(3, "resources/read", json!({"uri": "test://watched"}));
    let reply = post(&s.url, &[], &read).await;
    assert_eq!(reply.answer()["result"]["contents"][0]["text"], "v1");
}

/// A legacy `tools/list` on session `id`: its status.
async fn list_on(url: &str, id: &str, extra: &[(&str, &str)]) -> StatusCode {
    let mut headers = extra.to_vec();
    headers.push(("mcp-session-id", id));
    post(url, &headers, &legacy(9, "tools/list", json!({})))
        .await
        .status
}

#[tokio::test]
async fn at_the_cap_the_session_idle_the_longest_makes_room() {
    let (server, _) = fixture();
    let s = serve(server, HttpOptions::default().max_sessions(3)).await;
    let mut ids = Vec::new();
    for _ in 0..3 {
        ids.push(open_session(&s.url, &[]).await);
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // The first is used again: the second is now the one idle the longest.
    assert_eq!(list_on(&s.url, &ids[0], &[]).await, StatusCode::OK);
    // A fourth client is not locked out (it used to get 503 for the idle timeout, 30 min).
    let fourth = open_session(&s.url, &[]).await;
    assert_eq!(s.service.session_count(), 3);
    assert_eq!(list_on(&s.url, &ids[1], &[]).await, StatusCode::NOT_FOUND);
    for id in [&ids[0], &ids[2], &fourth] {
        assert_eq!(list_on(&s.url, id, &[]).await, StatusCode::OK);
    }
}

#[tokio::test]
async fn a_caller_at_its_session_quota_gives_up_its_own_oldest_and_nobody_elses() {
    let (server, _) = fixture();
    let auth = BearerTokens::new([("alice", "token-a"), ("bob", "token-b")]);
    let options = HttpOptions::default()
        .auth(auth)
        .max_sessions_per_caller(2)
        .keep_alive(Duration::from_millis(50));
    let s = serve(server, options).await;
    let alice = [("authorization", "Bearer token-a")];
    let bob = [("authorization", "Bearer token-b")];
    let bobs = open_session(&s.url, &bob).await;
    let a1 = open_session(&s.url, &alice).await;
    tokio::time::sleep(Duration::from_millis(20)).await;
    let a2 = open_session(&s.url, &alice).await;
    tokio::time::sleep(Duration::from_millis(20)).await;
    let a3 = open_session(&s.url, &alice).await;
    assert_eq!(list_on(&s.url, &a1, &alice).await, StatusCode::NOT_FOUND);
    assert_eq!(list_on(&s.url, &a2, &alice).await, StatusCode::OK);
    assert_eq!(list_on(&s.url, &a3, &alice).await, StatusCode::OK);
    assert_eq!(list_on(&s.url, &bobs, &bob).await, StatusCode::OK);
    // With both of hers in use (streams open), she gets 429; Bob still gets sessions.
    let mut streams = Vec::new();
    for id in [&a2, &a3] {
        let headers = [
            ("mcp-session-id", id.as_str()),
            ("accept", "text/event-stream"),
            alice[0],
        ];
        let get = t::open(Method::GET, &s.url, &headers, "").await;
        assert_eq!(get.status(), StatusCode::OK);
        streams.push(get);
    }
    let reply = post(&s.url, &alice, &initialize(1)).await;
    assert_eq!(
        reply.status,
        StatusCode::TOO_MANY_REQUESTS,
        "{}",
        reply.text()
    );
    open_session(&s.url, &bob).await;
    drop(streams);
}

#[tokio::test]
async fn sessions_and_their_streams_end_at_their_maximum_lifetime() {
    use http_body_util::BodyExt as _;
    let (server, _) = fixture();
    let options = HttpOptions::default()
        .max_stream_lifetime(Duration::from_millis(300))
        .max_session_lifetime(Duration::from_millis(1500))
        .keep_alive(Duration::from_millis(50));
    let s = serve(server, options).await;
    let id = open_session(&s.url, &[]).await;
    let headers = [
        ("mcp-session-id", id.as_str()),
        ("accept", "text/event-stream"),
    ];
    let get = t::open(Method::GET, &s.url, &headers, "").await;
    assert_eq!(get.status(), StatusCode::OK);
    tokio::time::timeout(Duration::from_secs(10), get.into_body().collect())
        .await
        .expect("the GET stream ends at its lifetime")
        .expect("and ends cleanly");
    // The session stays usable while it lives, however busy, then ends.
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    loop {
        let status = list_on(&s.url, &id, &[]).await;
        if status == StatusCode::NOT_FOUND {
            break;
        }
        assert_eq!(status, StatusCode::OK);
        assert!(
            std::time::Instant::now() < deadline,
            "the session outlived its lifetime"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
