//! The Redis side of legacy (2025) sessions shared by instances: what another instance needs
//! to serve a session it did not open.
//!
//! A session is the hash `{prefix}session:{id}` (`subject`: who opened it, absent for an
//! unauthenticated caller; `init`: its `initialize` params as the client sent them;
//! `created` and `lifetime`, in Redis's clock) and the list `{prefix}session-ops:{id}` of
//! the requests that changed its state since (`logging/setLevel`, `resources/subscribe`,
//! `resources/unsubscribe`), in order. An instance that meets the session for the first
//! time makes it again by replaying `initialize` and those requests on a fresh connection;
//! one that has it applies the requests it has not seen yet. Both keys expire after the
//! idle timeout, renewed by every request, and are removed when the session ends
//! (`DELETE`, or its lifetime).
//!
//! The messages a session's GET stream sends are kept too, in the Redis stream
//! `{prefix}events:{id}` (at most [`MAX_EVENTS`], none older than [`MAX_EVENT_AGE`]), each
//! sent with its entry id as the SSE event id: a client that reconnects with
//! `Last-Event-ID`, to whichever instance, first gets what it missed.
//!
//! Redis commands per request of a shared session: one `EVALSHA` (renew and read the new
//! state changes); `initialize` adds one `EVALSHA`, a state change one `EVALSHA`, a message
//! on a GET stream one `XADD` with its trimming (one round trip), a resumed GET stream one
//! `XRANGE`.

use super::RedisState;
use crate::server::sharing::{
    MAX_EVENT_AGE, MAX_EVENTS, MAX_SESSION_CHANGE_BYTES as MAX_OPS_BYTES,
    MAX_SESSION_CHANGES as MAX_OPS, SessionRecord, SessionSync,
};
use std::sync::LazyLock;
use std::time::Duration;

/// KEYS: session, ops. ARGV: subject ('' none), has subject (1/0), init, lifetime ms, idle ms.
const CREATE: &str = r"#!lua
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('DEL', KEYS[1], KEYS[2])
redis.call('HSET', KEYS[1], 'init', ARGV[3], 'created', now, 'lifetime', ARGV[4])
if ARGV[2] == '1' then redis.call('HSET', KEYS[1], 'subject', ARGV[1]) end
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 1
";

/// KEYS: session, ops. ARGV: applied, idle ms, whole (1: the record too). Returns false when
/// the session is gone (removed, expired, past its lifetime); otherwise the state changes
/// from `applied` on, and with `whole` the record first.
const SYNC: &str = r"#!lua flags=allow-oom
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local created = tonumber(redis.call('HGET', KEYS[1], 'created') or '0')
local lifetime = tonumber(redis.call('HGET', KEYS[1], 'lifetime') or '0')
if now - created > lifetime then
  redis.call('DEL', KEYS[1], KEYS[2])
  return false
end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('PEXPIRE', KEYS[2], ARGV[2])
local ops = redis.call('LRANGE', KEYS[2], tonumber(ARGV[1]), -1)
if ARGV[3] == '1' then
  return {redis.call('HGETALL', KEYS[1]), ops}
end
return {{}, ops}
";

/// KEYS: session, ops. ARGV: the change, the cap, idle ms, the cap in bytes. Returns the
/// list's length, or -1 when the session is gone, -2 when a cap is reached.
const RECORD: &str = r"#!lua
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
if redis.call('LLEN', KEYS[2]) >= tonumber(ARGV[2]) then return -2 end
local bytes = tonumber(redis.call('HGET', KEYS[1], 'opsbytes') or '0') + string.len(ARGV[1])
if bytes > tonumber(ARGV[4]) then return -2 end
redis.call('HSET', KEYS[1], 'opsbytes', bytes)
local n = redis.call('RPUSH', KEYS[2], ARGV[1])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
return n
";

struct Scripts {
    create: redis::Script,
    sync: redis::Script,
    record: redis::Script,
}

static SCRIPTS: LazyLock<Scripts> = LazyLock::new(|| Scripts {
    create: redis::Script::new(CREATE),
    sync: redis::Script::new(SYNC),
    record: redis::Script::new(RECORD),
});

/// One entry of a Redis stream as `XRANGE` returns it: its id and its fields.
type StreamEntry = (String, Vec<(String, Vec<u8>)>);

fn ms(d: Duration) -> String {
    d.as_millis().max(1).to_string()
}

impl RedisState {
    fn session_keys(&self, id: &str) -> [String; 2] {
        [
            self.key(&format!("session:{id}")),
            self.key(&format!("session-ops:{id}")),
        ]
    }

    /// Records a session just opened here.
    pub(crate) async fn create_session(
        &self,
        id: &str,
        record: SessionRecord,
        idle: Duration,
        lifetime: Duration,
    ) -> Result<(), String> {
        let keys = self.session_keys(id);
        let has_subject = if record.subject.is_some() { "1" } else { "0" };
        let args = [
            record.subject.unwrap_or_default(),
            has_subject.to_owned(),
            record.init,
            ms(lifetime),
            ms(idle),
        ];
        self.run(|mut c| {
            let mut invocation = SCRIPTS.create.prepare_invoke();
            invocation.key(&keys[0]).key(&keys[1]);
            for arg in &args {
                invocation.arg(arg);
            }
            Box::pin(async move { invocation.invoke_async::<i64>(&mut c).await })
        })
        .await
        .map(drop)
    }

