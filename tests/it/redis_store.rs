//! The Redis side of shared state, against a real Redis (`tests/redis/setup.sh`): every
//! seam it fills behaves as every implementation must (`server::sharing::suite`, the task
//! store's `task::suite` included), a task whose worker stops renewing
//! its lease fails, spent nonces and the bus work between two connections, and an
//! unreachable Redis is a clear error naming its URL.

use mcp_runtime::protocol::McpError;
use mcp_runtime::shared::{RedisError, RedisOptions, RedisState};
use mcp_runtime::task::{TaskLimits, TaskOptions, TaskRecord, TaskStatus, TaskStore, suite};
use mcp_tests::redis::Redis;
use std::time::Duration;

/// A prefix no other test uses, so each starts with an empty store.
fn prefix(name: &str) -> String {
    let mut bytes = [0u8; 6];
    getrandom::fill(&mut bytes).unwrap();
    let tag: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    format!("test-{name}-{tag}:")
}

async fn connect(redis: &Redis, options: RedisOptions) -> RedisState {
    RedisState::connect_with(&redis.url(), options)
        .await
        .expect("the test's Redis answers")
}

#[tokio::test]
async fn the_redis_task_store_behaves_as_every_store_must() {
    let redis = Redis::start();
    let state = connect(&redis, RedisOptions::new().prefix(prefix("suite"))).await;
    suite::check(&state.task_store()).await;

    let bounded = connect(
        &redis,
        RedisOptions::new()
            .prefix(prefix("bounds"))
            .task_limits(TaskLimits::new().max_tasks(5).max_per_owner(2)),
    )
    .await;
    suite::check_bounds(&bounded.task_store(), 5, 2).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_seam_on_redis_behaves_as_every_implementation_must() {
    use mcp_runtime::server::sharing::{Sharing, suite};
    let redis = Redis::start();
    let prefix = prefix("seams");
    let options = || RedisOptions::new().prefix(&prefix).share_result_cache(true);
    let one: Sharing = connect(&redis, options()).await.into();
    let two: Sharing = connect(&redis, options()).await.into();
    suite::check(&one, &two).await;
}

#[tokio::test]
async fn a_task_created_through_one_connection_is_seen_and_changed_through_another() {
    let redis = Redis::start();
    let prefix = prefix("two");
    let a = connect(&redis, RedisOptions::new().prefix(&prefix)).await;
    let b = connect(&redis, RedisOptions::new().prefix(&prefix)).await;
    let task = TaskRecord::new(
        "shared-task".into(),
        Some("alice".into()),
        "tool".into(),
        &TaskOptions::default(),
    );
    a.task_store().create(task).await.unwrap();
    let seen = b.task_store().get("shared-task").await.unwrap().unwrap();
    assert_eq!(seen.status, TaskStatus::Working);
    assert_eq!(seen.owner.as_deref(), Some("alice"));
    let cancelled = b.task_store().cancel("shared-task").await.unwrap();
    assert_eq!(cancelled.status, TaskStatus::Cancelled);
    assert_eq!(
        a.task_store()
            .get("shared-task")
            .await
            .unwrap()
            .unwrap()
            .status,
        TaskStatus::Cancelled
    );
}

#[tokio::test]
async fn a_task_whose_worker_stops_renewing_its_lease_fails_and_one_renewed_does_not() {
    let redis = Redis::start();
    let lease = Duration::from_millis(400);
    let state = connect(
        &redis,
        RedisOptions::new().prefix(prefix("lease")).lease(lease),
    )
    .await;
    let store = state.task_store();
    for id in ["abandoned", "renewed"] {
        store
            .create(TaskRecord::new(
                id.into(),
                None,
                "tool".into(),
                &TaskOptions::default(),
            ))
            .await
            .unwrap();
    }
    // Renewed four times a lease apart (each renewal well inside the lease), the other not.
    for _ in 0..4 {
        tokio::time::sleep(lease / 2).await;
        assert_eq!(
            store.renew("renewed").await.unwrap(),
            Some(TaskStatus::Working)
        );
    }
    let renewed = store.get("renewed").await.unwrap().unwrap();
    assert_eq!(renewed.status, TaskStatus::Working);
    let abandoned = store.get("abandoned").await.unwrap().unwrap();
    assert_eq!(abandoned.status, TaskStatus::Failed);
    let error: McpError = abandoned.error.expect("a failed task has its error");
    assert!(
        error.message.contains("lease"),
        "the error says why: {}",
        error.message
    );
    // Ended: a late result from a worker that comes back changes nothing.
    let late = serde_json::value::to_raw_value(&serde_json::json!({"content": []})).unwrap();
    assert!(
        !store
            .finish("abandoned", mcp_runtime::task::TaskEnd::Completed(late))
            .await
            .unwrap()
    );
}

#[tokio::test]
async fn a_result_too_large_for_the_store_fails_the_task_with_a_clear_error() {
    let redis = Redis::start();
    let state = connect(
        &redis,
        RedisOptions::new()
            .prefix(prefix("size"))
            .task_limits(TaskLimits::new().max_bytes(64 * 1024)),
    )
    .await;
    let store = state.task_store();
    store
        .create(TaskRecord::new(
            "big".into(),
            None,
            "tool".into(),
            &TaskOptions::default(),
        ))
        .await
        .unwrap();
    let text = "x".repeat(100 * 1024);
    let result = serde_json::value::to_raw_value(
        &serde_json::json!({"content": [{"type": "text", "text": text}]}),
    )
    .unwrap();
    store
        .finish("big", mcp_runtime::task::TaskEnd::Completed(result))
        .await
        .unwrap();
    let task = store.get("big").await.unwrap().unwrap();
    assert_eq!(task.status, TaskStatus::Failed);
    assert!(
        task.error
            .unwrap()
            .message
            .contains("larger than the task store keeps")
    );
}

#[tokio::test]
async fn an_unreachable_redis_is_an_error_naming_its_url_with_the_password_masked() {
    let mut redis = Redis::start();
    let port = redis.port;
    redis.stop();
    let url = format!("redis://:s3cret@127.0.0.1:{port}/");
    let started = std::time::Instant::now();
    let error = RedisState::connect_with(&url, RedisOptions::new().timeout(Duration::from_secs(1)))
        .await
        .expect_err("nothing listens there");
    assert!(matches!(error, RedisError::Unreachable { .. }), "{error:?}");
    let message = error.to_string();
    assert!(
        message.contains(&format!("redis://:***@127.0.0.1:{port}/")),
        "{message}"
    );
    assert!(!message.contains("s3cret"), "{message}");
    // Bounded (by the timeout, with room for a loaded machine), not a hang.
    assert!(started.elapsed() < Duration::from_secs(30));

    let error = RedisState::connect("http://example.com/")
        .await
        .unwrap_err();
    assert!(matches!(error, RedisError::InvalidUrl { .. }), "{error:?}");
}

/// A server with one resource, sharing state through `redis`.
fn sharing(redis: RedisState) -> mcp_runtime::Server {
    use mcp_runtime::protocol::ResourceDefinition;
    use mcp_runtime::resource::resource_fn;
    mcp_runtime::Server::builder("fleet", "1.0.0")
        .resource(resource_fn(
            ResourceDefinition::new("config://app", "config"),
            |_| async { "{}" },
        ))
        .share_through(redis)
        .build()
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_resource_update_on_one_server_reaches_a_listen_stream_on_another() {
    use mcp_runtime::client::{Client, EraMode};
    use serde_json::json;
    let redis = Redis::start();
    let prefix = prefix("updates");
    let a = sharing(connect(&redis, RedisOptions::new().prefix(&prefix)).await);
    let b = sharing(connect(&redis, RedisOptions::new().prefix(&prefix)).await);
    let client = Client::memory(&b);
    client.connect(EraMode::Modern).await.unwrap();
    let mut incoming = client.take_unrouted().unwrap();
    let listen = {
        let client = client.clone();
        tokio::spawn(async move {
            client
                .request(
                    "subscriptions/listen",
                    Some(json!({"notifications": {"resourceSubscriptions": ["config://app"]}})),
                )
                .await
        })
    };
    async fn next(
        incoming: &mut tokio::sync::mpsc::UnboundedReceiver<serde_json::Value>,
    ) -> serde_json::Value {
        tokio::time::timeout(Duration::from_secs(60), incoming.recv())
            .await
            .expect("a message within 60 s")
            .expect("open")
    }
    let ack = next(&mut incoming).await;
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    a.resources().updated("image://logo");
    a.resources().updated("config://app");
    let update = next(&mut incoming).await;
    assert_eq!(update["method"], "notifications/resources/updated");
    assert_eq!(
        update["params"]["uri"], "config://app",
        "only the subscribed URI"
    );
    listen.abort();
}

/// Counts its calls; at most 3 a minute per caller, fleet-wide when shared.
#[mcp_runtime::mcp_tool(rate_limit = "3/m")]
async fn limited() -> &'static str {
    "ok"
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rate_limit_is_one_budget_for_every_instance() {
    use mcp_runtime::client::{Client, EraMode};
    let redis = Redis::start();
    let prefix = prefix("rate");
    let servers = [
        mcp_runtime::Server::builder("fleet", "1.0.0")
            .tool(limited::tool())
            .share_through(connect(&redis, RedisOptions::new().prefix(&prefix)).await)
            .build()
            .unwrap(),
        mcp_runtime::Server::builder("fleet", "1.0.0")
            .tool(limited::tool())
            .share_through(connect(&redis, RedisOptions::new().prefix(&prefix)).await)
            .build()
            .unwrap(),
    ];
    let mut clients = Vec::new();
    for server in &servers {
        let client = Client::memory(server);
        client.connect(EraMode::Modern).await.unwrap();
        clients.push(client);
    }
    // Three calls alternate between the instances; the fourth, on either, is refused.
    let mut outcomes = Vec::new();
    for n in 0..4 {
        let result = clients[n % 2]
            .call_tool("limited", serde_json::json!({}))
            .await
            .unwrap();
        outcomes.push(result.is_error.unwrap_or(false));
    }
    assert_eq!(
        outcomes,
        [false, false, false, true],
        "one budget of 3 for both"
    );
    let refused = clients[0]
        .call_tool("limited", serde_json::json!({}))
        .await
        .unwrap();
    assert!(
        refused
            .first_text()
            .is_some_and(|t| t.contains("Rate limit") && t.contains("Retry in")),
        "{refused:?}"
    );
}

static RUNS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Counts how often it really runs; its results are cached for a minute.
#[mcp_runtime::mcp_tool(read_only, idempotent, cache = "60s")]
async fn lookup(key: String) -> String {
    RUNS.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    format!("value of {key}")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cached_result_is_shared_by_the_instances_when_asked() {
    use mcp_runtime::client::{Client, EraMode};
    use std::sync::atomic::Ordering;
    let redis = Redis::start();
    for share in [false, true] {
        let prefix = prefix("results");
        let mut clients = Vec::new();
        let mut servers = Vec::new();
        for _ in 0..2 {
            let state = connect(
                &redis,
                RedisOptions::new()
                    .prefix(&prefix)
                    .share_result_cache(share),
            )
            .await;
            let server = mcp_runtime::Server::builder("fleet", "1.0.0")
                .tool(lookup::tool())
                .share_through(state)
                .build()
                .unwrap();
            let client = Client::memory(&server);
            client.connect(EraMode::Modern).await.unwrap();
            clients.push(client);
            servers.push(server);
        }
        let before = RUNS.load(Ordering::SeqCst);
        for client in &clients {
            let result = client
                .call_tool("lookup", serde_json::json!({"key": format!("k-{share}")}))
                .await
                .unwrap();
            assert_eq!(
                result.first_text(),
                Some(format!("value of k-{share}").as_str())
            );
        }
        let runs = RUNS.load(Ordering::SeqCst) - before;
        assert_eq!(
            runs,
            if share { 1 } else { 2 },
            "share_result_cache({share}): the tool ran {runs} times for one call on each instance"
        );
    }
}

#[test]
fn a_server_sharing_state_is_built_outside_any_runtime_and_serves() {
    use mcp_runtime::client::{Client, EraMode};
    let redis = Redis::start();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let state = runtime.block_on(connect(
        &redis,
        RedisOptions::new().prefix(prefix("outside")),
    ));
    // Built on a plain thread, with no runtime: what listens to the bus runs on the one the
    // connection was made on.
    let server = std::thread::spawn(move || sharing(state)).join().unwrap();
    runtime.block_on(async {
        let client = Client::memory(&server);
        client.connect(EraMode::Modern).await.unwrap();
        let read = client.read_resource("config://app").await.unwrap();
        assert_eq!(read.contents.len(), 1);
    });
}
