//! The innermost services: [`Invoke`] (the tool itself), [`ReadResource`] (a resource or
//! template read) and [`GetPrompt`] (a prompt rendered).

use super::{BoxError, McpRequest, Outcome};
use crate::prompt::{Prompt, PromptArguments, PromptError};
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
        }
    }
}

/// [`ReadResource`]'s future.
pub struct ReadFuture {
    read: BoxFuture<'static, Result<Vec<ResourceContents>, ResourceError>>,
    uri: Arc<str>,
    era: Era,
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
        self.read.as_mut().poll(cx).map(|r| {
            Ok(match r {
                Ok(contents) => Outcome::Read(ReadResourceResult {
                    contents,
                    meta: None,
                }),
                Err(e) => Outcome::Error(e.into_mcp_error(&self.uri, self.era)),
            })
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
        PromptFuture {
            get: self.prompt.get(arguments, request.context),
        }
    }
}

/// [`GetPrompt`]'s future.
pub struct PromptFuture {
    get: BoxFuture<'static, Result<GetPromptResult, PromptError>>,
}

impl fmt::Debug for PromptFuture {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PromptFuture").finish_non_exhaustive()
    }
}

impl Future for PromptFuture {
    type Output = Result<Outcome, BoxError>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        self.get.as_mut().poll(cx).map(|r| {
            Ok(match r {
                Ok(result) => Outcome::Prompt(result),
                Err(e) => Outcome::Error(e.into_mcp_error()),
            })
        })
    }
}
