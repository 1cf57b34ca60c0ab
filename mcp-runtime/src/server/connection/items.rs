//! The requests of resources, prompts and completions: `resources/read` and `prompts/get` run
//! user code through their item's stack (audit, panic isolation, the server's layers;
//! `crate::pipeline`), like `tools/call` does; `completion/complete` asks the prompt or
//! template for suggestions; `resources/subscribe` and `resources/unsubscribe` keep a legacy
//! connection's subscriptions.
//!
//! Errors follow `primitives.md`: a URI nothing serves is "Resource not found" (`-32602` with
//! `data.uri` on the modern leg, `-32002` on the legacy one); a URI that is not one
//! (no scheme, spaces or control characters) is `-32602` with `data.reason = "invalid_uri"`;
//! an unknown prompt, a missing or unknown argument, an unknown completion reference are
//! `-32602`; a failure inside is `-32603`.

use super::{
    Connection, Envelope, Outlet, Routed, Scope, optional_params, required_params, unoffered,
};
use crate::context::RequestIo;
use crate::context::input::state::invalid_state_error;
use crate::context::input::{BindingSource, Carried, Channel, LegacyLink, Round};
use crate::context::{Caller, RequestContext, RequestContextParts};
use crate::pipeline::{BoxError, McpRequest, Outcome};
use crate::prompt::PromptArguments;
use crate::protocol::InputRequiredResult;
use crate::protocol::jsonrpc::{
    encode_error, encode_notification, encode_result, encode_result_within,
};
use crate::protocol::lifecycle::MetaOnlyParams;
use crate::protocol::{
    CompleteParams, CompleteResult, Completion, CompletionReference, Era, ErrorCode,
    GetPromptParams, McpError, RequestId, ResourceUriParams,
};
use crate::resource::ResourceError;
use crate::server::contract::{Disposition, Rejection, RequestChecks};
use crate::server::projection::Modern;
use crate::server::registry::resources::Route;
use futures::FutureExt as _;
use futures::future::BoxFuture;
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};
use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::task::{Context, Poll};
use tokio::sync::broadcast;

/// At most this many resources one legacy connection subscribes to at once; beyond it a
/// subscription is refused (`-32602`), so a client cannot grow the server's memory
/// without bound.
pub(crate) const MAX_SUBSCRIPTIONS: usize = 1024;

