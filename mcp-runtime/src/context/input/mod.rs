//! Asking the client: elicitation, sampling and roots, one API for both eras.
//!
//! A tool, a prompt or a resource read asks through its
//! [`RequestContext`]:
//!
//! ```
//! use mcp_runtime::prelude::*;
//! use mcp_runtime::input::Elicitation;
//! use mcp_runtime::protocol::CreateMessageParams;
//!
//! #[derive(serde::Deserialize, schemars::JsonSchema)]
//! struct Confirm {
//!     /// Type the environment's name to confirm
//!     environment: String,
//! }
//!
//! /// Deploys to an environment, after the user confirms it.
//! #[mcp_tool]
//! async fn deploy(cx: RequestContext, env: String) -> Result<String, mcp_runtime::input::InputError> {
//!     match cx.elicit::<Confirm>(format!("Deploy to {env}?")).await? {
//!         Elicitation::Accepted(c) if c.environment == env => {}
//!         _ => return Ok("not deployed".into()),
//!     }
//!     let roots = cx.roots().await?;
//!     let summary = cx
//!         .sample(CreateMessageParams::new(100).user(format!("Summarize a deploy to {env}")))
//!         .await?;
//!     Ok(format!("deployed from {} root(s): {}", roots.len(), summary.text().unwrap_or_default()))
//! }
//! # let _ = Server::builder("demo", "1.0.0").tool(deploy::tool()).build().unwrap();
//! ```
//!
//! # How it travels
//!
//! - **Legacy sessions (2025-11-25)**: each ask is a JSON-RPC request to the client (on
//!   stdio, or on the HTTP request's own event stream), and the call waits for the answer,
//!   at most [`ServerBuilder::input_timeout`](crate::ServerBuilder::input_timeout) (default
//!   10 minutes). Cancelling the call, or the timeout, tells the client with
//!   `notifications/cancelled`. Only after `notifications/initialized`. On the stateless
//!   HTTP endpoint the answer is routed by the request's id (128 random bits), so it works
//!   on one instance; behind a load balancer legacy clients need sticky sessions.
//! - **Modern requests (2026-07-28)**: there are no sessions and the server never sends a
//!   request. An ask the request did not already answer **suspends** the handler: its
//!   future is dropped and the client gets an `input_required` result with everything the
//!   handler asked before it had to wait (asks made together, `futures::join!`, go in one
//!   round), plus a signed [`requestState`](state). When the client retries with the
//!   answers, the handler **runs again from the top**, and every ask it reaches returns
//!   its answer at once: the answers of earlier rounds come back from the state, the
//!   latest from the retry's `inputResponses`.
//!
//! # What the resumption model asks of a handler
//!
//! On the modern leg a handler that asks runs once per round, so the code before its last
//! ask runs more than once. Keep it deterministic (ask the same things in the same order
//! for the same arguments and answers) and put side effects after the asks, or make them
//! idempotent. No state machine is needed: the answers are replayed, the code reads as if
//! it waited. (On the legacy leg it does wait, and runs once.)
//!
//! Each ask has a key, the name of its answer in `inputRequests`/`inputResponses`: by
//! default its kind and position (`elicit_1`, `sample_2`, `roots_3`), or one chosen with
//! [`Ask::key`]. An answer the retry did not send, or one that does not parse (a number
//! where an elicitation result belongs, content of the wrong type), is asked again; answers
//! to keys nobody asked are ignored.
//!
//! The rule for a first call that already carries `inputResponses` (no `requestState`):
//! its answers are read by key, as a retry's are. The official conformance suite requires it
//! (`input-required-result-ignore-extra-params` sends the answer with the first call and
//! expects a complete result), and it grants nothing a client could not get anyway: the
//! client is what answers, with or without showing the question. So an answer is never
//! proof that a person saw the question; a handler that needs that proof (a destructive
//! confirmation) asks for something the client cannot know in advance, or uses
//! `elicit_url`. With a state, only the keys it asked are read.
//!
//! # Capabilities
//!
//! An ask the client did not declare the capability for (this request's
//! `clientCapabilities`, or the session's `initialize`) fails with
//! [`InputError::MissingCapability`], and nothing is sent. A handler that can do without
//! it goes on; one that fails because of it (an `Err`, an `isError` result) is answered with
//! `-32021` naming the capability (HTTP 400), as the spec asks.

mod log;

pub use super::channel::state;
pub use super::channel::{
    DEFAULT_INPUT_TIMEOUT, InputError, KeyError, MAX_OUTSTANDING, MAX_STATE_TTL, RequestStateKeys,
};
pub use log::ClientLogLayer;

