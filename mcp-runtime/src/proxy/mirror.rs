//! The mirror's items: each forwards to the upstream through the link's current
//! connection, and [`sync`] makes the mirror's lists the upstream's.

use super::relay::{Failure, ask_all, list};
use super::{Link, failed};
use crate::client::Client;
use crate::context::RequestContext;
use crate::prompt::{Prompt, PromptArguments, PromptError};
use crate::protocol::{
    CallToolResult, ErrorCode, GetPromptResult, JsonObject, PromptDefinition, ReadResourceResult,
    ResourceContents, ResourceDefinition, ResourceTemplateDefinition, ToolDefinition, methods,
};
use crate::resource::{Resource, ResourceError, ResourceTemplate, Variables};
use crate::server::{Primitive, Server};
use crate::tool::Tool;
use futures::future::BoxFuture;
use serde_json::{Map, Value, json};
use std::sync::Arc;
use tokio::sync::mpsc;

/// What the upstream listed at the last sync of each kind, as a digest of the listing: a
/// sync of the proxy's own ([`Resync::Check`]: when a 2026-07-28 listen stream opens, after
/// each reconnection, where nothing has usually changed) that lists the same again changes
/// nothing, so the mirror's clients hear no `list_changed` for it. A change the upstream
/// tells of ([`Resync::Told`]) is passed on even when the listing looks the same: the
/// upstream may know what a listing does not show. A digest rather than the listing: a
/// collision could only keep an upstream's own list stale.
#[derive(Default)]
pub(crate) struct Listed {
    tools: Option<u64>,
    prompts: Option<u64>,
    resources: Option<u64>,
}

impl Listed {
    fn slot(&mut self, kind: Primitive) -> &mut Option<u64> {
        match kind {
            Primitive::Tools => &mut self.tools,
            Primitive::Prompts => &mut self.prompts,
            Primitive::Resources => &mut self.resources,
        }
    }
}

/// Why the mirror's lists are synced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Resync {
    /// The upstream said they changed: the mirror's clients are told, whatever the listing.
    Told,
    /// The proxy checks on its own: a listing that is what it was changes nothing.
    Check,
}

/// Records `listing` as the upstream's listing of `kind`; `false` when it is what was
/// recorded last and `why` is a check (nothing to do).
fn changed(link: &Link, why: Resync, kind: Primitive, listing: &impl serde::Serialize) -> bool {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::hash::DefaultHasher::new();
    serde_json::to_vec(listing)
        .unwrap_or_default()
        .hash(&mut hasher);
    let digest = hasher.finish();
    let mut listed = link.listed.lock().unwrap_or_else(|e| e.into_inner());
    let slot = listed.slot(kind);
    let changed = why == Resync::Told || *slot != Some(digest);
    *slot = Some(digest);
    changed
}

