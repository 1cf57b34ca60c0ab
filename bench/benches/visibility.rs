//! Per-caller views (`mcp_runtime::server::visibility`) beside the plain path, through a
//! stateless 2026-07-28 connection as an HTTP transport drives it (one exchange per request,
//! with the caller its authenticator established): what a server pays for the views it has,
//! and that one without them pays nothing.
//!
//! - `tools/list` of 20 tools by a caller holding scopes: a server without scoped items (the
//!   baseline); the same server asked by a caller without scopes (stdio's: the rules are not
//!   even looked at); a server with 5 scoped tools, for a caller holding them all and for one
//!   holding none (each gets a page built for it); a server with a `visible_if` rule that
//!   lets everything through.
//! - `tools/call` of an unscoped tool on the server without scoped items, and of a scoped
//!   tool by a caller holding its scope.
//!
//! `visibility_ratios` prints each as a multiple of its baseline, timed interleaved in one
//! run.

use criterion::{Criterion, criterion_group, criterion_main};
use mcp_runtime::prelude::*;
use mcp_runtime::tool::{Caller, ToolPolicy};
use mcp_tests::transports::Rpc;
use serde_json::json;
use std::hint::black_box;
use std::time::Instant;

/// 20 tools `t00`…`t19`; with `scoped`, `t15`…`t19` need the scope `admin`; with `rule`, a
/// `visible_if` rule that lets everything through.
fn server(scoped: bool, rule: bool) -> Server {
    let mut builder = Server::builder("bench", "1.0.0");
    for i in 0..20 {
        let definition = ToolDefinition::new(
            format!("t{i:02}"),
            "Returns the given text unchanged.",
            json!({"type": "object", "properties": {"text": {"type": "string"}}}),
        );
        let mut tool = tool_fn(definition, |args, _| async move {
            args.get("text")
                .and_then(|t| t.as_str())
                .unwrap_or_default()
                .to_owned()
        });
        if scoped && i >= 15 {
            tool = tool.with_policy(ToolPolicy::new().scope("admin"));
        }
        builder = builder.tool(tool);
    }
    if rule {
        builder = builder.visible_if(|caller, _| caller.address() != Some("203.0.113.1"));
    }
    builder.build().expect("a valid server")
}

fn line(method: &str, params: &str) -> String {
    let comma = if params.is_empty() { "" } else { "," };
    format!(
        r#"{{"jsonrpc":"2.0","id":7,"method":"{method}","params":{{{params}{comma}"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}}}}}}}}"#
    )
}

fn reader() -> Caller {
    Caller::connection()
        .with_identity("reader")
        .with_scopes(["read"])
}

fn admin() -> Caller {
    Caller::connection()
        .with_identity("admin")
        .with_scopes(["read", "admin"])
}

struct Case {
    name: &'static str,
    rpc: Rpc,
    caller: Caller,
    line: String,
    /// In the answer (and, with a `!` first, not in it).
    check: &'static str,
}

fn cases() -> Vec<Case> {
    let list = line("tools/list", "");
    let call = |name: &str| {
        line(
            "tools/call",
            &format!(r#""name":"{name}","arguments":{{"text":"hello"}}"#),
        )
    };
    let case = |name, server: Server, caller, line, check| Case {
        name,
        rpc: Rpc::new(&server),
        caller,
        line,
        check,
    };
    vec![
        case(
            "list/no_scopes",
            server(false, false),
            reader(),
            list.clone(),
            "t19",
        ),
        case(
            "list/no_scopes_local",
            server(false, false),
            Caller::connection(),
            list.clone(),
            "t19",
        ),
        case(
            "list/scoped_to_holder",
            server(true, false),
            admin(),
            list.clone(),
            "t19",
        ),
        case(
            "list/scoped_to_other",
            server(true, false),
            reader(),
            list.clone(),
            "!t19",
        ),
        case(
            "list/rule",
            server(false, true),
            reader(),
            list.clone(),
            "t19",
        ),
        case(
            "call/no_scopes",
            server(false, false),
            reader(),
            call("t19"),
            "hello",
        ),
        case(
            "call/scoped_to_holder",
            server(true, false),
            admin(),
            call("t19"),
            "hello",
        ),
    ]
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime")
}

fn checked(case: &Case, rt: &tokio::runtime::Runtime) {
    let answer = rt
        .block_on(case.rpc.call(&case.line, case.caller.clone()))
        .body
        .to_string();
    let ok = match case.check.strip_prefix('!') {
        Some(absent) => !answer.contains(absent) && answer.contains("t00"),
        None => answer.contains(case.check),
    };
    assert!(
        ok && !answer.contains("\"error\""),
        "{}: {answer}",
        case.name
    );
}

fn dispatch(c: &mut Criterion) {
    let rt = runtime();
    let mut group = c.benchmark_group("visibility");
    for case in cases() {
        checked(&case, &rt);
        group.bench_function(case.name, |b| {
            b.iter(|| black_box(rt.block_on(case.rpc.call(&case.line, case.caller.clone()))))
        });
    }
    group.finish();
}

/// Each case as a multiple of its baseline, timed interleaved in rounds (the median round
/// printed), so a noisy machine moves both sides alike.
fn visibility_ratios(_: &mut Criterion) {
    let rt = runtime();
    let cases = cases();
    for case in &cases {
        checked(case, &rt);
    }
    let n = 20_000;
    let mut rounds = Vec::new();
    for _ in 0..5 {
        let round: Vec<f64> = cases
            .iter()
            .map(|case| {
                let started = Instant::now();
                for _ in 0..n {
                    black_box(rt.block_on(case.rpc.call(&case.line, case.caller.clone())));
                }
                started.elapsed().as_secs_f64() / f64::from(n) * 1e9
            })
            .collect();
        rounds.push(round);
    }
    let names = cases.iter().map(|c| c.name).collect::<Vec<_>>();
    for (case, baseline) in [
        ("list/no_scopes_local", "list/no_scopes"),
        ("list/scoped_to_holder", "list/no_scopes"),
        ("list/scoped_to_other", "list/no_scopes"),
        ("list/rule", "list/no_scopes"),
        ("call/scoped_to_holder", "call/no_scopes"),
    ] {
        let (ratio, ns, base) = mcp_bench::median_ratio(&names, &rounds, case, baseline);
        println!("visibility_ratio: {case} {ratio:.2}x {baseline} ({ns:.0} ns vs {base:.0} ns)");
    }
}

criterion_group!(benches, dispatch, visibility_ratios);
criterion_main!(benches);