/// How a finished request's output becomes its answer.
type Finish<T> = fn(&Connection, &RequestId, &RequestContext, T) -> (Vec<u8>, Disposition);

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
        let server = &self.inner.server.inner;
        let io = match env.era {
            Era::Modern => RequestIo {
                input: match round {
                    Some(round) => Channel::Modern(round),
                    None => Channel::Unavailable(
                        "only tools/call, prompts/get and resources/read may ask the client",
                    ),
                },
                log_threshold: env.log_level.filter(|_| server.logging),
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
                    log_threshold: server.logging.then(|| {
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
                cancellation: self.cancellation_for(outlet),
                peer: Some(self.notifications_for(outlet)),
                extensions: self.inner.server.inner.extensions.clone(),
                caller: self.caller_for(outlet),
            },
            self.inner.server.inner.clone(),
            io,
        )
    }

    /// The modern round of a request that may ask the client: its `requestState` checked
    /// (a state that fails any check is the one error `input::state` documents, in-band)
    /// and its `inputResponses` read.
    pub(super) fn round(
        &self,
        method: &'static str,
        params: Option<&RawValue>,
        caller: &Caller,
        responses: Option<Value>,
        state: Option<Value>,
    ) -> Result<Arc<Round>, Rejection> {
        let source = BindingSource {
            method,
            params: params.map_or("{}", RawValue::get).into(),
            principal: caller.identity().map(str::to_owned),
        };
        let (binding, carried) = match state {
            None | Some(Value::Null) => (None, None),
            Some(Value::String(state)) => {
                let binding = source.binding();
                let carried = self
                    .inner
                    .server
                    .inner
                    .request_state
                    .open(&state, &binding)
                    .map_err(|why| {
                        tracing::debug!(?why, method, "requestState refused");
                        Rejection::from(invalid_state_error())
                    })?;
                (Some(binding), Some(carried))
            }
            Some(_) => return Err(invalid_state_error().into()),
        };
        let responses = match responses {
            Some(Value::Object(answers)) => Some(answers),
            // `null`, a number, …: nothing usable is answered, so everything is asked again.
            _ => None,
        };
        Ok(Arc::new(Round::new(source, binding, carried, responses)))
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
        let state = server.request_state.seal(
            round.binding(),
            Carried {
                answers: suspended.used,
                asked,
            },
        );
        let body = InputRequiredResult {
            input_requests: (!suspended.requests.is_empty()).then_some(suspended.requests),
            request_state: Some(state),
        };
        let projected = Modern::input_required(&body, &server.server_info_raw);
        (encode_result(id, &projected), Disposition::Answered)
    }

    /// Runs a request's future: answered at once when its first poll finishes it (most
    /// reads and prompts do), otherwise in a task of the connection that the client's
    /// cancellation or the shutdown's abort drops.
    fn run<T, F>(
        &self,
        id: RequestId,
        mut future: F,
        outlet: Outlet,
        cx: RequestContext,
        finish: Finish<T>,
    ) -> Routed
    where
        T: Send + 'static,
        F: Future<Output = T> + Send + Unpin + 'static,
    {
        let era = cx.era();
        let mut poll_cx = Context::from_waker(futures::task::noop_waker_ref());
        if let Poll::Ready(out) = future.poll_unpin(&mut poll_cx) {
            cx.finish();
            let (line, disposition) = finish(self, &id, &cx, out);
            return Routed::Reply(line, disposition);
        }
        let token = cx.cancellation().clone();
        let tracked = self.track(&id, &token, &outlet, era);
        let this = self.clone();
        let aborted = self.inner.aborted.clone();
        self.inner.tasks.spawn(async move {
            tokio::select! {
                out = future => {
                    this.untrack(tracked, &id);
                    cx.finish();
                    let (line, _) = finish(&this, &id, &cx, out);
                    this.deliver(outlet, line).await;
                }
                () = token.cancelled() => {
                    this.untrack(tracked, &id);
                    cx.finish();
                }
                () = aborted.cancelled() => {
                    this.untrack(tracked, &id);
                    cx.finish();
                }
            }
        });
        Routed::Pending
    }

    pub(super) fn read_resource(
        &self,
        id: RequestId,
        params: Option<&RawValue>,
        scope: Scope<'_>,
    ) -> Routed {
        const METHOD: &str = "resources/read";
        let prepared = (|| -> Result<_, Rejection> {
            let p: ResourceUriParams = required_params(params)?;
            let env = self.named_envelope(p.meta, METHOD, &p.uri, scope.checks)?;
            let round = match env.era {
                Era::Modern => Some(self.round(
                    METHOD,
                    params,
                    &self.caller_for(&scope.outlet),
                    p.input_responses,
                    p.request_state,
                )?),
                Era::Legacy => None,
            };
            let resources = &self.inner.server.registry().resources;
            if !resources.advertised() {
                return Err(unoffered(METHOD, env.era));
            }
            if let Some(reason) = uri_problem(&p.uri) {
                return Err(ResourceError::InvalidUri(reason.into())
                    .into_mcp_error(&p.uri, env.era)
                    .into());
            }
            let route = resources
                .route(&p.uri)
                .ok_or_else(|| ResourceError::NotFound.into_mcp_error(&p.uri, env.era))?;
            Ok((env, p.uri, route, round))
        })();
        let (env, uri, route, round) = match prepared {
            Ok(p) => p,
            Err(rejection) => return Routed::rejected(&id, rejection),
        };
        let outlet = scope.outlet;
        let cx = self.context(&id, env, &outlet, round);
        let future: BoxFuture<'static, _> = match route {
            Route::Exact(r) => Box::pin(r.stack.call(r.request(uri, cx.clone()))),
            Route::Template(t, variables) => {
                Box::pin(t.stack.call(t.request(uri, variables, cx.clone())))
            }
        };
        self.run(id, future, outlet, cx, finish_read)
    }

    pub(super) fn get_prompt(
        &self,
        id: RequestId,
        params: Option<&RawValue>,
        scope: Scope<'_>,
    ) -> Routed {
        const METHOD: &str = "prompts/get";
        let prepared = (|| -> Result<_, Rejection> {
            let p: GetPromptParams = required_params(params)?;
            let env = self.named_envelope(p.meta, METHOD, &p.name, scope.checks)?;
            let prompts = &self.inner.server.registry().prompts;
            if !prompts.advertised() {
                return Err(unoffered(METHOD, env.era));
            }
            let prompt = prompts.get(&p.name).ok_or_else(|| {
                McpError::new(
                    ErrorCode::INVALID_PARAMS,
                    format!("Prompt {} not found", p.name),
                )
                .with_data(json!({ "name": p.name }))
            })?;
            let arguments = p.arguments.unwrap_or_default();
            prompt
                .check_arguments(&arguments)
                .map_err(|e| e.into_mcp_error())?;
            let round = match env.era {
                Era::Modern => Some(self.round(
                    METHOD,
                    params,
                    &self.caller_for(&scope.outlet),
                    p.input_responses,
                    p.request_state,
                )?),
                Era::Legacy => None,
            };
            Ok((env, prompt, arguments, round))
        })();
        let (env, prompt, arguments, round) = match prepared {
            Ok(p) => p,
            Err(rejection) => return Routed::rejected(&id, rejection),
        };
        let outlet = scope.outlet;
        let cx = self.context(&id, env, &outlet, round);
        let arguments: Map<String, Value> = arguments
            .into_iter()
            .map(|(k, v)| (k, Value::String(v)))
            .collect();
        let request = McpRequest::new(METHOD, prompt.name.clone(), arguments, cx.clone());
        let future: BoxFuture<'static, _> = Box::pin(prompt.stack.call(request));
        self.run(id, future, outlet, cx, finish_prompt)
    }

    pub(super) fn complete(
        &self,
        id: RequestId,
        params: Option<&RawValue>,
        scope: Scope<'_>,
    ) -> Routed {
        const METHOD: &str = "completion/complete";
        let prepared = (|| -> Result<_, Rejection> {
            let p: CompleteParams = required_params(params)?;
            let env = self.envelope(p.meta, METHOD, scope.checks)?;
            let registry = self.inner.server.registry();
            if !(registry.prompts.advertised() || registry.resources.advertised()) {
                return Err(unoffered(METHOD, env.era));
            }
            let chosen: PromptArguments = p.context.and_then(|c| c.arguments).unwrap_or_default();
            let argument = p.argument;
            let suggestions = match p.reference {
                CompletionReference::Prompt { name } => {
                    let prompt = registry.prompts.get(&name).ok_or_else(|| {
                        McpError::new(
                            ErrorCode::INVALID_PARAMS,
                            format!("Prompt {name} not found"),
                        )
                    })?;
                    if !prompt.declares(&argument.name) {
                        return Err(McpError::invalid_params(format!(
                            "prompt `{name}` has no argument `{}`",
                            argument.name
                        ))
                        .into());
                    }
                    prompt
                        .prompt
                        .complete(&argument.name, &argument.value, &chosen)
                }
                CompletionReference::Resource { uri } => {
                    match registry.resources.template(&uri) {
                        Some(template) => {
                            if !template
                                .template
                                .variable_names()
                                .any(|v| v == argument.name)
                            {
                                return Err(McpError::invalid_params(format!(
                                    "the template `{uri}` has no variable `{}`",
                                    argument.name
                                ))
                                .into());
                            }
                            template
                                .inner
                                .complete(&argument.name, &argument.value, &chosen)
                        }
                        // A fixed resource has nothing to fill in.
                        None if registry.resources.has_resource(&uri) => {
                            Box::pin(std::future::ready(Completion::default()))
                        }
                        None => {
                            return Err(McpError::new(
                                ErrorCode::INVALID_PARAMS,
                                format!("Resource template {uri} not found"),
                            )
                            .into());
                        }
                    }
                }
            };
            Ok((env, suggestions))
        })();
        let (env, suggestions) = match prepared {
            Ok(p) => p,
            Err(rejection) => return Routed::rejected(&id, rejection),
        };
        let outlet = scope.outlet;
        let cx = self.context(&id, env, &outlet, None);
        // Suggestions come from user code: a panic in it is answered like one in a tool.
        let future = std::panic::AssertUnwindSafe(suggestions).catch_unwind();
        self.run(id, future, outlet, cx, finish_complete)
    }

    /// `resources/subscribe` and `resources/unsubscribe` (legacy only: on the modern leg
    /// `subscriptions/listen` carries `resourceSubscriptions`, and these methods do not
    /// exist).
    pub(super) fn subscription(
        &self,
        id: &RequestId,
        method: &str,
        params: Option<&RawValue>,
        checks: Option<&dyn RequestChecks>,
    ) -> Result<Vec<u8>, Rejection> {
        // The era first: on the modern leg the method does not exist, whatever its params
        // (404 `-32601`, checked by the suite's `server-stateless`).
        let meta: MetaOnlyParams = optional_params(params)?;
        let env = self.envelope(meta.meta, method, checks)?;
        if env.era == Era::Modern || !self.inner.server.registry().resources.advertised() {
            return Err(unoffered(method, env.era));
        }
        let p: ResourceUriParams = required_params(params)?;
        if let Some(reason) = uri_problem(&p.uri) {
            return Err(ResourceError::InvalidUri(reason.into())
                .into_mcp_error(&p.uri, env.era)
                .into());
        }
        if self.inner.stateless {
            // A stateless endpoint keeps nothing between requests and has no stream to
            // announce updates on: the subscription is acknowledged (as the official
            // reference server does, and as the conformance suite expects of any server that
            // declares `subscribe`) and not recorded. Clients that need updates use a
            // sessionful endpoint, or `subscriptions/listen` on 2026-07-28.
            tracing::debug!(uri = %p.uri, method, "acknowledged on a stateless endpoint; no updates will follow");
            return Ok(encode_result(id, &json!({})));
        }
        let mut subscriptions = self
            .inner
            .subscriptions
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        if method == "resources/subscribe" {
            if subscriptions.len() >= MAX_SUBSCRIPTIONS && !subscriptions.contains(&*p.uri) {
                return Err(McpError::invalid_params(format!(
                    "this session already follows {MAX_SUBSCRIPTIONS} resources; unsubscribe \
                     from one first"
                ))
                .into());
            }
            subscriptions.insert(p.uri.into());
            drop(subscriptions);
            if !self.inner.watching_updates.swap(true, Ordering::AcqRel) {
                self.watch_updates();
            }
        } else {
            subscriptions.remove(&*p.uri);
        }
        Ok(encode_result(id, &json!({})))
    }

    /// Sends `notifications/resources/updated` to this legacy connection for every
    /// announced update of a URI it subscribed to. Started by the first subscription; ends
    /// with the connection's input.
    fn watch_updates(&self) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let mut updates = self.inner.server.registry().resources.subscribe_updates();
        let this = Arc::downgrade(&self.inner);
        let closing = self.inner.closing.clone();
        let tasks = self.inner.tasks.clone();
        runtime.spawn(tasks.track_future(async move {
            loop {
                let uri = tokio::select! {
                    () = closing.cancelled() => return,
                    update = updates.recv() => match update {
                        Ok(uri) => uri,
                        Err(broadcast::error::RecvError::Lagged(missed)) => {
                            tracing::debug!(missed, "a slow connection missed resource updates");
                            continue;
                        }
                        Err(broadcast::error::RecvError::Closed) => return,
                    },
                };
                let Some(inner) = this.upgrade() else { return };
                let subscribed = inner
                    .subscriptions
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .contains(&uri);
                if subscribed {
                    let line = encode_notification(
                        "notifications/resources/updated",
                        Some(json!({ "uri": &*uri })),
                    );
                    inner.peer.send_line(line).await;
                }
            }
        }));
    }
}

