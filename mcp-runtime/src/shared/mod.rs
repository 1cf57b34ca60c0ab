//! State shared by many instances of one server, kept in Redis (the `redis` feature), so that
//! any request can land on any instance behind a plain load balancer.
//!
//! One instance needs none of this: every default is in memory. Several instances connect to
//! one Redis with the same URL and share:
//!
//! - **Tasks** (`RedisTaskStore`): a task created on one instance is read, answered and
//!   cancelled from any other. Its worker runs on the instance that created it and holds a
//!   *lease* it renews; when that instance dies the lease runs out and the task is `failed`
//!   with an error saying so (never `working` forever). A cancellation made elsewhere reaches
//!   the worker through the bus at once (and through the store within
//!   `TaskOptions::store_poll` if a message is lost).
//! - **Single use of `requestState`**: the nonces of spent states live in Redis (`SET NX`
//!   with the state's own expiry), so a state replayed on another instance is refused like
//!   one replayed on the same.
//! - **Rate limits for the fleet**: a tool's `rate_limit` (N calls per period per caller)
//!   is one budget across every instance (GCRA in a Lua script). With Redis unreachable,
//!   each instance falls back to its own budget (the limit then holds per instance, and a
//!   warning says so) rather than refusing every call. Tools' cached results can be shared
//!   too (`RedisOptions::share_result_cache`).
//! - **A bus** (Redis pub/sub): `notifications/*/list_changed`, `notifications/resources/updated`
//!   and task cancellations raised on one instance reach the listen streams and legacy GET
//!   streams held by every other.
//!
//! In code: `Server::builder(..).share_through(RedisState::connect(url).await?)` (see
//! `RedisState`). A server binary built on `launch` takes `--redis URL` (or
//! `MCP_REDIS_URL`) instead.
//!
//! # Decisions
//!
//! - **The client: the `redis` crate** (redis-rs), with its `ConnectionManager`: the most
//!   used async Redis client in Rust, maintained by the Redis organisation, one multiplexed
//!   connection that reconnects by itself, Lua scripts with `EVALSHA` and a fallback to
//!   `EVAL`. `fred` has more (pools, cluster routing) that one server does not need.
//! - **Failing fast.** Every command is bounded by `RedisOptions::timeout` (default 2 s),
//!   connecting included: with Redis gone, a request that needs it fails with a clear
//!   error instead of hanging, requests that need nothing from it (a stateless
//!   `tools/call`) never touch it, and the connection is made again by itself when Redis
//!   returns. Unreachable at start, `RedisState::connect` fails with an error naming the
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
//! - **Keys** start with `RedisOptions::prefix` (default `mcp:`), so servers can share a
//!   Redis without meeting: `{prefix}task:{id}` (a hash), `{prefix}tasks` and
//!   `{prefix}owner:{identity}` (indexes by expiry), `{prefix}nonce:{nonce}`,
//!   `{prefix}request-state-key` (see below), and the bus channel `{prefix}bus`.
//! - **One requestState key for the fleet.** A round of an `input_required` call may come
//!   back to any instance, so all must verify what any signed. Unless the server's keys are
//!   configured (`ServerBuilder::request_state_keys`),
//!   the first instance to connect puts a random 256-bit key in Redis and every instance
//!   signs with it. Whoever can write to this Redis can then forge states, as they could
//!   forge tasks: Redis is trusted with the server's state, so keep it private.
//!
//! Each concern is a seam of the layer that uses it (see
//! `server::sharing`); this module implements them for Redis
//! (`seams.rs`), and `RedisState` converts into the
//! `Sharing` that installs them all. Without the `redis`
//! feature this module holds only what tells a `--redis` on the command line which feature
//! it needs.

#[cfg(feature = "redis")]
mod bus;
#[cfg(feature = "redis")]
mod limits;
#[cfg(feature = "redis")]
mod options;
#[cfg(feature = "redis")]
mod seams;
#[cfg(feature = "redis")]
mod sessions;
#[cfg(feature = "redis")]
mod state;
#[cfg(feature = "redis")]
mod tasks;

#[cfg(feature = "redis")]
pub use options::RedisOptions;
#[cfg(feature = "redis")]
pub use state::{RedisError, RedisState};
#[cfg(feature = "redis")]
pub use tasks::RedisTaskStore;

/// Whether this build can share state through Redis (the `redis` feature).
#[cfg(feature = "launch")]
pub(crate) const AVAILABLE: bool = cfg!(feature = "redis");

/// Connects to the Redis at `url` for a server binary's `--redis` (the launcher's), as the
/// sharing to install; without the `redis` feature, an error saying how to turn it on.
#[cfg(feature = "launch")]
pub(crate) async fn connect(
    url: &str,
) -> Result<crate::server::sharing::Sharing, Box<dyn std::error::Error + Send + Sync>> {
    #[cfg(feature = "redis")]
    return Ok(RedisState::connect(url).await?.into());
    #[cfg(not(feature = "redis"))]
    {
        let _ = url;
        Err(
            "--redis needs mcp-runtime's `redis` feature: add \"redis\" to the features of \
             the mcp-runtime dependency in Cargo.toml"
                .into(),
        )
    }
}
