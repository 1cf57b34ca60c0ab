//! State shared by many instances of one server, kept in Redis (the `redis` feature), so that
//! any request can land on any instance behind a plain load balancer.
//!
//! One instance needs none of this: every default is in memory. Several instances connect to
//! one Redis with the same URL and share:
//!
//! - **Tasks** ([`RedisTaskStore`]): a task created on one instance is read, answered and
//!   cancelled from any other. Its worker runs on the instance that created it and holds a
//!   *lease* it renews; when that instance dies the lease runs out and the task is `failed`
//!   with an error saying so (never `working` forever). A cancellation made elsewhere reaches
//!   the worker through the bus at once (and through the store within
//!   [`TaskOptions::store_poll`](crate::task::TaskOptions::store_poll) if a message is lost).
//! - **Single use of `requestState`**: the nonces of spent states live in Redis (`SET NX`
//!   with the state's own expiry), so a state replayed on another instance is refused like
//!   one replayed on the same.
//! - **Rate limits for the fleet**: a tool's `rate_limit` (N calls per period per caller)
//!   is one budget across every instance (GCRA in a Lua script). With Redis unreachable,
//!   each instance falls back to its own budget (the limit then holds per instance, and a
//!   warning says so) rather than refusing every call. Tools' cached results can be shared
//!   too ([`RedisOptions::share_result_cache`]).
//! - **A bus** (Redis pub/sub): `notifications/*/list_changed`, `notifications/resources/updated`
//!   and task cancellations raised on one instance reach the listen streams and legacy GET
//!   streams held by every other.
//!
//! ```no_run
//! use mcp_runtime::prelude::*;
//! use mcp_runtime::shared::RedisState;
//!
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! let redis = RedisState::connect("redis://127.0.0.1:6379/").await?;
//! let server = Server::builder("demo", "1.0.0").redis(redis).build()?;
//! # let _ = server; Ok(()) }
//! ```
//!
//! A server binary built on [`launch`](crate::launch) takes `--redis URL` (or
//! `MCP_REDIS_URL`) instead.
//!
//! # Decisions
//!
//! - **The client: the `redis` crate** (redis-rs), with its `ConnectionManager`: the most
//!   used async Redis client in Rust, maintained by the Redis organisation, one multiplexed
//!   connection that reconnects by itself, Lua scripts with `EVALSHA` and a fallback to
//!   `EVAL`. `fred` has more (pools, cluster routing) that one server does not need.
//! - **Failing fast.** Every command is bounded by [`RedisOptions::timeout`] (default 2 s),
//!   connecting included: with Redis gone, a request that needs it fails with a clear
//!   error instead of hanging, requests that need nothing from it (a stateless
//!   `tools/call`) never touch it, and the connection is made again by itself when Redis
//!   returns. Unreachable at start, [`RedisState::connect`] fails with an error naming the
//!   URL (its password masked).
//! - **Atomic changes.** Every change to a task is one Lua script, so two instances never
//!   interleave halfway: a task is either created and visible or the caller got an error.
//! - **Redis must not evict** (`maxmemory-policy noeviction`, Redis's default): an evicted
//!   spent nonce is a replay accepted, an evicted task a task lost. With `noeviction` a full
//!   Redis refuses writes, and the server fails closed: a state is refused, a task or a
//!   legacy session not created, an ask, an answer or a session's state change not added
//!   (the scripts that add are flagged for Redis 7, whose `maxmemory` check lets an
//!   unflagged script's writes through; those that read, end, renew or sweep carry
//!   `allow-oom`, so what exists can be served and end). Redis 7 or later (or Valkey) is
//!   therefore required. Keys carry their expiry (`PEXPIREAT`), so nothing outlives its use.
//! - **One Redis, not a cluster**: scripts touch several keys of one server (a task and the
//!   index of tasks), which Redis Cluster would need hash tags for. A primary with
//!   replicas behind Sentinel or a managed endpoint works as one Redis does.
//! - **Keys** start with [`RedisOptions::prefix`] (default `mcp:`), so servers can share a
//!   Redis without meeting: `{prefix}task:{id}` (a hash), `{prefix}tasks` and
//!   `{prefix}owner:{identity}` (indexes by expiry), `{prefix}nonce:{nonce}`,
//!   `{prefix}request-state-key` (see below), and the bus channel `{prefix}bus`.
//! - **One requestState key for the fleet.** A round of an `input_required` call may come
//!   back to any instance, so all must verify what any signed. Unless the server's keys are
//!   configured ([`ServerBuilder::request_state_keys`](crate::ServerBuilder::request_state_keys)),
//!   the first instance to connect puts a random 256-bit key in Redis and every instance
//!   signs with it. Whoever can write to this Redis can then forge states, as they could
//!   forge tasks: Redis is trusted with the server's state, so keep it private.

