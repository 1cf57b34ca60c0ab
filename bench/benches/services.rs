//! The dangerous-tool services against doing it by hand:
//!
//! - `NetService::get` of a small page from a loopback origin (allowed with
//!   `NetPolicy::allow_origin`; every connection's address checked, the body read within the
//!   cap) against a plain `reqwest` GET of the same page, both over pooled keep-alive
//!   connections. Target: within 1.2×.
//! - `CommandService::run` of `true` (program resolved at start, arguments judged, working
//!   directory opened through the `FileService`, cleared environment, `pre_exec` limits,
//!   process group, output read) against `std::process::Command::new("true").output()`.
//!   Target: within 1.5×.
//!
//! Before criterion's runs it prints each ratio, measured interleaved (9 rounds, the median
//! of the per-round ratios), so machine noise hits both sides alike.

use criterion::{Criterion, criterion_group, criterion_main};
use http_body_util::Full;
use hyper::body::Bytes;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use mcp_runtime::command::{CommandPolicy, CommandRequest, CommandService, Program};
use mcp_runtime::fs::{FileService, FsPolicy};
use mcp_runtime::net::{NetPolicy, NetService};
use std::convert::Infallible;
use std::hint::black_box;
use std::time::{Duration, Instant};

const PAGE: &str = "<!doctype html><html><body><h1>Hello</h1><p>A small page.</p></body></html>";

/// A keep-alive HTTP/1.1 server on 127.0.0.1 answering every request with `PAGE`.
async fn page_server() -> u16 {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        while let Ok((conn, _)) = listener.accept().await {
            conn.set_nodelay(true).unwrap();
            tokio::spawn(async move {
                let service = service_fn(|_req| async {
                    Ok::<_, Infallible>(hyper::Response::new(Full::new(Bytes::from_static(
                        PAGE.as_bytes(),
                    ))))
                });
                let _ = http1::Builder::new()
                    .serve_connection(TokioIo::new(conn), service)
                    .await;
            });
        }
    });
    port
}

/// The median of per-round ratios `a / b`, `rounds` rounds of `n` runs each, interleaved.
fn interleaved(rounds: usize, n: u32, mut a: impl FnMut(), mut b: impl FnMut()) -> f64 {
    let mut ratios = Vec::with_capacity(rounds);
    for _ in 0..rounds {
        let start = Instant::now();
        for _ in 0..n {
            a();
        }
        let ta = start.elapsed();
        let start = Instant::now();
        for _ in 0..n {
            b();
        }
        let tb = start.elapsed();
        ratios.push(ta.as_secs_f64() / tb.as_secs_f64());
    }
    ratios.sort_by(f64::total_cmp);
    ratios[rounds / 2]
}

fn fetch(c: &mut Criterion) {
    // Without it, building the plain reqwest client panics (see `Cargo.toml`).
    let _ = rustls::crypto::ring::default_provider().install_default();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let port = rt.block_on(page_server());
    let url = format!("http://127.0.0.1:{port}/page");
    let net = NetService::new(
        NetPolicy::new()
            .allow_origin(format!("http://127.0.0.1:{port}"))
            .unwrap(),
    )
    .unwrap();
    let plain = reqwest::Client::builder().no_proxy().build().unwrap();
    let ours = || {
        let page = rt.block_on(net.get(&url)).unwrap();
        assert_eq!(page.body().len(), PAGE.len());
    };
    let theirs = || {
        let page = rt
            .block_on(async { plain.get(&url).send().await?.bytes().await })
            .unwrap();
        assert_eq!(page.len(), PAGE.len());
    };
    let ratio = interleaved(9, 500, ours, theirs);
    eprintln!("services: NetService::get is {ratio:.2}× a plain reqwest GET (target ≤ 1.2×)");

    let mut group = c.benchmark_group("services");
    group.measurement_time(Duration::from_secs(5));
    group.bench_function("fetch/net_service", |b| {
        b.iter(|| black_box(rt.block_on(net.get(&url)).unwrap()))
    });
    group.bench_function("fetch/reqwest", |b| {
        b.iter(|| {
            black_box(
                rt.block_on(async { plain.get(&url).send().await?.bytes().await })
                    .unwrap(),
            )
        })
    });
    group.finish();
}

fn spawn(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let files = FileService::new(FsPolicy::new().allow_dir(dir.path())).unwrap();
    let run = CommandService::new(CommandPolicy::new().allow(Program::new("true")), files).unwrap();
    let ours = || {
        let out = rt
            .block_on(run.run(CommandRequest::new("true", Vec::<String>::new())))
            .unwrap();
        assert!(out.success());
    };
    let theirs = || {
        let out = std::process::Command::new("true").output().unwrap();
        assert!(out.status.success());
    };
    let ratio = interleaved(9, 100, ours, theirs);
    eprintln!(
        "services: CommandService::run of `true` is {ratio:.2}× std's Command::output() (target ≤ 1.5×)"
    );

    let mut group = c.benchmark_group("services");
    group.measurement_time(Duration::from_secs(5));
    group.bench_function("spawn/command_service", |b| {
        b.iter(|| {
            black_box(
                rt.block_on(run.run(CommandRequest::new("true", Vec::<String>::new())))
                    .unwrap(),
            )
        })
    });
    group.bench_function("spawn/std_command_output", |b| {
        b.iter(|| black_box(std::process::Command::new("true").output().unwrap()))
    });
    group.finish();
}

criterion_group!(benches, fetch, spawn);
criterion_main!(benches);
