//! Asking the client on the modern leg beside a plain call: a `tools/call` of `echo` (64
//! bytes, no ask) on both legs; and a tool that elicits once, through its whole exchange:
//! round 1 (the handler suspends, a `requestState` is signed) and round 2 (the state is
//! verified and spent, the handler replays with the answer and completes).
//! `input_ratios` prints each as a multiple of the legacy `tools/call` measured in the same
//! run, interleaved: what a modern call pays for being able to ask (target: at most 1.1×),
//! and what a whole two-round exchange costs (two calls plus an HMAC each way).

use criterion::{Criterion, criterion_group, criterion_main};
use mcp_bench::InProcess;
use mcp_runtime::input::Elicitation;
use mcp_runtime::prelude::*;
use std::hint::black_box;
use std::time::Instant;

const LEGACY_CALL: &[u8] = br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"}}}"#;
const MODERN_CALL: &[u8] = br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}}}"#;
const ASK: &str = r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"greet","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}"#;

/// Returns the given text unchanged.
#[mcp_tool]
async fn echo(text: String) -> String {
    text
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Name {
    name: String,
}

/// Greets whoever the user says they are.
#[mcp_tool]
async fn greet(cx: RequestContext) -> Result<String, mcp_runtime::input::InputError> {
    Ok(match cx.elicit::<Name>("Who are you?").key("who").await? {
        Elicitation::Accepted(n) => n.name,
        _ => String::new(),
    })
}

fn harness() -> InProcess {
    InProcess::new(
        Server::builder("bench", "1.0.0")
            .tool(echo::tool())
            .tool(greet::tool())
            .build()
            .expect("a valid server"),
    )
}

/// Both rounds of the eliciting call; returns the final answer.
fn exchange(bench: &mut InProcess) -> Vec<u8> {
    let first = bench.dispatch(format!("{ASK}}}}}").as_bytes());
    let first: serde_json::Value = serde_json::from_slice(&first).expect("JSON");
    let state = first["result"]["requestState"].as_str().expect("a state");
    let retry = format!(
        r#"{ASK},"requestState":"{state}","inputResponses":{{"who":{{"action":"accept","content":{{"name":"Ada"}}}}}}}}}}"#
    );
    bench.dispatch(retry.as_bytes())
}

fn dispatch(c: &mut Criterion) {
    let mut bench = harness();
    for (name, line) in [
        ("dispatch_call_legacy", LEGACY_CALL),
        ("dispatch_call_modern", MODERN_CALL),
    ] {
        let answer = String::from_utf8(bench.dispatch(line)).expect("UTF-8");
        assert!(answer.contains("0123456789abcdef"), "{name}: {answer}");
        c.bench_function(name, |b| b.iter(|| black_box(bench.dispatch(line))));
    }
    let answer = String::from_utf8(exchange(&mut bench)).expect("UTF-8");
    assert!(
        answer.contains("Ada") && answer.contains("complete"),
        "{answer}"
    );
    c.bench_function("input_round_trip_modern", |b| {
        b.iter(|| black_box(exchange(&mut bench)))
    });
}

/// The modern paths as multiples of the legacy `tools/call`, timed interleaved in rounds
/// (the median round is printed).
fn input_ratios(_: &mut Criterion) {
    let mut bench = harness();
    let n = 50_000;
    let mut rounds = Vec::new();
    for _ in 0..5 {
        let mut time = |f: &mut dyn FnMut(&mut InProcess)| {
            let started = Instant::now();
            for _ in 0..n {
                f(&mut bench);
            }
            started.elapsed().as_secs_f64() / f64::from(n) * 1e9
        };
        let legacy = time(&mut |b| drop(black_box(b.dispatch(LEGACY_CALL))));
        let modern = time(&mut |b| drop(black_box(b.dispatch(MODERN_CALL))));
        let exchange = time(&mut |b| drop(black_box(exchange(b))));
        rounds.push([legacy, modern, exchange]);
    }
    for (i, name) in [
        (1, "modern tools/call"),
        (2, "modern elicit exchange (2 rounds)"),
    ] {
        let mut ratios: Vec<(f64, f64, f64)> =
            rounds.iter().map(|r| (r[i] / r[0], r[i], r[0])).collect();
        ratios.sort_by(|a, b| a.0.total_cmp(&b.0));
        let (ratio, ns, call) = ratios[ratios.len() / 2];
        println!("input_ratio: {name} {ratio:.2}x legacy tools/call ({ns:.0} ns vs {call:.0} ns)");
    }
}

criterion_group!(benches, dispatch, input_ratios);
criterion_main!(benches);
