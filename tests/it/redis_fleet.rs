//! Instances of `conformance-server` sharing one Redis (`--redis URL`), each request sent
//! to the instance the test chooses, so that every step provably crosses instances: a task
//! created on one is polled on a second and cancelled from a third; round 2 of an
//! `input_required` call is answered by another instance and its replay refused by a third;
//! a list change raised on one reaches a listen stream held by another; an instance killed
//! while running a task leaves it `failed` once its lease runs out; Redis restarted under
//! load costs only what needed it meanwhile.

use mcp_runtime::client::{Client, EraMode};
use mcp_runtime::protocol::task::TaskStatus;
use mcp_tests::http::{
    ACCEPT_BOTH, Spawned, SseReader, modern, open, open_modern, post, post_modern,
};
use mcp_tests::redis::Redis;
use serde_json::{Value, json};
use std::time::{Duration, Instant};

/// How long any one step may take before the test fails (generous: a loaded machine).
const WAIT: Duration = Duration::from_secs(60);

fn instance(redis: &Redis) -> Spawned {
    Spawned::start("conformance-server", &["--redis", &redis.url()])
}

async fn task_client(url: &str) -> Client {
    let client = Client::http(url).unwrap().with_tasks(true);
    client.connect(EraMode::Modern).await.unwrap();
    client
}

/// Starts `slow_compute` for `seconds` through `client`: the task's id.
async fn start_task(client: &Client, seconds: u32) -> String {
    let created = client
        .request(
            "tools/call",
            Some(json!({"name": "slow_compute", "arguments": {"seconds": seconds}})),
        )
        .await
        .unwrap();
    assert_eq!(created["resultType"], "task", "{created}");
    created["taskId"].as_str().unwrap().to_owned()
}

