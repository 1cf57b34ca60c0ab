//! One server span per request, refused ones included, with the attributes the MCP semantic
//! conventions ask for (issue #41), over HTTP and stdio, read from OTLP/HTTP JSON exports.

use super::*;

/// One exported span, as the JSON export has it.
#[derive(Debug, Clone)]
struct Exported {
    name: String,
    kind: i64,
    /// The status code: 2 is ERROR.
    status: i64,
    /// The status description.
    message: String,
    /// The attributes, as text.
    attributes: std::collections::BTreeMap<String, String>,
}

/// Every span of the JSON exports received.
fn json_spans(received: &Received) -> Vec<Exported> {
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
                    spans.push(Exported {
                        name: span["name"].as_str().unwrap_or_default().to_owned(),
                        kind: span["kind"].as_i64().unwrap_or_default(),
                        status: span["status"]["code"].as_i64().unwrap_or_default(),
                        message: span["status"]["message"]
                            .as_str()
                            .unwrap_or_default()
                            .to_owned(),
                        attributes,
                    });
                }
            }
        }
    }
    spans
}

/// The one span of request `id`.
fn one_span(spans: &[Exported], id: &str) -> Exported {
    let found: Vec<_> = spans
        .iter()
        .filter(|s| s.attributes.get("jsonrpc.request.id").map(String::as_str) == Some(id))
        .collect();
    assert_eq!(found.len(), 1, "request {id}: {found:#?}");
    found[0].clone()
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
    // A stream the dispatcher answers itself, later: its span ends when the client closes
    // it.
    {
        use http_body_util::BodyExt as _;
        let mut stream = mcp_tests::http::open_modern(
            &url,
            17,
            "subscriptions/listen",
            serde_json::json!({"notifications": {"toolsListChanged": true}}),
        )
        .await;
        assert_eq!(stream.status(), 200);
        let first = stream.body_mut().frame().await.unwrap().unwrap();
        assert!(
            String::from_utf8_lossy(first.data_ref().unwrap()).contains("acknowledged"),
            "{first:?}"
        );
    }
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
        &[
            b"\"17\"" as &[u8],
            b"\"16\"",
            b"\"15\"",
            b"\"14\"",
            b"\"12\"",
        ],
    )
    .await;
    stop(&mut child);
    let spans = json_spans(&received);
    // (id, span name, error.type)
    for (id, name, error) in [
        (11, "tools/list", None),
        (12, "tools/call", Some("-32602")),
        (13, "tools/call add", Some("tool_error")),
        (14, "_OTHER", Some("-32601")),
        (15, "prompts/get", Some("-32602")),
        (16, "tools/call echo", None),
        (17, "subscriptions/listen", None),
    ] {
        let Exported {
            name: span_name,
            kind,
            status,
            attributes,
            ..
        } = one_span(&spans, &id.to_string());
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
        // Not a request this server can read, but its id is known.
        serde_json::json!({"jsonrpc": "1.0", "id": "bad-7", "method": "ping"}),
    ];
    for line in &lines {
        writeln!(stdin, "{line}").unwrap();
    }
    stdin.flush().unwrap();
    // The answers come back before stdin closes (the server exports what is left on its
    // way out).
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    for _ in 0..6 {
        let mut answer = String::new();
        stdout.read_line(&mut answer).unwrap();
    }
    drop(stdin);
    let _ = child.wait();
    wait_for(&received, &[b"req-unknown-4" as &[u8], b"\"6\"", b"bad-7"]).await;
    let spans = json_spans(&received);
    for (id, name, error) in [
        ("2", "tools/list", None),
        ("req-unknown-4", "tools/call", Some("-32602")),
        ("5", "tools/call add", Some("tool_error")),
        ("6", "_OTHER", Some("-32601")),
        ("bad-7", "ping", Some("-32600")),
    ] {
        let Exported {
            name: span_name,
            kind,
            status,
            attributes,
            ..
        } = one_span(&spans, id);
        assert_eq!(span_name, name, "{id}");
        assert_eq!(kind, 2, "{id}");
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
        assert_eq!(status == 2, error.is_some(), "{id}");
    }
}

