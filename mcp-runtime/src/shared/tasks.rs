//! [`RedisTaskStore`]: tasks in Redis, one hash per task, every change one Lua script.
//!
//! A task is the hash `{prefix}task:{id}`: `meta` (what never changes, as JSON), `status`,
//! `msg`, `updated`, `lease` (when its worker's lease runs out, in Redis's clock), `q:KEY`
//! for each outstanding ask and `a:KEY` for each answer not yet taken, `result` or `error`.
//! The scripts only move these strings around; JSON is read and written in Rust (Redis's
//! `cjson` would turn an empty array into an object). `{prefix}tasks` and
//! `{prefix}owner:{quota}` (the task's [`TaskRecord::quota`](crate::task::TaskRecord::quota):
//! an identity, or `network:` and an unauthenticated caller's network) index the tasks by expiry: creation sweeps them and counts
//! them against the bounds. The hash itself expires with the task (`PEXPIREAT`).
//!
//! Every script first looks at the lease: a task that has not ended and whose lease ran out
//! (its worker's instance stopped renewing it) is made `failed` there and then, so whoever
//! looks next, on any instance, sees it ended.
//!
//! Redis commands per operation: each is one `EVALSHA` (one round trip).

use super::RedisState;
use crate::protocol::JsonObject;
use crate::protocol::McpError;
use crate::task::{StoreError, TaskEnd, TaskRecord, TaskStatus, TaskStore};
use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::sync::LazyLock;

/// Shared by every script: the clock, the lease check, withdrawing asks.
const PRELUDE: &str = r"
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local TERMINAL = {completed = true, failed = true, cancelled = true}
local function clear_input(key)
  for _, f in ipairs(redis.call('HKEYS', key)) do
    local p = string.sub(f, 1, 2)
    if p == 'q:' or p == 'a:' then redis.call('HDEL', key, f) end
  end
end
local function touch(key, now)
  local before = tonumber(redis.call('HGET', key, 'updated') or '0')
  redis.call('HSET', key, 'updated', math.max(now, before))
end
-- The task's status (nil: unknown or expired), after failing it if its lease ran out.
local function load(key)
  local status = redis.call('HGET', key, 'status')
  if not status then return nil end
  if not TERMINAL[status] then
    local now = now_ms()
    if tonumber(redis.call('HGET', key, 'lease') or '0') < now then
      clear_input(key)
      redis.call('HSET', key, 'status', 'failed', 'error', ARGV[1], 'msg', ARGV[2])
      touch(key, now)
      status = 'failed'
    end
  end
  return status
end
";

/// KEYS: task, index, owner index (or ''). ARGV: lease error, its message, id, expires at,
/// max tasks, max per owner, meta, lease ms.
const CREATE: &str = r"
local now = now_ms()
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
local owned = KEYS[3] ~= ''
if owned then redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now) end
if owned and redis.call('ZCARD', KEYS[3]) >= tonumber(ARGV[6]) then return 'owner' end
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[5]) then return 'full' end
if redis.call('EXISTS', KEYS[1]) == 1 then return 'exists' end
redis.call('HSET', KEYS[1], 'meta', ARGV[7], 'status', 'working', 'updated', now,
  'lease', now + tonumber(ARGV[8]))
redis.call('PEXPIREAT', KEYS[1], ARGV[4])
redis.call('ZADD', KEYS[2], ARGV[4], ARGV[3])
if owned then
  redis.call('ZADD', KEYS[3], ARGV[4], ARGV[3])
  if redis.call('PEXPIRETIME', KEYS[3]) < tonumber(ARGV[4]) then
    redis.call('PEXPIREAT', KEYS[3], ARGV[4])
  end
end
return 'ok'
";

/// KEYS: task. Returns the hash, or nil.
const GET: &str = r"
if not load(KEYS[1]) then return false end
return redis.call('HGETALL', KEYS[1])
";

/// KEYS: task. ARGV[3]: the message.
const SET_MESSAGE: &str = r"
local status = load(KEYS[1])
if not status then return false end
if not TERMINAL[status] then
  redis.call('HSET', KEYS[1], 'msg', ARGV[3])
  touch(KEYS[1], now_ms())
