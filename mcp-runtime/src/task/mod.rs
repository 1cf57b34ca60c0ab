//! Tasks: tool calls that outlive their request (the 2026-07-28 tasks extension,
//! `io.modelcontextprotocol/tasks`, SEP-2663).
//!
//! A tool declares that it may run as a task, or only as one; the function stays a plain
//! async fn:
//!
//! ```
//! use mcp_runtime::prelude::*;
//! use std::time::Duration;
//!
//! /// Renders the report (a minute or so).
//! #[mcp_tool(task = "optional")]
//! async fn render_report(cx: RequestContext, pages: u32) -> String {
//!     for page in 1..=pages {
//!         tokio::time::sleep(Duration::from_millis(10)).await;
//!         cx.progress(f64::from(page), Some(f64::from(pages)), None).await;
//!     }
//!     format!("{pages} pages rendered")
//! }
//!
//! let server = Server::builder("reports", "1.0.0")
//!     .tool(render_report::tool())
//!     .build()
//!     .unwrap();
//! assert!(server.capabilities().extensions.as_ref().unwrap()
//!     .contains_key(mcp_runtime::protocol::task::TASKS_EXTENSION));
//! ```
//!
//! # What the server does
//!
//! - **Who gets a task.** Only a modern request that names the extension in its `_meta`
//!   client capabilities. For a [`TaskSupport::Optional`] tool the call is polled once where
//!   it arrives: finished at once, it is answered as usual (the immediate-result shortcut the
//!   extension allows); asking the client before anything else, it is an `input_required`
//!   round like any call; otherwise it becomes a task, created in the [`TaskStore`] before
//!   the `CreateTaskResult` is sent (an immediate `tasks/get` resolves). A
//!   [`TaskSupport::Required`] tool always becomes a task for a client with the extension,
//!   and is refused with `-32021` (naming the extension in `data.requiredCapabilities`) for
//!   one without it, legacy (2025-11-25) sessions included: the 2025-11-25 experimental
//!   tasks are not served (no official client uses them; the extension replaces them). A
//!   [`TaskSupport::Explicit`] tool's call is an ordinary request until the tool calls
//!   [`become_task`](crate::context::RequestContext::become_task); it becomes a task there.
//! - **The run.** The task's future runs on the server's runtime, not the request's, with
//!   the tool's whole stack: its timeout bounds the run (not the first answer), a
//!   concurrency limit counts running tasks, a rate limit counts creations, and the audit
//!   has one event when the task is created and one when it ends, both with its id. Progress
//!   reported through the context becomes the task's `statusMessage`. An ask of the client
//!   (`cx.elicit`, `cx.sample`, `cx.roots`) puts the task in `input_required` with the ask
//!   in its `inputRequests` and waits for `tasks/update`; answers to keys not outstanding are
//!   ignored, and a partial answer keeps the task `input_required` with the rest.
//! - **The end.** A result (an `isError` one included, and a policy's refusal) makes the
//!   task `completed` with the result inline; a protocol error makes it `failed` with the
//!   error. `tasks/cancel` drops the task's future (its work stops, as a cancelled call's
//!   does) and is idempotent; a task ended before is left as it ended.
//! - **Visibility.** A task created by an authenticated caller is visible only to that
//!   identity: for anyone else its id does not exist (`-32602`), as for an unknown or
//!   expired one.
//! - **Storage.** Tasks live in a [`TaskStore`]; the default, [`MemoryTaskStore`], needs no
//!   setup and is bounded ([`TaskLimits`]): when full, new tasks are refused with a
//!   retryable `isError` result, and no live task is ever dropped to make room. A task is
//!   kept for its TTL ([`TaskOptions::ttl`], from its creation), then swept.

mod memory;
mod runtime;
pub mod suite;

pub use memory::MemoryTaskStore;
pub(crate) use runtime::TaskSignal;
pub(crate) use runtime::{AskFailure, TaskHub, TaskLink};

pub use crate::protocol::task::{TASKS_EXTENSION, TaskStatus};

