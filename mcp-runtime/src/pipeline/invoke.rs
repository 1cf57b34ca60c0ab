//! [`Invoke`]: the innermost service, the tool itself.

use super::{BoxError, McpRequest, Outcome};
use crate::protocol::CallToolResult;
use crate::tool::Tool;
use futures::future::BoxFuture;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

/// Calls a tool with the request's arguments and context.
#[derive(Clone)]
pub struct Invoke {
    tool: Arc<dyn Tool>,
}

impl fmt::Debug for Invoke {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Invoke").finish_non_exhaustive()
    }
}

impl Invoke {
    /// Calls `tool`.
    pub fn new(tool: Arc<dyn Tool>) -> Self {
        Self { tool }
    }
}

impl tower::Service<McpRequest> for Invoke {
    type Response = Outcome;
    type Error = BoxError;
    type Future = InvokeFuture;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: McpRequest) -> InvokeFuture {
        InvokeFuture {
            call: self.tool.call(request.arguments, request.context),
        }
    }
}

/// [`Invoke`]'s future: the tool's own.
pub struct InvokeFuture {
    call: BoxFuture<'static, CallToolResult>,
}

impl fmt::Debug for InvokeFuture {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("InvokeFuture").finish_non_exhaustive()
    }
}

impl Future for InvokeFuture {
    type Output = Result<Outcome, BoxError>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        self.call.as_mut().poll(cx).map(|r| Ok(Outcome::Tool(r)))
    }
}
