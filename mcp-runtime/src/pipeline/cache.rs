//! [`ResultCache`]: a repeated call is answered from the results of earlier ones, for the
//! lifetime the tool declared (`#[mcp_tool(read_only, idempotent, cache = "60s")]`).
//!
//! Decisions, and why:
//!
//! - **Only for tools that say so, and only read-only, idempotent ones.** Answering from a
//!   cache skips the tool, which is only right when calling it changes nothing and the same
//!   arguments give the same answer. Registration refuses `cache` on a tool whose annotations
//!   lack `readOnlyHint: true` or `idempotentHint: true`; the attribute refuses it at compile
//!   time.
//! - **Keyed by tool, caller and arguments.** The caller is
//!   [`Caller::key`](crate::context::Caller::key) (identity, else
//!   session, else peer address, else the connection), so one caller never sees an answer
//!   computed for another. Arguments are compared in a canonical form (object keys sorted at
//!   every depth), so `{"a":1,"b":2}` and `{"b":2,"a":1}` are one call whether or not
//!   serde_json's `preserve_order` feature is on somewhere in the build. Each layer also has
//!   an id of its own, so a tool registered again under the same name never sees the
//!   results of the tool it replaced.
//! - **Only what the tool answered successfully is kept.** An `isError` result, a refusal by
//!   an inner layer (rate limit, busy, timeout, invalid arguments), a protocol error, and a
//!   call whose future was dropped (cancelled) or whose request was cancelled leave nothing
//!   behind. Nor does a call that asked the client anything (elicitation, sampling, roots):
//!   its result depends on the answers, which are not part of the key.
//! - **Where it sits**: inside audit, panic isolation and the user's layers (an
//!   authorization layer still runs first, and every call, hit or not, is audited: a hit's
//!   event says `cached=true`), and outside rate limit, concurrency, timeout and validation:
//!   a hit costs no quota, needs no slot and is answered at once. An argument that fails
//!   validation never gets here as a success, so nothing invalid is ever cached.
//! - **Bounded.** One [`ResultStore`] per server holds every cached tool's results, with a
//!   maximum number of entries and a maximum weight in bytes
//!   ([`DEFAULT_CACHE_ENTRIES`], [`DEFAULT_CACHE_BYTES`],
//!   [`ServerBuilder::result_cache`](crate::ServerBuilder::result_cache)). It is `moka`'s
//!   concurrent cache: a well-kept crate made for this (TinyLFU admission, LRU eviction, a
//!   weigher, per-entry expiry), where a hand-written LRU would need its own locking and
//!   eviction and its own tests. Only its `sync` cache is used: its `get` and `insert` never
//!   wait on other callers, so they are safe on async tasks; `quick_cache` was the other
//!   candidate, but it has no expiry, so expired results would hold memory until pushed out.
//!   The store is made when the first tool that declares `cache` is registered: a server
//!   without one has no store.
//! - **Expiry is checked against tokio's clock** (the one [`Timeout`](super::Timeout) uses,
//!   and the one tests can pause), from when the result was produced; moka's own expiry,
//!   set to the same lifetime, only frees the memory.
//! - **Identical concurrent calls are not coalesced**: each runs, and the last to finish
//!   leaves its result. Since the key includes the caller, such calls come from one client
//!   sending the same call again before the first answered, which is rare. Coalescing them
//!   (moka's `get_with`) would make the later calls share the first one's context (its
//!   cancellation, its progress notifications, its timeout and rate-limit outcome), and it
//!   needs moka's `future` cache and three more crates.

use super::fleet::FleetSlot;
use super::{BoxError, McpRequest, Outcome, SharedResults};
use crate::protocol::{CallToolResult, JsonObject};
use futures::future::{BoxFuture, FutureExt as _};
use serde_json::Value;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::time::Instant;

/// How many results a server's [`ResultStore`] keeps at most, by default.
pub const DEFAULT_CACHE_ENTRIES: u64 = 10_000;

/// How many bytes of results (serialized as JSON, with their keys) a server's
/// [`ResultStore`] keeps at most, by default: 64 MiB.
pub const DEFAULT_CACHE_BYTES: u64 = 64 * 1024 * 1024;

/// What an entry costs beyond its key and result: the map's bookkeeping, roughly.
const ENTRY_OVERHEAD: u64 = 128;

/// Gives every [`ResultCacheLayer`] an id of its own.
static NEXT_LAYER: AtomicU64 = AtomicU64::new(0);