use crate::protocol::JsonObject;
use crate::protocol::McpError;
use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Whether a tool runs as a task (`#[mcp_tool(task = "optional" | "required")]`, or
/// [`ToolPolicy::task`](crate::tool::ToolPolicy::task)).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum TaskSupport {
    /// Never: every call is answered synchronously.
    #[default]
    Never,
    /// When the client supports tasks and the call does not finish at once; otherwise
    /// synchronously.
    Optional,
    /// Always: a client without the extension is refused with `-32021`.
    Required,
    /// Only when the tool says so: for a client with the extension the call runs as an
    /// ordinary request (answered when the tool returns, its asks `input_required` rounds)
    /// until the tool calls [`RequestContext::become_task`](crate::context::RequestContext::become_task),
    /// which makes it a task there and then; a client without the extension always gets an
    /// ordinary call. For a tool that learns only once started whether its work is long:
    /// a cache that misses, or a proxy whose upstream made a task of the call
    /// ([`proxy`](crate::proxy)).
    Explicit,
}

/// One task as a [`TaskStore`] keeps it: everything about it is owned data, so a store may
/// keep it in another process (serialized as JSON).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TaskRecord {
    /// Its identifier.
    pub id: String,
    /// The identity of the caller that created it (`None`: an unauthenticated caller).
    pub owner: Option<String>,
    /// What the store counts it under for [`TaskLimits::max_per_owner`]: the owner, else,
    /// for an unauthenticated caller over HTTP, `network:` and the caller's network (an
    /// IPv4 address, an IPv6 `/64`, this machine as one, as the HTTP limits count callers),
    /// so that one address cannot fill the store for everyone. `None`: counted only in the
    /// store's total (a stdio client, the one user of its server).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quota: Option<String>,
    /// The tool it runs.
    pub tool: String,
    /// Its status.
    pub status: TaskStatus,
    /// The latest status message.
    pub status_message: Option<String>,
    /// Creation time, in milliseconds since the Unix epoch.
    pub created_at_ms: u64,
    /// Time of the latest change, in milliseconds since the Unix epoch.
    pub last_updated_at_ms: u64,
    /// How long after creation it is kept, in milliseconds.
    pub ttl_ms: u64,
    /// The polling interval the client is told, in milliseconds.
    pub poll_interval_ms: u64,
    /// The asks the client has not answered yet, by key (each an `InputRequest` as JSON).
    pub input_requests: JsonObject,
    /// Answers delivered by `tasks/update` that the task has not taken yet, by key.
    pub input_responses: JsonObject,
    /// `completed`: the result, as the client will see it, serialized (it is only ever
    /// stored and sent on, so it is kept as the JSON text it will be sent as).
    pub result: Option<Box<serde_json::value::RawValue>>,
    /// `failed`: the error.
    pub error: Option<McpError>,
}

impl TaskRecord {
    /// A new `working` task, created now.
    pub fn new(id: String, owner: Option<String>, tool: String, options: &TaskOptions) -> Self {
        let now = now_ms();
        Self {
            id,
            quota: owner.clone(),
            owner,
            tool,
            status: TaskStatus::Working,
            status_message: None,
            created_at_ms: now,
            last_updated_at_ms: now,
            ttl_ms: duration_ms(options.ttl),
            poll_interval_ms: duration_ms(options.poll_interval),
            input_requests: JsonObject::new(),
            input_responses: JsonObject::new(),
            result: None,
            error: None,
        }
    }

    /// When it expires, in milliseconds since the Unix epoch.
    pub fn expires_at_ms(&self) -> u64 {
        self.created_at_ms.saturating_add(self.ttl_ms)
    }

    /// Whether it has expired at `now_ms`.
    pub fn expired(&self, now_ms: u64) -> bool {
        now_ms >= self.expires_at_ms()
    }

    /// An estimate of what it occupies, in bytes (its JSON's length, counted without
    /// serializing it): what a store bounds by.
    pub fn size(&self) -> usize {
        let json = json_size;
        std::mem::size_of::<Self>()
            + self.id.len()
            + self.owner.as_ref().map_or(0, String::len)
            + self.tool.len()
            + self.status_message.as_ref().map_or(0, String::len)
            + json(&self.input_requests)
            + json(&self.input_responses)
            + self.result.as_ref().map_or(0, |r| r.get().len())
            + self.error.as_ref().map_or(0, |e| {
                e.message.len() + e.data.as_ref().map_or(0, |d| d.to_string().len())
            })
    }
}

