//! Three instances sharing one Redis behind nginx with plain round robin (no affinity; the
//! config `http_scale` uses, the one the README shows), in both legacy modes:
//!
//! - the official TypeScript and Python clients, in both eras, each run through its whole
//!   interop script (tools, resources, prompts, elicitation, sampling and roots answered by
//!   its handlers) and then 125 more calls: 1,000 calls over the two modes, zero errors, and
//!   every instance serving. In sessionful mode a legacy client's session is opened on one
//!   instance and used on all three, its answers to the server's asks routed back to the
//!   instance whose call asked;
//! - the official conformance suites (0.1.16 `--suite all`; 0.2.0-alpha.12 `--suite all`
//!   and `--requirements 2026-07-28`) pass exactly as against one instance.

use crate::http_conformance::{legacy_suite_at, next_suite_at};
use crate::http_scale::start_nginx;
use crate::interop::{Sdk, run_script};
use mcp_tests::http::Spawned;
use mcp_tests::redis::Redis;

/// Calls each client run makes beyond its script.
const CALLS: usize = 125;

struct Fleet {
    _redis: Redis,
    instances: Vec<Spawned>,
    nginx: crate::http_scale::Nginx,
}

async fn fleet(bin: &str, legacy_mode: &str) -> Fleet {
    let redis = Redis::start();
    let url = redis.url();
    let instances: Vec<Spawned> = (0..3)
        .map(|_| Spawned::start(bin, &["--redis", &url, "--legacy-mode", legacy_mode]))
        .collect();
    let upstreams: Vec<String> = instances.iter().map(Spawned::authority).collect();
    let nginx = start_nginx(&upstreams).await;
    Fleet {
        _redis: redis,
        instances,
        nginx,
    }
}

/// Audited requests an instance served so far.
fn served(instance: &Spawned) -> usize {
    instance
        .stderr()
        .lines()
        .filter(|l| l.contains("mcp::audit") && l.contains("request id="))
        .count()
}

async fn clients_through(legacy_mode: &str) {
    let fleet = fleet("echo-server", legacy_mode).await;
    let url = fleet.nginx.url.clone();
    let calls = CALLS.to_string();
    let runs = [
        (Sdk::Ts, "legacy"),
        (Sdk::Ts, "modern"),
        (Sdk::Python, "legacy"),
        (Sdk::Python, "2026-07-28"),
    ];
    for (sdk, mode) in runs {
        let (url, calls) = (url.clone(), calls.clone());
        let summary = tokio::task::spawn_blocking(move || {
            run_script(
                sdk,
                mode,
                &[
                    "--url".as_ref(),
                    url.as_ref(),
                    "--calls".as_ref(),
                    calls.as_ref(),
                ],
            )
        })
        .await
        .unwrap();
        assert_eq!(
            summary["calls"], CALLS,
            "{legacy_mode} {sdk:?} {mode}: {summary}"
        );
        if matches!(sdk, Sdk::Ts) && mode == "legacy" {
            assert_eq!(
                summary["sessionId"],
                legacy_mode == "sessionful",
                "{legacy_mode}: {summary}"
            );
        }
    }
    for (n, instance) in fleet.instances.iter().enumerate() {
        assert!(
            served(instance) > 100,
            "{legacy_mode}: instance {n} served {} requests; round robin should spread them",
            served(instance)
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_official_clients_run_through_three_instances_sessionful() {
    clients_through("sessionful").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_official_clients_run_through_three_instances_stateless() {
    clients_through("stateless").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_conformance_suites_pass_through_three_instances_as_through_one() {
    let sessionful = fleet("conformance-server", "sessionful").await;
    let url = sessionful.nginx.url.clone();
    tokio::task::spawn_blocking(move || {
        legacy_suite_at("three instances, sessionful", &url);
        next_suite_at(
            "three instances, sessionful",
            &url,
            &["--suite", "all"],
            &[],
        );
        next_suite_at(
            "three instances, sessionful",
            &url,
            &["--requirements", "2026-07-28"],
            &[],
        );
    })
    .await
    .unwrap();
    drop(sessionful);
    let stateless = fleet("conformance-server", "stateless").await;
    let url = stateless.nginx.url.clone();
    tokio::task::spawn_blocking(move || {
        legacy_suite_at("three instances, stateless", &url);
        next_suite_at(
            "three instances, stateless",
            &url,
            &["--suite", "all"],
            &["server-sse-multiple-streams", "server-sse-polling"],
        );
    })
    .await
    .unwrap();
}
