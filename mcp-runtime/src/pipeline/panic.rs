//! [`CatchPanic`]: a panic while a request's service is called or its future polled becomes
//! an `isError` result ("failed with an internal error"); the details go to the log, the
//! server keeps serving.

use super::{BoxError, McpRequest, Outcome, Refusal};
use pin_project_lite::pin_project;
use std::any::Any;
use std::fmt;
use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

/// Makes [`CatchPanic`].
#[derive(Debug, Clone, Copy, Default)]
pub struct CatchPanicLayer;

impl<S> tower::Layer<S> for CatchPanicLayer {
    type Service = CatchPanic<S>;

    fn layer(&self, inner: S) -> CatchPanic<S> {
        CatchPanic { inner }
    }
}

/// Turns panics inside `S` into refusals.
#[derive(Debug, Clone)]
pub struct CatchPanic<S> {
    inner: S,
}

impl<S> tower::Service<McpRequest> for CatchPanic<S>
where
    S: tower::Service<McpRequest, Response = Outcome, Error = BoxError>,
{
    type Response = Outcome;
    type Error = BoxError;
    type Future = CatchPanicFuture<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: McpRequest) -> Self::Future {
        let target = request.target_arc().clone();
        let state = match catch_unwind(AssertUnwindSafe(|| self.inner.call(request))) {
            Ok(future) => State::Running { future },
            Err(panic) => State::Panicked { panic: Some(panic) },
        };
        CatchPanicFuture { state, target }
    }
}

pin_project! {
    #[project = StateProj]
    enum State<F> {
        Running { #[pin] future: F },
        Panicked { panic: Option<Box<dyn Any + Send>> },
    }
}

pin_project! {
    /// [`CatchPanic`]'s future.
    pub struct CatchPanicFuture<F> {
        #[pin]
        state: State<F>,
        target: Arc<str>,
    }
}

impl<F> fmt::Debug for CatchPanicFuture<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CatchPanicFuture")
            .field("target", &self.target)
            .finish_non_exhaustive()
    }
}

impl<F> Future for CatchPanicFuture<F>
where
    F: Future<Output = Result<Outcome, BoxError>>,
{
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        let panic = match this.state.project() {
            StateProj::Running { future } => {
                match catch_unwind(AssertUnwindSafe(|| future.poll(cx))) {
                    Ok(poll) => return poll,
                    Err(panic) => panic,
                }
            }
            StateProj::Panicked { panic } => panic.take().unwrap_or_else(|| Box::new(())),
        };
        Poll::Ready(Ok(Outcome::Refused(panicked(this.target, &*panic))))
    }
}

/// The refusal for a panic in `target`, logging its message.
pub(crate) fn panicked(target: &str, panic: &(dyn Any + Send)) -> Refusal {
    let detail = panic
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_default();
    tracing::error!(tool = target, panic = %detail, "tool panicked");
    Refusal::new(
        "panic",
        format!(
            "Tool `{target}` failed with an internal error; the server logged the details and keeps running."
        ),
    )
}
