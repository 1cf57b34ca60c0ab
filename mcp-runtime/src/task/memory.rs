//! [`MemoryTaskStore`]: tasks in this process, bounded and swept.

use super::{StoreError, TaskEnd, TaskLimits, TaskRecord, TaskStatus, TaskStore, now_ms};
use crate::protocol::JsonObject;
use futures::future::BoxFuture;
use std::collections::HashMap;
use std::sync::Mutex;

/// The default [`TaskStore`]: a map in this process, bounded by count, bytes and tasks per
/// identity ([`TaskLimits`]), with expired tasks swept (on the way, when a creation finds the
/// store full, and at most once a second otherwise). An expired task is never served, swept
/// or not.
///
/// Full means full: a new task is refused with [`StoreError::Full`]; a live task is never
/// dropped to make room (unlike a cache's eviction, which would make a running task's id
/// unknown to its client).
///
/// One lock guards the map; every operation holds it for a map lookup and a small change
/// (serializing a result for its size happens before the lock is taken).
#[derive(Debug)]
pub struct MemoryTaskStore {
    limits: TaskLimits,
    inner: Mutex<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    /// Boxed, so the map's buckets (which it keeps until shrunk) stay small.
    tasks: HashMap<String, Box<Entry>>,
    per_owner: HashMap<String, usize>,
    bytes: usize,
    last_sweep_ms: u64,
}

#[derive(Debug)]
struct Entry {
    record: TaskRecord,
    size: usize,
}

impl MemoryTaskStore {
    /// An empty store with these bounds.
    pub fn new(limits: TaskLimits) -> Self {
        Self {
            limits,
            inner: Mutex::new(Inner::default()),
        }
    }

    /// How many tasks it holds (expired ones not swept yet included).
    pub fn len(&self) -> usize {
        self.lock().tasks.len()
    }

    /// Whether it holds no task.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The bytes of task state it holds, as [`TaskRecord::size`] estimates them.
    pub fn bytes(&self) -> usize {
        self.lock().bytes
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Applies `change` to a live task, keeping the byte count right.
    fn update<T>(
        &self,
        id: &str,
        change: impl FnOnce(&mut TaskRecord) -> T,
    ) -> Result<T, StoreError> {
        let now = now_ms();
        let mut inner = self.lock();
        let inner = &mut *inner;
        let Some(entry) = inner.tasks.get_mut(id) else {
            return Err(StoreError::NotFound);
        };
        if entry.record.expired(now) {
            inner.remove(id);
            return Err(StoreError::NotFound);
        }
        let out = change(&mut entry.record);
        let size = entry.record.size();
        inner.bytes = inner.bytes - entry.size + size;
        entry.size = size;
        Ok(out)
    }
}

impl Inner {
    fn remove(&mut self, id: &str) {
        if let Some(entry) = self.tasks.remove(id) {
            self.bytes -= entry.size;
            if let Some(owner) = &entry.record.quota
                && let Some(n) = self.per_owner.get_mut(owner)
            {
                *n -= 1;
                if *n == 0 {
                    self.per_owner.remove(owner);
                }
            }
        }
    }

    fn sweep(&mut self, now: u64) -> usize {
        // A scan rather than an index kept in expiry order: a sweep runs at most once a second
        // (or when the store is full), while an index would cost every creation.
        let expired: Vec<String> = self
            .tasks
            .values()
            .filter(|entry| entry.record.expired(now))
            .map(|entry| entry.record.id.clone())
            .collect();
        for id in &expired {
            self.remove(id);
        }
        // Give back what a crowd of expired tasks left behind (a map never shrinks itself).
        if self.tasks.capacity() > 4 * self.tasks.len().max(64) {
            self.tasks.shrink_to_fit();
            self.per_owner.shrink_to_fit();
        }
        self.last_sweep_ms = now;
        expired.len()
    }
}

fn touch(record: &mut TaskRecord) {
    record.last_updated_at_ms = now_ms().max(record.last_updated_at_ms);
}

impl TaskStore for MemoryTaskStore {
    fn create(&self, task: TaskRecord) -> BoxFuture<'_, Result<(), StoreError>> {
        let size = task.size();
        let now = now_ms();
        let result = (|| {
            let mut inner = self.lock();
            if now.saturating_sub(inner.last_sweep_ms) >= 1_000 {
                inner.sweep(now);
            }
            let over_owner = |inner: &Inner| {
                task.quota.as_ref().is_some_and(|o| {
                    inner.per_owner.get(o).copied().unwrap_or(0) >= self.limits.max_per_owner
                })
            };
            let full = |inner: &Inner| {
                inner.tasks.len() >= self.limits.max_tasks
                    || inner.bytes + size > self.limits.max_bytes
                    || over_owner(inner)
            };
            if full(&inner) {
                inner.sweep(now);
            }
            if over_owner(&inner) {
                return Err(StoreError::Full(format!(
                    "{} tasks for this caller",
                    self.limits.max_per_owner
                )));
            }
            if inner.tasks.len() >= self.limits.max_tasks {
                return Err(StoreError::Full(format!("{} tasks", self.limits.max_tasks)));
            }
            if inner.bytes + size > self.limits.max_bytes {
                return Err(StoreError::Full(format!(
                    "{} bytes of task state",
                    self.limits.max_bytes
                )));
            }
            if inner.tasks.contains_key(&task.id) {
                return Err(StoreError::Unavailable(
                    "a task with this id exists already".into(),
                ));
            }
            if let Some(owner) = &task.quota {
                *inner.per_owner.entry(owner.clone()).or_default() += 1;
            }
            inner.bytes += size;
            inner
                .tasks
                .insert(task.id.clone(), Box::new(Entry { record: task, size }));
            Ok(())
        })();
        Box::pin(std::future::ready(result))
    }

