//! [`Validate`]: arguments against the tool's input schema before it runs; every violation
//! is listed, with its JSON path, in one `isError` result the model can act on.

use super::{BoxError, McpRequest, Outcome, Refusal};
use crate::protocol::McpError;
use crate::tool::schema::CheckedSchema;
use futures::future::{Either, Ready, ready};
use serde_json::Value;
use std::sync::Arc;
use std::task::{Context, Poll};

/// Validates the arguments, then calls `S`.
#[derive(Debug, Clone)]
pub struct Validate<S> {
    inner: S,
    schema: Arc<CheckedSchema>,
}

impl<S> Validate<S> {
    /// Validates against `schema` (the tool's input schema).
    pub fn new(inner: S, schema: Arc<CheckedSchema>) -> Self {
        Self { inner, schema }
    }
}

impl<S> tower::Service<McpRequest> for Validate<S>
where
    S: tower::Service<McpRequest, Response = Outcome, Error = BoxError>,
{
    type Response = Outcome;
    type Error = BoxError;
    type Future = Either<Ready<Result<Outcome, BoxError>>, S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut request: McpRequest) -> Self::Future {
        match refusal(&self.schema, &mut request) {
            Some(out) => Either::Left(ready(Ok(out))),
            // The tool runs beside validation, not inside it.
            None => Either::Right(self.inner.call(request)),
        }
    }
}

/// What a call whose arguments do not match `schema` gets instead of running (every
/// violation, with its JSON path), or `None` when they match.
pub(super) fn refusal(schema: &CheckedSchema, request: &mut McpRequest) -> Option<Outcome> {
    let _span = tracing::debug_span!(target: super::REQUEST_TARGET, "validate arguments").entered();
    let validator = match schema.validator() {
        Ok(v) => v,
        Err(reason) => {
            tracing::error!(tool = %request.target(), reason, "the tool's input schema does not compile");
            let error = McpError::internal(format!(
                "the input schema of tool `{}` does not compile: {reason}",
                request.target()
            ));
            return Some(Outcome::Error(error));
        }
    };
    // The validator wants a `Value`; moving the map in and out costs nothing.
    let arguments = Value::Object(std::mem::take(&mut request.arguments));
    let refused = (!validator.is_valid(&arguments)).then(|| {
        let found = validator.violations(&arguments);
        let message = format!(
            "Invalid arguments for tool `{}` ({}):\n- {}\nCorrect the arguments to match the tool's input schema and call it again.",
            request.target(),
            found.count(),
            found.bullets()
        );
        Outcome::Refused(Refusal::new("invalid_arguments", message))
    });
    let Value::Object(arguments) = arguments else {
        unreachable!("moved in as an object above")
    };
    request.arguments = arguments;
    refused
}
