//! The innermost services: [`Invoke`] (the tool itself), [`ReadResource`] (a resource or
//! template read) and [`GetPrompt`] (a prompt rendered).

use super::{BoxError, McpRequest, Outcome};
use crate::context::RequestContext;
use crate::context::input::with_current;
use crate::prompt::{Prompt, PromptArguments, PromptError};
use crate::protocol::McpError;
use crate::protocol::{CallToolResult, Era, GetPromptResult, ReadResourceResult, ResourceContents};
use crate::resource::{Resource, ResourceError, ResourceTemplate, Variables};
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
        let context = request.context.clone();
        let span = tracing::debug_span!(target: super::REQUEST_TARGET, "tool");
        let call = {
            let _entered = span.enter();
            self.tool.call(request.arguments, request.context)
        };
        InvokeFuture {
            call,
            context,
            span,
        }
    }
}

/// [`Invoke`]'s future: the tool's own.
pub struct InvokeFuture {
    call: BoxFuture<'static, CallToolResult>,
    context: RequestContext,
    /// The tool's body as a child of the request's span (enabled only when asked for).
    span: tracing::Span,
}

impl fmt::Debug for InvokeFuture {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("InvokeFuture").finish_non_exhaustive()
    }
}

impl Future for InvokeFuture {
    type Output = Result<Outcome, BoxError>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = &mut *self;
        let _entered = this.span.enter();
        let polled = with_current(&this.context, || this.call.as_mut().poll(cx));
        settle(
            &this.context,
            polled,
            |r: &CallToolResult| r.is_error(),
            Outcome::Tool,
        )
    }
}

/// Turns a handler's poll into the pipeline's: a handler still waiting after it asked the
/// client something its request did not answer is suspended (`Outcome::InputRequired`; its
/// future is dropped with this one), a handler that failed after an ask found a capability
/// missing is answered with `-32021` naming it (`crate::input`), and one that failed with
/// a protocol error recorded on its context (a proxied task's) with that error.
fn settle<T>(
    context: &RequestContext,
    polled: Poll<T>,
    failed: impl FnOnce(&T) -> bool,
    outcome: impl FnOnce(T) -> Outcome,
) -> Poll<Result<Outcome, BoxError>> {
    match polled {
        Poll::Pending => match context.round() {
            Some(round) if round.suspended() => Poll::Ready(Ok(Outcome::InputRequired)),
            _ => Poll::Pending,
        },
        Poll::Ready(out) => {
            let failed = failed(&out);
            if failed && let Some(error) = context.take_error() {
                return Poll::Ready(Ok(Outcome::Error(error)));
            }
            if failed && let Some(required) = context.missing_capability() {
                return Poll::Ready(Ok(Outcome::Error(McpError::missing_client_capability(
                    required,
                ))));
            }
            Poll::Ready(Ok(outcome(out)))
        }
    }
}

/// What a [`ReadResource`] reads.
#[derive(Clone)]
pub(crate) enum ReadTarget {
    /// A resource with a fixed URI.
    Resource(Arc<dyn Resource>),
    /// A template; the variables travel as the request's arguments.
    Template(Arc<dyn ResourceTemplate>),
}

/// The innermost service of a `resources/read`: reads the resource (for a template, with the
/// variables in the request's arguments) and answers [`Outcome::Read`], or the JSON-RPC
/// error its [`ResourceError`] is in the request's era.
#[derive(Clone)]
pub struct ReadResource {
    target: ReadTarget,
}

impl fmt::Debug for ReadResource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ReadResource").finish_non_exhaustive()
    }
}

impl ReadResource {
    pub(crate) fn new(target: ReadTarget) -> Self {
        Self { target }
    }
}

impl tower::Service<McpRequest> for ReadResource {
    type Response = Outcome;
    type Error = BoxError;
    type Future = ReadFuture;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: McpRequest) -> ReadFuture {
        let era = request.context.era();
        let context = request.context.clone();
        let read = match &self.target {
            ReadTarget::Resource(resource) => resource.read(request.context),
            ReadTarget::Template(template) => {
                let variables = match request.variables {
                    Some(variables) => variables,
                    None => Variables::from_json(&request.arguments),
                };
                template.read(request.target.to_string(), variables, request.context)
            }
        };
        ReadFuture {
            read,
            uri: request.target,
            era,
            context,
        }
    }
}

/// [`ReadResource`]'s future.
pub struct ReadFuture {
    read: BoxFuture<'static, Result<Vec<ResourceContents>, ResourceError>>,
    uri: Arc<str>,
    era: Era,
    context: RequestContext,
}

impl fmt::Debug for ReadFuture {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ReadFuture")
            .field("uri", &self.uri)
            .finish_non_exhaustive()
    }
}

impl Future for ReadFuture {
    type Output = Result<Outcome, BoxError>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = &mut *self;
        let polled = with_current(&this.context, || this.read.as_mut().poll(cx));
        let (uri, era) = (&this.uri, this.era);
        settle(&this.context, polled, Result::is_err, |r| match r {
            Ok(contents) => Outcome::Read(ReadResourceResult {
                contents,
                meta: None,
            }),
            Err(e) => Outcome::Error(e.into_mcp_error(uri, era)),
        })
    }
}

/// The innermost service of a `prompts/get`: renders the prompt with the request's
/// arguments (strings; a value a layer replaced with another JSON type is passed as its JSON
/// text) and answers [`Outcome::Prompt`], or the JSON-RPC error of its [`PromptError`].
#[derive(Clone)]
pub struct GetPrompt {
    prompt: Arc<dyn Prompt>,
}

impl fmt::Debug for GetPrompt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GetPrompt").finish_non_exhaustive()
    }
}

impl GetPrompt {
    pub(crate) fn new(prompt: Arc<dyn Prompt>) -> Self {
        Self { prompt }
    }
}

impl tower::Service<McpRequest> for GetPrompt {
    type Response = Outcome;
    type Error = BoxError;
    type Future = PromptFuture;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: McpRequest) -> PromptFuture {
        let arguments: PromptArguments = request
            .arguments
            .into_iter()
            .map(|(name, value)| match value {
                serde_json::Value::String(s) => (name, s),
                other => (name, other.to_string()),
            })
            .collect();
        let context = request.context.clone();
        PromptFuture {
            get: self.prompt.get(arguments, request.context),
            context,
        }
    }
}

/// [`GetPrompt`]'s future.
pub struct PromptFuture {
    get: BoxFuture<'static, Result<GetPromptResult, PromptError>>,
    context: RequestContext,
}

impl fmt::Debug for PromptFuture {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PromptFuture").finish_non_exhaustive()
    }
}

impl Future for PromptFuture {
    type Output = Result<Outcome, BoxError>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = &mut *self;
        let polled = with_current(&this.context, || this.get.as_mut().poll(cx));
        settle(&this.context, polled, Result::is_err, |r| match r {
            Ok(result) => Outcome::Prompt(result),
            Err(e) => Outcome::Error(e.into_mcp_error()),
        })
    }
}
