//! The tasks extension (`crate::task`): a `tools/call` that becomes a task, and `tasks/get`,
//! `tasks/update`, `tasks/cancel`.

use super::call::call_result;
use super::envelope::Envelope;
use super::method::Method;
use super::serve::error_reply;
use super::{Connection, Outlet, Routed, Scope, required_params};
use crate::context::input::{Channel, Round, TaskInput};
use crate::context::{Caller, RequestContext};
use crate::pipeline::{AUDIT_TARGET, BoxError, McpRequest, Outcome};
use crate::protocol::jsonrpc::{encode_result, encode_result_within};
use crate::protocol::methods;
use crate::protocol::task::{TASKS_EXTENSION, TaskIdParams, UpdateTaskParams};
use crate::protocol::{Era, JsonObject, McpError, RequestId};
use crate::server::contract::{Disposition, Rejection};
use crate::server::projection::Modern;
use crate::server::registry::tools::RegisteredTool;
use crate::task::{StoreError, TaskEnd, TaskHub, TaskRecord, TaskStatus, TaskSupport};
use futures::FutureExt as _;
use futures::future::BoxFuture;
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};
use std::sync::Arc;
use std::task::{Context, Poll};
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

/// `tasks/get`'s answer, borrowed from the stored task (`DetailedTask` on the wire).
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct Detailed<'a> {
    #[serde(flatten)]
    task: Wire<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    input_requests: Option<&'a JsonObject>,
    #[serde(skip_serializing_if = "Option::is_none")]
    result: Option<&'a RawValue>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<&'a McpError>,
}

/// A time in milliseconds since the Unix epoch, as RFC 3339 (ISO 8601), written into the
/// serializer without a `String` of its own.
fn rfc3339<S: serde::Serializer>(ms: &u64, serializer: S) -> Result<S::Ok, S::Error> {
    let time = std::time::UNIX_EPOCH + std::time::Duration::from_millis(*ms);
    serializer.collect_str(&humantime::format_rfc3339_millis(time))
}

/// What a client must declare to see tasks.
fn required_capabilities() -> Value {
    json!({ "extensions": { TASKS_EXTENSION: {} } })
}

/// Whether the request's client declared the tasks extension.
fn declares_tasks(env: &Envelope) -> bool {
    env.era == Era::Modern
        && env
            .client_capabilities
            .extensions
            .as_ref()
            .is_some_and(|e| e.contains_key(TASKS_EXTENSION))
}

/// The task's handle and state, as the wire carries it (`Task`), borrowed from its record:
/// the timestamps are written straight into the answer.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct Wire<'a> {
    task_id: &'a str,
    status: TaskStatus,
    #[serde(skip_serializing_if = "Option::is_none")]
    status_message: Option<&'a str>,
    #[serde(serialize_with = "rfc3339")]
    created_at: u64,
    #[serde(serialize_with = "rfc3339")]
    last_updated_at: u64,
    ttl_ms: u64,
    poll_interval_ms: u64,
}

fn wire(record: &TaskRecord) -> Wire<'_> {
    Wire {
        task_id: &record.id,
        status: record.status,
        status_message: record.status_message.as_deref(),
        created_at: record.created_at_ms,
        last_updated_at: record.last_updated_at_ms,
        ttl_ms: record.ttl_ms,
        poll_interval_ms: record.poll_interval_ms,
    }
}

/// The end of a task whose stack answered `out`.
fn end_of(tool: &RegisteredTool, out: Result<Outcome, BoxError>, budget: usize) -> TaskEnd {
    let out = match out.unwrap_or_else(Outcome::from_error) {
        Outcome::InputRequired => {
            return TaskEnd::Failed(McpError::internal(
                "the task asked the client in a way only a request can",
            ));
        }
        other => other,
    };
    match call_result(tool, Era::Modern, out) {
        Err(error) => TaskEnd::Failed(error),
        Ok(result) => {
            let Ok(raw) = serde_json::value::to_raw_value(&result) else {
                return TaskEnd::Failed(McpError::internal("a tool result did not serialize"));
            };
            if raw.get().len() <= budget {
                return TaskEnd::Completed(raw);
            }
            let over = crate::protocol::CallToolResult::error(format!(
                "The result of tool `{}` is larger than this server's response budget \
                 ({budget} bytes), so it was not kept. Ask for less: a smaller range, fewer \
                 items, or a smaller file.",
                tool.name
            ));
            match serde_json::value::to_raw_value(&over) {
                Ok(raw) => TaskEnd::Completed(raw),
                Err(_) => TaskEnd::Failed(McpError::internal("a tool result did not serialize")),
            }
        }
    }
}

