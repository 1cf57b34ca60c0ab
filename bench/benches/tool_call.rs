//! The cost of one `tools/call` through the `#[mcp_tool]` path versus a hand-written `Tool`
//! impl: the tool alone (argument decoding + the call + result conversion), and the whole
//! dispatch of a JSON-RPC line (decode, era classification, validation, call, encoding).

use criterion::{Criterion, criterion_group, criterion_main};
use futures::FutureExt as _;
use mcp_bench::{HandAdd, HandSerdeAdd, add, server_with};
use mcp_runtime::prelude::*;
use mcp_runtime::transport::Peer;
use serde_json::json;
use std::hint::black_box;

fn tool_only(c: &mut Criterion) {
    let args = json!({"a": 2.5, "b": 4.0});
    let args = args.as_object().expect("object").clone();
    let mut group = c.benchmark_group("tool_call");
    for (name, tool) in [
        ("macro", Box::new(add::tool()) as Box<dyn Tool>),
        ("hand_written", Box::new(HandAdd)),
        ("hand_serde", Box::new(HandSerdeAdd)),
    ] {
        group.bench_function(name, |b| {
            b.iter(|| {
                let out = tool
                    .call(black_box(args.clone()), RequestContext::detached())
                    .now_or_never();
                black_box(out)
            })
        });
    }
    group.finish();
}

fn dispatch(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let line = br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"add","arguments":{"a":2.5,"b":4}}}"#;
    let mut group = c.benchmark_group("dispatch_tools_call");
    for (name, server) in [
        ("macro", server_with(add::tool())),
        ("hand_written", server_with(HandAdd)),
        ("hand_serde", server_with(HandSerdeAdd)),
    ] {
        let (tx, mut rx) = tokio::sync::mpsc::channel(16);
        let connection = rt.block_on(async { server.connect(Peer::new(tx)) });
        group.bench_function(name, |b| {
            b.iter(|| {
                rt.block_on(connection.handle_line(black_box(line)));
                black_box(rx.try_recv().expect("answered inline"))
            })
        });
    }
    group.finish();
}

criterion_group!(benches, tool_only, dispatch);
criterion_main!(benches);