mod bus;
mod limits;
mod sessions;
mod tasks;

pub use tasks::RedisTaskStore;

pub(crate) use bus::FleetEvent;
pub(crate) use sessions::MAX_INIT_BYTES;

use crate::task::TaskLimits;
use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use std::fmt;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::broadcast;

/// How the server uses Redis ([`RedisState::connect_with`]).
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct RedisOptions {
    /// What every key and the bus channel start with, so several servers can share one
    /// Redis. Default: `mcp:`.
    pub prefix: String,
    /// The longest any Redis command may take, connecting included; past it the request
    /// that needed it fails. Default: 2 seconds.
    pub timeout: Duration,
    /// How long a task's worker holds its lease without renewing it: past it (the worker's
    /// instance died) the task is `failed`. Renewed every
    /// [`TaskOptions::store_poll`](crate::task::TaskOptions::store_poll), so it must be
    /// several times that. Default: 10 seconds.
    pub lease: Duration,
    /// The bounds of the task store: tasks kept at once, and per identity.
    /// [`TaskLimits::max_bytes`] bounds each task's own state here (a result larger than it
    /// fails the task), since Redis keeps no running total cheaply. Default:
    /// [`TaskLimits::default`] with 16 MiB per task.
    pub task_limits: TaskLimits,
    /// Whether tools' cached results (`#[mcp_tool(cache = "…")]`) are shared by the
    /// instances too: a result computed on one answers the same call (same tool, caller and
    /// arguments) on any other until it expires. Off by default: each instance keeps its
    /// own, and a miss costs nothing in Redis.
    pub share_result_cache: bool,
}

impl Default for RedisOptions {
    fn default() -> Self {
        Self {
            prefix: "mcp:".into(),
            timeout: Duration::from_secs(2),
            lease: Duration::from_secs(10),
            task_limits: TaskLimits::default().max_bytes(16 * 1024 * 1024),
            share_result_cache: false,
        }
    }
}

impl RedisOptions {
    /// The defaults.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets [`prefix`](Self::prefix).
    pub fn prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = prefix.into();
        self
    }

    /// Sets [`timeout`](Self::timeout).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Sets [`lease`](Self::lease).
    pub fn lease(mut self, lease: Duration) -> Self {
        self.lease = lease;
        self
    }

    /// Sets [`share_result_cache`](Self::share_result_cache).
    pub fn share_result_cache(mut self, share: bool) -> Self {
        self.share_result_cache = share;
        self
    }

    /// Sets [`task_limits`](Self::task_limits).
    pub fn task_limits(mut self, limits: TaskLimits) -> Self {
        self.task_limits = limits;
        self
    }
}

/// Why Redis could not be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RedisError {
    /// The URL is not a Redis URL.
    #[error("{url} is not a Redis URL: {reason}")]
    InvalidUrl {
        /// The URL, its password masked.
        url: String,
        /// What is wrong with it.
        reason: String,
    },
    /// Redis did not answer.
    #[error("cannot reach Redis at {url}: {reason}")]
    Unreachable {
        /// The URL, its password masked.
        url: String,
        /// What failed.
        reason: String,
    },
}

/// A connection to the Redis that instances of one server share: give it to
/// [`ServerBuilder::redis`](crate::ServerBuilder::redis). Cheap to clone (one connection,
/// shared).
#[derive(Clone)]
pub struct RedisState {
    inner: Arc<Inner>,
}

struct Inner {
    url: String,
    options: RedisOptions,
    conn: ConnectionManager,
    bus: bus::Bus,
    /// The requestState key every instance signs with, unless configured otherwise.
    state_key: Vec<u8>,
    /// The runtime it was connected on: what listens to the bus for a server runs there,
    /// even when the server is built outside any runtime.
    runtime: tokio::runtime::Handle,
}

impl fmt::Debug for RedisState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RedisState")
            .field("url", &self.inner.url)
            .field("options", &self.inner.options)
            .finish_non_exhaustive()
    }
}

