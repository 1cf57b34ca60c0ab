//! What the requests that run user code share (`tools/call`, `resources/read`,
//! `prompts/get`, `completion/complete`): their [`RequestContext`], the modern round of a
//! request that may ask the client, the `input_required` answer of one that suspended, and
//! [`Connection::serve`], the one routine that runs an item's stack: polled once inline
//! (most items finish without waiting), moved to a task of the connection only when it has
//! to wait, dropped when the client cancels or the shutdown's grace runs out.

use super::{Connection, Deferred, Envelope, Outlet, Routed};
use crate::context::RequestIo;
use crate::context::input::state::invalid_state_error;
use crate::context::input::{BindingSource, Carried, Channel, LegacyLink, Round};
use crate::context::{RequestContext, RequestContextParts};
use crate::pipeline::{BoxError, Outcome};
use crate::protocol::jsonrpc::{encode_error, encode_result, encode_result_within};
use crate::protocol::{Era, InputRequiredResult, JsonObject, McpError, RequestId};
use crate::server::contract::{Disposition, Rejection};
use crate::server::projection::Modern;
use futures::FutureExt as _;
use futures::future::BoxFuture;
use serde::Serialize;
use serde_json::Value;
use serde_json::value::RawValue;
use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::task::{Context, Poll};

impl Connection {
    /// The context of a request that runs user code. `round` is the modern round of a
    /// request that may ask the client (`tools/call`, `prompts/get`, `resources/read`).
    pub(super) fn context(
        &self,
        id: &RequestId,
        env: Envelope,
        outlet: &Outlet,
        round: Option<Arc<Round>>,
    ) -> RequestContext {
        let cancellation = self.cancellation_for(outlet);
        self.context_with(id, env, outlet, round.map(Channel::Modern), cancellation)
    }

    /// [`context`](Self::context) with the modern leg's input channel and the cancellation
    /// chosen by the caller (a call that may become a task has its own of both).
    pub(super) fn context_with(
        &self,
        id: &RequestId,
        env: Envelope,
        outlet: &Outlet,
        modern_input: Option<Channel>,
        cancellation: tokio_util::sync::CancellationToken,
    ) -> RequestContext {
        let server = &self.inner.server.inner;
        let io = match env.era {
            Era::Modern => RequestIo {
                input: modern_input.unwrap_or(Channel::Unavailable(
                    "only tools/call, prompts/get and resources/read may ask the client",
                )),
                log_threshold: env.log_level.filter(|_| server.offer.logging),
            },
            Era::Legacy => {
                let unavailable = match (&env.session, outlet) {
                    (Some(s), _) if !s.initialized.load(Ordering::Acquire) => {
                        Some("the client has not sent notifications/initialized yet")
                    }
                    (_, Outlet::Exchange(e)) if !e.streams => Some(
                        "the client accepts only JSON responses, so nothing can reach it during the call",
                    ),
                    _ => None,
                };
                RequestIo {
                    input: Channel::Legacy(LegacyLink {
                        outgoing: self.inner.outgoing.clone(),
                        timeout: server.input_timeout,
                        unavailable,
                        capabilities_known: env.session.is_some(),
                    }),
                    log_threshold: server.offer.logging.then(|| {
                        env.session
                            .as_ref()
                            .map_or(super::DEFAULT_LEGACY_LEVEL, |s| s.log_level())
                    }),
                }
            }
        };
        RequestContext::for_server(
            RequestContextParts {
                era: env.era,
                protocol_version: env.version,
                client_capabilities: env.client_capabilities,
                client_info: env.client_info,
                request_id: id.clone(),
                progress_token: env.progress_token,
                trace: env.trace,
                cancellation,
                peer: Some(self.notifications_for(outlet)),
                extensions: self.inner.server.inner.extensions.clone(),
                caller: self.caller_for(outlet),
                meta: env.meta,
            },
            self.inner.server.inner.clone(),
            io,
        )
    }

