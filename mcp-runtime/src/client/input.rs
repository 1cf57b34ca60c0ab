//! Answering a server's questions: elicitation, sampling and roots, in both eras (see
//! [`InputHandler`]).

use super::{Client, ClientError};
use crate::protocol::input::{ELICIT_METHOD, ROOTS_METHOD, SAMPLE_METHOD};
use crate::protocol::methods;
use crate::protocol::{
    CreateMessageParams, CreateMessageResult, ElicitRequestParams, ElicitResult, InputRequest,
    InputRequiredResult, ListRootsResult, McpError, Root,
};
use futures::future::BoxFuture;
use serde_json::{Map, Value, json};
use std::fmt;
use std::future::Future;
use std::sync::Arc;

/// How many `input_required` rounds one call may take before the client gives up (the
/// bound the reference TypeScript SDK uses on its legacy shim).
pub const MAX_INPUT_ROUNDS: usize = 8;

type Answer<T> = BoxFuture<'static, Result<T, McpError>>;
type ElicitFn = dyn Fn(ElicitRequestParams) -> Answer<ElicitResult> + Send + Sync;
type SampleFn = dyn Fn(CreateMessageParams) -> Answer<CreateMessageResult> + Send + Sync;
type RootsFn = dyn Fn() -> Answer<Vec<Root>> + Send + Sync;

/// The closures a [`Client`] answers a server's questions with; one per kind, each
/// optional.
///
/// A [`Client`] given an [`InputHandler`] (with [`Client::with_input_handler`], before it
/// connects) declares the capabilities its closures cover (`elicitation` with both modes,
/// `sampling`, `roots`) in `initialize` and in every modern envelope, and then:
/// - **2025-11-25**: answers each server-to-client request (`elicitation/create`,
///   `sampling/createMessage`, `roots/list`, and `ping`) that arrives on stdio or on an
///   HTTP response stream, each in its own task, and drops the work of one the server
///   cancels (`notifications/cancelled`);
/// - **2026-07-28**: when `tools/call`, `prompts/get` or `resources/read` comes back
///   `input_required`, answers its `inputRequests` one after the other (in the server's
///   order, so a terminal dialogue never interleaves) and retries the same request with
///   `inputResponses` and the `requestState` echoed byte-exact, for at most
///   [`MAX_INPUT_ROUNDS`] rounds.
///
/// Without a handler nothing is declared; a legacy server's requests stay in
/// [`Client::take_unrouted`], and a modern `input_required` result of a typed call
/// (`call_tool`, `get_prompt`, `read_resource`) is [`ClientError::InputRequired`].
///
/// A closure's error goes to the server as the JSON-RPC error of its request on the legacy
/// leg; on the modern leg there is nothing to send it in, so the call ends with
/// [`ClientError::Input`] and is not retried.
///
/// ```
/// use mcp_runtime::client::{Client, InputHandler};
/// use mcp_runtime::protocol::{ElicitResult, Root};
/// # fn demo(client: Client) -> Client {
/// let handler = InputHandler::new()
///     .on_elicit(|_params| async { Ok(ElicitResult::decline()) })
///     .on_roots(|| async { Ok(vec![Root::new("file:///work").with_name("work")]) });
/// client.with_input_handler(handler)
/// # }
/// ```
#[derive(Clone, Default)]
pub struct InputHandler {
    elicit: Option<Arc<ElicitFn>>,
    sample: Option<Arc<SampleFn>>,
    roots: Option<Arc<RootsFn>>,
}

impl fmt::Debug for InputHandler {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("InputHandler")
            .field("elicit", &self.elicit.is_some())
            .field("sample", &self.sample.is_some())
            .field("roots", &self.roots.is_some())
            .finish()
    }
}

impl InputHandler {
    /// A handler that answers nothing (and declares nothing) yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Answers `elicitation/create` (forms and URLs; the client declares both modes).
    pub fn on_elicit<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn(ElicitRequestParams) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ElicitResult, McpError>> + Send + 'static,
    {
        self.elicit = Some(Arc::new(move |p| Box::pin(f(p))));
        self
    }

    /// Answers `sampling/createMessage` (the client declares `sampling`).
    pub fn on_sample<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn(CreateMessageParams) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<CreateMessageResult, McpError>> + Send + 'static,
    {
        self.sample = Some(Arc::new(move |p| Box::pin(f(p))));
        self
    }

    /// Answers `roots/list` (the client declares `roots`).
    pub fn on_roots<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn() -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Vec<Root>, McpError>> + Send + 'static,
    {
        self.roots = Some(Arc::new(move || Box::pin(f())));
        self
    }

    /// The `ClientCapabilities` object the closures cover.
    pub fn capabilities(&self) -> Value {
        let mut caps = Map::new();
        if self.elicit.is_some() {
            caps.insert("elicitation".into(), json!({"form": {}, "url": {}}));
        }
        if self.sample.is_some() {
            caps.insert("sampling".into(), json!({}));
        }
        if self.roots.is_some() {
            caps.insert("roots".into(), json!({"listChanged": false}));
        }
        Value::Object(caps)
    }

