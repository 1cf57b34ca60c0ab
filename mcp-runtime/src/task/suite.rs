//! The behaviour every [`TaskStore`] must have, as checks any implementation can run
//! against itself (the in-memory store runs them in this crate's tests; a store kept in
//! another process runs them against a real instance of it).
//!
//! ```
//! use mcp_runtime::task::{MemoryTaskStore, TaskLimits, suite};
//!
//! # #[tokio::main(flavor = "current_thread")] async fn main() {
//! suite::check(&MemoryTaskStore::new(TaskLimits::default())).await;
//! suite::check_bounds(&MemoryTaskStore::new(TaskLimits::new().max_tasks(3).max_per_owner(2)), 3, 2).await;
//! # }
//! ```

use super::{StoreError, TaskEnd, TaskOptions, TaskRecord, TaskStatus, TaskStore};
use crate::protocol::JsonObject;
use crate::protocol::McpError;
use crate::protocol::input::ROOTS_METHOD;
use serde_json::json;
use std::time::Duration;

fn unique(prefix: &str) -> String {
    let mut bytes = [0u8; 8];
    getrandom::fill(&mut bytes).expect("the operating system's random generator works");
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    format!("{prefix}-{hex}")
}

fn record(prefix: &str, owner: Option<&str>, ttl: Duration) -> TaskRecord {
    TaskRecord::new(
        unique(prefix),
        owner.map(str::to_owned),
        "tool".into(),
        &TaskOptions::default().ttl(ttl),
    )
}

fn object(value: serde_json::Value) -> JsonObject {
    match value {
        serde_json::Value::Object(o) => o,
        _ => unreachable!("an object literal"),
    }
}

/// Checks the behaviour of one store: creation is visible at once, status changes, input
/// requests and partial answers, the end of a task (a cancelled task stays cancelled),
/// idempotent cancellation, unknown ids, and expiry. Panics with what went wrong.
pub async fn check(store: &dyn TaskStore) {
    let hour = Duration::from_secs(3600);

    // Created, then found at once.
    let task = record("suite-create", Some("alice"), hour);
    store.create(task.clone()).await.expect("create");
    let got = store
        .get(&task.id)
        .await
        .expect("get")
        .expect("found at once");
    assert_eq!(got.status, TaskStatus::Working);
    assert_eq!(got.owner.as_deref(), Some("alice"));
    assert_eq!(got.ttl_ms, 3_600_000);

    // Unknown ids.
    assert!(
        store
            .get("suite-no-such-task")
            .await
            .expect("get")
            .is_none()
    );
    assert!(matches!(
        store.cancel("suite-no-such-task").await,
        Err(StoreError::NotFound)
    ));
    assert_eq!(
        store.respond("suite-no-such-task", JsonObject::new()).await,
        Err(StoreError::NotFound)
    );

    // A status message.
    store
        .set_message(&task.id, "halfway".into())
        .await
        .expect("set_message");
    let got = store.get(&task.id).await.expect("get").expect("found");
    assert_eq!(got.status_message.as_deref(), Some("halfway"));

    // Two asks, answered one at a time; answers to other keys are ignored.
    store
        .request_input(
            &task.id,
            object(json!({"a": {"method": ROOTS_METHOD}, "b": {"method": ROOTS_METHOD}})),
        )
        .await
        .expect("request_input");
    let got = store.get(&task.id).await.expect("get").expect("found");
    assert_eq!(got.status, TaskStatus::InputRequired);
    assert_eq!(got.input_requests.len(), 2);
    let taken = store
        .respond(
            &task.id,
            object(json!({"a": {"roots": []}, "never-asked": {"x": 1}})),
        )
        .await
        .expect("respond");
    assert_eq!(taken, 1, "only the outstanding key is taken");
    let got = store.get(&task.id).await.expect("get").expect("found");
    assert_eq!(
        got.status,
        TaskStatus::InputRequired,
        "one ask still outstanding"
    );
    assert_eq!(
        got.input_requests.keys().collect::<Vec<_>>(),
        vec!["b"],
        "only the unanswered ask stays outstanding"
    );
    // An answer to a key already answered is ignored.
    let again = store
        .respond(&task.id, object(json!({"a": {"roots": [1]}})))
        .await
        .expect("respond");
    assert_eq!(again, 0);
    let answers = store.take_responses(&task.id).await.expect("take");
    assert_eq!(answers.get("a"), Some(&json!({"roots": []})));
    assert_eq!(
        store.take_responses(&task.id).await.expect("take"),
        JsonObject::new(),
        "taken once"
    );
    store
        .respond(&task.id, object(json!({"b": {"roots": []}})))
        .await
        .expect("respond");
    let got = store.get(&task.id).await.expect("get").expect("found");
    assert_eq!(
        got.status,
        TaskStatus::Working,
        "working again once every ask is answered"
    );
    assert!(got.input_requests.is_empty());

    // Completed with its result; a later end does not change it; cancel is a no-op.
    let result =
        serde_json::value::to_raw_value(&json!({"content": [{"type": "text", "text": "done"}]}))
            .expect("JSON");
    assert!(
        store
            .finish(&task.id, TaskEnd::Completed(result.clone()))
            .await
            .expect("finish")
    );
    assert!(
        !store
            .finish(&task.id, TaskEnd::Failed(McpError::internal("late")))
            .await
            .expect("finish"),
        "a task ends once"
    );
    let after = store.cancel(&task.id).await.expect("cancel an ended task");
    assert_eq!(after.status, TaskStatus::Completed);
    let got = store.get(&task.id).await.expect("get").expect("found");
    assert_eq!(got.status, TaskStatus::Completed);
    assert_eq!(
        got.result.map(|r| r.get().to_owned()),
        Some(result.get().to_owned())
    );

    // Failed with its error.
    let failing = record("suite-fail", None, hour);
    store.create(failing.clone()).await.expect("create");
    store
        .finish(&failing.id, TaskEnd::Failed(McpError::internal("boom")))
        .await
        .expect("finish");
    let got = store.get(&failing.id).await.expect("get").expect("found");
    assert_eq!(got.status, TaskStatus::Failed);
    let error = got.error.expect("a failed task keeps its error");
    assert_eq!(error, McpError::internal("boom"));

    // Cancelled: idempotent, withdraws asks, and wins over a late end.
    let cancelled = record("suite-cancel", None, hour);
    store.create(cancelled.clone()).await.expect("create");
    store
        .request_input(
            &cancelled.id,
            object(json!({"x": {"method": ROOTS_METHOD}})),
        )
        .await
        .expect("request_input");
    let first = store.cancel(&cancelled.id).await.expect("cancel");
    assert_eq!(first.status, TaskStatus::Cancelled);
    assert!(first.input_requests.is_empty());
    let second = store.cancel(&cancelled.id).await.expect("cancel again");
    assert_eq!(second.status, TaskStatus::Cancelled);
    assert!(
        !store
            .finish(
                &cancelled.id,
                TaskEnd::Completed(serde_json::value::to_raw_value(&json!({})).expect("JSON")),
            )
            .await
            .expect("finish"),
        "a cancelled task stays cancelled"
    );
    assert_eq!(
        store
            .get(&cancelled.id)
            .await
            .expect("get")
            .expect("found")
            .status,
        TaskStatus::Cancelled
    );

    // Expiry: gone once the TTL has run out, and swept.
    let short = record("suite-expire", None, Duration::from_millis(1));
    store.create(short.clone()).await.expect("create");
    tokio::time::sleep(Duration::from_millis(20)).await;
    store.sweep().await.expect("sweep");
    assert!(
        store.get(&short.id).await.expect("get").is_none(),
        "expired"
    );
    assert_eq!(
        store.set_message(&short.id, "late".into()).await,
        Err(StoreError::NotFound)
    );
}

