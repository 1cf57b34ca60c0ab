//! One fetch from the issuer at a time: requests that need it while it runs share its result,
//! it has one overall time budget, and after a failure none starts again until a gap, measured
//! from the failure's end and doubled with each failure in a row, has passed.
//!
//! Without this, an issuer that accepted connections and never answered made every request
//! wait for the one before it (each started its own discovery and JWKS fetch in turn: five
//! requests waited 38 to 112 s), and every opaque token retried a failed discovery.

use futures::FutureExt as _;
use futures::future::{BoxFuture, Shared};
use std::sync::Mutex;
use std::time::Duration;
use tokio::time::Instant;

/// The longest gap between tries after failures in a row.
pub(super) const MAX_GAP: Duration = Duration::from_secs(60);

/// How long a request waits for a fetch another request started, before it is answered
/// without it (an issuer that answers does so well within this; one that hangs costs each
/// waiting request this, not the whole budget).
pub(super) const JOIN_WAIT: Duration = Duration::from_secs(1);

type Running<T> = Shared<BoxFuture<'static, Result<T, String>>>;

/// A single-flight fetch of `T` with backoff after failures.
pub(super) struct Flight<T: Clone> {
    budget: Duration,
    state: Mutex<State<T>>,
}

struct State<T: Clone> {
    running: Option<Running<T>>,
    /// The end of the last failure, how many failed in a row, and why the last did.
    failed: Option<(Instant, u32, String)>,
}

impl<T: Clone + Send + Sync + 'static> Flight<T> {
    /// A flight whose fetches get at most `budget` each, all of their steps included.
    pub(super) fn new(budget: Duration) -> Self {
        Self {
            budget,
            state: Mutex::new(State {
                running: None,
                failed: None,
            }),
        }
    }

    /// Whether a fetch is running now.
    pub(super) fn is_running(&self) -> bool {
        self.lock().running.is_some()
    }

    /// The running fetch's result (waiting at most [`JOIN_WAIT`] for it), or a new fetch's
    /// from `start` (waiting for all of it, within the budget), or, while the last failure is
    /// within its gap (`gap` after one failure, doubled for each more, at most [`MAX_GAP`]),
    /// that failure at once.
    pub(super) async fn run(
        &self,
        gap: Duration,
        start: impl FnOnce() -> BoxFuture<'static, Result<T, String>>,
    ) -> Result<T, String> {
        let (running, joined) = {
            let mut state = self.lock();
            match &state.running {
                Some(running) => (running.clone(), true),
                None => {
                    if let Some((ended, failures, error)) = &state.failed
                        && ended.elapsed() < backoff(gap, *failures)
                    {
                        return Err(error.clone());
                    }
                    let budget = self.budget;
                    let fetch = start();
                    let running = async move {
                        tokio::time::timeout(budget, fetch)
                            .await
                            .unwrap_or_else(|_| Err(format!("no answer within {budget:?}")))
                    }
                    .boxed()
                    .shared();
                    state.running = Some(running.clone());
                    (running, false)
                }
            }
        };
        let result = if joined {
            match tokio::time::timeout(JOIN_WAIT, running.clone()).await {
                Ok(result) => result,
                Err(_) => return Err("the authorization server has not answered yet".into()),
            }
        } else {
            running.clone().await
        };
        let mut state = self.lock();
        // The first to see the fetch end records it (a later fetch may already run).
        if state
            .running
            .as_ref()
            .is_some_and(|r| Shared::ptr_eq(r, &running))
        {
            state.running = None;
            state.failed = match &result {
                Ok(_) => None,
                Err(error) => {
                    let failures = state.failed.as_ref().map_or(0, |f| f.1);
                    Some((Instant::now(), failures.saturating_add(1), error.clone()))
                }
            };
        }
        result
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State<T>> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// `gap` after one failure, doubled for each more in a row, at most [`MAX_GAP`] (or `gap`
/// when that is longer).
fn backoff(gap: Duration, failures: u32) -> Duration {
    let doubled = gap.saturating_mul(1 << failures.saturating_sub(1).min(16));
    doubled.min(MAX_GAP.max(gap))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn the_gap_doubles_and_is_capped() {
        let s = Duration::from_secs;
        assert_eq!(backoff(s(1), 1), s(1));
        assert_eq!(backoff(s(1), 3), s(4));
        assert_eq!(backoff(s(1), 40), MAX_GAP);
        assert_eq!(backoff(Duration::ZERO, 9), Duration::ZERO);
        assert_eq!(backoff(s(300), 2), s(300));
    }

    #[tokio::test(start_paused = true)]
    async fn waiters_share_one_fetch_and_a_failure_is_answered_at_once_within_its_gap() {
        let flight = Arc::new(Flight::<u32>::new(Duration::from_secs(10)));
        let started = Arc::new(AtomicUsize::new(0));
        let hang = |started: Arc<AtomicUsize>| {
            move || {
                started.fetch_add(1, Ordering::SeqCst);
                futures::future::pending::<Result<u32, String>>().boxed()
            }
        };
        let first = tokio::spawn({
            let (flight, started) = (flight.clone(), started.clone());
            async move { flight.run(Duration::from_secs(1), hang(started)).await }
        });
        tokio::task::yield_now().await;
        assert!(flight.is_running());
        // Joiners wait at most JOIN_WAIT, start nothing.
        let at = tokio::time::Instant::now();
        let joined = flight
            .run(Duration::from_secs(1), hang(started.clone()))
            .await;
        assert!(joined.unwrap_err().contains("not answered yet"));
        assert_eq!(at.elapsed(), JOIN_WAIT);
        // The starter's fetch ends at the budget.
        let error = first.await.unwrap().unwrap_err();
        assert!(error.contains("no answer within 10s"), "{error}");
        assert_eq!(started.load(Ordering::SeqCst), 1);
        // Within the gap after the failure: the same failure, at once, nothing started.
        let again = flight
            .run(Duration::from_secs(1), hang(started.clone()))
            .await;
        assert_eq!(again.unwrap_err(), error);
        assert_eq!(started.load(Ordering::SeqCst), 1);
        // After it, a new fetch, whose success clears the failures.
        tokio::time::advance(Duration::from_millis(1001)).await;
        let ok = flight
            .run(Duration::from_secs(1), || async { Ok(7) }.boxed())
            .await;
        assert_eq!(ok, Ok(7));
        assert!(!flight.is_running());
    }
}
