//! The server end to end: an in-memory session in both protocol eras, the built binary
//! over stdio, a snapshot of `tools/list`, and the HTTP endpoint (both eras, Origin checks,
//! stateless legacy mode).

use mcp_runtime::client::Client;
use mcp_runtime::protocol::ErrorCode;
use mcp_runtime::testing::{self, ERAS, EraMode};
use serde_json::{Value, json};
use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

// The tools and the server, from src/lib.rs.
use {{crate_name}}::{http_options, server};

async fn session(era: EraMode) -> Client {
    testing::connect(&server().expect("every tool is valid"), era).await
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

#[tokio::test]
async fn reads_the_resource() {
    for era in ERAS {
        let client = session(era).await;
        let listed = client.list_resources().await.unwrap();
        assert_eq!(listed[0].uri, "info://about", "{era:?}");
        let read = client.read_resource("info://about").await.unwrap();
        let text = serde_json::to_value(&read.contents).unwrap()[0]["text"].clone();
        assert!(
            text.as_str()
                .unwrap_or_default()
                .contains(env!("CARGO_PKG_NAME")),
            "{era:?}: {text}"
        );
    }
}

#[tokio::test]
async fn serves_the_skills() {
    for era in ERAS {
        let client = session(era).await;
        let skills = client.list_skills().await.unwrap();
        let uris: Vec<&str> = skills.iter().map(|s| s.uri.as_str()).collect();
        assert_eq!(uris, ["skill://measure-text/SKILL.md"], "{era:?}");
        // Each file of a skill is a resource, read by the URI its manifest names.
        let read = client.read_resource(&skills[0].uri).await.unwrap();
        let text = serde_json::to_value(&read.contents).unwrap()[0]["text"].clone();
        assert!(
            text.as_str()
                .unwrap_or_default()
                .starts_with("---\nname: measure-text\n"),
            "{era:?}: {text}"
        );
    }
}

#[tokio::test]
async fn serves_the_prompt_templates() {
    for era in ERAS {
        let client = session(era).await;
        let prompts = client.list_prompts().await.unwrap();
        let names: Vec<&str> = prompts.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["summarize"], "{era:?}");
        let args = std::collections::BTreeMap::from([(
            "text".to_owned(),
            "MCP is a protocol.".to_owned(),
        )]);
        let got = client.get_prompt("summarize", &args).await.unwrap();
        let text = got.messages[0]
            .content
            .as_text()
            .unwrap_or_default()
            .to_owned();
        assert!(text.ends_with("MCP is a protocol."), "{era:?}: {text}");
        // A missing argument is the client's mistake, named.
        let err = client
            .get_prompt("summarize", &Default::default())
            .await
            .unwrap_err();
        assert_eq!(
            err.as_protocol().expect("a JSON-RPC error").code,
            ErrorCode::INVALID_PARAMS
        );
    }
}

#[tokio::test]
async fn a_prompt_file_dropped_into_the_folder_is_served() {
    let dir = std::env::temp_dir().join(format!(
        "{}-prompts-{}",
        env!("CARGO_PKG_NAME"),
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    for entry in std::fs::read_dir({{crate_name}}::prompts_dir()).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), dir.join(entry.file_name())).unwrap();
    }
    std::fs::write(
        dir.join("translate.yaml"),
        "description: Asks for a translation.\ninputSchema:\n  type: object\n  properties:\n    text: {type: string}\n    language: {type: string, default: French}\n  required: [text]\nmessages:\n  - role: user\n    content:\n      - type: text\n        text: \"Translate into {{ language }}: {{ text }}\"\n",
    )
    .unwrap();
    let server = {{crate_name}}::server_with_prompts(&dir).expect("every prompt file is valid");
    std::fs::remove_dir_all(&dir).unwrap();
    let client = testing::connect(&server, EraMode::Legacy).await;
    let names: Vec<String> = client
        .list_prompts()
        .await
        .unwrap()
        .into_iter()
        .map(|p| p.name)
        .collect();
    assert_eq!(names, ["summarize", "translate"]);
    let args = std::collections::BTreeMap::from([("text".to_owned(), "hello".to_owned())]);
    let got = client.get_prompt("translate", &args).await.unwrap();
    assert_eq!(
        got.messages[0].content.as_text(),
        Some("Translate into French: hello")
    );
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
    let server = server().expect("every tool is valid");
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots/tools.json");
    testing::assert_tools_snapshot(&server, path).await;
}