/// Why `uri` is not a URI at all (as opposed to one nothing serves).
fn uri_problem(uri: &str) -> Option<&'static str> {
    if uri.is_empty() {
        return Some("the URI is empty");
    }
    if uri.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Some("a URI has no spaces or control characters");
    }
    let scheme = uri.split_once(':').map(|(s, _)| s);
    let valid_scheme = scheme.is_some_and(|s| {
        s.starts_with(|c: char| c.is_ascii_alphabetic())
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
    });
    (!valid_scheme).then_some("a URI starts with a scheme (`file:`, `config:`, …)")
}

/// The error a layer's answer of the wrong kind becomes.
fn wrong_outcome(method: &str) -> McpError {
    McpError::internal(format!(
        "a layer answered {method} with the result of another kind of request"
    ))
}

fn error_reply(id: &RequestId, error: McpError) -> (Vec<u8>, Disposition) {
    let rejection = Rejection::from(error);
    (
        encode_error(Some(id), &rejection.error),
        rejection.disposition,
    )
}

fn finish_read(
    this: &Connection,
    id: &RequestId,
    cx: &RequestContext,
    out: Result<Outcome, BoxError>,
) -> (Vec<u8>, Disposition) {
    let era = cx.era();
    let mut result = match out.unwrap_or_else(Outcome::from_error) {
        Outcome::InputRequired => return this.input_required(id, cx),
        Outcome::Read(result) => result,
        Outcome::Refused(refusal) => return error_reply(id, refusal.into_mcp_error()),
        Outcome::Error(error) => return error_reply(id, error),
        _ => return error_reply(id, wrong_outcome("resources/read")),
    };
    let server = &this.inner.server.inner;
    let budget = server.max_response_bytes;
    let line = match era {
        Era::Legacy => encode_result_within(id, &result, budget),
        Era::Modern => {
            let meta = result.meta.take();
            let projected = Modern::complete(
                &result,
                &server.server_info_raw,
                Some(server.read_cache),
                meta.as_ref(),
            );
            encode_result_within(id, &projected, budget)
        }
    };
    within_budget(id, "resources/read", line)
}

