//! Request spans made by the SDK's tracer itself, as a server exporting its spans without
//! children makes them (`RUST_LOG` not asking for `mcp::request=debug`): the same names,
//! kind, attributes and status as the `tracing` path (`tests/telemetry.rs`), the client's
//! trace joined, and the span's context carried by the requests the server sends its client
//! while serving. One test: the telemetry switch is process-wide.
#![cfg(feature = "otel")]

use mcp_runtime::prelude::*;
use mcp_runtime::protocol::ToolDefinition;
use mcp_runtime::telemetry::{self, TelemetryOptions};
use opentelemetry::metrics::MeterProvider as _;
use opentelemetry::trace::{SpanKind, Status};
use opentelemetry_sdk::metrics::SdkMeterProvider;
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider, SpanData};
use serde_json::{Value, json};
use tracing_subscriber::Layer as _;
use tracing_subscriber::layer::SubscriberExt as _;

const CLIENT_TRACE: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
const CLIENT_SPAN: &str = "00f067aa0ba902b7";
const SECRET: &str = "sk-secret-argument-direct";

fn server() -> Server {
    let schema = json!({"type": "object", "properties": {"text": {"type": "string"}}});
    Server::builder("traced", "1.0.0")
        .tool(tool_fn(
            ToolDefinition::new("echo", "Echoes.", schema.clone()),
            |args, _cx| async move { args["text"].as_str().unwrap_or("").len().to_string() },
        ))
        .tool(tool_fn(
            ToolDefinition::new("fails", "Fails.", schema),
            |_args, _cx| async move { Err::<String, _>("it failed") },
        ))
        .tool(tool_fn(
            ToolDefinition::new("asks", "Asks for roots.", json!({"type": "object"})),
            |_args, cx| async move { cx.roots().await.map(|roots| roots.len().to_string()) },
        ))
        .build()
        .unwrap()
}

fn attribute(span: &SpanData, key: &str) -> Option<String> {
    span.attributes
        .iter()
        .find(|kv| kv.key.as_str() == key)
        .map(|kv| kv.value.to_string())
}

/// Sends `tools/call name` with `traceparent` on a raw 2025 session; answers a `roots/list`
/// the server asks meanwhile, and returns that request's `traceparent`, if it asked.
async fn call(name: &str, traceparent: &str) -> (Value, Option<String>) {
    let mut t = mcp_runtime::transport::memory::connect(&server());
    let send = |v: Value| {
        let line = serde_json::to_vec(&v).unwrap();
        let tx = t.to_server.clone();
        async move { tx.send(line).await.unwrap() }
    };
    send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {"roots": {}},
            "clientInfo": {"name": "raw", "version": "1"},
        }}),
    )
    .await;
    let _ = t.from_server.recv().await.unwrap();
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await;
    send(
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": name, "arguments": {"text": SECRET}, "_meta": {"traceparent": traceparent},
        }}),
    )
    .await;
    let mut asked = None;
    loop {
        let message: Value = serde_json::from_slice(&t.from_server.recv().await.unwrap()).unwrap();
        if message["method"] == "roots/list" {
            asked = message["params"]["_meta"]["traceparent"]
                .as_str()
                .map(str::to_owned);
            send(json!({"jsonrpc": "2.0", "id": message["id"].clone(), "result": {"roots": []}}))
                .await;
        } else if message["id"] == 2 {
            return (message, asked);
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn spans_made_by_the_sdk_tracer_follow_the_conventions() {
    let spans = InMemorySpanExporter::default();
    let tracer = SdkTracerProvider::builder()
        .with_simple_exporter(spans.clone())
        .build();
    // The request spans at INFO only: no child is asked for.
    tracing::subscriber::set_global_default(tracing_subscriber::registry().with(
        telemetry::layer(&tracer).with_filter(tracing_subscriber::filter::LevelFilter::INFO),
    ))
    .unwrap();
    let meter = SdkMeterProvider::builder().build();
    telemetry::enable(&meter.meter("test"), TelemetryOptions::new());

    let traceparent = format!("00-{CLIENT_TRACE}-{CLIENT_SPAN}-01");
    let (answer, _) = call("echo", &traceparent).await;
    assert_eq!(
        answer["result"]["content"][0]["text"],
        SECRET.len().to_string()
    );
    let (answer, _) = call("fails", &traceparent).await;
    assert_eq!(answer["result"]["isError"], true);
    let (answer, asked) = call("asks", &traceparent).await;
    assert_eq!(answer["result"]["content"][0]["text"], "0", "{answer}");
    let _ = tracer.force_flush();

    let finished = spans.get_finished_spans().unwrap();
    let named =
        |name: &str| -> Vec<&SpanData> { finished.iter().filter(|s| s.name == name).collect() };
    let echo = named("tools/call echo");
    assert_eq!(echo.len(), 1, "{finished:#?}");
    let echo = echo[0];
    assert_eq!(echo.span_kind, SpanKind::Server);
    assert_eq!(echo.span_context.trace_id().to_string(), CLIENT_TRACE);
    assert_eq!(echo.parent_span_id.to_string(), CLIENT_SPAN);
    assert_eq!(echo.status, Status::Unset);
    for (key, value) in [
        ("mcp.method.name", "tools/call"),
        ("gen_ai.operation.name", "execute_tool"),
        ("gen_ai.tool.name", "echo"),
        ("jsonrpc.request.id", "2"),
        ("mcp.protocol.version", "2025-11-25"),
        ("network.transport", "pipe"),
    ] {
        assert_eq!(
            attribute(echo, key).as_deref(),
            Some(value),
            "{key}: {echo:#?}"
        );
    }
    assert_eq!(attribute(echo, "error.type"), None);

    let fails = named("tools/call fails");
    assert_eq!(fails.len(), 1);
    assert_eq!(
        attribute(fails[0], "error.type").as_deref(),
        Some("tool_error")
    );
    assert!(
        matches!(fails[0].status, Status::Error { .. }),
        "{:?}",
        fails[0].status
    );

    // The question to the client carries the request span's context.
    let asks = named("tools/call asks");
    assert_eq!(asks.len(), 1);
    let asks = asks[0];
    assert_eq!(
        asked.as_deref(),
        Some(format!("00-{CLIENT_TRACE}-{}-01", asks.span_context.span_id()).as_str()),
        "{asks:#?}"
    );
    // No argument in any span.
    assert!(!format!("{finished:?}").contains(SECRET));
}