/// A task's record with its end applied (a task that ended before it was stored).
fn ended(mut record: TaskRecord, end: TaskEnd) -> TaskRecord {
    match end {
        TaskEnd::Completed(result) => {
            record.status = TaskStatus::Completed;
            record.result = Some(result);
        }
        TaskEnd::Failed(error) => {
            record.status = TaskStatus::Failed;
            record.status_message = Some(error.message.to_string());
            record.error = Some(error);
        }
    }
    record
}

/// The store's refusal, as the answer to the request that wanted a task.
fn store_failure(error: StoreError) -> McpError {
    match error {
        StoreError::NotFound => McpError::invalid_params("Unknown task"),
        StoreError::Full(_) | StoreError::Unavailable(_) => McpError::internal(error.to_string()),
    }
}

impl Connection {
    /// Whether this call runs as a task (`Ok(true)`), synchronously (`Ok(false)`), or is
    /// refused: a tool that only runs as a task, for a client without the extension.
    pub(super) fn runs_as_task(
        &self,
        tool: &RegisteredTool,
        env: &Envelope,
    ) -> Result<bool, Rejection> {
        let offered = self.inner.server.inner.offer.tasks;
        match tool.task {
            TaskSupport::Never => Ok(false),
            TaskSupport::Optional | TaskSupport::Explicit => Ok(offered && declares_tasks(env)),
            TaskSupport::Required if offered && declares_tasks(env) => Ok(true),
            TaskSupport::Required => {
                let mut error = McpError::missing_client_capability(required_capabilities());
                error.message = format!(
                    "tool `{}` runs only as a task: call it with the 2026-07-28 protocol, \
                     declaring the {TASKS_EXTENSION} extension in the request's client capabilities",
                    tool.name
                )
                .into();
                Err(match env.era {
                    Era::Modern => error.into(),
                    // -32021 is a 2026 code that HTTP answers with 400; to a 2025 client it is
                    // an ordinary JSON-RPC error (a 400 would read as a broken transport).
                    Era::Legacy => Rejection {
                        error,
                        disposition: Disposition::Answered,
                    },
                })
            }
        }
    }

