//! State shared through Redis (the `redis` feature), against a real `redis-server` on
//! loopback (Debian's, started as the tests start it; `tests/redis/setup.sh`):
//!
//! - `redis_stateless_ratio`: a stateless modern `tools/call` on a server that shares its
//!   state through Redis, as a multiple of the same call on the same server without it,
//!   interleaved in rounds (target: at most 1.05×: nothing on that path touches Redis);
//! - `redis_task_roundtrip`: a task created and fetched to completion through Redis (the
//!   `tools/call` that creates it, its run, the `tasks/get`s until it is completed), wall
//!   time per task, median of rounds (target: under 2 ms on loopback).
//!
//! Redis commands per path: a stateless call, none; a task, one `EVALSHA` to create it,
//! one to record its end, one per `tasks/get` (plus a lease renewal per `store_poll` while
//! it runs, and a `PUBLISH` for a cancellation or an answer).

use criterion::{Criterion, criterion_group, criterion_main};
use mcp_bench::task_lines::{TEXT, call, get};
use mcp_runtime::prelude::*;
use mcp_runtime::server::Connection;
use mcp_runtime::shared::{RedisOptions, RedisState};
use mcp_runtime::transport::Peer;
use mcp_tests::redis::Redis;
use std::hint::black_box;
use std::time::{Duration, Instant};

/// Returns the given text, as a task when the client supports tasks.
#[mcp_tool(task = "optional")]
async fn echo(cx: RequestContext, text: String) -> String {
    cx.become_task().await;
    text
}

/// The string value of `"key":"…"` in an answer.
fn field<'a>(answer: &'a [u8], key: &str) -> Option<&'a [u8]> {
    let needle = format!("\"{key}\":\"");
    let at = memchr::memmem::find(answer, needle.as_bytes())? + needle.len();
    let len = memchr::memchr(b'"', &answer[at..])?;
    Some(&answer[at..at + len])
}

struct Endpoint {
    connection: Connection,
    rx: tokio::sync::mpsc::Receiver<Vec<u8>>,
}

impl Endpoint {
    fn new(rt: &tokio::runtime::Runtime, redis: Option<RedisState>) -> Self {
        let mut builder = Server::builder("bench", "1.0.0").tool(echo::tool());
        if let Some(redis) = redis {
            builder = builder.share_through(redis);
        }
        let (tx, rx) = tokio::sync::mpsc::channel(16);
        let connection = rt.block_on(async { builder.build().unwrap().connect(Peer::new(tx)) });
        Self { connection, rx }
    }

    async fn dispatch(&mut self, line: &[u8]) -> Vec<u8> {
        self.connection.handle_line(line).await;
        self.rx.recv().await.expect("answered")
    }

    /// A task through the store: created, fetched until completed; the last answer.
    async fn task(&mut self, line: &[u8]) -> Vec<u8> {
        let handle = self.dispatch(line).await;
        let id = field(&handle, "taskId")
            .unwrap_or_else(|| panic!("a task handle: {}", String::from_utf8_lossy(&handle)));
        let get = get(std::str::from_utf8(id).unwrap());
        loop {
            let got = self.dispatch(&get).await;
            if field(&got, "status") == Some(b"completed") {
                return got;
            }
            tokio::task::yield_now().await;
        }
    }
}

fn setup() -> (Redis, tokio::runtime::Runtime, RedisState) {
    let redis = Redis::start();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let state = rt
        .block_on(RedisState::connect_with(
            &redis.url(),
            RedisOptions::new().prefix("bench:"),
        ))
        .expect("the bench's Redis answers");
    (redis, rt, state)
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn redis_stateless_ratio(_: &mut Criterion) {
    let (_redis, rt, state) = setup();
    let mut plain = Endpoint::new(&rt, None);
    let mut shared = Endpoint::new(&rt, Some(state));
    let line = call(1, false);
    for endpoint in [&mut plain, &mut shared] {
        let answer = rt.block_on(endpoint.dispatch(&line));
        assert!(String::from_utf8_lossy(&answer).contains(TEXT));
    }
    let n = 20_000;
    let mut ratios = Vec::new();
    for _ in 0..9 {
        let time = |endpoint: &mut Endpoint| {
            let started = Instant::now();
            rt.block_on(async {
                for _ in 0..n {
                    black_box(endpoint.dispatch(&line).await);
                }
            });
            started.elapsed().as_secs_f64() / f64::from(n) * 1e9
        };
        let (a, b) = (time(&mut plain), time(&mut shared));
        ratios.push(b / a);
    }
    println!(
        "redis_stateless_ratio: a stateless tools/call on a server sharing state through Redis {:.3}x the same call without it (median of 9 interleaved rounds)",
        median(ratios)
    );
}

fn redis_task_roundtrip(_: &mut Criterion) {
    let (_redis, rt, state) = setup();
    let mut shared = Endpoint::new(&rt, Some(state));
    let line = call(2, true);
    let answer = rt.block_on(shared.task(&line));
    assert!(String::from_utf8_lossy(&answer).contains(TEXT));
    let n = 500;
    let mut rounds = Vec::new();
    for _ in 0..5 {
        let started = Instant::now();
        rt.block_on(async {
            for _ in 0..n {
                black_box(shared.task(&line).await);
            }
        });
        rounds.push(started.elapsed().as_secs_f64() / f64::from(n));
    }
    let per_task = Duration::from_secs_f64(median(rounds));
    println!(
        "redis_task_roundtrip: a task created and fetched to completion through Redis in {per_task:?} (median of 5 rounds of {n}; target < 2 ms)"
    );
}

criterion_group!(benches, redis_stateless_ratio, redis_task_roundtrip);
criterion_main!(benches);
