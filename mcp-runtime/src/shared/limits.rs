//! Rate limits for the whole fleet, and the optionally shared result cache.
//!
//! Rate limits: GCRA (the algorithm `governor` runs in process) as one
//! Lua script, so every instance takes from the same budget.
//!
//! A limit of N calls per period for one caller of one tool is the key
//! `{prefix}rate:{tool}:{caller}`, holding the theoretical arrival time of the next call
//! (ms, in Redis's clock) and expiring when the budget is whole again. One `EVALSHA` per
//! rate-limited call.
//!
//! Results ([`RedisOptions::share_result_cache`](super::RedisOptions::share_result_cache)):
//! `{prefix}result:{digest of tool, caller and arguments}`, the result as JSON, expiring with
//! the tool's `cache` lifetime; at most [`MAX_SHARED_RESULT`] bytes each (a larger result
//! stays in the instance's own cache). A miss in the instance's cache costs a `GET`, a
//! result a `SET PX`.

use super::RedisState;
use std::sync::LazyLock;
use std::time::Duration;

/// KEYS: the budget. ARGV: ms between calls (emission interval), burst. Returns 0 when the
/// call is allowed, else the ms to wait.
const GCRA: &str = r"#!lua flags=allow-oom
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
local emission = tonumber(ARGV[1])
local tolerance = emission * tonumber(ARGV[2])
local tat = tonumber(redis.call('GET', KEYS[1]) or '0')
if tat < now then tat = now end
local next_tat = tat + emission
local allowed_at = next_tat - tolerance
if now < allowed_at then
  return math.max(1, math.ceil(allowed_at - now))
end
redis.call('SET', KEYS[1], string.format('%.3f', next_tat), 'PX', math.ceil(next_tat - now) + 1)
return 0
";

static SCRIPT: LazyLock<redis::Script> = LazyLock::new(|| redis::Script::new(GCRA));

/// The largest result shared through Redis.
pub(crate) const MAX_SHARED_RESULT: usize = 1024 * 1024;

impl RedisState {
    /// A result another instance cached under `name`, if any.
    pub(crate) async fn cached_result(&self, name: &str) -> Result<Option<String>, String> {
        let key = self.key(&format!("result:{name}"));
        self.run(|mut c| {
            let mut get = redis::cmd("GET");
            get.arg(&key);
            Box::pin(async move { get.query_async(&mut c).await })
        })
        .await
    }

    /// Shares a result for `ttl` (one larger than [`MAX_SHARED_RESULT`] is not shared).
    pub(crate) async fn cache_result(
        &self,
        name: &str,
        text: &str,
        ttl: Duration,
    ) -> Result<(), String> {
        if text.len() > MAX_SHARED_RESULT {
            return Ok(());
        }
        let key = self.key(&format!("result:{name}"));
        let ms = ttl.as_millis().max(1) as u64;
        self.run(|mut c| {
            let mut set = redis::cmd("SET");
            set.arg(&key).arg(text).arg("PX").arg(ms);
            Box::pin(async move { set.query_async::<()>(&mut c).await })
        })
        .await
    }

    /// Takes one call from the fleet-wide budget `name` (`count` calls per `period`):
    /// `None` when allowed, else how long until one is free.
    pub(crate) async fn take_rate(
        &self,
        name: &str,
        count: u32,
        period: Duration,
    ) -> Result<Option<Duration>, String> {
        let key = self.key(&format!("rate:{name}"));
        let emission = period.as_secs_f64() * 1000.0 / f64::from(count.max(1));
        let args = [format!("{emission:.3}"), count.max(1).to_string()];
        let wait: u64 = self
            .run(|mut c| {
                let mut invocation = SCRIPT.key(&key);
                invocation.arg(&args[0]).arg(&args[1]);
                Box::pin(async move { invocation.invoke_async(&mut c).await })
            })
            .await?;
        Ok((wait > 0).then(|| Duration::from_millis(wait)))
    }
}
