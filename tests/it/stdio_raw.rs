//! Raw-protocol tests against the real `echo-server` binary over stdio: era classification,
//! error codes and robustness (spec `dual-era.md` §3.1, §3.2, §3.4).

use mcp_runtime::client::{Client, ClientError, EraMode};
use mcp_runtime::protocol::ErrorCode;
use serde_json::{Value, json};
use std::time::Duration;
use tokio::process::Command;

fn spawn() -> Client {
    let mut cmd = Command::new(mcp_tests::example_bin("echo-server"));
    cmd.stderr(std::process::Stdio::null());
    Client::spawn(cmd).expect("echo-server starts")
}

fn envelope(version: &str) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": version,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "raw-test", "version": "0"}
    })
}

fn code(r: Result<Value, ClientError>) -> (ErrorCode, Value) {
    match r {
        Err(ClientError::Protocol(e)) => (e.code, e.data.unwrap_or(Value::Null)),
        other => panic!("expected a JSON-RPC error, got {other:?}"),
    }
}

fn initialize_params(version: &str) -> Value {
    json!({"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "raw-test", "version": "0"}})
}

async fn next_unrouted(rx: &mut tokio::sync::mpsc::UnboundedReceiver<Value>) -> Value {
    tokio::time::timeout(Duration::from_secs(30), rx.recv())
        .await
        .expect("the server answers in time")
        .expect("the server is still there")
}

#[tokio::test]
async fn discover_then_initialize_on_one_connection() {
    let c = spawn();
    let d = c
        .request_raw(
            "server/discover",
            Some(json!({"_meta": envelope("2026-07-28")})),
        )
        .await
        .unwrap();
    assert_eq!(d["supportedVersions"], json!(["2026-07-28"]));
    assert_eq!(d["resultType"], "complete");
    assert!(d["ttlMs"].is_u64() && d["cacheScope"].is_string(), "{d}");
    assert_eq!(
        d["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "echo-server"
    );
    assert!(
        d.get("serverInfo").is_none(),
        "no serverInfo at the top level: {d}"
    );
    // Discover did not pin the connection: the handshake still works afterwards.
    let init = c
        .request_raw("initialize", Some(initialize_params("2025-11-25")))
        .await
        .unwrap();
    assert_eq!(init["protocolVersion"], "2025-11-25");
    assert_eq!(init["serverInfo"]["name"], "echo-server");
    assert!(init.get("resultType").is_none());
    // And modern requests are still served as modern after it.
    let list = c
        .request_raw("tools/list", Some(json!({"_meta": envelope("2026-07-28")})))
        .await
        .unwrap();
    assert_eq!(list["resultType"], "complete");
    assert_eq!(c.close().await.unwrap().map(|s| s.success()), Some(true));
}

#[tokio::test]
async fn initialize_negotiates_only_legacy_versions() {
    for (asked, answered) in [
        ("2025-06-18", "2025-06-18"),
        ("2025-03-26", "2025-03-26"),
        ("2024-11-05", "2024-11-05"),
        ("2026-07-28", "2025-11-25"),
        ("2099-01-01", "2025-11-25"),
    ] {
        let c = spawn();
        let r = c
            .request_raw("initialize", Some(initialize_params(asked)))
            .await
            .unwrap();
        assert_eq!(
            r["protocolVersion"], answered,
            "initialize asked for {asked}"
        );
        // A second initialize on the same connection is refused, and the server stays up.
        let (code, _) = code(
            c.request_raw("initialize", Some(initialize_params(asked)))
                .await,
        );
        assert_eq!(code, ErrorCode::INVALID_REQUEST);
        assert!(c.request_raw("ping", None).await.is_ok());
    }
}

#[tokio::test]
async fn modern_envelope_errors() {
    let c = spawn();
    // Missing clientCapabilities.
    let (code1, _) = code(
        c.request_raw(
            "tools/list",
            Some(json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}})),
        )
        .await,
    );
    assert_eq!(code1, ErrorCode::INVALID_PARAMS);
    // An envelope without its version.
    let (code2, _) = code(
        c.request_raw(
            "tools/list",
            Some(json!({"_meta": {"io.modelcontextprotocol/clientCapabilities": {}}})),
        )
        .await,
    );
    assert_eq!(code2, ErrorCode::INVALID_PARAMS);
    // A malformed version.
    let (code3, _) = code(
        c.request_raw(
            "tools/list",
            Some(json!({"_meta": {"io.modelcontextprotocol/protocolVersion": 2026, "io.modelcontextprotocol/clientCapabilities": {}}})),
        )
        .await,
    );
    assert_eq!(code3, ErrorCode::INVALID_PARAMS);
    // Discover needs the envelope.
    let (code4, _) = code(c.request_raw("server/discover", None).await);
    assert_eq!(code4, ErrorCode::INVALID_PARAMS);
    // Unsupported versions, checked on every request: a future one and a legacy one.
    for v in ["2099-01-01", "2025-11-25"] {
        let (code, data) = code(
            c.request_raw("tools/list", Some(json!({"_meta": envelope(v)})))
                .await,
        );
        assert_eq!(code, ErrorCode::UNSUPPORTED_PROTOCOL_VERSION);
        assert_eq!(data, json!({"supported": ["2026-07-28"], "requested": v}));
    }
    // The version is checked again after a good request on the same connection.
    c.request_raw("tools/list", Some(json!({"_meta": envelope("2026-07-28")})))
        .await
        .unwrap();
    let (code5, _) = code(
        c.request_raw("tools/list", Some(json!({"_meta": envelope("2099-01-01")})))
            .await,
    );
    assert_eq!(code5, ErrorCode::UNSUPPORTED_PROTOCOL_VERSION);
}