/// The length of `object` serialized as JSON, about (strings counted without escapes),
/// computed without serializing it.
pub fn json_size(object: &JsonObject) -> usize {
    fn value(v: &serde_json::Value) -> usize {
        match v {
            serde_json::Value::Null => 4,
            serde_json::Value::Bool(_) => 5,
            serde_json::Value::Number(_) => 8,
            serde_json::Value::String(s) => s.len() + 2,
            serde_json::Value::Array(items) => {
                2 + items.iter().map(|i| value(i) + 1).sum::<usize>()
            }
            serde_json::Value::Object(o) => json_size(o),
        }
    }
    2 + object
        .iter()
        .map(|(k, v)| k.len() + 4 + value(v))
        .sum::<usize>()
}

/// How a task ends.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum TaskEnd {
    /// With a result (`completed`), serialized.
    Completed(Box<serde_json::value::RawValue>),
    /// With a protocol error (`failed`).
    Failed(McpError),
}

/// Why a store could not do what was asked.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// No such task (never created, expired, or swept).
    #[error("no such task")]
    NotFound,
    /// The store is full; retrying later may succeed.
    #[error("the task store is full ({0}); retry later")]
    Full(String),
    /// The store cannot be reached or failed (another process, a network).
    #[error("the task store failed: {0}")]
    Unavailable(String),
}

/// Where tasks live: in this process ([`MemoryTaskStore`], the default) or in a store other
/// instances share.
///
/// Designed for a store that is another process: every method is async and fallible, and
/// takes and returns owned data. Every change is atomic per task (a shared store applies it
/// with one transaction or script). Run [`suite::check`] against an implementation: it is
/// the behaviour the server relies on.
pub trait TaskStore: Send + Sync + 'static {
    /// Stores a new task. Refuses with [`StoreError::Full`] when the store's bounds are
    /// reached, never by dropping a live task. When it returns, `get` finds the task.
    fn create(&self, task: TaskRecord) -> BoxFuture<'_, Result<(), StoreError>>;

    /// The task, unless unknown or expired.
    fn get<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<TaskRecord>, StoreError>>;

    /// Sets the status message of a task that has not ended (no change otherwise).
    fn set_message<'a>(
        &'a self,
        id: &'a str,
        message: String,
    ) -> BoxFuture<'a, Result<(), StoreError>>;

    /// Adds asks to the task's outstanding `inputRequests` (keys already used by the task
    /// are not replaced), and makes a task that has not ended `input_required`.
    fn request_input<'a>(
        &'a self,
        id: &'a str,
        requests: JsonObject,
    ) -> BoxFuture<'a, Result<(), StoreError>>;

    /// Delivers answers: each one whose key is outstanding is kept for the task and its ask
    /// no longer outstanding; others are ignored. When nothing is outstanding any more, an
    /// `input_required` task is `working` again. Returns how many answers were taken.
    fn respond<'a>(
        &'a self,
        id: &'a str,
        responses: JsonObject,
    ) -> BoxFuture<'a, Result<usize, StoreError>>;

    /// Takes the answers delivered so far (they are the task's own from then on).
    fn take_responses<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<JsonObject, StoreError>>;

    /// Ends a task that has not ended; returns whether it did (a task cancelled meanwhile
    /// stays cancelled).
    fn finish<'a>(&'a self, id: &'a str, end: TaskEnd) -> BoxFuture<'a, Result<bool, StoreError>>;

    /// Cancels a task that has not ended (outstanding asks are withdrawn); a task that has
    /// ended is left as it is. Returns the task as it is afterwards.
    fn cancel<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<TaskRecord, StoreError>>;

    /// Removes the tasks whose TTL has run out; returns how many.
    fn sweep(&self) -> BoxFuture<'_, Result<usize, StoreError>>;

    /// Keeps a task that runs in this process alive, and says where it is: a shared store
    /// renews the task's lease (past it, with nobody renewing, the task is `failed`: its
    /// instance died). Called every [`TaskOptions::store_poll`] while the task runs, for a
    /// shared store only. Returns the task's status (`None`: gone). Default: its status.
    fn renew<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<TaskStatus>, StoreError>> {
        Box::pin(async move { Ok(self.get(id).await?.map(|task| task.status)) })
    }

    /// Whether other processes change its tasks too (instances sharing a store). A task
    /// running here then looks at the store every [`TaskOptions::store_poll`] for a
    /// cancellation made elsewhere; in a store of this process alone every cancellation
    /// reaches the task directly. Default: `true`.
    fn is_shared(&self) -> bool {
        true
    }
}