/// Issue #41 on HTTP: a POST the transport refuses before any dispatcher sees it (a wrong
/// token, a foreign `Origin`, a body that is not a request it can read) gets one span too,
/// named by its `Mcp-Method` header (or `_OTHER`: a refused body is not read), with the
/// HTTP status and the refusal's reason; a request that gets through still gets exactly one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_post_the_transport_refuses_gets_its_span() {
    let (port, received) = receiver().await;
    let token = "telemetry-test-token-41";
    let (mut child, url) = echo_server_with(|c| {
        c.env(
            "OTEL_EXPORTER_OTLP_ENDPOINT",
            format!("http://127.0.0.1:{port}"),
        )
        .env("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json")
        .env("OTEL_BSP_SCHEDULE_DELAY", "100")
        .env("OTEL_METRICS_EXPORTER", "none")
        .env_remove("OTEL_TRACES_EXPORTER")
        .env("MCP_BEARER_TOKEN", token);
    });
    let good = format!("Bearer {token}");
    let post = async |id: i64, method: &str, params: serde_json::Value, extra: &[(&str, &str)]| {
        let (message, headers) = modern(id, method, params);
        let mut h: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
        h.push(("content-type", "application/json"));
        h.push(("accept", ACCEPT_BOTH));
        h.extend_from_slice(extra);
        send(Method::POST, &url, &h, message.to_string())
            .await
            .status
    };
    let echo = serde_json::json!({"name": "echo", "arguments": {"text": SECRET}});
    // A wrong token: 401, before the body is read.
    let status = post(
        31,
        "tools/call",
        echo.clone(),
        &[("authorization", "Bearer wrong")],
    )
    .await;
    assert_eq!(status, 401);
    // A foreign Origin: 403.
    let status = post(
        32,
        "tools/list",
        serde_json::json!({}),
        &[("authorization", &good), ("origin", "http://evil.example")],
    )
    .await;
    assert_eq!(status, 403);
    // A body with an id that is not a request this server reads: 400.
    let (mut message, headers) = modern(33, "tools/list", serde_json::json!({}));
    message["jsonrpc"] = "1.0".into();
    let mut h: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
    h.extend([
        ("content-type", "application/json"),
        ("accept", ACCEPT_BOTH),
        ("authorization", &good),
    ]);
    assert_eq!(
        send(Method::POST, &url, &h, message.to_string())
            .await
            .status,
        400
    );
    // A POST without the modern headers, from a foreign Origin: its method is unknown.
    let legacy = serde_json::json!({"jsonrpc": "2.0", "id": 34, "method": "ping"});
    let h = [
        ("content-type", "application/json"),
        ("accept", ACCEPT_BOTH),
        ("authorization", good.as_str()),
        ("origin", "http://evil.example"),
    ];
    assert_eq!(
        send(Method::POST, &url, &h, legacy.to_string())
            .await
            .status,
        403
    );
    // And one that gets through.
    assert_eq!(
        post(35, "tools/call", echo, &[("authorization", &good)]).await,
        200
    );
    wait_for(&received, &[b"\"35\"" as &[u8], b"\"33\""]).await;
    stop(&mut child);
    let spans = json_spans(&received);
    let refused: Vec<_> = spans
        .iter()
        .filter(|s| s.attributes.contains_key("http.response.status_code"))
        .collect();
    // (name, HTTP status, id, a word of the reason)
    let expected = [
        ("tools/call", "401", None, "Unauthorized"),
        ("tools/list", "403", None, "Origin"),
        ("tools/list", "400", Some("33"), "jsonrpc"),
        ("_OTHER", "403", None, "Origin"),
    ];
    assert_eq!(refused.len(), expected.len(), "{refused:#?}");
    for (name, status, id, reason) in expected {
        let found: Vec<_> = refused
            .iter()
            .filter(|s| s.name == name && s.attributes["http.response.status_code"] == status)
            .collect();
        assert_eq!(found.len(), 1, "{name} {status}: {refused:#?}");
        let Exported {
            kind,
            status: code,
            message,
            attributes,
            ..
        } = found[0];
        assert_eq!(*kind, 2, "SERVER");
        assert_eq!(*code, 2, "ERROR");
        assert!(message.contains(reason), "{name} {status}: {message}");
        assert_eq!(attributes["error.type"], "-32600", "{attributes:?}");
        assert_eq!(attributes["mcp.method.name"], name);
        assert_eq!(
            attributes.get("jsonrpc.request.id").map(String::as_str),
            id,
            "{attributes:?}"
        );
        assert_eq!(
            attributes.get("mcp.protocol.version").map(String::as_str),
            (name != "_OTHER").then_some("2026-07-28"),
            "{attributes:?}"
        );
    }
    assert_eq!(one_span(&spans, "35").name, "tools/call echo");
    assert!(!exported(&received, SECRET), "an argument was exported");
    assert!(!exported(&received, token), "the token was exported");
}