/// Makes the mirror's lists of `kinds` what the upstream lists now. An item that does not
/// register is left out and logged; a list that cannot be read leaves the mirror's as it
/// was, and on a [`Resync::Check`] a list that is what it was last time is left alone.
pub(super) async fn sync(
    link: &Arc<Link>,
    client: &Client,
    mirror: &Server,
    why: Resync,
    kinds: &[Primitive],
) {
    let name = &link.upstream.name;
    let warn = |what: &str, problem: &dyn std::fmt::Display| {
        tracing::warn!(upstream = %name, "{what}: {problem}");
    };
    for kind in kinds {
        let problems = match kind {
            Primitive::Tools => {
                match list::<ToolDefinition>(client, methods::TOOLS_LIST.name, "tools").await {
                    Ok(tools) if !changed(link, why, *kind, &tools) => continue,
                    Ok(tools) => mirror.tools().mirror(
                        tools
                            .into_iter()
                            .map(|definition| {
                                Arc::new(ProxiedTool {
                                    definition: described(definition),
                                    link: link.clone(),
                                }) as Arc<dyn Tool>
                            })
                            .collect(),
                    ),
                    Err(e) => {
                        warn("cannot list its tools", &e);
                        continue;
                    }
                }
            }
            Primitive::Prompts => {
                match list::<PromptDefinition>(client, methods::PROMPTS_LIST.name, "prompts").await
                {
                    Ok(prompts) if !changed(link, why, *kind, &prompts) => continue,
                    Ok(prompts) => mirror.prompts().mirror(
                        prompts
                            .into_iter()
                            .map(|mut definition| {
                                if definition
                                    .description
                                    .as_deref()
                                    .is_none_or(|d| d.trim().is_empty())
                                {
                                    definition.description = Some(definition.name.clone());
                                }
                                Arc::new(ProxiedPrompt {
                                    definition,
                                    link: link.clone(),
                                }) as Arc<dyn Prompt>
                            })
                            .collect(),
                    ),
                    Err(e) => {
                        warn("cannot list its prompts", &e);
                        continue;
                    }
                }
            }
            Primitive::Resources => {
                let resources =
                    list::<ResourceDefinition>(client, methods::RESOURCES_LIST.name, "resources")
                        .await;
                let templates = list::<ResourceTemplateDefinition>(
                    client,
                    methods::RESOURCES_TEMPLATES_LIST.name,
                    "resourceTemplates",
                )
                .await;
                let (resources, templates) = match (resources, templates) {
                    (Ok(r), Ok(t)) => (r, t),
                    (Err(e), _) | (_, Err(e)) => {
                        warn("cannot list its resources", &e);
                        continue;
                    }
                };
                // The upstream's skills are part of what its resources are.
                #[cfg(feature = "skills")]
                let skills = super::skills::entries(link, client).await;
                #[cfg(not(feature = "skills"))]
                let skills = ();
                if !changed(link, why, *kind, &(&resources, &templates, &skills)) {
                    continue;
                }
                let resources: Vec<Arc<dyn Resource>> = resources
                    .into_iter()
                    .map(|definition| {
                        Arc::new(ProxiedResource {
                            definition,
                            link: link.clone(),
                        }) as Arc<dyn Resource>
                    })
                    .collect();
                let templates: Vec<Arc<dyn ResourceTemplate>> = templates
                    .into_iter()
                    .map(|definition| {
                        Arc::new(ProxiedTemplate {
                            definition,
                            link: link.clone(),
                        }) as Arc<dyn ResourceTemplate>
                    })
                    .collect();
                // The upstream's skills, served by the mirror's skills catalog, which lists
                // and reads their files in place of the upstream's listing of them.
                #[cfg(feature = "skills")]
                let (resources, templates, mut problems) =
                    super::skills::serve(link, mirror, skills, resources, templates);
                #[cfg(not(feature = "skills"))]
                let mut problems = Vec::new();
                problems.extend(mirror.resources().mirror(resources, templates));
                problems
            }
        };
        for problem in problems {
            warn("left out", &problem);
        }
    }
}

/// A definition with a description, which our registration requires: the upstream's, else
/// its title, else its name.
fn described(mut definition: ToolDefinition) -> ToolDefinition {
    if definition
        .description
        .as_deref()
        .is_none_or(|d| d.trim().is_empty())
    {
        definition.description = Some(
            definition
                .title
                .clone()
                .unwrap_or_else(|| definition.name.clone()),
        );
    }
    definition
}

