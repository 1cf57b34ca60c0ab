//! In-memory sessions against purpose-built servers: concurrency, panics, output schemas,
//! cancellation, progress, pagination, list changes.

use mcp_runtime::client::{Client, ClientError, EraMode};
use mcp_runtime::prelude::*;
use mcp_runtime::protocol::ErrorCode;
use mcp_runtime::server::{Primitive, RegistrationError};
use serde_json::{Value, json};
use std::time::Duration;

fn object(properties: Value, required: &[&str]) -> Value {
    json!({"type": "object", "properties": properties, "required": required})
}

fn server() -> Server {
    let slow = tool_fn(
        ToolDefinition::new(
            "slow",
            "Waits for `ms` milliseconds.",
            object(json!({"ms": {"type": "integer"}}), &["ms"]),
        ),
        |args, _cx| async move {
            let ms = args["ms"].as_u64().unwrap_or(0);
            tokio::time::sleep(Duration::from_millis(ms)).await;
            format!("slept {ms}")
        },
    );
    let fast = tool_fn(
        ToolDefinition::new("fast", "Answers at once.", object(json!({}), &[])),
        |_, _| async { "fast" },
    );
    let panics = tool_fn(
        ToolDefinition::new("panics", "Always panics.", object(json!({}), &[])),
        |_, _| async {
            panic!("boom");
            #[allow(unreachable_code)]
            ""
        },
    );
    let fails = tool_fn(
        ToolDefinition::new("fails", "Always fails.", object(json!({}), &[])),
        |_, _| async { Err::<String, _>("the city is unknown; try a larger one") },
    );
    let weather = tool_fn(
        ToolDefinition::new(
            "weather",
            "Structured output.",
            object(json!({"bad": {"type": "boolean"}}), &[]),
        )
        .with_output_schema(object(json!({"temp": {"type": "number"}}), &["temp"])),
        |args, _| async move {
            if args.get("bad") == Some(&json!(true)) {
                Json(json!({"temp": "warm"}))
            } else {
                Json(json!({"temp": 21.5}))
            }
        },
    );
    let count = tool_fn(
        ToolDefinition::new(
            "count",
            "Returns a bare number as structured output.",
            object(json!({}), &[]),
        )
        .with_output_schema(json!({"type": "integer"})),
        |_, _| async { Json(42) },
    );
    let progress = tool_fn(
        ToolDefinition::new(
            "progress",
            "Reports progress 0, 50, 100.",
            object(json!({}), &[]),
        ),
        |_, cx: RequestContext| async move {
            for p in [0.0, 50.0, 50.0, 100.0] {
                cx.progress(p, Some(100.0), None).await;
            }
            "done"
        },
    );
    Server::builder("session-test", "9.9.9")
        .tool(slow)
        .tool(fast)
        .tool(panics)
        .tool(fails)
        .tool(weather)
        .tool(count)
        .tool(progress)
        .build()
        .unwrap()
}

async fn recv(rx: &mut tokio::sync::mpsc::UnboundedReceiver<Value>) -> Value {
    tokio::time::timeout(Duration::from_secs(10), rx.recv())
        .await
        .expect("a message in time")
        .expect("open")
}

#[tokio::test]
async fn a_slow_tool_blocks_nobody() {
    let c = Client::memory(&server());
    c.connect(EraMode::Legacy).await.unwrap();
    let slow = {
        let c = c.clone();
        // Long enough that the fast call is answered first on however loaded a machine.
        tokio::spawn(async move { c.call_tool("slow", json!({"ms": 3000})).await })
    };
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert_eq!(
        c.call_tool("fast", json!({})).await.unwrap().first_text(),
        Some("fast")
    );
    assert!(
        !slow.is_finished(),
        "the fast answer came while the slow call was still running"
    );
    assert_eq!(
        slow.await.unwrap().unwrap().first_text(),
        Some("slept 3000")
    );
}

