//! The server's side of running tasks: the tasks running in this process (to cancel them and
//! wake them when answers arrive), and the link a running task's context asks through.

use super::{StoreError, TaskOptions, TaskStore};
use crate::protocol::InputRequest;
use crate::protocol::JsonObject;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

/// The tasks of one server: its options and store, and the tasks running in this process.
pub(crate) struct TaskHub {
    pub(crate) options: TaskOptions,
    /// A store shared by instances, attached after the server was built (`--redis`): it
    /// replaces `options.store`.
    shared: std::sync::OnceLock<Arc<dyn TaskStore>>,
    /// Where cancellations and answers are told to the other instances sharing the store.
    tell: std::sync::OnceLock<Teller>,
    running: Mutex<HashMap<String, Running>>,
}

impl std::fmt::Debug for TaskHub {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TaskHub")
            .field("options", &self.options)
            .field("shared", &self.shared.get().is_some())
            .finish_non_exhaustive()
    }
}

#[derive(Debug)]
struct Running {
    cancel: CancellationToken,
    wake: watch::Sender<()>,
}

impl TaskHub {
    pub(crate) fn new(options: TaskOptions) -> Self {
        Self {
            options,
            shared: std::sync::OnceLock::new(),
            tell: std::sync::OnceLock::new(),
            running: Mutex::new(HashMap::new()),
        }
    }

    pub(crate) fn store(&self) -> &dyn TaskStore {
        match self.shared.get() {
            Some(store) => &**store,
            None => &*self.options.store,
        }
    }

    /// Shares tasks with other instances: `store` replaces one of this process alone (a
    /// shared store configured in code stays), and `tell` carries cancellations and answers
    /// to the instance running the task.
    pub(crate) fn attach(&self, store: Arc<dyn TaskStore>, tell: Teller) {
        if !self.options.store.is_shared() {
            let _ = self.shared.set(store);
        }
        let _ = self.tell.set(tell);
    }

    /// Stops a task wherever it runs: here, or (told through the bus) on the instance that
    /// runs it.
    pub(crate) fn cancel_everywhere(&self, id: &str) {
        let here = self.lock().get(id).map(|running| running.cancel.clone());
        match here {
            Some(cancel) => cancel.cancel(),
            None => self.tell_fleet(id, true),
        }
    }

    /// Wakes a task that answers arrived for, wherever it runs.
    pub(crate) fn wake_everywhere(&self, id: &str) {
        let here = self.lock().get(id).map(|running| running.wake.clone());
        match here {
            Some(wake) => {
                wake.send_replace(());
            }
            None => self.tell_fleet(id, false),
        }
    }

