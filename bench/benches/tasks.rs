//! Tasks (the 2026-07-28 tasks extension) beside the tools path:
//!
//! - `task_ratio`: the dispatch CPU of a task created and fetched to completion (the
//!   `tools/call` that creates it, its run on the runtime, and the `tasks/get` that finds it
//!   completed with its result) as a multiple of a synchronous `tools/call` of the same tool
//!   (a client without the extension), timed interleaved in rounds (target: at most 3×);
//!
//! The memory side is `task_memory` (its own binary: it counts the heap with `dhat`, whose
//! allocator would skew these timings).

use criterion::{Criterion, criterion_group, criterion_main};
use mcp_runtime::prelude::*;
use mcp_runtime::server::Connection;
use mcp_runtime::task::{MemoryTaskStore, TaskLimits, TaskOptions};
use mcp_runtime::transport::Peer;
use serde_json::{Value, json};
use std::time::{Duration, Instant};

const TEXT: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

/// Returns the given text, as a task when the client supports tasks.
#[mcp_tool(task = "optional")]
async fn echo(cx: RequestContext, text: String) -> String {
    cx.become_task().await;
    text
}

fn call(id: u64, tasks: bool) -> Vec<u8> {
    let capabilities = if tasks {
        json!({"extensions": {"io.modelcontextprotocol/tasks": {}}})
    } else {
        json!({})
    };
    serde_json::to_vec(&json!({
        "jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {
            "name": "echo", "arguments": {"text": TEXT},
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": capabilities
            }
        }
    }))
    .unwrap()
}

fn get(id: u64, task: &str) -> Vec<u8> {
    serde_json::to_vec(&json!({
        "jsonrpc": "2.0", "id": id, "method": "tasks/get",
        "params": {
            "taskId": task,
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities":
                    {"extensions": {"io.modelcontextprotocol/tasks": {}}}
            }
        }
    }))
    .unwrap()
}

struct Bench {
    rt: tokio::runtime::Runtime,
    connection: Connection,
    rx: tokio::sync::mpsc::Receiver<Vec<u8>>,
}

impl Bench {
    fn new() -> Self {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        // Room for every task the rounds create; expired ones are swept as they go.
        let store = MemoryTaskStore::new(
            TaskLimits::new()
                .max_tasks(10_000_000)
                .max_bytes(usize::MAX / 2),
        );
        let server = Server::builder("bench", "1.0.0")
            .tool(echo::tool())
            .tasks(TaskOptions::new().ttl(Duration::from_secs(2)).store(store))
            .build()
            .expect("a valid server");
        let (tx, rx) = tokio::sync::mpsc::channel(16);
        let connection = rt.block_on(async { server.connect(Peer::new(tx)) });
        Self { rt, connection, rx }
    }

    fn dispatch(&mut self, line: &[u8]) -> Value {
        self.rt.block_on(self.connection.handle_line(line));
        serde_json::from_slice(&self.rx.try_recv().expect("answered inline")).unwrap()
    }

    /// A synchronous call.
    fn sync_call(&mut self, line: &[u8]) {
        let answer = self.dispatch(line);
        assert_eq!(answer["result"]["content"][0]["text"], TEXT, "{answer}");
    }

    /// A task: created, run, fetched until completed.
    fn task(&mut self, line: &[u8], get: impl Fn(&str) -> Vec<u8>) {
        let handle = self.dispatch(line);
        let id = handle["result"]["taskId"]
            .as_str()
            .unwrap_or_else(|| panic!("a task handle: {handle}"))
            .to_owned();
        loop {
            // Lets the task's run finish on the runtime.
            self.rt.block_on(tokio::task::yield_now());
            let got = self.dispatch(&get(&id));
            if got["result"]["status"] == "completed" {
                assert_eq!(got["result"]["result"]["content"][0]["text"], TEXT, "{got}");
                return;
            }
        }
    }
}

fn dispatch(c: &mut Criterion) {
    let mut bench = Bench::new();
    let sync = call(1, false);
    let task = call(2, true);
    c.bench_function("dispatch_call_sync", |b| b.iter(|| bench.sync_call(&sync)));
    c.bench_function("dispatch_task_to_completion", |b| {
        b.iter(|| bench.task(&task, |id| get(3, id)))
    });
}

/// A task's dispatch as a multiple of the synchronous call's, interleaved in rounds (the
/// median round is printed).
fn task_ratio(_: &mut Criterion) {
    let mut bench = Bench::new();
    let (sync, task) = (call(1, false), call(2, true));
    let n = 20_000;
    let mut rounds = Vec::new();
    for _ in 0..5 {
        let started = Instant::now();
        for _ in 0..n {
            bench.sync_call(&sync);
        }
        let call_ns = started.elapsed().as_secs_f64() / f64::from(n) * 1e9;
        let started = Instant::now();
        for _ in 0..n {
            bench.task(&task, |id| get(3, id));
        }
        let task_ns = started.elapsed().as_secs_f64() / f64::from(n) * 1e9;
        rounds.push((task_ns / call_ns, task_ns, call_ns));
    }
    rounds.sort_by(|a, b| a.0.total_cmp(&b.0));
    let (ratio, task_ns, call_ns) = rounds[rounds.len() / 2];
    println!(
        "task_ratio: a task created and fetched to completion {ratio:.2}x a synchronous tools/call ({task_ns:.0} ns vs {call_ns:.0} ns)"
    );
}

criterion_group!(benches, dispatch, task_ratio);
criterion_main!(benches);