/// The bounded store of cached results that the [`ResultCache`]s of one server share.
/// Cheap to clone: clones share the store.
///
/// Both bounds hold at once: each entry is weighed as its size in bytes, but at least
/// `max_bytes / max_entries`, against a budget of `max_bytes`, so the weights of
/// `max_entries` entries already fill it. A result heavier than the whole budget is not
/// stored. Bounds are enforced by moka's maintenance, which runs in batches as the store is
/// used: between two runs the store may briefly hold a few entries more.
///
/// ```
/// use mcp_runtime::pipeline::ResultStore;
///
/// let store = ResultStore::new(1_000, 8 * 1024 * 1024);
/// assert_eq!(store.max_entries(), 1_000);
/// assert_eq!(store.entry_count(), 0);
/// ```
#[derive(Clone)]
pub struct ResultStore {
    cache: moka::sync::Cache<Key, Arc<Entry>>,
    max_entries: u64,
    max_bytes: u64,
    /// The least an entry weighs: `max_bytes / max_entries`, rounded up.
    floor: u64,
}

impl fmt::Debug for ResultStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ResultStore")
            .field("max_entries", &self.max_entries)
            .field("max_bytes", &self.max_bytes)
            .finish_non_exhaustive()
    }
}

impl ResultStore {
    /// A store of at most `max_entries` results weighing at most `max_bytes` together
    /// (each at least 1).
    pub fn new(max_entries: u64, max_bytes: u64) -> Self {
        let max_entries = max_entries.max(1);
        let max_bytes = max_bytes.max(1);
        let cache = moka::sync::Cache::builder()
            .max_capacity(max_bytes)
            .weigher(|_: &Key, entry: &Arc<Entry>| entry.weight)
            .expire_after(Lifetime)
            .build();
        Self {
            cache,
            max_entries,
            max_bytes,
            floor: max_bytes.div_ceil(max_entries),
        }
    }

    /// The most results kept.
    pub fn max_entries(&self) -> u64 {
        self.max_entries
    }

    /// The most bytes of results kept.
    pub fn max_bytes(&self) -> u64 {
        self.max_bytes
    }

    /// How many results are kept now. Runs the store's pending maintenance first, so the
    /// count is exact (and costs more than a lookup: for tests and diagnostics).
    pub fn entry_count(&self) -> u64 {
        self.cache.run_pending_tasks();
        self.cache.entry_count()
    }

    /// The weight of the results kept now, in bytes, each entry counted at least
    /// `max_bytes / max_entries` (see above). Runs pending maintenance first, like
    /// [`entry_count`](Self::entry_count).
    pub fn weighted_size(&self) -> u64 {
        self.cache.run_pending_tasks();
        self.cache.weighted_size()
    }

    /// The unexpired result for `key`, if any.
    fn get(&self, key: &Key) -> Option<CallToolResult> {
        let entry = self.cache.get(key)?;
        (Instant::now() < entry.expires_at).then(|| entry.result.clone())
    }

    /// Keeps `result` under `key` for `ttl`, unless it weighs more than the whole budget.
    fn put(&self, key: Key, result: CallToolResult, ttl: Duration) {
        let bytes = key.weight() + json_len(&result) + ENTRY_OVERHEAD;
        if bytes > self.max_bytes {
            return;
        }
        let weight = u32::try_from(bytes.max(self.floor)).unwrap_or(u32::MAX);
        let entry = Entry {
            result,
            expires_at: Instant::now() + ttl,
            ttl,
            weight,
        };
        self.cache.insert(key, Arc::new(entry));
    }
}

/// A cached result's key: which layer (one per registered tool), which tool, which caller,
/// which arguments.
#[derive(Debug, PartialEq, Eq, Hash)]
struct Key {
    layer: u64,
    tool: Arc<str>,
    caller: String,
    arguments: Box<[u8]>,
}

impl Key {
    fn weight(&self) -> u64 {
        (self.tool.len() + self.caller.len() + self.arguments.len()) as u64
    }
}

#[derive(Debug)]
struct Entry {
    result: CallToolResult,
    /// By tokio's clock: what decides whether the entry is served.
    expires_at: Instant,
    /// For moka's expiry, which only frees the memory.
    ttl: Duration,
    weight: u32,
}

/// Each entry lives for its tool's lifetime, from its (latest) insertion.
struct Lifetime;

