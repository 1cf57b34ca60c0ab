//! One server span per request, refused ones included, with the attributes the MCP semantic
//! conventions ask for (issue #41), over HTTP and stdio, read from OTLP/HTTP JSON exports.

use super::*;

/// Every span of the JSON exports received: (name, kind, status code, attributes as text).
fn json_spans(
    received: &Received,
) -> Vec<(String, i64, i64, std::collections::BTreeMap<String, String>)> {
    let mut spans = Vec::new();
    for (path, _, body) in received.lock().unwrap().iter() {
        if path != "/v1/traces" {
            continue;
        }
        let export: serde_json::Value = serde_json::from_slice(body).unwrap();
        for resource in export["resourceSpans"].as_array().into_iter().flatten() {
            for scope in resource["scopeSpans"].as_array().into_iter().flatten() {
                for span in scope["spans"].as_array().into_iter().flatten() {
                    let attributes = span["attributes"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .map(|a| {
                            let value = &a["value"];
                            let text = value["stringValue"]
                                .as_str()
                                .map(str::to_owned)
                                .or_else(|| value["intValue"].as_str().map(str::to_owned))
                                .unwrap_or_else(|| value.to_string());
                            (a["key"].as_str().unwrap().to_owned(), text)
                        })
                        .collect();
                    spans.push((
                        span["name"].as_str().unwrap_or_default().to_owned(),
                        span["kind"].as_i64().unwrap_or_default(),
                        span["status"]["code"].as_i64().unwrap_or_default(),
                        attributes,
                    ));
                }
            }
        }
    }
    spans
}

/// Issue #41: a request refused before the pipeline (an unknown tool or prompt, an unknown
/// method) had no span at all, `tools/list`'s lacked `mcp.protocol.version`, and invalid
/// arguments were `error.type = invalid_arguments` where the conventions say `tool_error`
/// (the call is answered `isError: true`). Each request now gets exactly one SERVER span,
/// with ERROR status exactly when `error.type` is set.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_request_gets_one_server_span_by_the_conventions() {
    let (port, received) = receiver().await;
    let (mut child, url) = echo_server(port, "http/json");
    let requests = [
        (11, "tools/list", serde_json::json!({})),
        (
            12,
            "tools/call",
            serde_json::json!({"name": "no-such-tool", "arguments": {}}),
        ),
        (
            13,
            "tools/call",
            serde_json::json!({"name": "add", "arguments": {"a": SECRET, "b": 1}}),
        ),
        (14, "nope/nothing", serde_json::json!({})),
        (
            15,
            "prompts/get",
            serde_json::json!({"name": "no-such-prompt"}),
        ),
        (
            16,
            "tools/call",
            serde_json::json!({"name": "echo", "arguments": {"text": "hi"}}),
        ),
    ];
    for (id, method, params) in &requests {
        let (message, headers) = modern(*id, method, params.clone());
        let mut h: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
        h.push(("content-type", "application/json"));
        h.push(("accept", ACCEPT_BOTH));
        if *method == "prompts/get" {
            h.push(("mcp-name", "no-such-prompt"));
        }
        send(Method::POST, &url, &h, message.to_string()).await;
    }
    wait_for(
        &received,
        &[b"\"16\"" as &[u8], b"\"15\"", b"\"14\"", b"\"12\""],
    )
    .await;
    stop(&mut child);
    let spans = json_spans(&received);
    let by_id = |id: i64| {
        let found: Vec<_> = spans
            .iter()
            .filter(|s| s.3.get("jsonrpc.request.id") == Some(&id.to_string()))
            .collect();
        assert_eq!(found.len(), 1, "request {id}: {found:?}");
        found[0].clone()
    };
    // (id, span name, error.type)
    for (id, name, error) in [
        (11, "tools/list", None),
        (12, "tools/call", Some("-32602")),
        (13, "tools/call add", Some("tool_error")),
        (14, "_OTHER", Some("-32601")),
        (15, "prompts/get", Some("-32602")),
        (16, "tools/call echo", None),
    ] {
        let (span_name, kind, status, attributes) = by_id(id);
        assert_eq!(span_name, name, "{id}: {attributes:?}");
        assert_eq!(kind, 2, "{id}: SERVER");
        assert_eq!(
            attributes.get("mcp.protocol.version").map(String::as_str),
            Some("2026-07-28"),
            "{id}: {attributes:?}"
        );
        assert!(
            attributes.contains_key("mcp.method.name"),
            "{id}: {attributes:?}"
        );
        assert_eq!(
            attributes.get("error.type").map(String::as_str),
            error,
            "{id}: {attributes:?}"
        );
        // ERROR (2) exactly when error.type is set.
        assert_eq!(status == 2, error.is_some(), "{id}: status {status}");
    }
    assert!(!exported(&received, SECRET), "an argument was exported");
}

/// Issue #41 over stdio, a 2025 session: once `initialize` negotiated the version, every
/// span carries it; the unknown tool, the invalid arguments and an unknown method get their
/// one span each.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_stdio_every_request_gets_one_span_with_the_sessions_version() {
    use std::io::Write as _;
    let (port, received) = receiver().await;
    let mut child = Command::new(mcp_tests::example_bin("echo-server"))
        .env(
            "OTEL_EXPORTER_OTLP_ENDPOINT",
            format!("http://127.0.0.1:{port}"),
        )
        .env("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json")
        .env("OTEL_SERVICE_NAME", "echo-under-test")
        .env("OTEL_BSP_SCHEDULE_DELAY", "100")
        .env_remove("OTEL_SDK_DISABLED")
        .env_remove("OTEL_TRACES_EXPORTER")
        .env_remove("RUST_LOG")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let lines = [
        serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"}}}),
        serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        serde_json::json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
        serde_json::json!({"jsonrpc": "2.0", "id": "req-unknown-4", "method": "tools/call",
            "params": {"name": "no-such-tool", "arguments": {}}}),
        serde_json::json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call",
            "params": {"name": "add", "arguments": {"a": SECRET, "b": 1}}}),
        serde_json::json!({"jsonrpc": "2.0", "id": 6, "method": "nope/nothing"}),
    ];
    for line in &lines {
        writeln!(stdin, "{line}").unwrap();
    }
    stdin.flush().unwrap();
    // The answers come back before stdin closes (the server exports what is left on its
    // way out).
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    for _ in 0..5 {
        let mut answer = String::new();
        stdout.read_line(&mut answer).unwrap();
    }
    drop(stdin);
    let _ = child.wait();
    wait_for(&received, &[b"req-unknown-4" as &[u8], b"\"6\""]).await;
    let spans = json_spans(&received);
    for (id, name, error) in [
        ("2", "tools/list", None),
        ("req-unknown-4", "tools/call", Some("-32602")),
        ("5", "tools/call add", Some("tool_error")),
        ("6", "_OTHER", Some("-32601")),
    ] {
        let found: Vec<_> = spans
            .iter()
            .filter(|s| s.3.get("jsonrpc.request.id").map(String::as_str) == Some(id))
            .collect();
        assert_eq!(found.len(), 1, "{id}: {found:?}");
        let (span_name, kind, status, attributes) = found[0];
        assert_eq!(span_name, name, "{id}");
        assert_eq!(*kind, 2, "{id}");
        assert_eq!(
            attributes.get("mcp.protocol.version").map(String::as_str),
            Some("2025-11-25"),
            "{id}: {attributes:?}"
        );
        assert_eq!(
            attributes.get("error.type").map(String::as_str),
            error,
            "{id}"
        );
        assert_eq!(*status == 2, error.is_some(), "{id}");
    }
}
