//! How a server uses Redis ([`RedisOptions`]), and the connection settings they make.

use crate::task::TaskLimits;
use redis::aio::ConnectionManagerConfig;
use std::time::Duration;

/// How the server uses Redis ([`RedisState::connect_with`](super::RedisState::connect_with)).
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

/// The connection manager's settings: every attempt bounded by the timeout, a couple of
/// quick retries (a request waits for at most one timeout; the next request tries again).
pub(super) fn manager_config(options: &RedisOptions) -> ConnectionManagerConfig {
    ConnectionManagerConfig::new()
        .set_connection_timeout(Some(options.timeout))
        .set_response_timeout(Some(options.timeout))
        .set_number_of_retries(1)
        .set_min_delay(Duration::from_millis(50))
        .set_max_delay(Duration::from_millis(500))
}
