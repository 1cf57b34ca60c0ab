//! [`RateLimit`]: calls per caller, with `governor`'s GCRA (a burst of N, one more each
//! period / N). Callers are told apart by
//! [`Caller::limit_key`](crate::context::Caller::limit_key) (a new legacy session is no new
//! budget): one
//! caller over its limit gets an `isError` result saying when to retry, and nobody else is
//! affected. Idle callers' state is pruned as calls come in, so memory follows the callers
//! active within one period.
//!
//! A server sharing state (`Server::share_through`) takes from budgets the whole fleet
//! shares instead ([`RateBudgets`](super::RateBudgets); Redis's is GCRA in a Lua script),
//! keyed by tool and caller; while they cannot be read, from this process's own.

use super::fleet::FleetSlot;
use super::{BoxError, McpRequest, Outcome, Refusal, human};
use crate::tool::Rate;
use futures::future::{BoxFuture, FutureExt as _};
use governor::clock::{Clock as _, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota};
use std::num::NonZeroU32;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

/// Checks between two prunings of idle callers' state.
const PRUNE_EVERY: u32 = 1024;

/// `rate` as `governor`'s quota: a burst of `count`, one more each `period / count` (a zero
/// count or period is taken as 1 call per second; registration refuses those first).
pub(crate) fn quota(rate: Rate) -> Quota {
    let count = NonZeroU32::new(rate.count()).unwrap_or(NonZeroU32::MIN);
    let per_call = (rate.period() / count.get()).max(Duration::from_nanos(1));
    Quota::with_period(per_call)
        .unwrap_or_else(|| Quota::per_second(NonZeroU32::MIN))
        .allow_burst(count)
}

/// Makes [`RateLimit`]s that share one set of per-caller budgets.
#[derive(Debug, Clone)]
pub struct RateLimitLayer {
    shared: Arc<Shared>,
}

#[derive(Debug)]
struct Shared {
    limiter: DefaultKeyedRateLimiter<String>,
    rate: Rate,
    checks: AtomicU32,
    /// The fleet's budgets, once the server shares state, and the tool's name in them.
    fleet: Option<(FleetSlot, String)>,
}

impl RateLimitLayer {
    /// `rate` calls per caller (a zero count or period is taken as 1 call per second; the
    /// registry refuses those before they get here).
    pub fn new(rate: Rate) -> Self {
        Self {
            shared: Arc::new(Shared {
                limiter: DefaultKeyedRateLimiter::keyed(quota(rate)),
                rate,
                checks: AtomicU32::new(0),
                fleet: None,
            }),
        }
    }

    /// Takes from the fleet's budgets for `tool` once `fleet` is set.
    pub(crate) fn fleet(self, fleet: FleetSlot, tool: &str) -> Self {
        let shared = Arc::try_unwrap(self.shared).unwrap_or_else(|_| unreachable!("just made"));
        Self {
            shared: Arc::new(Shared {
                fleet: Some((fleet, tool.to_owned())),
                ..shared
            }),
        }
    }

    /// Takes one call from `key`'s budget, or says how long until one is free.
    fn check(&self, key: &String) -> Result<(), Duration> {
        let shared = &self.shared;
        if shared.checks.fetch_add(1, Ordering::Relaxed) % PRUNE_EVERY == PRUNE_EVERY - 1 {
            shared.limiter.retain_recent();
            shared.limiter.shrink_to_fit();
        }
        shared
            .limiter
            .check_key(key)
            .map_err(|not_until| not_until.wait_time_from(DefaultClock::default().now()))
    }
}

impl<S> tower::Layer<S> for RateLimitLayer {
    type Service = RateLimit<S>;

    fn layer(&self, inner: S) -> RateLimit<S> {
        RateLimit {
            inner,
            layer: self.clone(),
        }
    }
}

/// Limits how often each caller calls through `S`.
#[derive(Debug, Clone)]
pub struct RateLimit<S> {
    inner: S,
    layer: RateLimitLayer,
}

impl<S> tower::Service<McpRequest> for RateLimit<S>
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
        let key = request.context().caller().limit_key();
        if let Some((fleet, tool)) = &self.layer.shared.fleet
            && let Some(budgets) = fleet.get().and_then(|f| f.budgets.as_ref())
        {
            let rate = self.layer.shared.rate;
            let take = budgets.take(&format!("{tool}:{key}"), rate.count(), rate.period());
            let layer = self.layer.clone();
            let target = request.target().to_owned();
            // Made now, run only if allowed: inside this layer are the tool's own timeout,
            // concurrency limit, validation and body, none of which starts before it is
            // polled; a refused call drops it unpolled.
            let call = self.inner.call(request);
            return async move {
                let verdict = match take.await {
                    Ok(None) => Ok(()),
                    Ok(Some(wait)) => Err(wait),
                    Err(e) => {
                        tracing::warn!(
                            target: crate::targets::REDIS_TARGET,
                            error = %e,
                            "the fleet's rate limit could not be read; this instance's own applies"
                        );
                        layer.check(&key)
                    }
                };
                match verdict {
                    Ok(()) => call.await,
                    Err(wait) => Ok(Outcome::Refused(refusal(&target, rate, wait))),
                }
            }
            .boxed();
        }
        match self.layer.check(&key) {
            Ok(()) => self.inner.call(request).boxed(),
            Err(wait) => {
                let refusal = refusal(request.target(), self.layer.shared.rate, wait);
                futures::future::ready(Ok(Outcome::Refused(refusal))).boxed()
            }
        }
    }
}

/// The `isError` answer to a call over its limit.
fn refusal(target: &str, rate: Rate, wait: Duration) -> Refusal {
    // Whole milliseconds, rounded up: "retry in 0ms" would invite a retry storm.
    let wait = Duration::from_millis(wait.as_millis() as u64 + 1);
    Refusal::new(
        "rate_limited",
        format!(
            "Rate limit for tool `{target}` exceeded ({rate} per caller). Retry in {}.",
            human(wait)
        ),
    )
    .retry_after(wait)
}