    fn get<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<TaskRecord>, StoreError>> {
        let now = now_ms();
        let mut inner = self.lock();
        let found = match inner.tasks.get(id) {
            Some(entry) if entry.record.expired(now) => {
                inner.remove(id);
                None
            }
            Some(entry) => Some(entry.record.clone()),
            None => None,
        };
        Box::pin(std::future::ready(Ok(found)))
    }

    fn set_message<'a>(
        &'a self,
        id: &'a str,
        message: String,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        let result = self.update(id, |task| {
            if !task.status.is_terminal() {
                task.status_message = Some(message);
                touch(task);
            }
        });
        Box::pin(std::future::ready(result))
    }

    fn request_input<'a>(
        &'a self,
        id: &'a str,
        requests: JsonObject,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        let result = self.update(id, |task| {
            if task.status.is_terminal() {
                return;
            }
            for (key, request) in requests {
                task.input_requests.entry(key).or_insert(request);
            }
            task.status = TaskStatus::InputRequired;
            touch(task);
        });
        Box::pin(std::future::ready(result))
    }

    fn respond<'a>(
        &'a self,
        id: &'a str,
        responses: JsonObject,
    ) -> BoxFuture<'a, Result<usize, StoreError>> {
        let result = self.update(id, |task| {
            let mut taken = 0;
            for (key, answer) in responses {
                if task.input_requests.remove(&key).is_some() {
                    task.input_responses.insert(key, answer);
                    taken += 1;
                }
            }
            if taken > 0 {
                if task.status == TaskStatus::InputRequired && task.input_requests.is_empty() {
                    task.status = TaskStatus::Working;
                }
                touch(task);
            }
            taken
        });
        Box::pin(std::future::ready(result))
    }

    fn take_responses<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<JsonObject, StoreError>> {
        let result = self.update(id, |task| std::mem::take(&mut task.input_responses));
        Box::pin(std::future::ready(result))
    }

    fn finish<'a>(&'a self, id: &'a str, end: TaskEnd) -> BoxFuture<'a, Result<bool, StoreError>> {
        let result = self.update(id, |task| {
            if task.status.is_terminal() {
                return false;
            }
            match end {
                TaskEnd::Completed(result) => {
                    task.status = TaskStatus::Completed;
                    task.result = Some(result);
                }
                TaskEnd::Failed(error) => {
                    task.status = TaskStatus::Failed;
                    task.status_message = Some(error.message.to_string());
                    task.error = Some(error);
                }
            }
            task.input_requests.clear();
            task.input_responses.clear();
            touch(task);
            true
        });
        Box::pin(std::future::ready(result))
    }

    fn cancel<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<TaskRecord, StoreError>> {
        let result = self.update(id, |task| {
            if !task.status.is_terminal() {
                task.status = TaskStatus::Cancelled;
                task.status_message = Some("cancelled by the client".into());
                task.input_requests.clear();
                task.input_responses.clear();
                touch(task);
            }
            task.clone()
        });
        Box::pin(std::future::ready(result))
    }

    fn sweep(&self) -> BoxFuture<'_, Result<usize, StoreError>> {
        let swept = self.lock().sweep(now_ms());
        Box::pin(std::future::ready(Ok(swept)))
    }

    /// Only this process changes it.
    fn is_shared(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::task::suite;

    #[tokio::test]
    async fn the_memory_store_behaves_as_every_store_must() {
        suite::check(&MemoryTaskStore::new(TaskLimits::default())).await;
    }

    #[tokio::test]
    async fn the_memory_store_refuses_past_its_bounds_and_never_drops_a_live_task() {
        let store = MemoryTaskStore::new(TaskLimits::new().max_tasks(20).max_per_owner(5));
        suite::check_bounds(&store, 20, 5).await;
        assert_eq!(store.len(), 20);
    }

    #[tokio::test]
    async fn bytes_are_bounded_and_given_back_when_tasks_expire() {
        let store = MemoryTaskStore::new(TaskLimits::new().max_bytes(64 * 1024));
        let options = crate::task::TaskOptions::default().ttl(std::time::Duration::from_millis(1));
        let mut created = 0;
        loop {
            let task = TaskRecord::new(format!("t{created}"), None, "tool".into(), &options);
            match store.create(task).await {
                Ok(()) => created += 1,
                Err(StoreError::Full(why)) => {
                    assert!(why.contains("bytes"), "{why}");
                    break;
                }
                Err(other) => panic!("{other}"),
            }
            assert!(created < 10_000, "the byte bound never refused");
        }
        assert!(store.bytes() <= 64 * 1024);
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        assert!(store.sweep().await.is_ok_and(|n| n > 0));
        assert_eq!(store.bytes(), 0);
        assert!(store.is_empty());
    }
}