    /// Answers one request: the result object the server expects (a legacy result, or a
    /// modern `inputResponses` value). A kind without a closure is `-32601`.
    pub async fn answer(&self, request: InputRequest) -> Result<Value, McpError> {
        // A kind without a closure was not declared: as if the method did not exist.
        let unanswered = McpError::method_not_found;
        let value = match request {
            InputRequest::Elicit(params) => {
                let f = self
                    .elicit
                    .as_ref()
                    .ok_or_else(|| unanswered(ELICIT_METHOD))?;
                serde_json::to_value(f(params).await?)
            }
            InputRequest::Sample(params) => {
                let f = self
                    .sample
                    .as_ref()
                    .ok_or_else(|| unanswered(SAMPLE_METHOD))?;
                serde_json::to_value(f(*params).await?)
            }
            InputRequest::Roots => {
                let f = self
                    .roots
                    .as_ref()
                    .ok_or_else(|| unanswered(ROOTS_METHOD))?;
                serde_json::to_value(ListRootsResult { roots: f().await? })
            }
        };
        value.map_err(|e| McpError::internal(format!("cannot serialize the answer: {e}")))
    }

    /// Answers a legacy server-to-client request by method name; `ping` is answered `{}`.
    pub(super) async fn answer_request(
        &self,
        method: &str,
        params: Option<Value>,
    ) -> Result<Value, McpError> {
        if method == methods::PING.name {
            return Ok(json!({}));
        }
        let covered = match method {
            ELICIT_METHOD => self.elicit.is_some(),
            SAMPLE_METHOD => self.sample.is_some(),
            ROOTS_METHOD => self.roots.is_some(),
            _ => false,
        };
        if !covered {
            // Not declared, so not a method this client has.
            return Err(McpError::method_not_found(method));
        }
        let mut raw = Map::new();
        raw.insert("method".into(), method.into());
        if let Some(params) = params {
            raw.insert("params".into(), params);
        }
        let request: InputRequest = serde_json::from_value(Value::Object(raw))
            .map_err(|e| McpError::invalid_params(format!("{method}: {e}")))?;
        self.answer(request).await
    }
}

/// Whether `method` may come back `input_required` (and so is retried with answers).
pub(super) fn retries_with_input(method: &str) -> bool {
    methods::lookup(method).is_some_and(|m| m.target.is_some())
}

/// The `input_required` result in `result`, if that is what it is.
pub(crate) fn input_required(result: &Value) -> Option<Result<InputRequiredResult, ClientError>> {
    if result.get("resultType").and_then(Value::as_str) != Some("input_required") {
        return None;
    }
    Some(
        serde_json::from_value(result.clone())
            .map_err(|e| ClientError::Decode(format!("a malformed input_required result: {e}"))),
    )
}

impl Client {
    /// This client, answering the server's questions with `handler` (see
    /// [`InputHandler`]). Set it before connecting: the capabilities it covers are declared
    /// in `initialize`, and in the envelope of every modern request from then on.
    pub fn with_input_handler(self, handler: InputHandler) -> Self {
        *self.inner.input.write().unwrap_or_else(|e| e.into_inner()) = Some(Arc::new(handler));
        self
    }

    /// The handler, if one is set.
    pub(super) fn input_handler(&self) -> Option<Arc<InputHandler>> {
        self.inner
            .input
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// The capabilities this client declares.
    pub(super) fn declared_capabilities(&self) -> Value {
        if let Some(declared) = self.inner.declared.get() {
            return declared.clone();
        }
        self.input_handler()
            .map(|h| h.capabilities())
            .unwrap_or_else(|| json!({}))
    }

    /// Declares `capabilities` (a `ClientCapabilities` object) in the handshake and in
    /// modern envelopes instead of those of the [`InputHandler`]: for a client that answers
    /// the server's requests itself, from the messages [`take_unrouted`](Self::take_unrouted)
    /// yields (a proxy relaying them to its own callers). Set it before connecting; the
    /// first declaration stays.
    pub fn declare_capabilities(&self, capabilities: Value) {
        let _ = self.inner.declared.set(capabilities);
    }

    /// Sends a modern request and, while it comes back `input_required` and a handler is
    /// set, answers and retries it.
    pub(super) async fn request_answering(
        &self,
        method: &str,
        params: Option<Value>,
    ) -> Result<Value, ClientError> {
        let params = self.with_envelope(params);
        let mut result = self.request_raw(method, Some(params.clone())).await?;
        let Some(handler) = self.input_handler().filter(|_| retries_with_input(method)) else {
            return Ok(result);
        };
        for _ in 0..MAX_INPUT_ROUNDS {
            let Some(asked) = input_required(&result) else {
                return Ok(result);
            };
            let asked = asked?;
            let mut responses = Map::new();
            for (key, request) in asked.input_requests.map(|r| r.0).unwrap_or_default() {
                let answer = handler.answer(request).await.map_err(ClientError::Input)?;
                responses.insert(key, answer);
            }
            let mut retry = params.clone();
            if let Value::Object(retry) = &mut retry {
                retry.insert("inputResponses".into(), Value::Object(responses));
                if let Some(state) = asked.request_state {
                    retry.insert("requestState".into(), Value::String(state));
                }
            }
            result = self.request_raw(method, Some(retry)).await?;
        }
        match input_required(&result) {
            None => Ok(result),
            Some(_) => Err(ClientError::Input(McpError::internal(format!(
                "the server still asked for input after {MAX_INPUT_ROUNDS} rounds; giving up"
            )))),
        }
    }
}
