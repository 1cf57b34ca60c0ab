//! What the pipeline shares with a server's other instances: rate-limit budgets
//! ([`RateBudgets`]) and tools' cached results ([`SharedResults`]).
//!
//! One instance needs neither: its [`RateLimit`](super::RateLimit)s keep their budgets with
//! `governor` and its [`ResultCache`](super::ResultCache)s in a [`ResultStore`](super::ResultStore),
//! in memory, and that path costs exactly what it did before these seams existed (no
//! future is boxed, nothing is looked up). Instances sharing state install implementations
//! through `Server::share_through` (Redis's are `shared::RedisState`'s); then a rate-limited
//! call takes from the fleet's budget, and (when the sharing asks for it) a call that
//! misses this instance's cache looks in the fleet's results. [`MemoryRateBudgets`] and
//! [`MemoryResults`] are the same seams in one process: instances in one process, and
//! tests. The behaviour every implementation must have is checked by
//! `server::sharing::suite`.

use crate::context::Unavailable;
use futures::future::BoxFuture;
use governor::{DefaultKeyedRateLimiter, Quota};
use std::collections::HashMap;
use std::fmt;
use std::num::NonZeroU32;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;
use tokio::time::Instant;

/// Rate-limit budgets every instance of a server takes from.
///
/// A budget is named by the pipeline (`{tool}:{caller}`) and allows `count` calls per
/// `period`, as a burst of `count` refilled one call every `period / count` (GCRA, as
/// `governor` does in process).
pub trait RateBudgets: Send + Sync + 'static {
    /// Takes one call from budget `name`: `None` when allowed, else how long until one is
    /// free.
    ///
    /// # Errors
    ///
    /// [`Unavailable`] when the store cannot say; the instance then applies its own budget
    /// (with a warning) rather than refuse every call.
    fn take(
        &self,
        name: &str,
        count: u32,
        period: Duration,
    ) -> BoxFuture<'static, Result<Option<Duration>, Unavailable>>;
}

/// Tools' results every instance of a server may answer from.
///
/// Entries are named by the pipeline (a digest of tool, caller and arguments) and hold the
/// result as JSON text.
pub trait SharedResults: Send + Sync + 'static {
    /// The result kept under `name`, if it has not expired.
    ///
    /// # Errors
    ///
    /// [`Unavailable`] when the store cannot say (the call then runs).
    fn get(&self, name: &str) -> BoxFuture<'static, Result<Option<String>, Unavailable>>;

    /// Keeps `text` under `name` for `ttl` (an implementation may decline one too large).
    ///
    /// # Errors
    ///
    /// [`Unavailable`] when the store cannot take it (other instances then run the call
    /// themselves).
    fn put(
        &self,
        name: &str,
        text: String,
        ttl: Duration,
    ) -> BoxFuture<'static, Result<(), Unavailable>>;
}

type Limiter = Arc<DefaultKeyedRateLimiter<String>>;

/// Budgets in this process, for instances sharing one process (and tests): one `governor`
/// limiter per rate, keyed by budget name. Idle budgets are pruned every 1,024 takes.
#[derive(Default)]
pub struct MemoryRateBudgets {
    limiters: Mutex<HashMap<(u32, Duration), Limiter>>,
    /// Takes since idle budgets were last pruned.
    takes: AtomicU32,
}

impl fmt::Debug for MemoryRateBudgets {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MemoryRateBudgets").finish_non_exhaustive()
    }
}

impl MemoryRateBudgets {
    /// No budget taken from yet.
    pub fn new() -> Self {
        Self::default()
    }

    fn limiter(&self, count: u32, period: Duration) -> Limiter {
        let mut limiters = self.limiters.lock().unwrap_or_else(|e| e.into_inner());
        limiters
            .entry((count, period))
            .or_insert_with(|| {
                let count = NonZeroU32::new(count).unwrap_or(NonZeroU32::MIN);
                let per_call = (period / count.get()).max(Duration::from_nanos(1));
                let quota = Quota::with_period(per_call)
                    .unwrap_or_else(|| Quota::per_second(NonZeroU32::MIN))
                    .allow_burst(count);
                Arc::new(DefaultKeyedRateLimiter::keyed(quota))
            })
            .clone()
    }
}

impl RateBudgets for MemoryRateBudgets {
    fn take(
        &self,
        name: &str,
        count: u32,
        period: Duration,
    ) -> BoxFuture<'static, Result<Option<Duration>, Unavailable>> {
        use governor::clock::{Clock as _, DefaultClock};
        let limiter = self.limiter(count, period);
        let verdict = match limiter.check_key(&name.to_owned()) {
            Ok(()) => None,
            Err(not_until) => Some(not_until.wait_time_from(DefaultClock::default().now())),
        };
        if self.takes.fetch_add(1, Ordering::Relaxed) % 1024 == 1023 {
            limiter.retain_recent();
        }
        Box::pin(std::future::ready(Ok(verdict)))
    }
}

/// Results in this process, for instances sharing one process (and tests). Expired entries
/// are dropped as they are met and as new ones come; at most `capacity` are kept (a result
/// past it is not kept).
#[derive(Debug)]
pub struct MemoryResults {
    entries: Mutex<HashMap<String, (String, Instant)>>,
    capacity: usize,
}

impl Default for MemoryResults {
    fn default() -> Self {
        Self::with_capacity(10_000)
    }
}

impl MemoryResults {
    /// An empty store of at most 10,000 results.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty store of at most `capacity` results.
    pub fn with_capacity(capacity: usize) -> Self {
        Self {
            entries: Mutex::new(HashMap::new()),
            capacity,
        }
    }
}

impl SharedResults for MemoryResults {
    fn get(&self, name: &str) -> BoxFuture<'static, Result<Option<String>, Unavailable>> {
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        let found = match entries.get(name) {
            Some((text, until)) if *until > Instant::now() => Some(text.clone()),
            Some(_) => {
                entries.remove(name);
                None
            }
            None => None,
        };
        Box::pin(std::future::ready(Ok(found)))
    }

    fn put(
        &self,
        name: &str,
        text: String,
        ttl: Duration,
    ) -> BoxFuture<'static, Result<(), Unavailable>> {
        let now = Instant::now();
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        if entries.len() >= self.capacity {
            entries.retain(|_, (_, until)| *until > now);
        }
        if entries.len() < self.capacity || entries.contains_key(name) {
            entries.insert(name.to_owned(), (text, now + ttl));
        }
        Box::pin(std::future::ready(Ok(())))
    }
}

/// What the pipeline of a server sharing state uses, set once when the server starts
/// sharing (`Server::share_through`); read by the rate-limit and cache layers of every
/// tool, including tools registered before it was set.
#[derive(Clone, Default)]
pub(crate) struct FleetPipeline {
    pub(crate) budgets: Option<Arc<dyn RateBudgets>>,
    pub(crate) results: Option<Arc<dyn SharedResults>>,
}

impl fmt::Debug for FleetPipeline {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FleetPipeline")
            .field("budgets", &self.budgets.is_some())
            .field("results", &self.results.is_some())
            .finish()
    }
}

/// The slot the server sets when it starts sharing.
pub(crate) type FleetSlot = Arc<OnceLock<FleetPipeline>>;