impl moka::Expiry<Key, Arc<Entry>> for Lifetime {
    fn expire_after_create(
        &self,
        _: &Key,
        entry: &Arc<Entry>,
        _: std::time::Instant,
    ) -> Option<Duration> {
        Some(entry.ttl)
    }

    fn expire_after_update(
        &self,
        _: &Key,
        entry: &Arc<Entry>,
        _: std::time::Instant,
        _: Option<Duration>,
    ) -> Option<Duration> {
        Some(entry.ttl)
    }
}

/// The arguments as compact JSON with every object's keys sorted: equal for calls that
/// differ only in key order.
fn canonical(arguments: &JsonObject) -> Box<[u8]> {
    let mut out = Vec::with_capacity(64);
    object(&mut out, arguments);
    out.into_boxed_slice()
}

/// Writes an object's entries, in whatever order they come, sorted by key. (serde_json's map
/// iterates sorted already unless its `preserve_order` feature is on, which any crate in a
/// build may turn on; then it iterates in insertion order.)
fn object<'a>(out: &mut Vec<u8>, entries: impl IntoIterator<Item = (&'a String, &'a Value)>) {
    let mut entries: Vec<(&String, &Value)> = entries.into_iter().collect();
    entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
    out.push(b'{');
    for (i, (k, v)) in entries.into_iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        scalar(out, k);
        out.push(b':');
        value(out, v);
    }
    out.push(b'}');
}

fn value(out: &mut Vec<u8>, v: &Value) {
    match v {
        Value::Object(map) => object(out, map),
        Value::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                value(out, item);
            }
            out.push(b']');
        }
        other => scalar(out, other),
    }
}

/// A string or scalar, as serde_json writes it.
fn scalar(out: &mut Vec<u8>, v: &(impl serde::Serialize + ?Sized)) {
    // Writing a string or scalar into a Vec cannot fail.
    let _ = serde_json::to_writer(&mut *out, v);
}

/// The length of `result` serialized as JSON, without keeping the serialization.
fn json_len(result: &CallToolResult) -> u64 {
    #[derive(Default)]
    struct Count(u64);
    impl std::io::Write for Count {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += buf.len() as u64;
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count::default();
    let _ = serde_json::to_writer(&mut count, result);
    count.0
}

/// Makes [`ResultCache`]s that keep results for one lifetime in one [`ResultStore`].
///
/// The server adds one to the stack of each tool that declares `cache` (see the
/// [module docs](super)); by hand it suits a tool whose results are safe to reuse:
///
/// ```
/// use mcp_runtime::pipeline::{ResultCacheLayer, ResultStore};
/// use mcp_runtime::prelude::*;
/// use std::time::Duration;
///
/// let store = ResultStore::new(1_000, 1024 * 1024);
/// let server = Server::builder("demo", "1.0.0")
///     .tool(tool_fn(
///         ToolDefinition::new("now", "The time.", serde_json::json!({"type": "object"})),
///         |_, _| async { "12:00" },
///     ))
///     .layer_for("now", ResultCacheLayer::new(Duration::from_secs(60), &store))
///     .build()
///     .unwrap();
/// # let _ = server;
/// ```
#[derive(Debug, Clone)]
pub struct ResultCacheLayer {
    id: u64,
    ttl: Duration,
    store: ResultStore,
    /// The fleet's shared results, when the server shares state and its sharing includes
    /// results ([`SharedResults`](super::SharedResults)).
    fleet: Option<FleetSlot>,
}

impl ResultCacheLayer {
    /// Keeps successful results for `ttl` in `store`. Results are never shared between two
    /// layers, even on one store.
    pub fn new(ttl: Duration, store: &ResultStore) -> Self {
        Self {
            id: NEXT_LAYER.fetch_add(1, Ordering::Relaxed),
            ttl,
            store: store.clone(),
            fleet: None,
        }
    }

    /// Also shares results through the fleet once `fleet` is set (and it shares results).
    pub(crate) fn fleet(mut self, fleet: FleetSlot) -> Self {
        self.fleet = Some(fleet);
        self
    }
}

impl<S> tower::Layer<S> for ResultCacheLayer {
    type Service = ResultCache<S>;

    fn layer(&self, inner: S) -> ResultCache<S> {
        ResultCache {
            inner,
            layer: self.clone(),
        }
    }
}

/// Answers repeated calls through `S` from the results of earlier ones.
#[derive(Debug, Clone)]
pub struct ResultCache<S> {
    inner: S,
    layer: ResultCacheLayer,
}

impl<S> tower::Service<McpRequest> for ResultCache<S>
where
    S: tower::Service<McpRequest, Response = Outcome, Error = BoxError>,
    S::Future: Send + 'static,
{
    type Response = Outcome;
    type Error = BoxError;
    type Future = BoxFuture<'static, Result<Outcome, BoxError>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: McpRequest) -> Self::Future {
        let key = Key {
            layer: self.layer.id,
            tool: request.target_arc().clone(),
            caller: request.context().caller().key(),
            arguments: canonical(request.arguments()),
        };
        let store = &self.layer.store;
        if let Some(result) = store.get(&key) {
            request.context().mark_answered_from_cache();
            return futures::future::ready(Ok(Outcome::Tool(result))).boxed();
        }
        if let Some(results) = self
            .layer
            .fleet
            .as_ref()
            .and_then(|f| f.get()?.results.clone())
        {
            return self.shared(results, key, request);
        }
        let context = request.context().clone();
        let store = store.clone();
        let ttl = self.layer.ttl;
        let call = self.inner.call(request);
        async move {
            let out = call.await;
            if let Ok(Outcome::Tool(result)) = &out
                && !result.is_error()
                && !context.is_cancelled()
                && !context.asked_client()
            {
                store.put(key, result.clone(), ttl);
            }
            out
        }
        .boxed()
    }
}