async fn wait_for_status(client: &Client, id: &str, wanted: TaskStatus) -> Value {
    let deadline = Instant::now() + WAIT;
    loop {
        let task = client.get_task(id).await.unwrap();
        if task.task.status == wanted {
            return serde_json::to_value(&task).unwrap();
        }
        assert!(
            Instant::now() < deadline,
            "task {id} is {:?}, not {wanted:?}",
            task.task.status
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_created_on_one_instance_is_polled_on_a_second_and_cancelled_from_a_third() {
    let redis = Redis::start();
    let (a, b, c) = (instance(&redis), instance(&redis), instance(&redis));
    let (on_a, on_b, on_c) = (
        task_client(&a.url).await,
        task_client(&b.url).await,
        task_client(&c.url).await,
    );

    let id = start_task(&on_a, 600).await;
    let seen = on_b.get_task(&id).await.unwrap();
    assert_eq!(seen.task.status, TaskStatus::Working);
    on_c.cancel_task(&id).await.unwrap();
    assert_eq!(
        on_b.get_task(&id).await.unwrap().task.status,
        TaskStatus::Cancelled
    );
    // The worker on A is stopped (told through the bus): its audit records the call
    // cancelled, long before the 600 s it would run.
    let deadline = Instant::now() + WAIT;
    while !a
        .stderr()
        .lines()
        .any(|l| l.contains("slow_compute") && l.contains("cancelled"))
    {
        assert!(
            Instant::now() < deadline,
            "A's worker was not stopped; A's log:\n{}",
            a.stderr()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }

    // A task that runs to its end on A is fetched, with its result, from C.
    let created = on_a
        .request(
            "tools/call",
            Some(json!({"name": "slow_compute", "arguments": {"seconds": 0.5, "label": "pi"}})),
        )
        .await
        .unwrap();
    let id = created["taskId"].as_str().unwrap();
    let done = wait_for_status(&on_c, id, TaskStatus::Completed).await;
    assert_eq!(
        done["result"]["content"][0]["text"], "Computed pi after 0.5 second(s)",
        "{done}"
    );
    // Unknown on every instance alike.
    for client in [&on_a, &on_b, &on_c] {
        let error = client.get_task("0123456789abcdef0123456789abcdef").await;
        assert!(error.is_err());
    }
}

/// A modern `tools/call` of `confirm_delete` from a client that can answer elicitations.
fn confirm_delete(id: i64, extra: Value) -> (Value, Vec<(&'static str, String)>) {
    let mut params = json!({"name": "confirm_delete", "arguments": {"filename": "notes.txt"}});
    for (k, v) in extra.as_object().unwrap() {
        params[k] = v.clone();
    }
    let (mut message, headers) = modern(id, "tools/call", params);
    message["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"] =
        json!({"elicitation": {}});
    (message, headers)
}

async fn send(url: &str, (message, headers): (Value, Vec<(&'static str, String)>)) -> Value {
    let headers: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
    post(url, &headers, &message).await.answer()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn round_two_is_answered_by_another_instance_and_its_replay_refused_by_a_third() {
    let redis = Redis::start();
    let (a, b, c) = (instance(&redis), instance(&redis), instance(&redis));

    let first = send(&a.url, confirm_delete(1, json!({}))).await;
    let result = &first["result"];
    assert_eq!(result["resultType"], "input_required", "{first}");
    let key = result["inputRequests"]
        .as_object()
        .and_then(|asks| asks.keys().next().cloned())
        .expect("one ask");
    let state = result["requestState"].as_str().unwrap().to_owned();
    let retry = json!({
        "inputResponses": {key: {"action": "accept", "content": {"confirm": true}}},
        "requestState": state,
    });

    let second = send(&b.url, confirm_delete(2, retry.clone())).await;
    assert_eq!(
        second["result"]["content"][0]["text"], "Deleted notes.txt",
        "round 2 on another instance: {second}"
    );
    for (instance, url) in [
        ("a third", &c.url),
        ("the same", &b.url),
        ("the first", &a.url),
    ] {
        let replay = send(url, confirm_delete(3, retry.clone())).await;
        assert_eq!(
            replay["error"]["code"], -32602,
            "a replay on {instance} instance is refused: {replay}"
        );
        assert_eq!(
            replay["error"]["message"],
            "Invalid or expired requestState"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_list_change_raised_on_one_instance_reaches_a_listen_stream_held_by_another() {
    let redis = Redis::start();
    let (a, b) = (instance(&redis), instance(&redis));
    let response = open_modern(
        &b.url,
        7,
        "subscriptions/listen",
        json!({"notifications": {"toolsListChanged": true}}),
    )
    .await;
    let mut stream = SseReader::new(response);
    let ack = stream
        .next_message(WAIT)
        .await
        .expect("the acknowledgement");
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");

    let changed = post_modern(
        &a.url,
        1,
        "tools/call",
        json!({"name": "test_trigger_tool_change", "arguments": {}}),
    )
    .await
    .answer();
    assert_eq!(changed["result"]["isError"], Value::Null, "{changed}");
    let change = stream.next_message(WAIT).await.expect("a change from A");
    assert_eq!(change["method"], "notifications/tools/list_changed");
    assert_eq!(
        change["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        7
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_whose_instance_is_killed_fails_once_its_lease_runs_out_and_the_others_serve_on() {
    let redis = Redis::start();
    let (mut a, b, c) = (instance(&redis), instance(&redis), instance(&redis));
    let on_a = task_client(&a.url).await;
    let on_b = task_client(&b.url).await;
    let id = start_task(&on_a, 600).await;
    assert_eq!(
        on_b.get_task(&id).await.unwrap().task.status,
        TaskStatus::Working
    );
    a.kill();
    // Failed once the lease (10 s by default) runs out, never `working` for ever.
    let failed = wait_for_status(&on_b, &id, TaskStatus::Failed).await;
    assert!(
        failed["statusMessage"]
            .as_str()
            .is_some_and(|m| m.contains("lease")),
        "{failed}"
    );
    // The others serve on.
    for url in [&b.url, &c.url] {
        let answer = post_modern(
            url,
            2,
            "tools/call",
            json!({"name": "greet", "arguments": {"name": "Ada"}}),
        )
        .await
        .answer();
        assert_eq!(
            answer["result"]["content"][0]["text"], "Hello, Ada!",
            "{answer}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_restarted_under_load_fails_only_what_needed_it_and_the_instances_recover() {
    let mut redis = Redis::start();
    let (a, b) = (instance(&redis), instance(&redis));
    let on_a = task_client(&a.url).await;
    let greet = |url: String| async move {
        post_modern(
            &url,
            3,
            "tools/call",
            json!({"name": "greet", "arguments": {"name": "Ada"}}),
        )
        .await
        .answer()
    };

    // Stateless calls under load all through the outage and the recovery.
    let stop_load = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let load = {
        let (urls, stop_load) = ([a.url.clone(), b.url.clone()], stop_load.clone());
        tokio::spawn(async move {
            let (mut done, mut failed) = (0_usize, Vec::new());
            while !stop_load.load(std::sync::atomic::Ordering::SeqCst) {
                let answer = post_modern(
                    &urls[done % 2],
                    4,
                    "tools/call",
                    json!({"name": "greet", "arguments": {"name": "Ada"}}),
                )
                .await
                .answer();
                if answer["result"]["content"][0]["text"] != "Hello, Ada!" {
                    failed.push(answer);
                }
                done += 1;
            }
            (done, failed)
        })
    };
    tokio::time::sleep(Duration::from_millis(200)).await;
    redis.stop();
    // Stateless calls need nothing from Redis: they keep working.
    for url in [&a.url, &b.url] {
        let answer = greet(url.clone()).await;
        assert_eq!(
            answer["result"]["content"][0]["text"], "Hello, Ada!",
            "{answer}"
        );
    }
    // A task needs the store: refused with a clear error, quickly, nothing half-made.
    let refused = on_a
        .request(
            "tools/call",
            Some(json!({"name": "slow_compute", "arguments": {"seconds": 5}})),
        )
        .await
        .expect_err("no store, no task");
    let message = refused.to_string();
    assert!(
        message.contains("Redis"),
        "the error says what failed: {message}"
    );

    // Back: the instances reconnect by themselves.
    redis.restart();
    let deadline = Instant::now() + WAIT;
    let id = loop {
        match on_a
            .request(
                "tools/call",
                Some(json!({"name": "slow_compute", "arguments": {"seconds": 0.2}})),
            )
            .await
        {
            Ok(created) => break created["taskId"].as_str().unwrap().to_owned(),
            Err(e) => {
                assert!(Instant::now() < deadline, "no recovery: {e}");
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
        }
    };
    let on_b = task_client(&b.url).await;
    wait_for_status(&on_b, &id, TaskStatus::Completed).await;
    stop_load.store(true, std::sync::atomic::Ordering::SeqCst);
    let (done, failed) = load.await.unwrap();
    assert!(done > 10, "the load ran: {done} calls");
    assert!(
        failed.is_empty(),
        "{} of {done} stateless calls failed while Redis restarted: {:?}",
        failed.len(),
        &failed[..failed.len().min(3)]
    );
}

#[test]
fn a_server_told_to_use_an_unreachable_redis_stops_with_an_error_naming_it() {
    let mut redis = Redis::start();
    let url = format!("redis://:hunter2@127.0.0.1:{}/", redis.port);
    redis.stop();
    let out = std::process::Command::new(mcp_tests::example_bin("conformance-server"))
        .args(["--transport", "http", "--bind", "127.0.0.1:0"])
        .env("MCP_REDIS_URL", &url)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "cannot reach Redis at redis://:***@127.0.0.1:{}/",
            redis.port
        )),
        "{stderr}"
    );
    assert!(!stderr.contains("hunter2"), "{stderr}");
    assert!(
        !stderr.contains("serving MCP"),
        "nothing is served: {stderr}"
    );
}

/// POSTs a legacy message within `session` (none for `initialize`) to `url`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_legacy_session_whose_every_request_lands_on_another_instance() {
    let redis = Redis::start();
    let (a, b, c) = (instance(&redis), instance(&redis), instance(&redis));
    let urls = [&a.url, &b.url, &c.url];

    let mut init = mcp_tests::http::initialize(1);
    init["params"]["capabilities"] = json!({"elicitation": {}});
    let opened = mcp_tests::http::legacy_post(&a.url, None, &init).await;
    let session = opened
        .header("mcp-session-id")
        .expect("a session")
        .to_owned();
    assert_eq!(
        opened.answer()["result"]["protocolVersion"],
        mcp_tests::http::LEGACY
    );
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(
        mcp_tests::http::legacy_post(&b.url, Some(&session), &initialized)
            .await
            .status,
        http::StatusCode::ACCEPTED
    );
    // Round robin over the three, each request on the next instance.
    for n in 0..6_i64 {
        let url = urls[(n % 3) as usize];
        let call = json!({"jsonrpc": "2.0", "id": 10 + n, "method": "tools/call",
            "params": {"name": "greet", "arguments": {"name": format!("n{n}")}}});
        let answer = mcp_tests::http::legacy_post(url, Some(&session), &call)
            .await
            .answer();
        assert_eq!(
            answer["result"]["content"][0]["text"],
            format!("Hello, n{n}!"),
            "request {n} on instance {}: {answer}",
            n % 3
        );
    }

    // A call on C that asks the client: the ask goes out on C's stream, the answer is
    // POSTed to A, and C's call finishes with it.
    let ask = json!({"jsonrpc": "2.0", "id": 20, "method": "tools/call",
        "params": {"name": "test_elicitation", "arguments": {"message": "Who are you?"}}});
    let headers = [
        ("content-type", "application/json"),
        ("accept", ACCEPT_BOTH),
        ("mcp-protocol-version", mcp_tests::http::LEGACY),
        ("mcp-session-id", session.as_str()),
    ];
    let response = open(http::Method::POST, &c.url, &headers, ask.to_string()).await;
    let mut stream = SseReader::new(response);
    let request = stream.next_message(WAIT).await.expect("the elicitation");
    assert_eq!(request["method"], "elicitation/create", "{request}");
    let reply = json!({"jsonrpc": "2.0", "id": request["id"],
        "result": {"action": "accept", "content": {"username": "ada", "email": "ada@example.com"}}});
    assert_eq!(
        mcp_tests::http::legacy_post(&a.url, Some(&session), &reply)
            .await
            .status,
        http::StatusCode::ACCEPTED
    );
    let done = stream.next_message(WAIT).await.expect("the call's answer");
    assert_eq!(done["id"], 20);
    let text = done["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(
        text.contains("action=accept") && text.contains("ada@example.com"),
        "{done}"
    );

    // Ended on B: gone on every instance.
    let headers = [
        ("mcp-protocol-version", mcp_tests::http::LEGACY),
        ("mcp-session-id", session.as_str()),
    ];
    let deleted = mcp_tests::http::send(http::Method::DELETE, &b.url, &headers, "").await;
    assert_eq!(deleted.status, http::StatusCode::NO_CONTENT);
    for url in urls {
        let call = json!({"jsonrpc": "2.0", "id": 30, "method": "tools/list"});
        assert_eq!(
            mcp_tests::http::legacy_post(url, Some(&session), &call)
                .await
                .status,
            http::StatusCode::NOT_FOUND,
            "{url}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_get_stream_resumed_on_another_instance_loses_nothing() {
    let redis = Redis::start();
    let (a, b, c) = (instance(&redis), instance(&redis), instance(&redis));
    let opened = mcp_tests::http::legacy_post(&a.url, None, &mcp_tests::http::initialize(1)).await;
    let session = opened.header("mcp-session-id").unwrap().to_owned();
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    mcp_tests::http::legacy_post(&a.url, Some(&session), &initialized).await;
    let get = |url: String, last: Option<String>| {
        let session = session.clone();
        async move {
            let mut headers = vec![
                ("accept", "text/event-stream".to_owned()),
                ("mcp-protocol-version", mcp_tests::http::LEGACY.to_owned()),
                ("mcp-session-id", session),
            ];
            if let Some(last) = last {
                headers.push(("last-event-id", last));
            }
            let headers: Vec<(&str, &str)> =
                headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
            SseReader::new(open(http::Method::GET, &url, &headers, "").await)
        }
    };
    let trigger = |n: i64| {
        let (url, session) = (c.url.clone(), session.clone());
        async move {
            let call = json!({"jsonrpc": "2.0", "id": n, "method": "tools/call",
                "params": {"name": "test_trigger_tool_change", "arguments": {}}});
            mcp_tests::http::legacy_post(&url, Some(&session), &call)
                .await
                .answer()
        }
    };
    async fn next_data(stream: &mut SseReader) -> mcp_tests::http::SseEvent {
        loop {
            let event = stream.next(WAIT).await.expect("an event");
            if event.data.is_some() {
                return event;
            }
        }
    }

    // The stream on B gets the changes raised on C, each with an event id.
    let mut on_b = get(b.url.clone(), None).await;
    trigger(2).await;
    let first = next_data(&mut on_b).await;
    assert!(
        first
            .data
            .as_deref()
            .unwrap()
            .contains("notifications/tools/list_changed")
    );
    let first_id = first.id.clone().expect("an event id");
    trigger(3).await;
    let second = next_data(&mut on_b).await;
    let second_id = second.id.clone().expect("an event id");
    assert_ne!(first_id, second_id);
    drop(on_b);

    // The client saw only the first; resuming on A, it gets the second first.
    let mut on_a = get(a.url.clone(), Some(first_id)).await;
    let resumed = next_data(&mut on_a).await;
    assert_eq!(resumed.id.as_deref(), Some(second_id.as_str()));
    assert_eq!(resumed.data, second.data);
}

/// Review #40 item 5: 100 refused `resources/subscribe` calls with huge URIs put 404 MiB into
/// Redis, and the session then answered 503 on every replica. Only changes that succeed are
/// recorded, and a session's record is bounded in bytes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_state_changes_that_succeed_are_shared_and_the_record_is_bounded() {
    let redis = Redis::start();
    let (a, b) = (instance(&redis), instance(&redis));
    let opened = mcp_tests::http::legacy_post(&a.url, None, &mcp_tests::http::initialize(1)).await;
    let session = opened
        .header("mcp-session-id")
        .expect("a session")
        .to_owned();
    let huge = format!("demo://{}", "a".repeat(1 << 20));
    for n in 0..20_i64 {
        let subscribe = json!({"jsonrpc": "2.0", "id": 100 + n, "method": "resources/subscribe",
            "params": {"uri": huge}});
        let answer = mcp_tests::http::legacy_post(&a.url, Some(&session), &subscribe)
            .await
            .answer();
        assert_eq!(answer["error"]["code"], -32602, "{answer}");
    }
    let set_level = json!({"jsonrpc": "2.0", "id": 200, "method": "logging/setLevel",
        "params": {"level": "warning"}});
    let answer = mcp_tests::http::legacy_post(&a.url, Some(&session), &set_level)
        .await
        .answer();
    assert!(answer.get("result").is_some(), "{answer}");
    let client = redis::Client::open(redis.url()).unwrap();
    let mut c = client.get_multiplexed_async_connection().await.unwrap();
    let ops: Vec<String> = redis::cmd("LRANGE")
        .arg(format!("mcp:session-ops:{session}"))
        .arg(0)
        .arg(-1)
        .query_async(&mut c)
        .await
        .unwrap();
    assert_eq!(
        ops.len(),
        1,
        "only setLevel: {:?}",
        ops.iter().map(|o| o.len()).collect::<Vec<_>>()
    );
    assert!(ops[0].contains("logging/setLevel"), "{ops:?}");
    // Past the bytes bound, changes are served but not shared: the record stays bounded.
    // (A session follows at most 256 KiB of URIs at once; subscribing and unsubscribing
    // again and again is what grows the record.)
    let uri = format!("test://template/{}/data", "b".repeat(7000));
    for n in 0..200_i64 {
        for method in ["resources/subscribe", "resources/unsubscribe"] {
            let change = json!({"jsonrpc": "2.0", "id": 300 + n, "method": method,
                "params": {"uri": uri}});
            let answer = mcp_tests::http::legacy_post(&a.url, Some(&session), &change)
                .await
                .answer();
            assert!(answer.get("result").is_some(), "{method}: {answer}");
        }
    }
    let bytes: usize = redis::cmd("HGET")
        .arg(format!("mcp:session:{session}"))
        .arg("opsbytes")
        .query_async(&mut c)
        .await
        .unwrap();
    assert!((1000 * 1024..=1024 * 1024).contains(&bytes), "{bytes}");
    // The session is served by the other instance all the same.
    let list = json!({"jsonrpc": "2.0", "id": 900, "method": "tools/list"});
    let answer = mcp_tests::http::legacy_post(&b.url, Some(&session), &list).await;
    assert_eq!(answer.status, http::StatusCode::OK);
    assert!(answer.answer()["result"]["tools"].is_array());
}

/// Review #40 item 5: a full Redis (`maxmemory` reached, `noeviction`) fails closed for
/// session and task creation, as it does for `requestState` nonces: nothing is created that
/// another instance could not see.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_redis_fails_session_and_task_creation_closed() {
    let redis = Redis::start();
    let a = instance(&redis);
    let client = task_client(&a.url).await;
    let admin = redis::Client::open(redis.url()).unwrap();
    let mut c = admin.get_multiplexed_async_connection().await.unwrap();
    let _: () = redis::cmd("CONFIG")
        .arg("SET")
        .arg("maxmemory")
        .arg("1")
        .query_async(&mut c)
        .await
        .unwrap();
    let opened = mcp_tests::http::legacy_post(&a.url, None, &mcp_tests::http::initialize(1)).await;
    assert_eq!(
        opened.status,
        http::StatusCode::SERVICE_UNAVAILABLE,
        "{}",
        opened.text()
    );
    assert!(opened.header("mcp-session-id").is_none());
    let refused = client
        .request(
            "tools/call",
            Some(json!({"name": "slow_compute", "arguments": {"seconds": 1}})),
        )
        .await;
    match refused {
        Ok(answer) => {
            assert_eq!(answer["isError"], true, "{answer}");
            assert_ne!(answer["resultType"], "task", "{answer}");
        }
        Err(error) => assert!(error.to_string().contains("store"), "{error}"),
    }
    let keys: Vec<String> = redis::cmd("KEYS")
        .arg("mcp:task:*")
        .query_async(&mut c)
        .await
        .unwrap();
    assert!(keys.is_empty(), "{keys:?}");
    // Room again: both work.
    let _: () = redis::cmd("CONFIG")
        .arg("SET")
        .arg("maxmemory")
        .arg("0")
        .query_async(&mut c)
        .await
        .unwrap();
    let opened = mcp_tests::http::legacy_post(&a.url, None, &mcp_tests::http::initialize(2)).await;
    assert!(
        opened.header("mcp-session-id").is_some(),
        "{}",
        opened.text()
    );
    start_task(&client, 1).await;
}