    /// Tells the other instances (if any) that task `id` was cancelled, or answered.
    fn tell_fleet(&self, id: &str, cancelled: bool) {
        if let Some(tell) = self.tell.get() {
            tell(if cancelled {
                TaskSignal::Cancelled(id)
            } else {
                TaskSignal::Answered(id)
            });
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Running>> {
        self.running.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A fresh task id: 128 random bits (the id is a bearer of the task's state, so it must
    /// not be guessable).
    pub(crate) fn new_id() -> String {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        let mut bytes = [0u8; 16];
        getrandom::fill(&mut bytes).expect("the operating system's random generator works");
        let mut id = String::with_capacity(32);
        for b in bytes {
            id.push(char::from(HEX[usize::from(b >> 4)]));
            id.push(char::from(HEX[usize::from(b & 15)]));
        }
        id
    }

    /// Registers a task about to run here: its cancellation (`cancel`) and the link its
    /// context asks through.
    pub(crate) fn link(self: &Arc<Self>, id: String, cancel: CancellationToken) -> TaskLink {
        let (wake, _) = watch::channel(());
        self.lock().insert(
            id.clone(),
            Running {
                cancel,
                wake: wake.clone(),
            },
        );
        TaskLink {
            inner: Arc::new(LinkInner {
                hub: self.clone(),
                id,
                wake,
                mailbox: Mutex::new(JsonObject::new()),
                last_progress: Mutex::new(None),
            }),
        }
    }

    /// Forgets a task that stopped running here.
    pub(crate) fn unregister(&self, id: &str) {
        self.lock().remove(id);
    }

    /// Wakes a task running here that answers may have arrived for (another instance said
    /// so).
    pub(crate) fn wake(&self, id: &str) {
        if let Some(running) = self.lock().get(id) {
            running.wake.send_replace(());
        }
    }

    /// Stops a task running here (its future is dropped; another instance said so).
    pub(crate) fn cancel_local(&self, id: &str) {
        if let Some(running) = self.lock().get(id) {
            running.cancel.cancel();
        }
    }

    /// Resolves when the store says the task ended or is gone (a cancellation made by
    /// another instance sharing the store), looking every `store_poll`, and renewing the
    /// task's lease each time.
    pub(crate) async fn ended_elsewhere(&self, id: &str) {
        loop {
            tokio::time::sleep(self.options.store_poll).await;
            match self.store().renew(id).await {
                Ok(Some(status)) if !status.is_terminal() => {}
                Ok(_) => return,
                // A store that cannot be reached says nothing about the task: keep running.
                Err(_) => {}
            }
        }
    }
}

/// What one instance tells the others about a task running on one of them.
#[derive(Debug, Clone, Copy)]
pub(crate) enum TaskSignal<'a> {
    /// The task was cancelled: the instance running it stops it.
    Cancelled(&'a str),
    /// Answers arrived for it: the instance running it wakes it.
    Answered(&'a str),
}

/// Carries [`TaskSignal`]s to the other instances (the server wires it to its Redis bus).
pub(crate) type Teller = Box<dyn Fn(TaskSignal<'_>) + Send + Sync>;

/// How a running task's context reaches its client: asks become the task's
/// `inputRequests`, answers come from `tasks/update`; progress becomes its status message.
#[derive(Debug, Clone)]
pub(crate) struct TaskLink {
    inner: Arc<LinkInner>,
}

#[derive(Debug)]
struct LinkInner {
    hub: Arc<TaskHub>,
    id: String,
    wake: watch::Sender<()>,
    /// Answers taken from the store that no ask has claimed yet (asks made together share
    /// one take).
    mailbox: Mutex<JsonObject>,
    last_progress: Mutex<Option<f64>>,
}

/// Why an ask of a running task got no answer (the context makes it an `InputError`).
#[derive(Debug)]
pub(crate) enum AskFailure {
    /// The task is gone (cancelled and swept, or expired).
    Gone,
    /// The store failed, or the ask could not be encoded.
    Unavailable(String),
}

fn store_error(error: StoreError) -> AskFailure {
    match error {
        StoreError::NotFound => AskFailure::Gone,
        other => AskFailure::Unavailable(other.to_string()),
    }
}

impl TaskLink {
    /// The task's id.
    pub(crate) fn id(&self) -> &str {
        &self.inner.id
    }

    fn claim(&self, key: &str) -> Option<Value> {
        self.inner
            .mailbox
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(key)
    }

    /// Asks the client `request` under `key` (unique within the task), and waits for the
    /// answer `tasks/update` delivers.
    pub(crate) async fn ask(&self, key: &str, request: &InputRequest) -> Result<Value, AskFailure> {
        let store = self.inner.hub.store();
        let id = &self.inner.id;
        let json =
            serde_json::to_value(request).map_err(|e| AskFailure::Unavailable(e.to_string()))?;
        let mut wake = self.inner.wake.subscribe();
        let mut requests = JsonObject::new();
        requests.insert(key.to_owned(), json);
        store
            .request_input(id, requests)
            .await
            .map_err(store_error)?;
        loop {
            if let Some(answer) = self.claim(key) {
                return Ok(answer);
            }
            let taken = store.take_responses(id).await.map_err(store_error)?;
            if !taken.is_empty() {
                self.inner
                    .mailbox
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .extend(taken);
                if let Some(answer) = self.claim(key) {
                    return Ok(answer);
                }
                // Answers for asks made together: let them claim theirs.
                self.inner.wake.send_replace(());
            }
            tokio::select! {
                changed = wake.changed() => {
                    if changed.is_err() {
                        return Err(AskFailure::Gone);
                    }
                }
                () = tokio::time::sleep(self.inner.hub.options.store_poll) => {}
            }
        }
    }

    /// Sets the task's status message to `message` as it is (a proxied task's, which its
    /// upstream wrote).
    pub(crate) async fn set_message(&self, message: &str) -> bool {
        self.inner
            .hub
            .store()
            .set_message(&self.inner.id, message.to_owned())
            .await
            .is_ok()
    }

    /// Reports progress as the task's status message; values must increase, as for a
    /// request's progress notifications. Returns whether it was recorded.
    pub(crate) async fn progress(
        &self,
        progress: f64,
        total: Option<f64>,
        message: Option<&str>,
    ) -> bool {
        {
            let mut last = self
                .inner
                .last_progress
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            if last.is_some_and(|l| progress <= l) || !progress.is_finite() {
                return false;
            }
            *last = Some(progress);
        }
        let amount = match total {
            Some(total) => format!("{progress}/{total}"),
            None => format!("{progress}"),
        };
        let text = match message {
            Some(message) => format!("{message} ({amount})"),
            None => amount,
        };
        self.inner
            .hub
            .store()
            .set_message(&self.inner.id, text)
            .await
            .is_ok()
    }
}