/// `url` with its password (if any) replaced by `***`, for messages and logs.
fn masked(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_owned();
    };
    let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    match authority.rsplit_once('@') {
        Some((userinfo, host)) => {
            let user = userinfo.split_once(':').map_or("", |(user, _)| user);
            format!("{scheme}://{user}:***@{host}{path}")
        }
        None => url.to_owned(),
    }
}

impl RedisState {
    /// Connects to the Redis at `url` (`redis://[user:password@]host[:port][/db]`, or
    /// `unix:///path`) with the default [`RedisOptions`], and checks that it answers.
    ///
    /// # Errors
    ///
    /// [`RedisError::InvalidUrl`], or [`RedisError::Unreachable`] when Redis does not answer
    /// within [`RedisOptions::timeout`]; both name the URL, its password masked.
    pub async fn connect(url: &str) -> Result<Self, RedisError> {
        Self::connect_with(url, RedisOptions::default()).await
    }

    /// Connects with `options`; see [`connect`](Self::connect).
    ///
    /// # Errors
    ///
    /// As [`connect`](Self::connect).
    pub async fn connect_with(url: &str, options: RedisOptions) -> Result<Self, RedisError> {
        let shown = masked(url);
        let client = redis::Client::open(url).map_err(|e| RedisError::InvalidUrl {
            url: shown.clone(),
            reason: e.to_string(),
        })?;
        let unreachable = |reason: String| RedisError::Unreachable {
            url: shown.clone(),
            reason,
        };
        let config = manager_config(&options);
        let mut conn = tokio::time::timeout(
            options.timeout,
            ConnectionManager::new_with_config(client.clone(), config),
        )
        .await
        .map_err(|_| unreachable(format!("no answer within {:?}", options.timeout)))?
        .map_err(|e| unreachable(e.to_string()))?;
        let pong: String =
            tokio::time::timeout(options.timeout, redis::cmd("PING").query_async(&mut conn))
                .await
                .map_err(|_| unreachable(format!("no answer within {:?}", options.timeout)))?
                .map_err(|e| unreachable(e.to_string()))?;
        if pong != "PONG" {
            return Err(unreachable(format!("PING answered {pong:?}")));
        }
        // The first instance to connect makes the key; every later one reads it (`SET NX`,
        // then `GET`).
        let key_name = format!("{}request-state-key", options.prefix);
        let mut candidate = [0u8; 32];
        getrandom::fill(&mut candidate).expect("the operating system's random generator works");
        let candidate: String = candidate.iter().map(|b| format!("{b:02x}")).collect();
        let stored: Option<String> = tokio::time::timeout(options.timeout, async {
            redis::cmd("SET")
                .arg(&key_name)
                .arg(&candidate)
                .arg("NX")
                .query_async::<Option<String>>(&mut conn)
                .await?;
            redis::cmd("GET")
                .arg(&key_name)
                .query_async(&mut conn)
                .await
        })
        .await
        .map_err(|_| unreachable(format!("no answer within {:?}", options.timeout)))?
        .map_err(|e| unreachable(e.to_string()))?;
        let state_key = stored
            .as_deref()
            .and_then(decode_hex)
            .filter(|k| k.len() >= crate::input::state::MIN_KEY_BYTES)
            .ok_or_else(|| {
                unreachable(format!(
                    "{key_name} in Redis is not a hex key of 32 bytes or more"
                ))
            })?;
        let bus = bus::Bus::start(
            client,
            &options,
            conn.clone(),
            (key_name, stored.unwrap_or_default()),
        )
        .await
        .map_err(|e| unreachable(format!("subscribing to the bus: {e}")))?;
        Ok(Self {
            inner: Arc::new(Inner {
                url: shown,
                options,
                conn,
                bus,
                state_key,
                runtime: tokio::runtime::Handle::current(),
            }),
        })
    }

    /// The requestState keys kept in Redis (made by the first instance that connected).
    pub(crate) fn request_state_keys(&self) -> crate::input::RequestStateKeys {
        crate::input::RequestStateKeys::new(&self.inner.state_key)
            .expect("checked at connection: 32 bytes or more")
    }

    /// The URL it is connected to, its password masked.
    pub fn url(&self) -> &str {
        &self.inner.url
    }

    /// Its options.
    pub fn options(&self) -> &RedisOptions {
        &self.inner.options
    }