end
return 1
";

/// KEYS: task. ARGV[3..]: key, ask JSON, key, ask JSON, ...
const REQUEST_INPUT: &str = r"
local status = load(KEYS[1])
if not status then return false end
if TERMINAL[status] then return 1 end
for i = 3, #ARGV, 2 do
  redis.call('HSETNX', KEYS[1], 'q:' .. ARGV[i], ARGV[i + 1])
end
redis.call('HSET', KEYS[1], 'status', 'input_required')
touch(KEYS[1], now_ms())
return 1
";

/// KEYS: task. ARGV[3..]: key, answer JSON, ... Returns how many were taken.
const RESPOND: &str = r"
local status = load(KEYS[1])
if not status then return false end
local taken = 0
for i = 3, #ARGV, 2 do
  if redis.call('HDEL', KEYS[1], 'q:' .. ARGV[i]) == 1 then
    redis.call('HSET', KEYS[1], 'a:' .. ARGV[i], ARGV[i + 1])
    taken = taken + 1
  end
end
if taken > 0 then
  if status == 'input_required' then
    local outstanding = false
    for _, f in ipairs(redis.call('HKEYS', KEYS[1])) do
      if string.sub(f, 1, 2) == 'q:' then outstanding = true break end
    end
    if not outstanding then redis.call('HSET', KEYS[1], 'status', 'working') end
  end
  touch(KEYS[1], now_ms())
end
return taken
";

