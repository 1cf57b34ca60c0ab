//! [`RateLimit`]: calls per caller, with `governor`'s GCRA (a burst of N, one more each
//! period / N). Callers are told apart by [`Caller::key`](crate::context::Caller::key): one
//! caller over its limit gets an `isError` result saying when to retry, and nobody else is
//! affected. Idle callers' state is pruned as calls come in, so memory follows the callers
//! active within one period.

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
}

impl RateLimitLayer {
    /// `rate` calls per caller (a zero count or period is taken as 1 call per second; the
    /// registry refuses those before they get here).
    pub fn new(rate: Rate) -> Self {
        let count = NonZeroU32::new(rate.count()).unwrap_or(NonZeroU32::MIN);
        let per_call = (rate.period() / count.get()).max(Duration::from_nanos(1));
        let quota = Quota::with_period(per_call)
            .unwrap_or_else(|| Quota::per_second(NonZeroU32::MIN))
            .allow_burst(count);
        Self {
            shared: Arc::new(Shared {
                limiter: DefaultKeyedRateLimiter::keyed(quota),
                rate,
                checks: AtomicU32::new(0),
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
        let key = request.context().caller().key();
        match self.layer.check(&key) {
            Ok(()) => self.inner.call(request).boxed(),
            Err(wait) => {
                // Whole milliseconds, rounded up: "retry in 0ms" would invite a retry storm.
                let wait = Duration::from_millis(wait.as_millis() as u64 + 1);
                let refusal = Refusal::new(
                    "rate_limited",
                    format!(
                        "Rate limit for tool `{}` exceeded ({} per caller). Retry in {}.",
                        request.target(),
                        self.layer.shared.rate,
                        human(wait)
                    ),
                )
                .retry_after(wait);
                futures::future::ready(Ok(Outcome::Refused(refusal))).boxed()
            }
        }
    }
}