#[tokio::test]
async fn in_flight_calls_are_answered_after_input_ends() {
    let t = mcp_runtime::transport::memory::connect(&server());
    let mut from_server = t.from_server;
    t.to_server
        .send(br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","arguments":{"ms":200}}}"#.to_vec())
        .await
        .unwrap();
    drop(t.to_server); // end of input while the call runs
    let line = tokio::time::timeout(Duration::from_secs(10), from_server.recv())
        .await
        .unwrap()
        .unwrap();
    let v: Value = serde_json::from_slice(&line).unwrap();
    assert_eq!(v["result"]["content"][0]["text"], "slept 200");
    assert!(
        from_server.recv().await.is_none(),
        "then the connection ends"
    );
}

#[tokio::test]
async fn failures_inside_tools_are_results_and_the_server_keeps_serving() {
    let c = Client::memory(&server());
    c.connect(EraMode::Modern).await.unwrap();
    let r = c.call_tool("panics", json!({})).await.unwrap();
    assert!(r.is_error());
    assert!(r.first_text().unwrap().contains("`panics`"));
    assert!(
        !r.first_text().unwrap().contains("boom"),
        "panic text stays in the log"
    );
    let r = c.call_tool("fails", json!({})).await.unwrap();
    assert!(r.is_error());
    assert_eq!(
        r.first_text(),
        Some("the city is unknown; try a larger one")
    );
    assert_eq!(
        c.call_tool("fast", json!({})).await.unwrap().first_text(),
        Some("fast")
    );
}

#[tokio::test]
async fn structured_output_is_validated_and_copied_to_text() {
    let c = Client::memory(&server());
    c.connect(EraMode::Modern).await.unwrap();
    let ok = c.call_tool("weather", json!({})).await.unwrap();
    assert_eq!(ok.structured_content, Some(json!({"temp": 21.5})));
    assert_eq!(ok.first_text(), Some(r#"{"temp":21.5}"#));
    let bad = c.call_tool("weather", json!({"bad": true})).await.unwrap();
    assert!(bad.is_error());
    assert!(
        bad.first_text().unwrap().contains("output schema"),
        "{bad:?}"
    );
    assert!(bad.first_text().unwrap().contains("/temp"), "{bad:?}");
}

#[tokio::test]
async fn non_object_output_is_wrapped_for_legacy_clients_only() {
    let s = server();
    let modern = Client::memory(&s);
    modern.connect(EraMode::Modern).await.unwrap();
    let r = modern.call_tool("count", json!({})).await.unwrap();
    assert_eq!(r.structured_content, Some(json!(42)));
    assert_eq!(r.first_text(), Some("42"));
    let tools = modern.list_tools().await.unwrap();
    let def = tools.iter().find(|t| t.name == "count").unwrap();
    assert_eq!(def.output_schema, Some(json!({"type": "integer"})));

    let legacy = Client::memory(&s);
    legacy.connect(EraMode::Legacy).await.unwrap();
    let r = legacy.call_tool("count", json!({})).await.unwrap();
    assert_eq!(r.structured_content, Some(json!({"result": 42})));
    let tools = legacy.list_tools().await.unwrap();
    let def = tools.iter().find(|t| t.name == "count").unwrap();
    assert_eq!(
        def.output_schema,
        Some(
            json!({"type": "object", "properties": {"result": {"type": "integer"}}, "required": ["result"]})
        )
    );
}

#[tokio::test]
async fn a_server_without_tools_neither_advertises_nor_lists_them() {
    let bare = Server::builder("bare", "1").build().unwrap();
    for mode in [EraMode::Legacy, EraMode::Modern] {
        let c = Client::memory(&bare);
        c.connect(mode).await.unwrap();
        let err = c.list_tools().await.unwrap_err();
        assert!(
            matches!(err, ClientError::Protocol(ref e) if e.code == ErrorCode::METHOD_NOT_FOUND),
            "{mode:?}: {err}"
        );
    }
    let init = Client::memory(&bare);
    let result = init.initialize().await.unwrap();
    assert!(result.capabilities.tools.is_none());
    let discovered = Client::memory(&bare).discover().await.unwrap();
    assert!(
        discovered["capabilities"].get("tools").is_none(),
        "{discovered}"
    );
    // Advertised on purpose: an empty list, to be filled at run time.
    let open = Server::builder("open", "1")
        .advertise(Primitive::Tools)
        .build()
        .unwrap();
    let c = Client::memory(&open);
    c.connect(EraMode::Modern).await.unwrap();
    assert!(c.list_tools().await.unwrap().is_empty());
}

#[tokio::test]
async fn cancelled_requests_get_no_answer() {
    let c = Client::memory(&server());
    c.connect(EraMode::Legacy).await.unwrap();
    let mut unrouted = c.take_unrouted().unwrap();
    // Far longer than the cancellation takes to arrive, however loaded the machine.
    c.send_raw(br#"{"jsonrpc":"2.0","id":"s1","method":"tools/call","params":{"name":"slow","arguments":{"ms":30000}}}"#.to_vec())
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(50)).await;
    c.send_raw(br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"s1","reason":"user"}}"#.to_vec())
        .await
        .unwrap();
    // The next thing the client sees is the answer to a later request, not the slow one's.
    c.send_raw(br#"{"jsonrpc":"2.0","id":"f1","method":"tools/call","params":{"name":"slow","arguments":{"ms":400}}}"#.to_vec())
        .await
        .unwrap();
    let next = recv(&mut unrouted).await;
    assert_eq!(next["id"], "f1", "{next}");
}

#[tokio::test]
async fn progress_is_reported_increasing_and_only_when_asked() {
    let c = Client::memory(&server());
    c.connect(EraMode::Legacy).await.unwrap();
    let mut unrouted = c.take_unrouted().unwrap();
    let r: Value = c
        .request(
            "tools/call",
            Some(json!({"name": "progress", "arguments": {}, "_meta": {"progressToken": "tok"}})),
        )
        .await
        .unwrap();
    assert_eq!(r["content"][0]["text"], "done");
    let mut seen = Vec::new();
    while let Ok(n) = unrouted.try_recv() {
        assert_eq!(n["method"], "notifications/progress");
        assert_eq!(n["params"]["progressToken"], "tok");
        seen.push(n["params"]["progress"].as_f64().unwrap());
    }
    assert_eq!(seen, [0.0, 50.0, 100.0], "the repeated 50 is dropped");
    // Without a token, nothing is sent.
    c.call_tool("progress", json!({})).await.unwrap();
    assert!(unrouted.try_recv().is_err());
}

#[tokio::test]
async fn pages_follow_a_deterministic_order_and_survive_changes() {
    let mut b = Server::builder("many", "1").page_size(3);
    for name in ["e", "a", "g", "c", "b", "f", "d"] {
        b = b.tool(tool_fn(
            ToolDefinition::new(name, "A tool.", object(json!({}), &[])),
            |_, _| async { "" },
        ));
    }
    let s = b.build().unwrap();
    for mode in [EraMode::Legacy, EraMode::Modern] {
        let c = Client::memory(&s);
        c.connect(mode).await.unwrap();
        let names: Vec<String> = c
            .list_tools()
            .await
            .unwrap()
            .into_iter()
            .map(|t| t.name)
            .collect();
        assert_eq!(names, ["a", "b", "c", "d", "e", "f", "g"]);
    }
    let c = Client::memory(&s);
    c.connect(EraMode::Modern).await.unwrap();
    let first = c.request("tools/list", None).await.unwrap();
    let cursor = first["nextCursor"].as_str().unwrap().to_owned();
    // Pages keep their cache fields and scope.
    assert_eq!(first["cacheScope"], "private");
    // The registry changes between pages: the old cursor still continues where it was.
    assert!(s.tools().remove("b"));
    let second = c
        .request("tools/list", Some(json!({"cursor": cursor})))
        .await
        .unwrap();
    let names: Vec<&str> = second["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["d", "e", "f"]);
    assert_eq!(second["cacheScope"], "private");
    let err = c
        .request("tools/list", Some(json!({"cursor": "%%%"})))
        .await
        .unwrap_err();
    assert_eq!(
        err.as_protocol().map(|e| e.code),
        Some(ErrorCode::INVALID_PARAMS)
    );
}

#[tokio::test]
async fn tool_list_changes_reach_legacy_connections_and_listen_streams() {
    let s = server();
    let legacy = Client::memory(&s);
    legacy.connect(EraMode::Legacy).await.unwrap();
    let mut legacy_in = legacy.take_unrouted().unwrap();

    let modern = Client::memory(&s);
    modern.connect(EraMode::Modern).await.unwrap();
    let mut modern_in = modern.take_unrouted().unwrap();
    let listen = {
        let modern = modern.clone();
        tokio::spawn(async move {
            modern
                .request("subscriptions/listen", Some(json!({"notifications": {"toolsListChanged": true, "promptsListChanged": true}})))
                .await
        })
    };
    let ack = recv(&mut modern_in).await;
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    assert_eq!(
        ack["params"]["notifications"],
        json!({"toolsListChanged": true}),
        "only what is honoured"
    );
    let sub_id = ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"].clone();
    assert!(!sub_id.is_null());

    s.tools()
        .register(tool_fn(
            ToolDefinition::new("late", "Added at run time.", object(json!({}), &[])),
            |_, _| async { "" },
        ))
        .unwrap();
    let n = recv(&mut legacy_in).await;
    assert_eq!(n["method"], "notifications/tools/list_changed");
    let n = recv(&mut modern_in).await;
    assert_eq!(n["method"], "notifications/tools/list_changed");
    assert_eq!(
        n["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        sub_id
    );
    assert!(
        legacy
            .list_tools()
            .await
            .unwrap()
            .iter()
            .any(|t| t.name == "late")
    );
    assert!(!listen.is_finished());

    // subscriptions/listen does not exist on the legacy leg.
    let err = legacy
        .request("subscriptions/listen", Some(json!({"notifications": {}})))
        .await
        .unwrap_err();
    assert!(matches!(err, ClientError::Protocol(ref e) if e.code == ErrorCode::METHOD_NOT_FOUND));
    listen.abort();
}

#[test]
fn registration_problems_are_errors_not_panics() {
    let def = |name: &str, desc: &str, schema: Value| {
        tool_fn(ToolDefinition::new(name, desc, schema), |_, _| async { "" })
    };
    let err = Server::builder("s", "1")
        .tool(def("ok", "Fine.", object(json!({}), &[])))
        .tool(def("ok", "Again.", object(json!({}), &[])))
        .tool(def("bad name!", "Spaces.", object(json!({}), &[])))
        .tool(def(&"x".repeat(129), "Too long.", object(json!({}), &[])))
        .tool(def("nodesc", "  ", object(json!({}), &[])))
        .tool(def(
            "array_root",
            "Root is not an object.",
            json!({"type": "array"}),
        ))
        .tool(def(
            "no_type",
            "Root type missing.",
            json!({"properties": {}}),
        ))
        .tool(def(
            "uncompilable",
            "Bad keyword value.",
            json!({"type": "object", "minProperties": "three"}),
        ))
        .build()
        .unwrap_err();
    let text = err.to_string();
    assert_eq!(err.errors.len(), 7, "{text}");
    for needle in [
        "`ok` is already registered",
        "\"bad name!\"",
        "at most 128",
        "`nodesc` has no description",
        "`array_root`",
        "`no_type`",
        "`uncompilable`",
    ] {
        assert!(text.contains(needle), "missing {needle:?} in {text}");
    }
    let bad_output = tool_fn(
        ToolDefinition::new("out", "Bad output schema.", object(json!({}), &[]))
            .with_output_schema(json!({"type": 12})),
        |_, _| async { "" },
    );
    // A server built without tools did not advertise them: adding one later is refused
    // (clients were told there are none), unless the builder advertised tools anyway.
    let bare = Server::builder("s", "1").build().unwrap();
    assert!(bare.capabilities().tools.is_none());
    let e = bare
        .tools()
        .register(def("late", "Late.", object(json!({}), &[])));
    assert!(
        matches!(e, Err(RegistrationError::NotAdvertised { .. })),
        "{e:?}"
    );
    let s = Server::builder("s", "1")
        .advertise(Primitive::Tools)
        .build()
        .unwrap();
    assert!(s.capabilities().tools.is_some());
    let e = s.tools().register(bad_output).unwrap_err();
    assert!(e.to_string().contains("invalid output schema"), "{e}");
    assert!(s.tools().names().is_empty());
}
