//! The server end to end: an in-memory session in both protocol eras (a host that renders
//! apps, and a client that does not), the built binary over stdio, and a snapshot of
//! `tools/list`. The view itself is tested in a browser by `cargo mcp preview`.

use mcp_runtime::client::Client;
use mcp_runtime::protocol::ResourceContents;
use mcp_runtime::protocol::apps::{APP_MIME_TYPE, UI_EXTENSION};
use mcp_runtime::testing::{self, ERAS, EraMode};
use serde_json::{Value, json};
use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

// The tool, its view and the server, from src/lib.rs.
use {{crate_name}}::{VIEW, server};

/// A session of `era`; `apps` declares the MCP Apps extension, as a host that renders views.
async fn session(era: EraMode, apps: bool) -> Client {
    let client = Client::memory(&server().expect("the tool's view is served"));
    if apps {
        client.declare_capabilities(
            json!({"extensions": {UI_EXTENSION: {"mimeTypes": [APP_MIME_TYPE]}}}),
        );
    }
    client.connect(era).await.expect("the handshake succeeds");
    client
}

#[tokio::test]
async fn the_tool_names_its_view() {
    for era in ERAS {
        let tools = session(era, true).await.list_tools().await.unwrap();
        assert_eq!(tools.len(), 1, "{era:?}");
        assert_eq!(tools[0].name, "text_stats");
        assert_eq!(tools[0].app().expect("a view").resource_uri, VIEW);
    }
    let server = server().unwrap();
    let extensions = server.capabilities().extensions.as_ref().unwrap();
    assert!(
        extensions.contains_key(UI_EXTENSION),
        "the extension is declared"
    );
}

#[tokio::test]
async fn the_view_is_served_as_an_mcp_app() {
    for era in ERAS {
        let read = session(era, true).await.read_resource(VIEW).await.unwrap();
        let [ResourceContents::Text(view)] = read.contents.as_slice() else {
            panic!("{era:?}: one text content, got {:?}", read.contents);
        };
        assert_eq!(view.mime_type.as_deref(), Some(APP_MIME_TYPE), "{era:?}");
        // One self-contained document: the script is inlined, nothing is loaded from ui/.
        assert!(view.text.contains("<script type=\"module\""), "{era:?}");
        assert!(!view.text.contains("src=\"./src/app.js\""), "{era:?}");
        assert!(view.text.contains("text_stats"), "the view calls the tool");
        let meta = Value::Object(view.meta.clone().expect("_meta.ui"));
        assert_eq!(meta["ui"]["prefersBorder"], true, "{era:?}");
    }
}

#[tokio::test]
async fn every_client_gets_a_result_it_can_use() {
    for era in ERAS {
        for apps in [true, false] {
            let result = session(era, apps)
                .await
                .call_tool("text_stats", json!({"text": "one two"}))
                .await
                .unwrap();
            // The view reads the structured result; a client without views, the text.
            let structured = result
                .structured_content
                .clone()
                .expect("structured output");
            assert_eq!(structured["words"], 2, "{era:?}");
            let text: Value = serde_json::from_str(result.first_text().unwrap()).unwrap();
            assert_eq!(text, structured, "{era:?}, apps: {apps}");
        }
        let empty = session(era, false)
            .await
            .call_tool("text_stats", json!({"text": " "}))
            .await
            .unwrap();
        assert!(empty.is_error(), "{era:?}");
    }
}

/// Runs the built binary, sends `lines` on stdin, closes it and returns stdout. Fails if
/// the server does not exit by itself once its input is closed.
fn run_over_stdio(lines: &[Value]) -> String {
    let mut child = Command::new(env!("CARGO_BIN_EXE_{{name}}"))
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
fn the_binary_serves_the_view_over_stdio() {
    let out = run_over_stdio(&[
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {"extensions": {UI_EXTENSION: {"mimeTypes": [APP_MIME_TYPE]}}},
            "clientInfo": {"name": "smoke-test", "version": "0"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "resources/read", "params": {"uri": VIEW}}),
    ]);
    let messages: Vec<Value> = out
        .lines()
        .map(|line| serde_json::from_str(line).expect("every stdout line is JSON"))
        .collect();
    assert_eq!(messages.len(), 2, "one answer per request: {out}");
    let view = &messages[1]["result"]["contents"][0];
    assert_eq!(view["mimeType"], APP_MIME_TYPE);
    assert!(
        view["text"]
            .as_str()
            .unwrap()
            .starts_with("<!doctype html>")
    );
}

/// `tools/list` as committed in `tests/snapshots/tools.json`. After changing the tool on
/// purpose, refresh it with `UPDATE_SNAPSHOTS=1 cargo test` and review the diff: clients see
/// exactly this.
#[tokio::test]
async fn tools_list_matches_the_snapshot() {
    let server = server().expect("the tool's view is served");
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots/tools.json");
    testing::assert_tools_snapshot(&server, path).await;
}