    /// A `tools/call` that may become a task. Polled once here: finished at once, an
    /// optional task's call is answered as usual; suspended for input, it is an
    /// `input_required` round; otherwise (and always for a required task) it becomes a task,
    /// stored before its handle is answered, and runs on the runtime until it ends or is
    /// cancelled. An explicit task's call is served as a request until its tool asks to
    /// become a task ([`call_until_task`](Self::call_until_task)).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn call_as_task(
        &self,
        id: RequestId,
        method: &'static Method,
        env: Envelope,
        tool: Arc<RegisteredTool>,
        arguments: Map<String, Value>,
        round: Arc<Round>,
        outlet: Outlet,
    ) -> Routed {
        let input = Arc::new(TaskInput::new(round));
        let cancel = CancellationToken::new();
        let cx = self.context_with(
            &id,
            env,
            &outlet,
            Some(Channel::Task(input.clone())),
            cancel.clone(),
        );
        let request = McpRequest::new(method.spec, tool.name.clone(), arguments, cx.clone());
        // With state shared by instances, a retry's nonce is spent first: the first poll
        // then waits for Redis, so an optional task tool's retry becomes a task.
        let mut call = Self::after_spend(&cx, tool.stack.call(request));
        if tool.task == TaskSupport::Explicit {
            let call = Box::pin(call);
            return self.call_until_task(id, tool, cx, input, cancel, call, outlet);
        }
        let mut poll_cx = Context::from_waker(futures::task::noop_waker_ref());
        let first = match call.poll_unpin(&mut poll_cx) {
            Poll::Ready(Ok(Outcome::InputRequired)) => {
                cx.finish();
                let (line, disposition) = self.input_required(&id, &cx);
                return Routed::Reply(line, disposition);
            }
            Poll::Ready(out) if tool.task == TaskSupport::Optional => {
                cx.finish();
                let (line, disposition) = self.finish_call(&id, &tool, Era::Modern, out, &cx);
                return Routed::Reply(line, disposition);
            }
            Poll::Ready(out) => Some(out),
            Poll::Pending => None,
        };
        // Boxed with its type spelled out, as in `serve`: the runtime's task must be `Send`,
        // which the compiler cannot prove through the stack's nested future types inside an
        // `async` block on its own.
        let call: BoxFuture<'static, Result<Outcome, BoxError>> = Box::pin(call);
        let (run, answered) = self.make_task(&id, &tool, &cx, &input, cancel, first, call);
        self.answer_task(id, run, answered, outlet)
    }

    /// An explicit task tool's call: served as a request (its end answered as a call's, its
    /// asks `input_required` rounds) until the tool calls `become_task`; then, in the same
    /// poll, the task is made and the rest of the call runs as it.
    #[allow(clippy::too_many_arguments)]
    fn call_until_task(
        &self,
        id: RequestId,
        tool: Arc<RegisteredTool>,
        cx: RequestContext,
        input: Arc<TaskInput>,
        cancel: CancellationToken,
        mut call: BoxFuture<'static, Result<Outcome, BoxError>>,
        outlet: Outlet,
    ) -> Routed {
        enum Step {
            Done(Result<Outcome, BoxError>),
            Became((Vec<u8>, Disposition)),
        }
        let this = self.clone();
        let (task_id, task_tool, task_cx) = (id.clone(), tool.clone(), cx.clone());
        let until: BoxFuture<'static, Step> = Box::pin(async move {
            let wanted = input.wanted.notified();
            tokio::pin!(wanted);
            tokio::select! {
                biased;
                out = &mut call => Step::Done(out),
                () = &mut wanted => {
                    let (run, answered) =
                        this.make_task(&task_id, &task_tool, &task_cx, &input, cancel, None, call);
                    tokio::spawn(run);
                    Step::Became(answered.await.unwrap_or_else(|_| {
                        error_reply(
                            &task_id,
                            McpError::internal("the task ended before it was stored"),
                        )
                    }))
                }
            }
        });
        self.serve(
            id,
            until,
            outlet,
            cx,
            move |this, id, cx, step| match step {
                Step::Done(out) => this.finish_call(id, &tool, Era::Modern, out, cx),
                Step::Became(reply) => reply,
            },
        )
    }

    /// Makes `call` a task: its record (ended already when `first` is its end), linked to
    /// `input` so its asks become the task's, and the future that stores the record, answers
    /// the request with the task's handle through the receiver, and runs the call to its end.
    #[allow(clippy::too_many_arguments)]
    fn make_task(
        &self,
        id: &RequestId,
        tool: &Arc<RegisteredTool>,
        cx: &RequestContext,
        input: &TaskInput,
        cancel: CancellationToken,
        first: Option<Result<Outcome, BoxError>>,
        call: BoxFuture<'static, Result<Outcome, BoxError>>,
    ) -> (
        BoxFuture<'static, ()>,
        oneshot::Receiver<(Vec<u8>, Disposition)>,
    ) {
        let server = self.inner.server.inner.clone();
        let hub = server.tasks.clone();
        let task_id = TaskHub::new_id();
        let _ = input.link.set(hub.link(task_id.clone(), cancel.clone()));
        let caller = cx.caller().clone();
        let mut record = TaskRecord::new(
            task_id.clone(),
            caller.identity().map(str::to_owned),
            tool.name.to_string(),
            &hub.options,
        );
        // An unauthenticated caller over HTTP: counted by its network, kept a shorter while.
        if caller.identity().is_none()
            && let Some(network) = caller.address()
        {
            record.quota = Some(format!("network:{network}"));
            let shorter =
                u64::try_from(hub.options.unauthenticated_ttl.as_millis()).unwrap_or(u64::MAX);
            record.ttl_ms = record.ttl_ms.min(shorter);
        }
        let budget = server.max_response_bytes;
        if let Some(out) = first {
            cx.finish();
            record = ended(record, end_of(tool, out, budget));
        }
        // The handle is encoded before the record goes to the store.
        let handle = encode_result(id, &Modern::task(&wire(&record), &server.server_info_raw));
        // How a task that ended before it was stored ended: failed or not.
        let already_ended = record
            .status
            .is_terminal()
            .then_some(record.status == TaskStatus::Failed);
        let (answer, answered) = oneshot::channel::<(Vec<u8>, Disposition)>();
        let (request_id, tool, cx) = (id.clone(), tool.clone(), cx.clone());
        let run: BoxFuture<'static, ()> = Box::pin(async move {
            let line = match hub.store().create(record).await {
                Ok(()) => {
                    tracing::info!(
                        target: AUDIT_TARGET,
                        id = %request_id,
                        era = %Era::Modern,
                        method = methods::TOOLS_CALL.name,
                        target = &*tool.name,
                        caller = %caller.log_name(),
                        task = %task_id,
                        outcome = "task_created",
                        "task created"
                    );
                    let _ = answer.send((handle, Disposition::Answered));
                    let counted = crate::telemetry::Task::start(&tool.name);
                    let failed =
                        run_task(&hub, &task_id, &tool, call, cancel, budget, already_ended).await;
                    if let (Some(counted), Some(failed)) = (counted, failed) {
                        counted.end(failed);
                    }
                    cx.finish();
                    hub.unregister(&task_id);
                    return;
                }
                Err(StoreError::Full(why)) => {
                    // Refused, never by dropping a live task: the model gets an `isError`
                    // result it can act on (retry later), as for a rate limit.
                    let busy = crate::protocol::CallToolResult::error(format!(
                        "The server is running as many tasks as it can keep ({why}); \
                         try again in a little while."
                    ));
                    let line = encode_result_within(
                        &request_id,
                        &Modern::complete(&busy, &server.server_info_raw, None, None),
                        usize::MAX,
                    )
                    .unwrap_or_default();
                    (line, Disposition::Answered)
                }
                Err(error) => error_reply(&request_id, store_failure(error)),
            };
            let _ = answer.send(line);
            hub.unregister(&task_id);
        });
        (run, answered)
    }

    /// Runs a task's future on the runtime and answers the request with its handle as soon
    /// as the task is stored: at once when the first poll stored it (a store in this
    /// process), otherwise from a task of the connection.
    fn answer_task(
        &self,
        id: RequestId,
        mut run: BoxFuture<'static, ()>,
        mut answered: oneshot::Receiver<(Vec<u8>, Disposition)>,
        outlet: Outlet,
    ) -> Routed {
        let mut poll_cx = Context::from_waker(futures::task::noop_waker_ref());
        let done = run.as_mut().poll(&mut poll_cx).is_ready();
        if !done {
            // The task's own life: not the connection's (a task outlives its request, and
            // on HTTP its connection).
            tokio::spawn(run);
        }
        if let Ok((line, disposition)) = answered.try_recv() {
            return Routed::Reply(line, disposition);
        }
        self.answer_later(
            async move {
                answered.await.unwrap_or_else(|_| {
                    error_reply(
                        &id,
                        McpError::internal("the task ended before it was stored"),
                    )
                })
            },
            outlet,
        )
    }

    /// The task a caller names, if it exists and the caller may see it: a task created by
    /// an authenticated caller is visible to that identity only (anyone else gets the same
    /// answer as for an unknown id).
    async fn visible(hub: &TaskHub, caller: &Caller, id: &str) -> Result<TaskRecord, McpError> {
        match hub.store().get(id).await {
            Ok(Some(task))
                if task.owner.is_none() || task.owner.as_deref() == caller.identity() =>
            {
                Ok(task)
            }
            Ok(_) => Err(McpError::invalid_params(format!("Unknown task: {id}"))),
            Err(error) => Err(store_failure(error)),
        }
    }

    /// The envelope of a `tasks/*` request, checked: offered, named by `Mcp-Name` on HTTP,
    /// from a client that declared the extension (`-32021` otherwise).
    fn task_request(
        &self,
        meta: Option<crate::protocol::RequestMeta>,
        method: &'static Method,
        task_id: &str,
        scope: &Scope<'_>,
    ) -> Result<Envelope, Rejection> {
        let env = self.admitted_named(meta, method, task_id, scope.checks)?;
        if !declares_tasks(&env) {
            return Err(McpError::missing_client_capability(required_capabilities()).into());
        }
        if task_id.is_empty() || task_id.len() > 256 {
            return Err(McpError::invalid_params(format!("Unknown task: {task_id:?}")).into());
        }
        Ok(env)
    }

    /// The params of a `tasks/*` request, read and checked ([`task_request`](Self::task_request)),
    /// with what its answer is made from: the server, and the caller. `Err` is the answer.
    fn task_call<P: serde::de::DeserializeOwned>(
        &self,
        id: &RequestId,
        method: &'static Method,
        params: Option<&RawValue>,
        scope: &Scope<'_>,
        split: fn(&mut P) -> (Option<crate::protocol::RequestMeta>, String),
    ) -> Result<(P, Arc<crate::server::ServerInner>, Caller), Routed> {
        let mut p: P = required_params(params).map_err(|e| Routed::rejected(id, e.into()))?;
        let (meta, task_id) = split(&mut p);
        self.task_request(meta, method, &task_id, scope)
            .map_err(|rejection| Routed::rejected(id, rejection))?;
        Ok((
            p,
            self.inner.server.inner.clone(),
            self.caller_for(&scope.outlet),
        ))
    }

    /// `tasks/get`: the task, with its result, error or outstanding asks inline.
    pub(super) fn get_task(
        &self,
        id: RequestId,
        method: &'static Method,
        params: Option<&RawValue>,
        scope: Scope<'_>,
    ) -> Routed {
        let (p, server, caller) = match self.task_call(&id, method, params, &scope, split_id) {
            Ok(parts) => parts,
            Err(answer) => return answer,
        };
        self.answer_later(
            async move {
                match Self::visible(&server.tasks, &caller, &p.task_id).await {
                    Ok(task) => {
                        let body = Detailed {
                            task: wire(&task),
                            input_requests: (task.status == TaskStatus::InputRequired)
                                .then_some(&task.input_requests),
                            result: task.result.as_deref(),
                            error: task.error.as_ref(),
                        };
                        let line = encode_result_within(
                            &id,
                            &Modern::complete(&body, &server.server_info_raw, None, None),
                            server.max_response_bytes.saturating_mul(2),
                        );
                        match line {
                            Ok(line) => (line, Disposition::Answered),
                            Err(_) => error_reply(
                                &id,
                                McpError::internal("the task is larger than the response budget"),
                            ),
                        }
                    }
                    Err(error) => error_reply(&id, error),
                }
            },
            scope.outlet,
        )
    }

    /// `tasks/update`: answers to the task's outstanding asks (partial allowed, unknown keys
    /// ignored); an empty acknowledgement.
    pub(super) fn update_task(
        &self,
        id: RequestId,
        method: &'static Method,
        params: Option<&RawValue>,
        scope: Scope<'_>,
    ) -> Routed {
        let (p, server, caller) = match self.task_call(&id, method, params, &scope, split_update) {
            Ok(parts) => parts,
            Err(answer) => return answer,
        };
        let mut responses: JsonObject = match p.input_responses {
            Value::Object(responses) => responses,
            _ => {
                return Routed::rejected(
                    &id,
                    McpError::invalid_params("\"inputResponses\" must be an object").into(),
                );
            }
        };
        self.answer_later(
            async move {
                let hub = &server.tasks;
                let outcome = async {
                    let task = Self::visible(hub, &caller, &p.task_id).await?;
                    // Answers to keys the task never asked (or no longer asks) go no
                    // further: they would be ignored, and a shared store would still have
                    // carried them all (280,000 keys were one script blocking Redis).
                    responses.retain(|key, _| task.input_requests.contains_key(key));
                    if responses.is_empty() {
                        return Ok(());
                    }
                    let bytes: usize = responses
                        .iter()
                        .map(|(k, v)| k.len() + serde_json::to_vec(v).map_or(0, |v| v.len()))
                        .sum();
                    if bytes > MAX_UPDATE_BYTES {
                        return Err(McpError::invalid_params(format!(
                            "the answers are {bytes} bytes; one tasks/update carries at most \
                             {MAX_UPDATE_BYTES}"
                        )));
                    }
                    hub.store()
                        .respond(&p.task_id, responses)
                        .await
                        .map_err(store_failure)?;
                    hub.wake_everywhere(&p.task_id);
                    Ok::<_, McpError>(())
                };
                match outcome.await {
                    Ok(()) => ack(&id, &server.server_info_raw),
                    Err(error) => error_reply(&id, error),
                }
            },
            scope.outlet,
        )
    }

    /// `tasks/cancel`: stops a task that has not ended (idempotent); an empty
    /// acknowledgement.
    pub(super) fn cancel_task(
        &self,
        id: RequestId,
        method: &'static Method,
        params: Option<&RawValue>,
        scope: Scope<'_>,
    ) -> Routed {
        let (p, server, caller) = match self.task_call(&id, method, params, &scope, split_id) {
            Ok(parts) => parts,
            Err(answer) => return answer,
        };
        self.answer_later(
            async move {
                let hub = &server.tasks;
                let outcome = async {
                    Self::visible(hub, &caller, &p.task_id).await?;
                    hub.store()
                        .cancel(&p.task_id)
                        .await
                        .map_err(store_failure)?;
                    hub.cancel_everywhere(&p.task_id);
                    Ok::<_, McpError>(())
                };
                match outcome.await {
                    Ok(()) => ack(&id, &server.server_info_raw),
                    Err(error) => error_reply(&id, error),
                }
            },
            scope.outlet,
        )
    }
}