// Set by telemetry when it is on (the `otel` feature); nothing else names it.
#[allow(unused_imports)]
pub(crate) use super::channel::OUTGOING_TRACE;
pub(crate) use super::channel::{
    BindingSource, Carried, Channel, LegacyLink, Outgoing, Round, StateCodec, TaskInput,
};
pub(crate) use log::with_current;

use super::channel::schema;
use crate::context::RequestContext;
use crate::protocol::{
    CreateMessageParams, CreateMessageResult, ElicitAction, ElicitRequestParams, ElicitResult,
    InputRequest, JsonObject, ListRootsResult, Root,
};
use futures::future::BoxFuture;
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

/// The key of a confirmation's question in `inputRequests`/`inputResponses`.
pub(crate) const CONFIRM_KEY: &str = "confirm_call";

/// What the user did with an elicitation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Elicitation<T> {
    /// The user submitted the form: its content.
    Accepted(T),
    /// The user explicitly refused.
    Declined,
    /// The user dismissed it without choosing.
    Cancelled,
}

impl<T> Elicitation<T> {
    /// The content, when accepted.
    pub fn accepted(self) -> Option<T> {
        match self {
            Elicitation::Accepted(v) => Some(v),
            _ => None,
        }
    }

    /// The action, as the wire names it.
    pub fn action(&self) -> ElicitAction {
        match self {
            Elicitation::Accepted(_) => ElicitAction::Accept,
            Elicitation::Declined => ElicitAction::Decline,
            Elicitation::Cancelled => ElicitAction::Cancel,
        }
    }
}

/// The answer parser of one kind of ask.
type Parse<T> = fn(Value) -> Result<T, String>;

/// One ask of the client, not sent until awaited (optionally after choosing its
/// [`key`](Self::key)). A future: `.await` it, or join several to ask them in one round.
#[must_use = "an ask does nothing until awaited"]
pub struct Ask<'a, T> {
    cx: &'a RequestContext,
    key: Option<String>,
    kind: &'static str,
    request: Option<Result<InputRequest, InputError>>,
    parse: Parse<T>,
    running: Option<BoxFuture<'static, Result<T, InputError>>>,
    /// Whether the ask takes a position in the default keys (every handler's ask does; the
    /// server's own confirmation does not, so a tool's keys do not move when it is added).
    counted: bool,
}

impl<T> fmt::Debug for Ask<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Ask")
            .field("kind", &self.kind)
            .field("key", &self.key)
            .finish_non_exhaustive()
    }
}

impl<'a, T: Send + 'static> Ask<'a, T> {
    fn new(
        cx: &'a RequestContext,
        kind: &'static str,
        request: Result<InputRequest, InputError>,
        parse: Parse<T>,
    ) -> Self {
        Self {
            cx,
            key: None,
            kind,
            request: Some(request),
            parse,
            running: None,
            counted: true,
        }
    }

    /// Names the answer in the modern leg's `inputRequests` and `inputResponses` (default:
    /// the kind and the ask's position, e.g. `elicit_1`). Keys are unique within a request.
    pub fn key(mut self, key: impl Into<String>) -> Self {
        self.key = Some(key.into());
        self
    }

    fn start(&mut self) -> BoxFuture<'static, Result<T, InputError>> {
        let cx = self.cx.clone();
        let key = self.key.take();
        let kind = self.kind;
        let parse = self.parse;
        // An uncounted ask always has its key; `None` here means counted.
        let key = match (self.counted, key) {
            (false, key) => Err(key.unwrap_or_default()),
            (true, key) => Ok(key),
        };
        let request = self
            .request
            .take()
            .unwrap_or_else(|| Err(InputError::Unavailable("this ask was already sent".into())));
        Box::pin(async move {
            let request = request?;
            cx.mark_asked();
            match cx.input_channel() {
                Channel::Unavailable(reason) => Err(InputError::Unavailable((*reason).into())),
                Channel::Modern(round) => modern_ask(&cx, &round, key, kind, request, parse).await,
                Channel::Task(task) => match task.link.get() {
                    // Before the call became a task: rounds of input_required results.
                    None => modern_ask(&cx, &task.round, key, kind, request, parse).await,
                    Some(link) => {
                        let (key, answered) =
                            answered_in(&cx, &task.round, key, kind, &request, parse)?;
                        // Answered in a round before the task existed.
                        if let Some((_, parsed)) = answered {
                            return Ok(parsed);
                        }
                        let answer = link.ask(&key, &request).await.map_err(|f| match f {
                            crate::task::AskFailure::Gone => InputError::Cancelled,
                            crate::task::AskFailure::Unavailable(why) => {
                                InputError::Unavailable(why)
                            }
                        })?;
                        parse(answer).map_err(InputError::InvalidResponse)
                    }
                },
                Channel::Legacy(link) => {
                    if link.capabilities_known && !request.allowed_by(cx.client_capabilities()) {
                        let error = InputError::missing(&request);
                        cx.record_missing_capability(&request);
                        return Err(error);
                    }
                    if let Some(reason) = link.unavailable {
                        return Err(InputError::Unavailable(reason.into()));
                    }
                    let params = match &request {
                        InputRequest::Elicit(p) => serde_json::to_value(p),
                        InputRequest::Sample(p) => serde_json::to_value(p),
                        InputRequest::Roots => Ok(Value::Null),
                    }
                    .map_err(|e| InputError::InvalidResponse(e.to_string()))?;
                    let Some(peer) = cx.peer() else {
                        return Err(InputError::Unavailable(
                            "the request has no way back".into(),
                        ));
                    };
                    let answer = link
                        .outgoing
                        .ask(
                            peer,
                            request.method(),
                            &params,
                            link.timeout,
                            cx.cancellation(),
                        )
                        .await?;
                    parse(answer).map_err(InputError::InvalidResponse)
                }
            }
        })
    }
}

