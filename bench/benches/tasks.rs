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
use mcp_bench::task_lines::{TEXT, call, get};
use mcp_runtime::prelude::*;
use mcp_runtime::server::Connection;
use mcp_runtime::task::{MemoryTaskStore, TaskLimits, TaskOptions};
use mcp_runtime::transport::Peer;
use std::hint::black_box;
use std::time::{Duration, Instant};

/// Returns the given text, as a task when the client supports tasks.
#[mcp_tool(task = "optional")]
async fn echo(cx: RequestContext, text: String) -> String {
    cx.become_task().await;
    text
}

/// The string value of `"key":"…"` in an answer (a task id, a status: no escapes), found
/// with `memchr`'s searcher so that the harness weighs little beside the dispatch.
fn field<'a>(answer: &'a [u8], key: &memchr::memmem::Finder<'_>) -> Option<&'a [u8]> {
    let at = key.find(answer)? + key.needle().len();
    let len = memchr::memchr(b'"', &answer[at..])?;
    Some(&answer[at..at + len])
}

struct Bench {
    rt: tokio::runtime::Runtime,
    connection: Connection,
    rx: tokio::sync::mpsc::Receiver<Vec<u8>>,
    task_id: memchr::memmem::Finder<'static>,
    status: memchr::memmem::Finder<'static>,
}

impl Bench {
    fn new() -> Self {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        // Room for every task the rounds create; expired ones are swept as they go (a 1 s
        // TTL keeps some 100,000 live: ten times the default bound).
        let store = MemoryTaskStore::new(
            TaskLimits::new()
                .max_tasks(10_000_000)
                .max_bytes(usize::MAX / 2),
        );
        let server = Server::builder("bench", "1.0.0")
            .tool(echo::tool())
            .tasks(TaskOptions::new().ttl(Duration::from_secs(1)).store(store))
            .build()
            .expect("a valid server");
        let (tx, rx) = tokio::sync::mpsc::channel(16);
        let connection = rt.block_on(async { server.connect(Peer::new(tx)) });
        Self {
            rt,
            connection,
            rx,
            task_id: memchr::memmem::Finder::new(b"\"taskId\":\""),
            status: memchr::memmem::Finder::new(b"\"status\":\""),
        }
    }

    fn dispatch(&mut self, line: &[u8]) -> Vec<u8> {
        self.rt.block_on(self.connection.handle_line(line));
        self.rx.try_recv().expect("answered inline")
    }

    /// A synchronous call (what it answers is checked once, by `check`).
    fn sync_call(&mut self, line: &[u8]) -> Vec<u8> {
        self.dispatch(line)
    }

    /// A task: created, run, fetched until completed; the last `tasks/get` answer.
    fn task(&mut self, line: &[u8]) -> Vec<u8> {
        let handle = self.dispatch(line);
        let id = field(&handle, &self.task_id)
            .unwrap_or_else(|| panic!("a task handle: {}", String::from_utf8_lossy(&handle)));
        let get = get(std::str::from_utf8(id).unwrap());
        for _ in 0..1_000 {
            let got = self.dispatch(&get);
            if field(&got, &self.status) == Some(b"completed") {
                return got;
            }
            // Lets the task's run go on, on the runtime (here it never has to: a task that
            // does not wait runs to its end where it is created).
            self.rt.block_on(tokio::task::yield_now());
        }
        let got = self.dispatch(&get);
        panic!(
            "the task never completed: {}",
            String::from_utf8_lossy(&got)
        );
    }

    /// Both paths answer the text.
    fn check(&mut self, sync: &[u8], task: &[u8]) {
        for answer in [self.sync_call(sync), self.task(task)] {
            let answer = String::from_utf8(answer).unwrap();
            assert!(answer.contains(TEXT), "{answer}");
        }
    }
}

fn dispatch(c: &mut Criterion) {
    let mut bench = Bench::new();
    let sync = call(1, false);
    let task = call(2, true);
    bench.check(&sync, &task);
    c.bench_function("dispatch_call_sync", |b| {
        b.iter(|| black_box(bench.sync_call(&sync)))
    });
    c.bench_function("dispatch_task_to_completion", |b| {
        b.iter(|| black_box(bench.task(&task)))
    });
}

/// A task's dispatch as a multiple of the synchronous call's, interleaved in rounds (the
/// median round is printed).
fn task_ratio(_: &mut Criterion) {
    let mut bench = Bench::new();
    let (sync, task) = (call(1, false), call(2, true));
    bench.check(&sync, &task);
    let n = 20_000;
    let mut rounds = Vec::new();
    for _ in 0..5 {
        let started = Instant::now();
        for _ in 0..n {
            black_box(bench.sync_call(&sync));
        }
        let call_ns = started.elapsed().as_secs_f64() / f64::from(n) * 1e9;
        let started = Instant::now();
        for _ in 0..n {
            black_box(bench.task(&task));
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