/// The most bytes of answers (keys and JSON values, those the task asked for) one
/// `tasks/update` delivers: answers are elicitation results and sampled messages, far
/// smaller; a task's state in the store stays bounded by it.
const MAX_UPDATE_BYTES: usize = 1024 * 1024;

fn split_id(p: &mut TaskIdParams) -> (Option<crate::protocol::RequestMeta>, String) {
    (p.meta.take(), p.task_id.clone())
}

fn split_update(p: &mut UpdateTaskParams) -> (Option<crate::protocol::RequestMeta>, String) {
    (p.meta.take(), p.task_id.clone())
}

/// An empty acknowledgement (`{"resultType":"complete"}`).
fn ack(id: &RequestId, server_info: &RawValue) -> (Vec<u8>, Disposition) {
    let empty = JsonObject::new();
    (
        encode_result(id, &Modern::complete(&empty, server_info, None, None)),
        Disposition::Answered,
    )
}

/// Runs a stored task's stack to its end, unless it is cancelled (here, or in the store by
/// another instance) or expires first; records how it ended. Returns whether it failed, or
/// `None` when it was cancelled.
async fn run_task(
    hub: &Arc<TaskHub>,
    id: &str,
    tool: &RegisteredTool,
    call: BoxFuture<'static, Result<Outcome, BoxError>>,
    cancel: CancellationToken,
    budget: usize,
    already_ended: Option<bool>,
) -> Option<bool> {
    if already_ended.is_some() {
        return already_ended;
    }
    let shared = hub.store().is_shared();
    let out = tokio::select! {
        out = call => Some(out),
        () = cancel.cancelled() => None,
        () = hub.ended_elsewhere(id), if shared => None,
    };
    let out = out?;
    let end = end_of(tool, out, budget);
    let failed = matches!(end, TaskEnd::Failed(_));
    if let Err(error) = hub.store().finish(id, end).await {
        tracing::warn!(task = id, %error, "a task's end could not be recorded");
    }
    Some(failed)
}