fn finish_prompt(
    this: &Connection,
    id: &RequestId,
    cx: &RequestContext,
    out: Result<Outcome, BoxError>,
) -> (Vec<u8>, Disposition) {
    let era = cx.era();
    let mut result = match out.unwrap_or_else(Outcome::from_error) {
        Outcome::InputRequired => return this.input_required(id, cx),
        Outcome::Prompt(result) => result,
        Outcome::Refused(refusal) => return error_reply(id, refusal.into_mcp_error()),
        Outcome::Error(error) => return error_reply(id, error),
        _ => return error_reply(id, wrong_outcome("prompts/get")),
    };
    let server = &this.inner.server.inner;
    let budget = server.max_response_bytes;
    let line = match era {
        Era::Legacy => encode_result_within(id, &result, budget),
        Era::Modern => {
            let meta = result.meta.take();
            // No caching hints on prompts/get (server/utilities/caching).
            let projected = Modern::complete(&result, &server.server_info_raw, None, meta.as_ref());
            encode_result_within(id, &projected, budget)
        }
    };
    within_budget(id, "prompts/get", line)
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

fn finish_complete(
    this: &Connection,
    id: &RequestId,
    cx: &RequestContext,
    out: std::thread::Result<Completion>,
) -> (Vec<u8>, Disposition) {
    let era = cx.era();
    let Ok(completion) = out else {
        tracing::error!(%id, "a completion handler panicked");
        return error_reply(id, McpError::internal("the completion handler failed"));
    };
    let result = CompleteResult {
        completion: completion.capped(),
    };
    let line = match era {
        Era::Legacy => encode_result(id, &result),
        Era::Modern => {
            let server = &this.inner.server.inner;
            let projected = Modern::complete(&result, &server.server_info_raw, None, None);
            encode_result(id, &projected)
        }
    };
    (line, Disposition::Answered)
}
