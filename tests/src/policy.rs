//! `policy-server`: a server whose tools declare every policy, for the pipeline's tests over
//! stdio (the `policy-server` binary) and HTTP (in-process, with [`server`]).
//!
//! | tool | policy | does |
//! | --- | --- | --- |
//! | `sleepy {ms, marker}` | timeout 300ms | sleeps `ms`, then creates the file `marker` |
//! | `hang {}` | none | never answers |
//! | `slots {ms}` | concurrency 2 | sleeps `ms`, recording how many run at once |
//! | `work {ms}` | none | sleeps `ms`, recording how many run at once |
//! | `limited {}` | rate limit 2 per 10 s per caller (a token every 5 s: three calls in a row are refused however slow the machine) | answers `ok` |
//! | `cached {q}` | cache 60s, rate limit 4/m per caller; read-only, idempotent | answers `"<q> #<n>"`, n counting its runs; `q = "fail"` is an `isError` result |
//! | `whoami {}` | none | answers the caller's key and identity |
//! | `stats {}` | none | `{"peak": N, "work_peak": N, "layered": N}`: peak concurrency of `slots` and of `work`, calls seen by the layer |
//!
//! Every call passes a server-wide layer that refuses arguments containing `forbidden` and
//! counts the calls it sees.

use futures::future::BoxFuture;
use mcp_runtime::pipeline::{McpRequest, Outcome};
use mcp_runtime::prelude::*;
use mcp_runtime::tool::{Rate, ToolPolicy};
use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use tower::ServiceExt as _;

#[derive(Debug, Default)]
struct Counters {
    running: AtomicUsize,
    peak: AtomicUsize,
    work_running: AtomicUsize,
    work_peak: AtomicUsize,
    layered: AtomicUsize,
    cached_runs: AtomicUsize,
}

fn object(properties: Value) -> Value {
    json!({"type": "object", "properties": properties})
}

/// The server's tools and layer, on a builder to finish (`concurrency_limit`, …).
pub fn builder() -> ServerBuilder {
    let counters = Arc::new(Counters::default());
    let sleepy = tool_fn(
        ToolDefinition::new(
            "sleepy",
            "Sleeps, then creates a marker file.",
            object(json!({"ms": {"type": "integer"}, "marker": {"type": "string"}})),
        ),
        |args, _| async move {
            let ms = args["ms"].as_u64().unwrap_or(0);
            tokio::time::sleep(Duration::from_millis(ms)).await;
            if let Some(marker) = args["marker"].as_str() {
                std::fs::write(marker, "the work went on after the deadline").unwrap();
            }
            "woke up"
        },
    )
    .with_policy(ToolPolicy::new().timeout(Duration::from_millis(300)));
    let hang = tool_fn(
        ToolDefinition::new("hang", "Never answers.", object(json!({}))),
        |_, _| std::future::pending::<String>(),
    );
    let slots = {
        let counters = counters.clone();
        tool_fn(
            ToolDefinition::new(
                "slots",
                "Sleeps, two at a time at most.",
                object(json!({"ms": {"type": "integer"}})),
            ),
            move |args, _| {
                let counters = counters.clone();
                async move {
                    let now = counters.running.fetch_add(1, Ordering::SeqCst) + 1;
                    counters.peak.fetch_max(now, Ordering::SeqCst);
                    let ms = args["ms"].as_u64().unwrap_or(0);
                    tokio::time::sleep(Duration::from_millis(ms)).await;
                    counters.running.fetch_sub(1, Ordering::SeqCst);
                    "slept"
                }
            },
        )
        .with_policy(ToolPolicy::new().concurrency(2))
    };
    let work = {
        let counters = counters.clone();
        tool_fn(
            ToolDefinition::new(
                "work",
                "Sleeps, as many at a time as the server allows.",
                object(json!({"ms": {"type": "integer"}})),
            ),
            move |args, _| {
                let counters = counters.clone();
                async move {
                    let now = counters.work_running.fetch_add(1, Ordering::SeqCst) + 1;
                    counters.work_peak.fetch_max(now, Ordering::SeqCst);
                    let ms = args["ms"].as_u64().unwrap_or(0);
                    tokio::time::sleep(Duration::from_millis(ms)).await;
                    counters.work_running.fetch_sub(1, Ordering::SeqCst);
                    "worked"
                }
            },
        )
    };
    let limited = tool_fn(
        ToolDefinition::new(
            "limited",
            "Two calls a second per caller.",
            object(json!({})),
        ),
        |_, _| async { "ok" },
    )
    .with_policy(ToolPolicy::new().rate_limit(Rate::new(2, std::time::Duration::from_secs(10))));
    let cached = {
        let counters = counters.clone();
        tool_fn(
            ToolDefinition::new(
                "cached",
                "Counts its runs; repeated calls are answered from the cache.",
                object(json!({"q": {"type": "string"}})),
            )
            .with_annotations({
                let mut hints = ToolAnnotations::default();
                hints.read_only_hint = Some(true);
                hints.idempotent_hint = Some(true);
                hints
            }),
            move |args, _| {
                let n = counters.cached_runs.fetch_add(1, Ordering::SeqCst) + 1;
                let q = args["q"].as_str().unwrap_or_default().to_owned();
                async move {
                    let text = format!("{q} #{n}");
                    if q == "fail" {
                        CallToolResult::error(text)
                    } else {
                        CallToolResult::text(text)
                    }
                }
            },
        )
        .with_policy(
            ToolPolicy::new()
                .cache(Duration::from_secs(60))
                .rate_limit(Rate::per_minute(4)),
        )
    };
    let whoami = tool_fn(
        ToolDefinition::new("whoami", "Who is calling.", object(json!({}))),
        |_, cx: RequestContext| async move {
            Json(json!({
                "key": cx.caller().key(),
                "identity": cx.caller().identity(),
            }))
        },
    );
    let stats = {
        let counters = counters.clone();
        tool_fn(
            ToolDefinition::new("stats", "Counters.", object(json!({}))),
            move |_, _| {
                let counters = counters.clone();
                async move {
                    Json(json!({
                        "peak": counters.peak.load(Ordering::SeqCst),
                        "work_peak": counters.work_peak.load(Ordering::SeqCst),
                        "layered": counters.layered.load(Ordering::SeqCst),
                    }))
                }
            },
        )
    };
    let guard = tower::layer::layer_fn(move |inner: mcp_runtime::pipeline::McpService| {
        let counters = counters.clone();
        tower::service_fn(move |request: McpRequest| {
            let inner = inner.clone();
            counters.layered.fetch_add(1, Ordering::SeqCst);
            let refused = Value::Object(request.arguments().clone())
                .to_string()
                .contains("forbidden");
            let call: BoxFuture<'static, _> = Box::pin(async move {
                if refused {
                    return Ok(Outcome::refuse(format!(
                        "`{}` refused: the arguments contain a forbidden word",
                        request.target()
                    )));
                }
                inner.oneshot(request).await
            });
            call
        })
    });
    Server::builder("policy-server", "1.0.0")
        .tool(sleepy)
        .tool(hang)
        .tool(slots)
        .tool(work)
        .tool(limited)
        .tool(cached)
        .tool(whoami)
        .tool(stats)
        .layer(guard)
}

/// The server with its defaults.
pub fn server() -> Server {
    builder().build().expect("the policy server is valid")
}