    /// Renews session `id` and reads the state changes from `applied` on (with the record
    /// when `whole`); `None` when it is gone.
    pub(crate) async fn sync_session(
        &self,
        id: &str,
        applied: usize,
        idle: Duration,
        whole: bool,
    ) -> Result<Option<SessionSync>, String> {
        let keys = self.session_keys(id);
        let args = [
            applied.to_string(),
            ms(idle),
            if whole { "1" } else { "0" }.to_owned(),
        ];
        let found: Option<(Vec<String>, Vec<String>)> = self
            .run(|mut c| {
                let mut invocation = SCRIPTS.sync.prepare_invoke();
                invocation.key(&keys[0]).key(&keys[1]);
                for arg in &args {
                    invocation.arg(arg);
                }
                Box::pin(async move { invocation.invoke_async(&mut c).await })
            })
            .await?;
        Ok(found.map(|(fields, ops)| {
            let record = whole.then(|| {
                let mut record = SessionRecord::new(None, "");
                for pair in fields.chunks_exact(2) {
                    match pair[0].as_str() {
                        "subject" => record.subject = Some(pair[1].clone()),
                        "init" => record.init = pair[1].clone(),
                        _ => {}
                    }
                }
                record
            });
            SessionSync::new(record, ops)
        }))
    }

    /// Appends a state change of session `id` for the other instances.
    pub(crate) async fn record_session_change(
        &self,
        id: &str,
        change: &str,
        idle: Duration,
    ) -> Result<(), String> {
        let keys = self.session_keys(id);
        let args = [
            change.to_owned(),
            MAX_OPS.to_string(),
            ms(idle),
            MAX_OPS_BYTES.to_string(),
        ];
        let n: i64 = self
            .run(|mut c| {
                let mut invocation = SCRIPTS.record.prepare_invoke();
                invocation.key(&keys[0]).key(&keys[1]);
                for arg in &args {
                    invocation.arg(arg);
                }
                Box::pin(async move { invocation.invoke_async(&mut c).await })
            })
            .await?;
        if n == -2 {
            tracing::warn!(
                target: crate::targets::REDIS_TARGET,
                session = id,
                "a legacy session changed its state more than {MAX_OPS} times or by more than \
                 {MAX_OPS_BYTES} bytes; later changes are not shared with other instances"
            );
        }
        Ok(())
    }

    fn events_key(&self, id: &str) -> String {
        self.key(&format!("events:{id}"))
    }

    /// Keeps a message sent on session `id`'s GET stream; returns its event id.
    pub(crate) async fn append_event(&self, id: &str, message: &[u8]) -> Result<String, String> {
        let key = self.events_key(id);
        let oldest = crate::task::now_ms().saturating_sub(MAX_EVENT_AGE.as_millis() as u64);
        let (event, ..): (String, i64, i64) = self
            .run(|mut c| {
                let mut pipe = redis::pipe();
                pipe.atomic()
                    .cmd("XADD")
                    .arg(&key)
                    .arg("MAXLEN")
                    .arg("~")
                    .arg(MAX_EVENTS)
                    .arg("*")
                    .arg("m")
                    .arg(message)
                    .cmd("XTRIM")
                    .arg(&key)
                    .arg("MINID")
                    .arg("~")
                    .arg(oldest)
                    .cmd("PEXPIRE")
                    .arg(&key)
                    .arg(MAX_EVENT_AGE.as_millis() as u64);
                Box::pin(async move { pipe.query_async(&mut c).await })
            })
            .await?;
        Ok(event)
    }

    /// The messages of session `id`'s GET stream after event `last` (oldest first), with
    /// their event ids; none when `last` is not an event id.
    pub(crate) async fn events_after(
        &self,
        id: &str,
        last: &str,
    ) -> Result<Vec<(String, Vec<u8>)>, String> {
        let valid = last.split_once('-').is_some_and(|(ms, seq)| {
            !ms.is_empty()
                && !seq.is_empty()
                && ms.bytes().chain(seq.bytes()).all(|b| b.is_ascii_digit())
        });
        if !valid {
            return Ok(Vec::new());
        }
        let key = self.events_key(id);
        let start = format!("({last}");
        let entries: Vec<StreamEntry> = self
            .run(|mut c| {
                let mut range = redis::cmd("XRANGE");
                range
                    .arg(&key)
                    .arg(&start)
                    .arg("+")
                    .arg("COUNT")
                    .arg(MAX_EVENTS);
                Box::pin(async move { range.query_async(&mut c).await })
            })
            .await?;
        Ok(entries
            .into_iter()
            .filter_map(|(event, fields)| {
                let message = fields.into_iter().find(|(f, _)| f == "m")?.1;
                Some((event, message))
            })
            .collect())
    }

    /// Ends session `id` for every instance: its keys go (the transport tells the instances
    /// holding it).
    pub(crate) async fn forget_session(&self, id: &str) -> Result<(), String> {
        let keys = self.session_keys(id);
        let events = self.events_key(id);
        self.run(|mut c| {
            let mut del = redis::cmd("DEL");
            del.arg(&keys[0]).arg(&keys[1]).arg(&events);
            Box::pin(async move { del.query_async::<i64>(&mut c).await })
        })
        .await
        .map(drop)
    }
}
