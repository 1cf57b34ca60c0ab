//! [`OutputCheck`]: a tool's structured output against its output schema. A tool that
//! breaks its own contract gets an `isError` result (and an error log), not a client that
//! chokes on the output.

use super::{BoxError, McpRequest, Outcome};
use crate::protocol::CallToolResult;
use crate::tool::schema::CheckedSchema;
use pin_project_lite::pin_project;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, ready};

/// Calls `S`, then checks a successful result against the output schema.
#[derive(Debug, Clone)]
pub struct OutputCheck<S> {
    inner: S,
    schema: Option<Arc<CheckedSchema>>,
}

impl<S> OutputCheck<S> {
    /// Checks against `schema`; `None` (no output schema) checks nothing.
    pub fn new(inner: S, schema: Option<Arc<CheckedSchema>>) -> Self {
        Self { inner, schema }
    }
}

impl<S> tower::Service<McpRequest> for OutputCheck<S>
where
    S: tower::Service<McpRequest, Response = Outcome, Error = BoxError>,
{
    type Response = Outcome;
    type Error = BoxError;
    type Future = OutputCheckFuture<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: McpRequest) -> Self::Future {
        let check = self
            .schema
            .clone()
            .map(|schema| (schema, request.target_arc().clone()));
        OutputCheckFuture {
            inner: self.inner.call(request),
            check,
        }
    }
}

pin_project! {
    /// [`OutputCheck`]'s future.
    #[derive(Debug)]
    pub struct OutputCheckFuture<F> {
        #[pin]
        inner: F,
        check: Option<(Arc<CheckedSchema>, Arc<str>)>,
    }
}

impl<F> Future for OutputCheckFuture<F>
where
    F: Future<Output = Result<Outcome, BoxError>>,
{
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        let out = ready!(this.inner.poll(cx));
        Poll::Ready(match (out, this.check.take()) {
            (Ok(Outcome::Tool(result)), Some((schema, tool))) if !result.is_error() => {
                Ok(Outcome::Tool(check(&schema, &tool, result)))
            }
            (out, _) => out,
        })
    }
}

fn check(schema: &CheckedSchema, tool: &str, result: CallToolResult) -> CallToolResult {
    let problems = match (schema.validator(), &result.structured_content) {
        (Err(reason), _) => format!("the output schema does not compile: {reason}"),
        (_, None) => {
            "the tool declares an outputSchema but returned no structuredContent".to_owned()
        }
        (Ok(validator), Some(v)) if validator.is_valid(v) => return result,
        (Ok(validator), Some(v)) => validator.violations(v).bullets(),
    };
    tracing::error!(
        tool,
        %problems,
        "tool output does not match its outputSchema"
    );
    CallToolResult::error(format!(
        "Tool `{tool}` produced output that does not match its output schema:\n- {problems}"
    ))
}