/// Serves the server over HTTP as `main` does for `--config mcp.toml` (HTTP, and
/// `https://app.example.com` allowed as an origin), on a free loopback port (`--bind`
/// overrides the file's): the flags parsed by the same launcher, over the same
/// `http_options`. Returns the endpoint URL; the server stops with the test's runtime.
async fn serve_http() -> String {
    let config = Path::new(env!("CARGO_MANIFEST_DIR")).join("mcp.toml");
    let args = mcp_runtime::launcher!()
        .http_options(http_options())
        .try_parse_from([
            "{{name}}",
            "--config",
            config.to_str().expect("a UTF-8 path"),
            "--bind",
            "127.0.0.1:0",
        ])
        .expect("valid flags and mcp.toml");
    let http = args
        .bind_http(server().unwrap())
        .await
        .expect("a free loopback port");
    let url = http.url();
    tokio::spawn(http.run());
    url
}

#[tokio::test]
async fn serves_both_eras_over_http() {
    let url = serve_http().await;
    for era in ERAS {
        let client = Client::http(&url).unwrap();
        client.connect(era).await.unwrap();
        assert_eq!(client.list_tools().await.unwrap().len(), 2, "{era:?}");
        let sum = client
            .call_tool("add", json!({"a": 2, "b": 3}))
            .await
            .unwrap();
        assert_eq!(sum.first_text(), Some("5"), "{era:?}");
    }
}

/// A raw HTTP/1.1 exchange: what a browser or any HTTP client would send.
async fn raw(url: &str, method: &str, headers: &[(&str, &str)], body: &str) -> (u16, String) {
    let authority = url.trim_start_matches("http://").split('/').next().unwrap();
    let mut stream = TcpStream::connect(authority).await.unwrap();
    let mut request = format!(
        "{method} /mcp HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(body);
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).await.unwrap();
    let status = response
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("an HTTP status line");
    (status, response)
}

const JSON_POST: [(&str, &str); 2] = [
    ("Content-Type", "application/json"),
    ("Accept", "application/json, text/event-stream"),
];

fn initialize() -> String {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "http-test", "version": "0"}}})
    .to_string()
}

#[tokio::test]
async fn a_foreign_origin_is_refused() {
    let url = serve_http().await;
    let post = |origin: &'static str| {
        let url = url.clone();
        async move {
            let mut headers = JSON_POST.to_vec();
            headers.push(("Origin", origin));
            raw(&url, "POST", &headers, &initialize()).await.0
        }
    };
    // DNS rebinding: a page on another site must not reach a local server.
    assert_eq!(post("https://evil.example").await, 403);
    assert_eq!(post("null").await, 403);
    // Loopback pages and the origins given with `--allowed-origin` are welcome.
    assert_eq!(post("http://localhost:3000").await, 200);
    assert_eq!(post("https://app.example.com").await, 200);
}

#[tokio::test]
async fn legacy_clients_are_served_statelessly() {
    let url = serve_http().await;
    let (status, response) = raw(&url, "POST", &JSON_POST, &initialize()).await;
    assert_eq!(status, 200, "{response}");
    assert!(
        !response.to_ascii_lowercase().contains("mcp-session-id"),
        "stateless mode mints no session: {response}"
    );
    // Without sessions there is no GET stream and nothing to DELETE.
    assert_eq!(
        raw(&url, "GET", &[("Accept", "text/event-stream")], "")
            .await
            .0,
        405
    );
    assert_eq!(raw(&url, "DELETE", &[], "").await.0, 405);
}