/// Bounds of a [`MemoryTaskStore`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct TaskLimits {
    /// Tasks kept at once, ended ones included until they expire.
    pub max_tasks: usize,
    /// Bytes of task state (results, asks, answers) kept at once.
    pub max_bytes: usize,
    /// Tasks kept at once for one caller, so one caller cannot fill the store for everyone:
    /// an authenticated identity, or an unauthenticated caller's network over HTTP
    /// ([`TaskRecord::quota`]; stdio clients share [`max_tasks`](Self::max_tasks) alone).
    pub max_per_owner: usize,
}

impl Default for TaskLimits {
    fn default() -> Self {
        Self {
            max_tasks: 10_000,
            max_bytes: 256 * 1024 * 1024,
            max_per_owner: 1_000,
        }
    }
}

impl TaskLimits {
    /// The defaults: 10,000 tasks, 256 MiB, 1,000 per identity.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets [`max_tasks`](Self::max_tasks).
    pub fn max_tasks(mut self, n: usize) -> Self {
        self.max_tasks = n;
        self
    }

    /// Sets [`max_bytes`](Self::max_bytes).
    pub fn max_bytes(mut self, n: usize) -> Self {
        self.max_bytes = n;
        self
    }

    /// Sets [`max_per_owner`](Self::max_per_owner).
    pub fn max_per_owner(mut self, n: usize) -> Self {
        self.max_per_owner = n;
        self
    }
}

/// How the server runs tasks ([`ServerBuilder::tasks`](crate::ServerBuilder::tasks)).
#[derive(Clone)]
#[non_exhaustive]
pub struct TaskOptions {
    /// How long a task is kept after its creation (its `ttlMs`). Default: one hour.
    pub ttl: Duration,
    /// How long a task of an unauthenticated caller over HTTP is kept at most (the
    /// shorter of this and [`ttl`](Self::ttl)): such callers are told apart only by their
    /// network, so what they leave in the store should not outlive them for long.
    /// Default: ten minutes.
    pub unauthenticated_ttl: Duration,
    /// The polling interval clients are told (`pollIntervalMs`). Default: 500 ms.
    pub poll_interval: Duration,
    /// How often a running task looks at the store for a cancellation or answers that did
    /// not arrive through this process (a store shared by instances). Default: one second.
    pub store_poll: Duration,
    /// Where tasks live. Default: a [`MemoryTaskStore`] with [`TaskLimits::default`].
    pub store: std::sync::Arc<dyn TaskStore>,
}

impl std::fmt::Debug for TaskOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TaskOptions")
            .field("ttl", &self.ttl)
            .field("unauthenticated_ttl", &self.unauthenticated_ttl)
            .field("poll_interval", &self.poll_interval)
            .field("store_poll", &self.store_poll)
            .finish_non_exhaustive()
    }
}

impl Default for TaskOptions {
    fn default() -> Self {
        Self {
            ttl: Duration::from_secs(3600),
            unauthenticated_ttl: Duration::from_secs(600),
            poll_interval: Duration::from_millis(500),
            store_poll: Duration::from_secs(1),
            store: std::sync::Arc::new(MemoryTaskStore::new(TaskLimits::default())),
        }
    }
}

impl TaskOptions {
    /// The defaults.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets [`ttl`](Self::ttl).
    pub fn ttl(mut self, ttl: Duration) -> Self {
        self.ttl = ttl;
        self
    }

    /// Sets [`unauthenticated_ttl`](Self::unauthenticated_ttl).
    pub fn unauthenticated_ttl(mut self, ttl: Duration) -> Self {
        self.unauthenticated_ttl = ttl;
        self
    }

    /// Sets [`poll_interval`](Self::poll_interval).
    pub fn poll_interval(mut self, interval: Duration) -> Self {
        self.poll_interval = interval;
        self
    }

    /// Sets [`store_poll`](Self::store_poll).
    pub fn store_poll(mut self, interval: Duration) -> Self {
        self.store_poll = interval;
        self
    }

    /// Sets [`store`](Self::store).
    pub fn store(mut self, store: impl TaskStore) -> Self {
        self.store = std::sync::Arc::new(store);
        self
    }
}

/// The longest task TTL `build()` accepts (a day): a task is state held for a client.
pub const MAX_TASK_TTL: Duration = Duration::from_secs(24 * 3600);

/// Now, in milliseconds since the Unix epoch.
pub(crate) fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

fn duration_ms(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}
