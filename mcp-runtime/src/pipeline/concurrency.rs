//! [`ConcurrencyLimit`]: at most N calls at once through the services one layer makes (one
//! tool's, or, applied to every tool, the whole server's). A call beyond the limit waits up
//! to a bound for a slot, then gets an `isError` "busy" result that says to retry.

use super::{BoxError, McpRequest, Outcome, Refusal, human};
use futures::future::BoxFuture;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::sync::Semaphore;
use tower::ServiceExt as _;

/// How long a call waits for a slot by default before it is answered "busy".
pub const DEFAULT_QUEUE_WAIT: Duration = Duration::from_secs(10);

/// Makes [`ConcurrencyLimit`]s that share one limit.
#[derive(Debug, Clone)]
pub struct ConcurrencyLimitLayer {
    slots: Arc<Semaphore>,
    limit: usize,
    wait: Duration,
    scope: &'static str,
}

impl ConcurrencyLimitLayer {
    /// At most `limit` calls at once (at least 1), waiting up to [`DEFAULT_QUEUE_WAIT`] for
    /// a slot. Every service this layer makes shares the limit.
    pub fn new(limit: usize) -> Self {
        let limit = limit.max(1);
        Self {
            slots: Arc::new(Semaphore::new(limit)),
            limit,
            wait: DEFAULT_QUEUE_WAIT,
            scope: "tool",
        }
    }

    /// How long a call may wait for a slot.
    pub fn wait(mut self, wait: Duration) -> Self {
        self.wait = wait;
        self
    }

    /// A limit for the whole server: its message says so.
    pub(crate) fn server_wide(mut self) -> Self {
        self.scope = "server";
        self
    }

    /// Whether every slot is taken.
    pub(crate) fn saturated(&self) -> bool {
        self.slots.available_permits() == 0
    }

    /// Waits until a slot is free (without taking it).
    pub(crate) async fn ready(&self) {
        if let Ok(permit) = self.slots.acquire().await {
            drop(permit);
        }
    }
}

impl<S> tower::Layer<S> for ConcurrencyLimitLayer {
    type Service = ConcurrencyLimit<S>;

    fn layer(&self, inner: S) -> ConcurrencyLimit<S> {
        ConcurrencyLimit {
            inner,
            layer: self.clone(),
        }
    }
}

/// Limits the calls through `S` running at once.
#[derive(Debug, Clone)]
pub struct ConcurrencyLimit<S> {
    inner: S,
    layer: ConcurrencyLimitLayer,
}

impl<S> tower::Service<McpRequest> for ConcurrencyLimit<S>
where
    S: tower::Service<McpRequest, Response = Outcome, Error = BoxError> + Clone + Send + 'static,
    S::Future: Send + 'static,
{
    type Response = Outcome;
    type Error = BoxError;
    type Future = BoxFuture<'static, Result<Outcome, BoxError>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        // Readiness is decided per call, with a bounded wait.
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: McpRequest) -> Self::Future {
        let inner = self.inner.clone();
        let layer = self.layer.clone();
        Box::pin(async move {
            let slot = match layer.slots.clone().try_acquire_owned() {
                Ok(slot) => slot,
                Err(_) => {
                    match tokio::time::timeout(layer.wait, layer.slots.clone().acquire_owned())
                        .await
                    {
                        Ok(Ok(slot)) => slot,
                        _ => return Ok(Outcome::Refused(busy(&request, &layer))),
                    }
                }
            };
            let out = inner.oneshot(request).await;
            drop(slot);
            out
        })
    }
}

fn busy(request: &McpRequest, layer: &ConcurrencyLimitLayer) -> Refusal {
    let what = match layer.scope {
        "server" => "The server".to_owned(),
        _ => format!("Tool `{}`", request.target()),
    };
    Refusal::new(
        "busy",
        format!(
            "{what} is busy: {} call{} already running (its limit) and none finished within {}. \
             Retry in a moment.",
            layer.limit,
            if layer.limit == 1 { " is" } else { "s are" },
            human(layer.wait)
        ),
    )
    .retry_after(Duration::from_secs(1))
}