    /// The modern round of a request that may ask the client (`None` on the legacy leg,
    /// which asks with requests of its own): its `requestState` checked (a state that fails
    /// any check is the one error `input::state` documents, in-band) and its
    /// `inputResponses` read, bound to the caller of `outlet`.
    pub(super) fn round(
        &self,
        era: Era,
        method: &'static str,
        params: Option<&RawValue>,
        outlet: &Outlet,
        responses: Option<Value>,
        state: Option<Value>,
    ) -> Result<Option<Arc<Round>>, Rejection> {
        if era == Era::Legacy {
            return Ok(None);
        }
        let caller = self.caller_for(outlet);
        let source = BindingSource {
            method,
            params: params.map_or("{}", RawValue::get).into(),
            principal: caller.identity().map(str::to_owned),
        };
        let (binding, carried) = match state {
            None | Some(Value::Null) => (None, None),
            Some(Value::String(state)) => {
                let binding = source.binding();
                let (carried, spend) = self
                    .inner
                    .server
                    .inner
                    .request_state
                    .open(&state, &binding)
                    .map_err(|why| {
                        tracing::debug!(?why, method, "requestState refused");
                        Rejection::from(invalid_state_error())
                    })?;
                (Some(binding), Some((carried, spend)))
            }
            Some(_) => return Err(invalid_state_error().into()),
        };
        let responses = match responses {
            Some(Value::Object(answers)) => Some(answers),
            // `null`, a number, …: nothing usable is answered, so everything is asked again.
            _ => None,
        };
        let (carried, spend) = carried.map_or((None, None), |(c, s)| (Some(c), s));
        let round = Round::new(source, binding, carried, responses);
        if let Some(spend) = spend {
            round.set_pending_spend(spend);
        }
        Ok(Some(Arc::new(round)))
    }

    /// `future`, after the round's `requestState` nonce is spent in the store instances
    /// share (when it is kept there): a replay, or the store unreachable, answers with the
    /// error instead of running the handler.
    pub(super) fn after_spend<F>(
        cx: &RequestContext,
        future: F,
    ) -> futures::future::Either<F, BoxFuture<'static, Result<Outcome, BoxError>>>
    where
        F: Future<Output = Result<Outcome, BoxError>> + Send + 'static,
    {
        match cx.round().and_then(|round| round.take_pending_spend()) {
            None => futures::future::Either::Left(future),
            Some(spend) => futures::future::Either::Right(Box::pin(async move {
                match spend.await {
                    Ok(()) => future.await,
                    Err(error) => Ok(Outcome::Error(error)),
                }
            })),
        }
    }

    /// The `input_required` answer of a handler that suspended: what it asked, and a new
    /// signed state carrying the answers it used.
    pub(super) fn input_required(
        &self,
        id: &RequestId,
        cx: &RequestContext,
    ) -> (Vec<u8>, Disposition) {
        let Some(round) = cx.round() else {
            return error_reply(
                id,
                McpError::internal("a layer answered input_required to a request that cannot ask"),
            );
        };
        let server = &self.inner.server.inner;
        let suspended = round.take();
        let asked = suspended.requests.keys().map(str::to_owned).collect();
        let sealed = server.request_state.seal(
            round.binding(),
            Carried {
                answers: suspended.used,
                asked,
            },
            round.principal(),
        );
        let state = match sealed {
            Ok(state) => state,
            Err(refused) => {
                tracing::warn!(?refused, "no requestState minted");
                return error_reply(id, refused.error());
            }
        };
        let body = InputRequiredResult {
            input_requests: (!suspended.requests.is_empty()).then_some(suspended.requests),
            request_state: Some(state),
        };
        let projected = Modern::input_required(&body, &server.server_info_raw);
        (encode_result(id, &projected), Disposition::Answered)
    }

    /// Runs a request's future: answered at once when its first poll finishes it (most
    /// tools, reads and prompts do), otherwise in a task of the connection that the
    /// client's cancellation or the shutdown's abort drops (dropping it stops the item's
    /// work, and the audit records it as cancelled). `finish` turns the output into the
    /// answer, in either case.
    pub(super) fn serve<T, F, D>(
        &self,
        id: RequestId,
        mut future: F,
        outlet: Outlet,
        cx: RequestContext,
        finish: D,
    ) -> Routed
    where
        T: Send + 'static,
        F: Future<Output = T> + Send + Unpin + 'static,
        D: FnOnce(&Connection, &RequestId, &RequestContext, T) -> (Vec<u8>, Disposition)
            + Send
            + 'static,
    {
        let era = cx.era();
        let mut poll_cx = Context::from_waker(futures::task::noop_waker_ref());
        if let Poll::Ready(out) = future.poll_unpin(&mut poll_cx) {
            cx.finish();
            let (line, disposition) = finish(self, &id, &cx, out);
            return Routed::Reply(line, disposition);
        }
        // Boxed with its type spelled out: the task's future must be `Send`, which the
        // compiler cannot prove through a stack's nested future types inside an `async`
        // block on its own. Only a request that waits pays for the box.
        let future: BoxFuture<'static, T> = Box::pin(future);
        let token = cx.cancellation().clone();
        let tracked = self.track(&id, &token, &outlet, era);
        let this = self.clone();
        let aborted = self.inner.aborted.clone();
        let deferred = Deferred::take();
        self.inner.tasks.spawn(async move {
            tokio::select! {
                out = future => {
                    this.untrack(tracked, &id);
                    cx.finish();
                    let (line, disposition) = finish(&this, &id, &cx, out);
                    deferred.answered(&line);
                    this.deliver(outlet, line, disposition).await;
                }
                () = token.cancelled() => {
                    this.untrack(tracked, &id);
                    cx.finish();
                    deferred.dropped(false);
                }
                () = aborted.cancelled() => {
                    this.untrack(tracked, &id);
                    cx.finish();
                    deferred.dropped(false);
                }
            }
        });
        Routed::Pending
    }