    /// The task store on this Redis, with [`RedisOptions::task_limits`] and
    /// [`RedisOptions::lease`]. [`ServerBuilder::redis`](crate::ServerBuilder::redis) uses
    /// it for the server's tasks unless [`ServerBuilder::tasks`](crate::ServerBuilder::tasks)
    /// names another store.
    pub fn task_store(&self) -> RedisTaskStore {
        RedisTaskStore::new(self.clone())
    }

    /// Runs one command or script invocation on the shared connection, bounded by the
    /// timeout. A connection found dropped (Redis restarted, a proxy closed it while idle)
    /// is made again by the manager, and the command is sent once more: a command that
    /// could not be written never reached Redis. (Had it reached Redis before the
    /// connection dropped, running it again is harmless for every script here: a second
    /// creation finds the task and fails, a second spend finds the nonce spent and refuses.)
    pub(crate) async fn run<T, F>(&self, f: F) -> Result<T, String>
    where
        F: Fn(ConnectionManager) -> futures::future::BoxFuture<'static, redis::RedisResult<T>>,
    {
        let timeout = self.inner.options.timeout;
        let attempt = || tokio::time::timeout(timeout, f(self.inner.conn.clone()));
        let mut outcome = attempt().await;
        if let Ok(Err(e)) = &outcome
            && (e.is_connection_dropped() || e.is_io_error() || e.is_connection_refusal())
        {
            outcome = attempt().await;
        }
        match outcome {
            Ok(Ok(value)) => Ok(value),
            Ok(Err(e)) => Err(format!("Redis at {}: {e}", self.inner.url)),
            Err(_) => Err(format!(
                "Redis at {} did not answer within {timeout:?}",
                self.inner.url
            )),
        }
    }

    /// The key `name` under the prefix.
    pub(crate) fn key(&self, name: &str) -> String {
        format!("{}{name}", self.inner.options.prefix)
    }

    /// Spends a `requestState` nonce that expires at `expires` (Unix seconds): `true` the
    /// first time, `false` for a replay. One `SET NX EXAT`.
    async fn spend(&self, nonce: &str, expires: u64) -> Result<bool, String> {
        let key = self.key(&format!("nonce:{nonce}"));
        // Kept a second past the state's expiry: the state is valid through that second.
        let until = expires.saturating_add(1);
        let set: Option<String> = self
            .run(move |mut c| {
                let mut set = redis::cmd("SET");
                set.arg(&key).arg(1).arg("NX").arg("EXAT").arg(until);
                Box::pin(async move { set.query_async(&mut c).await })
            })
            .await?;
        Ok(set.is_some())
    }

    /// Publishes an event to the other instances (best effort: a full queue or a lost
    /// connection drops it, with a warning).
    pub(crate) fn publish(&self, event: FleetEvent) {
        self.inner.bus.publish(event);
    }

    /// Runs `task` on the runtime the connection was made on.
    pub(crate) fn spawn(&self, task: impl std::future::Future<Output = ()> + Send + 'static) {
        self.inner.runtime.spawn(task);
    }

    /// Every event the other instances publish from now on.
    pub(crate) fn events(&self) -> broadcast::Receiver<FleetEvent> {
        self.inner.bus.events()
    }
}

fn decode_hex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect()
}

impl crate::context::input::SpentNonces for RedisState {
    fn spend_nonce(
        &self,
        nonce: String,
        expires: u64,
    ) -> futures::future::BoxFuture<'static, Result<bool, String>> {
        let this = self.clone();
        Box::pin(async move { this.spend(&nonce, expires).await })
    }
}

/// The connection manager's settings: every attempt bounded by the timeout, a couple of
/// quick retries (a request waits for at most one timeout; the next request tries again).
fn manager_config(options: &RedisOptions) -> ConnectionManagerConfig {
    ConnectionManagerConfig::new()
        .set_connection_timeout(Some(options.timeout))
        .set_response_timeout(Some(options.timeout))
        .set_number_of_retries(1)
        .set_min_delay(Duration::from_millis(50))
        .set_max_delay(Duration::from_millis(500))
}

#[cfg(test)]
mod tests {
    use super::masked;

    #[test]
    fn passwords_are_masked_in_what_is_shown() {
        assert_eq!(
            masked("redis://:hunter2@cache:6379/0"),
            "redis://:***@cache:6379/0"
        );
        assert_eq!(
            masked("redis://app:hunter2@cache/"),
            "redis://app:***@cache/"
        );
        assert_eq!(masked("redis://cache:6379"), "redis://cache:6379");
        assert_eq!(masked("unix:///run/redis.sock"), "unix:///run/redis.sock");
    }
}
