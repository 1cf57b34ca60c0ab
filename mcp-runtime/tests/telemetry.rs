//! Request telemetry through the SDK's in-memory exporters: the spans and metric points
//! requests produce in both eras, their names and attributes, the client's trace joined,
//! and no argument recorded. One test: the telemetry switch is process-wide.
#![cfg(feature = "otel")]

use mcp_runtime::client::{Client, EraMode};
use mcp_runtime::prelude::*;
use mcp_runtime::prompt::prompt_fn;
use mcp_runtime::protocol::{PromptDefinition, ToolDefinition};
use mcp_runtime::telemetry::{self, TelemetryOptions};
use opentelemetry::metrics::MeterProvider as _;
use opentelemetry::trace::{SpanKind, Status};
use opentelemetry_sdk::metrics::data::{AggregatedMetrics, MetricData};
use opentelemetry_sdk::metrics::{InMemoryMetricExporter, PeriodicReader, SdkMeterProvider};
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider, SpanData};
use serde_json::{Value, json};
use tracing_subscriber::layer::SubscriberExt as _;

const CLIENT_TRACE: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
const CLIENT_SPAN: &str = "00f067aa0ba902b7";
const SECRET: &str = "sk-secret-argument-42";

fn server() -> Server {
    let schema = json!({"type": "object", "properties": {"text": {"type": "string"}}});
    Server::builder("traced", "1.0.0")
        .tool(tool_fn(
            ToolDefinition::new("echo", "Echoes.", schema.clone()),
            |args, cx| async move {
                cx.progress(1.0, Some(1.0), Some("halfway")).await;
                args["text"].as_str().unwrap_or("").len().to_string()
            },
        ))
        .tool(tool_fn(
            ToolDefinition::new("fails", "Fails.", schema),
            |_args, _cx| async move { Err::<String, _>("it failed") },
        ))
        .tool(tool_fn(
            ToolDefinition::new(
                "asks",
                "Asks the client for its roots.",
                json!({"type": "object"}),
            ),
            |_args, cx| async move { cx.roots().await.map(|roots| roots.len().to_string()) },
        ))
        .tool(
            tool_fn(
                ToolDefinition::new("slow", "Runs as a task.", json!({"type": "object"})),
                |_args, _cx| async move {
                    tokio::time::sleep(std::time::Duration::from_millis(20)).await;
                    "done"
                },
            )
            .with_policy(
                mcp_runtime::tool::ToolPolicy::new().task(mcp_runtime::task::TaskSupport::Required),
            ),
        )
        .prompt(prompt_fn(
            PromptDefinition::new("greet", "Greets."),
            |_args, _cx| async move { "Hello" },
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

fn span<'a>(spans: &'a [SpanData], name: &str) -> &'a SpanData {
    spans.iter().find(|s| s.name == name).unwrap_or_else(|| {
        panic!(
            "no span {name:?} in {:?}",
            spans.iter().map(|s| &s.name).collect::<Vec<_>>()
        )
    })
}

#[tokio::test(flavor = "multi_thread")]
async fn requests_become_spans_and_metrics_by_the_conventions() {
    let spans = InMemorySpanExporter::default();
    let tracer = SdkTracerProvider::builder()
        .with_simple_exporter(spans.clone())
        .build();
    let metrics = InMemoryMetricExporter::default();
    let meter = SdkMeterProvider::builder()
        .with_reader(PeriodicReader::builder(metrics.clone()).build())
        .build();
    tracing::subscriber::set_global_default(
        tracing_subscriber::registry().with(telemetry::layer(&tracer)),
    )
    .unwrap();
    assert!(!telemetry::is_enabled());
    telemetry::enable(&meter.meter("test"), TelemetryOptions::new());
    assert!(telemetry::is_enabled());

    let legacy = Client::memory(&server());
    legacy.connect(EraMode::Legacy).await.unwrap();
    let traceparent = format!("00-{CLIENT_TRACE}-{CLIENT_SPAN}-01");
    let r: Value = legacy
        .request(
            "tools/call",
            Some(json!({
                "name": "echo",
                "arguments": {"text": SECRET},
                "_meta": {"traceparent": traceparent, "baggage": "tenant=acme"},
            })),
        )
        .await
        .unwrap();
    assert_eq!(r["content"][0]["text"], SECRET.len().to_string());
    // A method the dispatcher answers itself joins the client's trace too.
    let _: Value = legacy
        .request(
            "tools/list",
            Some(json!({"_meta": {"traceparent": traceparent}})),
        )
        .await
        .unwrap();
    let r = legacy.call_tool("fails", json!({})).await.unwrap();
    assert_eq!(legacy.list_tools().await.unwrap().len(), 4);
    assert!(r.is_error());

    let modern = Client::memory(&server());
    modern.connect(EraMode::Modern).await.unwrap();
    modern
        .call_tool("echo", json!({"text": "x"}))
        .await
        .unwrap();
    modern
        .get_prompt("greet", &Default::default())
        .await
        .unwrap();
    let done = modern.call_tool("slow", json!({})).await.unwrap();
    assert!(!done.is_error(), "{done:?}");

    // A request the server sends while serving one carries the serving span's context.
    let asked_with = asks_with_trace(&traceparent).await;
    assert!(
        asked_with.starts_with(&format!("00-{CLIENT_TRACE}-")),
        "{asked_with}"
    );
    assert!(
        !asked_with.contains(CLIENT_SPAN),
        "the server's own span is the parent: {asked_with}"
    );
    let asked_parent = asked_with.split('-').nth(2).unwrap().to_owned();

    tracer.force_flush().unwrap();
    let spans = spans.get_finished_spans().unwrap();
    let calls: Vec<&SpanData> = spans
        .iter()
        .filter(|s| s.name == "tools/call echo")
        .collect();
    assert_eq!(calls.len(), 2, "{spans:?}");
    let joined = calls
        .iter()
        .find(|s| s.span_context.trace_id().to_string() == CLIENT_TRACE)
        .expect("the legacy call joined the client's trace");
    assert_eq!(joined.parent_span_id.to_string(), CLIENT_SPAN);
    let listed = spans
        .iter()
        .find(|s| s.name == "tools/list" && s.span_context.trace_id().to_string() == CLIENT_TRACE)
        .expect("the tools/list with a traceparent joined the client's trace");
    assert_eq!(listed.parent_span_id.to_string(), CLIENT_SPAN);
    assert_eq!(joined.span_kind, SpanKind::Server);
    for (key, value) in [
        ("mcp.method.name", "tools/call"),
        ("gen_ai.tool.name", "echo"),
        ("gen_ai.operation.name", "execute_tool"),
        ("network.transport", "pipe"),
        ("mcp.protocol.version", "2025-11-25"),
    ] {
        assert_eq!(
            attribute(joined, key).as_deref(),
            Some(value),
            "{key}: {joined:?}"
        );
    }
    assert!(
        attribute(joined, "jsonrpc.request.id").is_some(),
        "{joined:?}"
    );
    assert_eq!(attribute(joined, "error.type"), None);
    let fresh = calls
        .iter()
        .find(|s| s.span_context.trace_id().to_string() != CLIENT_TRACE)
        .unwrap();
    assert_eq!(
        attribute(fresh, "mcp.protocol.version").as_deref(),
        Some("2026-07-28")
    );

    // Children of the request's span: validation and the tool's body, with its progress.
    let children: Vec<&SpanData> = spans
        .iter()
        .filter(|s| s.parent_span_id == joined.span_context.span_id())
        .collect();
    let names: Vec<&str> = children.iter().map(|s| &*s.name).collect();
    assert!(
        names.contains(&"validate arguments") && names.contains(&"tool"),
        "{names:?}"
    );
    let body = children.iter().find(|s| s.name == "tool").unwrap();
    assert!(
        body.events.iter().any(|e| e.name == "progress"),
        "{:?}",
        body.events
    );
    let asked = span(&spans, "ask client");
    assert_eq!(
        attribute(asked, "mcp.method.name").as_deref(),
        Some("roots/list")
    );
    assert_eq!(
        asked.span_context.span_id().to_string(),
        asked_parent,
        "the client's request is the ask's child"
    );

    // Methods the dispatcher answers at once have spans of their own.
    let listed = span(&spans, "tools/list");
    assert_eq!(
        attribute(listed, "mcp.method.name").as_deref(),
        Some("tools/list")
    );
    span(&spans, "initialize");

    let failed = span(&spans, "tools/call fails");
    assert_eq!(
        attribute(failed, "error.type").as_deref(),
        Some("tool_error")
    );
    assert!(matches!(failed.status, Status::Error { .. }), "{failed:?}");
    let prompt = span(&spans, "prompts/get greet");
    assert_eq!(
        attribute(prompt, "gen_ai.prompt.name").as_deref(),
        Some("greet")
    );
    assert!(
        !format!("{spans:?}").contains(SECRET),
        "an argument was recorded"
    );

    // Sessions end with their connections: the legacy client's and the raw one's.
    drop(legacy);
    let mut sessions = 0;
    for _ in 0..100 {
        meter.force_flush().unwrap();
        sessions = session_count(&metrics);
        if sessions >= 2 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert!(sessions >= 2, "{sessions} session durations recorded");
    meter.force_flush().unwrap();
    let exported = metrics.get_finished_metrics().unwrap();
    let all = format!("{exported:?}");
    assert!(!all.contains(SECRET));
    let mut durations = Vec::new();
    let mut requests = 0;
    let mut tasks: Vec<(String, u64)> = Vec::new();
    let mut active_tasks = i64::MIN;
    // Cumulative: the last export holds everything.
    for resource in exported.last().into_iter() {
        for scope in resource.scope_metrics() {
            for metric in scope.metrics() {
                match (metric.name(), metric.data()) {
                    (
                        "mcp.server.operation.duration",
                        AggregatedMetrics::F64(MetricData::Histogram(h)),
                    ) => {
                        assert_eq!(metric.unit(), "s");
                        for point in h.data_points() {
                            let attributes: Vec<String> = point
                                .attributes()
                                .map(|kv| format!("{}={}", kv.key, kv.value))
                                .collect();
                            durations.push((attributes, point.count()));
                        }
                    }
                    ("mcp.server.requests", AggregatedMetrics::U64(MetricData::Sum(s))) => {
                        requests += s
                            .data_points()
                            .filter(|p| {
                                p.attributes().any(|kv| {
                                    kv.key.as_str() == "mcp.method.name"
                                        && ["tools/call", "prompts/get"]
                                            .contains(&kv.value.as_str().as_ref())
                                })
                            })
                            .map(|p| p.value())
                            .sum::<u64>();
                    }
                    ("mcp.server.tasks", AggregatedMetrics::U64(MetricData::Sum(s))) => {
                        for point in s.data_points() {
                            let status = point
                                .attributes()
                                .find(|kv| kv.key.as_str() == "mcp.task.status")
                                .map(|kv| kv.value.to_string())
                                .unwrap_or_default();
                            tasks.push((status, point.value()));
                        }
                    }
                    ("mcp.server.active_tasks", AggregatedMetrics::I64(MetricData::Sum(s))) => {
                        active_tasks = s.data_points().map(|p| p.value()).sum::<i64>();
                    }
                    _ => {}
                }
            }
        }
    }
    tasks.sort();
    assert_eq!(
        tasks,
        [("completed".to_owned(), 1), ("created".to_owned(), 1)],
        "{all}"
    );
    assert_eq!(active_tasks, 0, "{all}");
    assert_eq!(requests, 6, "{all}");
    let failed: Vec<_> = durations
        .iter()
        .filter(|(a, _)| a.contains(&"error.type=tool_error".to_owned()))
        .collect();
    assert_eq!(failed.len(), 1, "{durations:?}");
    assert!(failed[0].0.contains(&"gen_ai.tool.name=fails".to_owned()));
    let echo: u64 = durations
        .iter()
        .filter(|(a, _)| a.contains(&"gen_ai.tool.name=echo".to_owned()))
        .map(|(_, n)| n)
        .sum();
    assert_eq!(echo, 2, "{durations:?}");
}

/// Calls `asks` on a raw 2025 session with `traceparent` and returns the `traceparent` of
/// the `roots/list` request the server sends back.
async fn asks_with_trace(traceparent: &str) -> String {
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
            "name": "asks", "arguments": {}, "_meta": {"traceparent": traceparent},
        }}),
    )
    .await;
    let ask: Value = serde_json::from_slice(&t.from_server.recv().await.unwrap()).unwrap();
    assert_eq!(ask["method"], "roots/list", "{ask}");
    let found = ask["params"]["_meta"]["traceparent"]
        .as_str()
        .unwrap_or_else(|| panic!("no traceparent in {ask}"))
        .to_owned();
    send(json!({"jsonrpc": "2.0", "id": ask["id"].clone(), "result": {"roots": []}})).await;
    let done: Value = serde_json::from_slice(&t.from_server.recv().await.unwrap()).unwrap();
    assert_eq!(done["result"]["content"][0]["text"], "0", "{done}");
    found
}

/// How many `mcp.server.session.duration` points the last export holds.
fn session_count(metrics: &InMemoryMetricExporter) -> u64 {
    let exported = metrics.get_finished_metrics().unwrap();
    let Some(last) = exported.last() else {
        return 0;
    };
    let mut count = 0;
    for scope in last.scope_metrics() {
        for metric in scope.metrics() {
            if let (
                "mcp.server.session.duration",
                AggregatedMetrics::F64(MetricData::Histogram(h)),
            ) = (metric.name(), metric.data())
            {
                assert_eq!(metric.unit(), "s");
                count += h.data_points().map(|p| p.count()).sum::<u64>();
            }
        }
    }
    count
}