    /// Answers with `future`'s line: at once when its first poll finishes it (a store in
    /// this process always does), otherwise from a task of the connection.
    pub(super) fn answer_later<F>(&self, future: F, outlet: Outlet) -> Routed
    where
        F: Future<Output = (Vec<u8>, Disposition)> + Send + 'static,
    {
        let mut future = Box::pin(future);
        let mut poll_cx = Context::from_waker(futures::task::noop_waker_ref());
        if let Poll::Ready((line, disposition)) = future.as_mut().poll(&mut poll_cx) {
            return Routed::Reply(line, disposition);
        }
        let this = self.clone();
        let aborted = self.inner.aborted.clone();
        let deferred = Deferred::take();
        self.inner.tasks.spawn(async move {
            tokio::select! {
                (line, disposition) = future => {
                    deferred.answered(&line);
                    this.deliver(outlet, line, disposition).await;
                }
                () = aborted.cancelled() => deferred.dropped(false),
            }
        });
        Routed::Pending
    }

    /// What came out of an item's stack, when it is a result to project: `Err` is the answer
    /// already (input required, a refusal or a protocol error).
    pub(super) fn outcome(
        &self,
        id: &RequestId,
        cx: &RequestContext,
        out: Result<Outcome, BoxError>,
    ) -> Result<Outcome, (Vec<u8>, Disposition)> {
        match out.unwrap_or_else(Outcome::from_error) {
            Outcome::InputRequired => Err(self.input_required(id, cx)),
            Outcome::Refused(refusal) => Err(error_reply(id, refusal.into_mcp_error())),
            Outcome::Error(error) => Err(error_reply(id, error)),
            result => Ok(result),
        }
    }

    /// A read's or a prompt's result, projected for the request's era (modern: with its
    /// `_meta`, the server's info and the caching hint `cache`), within the response budget
    /// (`-32603` past it).
    pub(super) fn answer<R: Serialize>(
        &self,
        id: &RequestId,
        era: Era,
        method: &str,
        result: &R,
        meta: Option<JsonObject>,
        cache: Option<crate::protocol::CachePolicy>,
    ) -> (Vec<u8>, Disposition) {
        let server = &self.inner.server.inner;
        let budget = server.max_response_bytes;
        let line = match era {
            Era::Legacy => encode_result_within(id, result, budget),
            Era::Modern => {
                let projected =
                    Modern::complete(result, &server.server_info_raw, cache, meta.as_ref());
                encode_result_within(id, &projected, budget)
            }
        };
        within_budget(id, method, line)
    }
}

/// The error a layer's answer of the wrong kind becomes.
pub(super) fn wrong_outcome(method: &str) -> McpError {
    McpError::internal(format!(
        "a layer answered {method} with the result of another kind of request"
    ))
}

/// The answer of a request that failed with `error`.
pub(super) fn error_reply(id: &RequestId, error: McpError) -> (Vec<u8>, Disposition) {
    let rejection = Rejection::from(error);
    (
        encode_error(Some(id), &rejection.error),
        rejection.disposition,
    )
}

/// The encoded answer, or `-32603` when it was over the response budget.
fn within_budget(
    id: &RequestId,
    method: &str,
    line: Result<Vec<u8>, usize>,
) -> (Vec<u8>, Disposition) {
    match line {
        Ok(line) => (line, Disposition::Answered),
        Err(budget) => {
            tracing::warn!(
                method,
                budget,
                "a result over the response budget was not sent"
            );
            error_reply(
                id,
                McpError::internal(format!(
                    "the result is larger than this server's response budget ({budget} bytes)"
                )),
            )
        }
    }
}