#[tokio::test]
async fn methods_that_do_not_exist_in_the_modern_era() {
    let c = spawn();
    for method in [
        "ping",
        "logging/setLevel",
        "resources/subscribe",
        "tasks/list",
        "no/such/method",
    ] {
        let (code, _) = code(
            c.request_raw(method, Some(json!({"_meta": envelope("2026-07-28")})))
                .await,
        );
        assert_eq!(code, ErrorCode::METHOD_NOT_FOUND, "modern {method}");
    }
    // Legacy ping exists, before and after initialize.
    assert_eq!(c.request_raw("ping", None).await.unwrap(), json!({}));
    c.initialize().await.unwrap();
    assert_eq!(c.request_raw("ping", None).await.unwrap(), json!({}));
}

#[tokio::test]
async fn cache_fields_only_on_modern_list_results() {
    let c = spawn();
    let modern = c
        .request_raw("tools/list", Some(json!({"_meta": envelope("2026-07-28")})))
        .await
        .unwrap();
    assert_eq!(modern["resultType"], "complete");
    assert_eq!(modern["ttlMs"], 0);
    assert_eq!(modern["cacheScope"], "private");
    assert_eq!(
        modern["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "echo-server"
    );
    c.initialize().await.unwrap();
    let legacy = c.request_raw("tools/list", None).await.unwrap();
    for key in ["resultType", "ttlMs", "cacheScope", "_meta"] {
        assert!(legacy.get(key).is_none(), "legacy list has {key}: {legacy}");
    }
    assert_eq!(legacy["tools"], modern["tools"], "same tools in both eras");
    let names: Vec<&str> = legacy["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["add", "ask_model", "ask_name", "echo", "list_roots"],
        "deterministic (sorted) order"
    );
}

#[tokio::test]
async fn calls_and_tool_errors() {
    let c = spawn();
    c.connect(EraMode::Legacy).await.unwrap();
    let r = c.call_tool("echo", json!({"text": "hello"})).await.unwrap();
    assert_eq!(r.content.len(), 1);
    assert_eq!(r.first_text(), Some("hello"));
    assert!(!r.is_error());
    let r = c.call_tool("add", json!({"a": 2, "b": 3})).await.unwrap();
    assert_eq!(r.first_text(), Some("5"));

    // Unknown tool: a protocol error, not a tool result.
    let (code1, _) = code(
        c.request("tools/call", Some(json!({"name": "nope", "arguments": {}})))
            .await,
    );
    assert_eq!(code1, ErrorCode::INVALID_PARAMS);
    // Invalid cursor.
    let (code2, _) = code(
        c.request("tools/list", Some(json!({"cursor": "!!not-a-cursor!!"})))
            .await,
    );
    assert_eq!(code2, ErrorCode::INVALID_PARAMS);
    // Arguments that are not an object.
    let (code3, _) = code(
        c.request(
            "tools/call",
            Some(json!({"name": "add", "arguments": [1, 2]})),
        )
        .await,
    );
    assert_eq!(code3, ErrorCode::INVALID_PARAMS);

    // Bad arguments: one isError result naming every violation with its path.
    let r = c
        .call_tool("add", json!({"a": "two", "c": true}))
        .await
        .unwrap();
    assert!(r.is_error());
    let text = r.first_text().unwrap();
    assert!(
        text.contains("at /a:") && text.contains("\"two\""),
        "{text}"
    );
    assert!(text.contains("\"b\" is a required property"), "{text}");
    assert!(text.contains("'c'"), "{text}");
    assert!(text.contains("3 problems"), "{text}");
    // Missing arguments count as {}: echo then reports its missing `text`.
    let r: Value = c
        .request("tools/call", Some(json!({"name": "echo"})))
        .await
        .unwrap();
    assert_eq!(r["isError"], true);
    assert!(
        r["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("\"text\" is a required property")
    );
}

#[tokio::test]
async fn garbage_never_kills_the_server() {
    let c = spawn();
    let mut unrouted = c.take_unrouted().unwrap();
    let bad: [&[u8]; 6] = [
        b"{not json",
        b"[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]",
        b"{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"ping\"}",
        b"\"just a string\"",
        b"{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/call\",\"params\":{\"name\":7}}",
        b"\xff\xfe\x00binary",
    ];
    let expected = [
        ErrorCode::PARSE_ERROR,
        ErrorCode::INVALID_REQUEST,
        ErrorCode::INVALID_REQUEST,
        ErrorCode::INVALID_REQUEST,
        ErrorCode::INVALID_PARAMS,
        ErrorCode::PARSE_ERROR,
    ];
    for (line, want) in bad.iter().zip(expected) {
        c.send_raw(line.to_vec()).await.unwrap();
        let answer = next_unrouted(&mut unrouted).await;
        assert_eq!(
            answer["error"]["code"],
            want.0,
            "for {:?}: {answer}",
            String::from_utf8_lossy(line)
        );
    }
    // Still serving.
    c.initialize().await.unwrap();
    assert_eq!(
        c.call_tool("echo", json!({"text": "alive"}))
            .await
            .unwrap()
            .first_text(),
        Some("alive")
    );
}

#[tokio::test]
async fn a_20_mib_line_is_refused_without_buffering_it() {
    let c = spawn();
    let pid = c.process_id().unwrap();
    let mut unrouted = c.take_unrouted().unwrap();
    let text = "x".repeat(20 * 1024 * 1024);
    let huge = serde_json::to_vec(&json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "echo", "arguments": {"text": text}}
    }))
    .unwrap();
    c.send_raw(huge).await.unwrap();
    let answer = next_unrouted(&mut unrouted).await;
    assert_eq!(
        answer["error"]["code"],
        ErrorCode::INVALID_REQUEST.0,
        "{answer}"
    );
    assert_eq!(answer["id"], Value::Null);
    assert!(
        answer["error"]["message"]
            .as_str()
            .unwrap()
            .contains("exceeds the limit")
    );
    // Still serving, and memory stayed bounded: the server kept at most the 16 MiB cap of
    // the line, never the whole 20 MiB message plus its parsed copy.
    c.initialize().await.unwrap();
    assert_eq!(
        c.call_tool("echo", json!({"text": "after"}))
            .await
            .unwrap()
            .first_text(),
        Some("after")
    );
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let hwm_kib: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap();
    // About 37 MiB alone (the binary, the runtime and the 16 MiB cap's buffer), up to 41 MiB
    // seen beside a full test run (allocator timing); a server that buffered the whole
    // 20 MiB line and parsed it would peak near 37 - 16 + 20 + 20 = 61 MiB.
    assert!(hwm_kib < 48 * 1024, "peak RSS {hwm_kib} KiB");
}

#[tokio::test]
async fn exits_cleanly_when_stdin_closes() {
    let c = spawn();
    c.initialize().await.unwrap();
    let status = tokio::time::timeout(Duration::from_secs(30), c.close())
        .await
        .expect("the server exits promptly")
        .unwrap();
    assert_eq!(status.map(|s| s.success()), Some(true));
}

#[tokio::test]
async fn requests_fail_promptly_once_the_server_is_gone() {
    let c = Client::spawn(Command::new("true")).expect("`true` starts");
    for _ in 0..2 {
        let outcome = tokio::time::timeout(Duration::from_secs(30), c.request_raw("ping", None))
            .await
            .expect("a request to a dead server fails instead of waiting");
        assert!(matches!(outcome, Err(ClientError::Closed)), "{outcome:?}");
    }
}
