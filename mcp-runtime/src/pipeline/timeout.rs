//! [`Timeout`]: past its deadline a call's future is dropped, so the tool's work stops (an
//! `await` it is parked on is never resumed), and the model gets an `isError` result naming
//! the tool and the deadline. Work a tool moved elsewhere (a spawned task, a blocking
//! thread) is the tool's to stop.

use super::{BoxError, McpRequest, Outcome, Refusal, human};
use futures::future::BoxFuture;
use std::task::{Context, Poll};
use std::time::Duration;

/// Makes [`Timeout`].
#[derive(Debug, Clone, Copy)]
pub struct TimeoutLayer {
    duration: Duration,
}

impl TimeoutLayer {
    /// Calls may run for `duration`.
    pub fn new(duration: Duration) -> Self {
        Self { duration }
    }
}

impl<S> tower::Layer<S> for TimeoutLayer {
    type Service = Timeout<S>;

    fn layer(&self, inner: S) -> Timeout<S> {
        Timeout {
            inner,
            duration: self.duration,
        }
    }
}

/// Bounds the time of each call through `S`.
#[derive(Debug, Clone)]
pub struct Timeout<S> {
    inner: S,
    duration: Duration,
}

impl<S> tower::Service<McpRequest> for Timeout<S>
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
        let target = request.target_arc().clone();
        let duration = self.duration;
        let call = self.inner.call(request);
        Box::pin(async move {
            match tokio::time::timeout(duration, call).await {
                Ok(out) => out,
                Err(_) => Ok(Outcome::Refused(Refusal::new(
                    "timeout",
                    format!(
                        "Tool `{target}` timed out after {} and was stopped. Try again with a \
                         smaller request, or later.",
                        human(duration)
                    ),
                ))),
            }
        })
    }
}