/// Sends `method` with `params` to the upstream, relaying its progress to `cx`'s caller,
/// cancelled upstream when dropped.
///
/// Over a 2026-07-28 connection the upstream is told the caller's capabilities (so it asks
/// only what the caller can answer), and an `input_required` answer is asked of the caller
/// under the upstream's own keys, all of a round at once (a modern caller gets one
/// `input_required` round of ours with those keys; when it retries, the call is forwarded
/// again and the answers go upstream with the upstream's `requestState`, which the caller
/// never sees); at most [`MAX_ROUNDS`] rounds.
async fn forward(
    link: &Arc<Link>,
    method: &str,
    mut params: Map<String, Value>,
    cx: &RequestContext,
) -> Result<Value, Failure> {
    let own = link.own_connection(cx).await;
    let (client, waiters) = match &own {
        Some(own) => (own.client.clone(), &own.waiting),
        None => (
            link.client().map_err(|e| Failure::Other(e.to_string()))?,
            &link.waiting,
        ),
    };
    let modern = client.era() == Some(crate::protocol::Era::Modern);
    // The caller's own `_meta` keys go on upstream (`com.example/tenant`, ...); the
    // protocol's (`io.modelcontextprotocol/…`) are each hop's own and are set below.
    let mut meta: Map<String, Value> = cx
        .meta()
        .into_iter()
        .flatten()
        .filter(|(key, _)| !key.starts_with("io.modelcontextprotocol/"))
        .map(|(key, value)| (key.clone(), value.clone()))
        .collect();
    // The caller's trace goes on upstream (W3C trace context in `_meta`, as SEP-414 has it).
    if let Some(trace) = cx.trace_context() {
        for (key, value) in [
            ("traceparent", &trace.traceparent),
            ("tracestate", &trace.tracestate),
            ("baggage", &trace.baggage),
        ] {
            if let Some(value) = value {
                meta.insert(key.into(), value.clone().into());
            }
        }
    }
    if modern {
        meta.insert(
            crate::protocol::meta::CLIENT_CAPABILITIES_KEY.into(),
            serde_json::to_value(cx.client_capabilities()).unwrap_or_else(|_| json!({})),
        );
        // The upstream logs to this request what the caller wants (its session's level, or
        // its request's): a 2026-07-28 server sends none without it.
        if let Some(level) = cx.log_threshold() {
            meta.insert(
                crate::protocol::meta::LOG_LEVEL_KEY.into(),
                serde_json::to_value(level).unwrap_or_default(),
            );
        }
    }
    if !meta.is_empty() {
        params.insert("_meta".into(), Value::Object(meta));
    }
    for _ in 0..MAX_ROUNDS {
        // Kept for another round only where there can be one.
        let sent = if modern {
            params.clone()
        } else {
            std::mem::take(&mut params)
        };
        let answer = exchange(link, &client, waiters, method, sent, cx).await?;
        if modern && answer.get("resultType").and_then(Value::as_str) == Some("task") {
            return super::task::follow(link, &client, answer, cx).await;
        }
        let asked = match crate::client::input_required(&answer).filter(|_| modern) {
            None => return Ok(answer),
            Some(asked) => asked.map_err(|e| Failure::Other(failed(link, &e)))?,
        };
        let responses = ask_all(asked.input_requests.unwrap_or_default().0, cx).await?;
        params.insert("inputResponses".into(), Value::Object(responses));
        match asked.request_state {
            Some(state) => params.insert("requestState".into(), state.into()),
            None => params.remove("requestState"),
        };
    }
    Err(Failure::Other(format!(
        "the upstream server `{}` asked for input more than {MAX_ROUNDS} times",
        link.upstream.name
    )))
}

/// How many `input_required` rounds of the upstream one forwarded request may take.
const MAX_ROUNDS: usize = 8;

/// One request to the upstream and its answer, with what the upstream says meanwhile
/// (progress, questions, log messages) relayed to `cx`'s caller.
async fn exchange(
    link: &Arc<Link>,
    client: &Client,
    waiters: &super::Waiters,
    method: &str,
    params: Map<String, Value>,
    cx: &RequestContext,
) -> Result<Value, Failure> {
    let (to_caller, mut progress) = mpsc::unbounded_channel::<Value>();
    let to_caller = cx.progress_token().is_some().then_some(to_caller);
    let (routed_tx, mut routed) = mpsc::unbounded_channel();
    let _waiting = waiters.wait(routed_tx, cx);
    let call = client.request_cancellable(method, Some(Value::Object(params)), to_caller);
    tokio::pin!(call);
    let answer = loop {
        tokio::select! {
            biased;
            Some(p) = progress.recv() => relay(&p, cx).await,
            Some(what) = routed.recv() => answer_for(client, what, cx).await,
            answer = &mut call => break answer,
        }
    };
    // What came before the answer (the client routes both in wire order, so it is all
    // here), and was not relayed yet.
    while let Ok(p) = progress.try_recv() {
        relay(&p, cx).await;
    }
    while let Ok(what) = routed.try_recv() {
        answer_for(client, what, cx).await;
    }
    answer.map_err(|e| match e {
        crate::client::ClientError::Protocol(e) => Failure::Upstream(e),
        other => Failure::Other(failed(link, &other)),
    })
}