impl<S> ResultCache<S>
where
    S: tower::Service<McpRequest, Response = Outcome, Error = BoxError>,
    S::Future: Send + 'static,
{
    /// A call that missed this instance's store: looked up in the fleet's shared results
    /// (keyed by tool, caller and arguments; results of a tool registered again under the
    /// same name are shared until they expire), run on a miss, and its result shared.
    /// The store unreachable: the call runs as if nothing were cached.
    fn shared(
        &mut self,
        results: Arc<dyn SharedResults>,
        key: Key,
        request: McpRequest,
    ) -> BoxFuture<'static, Result<Outcome, BoxError>> {
        let context = request.context().clone();
        let store = self.layer.store.clone();
        let ttl = self.layer.ttl;
        let name = shared_name(&key);
        // Made now, run only on a miss: inside this layer nothing starts before it is polled.
        let call = self.inner.call(request);
        async move {
            if let Ok(Some(text)) = results.get(&name).await
                && let Ok(result) = serde_json::from_str::<CallToolResult>(&text)
            {
                context.mark_answered_from_cache();
                store.put(key, result.clone(), ttl);
                return Ok(Outcome::Tool(result));
            }
            let out = call.await;
            if let Ok(Outcome::Tool(result)) = &out
                && !result.is_error()
                && !context.is_cancelled()
                && !context.asked_client()
            {
                if let Ok(text) = serde_json::to_string(result)
                    && let Err(e) = results.put(&name, text, ttl).await
                {
                    tracing::debug!(target: crate::targets::REDIS_TARGET, error = %e, "a result was not shared");
                }
                store.put(key, result.clone(), ttl);
            }
            out
        }
        .boxed()
    }
}

/// The fleet-wide name of a cached result: a digest of tool, caller and arguments (the
/// layer's id is this process's alone).
fn shared_name(key: &Key) -> String {
    use sha2::Digest as _;
    let mut digest = sha2::Sha256::new();
    for part in [key.tool.as_bytes(), key.caller.as_bytes(), &key.arguments] {
        digest.update((part.len() as u64).to_le_bytes());
        digest.update(part);
    }
    digest
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The server's store, made when the first tool that declares `cache` is registered.
#[derive(Debug, Clone)]
pub(crate) struct LazyStore {
    max_entries: u64,
    max_bytes: u64,
    store: Arc<OnceLock<ResultStore>>,
}

impl Default for LazyStore {
    fn default() -> Self {
        Self::new(DEFAULT_CACHE_ENTRIES, DEFAULT_CACHE_BYTES)
    }
}

impl LazyStore {
    pub(crate) fn new(max_entries: u64, max_bytes: u64) -> Self {
        Self {
            max_entries,
            max_bytes,
            store: Arc::default(),
        }
    }

    pub(crate) fn get(&self) -> &ResultStore {
        self.store
            .get_or_init(|| ResultStore::new(self.max_entries, self.max_bytes))
    }
}

#[cfg(test)]
mod tests;
