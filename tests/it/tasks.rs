//! Tasks (the 2026-07-28 tasks extension) with the toolkit's own client, over stdio and
//! Streamable HTTP against `conformance-server` (whose task tools are ordinary
//! `#[mcp_tool(task = …)]`s), and in memory against servers built here for what needs a
//! setting: bounds, identities, bad input.

use futures::future::BoxFuture;
use mcp_runtime::client::{Client, EraMode, InputHandler};
use mcp_runtime::prelude::*;
use mcp_runtime::protocol::ElicitResult;
use mcp_runtime::protocol::JsonObject;
use mcp_runtime::protocol::task::{TASKS_EXTENSION, TaskStatus};
use mcp_runtime::task::{
    MemoryTaskStore, StoreError, TaskEnd, TaskLimits, TaskOptions, TaskRecord, TaskStore,
};
use mcp_runtime::transport::http::{BearerTokens, HttpOptions};
use mcp_tests::http::{Spawned, post, serve};
use serde_json::{Value, json};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::process::Command;

async fn bounded<T>(f: impl std::future::Future<Output = T>) -> T {
    tokio::time::timeout(Duration::from_secs(60), f)
        .await
        .expect("answered within 60 s")
}

/// The task `id` once it has ended, polled (bounded).
async fn until_ended(client: &Client, id: &str) -> mcp_runtime::protocol::task::DetailedTask {
    bounded(async {
        loop {
            let task = client.get_task(id).await.expect("the task is there");
            if task.task.status.is_terminal() {
                return task;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
}

/// Accepts every elicitation with `{"confirm": true, "name": "Ada"}`.
fn accepting() -> InputHandler {
    InputHandler::new().on_elicit(|_| async {
        Ok(ElicitResult::accept(
            json!({"confirm": true, "name": "Ada"}).as_object().cloned(),
        ))
    })
}

fn stdio() -> Client {
    let mut command = Command::new(mcp_tests::example_bin("conformance-server"));
    command.arg("--transport").arg("stdio");
    Client::spawn(command).expect("conformance-server starts")
}

/// The task tools of `conformance-server`, run to their end by `client` (connected modern).
async fn runs_every_kind_of_task(client: Client, label: &str) {
    // A call that waits becomes a task; the client polls it to its end.
    let seen: Arc<Mutex<Vec<(String, TaskStatus)>>> = Arc::default();
    let record = seen.clone();
    let result = bounded(client.call_tool_watching(
        "slow_compute",
        json!({"seconds": 0.3, "label": "pi"}),
        move |task| {
            record
                .lock()
                .unwrap()
                .push((task.task.task_id.clone(), task.task.status))
        },
    ))
    .await
    .unwrap_or_else(|e| panic!("{label}: {e}"));
    assert_eq!(
        result.first_text(),
        Some("Computed pi after 0.3 second(s)"),
        "{label}"
    );
    let seen = seen.lock().unwrap().clone();
    assert_eq!(
        seen.first().map(|s| s.1),
        Some(TaskStatus::Working),
        "{label}: {seen:?}"
    );
    assert_eq!(
        seen.last().map(|s| s.1),
        Some(TaskStatus::Completed),
        "{label}: {seen:?}"
    );
    assert!(
        seen.iter().all(|s| s.0 == seen[0].0 && s.0.len() == 32),
        "{label}: one task, with a 128-bit id: {seen:?}"
    );

    // Its asks reach the input handler through inputRequests and tasks/update.
    for (tool, arguments, expected) in [
        (
            "confirm_delete",
            json!({"filename": "a.txt"}),
            "Deleted a.txt",
        ),
        ("multi_input", json!({}), "Answers: Accept and Accept"),
        // An input_required round before the task, then the task.
        (
            "test_tool_with_task",
            json!({}),
            "Hello, Ada! Your task is done.",
        ),
    ] {
        let result = bounded(client.call_tool(tool, arguments))
            .await
            .unwrap_or_else(|e| panic!("{label} {tool}: {e}"));
        assert_eq!(result.first_text(), Some(expected), "{label} {tool}");
    }

    // A tool's error completes the task with an isError result; a protocol error fails it.
    let failed = bounded(client.call_tool("failing_job", json!({})))
        .await
        .unwrap_or_else(|e| panic!("{label}: {e}"));
    assert!(failed.is_error(), "{label}: {failed:?}");
    let error = bounded(client.call_tool("protocol_error_job", json!({})))
        .await
        .expect_err("a failed task is the client's protocol error");
    assert_eq!(
        error.as_protocol().map(|e| e.code.0),
        Some(-32603),
        "{label}: {error}"
    );

    // Dropping the call cancels the task.
    let id: Arc<Mutex<Option<String>>> = Arc::default();
    let record = id.clone();
    // Long enough for the task's handle to arrive on a loaded machine (the task runs 600 s).
    let dropped = tokio::time::timeout(
        Duration::from_secs(5),
        client.call_tool_watching("slow_compute", json!({"seconds": 600}), move |task| {
            *record.lock().unwrap() = Some(task.task.task_id.clone())
        }),
    )
    .await;
    assert!(dropped.is_err(), "{label}: the call was still running");
    let id = id.lock().unwrap().clone().expect("the task's handle came");
    let cancelled = bounded(async {
        loop {
            let task = client.get_task(&id).await.expect("the task is still known");
            if task.task.status != TaskStatus::Working {
                return task;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await;
    assert_eq!(cancelled.task.status, TaskStatus::Cancelled, "{label}");
    // Cancelling again is acknowledged, and changes nothing.
    client.cancel_task(&id).await.expect("idempotent");
    assert_eq!(
        client.get_task(&id).await.unwrap().task.status,
        TaskStatus::Cancelled
    );
}

#[tokio::test]
async fn tasks_run_to_their_end_with_our_client_over_stdio() {
    let client = stdio().with_input_handler(accepting());
    client.connect(EraMode::Modern).await.unwrap();
    runs_every_kind_of_task(client, "stdio").await;
}

#[tokio::test]
async fn tasks_run_to_their_end_with_our_client_over_http() {
    for mode in ["sessionful", "stateless"] {
        let server = Spawned::start("conformance-server", &["--legacy-mode", mode]);
        let client = Client::http(&server.url)
            .unwrap()
            .with_input_handler(accepting());
        client.connect(EraMode::Modern).await.unwrap();
        runs_every_kind_of_task(client, mode).await;
    }
}

#[tokio::test]
async fn without_the_extension_a_call_is_answered_at_once_or_refused() {
    for (mode, tasks) in [(EraMode::Modern, false), (EraMode::Legacy, true)] {
        let client = stdio().with_input_handler(accepting()).with_tasks(tasks);
        client.connect(mode).await.unwrap();
        let label = format!("{mode:?}");
        // An optional task runs synchronously.
        let result = bounded(client.call_tool("slow_compute", json!({"seconds": 0.1})))
            .await
            .unwrap_or_else(|e| panic!("{label}: {e}"));
        assert_eq!(
            result.first_text(),
            Some("Computed result after 0.1 second(s)"),
            "{label}"
        );
        // A required one is refused, naming the extension.
        let error = bounded(client.call_tool("failing_job", json!({})))
            .await
            .expect_err("refused");
        let error = error.as_protocol().expect("a protocol error").clone();
        assert_eq!(error.code.0, -32021, "{label}: {error:?}");
        assert_eq!(
            error.data.as_ref().unwrap()["requiredCapabilities"]["extensions"][TASKS_EXTENSION],
            json!({}),
            "{label}"
        );
        assert!(
            error.message.contains("runs only as a task"),
            "{label}: {error:?}"
        );
    }
}

/// Waits for a second, or until cancelled; counts the calls that finished.
#[mcp_tool(task = "optional")]
async fn wait_a_second(cx: RequestContext) -> &'static str {
    tokio::time::sleep(Duration::from_secs(1)).await;
    let _ = cx;
    "waited"
}

/// Asks one question, in the task.
#[mcp_tool(task = "optional")]
async fn ask_once(cx: RequestContext) -> String {
    cx.become_task().await;
    match cx
        .elicit_schema(
            "Go on?",
            json!({"type": "object", "properties": {"go": {"type": "boolean"}}}),
        )
        .key("go")
        .await
    {
        Ok(answer) => format!("{:?}", answer.action()),
        Err(e) => format!("no answer: {e}"),
    }
}

/// Would sleep for a minute; its timeout stops it first.
#[mcp_tool(task = "optional", timeout = "300ms")]
async fn too_slow() -> &'static str {
    tokio::time::sleep(Duration::from_secs(60)).await;
    "never"
}

fn server(limits: TaskLimits) -> Server {
    Server::builder("tasks", "1.0.0")
        .tool(wait_a_second::tool())
        .tool(ask_once::tool())
        .tool(too_slow::tool())
        .tasks(TaskOptions::new().store(MemoryTaskStore::new(limits)))
        .build()
        .unwrap()
}

/// A modern in-memory client that declares elicitation (its handler accepts).
async fn memory(server: &Server) -> Client {
    let client = Client::memory(server).with_input_handler(accepting());
    client.connect(EraMode::Modern).await.unwrap();
    client
}

/// A `tools/call` answered with a task handle; its id.
async fn start(client: &Client, tool: &str) -> Value {
    client
        .request("tools/call", Some(json!({"name": tool, "arguments": {}})))
        .await
        .unwrap()
}

#[tokio::test]
async fn a_flood_of_task_creations_is_refused_once_full_and_loses_nothing() {
    let server = server(TaskLimits::new().max_tasks(5));
    let client = memory(&server).await;
    let mut ids = Vec::new();
    for _ in 0..5 {
        let handle = start(&client, "wait_a_second").await;
        assert_eq!(handle["resultType"], "task", "{handle}");
        ids.push(handle["taskId"].as_str().unwrap().to_owned());
    }
    for _ in 0..20 {
        let refused = start(&client, "wait_a_second").await;
        assert_eq!(refused["resultType"], "complete", "{refused}");
        assert_eq!(refused["isError"], true, "{refused}");
        assert!(
            refused["content"][0]["text"]
                .as_str()
                .unwrap()
                .contains("try again"),
            "{refused}"
        );
    }
    for id in &ids {
        let task = until_ended(&client, id).await;
        assert_eq!(task.task.status, TaskStatus::Completed);
        assert_eq!(task.result.unwrap()["content"][0]["text"], "waited");
    }
}

#[tokio::test]
async fn a_timeout_bounds_the_tasks_run_not_its_first_answer() {
    let server = server(TaskLimits::default());
    let client = memory(&server).await;
    let statuses: Arc<Mutex<Vec<TaskStatus>>> = Arc::default();
    let record = statuses.clone();
    let result = bounded(
        client.call_tool_watching("too_slow", json!({}), move |task| {
            record.lock().unwrap().push(task.task.status)
        }),
    )
    .await
    .expect("the task completes");
    // It was a task (the first answer came at once), and its run was stopped at 300 ms.
    assert_eq!(statuses.lock().unwrap().first(), Some(&TaskStatus::Working));
    assert!(result.is_error(), "{result:?}");
    assert!(
        result
            .first_text()
            .unwrap_or_default()
            .contains("timed out"),
        "{result:?}"
    );
}

#[tokio::test]
async fn malformed_and_unknown_task_ids_are_invalid_params() {
    let server = server(TaskLimits::default());
    let client = memory(&server).await;
    let long = "f".repeat(10_000);
    for (params, what) in [
        (json!({"taskId": 5}), "a number"),
        (json!({"taskId": null}), "null"),
        (json!({}), "missing"),
        (json!({"taskId": ""}), "empty"),
        (json!({"taskId": long}), "10,000 characters"),
        (
            json!({"taskId": "0123456789abcdef0123456789abcdef"}),
            "unknown",
        ),
        (json!({"taskId": "../../etc/passwd"}), "a path"),
    ] {
        for method in ["tasks/get", "tasks/cancel", "tasks/update"] {
            let error = client
                .request(method, Some(params.clone()))
                .await
                .expect_err(what);
            assert_eq!(
                error.as_protocol().map(|e| e.code.0),
                Some(-32602),
                "{method} with {what}: {error}"
            );
        }
    }
    // `tasks/list` and `tasks/result` do not exist in this revision.
    for method in ["tasks/list", "tasks/result"] {
        let error = client
            .request(method, Some(json!({"taskId": "x"})))
            .await
            .expect_err(method);
        assert_eq!(
            error.as_protocol().map(|e| e.code.0),
            Some(-32601),
            "{method}"
        );
    }
    // A client without the extension cannot reach tasks at all.
    let without = Client::memory(&server).with_tasks(false);
    without.connect(EraMode::Modern).await.unwrap();
    let error = without
        .request("tasks/get", Some(json!({"taskId": "x"})))
        .await
        .expect_err("-32021");
    assert_eq!(error.as_protocol().map(|e| e.code.0), Some(-32021));
}

#[tokio::test]
async fn answers_to_keys_never_asked_are_ignored_and_the_ask_stays_outstanding() {
    let server = server(TaskLimits::default());
    let client = memory(&server).await;
    let handle = start(&client, "ask_once").await;
    let id = handle["taskId"].as_str().expect("a task").to_owned();
    let asked = bounded(async {
        loop {
            let task = client.get_task(&id).await.unwrap();
            if task.task.status == TaskStatus::InputRequired {
                return task;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await;
    let keys: Vec<&str> = asked
        .input_requests
        .as_ref()
        .unwrap()
        .0
        .iter()
        .map(|(k, _)| k.as_str())
        .collect();
    assert_eq!(keys, ["go"]);
    let stray = json!({"never-asked": {"action": "accept", "content": {}}})
        .as_object()
        .cloned()
        .unwrap();
    client.update_task(&id, stray).await.expect("acknowledged");
    let still = client.get_task(&id).await.unwrap();
    assert_eq!(still.task.status, TaskStatus::InputRequired);
    assert_eq!(still.input_requests.unwrap().0.len(), 1);
    // A malformed inputResponses is refused; the task is untouched.
    let error = client
        .request(
            "tasks/update",
            Some(json!({"taskId": id, "inputResponses": [1, 2]})),
        )
        .await
        .expect_err("not an object");
    assert_eq!(error.as_protocol().map(|e| e.code.0), Some(-32602));
    // The real answer resumes it.
    let answer = json!({"go": {"action": "decline"}})
        .as_object()
        .cloned()
        .unwrap();
    client.update_task(&id, answer).await.unwrap();
    let done = until_ended(&client, &id).await;
    assert_eq!(done.result.unwrap()["content"][0]["text"], "Decline");
}

/// The memory store, telling how many answers the most any `respond` was handed.
struct Counting {
    inner: MemoryTaskStore,
    most: Arc<Mutex<usize>>,
}

impl TaskStore for Counting {
    fn create(&self, task: TaskRecord) -> BoxFuture<'_, Result<(), StoreError>> {
        self.inner.create(task)
    }
    fn get<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<TaskRecord>, StoreError>> {
        self.inner.get(id)
    }
    fn set_message<'a>(
        &'a self,
        id: &'a str,
        message: String,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        self.inner.set_message(id, message)
    }
    fn request_input<'a>(
        &'a self,
        id: &'a str,
        requests: JsonObject,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        self.inner.request_input(id, requests)
    }
    fn respond<'a>(
        &'a self,
        id: &'a str,
        responses: JsonObject,
    ) -> BoxFuture<'a, Result<usize, StoreError>> {
        let mut most = self.most.lock().unwrap();
        *most = (*most).max(responses.len());
        self.inner.respond(id, responses)
    }
    fn take_responses<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<JsonObject, StoreError>> {
        self.inner.take_responses(id)
    }
    fn finish<'a>(&'a self, id: &'a str, end: TaskEnd) -> BoxFuture<'a, Result<bool, StoreError>> {
        self.inner.finish(id, end)
    }
    fn cancel<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<TaskRecord, StoreError>> {
        self.inner.cancel(id)
    }
    fn sweep(&self) -> BoxFuture<'_, Result<usize, StoreError>> {
        self.inner.sweep()
    }
    fn is_shared(&self) -> bool {
        self.inner.is_shared()
    }
}

/// Review #40 item 11: one `tasks/update` with 280,000 keys never asked became a single
/// store script that blocked a shared Redis for every replica. Keys the task does not ask
/// are dropped before the store, and the answers one update carries are bounded.
#[tokio::test]
async fn answers_never_asked_never_reach_the_store_and_an_update_is_bounded() {
    let most = Arc::new(Mutex::new(0));
    let server = Server::builder("tasks", "1.0.0")
        .tool(ask_once::tool())
        .tasks(TaskOptions::new().store(Counting {
            inner: MemoryTaskStore::new(TaskLimits::default()),
            most: most.clone(),
        }))
        .build()
        .unwrap();
    let client = memory(&server).await;
    let handle = start(&client, "ask_once").await;
    let id = handle["taskId"].as_str().expect("a task").to_owned();
    bounded(async {
        while client.get_task(&id).await.unwrap().task.status != TaskStatus::InputRequired {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await;
    let mut flood: JsonObject = (0..280_000).map(|n| (format!("k{n}"), json!(n))).collect();
    client
        .update_task(&id, flood.clone())
        .await
        .expect("acknowledged");
    assert_eq!(*most.lock().unwrap(), 0, "nothing asked was answered");
    // An answer to the ask over 1 MiB is refused, the task still asking.
    flood.insert(
        "go".into(),
        json!({"action": "accept", "content": {"x": "a".repeat(2 << 20)}}),
    );
    let error = client.update_task(&id, flood.clone()).await.unwrap_err();
    assert_eq!(
        error.as_protocol().map(|e| e.code.0),
        Some(-32602),
        "{error}"
    );
    assert!(error.to_string().contains("at most 1048576"), "{error}");
    assert_eq!(*most.lock().unwrap(), 0);
    // The flood beside the real answer: the store sees the one answer.
    flood.insert("go".into(), json!({"action": "decline"}));
    client.update_task(&id, flood).await.unwrap();
    assert_eq!(*most.lock().unwrap(), 1);
    let done = until_ended(&client, &id).await;
    assert_eq!(done.result.unwrap()["content"][0]["text"], "Decline");
}

/// A modern request to `url` as `token`'s owner, declaring the tasks extension.
async fn as_caller(url: &str, token: &str, method: &str, params: Value) -> Value {
    let mut params = params;
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"extensions": {TASKS_EXTENSION: {}}},
    });
    let name = params
        .get("taskId")
        .or_else(|| params.get("name"))
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let message = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let bearer = format!("Bearer {token}");
    let mut headers = vec![
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", method),
        ("mcp-name", name.as_str()),
    ];
    // No token: an unauthenticated caller.
    if !token.is_empty() {
        headers.push(("authorization", bearer.as_str()));
    }
    post(url, &headers, &message).await.answer()
}

/// Review #40 item 4: one unauthenticated client filled the task store for an hour (10,000
/// hour-long tasks in 3 s from one address). Unauthenticated callers over HTTP are counted
/// by their network against `max_per_owner`, and their tasks are kept ten minutes.
#[tokio::test]
async fn an_unauthenticated_network_is_bounded_like_an_identity_and_kept_shorter() {
    let server = server(TaskLimits::new().max_per_owner(3));
    let http = serve(server.clone(), HttpOptions::default()).await;
    let call = || {
        as_caller(
            &http.url,
            "",
            "tools/call",
            json!({"name": "wait_a_second", "arguments": {}}),
        )
    };
    for _ in 0..3 {
        let handle = call().await;
        assert_eq!(handle["result"]["resultType"], "task", "{handle}");
        assert_eq!(handle["result"]["ttlMs"], 600_000, "{handle}");
    }
    let refused = call().await;
    assert_eq!(refused["result"]["isError"], true, "{refused}");
    let text = refused["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("3 tasks for this caller"), "{refused}");
    // A client without an address (stdio, in memory) is counted in the total only.
    let local = memory(&server).await;
    let handle = start(&local, "wait_a_second").await;
    assert_eq!(handle["resultType"], "task", "{handle}");
    assert_eq!(handle["ttlMs"], 3_600_000, "{handle}");
}

#[tokio::test]
async fn a_task_is_visible_only_to_the_identity_that_created_it() {
    let http = serve(
        server(TaskLimits::default()),
        HttpOptions::default().auth(BearerTokens::new([
            ("alice", "token-a"),
            ("bob", "token-b"),
        ])),
    )
    .await;
    let created = as_caller(
        &http.url,
        "token-a",
        "tools/call",
        json!({"name": "wait_a_second", "arguments": {}}),
    )
    .await;
    let id = created["result"]["taskId"]
        .as_str()
        .expect("a task")
        .to_owned();
    let mine = as_caller(&http.url, "token-a", "tasks/get", json!({"taskId": id})).await;
    assert_eq!(mine["result"]["taskId"], id.as_str(), "{mine}");
    for method in ["tasks/get", "tasks/cancel"] {
        let theirs = as_caller(&http.url, "token-b", method, json!({"taskId": id})).await;
        assert_eq!(theirs["error"]["code"], -32602, "{method}: {theirs}");
    }
    let theirs = as_caller(
        &http.url,
        "token-b",
        "tasks/update",
        json!({"taskId": id, "inputResponses": {}}),
    )
    .await;
    assert_eq!(theirs["error"]["code"], -32602, "{theirs}");
    // Bob's cancel did nothing: the task runs on for Alice.
    let mine = as_caller(&http.url, "token-a", "tasks/get", json!({"taskId": id})).await;
    assert_ne!(mine["result"]["status"], "cancelled", "{mine}");
}

/// The official TypeScript client (2.4.0: no tasks extension; it refuses `tasks/get` on the
/// 2026 wire itself) against `conformance-server`'s task tools, over stdio and HTTP in both
/// eras: an optional task is answered synchronously, a required one refused with `-32021`
/// naming the extension (`tests/interop/ts/tasks.mjs`).
#[test]
fn the_official_typescript_client_gets_synchronous_answers_or_a_clear_refusal() {
    let dir = crate::interop::ensure_clients();
    let bin = mcp_tests::example_bin("conformance-server");
    let http = Spawned::start("conformance-server", &[]);
    let stdio: Vec<std::ffi::OsString> = vec![
        "--".into(),
        bin.into_os_string(),
        "--transport".into(),
        "stdio".into(),
    ];
    let over_http: Vec<std::ffi::OsString> = vec!["--url".into(), http.url.clone().into()];
    for target in [&stdio, &over_http] {
        for mode in ["legacy", "modern"] {
            let out = std::process::Command::new("node")
                .arg(dir.join("ts").join("tasks.mjs"))
                .args(["--mode", mode])
                .args(target)
                .current_dir(dir)
                .stdin(std::process::Stdio::null())
                .output()
                .expect("node runs");
            let stdout = String::from_utf8_lossy(&out.stdout);
            assert!(
                out.status.success(),
                "{mode} {target:?}: {stdout}\n{}",
                String::from_utf8_lossy(&out.stderr)
            );
            let summary: Value = serde_json::from_str(stdout.trim()).expect("one JSON line");
            assert_eq!(summary["required"], -32021, "{summary}");
            assert_eq!(summary["optional"], "Computed ts after 0.2 second(s)");
        }
    }
}

/// Waits a moment (an optional task tool's call would be a task by then), then answers at
/// once, or becomes a task when the work is long.
#[mcp_tool(task = "explicit")]
async fn look_up(cx: RequestContext, long: bool) -> String {
    tokio::time::sleep(Duration::from_millis(20)).await;
    if !long {
        return "cached".into();
    }
    let became = cx.become_task().await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    format!(
        "computed (as a task: {became}, id: {})",
        cx.task_id().is_some()
    )
}

#[tokio::test]
async fn an_explicit_task_tool_is_a_task_only_once_it_says_so() {
    let server = Server::builder("explicit", "1.0.0")
        .tool(look_up::tool())
        .build()
        .unwrap();
    assert!(
        server
            .capabilities()
            .extensions
            .as_ref()
            .is_some_and(|e| e.contains_key(TASKS_EXTENSION)),
        "an explicit task tool makes the server offer tasks"
    );
    let client = memory(&server).await;
    let call = |long: bool| {
        client.request(
            "tools/call",
            Some(json!({"name": "look_up", "arguments": {"long": long}})),
        )
    };
    // It waited, but never said so: answered as a call.
    let quick = bounded(call(false)).await.unwrap();
    assert_eq!(quick["resultType"], "complete", "{quick}");
    assert_eq!(quick["content"][0]["text"], "cached", "{quick}");
    assert!(quick.get("taskId").is_none(), "{quick}");
    // It said so: the caller gets the task's handle, and the result from the task.
    let handle = bounded(call(true)).await.unwrap();
    assert_eq!(handle["resultType"], "task", "{handle}");
    let id = handle["taskId"].as_str().unwrap().to_owned();
    let ended = until_ended(&client, &id).await;
    assert_eq!(ended.task.status, TaskStatus::Completed, "{ended:?}");
    assert_eq!(
        ended.result.as_ref().unwrap()["content"][0]["text"],
        "computed (as a task: true, id: true)",
        "{ended:?}"
    );
    // A client without the extension: the whole call, answered as one.
    let plain = Client::memory(&server).with_tasks(false);
    plain.connect(EraMode::Modern).await.unwrap();
    let whole = bounded(plain.request(
        "tools/call",
        Some(json!({"name": "look_up", "arguments": {"long": true}})),
    ))
    .await
    .unwrap();
    assert_eq!(whole["resultType"], "complete", "{whole}");
    assert_eq!(
        whole["content"][0]["text"], "computed (as a task: false, id: false)",
        "{whole}"
    );
}