impl<T: Send + 'static> Future for Ask<'_, T> {
    type Output = Result<T, InputError>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = &mut *self;
        if this.running.is_none() {
            this.running = Some(this.start());
        }
        this.running
            .as_mut()
            .expect("started above")
            .as_mut()
            .poll(cx)
    }
}

/// An ask's key: `Ok` a counted ask's (chosen or not), `Err` an uncounted ask's fixed one.
type AskKey = Result<Option<String>, String>;

/// An ask's key in `round`, once the client is known to have declared what it needs, and
/// the round's answer to it (as sent, and parsed) when it has one that parses.
fn answered_in<T>(
    cx: &RequestContext,
    round: &Round,
    key: AskKey,
    kind: &'static str,
    request: &InputRequest,
    parse: Parse<T>,
) -> Result<(String, Option<(Value, T)>), InputError> {
    let key = match key {
        Ok(chosen) => round.key(chosen, kind),
        Err(fixed) => fixed,
    };
    if !request.allowed_by(cx.client_capabilities()) {
        let error = InputError::missing(request);
        cx.record_missing_capability(request);
        return Err(error);
    }
    let answered = round
        .answer(&key)
        .and_then(|answer| parse(answer.clone()).ok().map(|parsed| (answer, parsed)));
    Ok((key, answered))
}

/// An ask on the modern leg: answered from the round when it can be, otherwise registered
/// (the handler is suspended, and its future dropped when the round ends).
async fn modern_ask<T>(
    cx: &RequestContext,
    round: &Round,
    key: AskKey,
    kind: &'static str,
    request: InputRequest,
    parse: Parse<T>,
) -> Result<T, InputError> {
    let (key, answered) = answered_in(cx, round, key, kind, &request, parse)?;
    if let Some((answer, parsed)) = answered {
        round.use_answer(key, answer);
        return Ok(parsed);
    }
    // Not answered (or not usably): ask, and wait for the round to end. The pipeline sees
    // the ask after this poll and answers input_required; this future is dropped with the
    // handler.
    round.ask(key, request);
    std::future::pending().await
}

fn parse_elicit<T: DeserializeOwned>(answer: Value) -> Result<Elicitation<T>, String> {
    let result: ElicitResult = serde_json::from_value(answer).map_err(|e| e.to_string())?;
    Ok(match result.action {
        ElicitAction::Accept => {
            let content = Value::Object(result.content.unwrap_or_default());
            Elicitation::Accepted(serde_json::from_value(content).map_err(|e| e.to_string())?)
        }
        ElicitAction::Decline => Elicitation::Declined,
        ElicitAction::Cancel => Elicitation::Cancelled,
    })
}

/// `answer` as it is, once it reads as a `T`.
fn checked<T: DeserializeOwned>(answer: Value) -> Result<Value, String> {
    match T::deserialize(&answer) {
        Ok(_) => Ok(answer),
        Err(e) => Err(e.to_string()),
    }
}

fn parse_action(answer: Value) -> Result<ElicitAction, String> {
    let result: ElicitResult = serde_json::from_value(answer).map_err(|e| e.to_string())?;
    Ok(result.action)
}

