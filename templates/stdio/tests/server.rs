//! The server end to end: an in-memory session in both protocol eras, the built binary
//! over stdio, and a snapshot of `tools/list`.

use mcp_runtime::client::{Client, EraMode};
use mcp_runtime::protocol::ErrorCode;
use serde_json::{Value, json};
use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

// The tools and the server, from src/lib.rs.
use {{crate_name}}::server;

/// Both protocol eras: the 2025 `initialize` handshake and stateless 2026-07-28.
const ERAS: [EraMode; 2] = [EraMode::Legacy, EraMode::Modern];

async fn session(era: EraMode) -> Client {
    let client = Client::memory(&server().expect("every tool is valid"));
    client
        .connect(era)
        .await
        .expect("the server accepts the connection");
    client
}

#[tokio::test]
async fn lists_the_tools() {
    for era in ERAS {
        let tools = session(era).await.list_tools().await.unwrap();
        let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["add", "text_stats"], "{era:?}");
    }
}

#[tokio::test]
async fn calls_the_tools() {
    for era in ERAS {
        let client = session(era).await;
        let sum = client
            .call_tool("add", json!({"a": 2, "b": 3}))
            .await
            .unwrap();
        assert_eq!(sum.first_text(), Some("5"), "{era:?}");
        let stats = client
            .call_tool("text_stats", json!({"text": "one two"}))
            .await
            .unwrap();
        let structured = stats.structured_content.expect("structured output");
        assert_eq!(structured["words"], 2, "{era:?}");
    }
}

#[tokio::test]
async fn an_unknown_tool_is_a_protocol_error() {
    for era in ERAS {
        let err = session(era)
            .await
            .call_tool("no_such_tool", json!({}))
            .await
            .unwrap_err();
        let err = err.as_protocol().expect("a JSON-RPC error");
        assert_eq!(err.code, ErrorCode::INVALID_PARAMS, "{era:?}");
    }
}

#[tokio::test]
async fn bad_arguments_come_back_as_a_tool_error() {
    for era in ERAS {
        // `a` has the wrong type and `b` is missing: one result names both.
        let result = session(era)
            .await
            .call_tool("add", json!({"a": "two"}))
            .await
            .unwrap();
        assert!(result.is_error(), "{era:?}");
        let text = result.first_text().unwrap_or_default();
        assert!(
            text.contains("/a") && text.contains("\"b\""),
            "{era:?}: {text}"
        );
    }
}

/// Runs the built binary with `args`, sends `lines` on stdin, closes it and returns stdout.
/// Fails if the server does not exit by itself once its input is closed.
fn run_over_stdio(args: &[&str], envs: &[(&str, &Path)], lines: &[Value]) -> String {
    let mut child = Command::new(env!("CARGO_BIN_EXE_{{name}}"))
        .args(args)
        .envs(envs.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("the server starts");
    let mut stdin = child.stdin.take().unwrap();
    for line in lines {
        writeln!(stdin, "{line}").unwrap();
    }
    drop(stdin);
    let mut stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut out = String::new();
        stdout.read_to_string(&mut out).map(|_| out)
    });
    // A bound against a hang, not a timing assertion.
    let deadline = Instant::now() + Duration::from_secs(60);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("the server did not exit within 60 s of its stdin closing");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(status.success(), "the server exited with {status}");
    reader.join().unwrap().expect("stdout is UTF-8")
}

#[test]
fn the_binary_speaks_json_rpc_on_stdout_and_exits_when_stdin_closes() {
    let out = run_over_stdio(
        &[],
        &[],
        &[
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": "smoke-test", "version": "0"}}}),
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
            json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                   "params": {"name": "add", "arguments": {"a": 2, "b": 3}}}),
        ],
    );
    let messages: Vec<Value> = out
        .lines()
        .map(|line| serde_json::from_str(line).expect("every stdout line is JSON"))
        .collect();
    assert!(messages.iter().all(|m| m["jsonrpc"] == "2.0"), "{out}");
    assert_eq!(messages.len(), 3, "one answer per request: {out}");
    let sum = messages
        .iter()
        .find(|m| m["id"] == 3)
        .expect("an answer to the call");
    assert_eq!(sum["result"]["content"][0]["text"], "5");
}

/// `tools/list` as committed in `tests/snapshots/tools.json`. After changing a tool on
/// purpose, refresh it with `UPDATE_SNAPSHOTS=1 cargo test` (or `cargo mcp schema --out
/// tests/snapshots/tools.json`) and review the diff: clients see exactly this.
#[tokio::test]
async fn tools_list_matches_the_snapshot() {
    let tools = session(EraMode::Legacy).await.list_tools().await.unwrap();
    let actual = json!({ "tools": tools });
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots/tools.json");
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        let text = serde_json::to_string_pretty(&actual).unwrap() + "\n";
        std::fs::write(&path, text).unwrap();
        return;
    }
    let expected: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap())
        .expect("the snapshot is JSON");
    assert!(
        actual == expected,
        "tools/list differs from {}; if the change is intended, run `UPDATE_SNAPSHOTS=1 cargo test`\nnow: {}",
        path.display(),
        serde_json::to_string_pretty(&actual).unwrap()
    );
}