/// KEYS: task. Returns the answers taken: key, JSON, ...
const TAKE_RESPONSES: &str = r"
if not load(KEYS[1]) then return false end
local out = {}
local all = redis.call('HGETALL', KEYS[1])
for i = 1, #all, 2 do
  if string.sub(all[i], 1, 2) == 'a:' then
    redis.call('HDEL', KEYS[1], all[i])
    out[#out + 1] = string.sub(all[i], 3)
    out[#out + 1] = all[i + 1]
  end
end
return out
";

/// KEYS: task. ARGV[3]: `completed` or `failed`; ARGV[4]: the result or the error; ARGV[5]:
/// the message of a failure. Returns 1 if it ended the task, 0 if it had ended.
const FINISH: &str = r"
local status = load(KEYS[1])
if not status then return false end
if TERMINAL[status] then return 0 end
clear_input(KEYS[1])
if ARGV[3] == 'completed' then
  redis.call('HSET', KEYS[1], 'status', 'completed', 'result', ARGV[4])
else
  redis.call('HSET', KEYS[1], 'status', 'failed', 'error', ARGV[4], 'msg', ARGV[5])
end
touch(KEYS[1], now_ms())
return 1
";

/// KEYS: task. Returns the hash after.
const CANCEL: &str = r"
local status = load(KEYS[1])
if not status then return false end
if not TERMINAL[status] then
  clear_input(KEYS[1])
  redis.call('HSET', KEYS[1], 'status', 'cancelled', 'msg', 'cancelled by the client')
  touch(KEYS[1], now_ms())
end
return redis.call('HGETALL', KEYS[1])
";

/// KEYS: task. ARGV[3]: the lease in ms. Returns the status.
const RENEW: &str = r"
local status = load(KEYS[1])
if not status then return false end
if not TERMINAL[status] then
  redis.call('HSET', KEYS[1], 'lease', now_ms() + tonumber(ARGV[3]))
end
return status
";

/// KEYS: index. Returns how many expired tasks left it.
const SWEEP: &str = r"
return redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now_ms())
";

struct Scripts {
    create: redis::Script,
    get: redis::Script,
    set_message: redis::Script,
    request_input: redis::Script,
    respond: redis::Script,
    take_responses: redis::Script,
    finish: redis::Script,
    cancel: redis::Script,
    renew: redis::Script,
    sweep: redis::Script,
}

static SCRIPTS: LazyLock<Scripts> = LazyLock::new(|| {
    // The shebang (Redis 7) makes Redis apply `maxmemory` to the script as a whole: without
    // `allow-oom`, a full Redis refuses it before it runs (a task is not created, no ask or
    // answer is added), where an unflagged script's writes would go through. Reads, ends,
    // renewals and sweeps run anyway, so the tasks there are can finish and be swept.
    let script = |grows: bool, body: &str| {
        let shebang = if grows {
            "#!lua"
        } else {
            "#!lua flags=allow-oom"
        };
        redis::Script::new(&format!("{shebang}\n{PRELUDE}{body}"))
    };
    Scripts {
        create: script(true, CREATE),
        get: script(false, GET),
        set_message: script(false, SET_MESSAGE),
        request_input: script(true, REQUEST_INPUT),
        respond: script(true, RESPOND),
        take_responses: script(false, TAKE_RESPONSES),
        finish: script(false, FINISH),
        cancel: script(false, CANCEL),
        renew: script(false, RENEW),
        sweep: script(false, SWEEP),
    }
});

/// What never changes about a task, stored as one JSON field.
#[derive(Serialize, Deserialize)]
struct Meta {
    id: String,
    owner: Option<String>,
    /// Absent in records written before it existed: the owner, as then.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    quota: Option<String>,
    tool: String,
    created: u64,
    ttl: u64,
    poll: u64,
}

/// Tasks kept in Redis, shared by every instance connected to it
/// ([`RedisState::task_store`]); passes [`suite::check`](crate::task::suite::check) and
/// [`suite::check_bounds`](crate::task::suite::check_bounds).
///
/// Bounds: [`TaskLimits::max_tasks`](crate::task::TaskLimits::max_tasks) and
/// [`max_per_owner`](crate::task::TaskLimits::max_per_owner) across the fleet (counted by
/// the indexes, at creation); [`max_bytes`](crate::task::TaskLimits::max_bytes) per task:
/// a result larger than it fails the task with an error saying so.
#[derive(Debug, Clone)]
pub struct RedisTaskStore {
    state: RedisState,
    /// The error a task whose lease ran out fails with, as JSON, and its message.
    lease_error: (String, String),
}

fn unavailable(e: String) -> StoreError {
    StoreError::Unavailable(e)
}

fn bad_record(what: &str) -> StoreError {
    StoreError::Unavailable(format!("a task in Redis is damaged: {what}"))
}

impl RedisTaskStore {
    pub(super) fn new(state: RedisState) -> Self {
        let error = McpError::internal(format!(
            "the server instance running this task stopped (its lease of {:?} ran out without \
             renewal); the task did not finish",
            state.options().lease
        ));
        let json = serde_json::to_string(&error).expect("an error serializes");
        Self {
            state,
            lease_error: (json, error.message.into_owned()),
        }
    }

    fn task_key(&self, id: &str) -> String {
        self.state.key(&format!("task:{id}"))
    }

    /// Invokes `script` on the task `id` with `args` after the lease arguments.
    async fn invoke<T: redis::FromRedisValue + Send + 'static>(
        &self,
        script: &'static redis::Script,
        id: &str,
        args: Vec<String>,
    ) -> Result<T, StoreError> {
        let key = self.task_key(id);
        let (error, message) = &self.lease_error;
        self.state
            .run(|mut c| {
                let mut invocation = script.key(&key);
                invocation.arg(error).arg(message);
                for arg in &args {
                    invocation.arg(arg);
                }
                Box::pin(async move { invocation.invoke_async(&mut c).await })
            })
            .await
            .map_err(unavailable)
    }

    fn record(hash: HashMap<String, String>) -> Result<TaskRecord, StoreError> {
        let meta: Meta = serde_json::from_str(hash.get("meta").ok_or_else(|| bad_record("meta"))?)
            .map_err(|_| bad_record("meta"))?;
        let status: TaskStatus = serde_json::from_value(serde_json::Value::String(
            hash.get("status").cloned().unwrap_or_default(),
        ))
        .map_err(|_| bad_record("status"))?;
        let mut input_requests = JsonObject::new();
        let mut input_responses = JsonObject::new();
        for (field, value) in &hash {
            let into = if let Some(key) = field.strip_prefix("q:") {
                Some((&mut input_requests, key))
            } else {
                field
                    .strip_prefix("a:")
                    .map(|key| (&mut input_responses, key))
            };
            if let Some((into, key)) = into {
                let value = serde_json::from_str(value).map_err(|_| bad_record("an ask"))?;
                into.insert(key.to_owned(), value);
            }
        }
        let result = match hash.get("result") {
            Some(text) => Some(
                serde_json::value::RawValue::from_string(text.clone())
                    .map_err(|_| bad_record("result"))?,
            ),
            None => None,
        };
        let error = match hash.get("error") {
            Some(text) => Some(serde_json::from_str(text).map_err(|_| bad_record("error"))?),
            None => None,
        };
        let updated = hash
            .get("updated")
            .and_then(|u| u.parse().ok())
            .unwrap_or(meta.created);
        let mut record = TaskRecord::new(meta.id, meta.owner, meta.tool, &Default::default());
        if meta.quota.is_some() {
            record.quota = meta.quota;
        }
        record.status = status;
        record.status_message = hash.get("msg").cloned();
        record.created_at_ms = meta.created;
        record.last_updated_at_ms = updated.max(meta.created);
        record.ttl_ms = meta.ttl;
        record.poll_interval_ms = meta.poll;
        record.input_requests = input_requests;
        record.input_responses = input_responses;
        record.result = result;
        record.error = error;
        Ok(record)
    }

    fn pairs(object: JsonObject) -> Vec<String> {
        object
            .into_iter()
            .flat_map(|(key, value)| [key, value.to_string()])
            .collect()
    }

    /// Renews the lease of a task running here; returns its status (`None`: gone).
    async fn renew_lease(&self, id: &str) -> Result<Option<TaskStatus>, StoreError> {
        let lease = self.state.options().lease.as_millis().to_string();
        let status: Option<String> = self.invoke(&SCRIPTS.renew, id, vec![lease]).await?;
        Ok(status.and_then(|s| serde_json::from_value(serde_json::Value::String(s)).ok()))
    }
}