/// Relays the upstream's question to `cx`'s caller and its answer back, or its log
/// message to the caller.
async fn answer_for(client: &Client, what: super::Routed, cx: &RequestContext) {
    use crate::protocol::jsonrpc::{encode_error, encode_result};
    match what {
        super::Routed::Ask { id, request } => {
            let line = match cx.ask(request).await {
                Ok(answer) => encode_result(&id, &answer),
                Err(e) => {
                    let error = match e {
                        crate::input::InputError::Client(e) => e,
                        other => crate::protocol::McpError::internal(other.to_string()),
                    };
                    encode_error(Some(&id), &error)
                }
            };
            let _ = client.send_raw(line).await;
        }
        super::Routed::Log(params) => {
            let level = params
                .get("level")
                .cloned()
                .and_then(|l| serde_json::from_value(l).ok());
            if let Some(level) = level {
                let logger = params.get("logger").and_then(Value::as_str);
                let data = params.get("data").cloned().unwrap_or(Value::Null);
                cx.log_as(level, logger, data).await;
            }
        }
    }
}

/// Relays one `notifications/progress` (its `params`) to `cx`'s caller.
async fn relay(params: &Value, cx: &RequestContext) {
    if let Some(progress) = params.get("progress").and_then(Value::as_f64) {
        cx.progress(
            progress,
            params.get("total").and_then(Value::as_f64),
            params.get("message").and_then(Value::as_str),
        )
        .await;
    }
}

/// The upstream's completion for `reference`'s `argument`; none when it is down or fails.
async fn complete(
    link: Arc<Link>,
    reference: Value,
    argument: &str,
    value: &str,
    chosen: &std::collections::BTreeMap<String, String>,
) -> crate::protocol::Completion {
    let Ok(client) = link.client() else {
        return crate::protocol::Completion::default();
    };
    let params = json!({
        "ref": reference,
        "argument": {"name": argument, "value": value},
        "context": {"arguments": chosen},
    });
    let answer = client
        .request_cancellable(methods::COMPLETION_COMPLETE.name, Some(params), None)
        .await;
    answer
        .ok()
        .and_then(|result| serde_json::from_value(result.get("completion")?.clone()).ok())
        .unwrap_or_default()
}

struct ProxiedTool {
    definition: ToolDefinition,
    link: Arc<Link>,
}

impl Tool for ProxiedTool {
    fn definition(&self) -> ToolDefinition {
        self.definition.clone()
    }

    /// A call becomes a task of the proxy's when the upstream makes a task of it
    /// ([`follow`](super::task::follow)), and only then.
    fn policy(&self) -> crate::tool::ToolPolicy {
        crate::tool::ToolPolicy::new().task(crate::task::TaskSupport::Explicit)
    }

    fn call(
        &self,
        arguments: JsonObject,
        cx: RequestContext,
    ) -> BoxFuture<'static, CallToolResult> {
        let (link, name) = (self.link.clone(), self.definition.name.clone());
        Box::pin(async move {
            let mut params = Map::new();
            params.insert("name".into(), name.into());
            params.insert("arguments".into(), Value::Object(arguments));
            match forward(&link, methods::TOOLS_CALL.name, params, &cx).await {
                Ok(result) => serde_json::from_value(result).unwrap_or_else(|e| {
                    CallToolResult::error(format!(
                        "the upstream server `{}` answered with something that is not a tool result: {e}",
                        link.upstream.name
                    ))
                }),
                Err(failure) => {
                    failure.record_on(&cx);
                    CallToolResult::error(failure.to_string())
                }
            }
        })
    }
}

