//! The public transport contract, proven by two transports written outside `mcp-runtime`
//! (`mcp_tests::transports`), and tool scopes answered as each transport presents them: a
//! 403 challenge over HTTP and the test RPC, nothing to check for a local stdio client.

use mcp_runtime::client::{Client, EraMode};
use mcp_runtime::prelude::*;
use mcp_runtime::tool::{Caller, ToolPolicy};
use mcp_runtime::transport::http::{BearerTokens, HttpOptions};
use mcp_tests::http::{modern, post, serve};
use mcp_tests::transports::{Rpc, serve_unix};
use serde_json::{Value, json};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _, BufReader};
use tokio::net::{UnixListener, UnixStream};

/// `echo` (no scopes), `slow` (answers after a wait, so it is answered later) and
/// `delete_all` (needs `files:write` and `files:admin`).
fn server() -> Server {
    let object = json!({"type": "object", "properties": {"text": {"type": "string"}}});
    Server::builder("contract", "1.0.0")
        .tool(tool_fn(
            ToolDefinition::new("echo", "Echoes its text.", object.clone()),
            |args, _| async move { args["text"].as_str().unwrap_or_default().to_owned() },
        ))
        .tool(tool_fn(
            ToolDefinition::new("slow", "Answers after 50 ms.", object.clone()),
            |_, _| async {
                tokio::time::sleep(Duration::from_millis(50)).await;
                "done"
            },
        ))
        .tool(
            tool_fn(
                ToolDefinition::new("delete_all", "Deletes everything.", object),
                |_, _| async { "deleted" },
            )
            .with_policy(ToolPolicy::new().scope("files:write").scope("files:admin")),
        )
        // Scoped tools are listed and refused with a challenge (step-up), not hidden.
        .step_up_scopes()
        .build()
        .unwrap()
}

fn modern_call(id: i64, name: &str) -> String {
    modern(
        id,
        "tools/call",
        json!({"name": name, "arguments": {"text": "hi"}}),
    )
    .0
    .to_string()
}

#[tokio::test]
async fn a_unix_socket_transport_written_outside_the_crate_serves_both_eras() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mcp.sock");
    let listener = UnixListener::bind(&path).unwrap();
    let serving = tokio::spawn(serve_unix(server(), listener, 4096));

    // A legacy session, then a modern request on the same stream.
    let stream = UnixStream::connect(&path).await.unwrap();
    let (read, mut write) = stream.into_split();
    let mut lines = BufReader::new(read).lines();
    let mut exchange = async |message: Value| -> Value {
        write
            .write_all(format!("{message}\n").as_bytes())
            .await
            .unwrap();
        let line = lines.next_line().await.unwrap().expect("an answer");
        serde_json::from_str(&line).unwrap()
    };
    let init = exchange(mcp_tests::http::initialize(1)).await;
    assert_eq!(init["result"]["protocolVersion"], "2025-11-25");
    assert!(init["result"]["capabilities"]["tools"].is_object());
    let called = exchange(mcp_tests::http::legacy(
        2,
        "tools/call",
        json!({"name": "echo", "arguments": {"text": "over a socket"}}),
    ))
    .await;
    assert_eq!(called["result"]["content"][0]["text"], "over a socket");
    let (message, _) = modern(3, "tools/list", json!({}));
    let listed = exchange(message).await;
    assert_eq!(listed["result"]["resultType"], "complete");
    assert_eq!(listed["result"]["tools"].as_array().unwrap().len(), 3);
    // A local stream client is not held to scopes.
    let deleted = exchange(serde_json::from_str(&modern_call(4, "delete_all")).unwrap()).await;
    assert_eq!(deleted["result"]["content"][0]["text"], "deleted");
    // A message over the transport's limit is answered with -32600, and the stream goes on.
    let huge =
        json!({"jsonrpc": "2.0", "id": 5, "method": "ping", "params": {"pad": "x".repeat(8000)}});
    let refused = exchange(huge).await;
    assert_eq!(refused["error"]["code"], -32600);
    let pong = exchange(mcp_tests::http::legacy(6, "ping", json!({}))).await;
    assert_eq!(pong["id"], 6);

    // Our own client over the same transport.
    let stream = UnixStream::connect(&path).await.unwrap();
    let client = socket_client(stream);
    client.connect(EraMode::Modern).await.unwrap();
    let result = client
        .call_tool("slow", json!({"text": "x"}))
        .await
        .unwrap();
    assert_eq!(result.first_text(), Some("done"));
    serving.abort();
}