impl TaskStore for RedisTaskStore {
    fn create(&self, task: TaskRecord) -> BoxFuture<'_, Result<(), StoreError>> {
        Box::pin(async move {
            let limits = &self.state.options().task_limits;
            if task.size() > limits.max_bytes {
                return Err(StoreError::Full(format!(
                    "a task of {} bytes (at most {} each)",
                    task.size(),
                    limits.max_bytes
                )));
            }
            let meta = serde_json::to_string(&Meta {
                id: task.id.clone(),
                owner: task.owner.clone(),
                quota: task.quota.clone(),
                tool: task.tool.clone(),
                created: task.created_at_ms,
                ttl: task.ttl_ms,
                poll: task.poll_interval_ms,
            })
            .expect("task metadata serializes");
            let owner_key = task
                .quota
                .as_ref()
                .map_or_else(String::new, |o| self.state.key(&format!("owner:{o}")));
            let keys = [self.task_key(&task.id), self.state.key("tasks"), owner_key];
            let args = [
                self.lease_error.0.clone(),
                self.lease_error.1.clone(),
                task.id.clone(),
                task.expires_at_ms().to_string(),
                limits.max_tasks.to_string(),
                limits.max_per_owner.to_string(),
                meta,
                self.state.options().lease.as_millis().to_string(),
            ];
            let outcome: String = self
                .state
                .run(|mut c| {
                    let mut invocation = SCRIPTS.create.prepare_invoke();
                    for key in &keys {
                        invocation.key(key);
                    }
                    for arg in &args {
                        invocation.arg(arg);
                    }
                    Box::pin(async move { invocation.invoke_async(&mut c).await })
                })
                .await
                .map_err(unavailable)?;
            match outcome.as_str() {
                "ok" => Ok(()),
                "owner" => Err(StoreError::Full(format!(
                    "{} tasks for this caller",
                    limits.max_per_owner
                ))),
                "full" => Err(StoreError::Full(format!("{} tasks", limits.max_tasks))),
                "exists" => Err(StoreError::Unavailable(
                    "a task with this id exists already".into(),
                )),
                other => Err(StoreError::Unavailable(format!(
                    "unexpected answer from Redis: {other}"
                ))),
            }
        })
    }

    fn get<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<TaskRecord>, StoreError>> {
        Box::pin(async move {
            let hash: Option<HashMap<String, String>> =
                self.invoke(&SCRIPTS.get, id, Vec::new()).await?;
            hash.map(Self::record).transpose()
        })
    }

    fn set_message<'a>(
        &'a self,
        id: &'a str,
        message: String,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let done: Option<i64> = self.invoke(&SCRIPTS.set_message, id, vec![message]).await?;
            done.map(drop).ok_or(StoreError::NotFound)
        })
    }

    fn request_input<'a>(
        &'a self,
        id: &'a str,
        requests: JsonObject,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let done: Option<i64> = self
                .invoke(&SCRIPTS.request_input, id, Self::pairs(requests))
                .await?;
            done.map(drop).ok_or(StoreError::NotFound)
        })
    }

    fn respond<'a>(
        &'a self,
        id: &'a str,
        responses: JsonObject,
    ) -> BoxFuture<'a, Result<usize, StoreError>> {
        Box::pin(async move {
            let taken: Option<usize> = self
                .invoke(&SCRIPTS.respond, id, Self::pairs(responses))
                .await?;
            taken.ok_or(StoreError::NotFound)
        })
    }

    fn take_responses<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<JsonObject, StoreError>> {
        Box::pin(async move {
            let taken: Option<Vec<String>> =
                self.invoke(&SCRIPTS.take_responses, id, Vec::new()).await?;
            let taken = taken.ok_or(StoreError::NotFound)?;
            let mut answers = JsonObject::new();
            for pair in taken.chunks_exact(2) {
                let value = serde_json::from_str(&pair[1]).map_err(|_| bad_record("an answer"))?;
                answers.insert(pair[0].clone(), value);
            }
            Ok(answers)
        })
    }

    fn finish<'a>(&'a self, id: &'a str, end: TaskEnd) -> BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(async move {
            let max = self.state.options().task_limits.max_bytes;
            let end = match end {
                TaskEnd::Completed(result) if result.get().len() > max => {
                    TaskEnd::Failed(McpError::internal(format!(
                        "the task's result ({} bytes) is larger than the task store keeps \
                         ({max} bytes per task)",
                        result.get().len()
                    )))
                }
                other => other,
            };
            let args = match end {
                TaskEnd::Completed(result) => {
                    vec!["completed".into(), result.get().to_owned(), String::new()]
                }
                TaskEnd::Failed(error) => vec![
                    "failed".into(),
                    serde_json::to_string(&error).expect("an error serializes"),
                    error.message.into_owned(),
                ],
            };
            let ended: Option<i64> = self.invoke(&SCRIPTS.finish, id, args).await?;
            ended.map(|n| n == 1).ok_or(StoreError::NotFound)
        })
    }

    fn cancel<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<TaskRecord, StoreError>> {
        Box::pin(async move {
            let hash: Option<HashMap<String, String>> =
                self.invoke(&SCRIPTS.cancel, id, Vec::new()).await?;
            Self::record(hash.ok_or(StoreError::NotFound)?)
        })
    }

    fn sweep(&self) -> BoxFuture<'_, Result<usize, StoreError>> {
        Box::pin(async move {
            let key = self.state.key("tasks");
            self.state
                .run(|mut c| {
                    let invocation = SCRIPTS.sweep.key(&key);
                    Box::pin(async move { invocation.invoke_async(&mut c).await })
                })
                .await
                .map_err(unavailable)
        })
    }

    fn renew<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<TaskStatus>, StoreError>> {
        Box::pin(self.renew_lease(id))
    }
}

impl RedisState {
    /// The task store on this Redis, with [`RedisOptions::task_limits`](super::RedisOptions::task_limits) and
    /// [`RedisOptions::lease`](super::RedisOptions::lease). [`ServerBuilder::share_through`](crate::ServerBuilder::share_through) uses
    /// it for the server's tasks unless [`ServerBuilder::tasks`](crate::ServerBuilder::tasks)
    /// names another store.
    pub fn task_store(&self) -> RedisTaskStore {
        RedisTaskStore::new(self.clone())
    }
}