struct ProxiedPrompt {
    definition: PromptDefinition,
    link: Arc<Link>,
}

impl Prompt for ProxiedPrompt {
    fn definition(&self) -> PromptDefinition {
        self.definition.clone()
    }

    fn get(
        &self,
        arguments: PromptArguments,
        cx: RequestContext,
    ) -> BoxFuture<'static, Result<GetPromptResult, PromptError>> {
        let (link, name) = (self.link.clone(), self.definition.name.clone());
        Box::pin(async move {
            let mut params = Map::new();
            params.insert("name".into(), name.into());
            params.insert("arguments".into(), json!(arguments));
            let result = forward(&link, methods::PROMPTS_GET.name, params, &cx)
                .await
                .map_err(PromptError::failed)?;
            serde_json::from_value(result).map_err(PromptError::failed)
        })
    }

    fn complete(
        &self,
        argument: &str,
        value: &str,
        chosen: &PromptArguments,
    ) -> BoxFuture<'static, crate::protocol::Completion> {
        let reference = json!({"type": "ref/prompt", "name": self.definition.name});
        let (argument, value, chosen) = (argument.to_owned(), value.to_owned(), chosen.clone());
        let link = self.link.clone();
        Box::pin(async move { complete(link, reference, &argument, &value, &chosen).await })
    }
}

/// Reads `uri` upstream.
async fn read(
    link: &Arc<Link>,
    uri: String,
    cx: &RequestContext,
) -> Result<Vec<ResourceContents>, ResourceError> {
    let mut params = Map::new();
    params.insert("uri".into(), uri.into());
    let result = forward(link, methods::RESOURCES_READ.name, params, cx)
        .await
        .map_err(|failure| match failure {
            // "Not found" in either era's code stays "not found" (the proxy answers in its
            // caller's era).
            Failure::Upstream(e)
                if e.code == ErrorCode::RESOURCE_NOT_FOUND
                    || e.code == ErrorCode::INVALID_PARAMS =>
            {
                ResourceError::not_found()
            }
            other => ResourceError::failed(other),
        })?;
    let result: ReadResourceResult =
        serde_json::from_value(result).map_err(ResourceError::failed)?;
    Ok(result.contents)
}

struct ProxiedResource {
    definition: ResourceDefinition,
    link: Arc<Link>,
}

impl Resource for ProxiedResource {
    fn definition(&self) -> ResourceDefinition {
        self.definition.clone()
    }

    fn read(
        &self,
        cx: RequestContext,
    ) -> BoxFuture<'static, Result<Vec<ResourceContents>, ResourceError>> {
        let (link, uri) = (self.link.clone(), self.definition.uri.clone());
        Box::pin(async move { read(&link, uri, &cx).await })
    }
}

struct ProxiedTemplate {
    definition: ResourceTemplateDefinition,
    link: Arc<Link>,
}

impl ResourceTemplate for ProxiedTemplate {
    fn definition(&self) -> ResourceTemplateDefinition {
        self.definition.clone()
    }

    fn read(
        &self,
        uri: String,
        _variables: Variables,
        cx: RequestContext,
    ) -> BoxFuture<'static, Result<Vec<ResourceContents>, ResourceError>> {
        let link = self.link.clone();
        Box::pin(async move { read(&link, uri, &cx).await })
    }

    fn complete(
        &self,
        variable: &str,
        value: &str,
        chosen: &std::collections::BTreeMap<String, String>,
    ) -> BoxFuture<'static, crate::protocol::Completion> {
        let reference = json!({"type": "ref/resource", "uri": self.definition.uri_template});
        let (variable, value, chosen) = (variable.to_owned(), value.to_owned(), chosen.clone());
        let link = self.link.clone();
        Box::pin(async move { complete(link, reference, &variable, &value, &chosen).await })
    }
}
