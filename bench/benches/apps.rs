//! MCP Apps beside the plain tools path, through the whole dispatcher (2026-07-28 lines, as
//! `primitives` measures the other primitives): what a server pays for views it has, and
//! that a server without them pays nothing.
//!
//! - `tools/list` of 20 tools: a server without apps; the same with a view on one tool
//!   (still one cached page for everyone); with an app-only tool, listed to a client that
//!   renders apps (against the server without apps listed to the same client: its request
//!   is longer) and to one that does not (a second cached first page, the app-only tool
//!   left out).
//! - `tools/call` of a tool shown with a view (the app-only check) against the same tool
//!   without one, and `resources/read` of an `AppView` against a `resource_fn` answering the
//!   same HTML.
//!
//! `apps_ratios` prints each as a multiple of its baseline, timed interleaved in one run.

use criterion::{Criterion, criterion_group, criterion_main};
use mcp_bench::InProcess;
use mcp_runtime::prelude::*;
use mcp_runtime::protocol::ResourceDefinition;
use mcp_runtime::protocol::apps::{APP_MIME_TYPE, Visibility};
use mcp_runtime::resource::{AppView, Html, resource_fn};
use serde_json::json;
use std::hint::black_box;
use std::time::Instant;

const VIEW: &str = "ui://bench/view";
const HTML: &str = "<!doctype html><html><body><div id=app></div><script type=module>/* a view */</script></body></html>";

/// The modern envelope, with or without the apps extension in the client's capabilities.
fn line(method: &str, params: &str, apps: bool) -> Vec<u8> {
    let capabilities = if apps {
        r#"{"extensions":{"io.modelcontextprotocol/ui":{"mimeTypes":["text/html;profile=mcp-app"]}}}"#
    } else {
        "{}"
    };
    let comma = if params.is_empty() { "" } else { "," };
    format!(
        r#"{{"jsonrpc":"2.0","id":7,"method":"{method}","params":{{{params}{comma}"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{capabilities}}}}}}}"#
    )
    .into_bytes()
}

/// 20 tools `t00`…`t19`; `app` gives `t00` the view, `app_only` makes `t01` the view's only.
fn server(app: bool, app_only: bool) -> Server {
    let mut builder = Server::builder("bench", "1.0.0");
    for i in 0..20 {
        let mut definition = ToolDefinition::new(
            format!("t{i:02}"),
            "Returns the given text unchanged.",
            json!({"type": "object", "properties": {"text": {"type": "string"}}}),
        );
        if (app && i == 0) || (app_only && i == 1) {
            definition = definition.with_app(VIEW);
        }
        if app_only && i == 1 {
            definition = definition.with_app_visibility([Visibility::App]);
        }
        builder = builder.tool(tool_fn(definition, |args, _| async move {
            args.get("text")
                .and_then(|t| t.as_str())
                .unwrap_or_default()
                .to_owned()
        }));
    }
    if app || app_only {
        builder = builder.resource(AppView::new(VIEW, Html::inline(HTML)));
    }
    builder
        .resource(resource_fn(
            ResourceDefinition::new("ui://bench/html", "html").with_mime_type(APP_MIME_TYPE),
            |_| async { HTML },
        ))
        .build()
        .expect("a valid server")
}

struct Case {
    name: &'static str,
    server: Server,
    line: Vec<u8>,
    check: &'static str,
}

fn cases() -> Vec<Case> {
    let call = r#""name":"t00","arguments":{"text":"hello"}"#;
    let case = |name, server, line, check| Case {
        name,
        server,
        line,
        check,
    };
    vec![
        case(
            "list/no_apps",
            server(false, false),
            line("tools/list", "", false),
            "t19",
        ),
        case(
            "list/no_apps_to_apps",
            server(false, false),
            line("tools/list", "", true),
            "t19",
        ),
        case(
            "list/with_view",
            server(true, false),
            line("tools/list", "", false),
            "ui://",
        ),
        case(
            "list/app_only_to_apps",
            server(false, true),
            line("tools/list", "", true),
            "\"t01\"",
        ),
        case(
            "list/app_only_to_plain",
            server(false, true),
            line("tools/list", "", false),
            "t19",
        ),
        case(
            "call/no_view",
            server(false, false),
            line("tools/call", call, false),
            "hello",
        ),
        case(
            "call/with_view",
            server(true, false),
            line("tools/call", call, false),
            "hello",
        ),
        case(
            "read/resource_fn",
            server(true, false),
            line("resources/read", r#""uri":"ui://bench/html""#, true),
            "a view",
        ),
        case(
            "read/app_view",
            server(true, false),
            line("resources/read", r#""uri":"ui://bench/view""#, true),
            "a view",
        ),
    ]
}

fn dispatch(c: &mut Criterion) {
    let mut group = c.benchmark_group("apps");
    for case in cases() {
        let mut bench = InProcess::new(case.server);
        let answer = String::from_utf8(bench.dispatch(&case.line)).expect("UTF-8");
        assert!(
            answer.contains(case.check) && !answer.contains("\"error\""),
            "{}: {answer}",
            case.name
        );
        if case.name == "list/app_only_to_plain" {
            assert!(
                !answer.contains("\"t01\""),
                "the app-only tool is left out: {answer}"
            );
        }
        group.bench_function(case.name, |b| {
            b.iter(|| black_box(bench.dispatch(&case.line)))
        });
    }
    group.finish();
}

/// Each case as a multiple of its baseline, timed interleaved in rounds (the median round
/// printed), so a noisy machine moves both sides alike.
fn apps_ratios(_: &mut Criterion) {
    let mut benches: Vec<(&'static str, InProcess, Vec<u8>)> = cases()
        .into_iter()
        .map(|c| (c.name, InProcess::new(c.server), c.line))
        .collect();
    let n = 20_000;
    let mut rounds = Vec::new();
    for _ in 0..5 {
        let round: Vec<f64> = benches
            .iter_mut()
            .map(|(_, bench, line)| {
                let started = Instant::now();
                for _ in 0..n {
                    black_box(bench.dispatch(line));
                }
                started.elapsed().as_secs_f64() / f64::from(n) * 1e9
            })
            .collect();
        rounds.push(round);
    }
    let names = benches.iter().map(|(n, ..)| *n).collect::<Vec<_>>();
    for (case, baseline) in [
        ("list/with_view", "list/no_apps"),
        ("list/app_only_to_apps", "list/no_apps_to_apps"),
        ("list/app_only_to_plain", "list/no_apps"),
        ("call/with_view", "call/no_view"),
        ("read/app_view", "read/resource_fn"),
    ] {
        let (ratio, ns, base) = mcp_bench::median_ratio(&names, &rounds, case, baseline);
        println!("apps_ratio: {case} {ratio:.2}x {baseline} ({ns:.0} ns vs {base:.0} ns)");
    }
}

criterion_group!(benches, dispatch, apps_ratios);
criterion_main!(benches);
