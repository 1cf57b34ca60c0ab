//! Instances of one server sharing their state in one process through a
//! [`MemoryFleet`](mcp_runtime::server::sharing::MemoryFleet): the same seams Redis fills
//! (`redis_fleet.rs`), filled in memory, so what crosses instances is proven without Redis
//! too: a legacy session served by every instance in turn and ended by one for all, one
//! rate-limit budget, a list change raised on one reaching a client of another. The seams'
//! contract suite itself runs in the runtime's unit tests (memory) and in `redis_store.rs`
//! (Redis).

use mcp_runtime::client::{Client, EraMode};
use mcp_runtime::server::sharing::MemoryFleet;
use mcp_runtime::transport::http::HttpOptions;
use mcp_tests::http::serve;
use serde_json::json;
use std::time::Duration;

/// Greets.
#[mcp_runtime::mcp_tool]
async fn greet(name: String) -> String {
    format!("Hello, {name}!")
}

/// At most 2 calls a minute per caller, fleet-wide.
#[mcp_runtime::mcp_tool(rate_limit = "2/m")]
async fn scarce() -> &'static str {
    "ok"
}

fn instance(fleet: &MemoryFleet) -> mcp_runtime::Server {
    mcp_runtime::Server::builder("fleet", "1.0.0")
        .tool(greet::tool())
        .tool(scarce::tool())
        .share_through(fleet.instance())
        .build()
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_legacy_session_is_served_by_every_instance_of_a_memory_fleet_and_ended_by_one() {
    let fleet = MemoryFleet::new();
    let (a, b, c) = (
        serve(instance(&fleet), HttpOptions::default()).await,
        serve(instance(&fleet), HttpOptions::default()).await,
        serve(instance(&fleet), HttpOptions::default()).await,
    );
    let urls = [&a.url, &b.url, &c.url];
    let opened = mcp_tests::http::legacy_post(&a.url, None, &mcp_tests::http::initialize(1)).await;
    let session = opened
        .header("mcp-session-id")
        .expect("a session")
        .to_owned();
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(
        mcp_tests::http::legacy_post(&b.url, Some(&session), &initialized)
            .await
            .status,
        http::StatusCode::ACCEPTED
    );
    for n in 0..6_i64 {
        let call = json!({"jsonrpc": "2.0", "id": 10 + n, "method": "tools/call",
            "params": {"name": "greet", "arguments": {"name": format!("n{n}")}}});
        let answer = mcp_tests::http::legacy_post(urls[(n % 3) as usize], Some(&session), &call)
            .await
            .answer();
        assert_eq!(
            answer["result"]["content"][0]["text"],
            format!("Hello, n{n}!"),
            "request {n} on instance {}: {answer}",
            n % 3
        );
    }
    // A session id nobody opened is unknown everywhere.
    let list = json!({"jsonrpc": "2.0", "id": 30, "method": "tools/list"});
    assert_eq!(
        mcp_tests::http::legacy_post(&c.url, Some("not-a-session"), &list)
            .await
            .status,
        http::StatusCode::NOT_FOUND
    );
    let headers = [
        ("mcp-protocol-version", mcp_tests::http::LEGACY),
        ("mcp-session-id", session.as_str()),
    ];
    let deleted = mcp_tests::http::send(http::Method::DELETE, &b.url, &headers, "").await;
    assert_eq!(deleted.status, http::StatusCode::NO_CONTENT);
    for url in urls {
        assert_eq!(
            mcp_tests::http::legacy_post(url, Some(&session), &list)
                .await
                .status,
            http::StatusCode::NOT_FOUND,
            "ended on B, gone on {url}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_memory_fleet_shares_rate_limits_and_list_changes() {
    let fleet = MemoryFleet::new();
    let servers = [instance(&fleet), instance(&fleet)];
    let mut clients = Vec::new();
    for server in &servers {
        let client = Client::memory(server);
        client.connect(EraMode::Legacy).await.unwrap();
        clients.push(client);
    }
    let mut refused = Vec::new();
    for n in 0..3 {
        let result = clients[n % 2].call_tool("scarce", json!({})).await.unwrap();
        refused.push(result.is_error.unwrap_or(false));
    }
    assert_eq!(refused, [false, false, true], "one budget of 2 for both");

    // A tool added on the first instance: a client listening on the second is told.
    let listener = Client::memory(&servers[1]);
    listener.connect(EraMode::Modern).await.unwrap();
    let mut incoming = listener.take_unrouted().unwrap();
    let listen = {
        let listener = listener.clone();
        tokio::spawn(async move {
            listener
                .request(
                    "subscriptions/listen",
                    Some(json!({"notifications": {"toolsListChanged": true}})),
                )
                .await
        })
    };
    let mut next = async || {
        tokio::time::timeout(Duration::from_secs(60), incoming.recv())
            .await
            .expect("a message within 60 s")
            .expect("open")
    };
    let ack = next().await;
    assert_eq!(
        ack["method"], "notifications/subscriptions/acknowledged",
        "{ack}"
    );
    servers[0]
        .tools()
        .register(mcp_runtime::tool::tool_fn(
            mcp_runtime::protocol::ToolDefinition::new(
                "late",
                "Added late.",
                json!({"type": "object"}),
            ),
            |_, _| async { "late" },
        ))
        .unwrap();
    let changed = next().await;
    assert_eq!(
        changed["method"], "notifications/tools/list_changed",
        "{changed}"
    );
    listen.abort();
}
