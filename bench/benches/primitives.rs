//! The other primitives' dispatch beside the tools path, each request and answer about the
//! size of a `tools/call` of `echo` with 64 bytes of text: a `resources/read` of a fixed
//! resource answering those 64 bytes; a templated read whose URI carries them (and whose
//! answer repeats the URI, as reads do, with a short text); and a `prompts/get` whose
//! argument is the text, answered as one user message. Measured through the whole
//! dispatcher like `dispatch_call` in `hot_path`; `primitive_ratios` prints each as a
//! multiple of the `tools/call` measured in the same run, interleaved (target: at most
//! 1.5×).

use criterion::{Criterion, criterion_group, criterion_main};
use mcp_bench::InProcess;
use mcp_runtime::prelude::*;
use mcp_runtime::prompt::prompt_fn;
use mcp_runtime::protocol::{
    PromptArgument, PromptDefinition, ResourceDefinition, ResourceTemplateDefinition,
};
use mcp_runtime::resource::{resource_fn, template_fn};
use std::hint::black_box;
use std::time::Instant;

/// The text every request answers: 64 bytes.
const TEXT: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

const CALL: &[u8] = br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"}}}"#;
const READ: &[u8] =
    br#"{"jsonrpc":"2.0","id":7,"method":"resources/read","params":{"uri":"bench://text"}}"#;
const READ_TEMPLATE: &[u8] = br#"{"jsonrpc":"2.0","id":7,"method":"resources/read","params":{"uri":"bench://echo/0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"}}"#;
const GET: &[u8] = br#"{"jsonrpc":"2.0","id":7,"method":"prompts/get","params":{"name":"echo","arguments":{"text":"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"}}}"#;

/// Returns the given text unchanged.
#[mcp_tool]
async fn echo(text: String) -> String {
    text
}

fn server() -> Server {
    Server::builder("bench", "1.0.0")
        .tool(echo::tool())
        .resource(resource_fn(
            ResourceDefinition::new("bench://text", "text"),
            |_| async { TEXT },
        ))
        .resource_template(template_fn(
            ResourceTemplateDefinition::new("bench://echo/{text}", "echo"),
            |vars, _| async move {
                assert_eq!(vars.get("text"), Some(TEXT));
                "ok"
            },
        ))
        .prompt(prompt_fn(
            PromptDefinition::new("echo", "Repeats the text as a user message.")
                .with_argument(PromptArgument::required("text", "The text")),
            |mut args, _| async move { args.remove("text").unwrap_or_default() },
        ))
        .build()
        .expect("a valid server")
}

fn dispatch(c: &mut Criterion) {
    let mut bench = InProcess::new(server());
    for (name, line) in [
        ("dispatch_call_echo", CALL),
        ("dispatch_read", READ),
        ("dispatch_read_template", READ_TEMPLATE),
        ("dispatch_prompt_get", GET),
    ] {
        let answer = String::from_utf8(bench.dispatch(line)).expect("UTF-8");
        assert!(
            answer.contains(TEXT) && !answer.contains("error"),
            "{name}: {answer}"
        );
        c.bench_function(name, |b| b.iter(|| black_box(bench.dispatch(line))));
    }
}

/// Each primitive's dispatch as a multiple of `tools/call`'s, timed interleaved in rounds
/// (the median round is printed), so a noisy machine moves both sides alike.
fn primitive_ratios(_: &mut Criterion) {
    let mut bench = InProcess::new(server());
    let n = 100_000;
    let mut time = |line: &[u8]| {
        let started = Instant::now();
        for _ in 0..n {
            black_box(bench.dispatch(line));
        }
        started.elapsed().as_secs_f64() / f64::from(n) * 1e9
    };
    let mut rounds = Vec::new();
    for _ in 0..5 {
        let call = time(CALL);
        rounds.push([call, time(READ), time(READ_TEMPLATE), time(GET)]);
    }
    for (i, name) in [
        (1, "resources/read"),
        (2, "resources/read (template)"),
        (3, "prompts/get"),
    ] {
        let mut ratios: Vec<(f64, f64, f64)> =
            rounds.iter().map(|r| (r[i] / r[0], r[i], r[0])).collect();
        ratios.sort_by(|a, b| a.0.total_cmp(&b.0));
        let (ratio, ns, call) = ratios[ratios.len() / 2];
        println!("primitive_ratio: {name} {ratio:.2}x tools/call ({ns:.0} ns vs {call:.0} ns)");
    }
}

criterion_group!(benches, dispatch, primitive_ratios);
criterion_main!(benches);
