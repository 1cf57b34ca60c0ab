//! The stages of one call on the server's hot path, measured apart: message decode, params
//! and envelope parsing (era classification), argument validation, result encoding, and the
//! whole dispatch of `tools/call` and `tools/list` (the latter served from its cached page),
//! and of a `tools/call` answered from the result cache (`dispatch_call_cached`).
//! `validation_share` prints argument validation as a share of a call's dispatch.

use criterion::{Criterion, criterion_group, criterion_main};
use mcp_bench::{add, cached_add, server_with};
use mcp_runtime::protocol::jsonrpc::{decode, encode_result};
use mcp_runtime::protocol::{CallToolParams, CallToolResult, RequestId};
use mcp_runtime::tool::schema;
use mcp_runtime::transport::Peer;
use serde_json::json;
use std::hint::black_box;
use std::time::Instant;

const CALL: &[u8] = br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"add","arguments":{"a":2.5,"b":4}}}"#;
const MODERN_CALL: &[u8] = br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"add","arguments":{"a":2.5,"b":4},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
const LIST: &[u8] = br#"{"jsonrpc":"2.0","id":8,"method":"tools/list"}"#;
const CACHED_CALL: &[u8] = br#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"cached_add","arguments":{"a":2.5,"b":4}}}"#;

fn stages(c: &mut Criterion) {
    c.bench_function("decode", |b| {
        b.iter(|| black_box(decode(black_box(CALL)).is_ok()))
    });

    let raw = match decode(MODERN_CALL) {
        Ok(mcp_runtime::protocol::jsonrpc::Message::Request {
            params: Some(p), ..
        }) => p.get().to_owned(),
        _ => unreachable!("a request with params"),
    };
    c.bench_function("params_and_envelope", |b| {
        b.iter(|| black_box(serde_json::from_str::<CallToolParams>(black_box(&raw)).is_ok()))
    });

    let input = mcp_runtime::tool::Tool::definition(&add::tool()).input_schema;
    let validator = schema::compile(&serde_json::Value::Object(input)).expect("compiles");
    let args = json!({"a": 2.5, "b": 4});
    c.bench_function("validate_arguments", |b| {
        b.iter(|| black_box(validator.is_valid(black_box(&args))))
    });

    let result = CallToolResult::text("6.5");
    let id = RequestId::Number(7);
    c.bench_function("encode_result", |b| {
        b.iter(|| black_box(encode_result(&id, black_box(&result))))
    });
}

fn dispatch(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let server = server_with(add::tool());
    let cached = server_with(cached_add::tool());
    for (name, server, line) in [
        ("dispatch_call", &server, CALL),
        ("dispatch_call_modern", &server, MODERN_CALL),
        ("dispatch_list", &server, LIST),
        // Every iteration after the first is a cache hit: for a tool as cheap as `add` this
        // measures the cache's own cost (key, lookup, clone), not a saving.
        ("dispatch_call_cached", &cached, CACHED_CALL),
    ] {
        let (tx, mut rx) = tokio::sync::mpsc::channel(16);
        let connection = rt.block_on(async { server.connect(Peer::new(tx)) });
        c.bench_function(name, |b| {
            b.iter(|| {
                rt.block_on(connection.handle_line(black_box(line)));
                black_box(rx.try_recv().expect("answered inline"))
            })
        });
    }
}

/// Argument validation as a share of one dispatched call (target: at most 10%).
fn validation_share(_: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let server = server_with(add::tool());
    let (tx, mut rx) = tokio::sync::mpsc::channel(16);
    let connection = rt.block_on(async { server.connect(Peer::new(tx)) });
    let input = mcp_runtime::tool::Tool::definition(&add::tool()).input_schema;
    let validator = schema::compile(&serde_json::Value::Object(input)).expect("compiles");
    let args = json!({"a": 2.5, "b": 4});
    let n = 200_000;
    let time = |f: &mut dyn FnMut()| {
        let started = Instant::now();
        for _ in 0..n {
            f();
        }
        started.elapsed().as_secs_f64() / f64::from(n) * 1e9
    };
    let mut shares = Vec::new();
    for _ in 0..5 {
        let call = time(&mut || {
            rt.block_on(connection.handle_line(black_box(CALL)));
            black_box(rx.try_recv().ok());
        });
        let validate = time(&mut || {
            black_box(validator.is_valid(black_box(&args)));
        });
        shares.push((validate / call, validate, call));
    }
    shares.sort_by(|a, b| a.0.total_cmp(&b.0));
    let (share, validate, call) = shares[shares.len() / 2];
    println!(
        "validation_share: {:.1}% ({validate:.0} ns of {call:.0} ns per call)",
        share * 100.0
    );
}

criterion_group!(benches, stages, dispatch, validation_share);
criterion_main!(benches);