/// Our client over a Unix stream: lines both ways.
fn socket_client(stream: UnixStream) -> Client {
    let (read, mut write) = stream.into_split();
    let (to_server, mut outgoing) = tokio::sync::mpsc::channel::<Vec<u8>>(16);
    let (incoming, from_server) = tokio::sync::mpsc::channel::<Vec<u8>>(16);
    tokio::spawn(async move {
        while let Some(mut message) = outgoing.recv().await {
            if message.last() != Some(&b'\n') {
                message.push(b'\n');
            }
            if write.write_all(&message).await.is_err() {
                return;
            }
        }
    });
    tokio::spawn(async move {
        let mut lines = BufReader::new(read).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            if incoming.send(line.into_bytes()).await.is_err() {
                return;
            }
        }
    });
    Client::from_channels(to_server, from_server)
}

#[tokio::test]
async fn a_request_per_exchange_transport_maps_dispositions_to_its_own_statuses() {
    let rpc = Rpc::new(&server());
    let anyone = Caller::connection().with_scopes(Vec::<String>::new());

    let echo = rpc.call(&modern_call(1, "echo"), anyone.clone()).await;
    assert_eq!(echo.status, 200);
    assert_eq!(echo.body["result"]["content"][0]["text"], "hi");

    // Answered later, through the exchange.
    let slow = rpc.call(&modern_call(2, "slow"), anyone.clone()).await;
    assert_eq!(slow.status, 200);
    assert_eq!(slow.body["result"]["content"][0]["text"], "done");

    // `ping` does not exist in 2026-07-28: not found.
    let (ping, _) = modern(3, "ping", json!({}));
    let ping = rpc.call(&ping.to_string(), anyone.clone()).await;
    assert_eq!(
        (ping.status, ping.body["error"]["code"].as_i64()),
        (404, Some(-32601))
    );

    // An unsupported version: invalid.
    let mut bad = modern(4, "tools/list", json!({})).0;
    bad["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = json!("2099-01-01");
    let bad = rpc.call(&bad.to_string(), anyone.clone()).await;
    assert_eq!(
        (bad.status, bad.body["error"]["code"].as_i64()),
        (400, Some(-32022))
    );

    // Scopes: every required one, or forbidden with all of them named.
    let partial = Caller::connection()
        .with_identity("bob")
        .with_scopes(["files:write"]);
    let refused = rpc.call(&modern_call(5, "delete_all"), partial).await;
    assert_eq!(refused.status, 403);
    assert_eq!(
        refused.challenge,
        Some(vec!["files:write".to_owned(), "files:admin".to_owned()])
    );
    assert_eq!(
        refused.body["error"]["data"]["requiredScopes"],
        json!(["files:write", "files:admin"])
    );
    let admin = Caller::connection().with_identity("root").with_scopes([
        "files:admin",
        "files:write",
        "other",
    ]);
    let allowed = rpc.call(&modern_call(6, "delete_all"), admin).await;
    assert_eq!(allowed.status, 200);
    assert_eq!(allowed.body["result"]["content"][0]["text"], "deleted");
}

#[tokio::test]
async fn http_answers_a_caller_without_a_tools_scopes_with_a_403_challenge() {
    let auth = BearerTokens::new([
        ("reader", "token-r"),
        ("admin", "token-a"),
        ("nobody", "token-n"),
    ])
    .grant("reader", ["files:write"])
    .grant("admin", ["files:write", "files:admin"]);
    let http = serve(server(), HttpOptions::default().auth(auth)).await;
    let call = async |token: &str, name: &str| {
        let (message, headers) = modern(
            1,
            "tools/call",
            json!({"name": name, "arguments": {"text": "hi"}}),
        );
        let bearer = format!("Bearer {token}");
        let mut headers: Vec<(&str, &str)> =
            headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
        headers.push(("authorization", &bearer));
        post(&http.url, &headers, &message).await
    };
    for token in ["token-r", "token-n"] {
        let reply = call(token, "delete_all").await;
        assert_eq!(reply.status, 403, "{token}: {}", reply.text());
        let challenge = reply.header("www-authenticate").expect("a challenge");
        assert!(
            challenge.starts_with("Bearer ")
                && challenge.contains(r#"error="insufficient_scope""#)
                && challenge.contains(r#"scope="files:write files:admin""#),
            "{challenge}"
        );
        assert_eq!(reply.json()["error"]["code"], -32600);
    }
    let reply = call("token-a", "delete_all").await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    assert_eq!(reply.answer()["result"]["content"][0]["text"], "deleted");
    // A tool without scopes is open to every authenticated caller.
    let reply = call("token-n", "echo").await;
    assert_eq!(reply.answer()["result"]["content"][0]["text"], "hi");

    // Without an authenticator nobody holds a scope: the tool is refused, not open.
    let open = serve(server(), HttpOptions::default()).await;
    let (message, headers) = modern(1, "tools/call", json!({"name": "delete_all"}));
    let headers: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
    assert_eq!(post(&open.url, &headers, &message).await.status, 403);
}