fn parse_sample(answer: Value) -> Result<CreateMessageResult, String> {
    serde_json::from_value(answer).map_err(|e| e.to_string())
}

fn parse_roots(answer: Value) -> Result<Vec<Root>, String> {
    let result: ListRootsResult = serde_json::from_value(answer).map_err(|e| e.to_string())?;
    Ok(result.roots)
}

impl RequestContext {
    /// Asks the user to fill in a form for `T`: a struct of strings, numbers, booleans and
    /// unit enums (its schema comes from `schemars`; see the `input` module for what is
    /// allowed). The answer is deserialized into `T`.
    pub fn elicit<T>(&self, message: impl Into<String>) -> Ask<'_, Elicitation<T>>
    where
        T: DeserializeOwned + schemars::JsonSchema + Send + 'static,
    {
        let request = schema::of::<T>()
            .map(|schema| InputRequest::Elicit(ElicitRequestParams::form(message, schema)));
        Ask::new(self, "elicit", request, parse_elicit::<T>)
    }

    /// Asks the user to fill in a form with a hand-written `requestedSchema` (a flat object
    /// schema, as the spec allows); the answer is the submitted object.
    pub fn elicit_schema(
        &self,
        message: impl Into<String>,
        requested_schema: Value,
    ) -> Ask<'_, Elicitation<JsonObject>> {
        let request = Ok(InputRequest::Elicit(ElicitRequestParams::form(
            message,
            requested_schema,
        )));
        Ask::new(self, "elicit", request, parse_elicit::<JsonObject>)
    }

    /// Asks the user to open `url` (a page of the server's, for what must not pass through
    /// the client: credentials, payments). `Accepted` is the user's consent to open it, not
    /// the end of the out-of-band step. Needs the client's `elicitation.url`.
    pub fn elicit_url(
        &self,
        message: impl Into<String>,
        url: impl Into<String>,
    ) -> Ask<'_, ElicitAction> {
        let mut id = [0u8; 16];
        getrandom::fill(&mut id).expect("the operating system's random generator works");
        let id: String = id.iter().map(|b| format!("{b:02x}")).collect();
        let request = Ok(InputRequest::Elicit(ElicitRequestParams::url(
            message, url, id,
        )));
        Ask::new(self, "elicit", request, parse_action)
    }

    /// The server's own yes/no question before a confirmed tool runs
    /// ([`Confirm`](crate::tool::Confirm)): an elicitation with no fields, under a fixed key
    /// that takes no position among the tool's own asks.
    pub(crate) fn confirm(&self, message: String) -> Ask<'_, ElicitAction> {
        let schema = serde_json::json!({"type": "object", "properties": {}});
        let request = Ok(InputRequest::Elicit(ElicitRequestParams::form(
            message, schema,
        )));
        let mut ask = Ask::new(self, "elicit", request, parse_action).key(CONFIRM_KEY);
        ask.counted = false;
        ask
    }

    /// Asks the client's model for a completion (`sampling/createMessage`).
    pub fn sample(&self, request: CreateMessageParams) -> Ask<'_, CreateMessageResult> {
        Ask::new(
            self,
            "sample",
            Ok(InputRequest::Sample(Box::new(request))),
            parse_sample,
        )
    }

    /// Asks the client for its roots (`roots/list`).
    pub fn roots(&self) -> Ask<'_, Vec<Root>> {
        Ask::new(self, "roots", Ok(InputRequest::Roots), parse_roots)
    }

    /// Asks `request` as the protocol writes it, and returns the client's answer as the
    /// client wrote it: what a proxy relays from the server behind it
    /// ([`crate::proxy`]). Like every ask, in both eras (a request on a 2025 session, an
    /// `input_required` round on 2026-07-28), and like every ask the answer is checked: one
    /// that is not a result of `request`'s method (an `ElicitResult`, a
    /// `CreateMessageResult`, a `ListRootsResult`) is asked again on 2026-07-28 and is
    /// [`InputError::InvalidResponse`] on 2025.
    pub fn ask(&self, request: InputRequest) -> Ask<'_, Value> {
        let (kind, parse): (&'static str, Parse<Value>) = match &request {
            InputRequest::Elicit(_) => ("elicit", checked::<ElicitResult>),
            InputRequest::Sample(_) => ("sample", checked::<CreateMessageResult>),
            _ => ("roots", checked::<ListRootsResult>),
        };
        Ask::new(self, kind, Ok(request), parse)
    }
}