/// Checks the bounds of a store made with room for `max_tasks` tasks and `max_per_owner`
/// per identity (an empty store): creations past either are refused with
/// [`StoreError::Full`], every task created before stays, and room made by expiry is
/// reused.
pub async fn check_bounds(store: &dyn TaskStore, max_tasks: usize, max_per_owner: usize) {
    assert!(
        max_per_owner < max_tasks,
        "the check needs room beyond one owner"
    );
    let hour = Duration::from_secs(3600);
    let mut kept = Vec::new();
    for _ in 0..max_per_owner {
        let task = record("bounds-owner", Some("mallory"), hour);
        store.create(task.clone()).await.expect("within bounds");
        kept.push(task.id);
    }
    let refused = store
        .create(record("bounds-owner", Some("mallory"), hour))
        .await;
    assert!(
        matches!(refused, Err(StoreError::Full(_))),
        "one identity past its share is refused: {refused:?}"
    );
    // Others still have room, up to the store's bound, with short-lived tasks last.
    let mut short = Vec::new();
    while kept.len() + short.len() < max_tasks {
        let task = record("bounds-other", None, Duration::from_millis(1));
        store.create(task.clone()).await.expect("within bounds");
        short.push(task.id);
    }
    tokio::time::sleep(Duration::from_millis(20)).await;
    // Full, until the expired ones are swept: the creation sweeps them itself.
    let task = record("bounds-after-expiry", None, hour);
    store
        .create(task.clone())
        .await
        .expect("expired tasks make room");
    kept.push(task.id);
    while kept.len() < max_tasks {
        let task = record("bounds-fill", None, hour);
        store.create(task.clone()).await.expect("within bounds");
        kept.push(task.id);
    }
    let refused = store.create(record("bounds-full", None, hour)).await;
    assert!(
        matches!(refused, Err(StoreError::Full(_))),
        "a full store refuses: {refused:?}"
    );
    for id in &kept {
        assert!(
            store.get(id).await.expect("get").is_some(),
            "a live task was dropped to make room: {id}"
        );
    }
}
