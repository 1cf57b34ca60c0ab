//! The per-request context a handler receives: era, client, progress, cancellation, the
//! input channel, and the server's resources through the reader the server installs.

use super::channel::Channel;
use super::extensions::Extensions;
use super::{Caller, Peer, ResourceError};
use crate::protocol::jsonrpc::encode_notification;
use crate::protocol::meta::TraceContext;
use crate::protocol::methods;
use crate::protocol::{
    ClientCapabilities, Era, Implementation, JsonObject, ProgressToken, RequestId,
};
use crate::protocol::{InputRequest, LoggingLevel, ResourceContents};
use futures::future::BoxFuture;
use serde_json::Value;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use tokio_util::sync::CancellationToken;

/// What a tool knows about the request that called it. Cheap to clone.
///
/// Everything here comes from this request alone (on the modern leg) or from this
/// connection's `initialize` (on the legacy leg); nothing is inferred from earlier requests.
#[derive(Debug, Clone)]
pub struct RequestContext {
    inner: Arc<ContextInner>,
    /// The server whose item serves the request, when it is not the one the request came
    /// to: a server mounted into another (`ServerBuilder::mount`) serves its items with its
    /// own state and resources, over the same request (its client, progress, asks and
    /// cancellation are the request's).
    home: Option<Arc<Home>>,
}

/// A mounted server's own state and resources ([`RequestContext::at_home`]).
#[derive(Debug)]
pub(crate) struct Home {
    pub(crate) extensions: Arc<Extensions>,
    pub(crate) resources: Option<Arc<dyn ResourceReader>>,
}

#[derive(Debug)]
struct ContextInner {
    era: Era,
    protocol_version: Arc<str>,
    client_capabilities: Arc<ClientCapabilities>,
    client_info: Option<Arc<Implementation>>,
    request_id: RequestId,
    progress_token: Option<ProgressToken>,
    trace: Option<Arc<TraceContext>>,
    cancellation: CancellationToken,
    peer: Option<Peer>,
    extensions: Arc<Extensions>,
    caller: Caller,
    meta: Option<Arc<JsonObject>>,
    /// How the server the request came to reads its own resources (`None` for a context
    /// made outside one).
    resources: Option<Arc<dyn ResourceReader>>,
    last_progress: Mutex<Option<f64>>,
    finished: AtomicBool,
    answered_from_cache: AtomicBool,
    /// How asks reach the client (`crate::input`).
    input: Channel,
    /// The least severe log level the client wants for this request; `None`: no messages.
    log_threshold: Option<LoggingLevel>,
    /// The client capabilities asks needed and the client lacked (merged).
    missing_capability: Mutex<Option<Value>>,
    /// The protocol error the request is answered with if its handler fails.
    error: Mutex<Option<crate::protocol::McpError>>,
    /// Whether the handler asked the client anything (elicitation, sampling, roots).
    asked: AtomicBool,
}

/// How a request served by a server talks back to its client: its asks and its log level.
#[derive(Debug, Clone)]
pub(crate) struct RequestIo {
    pub(crate) input: Channel,
    pub(crate) log_threshold: Option<LoggingLevel>,
}

impl RequestIo {
    /// Nothing reaches the client.
    pub(crate) fn none(reason: &'static str) -> Self {
        Self {
            input: Channel::Unavailable(reason),
            log_threshold: None,
        }
    }
}

/// The parts a transport or test assembles a [`RequestContext`] from: made by
/// [`new`](Self::new), then its fields set.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct RequestContextParts {
    /// The request's era.
    pub era: Era,
    /// The protocol version in force for it.
    pub protocol_version: Arc<str>,
    /// The client's capabilities for it.
    pub client_capabilities: Arc<ClientCapabilities>,
    /// The client's identity, when known.
    pub client_info: Option<Arc<Implementation>>,
    /// The JSON-RPC id.
    pub request_id: RequestId,
    /// The progress token the request carried.
    pub progress_token: Option<ProgressToken>,
    /// The trace context the request carried (`_meta`, or the transport's headers).
    pub trace: Option<Arc<TraceContext>>,
    /// Cancelled when the client cancels the request or the connection ends.
    pub cancellation: CancellationToken,
    /// Where notifications for this request go; `None` drops them.
    pub peer: Option<Peer>,
    /// The server's shared state.
    pub extensions: Arc<Extensions>,
    /// Who the request comes from.
    pub caller: Caller,
    /// The request's `_meta` keys the server does not read itself
    /// ([`RequestMeta::other`](crate::protocol::meta::RequestMeta::other)).
    pub meta: Option<Arc<JsonObject>>,
}

impl RequestContextParts {
    /// The parts of request `request_id` of `era`, in protocol version `protocol_version`:
    /// nothing known of the client, no progress token or trace, not cancelled, no peer
    /// (notifications are dropped), no shared state, an anonymous caller, no other `_meta`.
    /// Set the fields that say more.
    pub fn new(era: Era, protocol_version: impl Into<Arc<str>>, request_id: RequestId) -> Self {
        Self {
            era,
            protocol_version: protocol_version.into(),
            client_capabilities: Arc::default(),
            client_info: None,
            request_id,
            progress_token: None,
            trace: None,
            cancellation: CancellationToken::new(),
            peer: None,
            extensions: Arc::default(),
            caller: Caller::default(),
            meta: None,
        }
    }
}

impl RequestContext {
    /// A context from its parts.
    pub fn new(parts: RequestContextParts) -> Self {
        Self::with_server(
            parts,
            None,
            RequestIo::none("the request was not made by a client of a server"),
        )
    }

    /// A context of a request served by a server: [`read_resource`](Self::read_resource)
    /// reaches its resources through `resources`.
    pub(crate) fn for_server(
        parts: RequestContextParts,
        resources: Arc<dyn ResourceReader>,
        io: RequestIo,
    ) -> Self {
        Self::with_server(parts, Some(resources), io)
    }

    fn with_server(
        parts: RequestContextParts,
        resources: Option<Arc<dyn ResourceReader>>,
        io: RequestIo,
    ) -> Self {
        Self {
            inner: Arc::new(ContextInner {
                era: parts.era,
                protocol_version: parts.protocol_version,
                client_capabilities: parts.client_capabilities,
                client_info: parts.client_info,
                request_id: parts.request_id,
                progress_token: parts.progress_token,
                trace: parts.trace,
                cancellation: parts.cancellation,
                peer: parts.peer,
                extensions: parts.extensions,
                caller: parts.caller,
                meta: parts.meta,
                resources,
                last_progress: Mutex::new(None),
                finished: AtomicBool::new(false),
                answered_from_cache: AtomicBool::new(false),
                input: io.input,
                log_threshold: io.log_threshold,
                missing_capability: Mutex::new(None),
                error: Mutex::new(None),
                asked: AtomicBool::new(false),
            }),
            home: None,
        }
    }

    /// The same request, served by a mounted server: its state and resources are `home`'s.
    pub(crate) fn at_home(&self, home: Arc<Home>) -> Self {
        Self {
            inner: self.inner.clone(),
            home: Some(home),
        }
    }

    /// A context for calling a tool outside any connection (unit tests, benchmarks): modern
    /// era, empty client capabilities, notifications dropped.
    pub fn detached() -> Self {
        Self::new(RequestContextParts {
            era: Era::Modern,
            protocol_version: crate::protocol::version::MODERN_VERSION.into(),
            client_capabilities: Arc::default(),
            client_info: None,
            request_id: RequestId::Number(0),
            progress_token: None,
            trace: None,
            cancellation: CancellationToken::new(),
            peer: None,
            extensions: Arc::default(),
            caller: Caller::connection(),
            meta: None,
        })
    }

    /// Who the request comes from (see [`Caller`]).
    pub fn caller(&self) -> &Caller {
        &self.inner.caller
    }

    /// The server's shared state (see [`State`](super::State)).
    pub fn extensions(&self) -> &Extensions {
        match &self.home {
            Some(home) => &home.extensions,
            None => &self.inner.extensions,
        }
    }

    /// The request's era.
    pub fn era(&self) -> Era {
        self.inner.era
    }

    /// The protocol version in force.
    pub fn protocol_version(&self) -> &str {
        &self.inner.protocol_version
    }

    /// The client's capabilities.
    pub fn client_capabilities(&self) -> &ClientCapabilities {
        &self.inner.client_capabilities
    }

    /// Whether the client renders MCP Apps views (it declared the
    /// `io.modelcontextprotocol/ui` extension; see [`crate::protocol::apps`]). A tool shown
    /// with a view returns a text result every client can use anyway, and may add to it
    /// (structured content for the view) when this is true.
    pub fn client_renders_apps(&self) -> bool {
        crate::protocol::apps::client_supports_apps(&self.inner.client_capabilities)
    }

    /// The client's identity, when it gave one.
    pub fn client_info(&self) -> Option<&Implementation> {
        self.inner.client_info.as_deref()
    }

    /// The JSON-RPC id of the request.
    pub fn request_id(&self) -> &RequestId {
        &self.inner.request_id
    }

    /// The trace context the request carried (`traceparent`, `tracestate`, `baggage` from
    /// `_meta`, or over HTTP from its headers), when it carried one.
    pub fn trace_context(&self) -> Option<&TraceContext> {
        self.inner.trace.as_deref()
    }

    /// The request's `_meta` keys the server does not read itself (the protocol's own,
    /// progress and trace context are read into the context), e.g. `com.example/tenant`;
    /// `None` when it sent none. A proxy sends them on upstream.
    pub fn meta(&self) -> Option<&JsonObject> {
        self.inner.meta.as_deref()
    }

    /// The progress token, when the client asked for progress.
    pub fn progress_token(&self) -> Option<&ProgressToken> {
        self.inner.progress_token.as_ref()
    }

    /// A token cancelled when the client cancels this request.
    ///
    /// The dispatcher also drops the tool's future on cancellation, so a tool only needs
    /// this to stop work it moved elsewhere (a spawned task, a blocking thread).
    pub fn cancellation(&self) -> &CancellationToken {
        &self.inner.cancellation
    }

    /// Whether the client cancelled this request.
    pub fn is_cancelled(&self) -> bool {
        self.inner.cancellation.is_cancelled()
    }

    /// Whether the request was answered from the tool's result cache (the tool did not run;
    /// see [`ResultCache`](crate::pipeline::ResultCache)). Layers outside the cache see it
    /// once the call is answered; the audit event records it as `cached=true`.
    pub fn answered_from_cache(&self) -> bool {
        self.inner.answered_from_cache.load(Ordering::Relaxed)
    }

    pub(crate) fn mark_answered_from_cache(&self) {
        self.inner
            .answered_from_cache
            .store(true, Ordering::Relaxed);
    }

    /// Reports progress, when the client asked for it (`_meta.progressToken`).
    ///
    /// Values must increase: a value not above the last one sent is dropped, as is anything
    /// after the response (spec: progress is strictly increasing and stops with the result).
    /// Returns whether a notification was sent.
    ///
    /// In a task (`crate::task`) progress becomes the task's status message, which the
    /// client reads with `tasks/get`, whether or not it sent a progress token.
    pub async fn progress(&self, progress: f64, total: Option<f64>, message: Option<&str>) -> bool {
        // An event of the request's span (traces show progress), when a subscriber asks.
        tracing::debug!(target: crate::targets::REQUEST_TARGET, progress, total, "progress");
        if let Some(task) = self.task() {
            return !self.is_cancelled() && task.progress(progress, total, message).await;
        }
        let (Some(token), Some(peer)) = (&self.inner.progress_token, &self.inner.peer) else {
            return false;
        };
        if self.inner.finished.load(Ordering::Acquire) || self.is_cancelled() {
            return false;
        }
        {
            let mut last = self
                .inner
                .last_progress
                .lock()
                .unwrap_or_else(|p| p.into_inner());
            if last.is_some_and(|l| progress <= l) || !progress.is_finite() {
                return false;
            }
            *last = Some(progress);
        }
        let mut params = serde_json::json!({ "progressToken": token, "progress": progress });
        if let Some(total) = total {
            params["total"] = total.into();
        }
        if let Some(message) = message {
            params["message"] = message.into();
        }
        peer.send_line(encode_notification(methods::PROGRESS.name, Some(params)))
            .await
    }

    /// Marks the request answered: later progress is dropped.
    pub(crate) fn finish(&self) {
        self.inner.finished.store(true, Ordering::Release);
    }

    pub(crate) fn is_finished(&self) -> bool {
        self.inner.finished.load(Ordering::Acquire)
    }

    pub(crate) fn peer(&self) -> Option<&Peer> {
        self.inner.peer.as_ref()
    }

    pub(crate) fn input_channel(&self) -> Channel {
        self.inner.input.clone()
    }

    /// Whether `other` comes from the same client as this request, so that a question
    /// asked through either reaches the same client: both are requests of one legacy
    /// session (a stdio connection, or a Streamable HTTP session: one client each), whose
    /// server-to-client requests share one table. Requests of a stateless endpoint (whose
    /// table unrelated clients share) and 2026-07-28 requests (each asks in its own answer)
    /// are never the same client.
    pub(crate) fn same_client(&self, other: &RequestContext) -> bool {
        match (&self.inner.input, &other.inner.input) {
            (Channel::Legacy(a), Channel::Legacy(b)) => {
                a.capabilities_known
                    && b.capabilities_known
                    && Arc::ptr_eq(&a.outgoing, &b.outgoing)
            }
            _ => false,
        }
    }

    /// The modern round of this request, when it has one.
    pub(crate) fn round(&self) -> Option<&Arc<super::channel::Round>> {
        match &self.inner.input {
            Channel::Modern(round) => Some(round),
            Channel::Task(task) => Some(&task.round),
            _ => None,
        }
    }

    /// The task this request runs as, once it has become one (`crate::task`).
    pub(crate) fn task(&self) -> Option<&crate::task::TaskLink> {
        match &self.inner.input {
            Channel::Task(task) => task.link.get(),
            _ => None,
        }
    }

    /// Makes this call a task now, if it may become one (the tool declares `task`, and the
    /// request's client declared the tasks extension): the client gets the task's handle,
    /// and what the tool asks from here on becomes the task's `inputRequests`, answered with
    /// `tasks/update`. Returns whether the call runs as a task.
    ///
    /// Without it, an optional task tool's call becomes a task at its first wait that is not
    /// an ask of the client (asks before that are `input_required` rounds of the request,
    /// which the tasks extension recommends for what decides whether to proceed at all), and
    /// an explicit one's ([`TaskSupport::Explicit`](crate::task::TaskSupport::Explicit))
    /// never does. Call it first in a tool whose first step is to ask, when the asking
    /// belongs to the task:
    ///
    /// ```
    /// use mcp_runtime::prelude::*;
    /// use mcp_runtime::input::{Elicitation, InputError};
    ///
    /// #[derive(serde::Deserialize, schemars::JsonSchema)]
    /// struct Confirm {
    ///     /// Delete it?
    ///     confirm: bool,
    /// }
    ///
    /// /// Deletes a file, once the user confirms.
    /// #[mcp_tool(task = "optional")]
    /// async fn delete_file(cx: RequestContext, path: String) -> Result<String, InputError> {
    ///     cx.become_task().await;
    ///     match cx.elicit::<Confirm>(format!("Delete {path}?")).await? {
    ///         Elicitation::Accepted(Confirm { confirm: true }) => Ok(format!("deleted {path}")),
    ///         _ => Ok("kept".into()),
    ///     }
    /// }
    /// # let _ = Server::builder("demo", "1.0.0").tool(delete_file::tool()).build().unwrap();
    /// ```
    pub async fn become_task(&self) -> bool {
        match &self.inner.input {
            Channel::Task(task) if task.link.get().is_none() => {
                // An optional task tool's dispatcher polls the call once where it arrives: a
                // call still waiting without having asked anything becomes a task. An
                // explicit one's waits for this word, in the same poll of the call as the
                // yield below, so the task exists when the call is polled again.
                task.wanted.notify_one();
                tokio::task::yield_now().await;
                self.task().is_some()
            }
            Channel::Task(_) => true,
            _ => false,
        }
    }

    /// The id of the task this request runs as, if it runs as one (`crate::task`).
    pub fn task_id(&self) -> Option<&str> {
        self.task().map(crate::task::TaskLink::id)
    }

    pub(crate) fn log_threshold(&self) -> Option<LoggingLevel> {
        self.inner.log_threshold
    }

    /// Notes a capability an ask needed and the client lacked.
    /// Records that the handler asked the client something: its result then depends on the
    /// answers, and is never cached.
    pub(crate) fn mark_asked(&self) {
        self.inner.asked.store(true, Ordering::Relaxed);
    }

    /// Whether the handler asked the client anything.
    pub(crate) fn asked_client(&self) -> bool {
        self.inner.asked.load(Ordering::Relaxed)
    }

    pub(crate) fn record_missing_capability(&self, request: &InputRequest) {
        self.record_missing_required(request.required_capability());
    }

    /// Records capabilities (a `ClientCapabilities` object) the client lacked: the request
    /// is answered `-32021` naming them when its handler fails.
    pub(crate) fn record_missing_required(&self, required: Value) {
        let mut missing = self
            .inner
            .missing_capability
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        match (&mut *missing, required) {
            (Some(Value::Object(all)), Value::Object(more)) => {
                for (k, v) in more {
                    all.entry(k).or_insert(v);
                }
            }
            (slot, required) => *slot = Some(required),
        }
    }

    /// Records the protocol error this request is answered with when its handler fails (an
    /// `isError` result): a proxy's upstream answered a task with a failure, and the
    /// caller's task fails with the same error.
    pub(crate) fn record_error(&self, error: crate::protocol::McpError) {
        *self.inner.error.lock().unwrap_or_else(|p| p.into_inner()) = Some(error);
    }

    /// The protocol error recorded by [`record_error`](Self::record_error), taken.
    pub(crate) fn take_error(&self) -> Option<crate::protocol::McpError> {
        self.inner
            .error
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take()
    }

    /// The capabilities asks needed and the client lacked, if any.
    pub(crate) fn missing_capability(&self) -> Option<Value> {
        self.inner
            .missing_capability
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// Reads one of the server's own resources, as a client's `resources/read` would: routed
    /// to the resource with exactly this URI or the first matching template, through its
    /// stack (audited as `resources/read`, the server's layers included), on behalf of the
    /// same caller. A prompt that embeds a resource uses this, so file access stays as
    /// confined as the resource makes it.
    ///
    /// A context made outside a server ([`detached`](Self::detached), [`new`](Self::new))
    /// reaches no resources: every URI is not found.
    pub fn read_resource(
        &self,
        uri: &str,
    ) -> BoxFuture<'static, Result<Vec<ResourceContents>, ResourceError>> {
        let resources = match &self.home {
            Some(home) => &home.resources,
            None => &self.inner.resources,
        };
        match resources {
            Some(resources) => resources.read(uri, self.clone()),
            None => Box::pin(std::future::ready(Err(ResourceError::NotFound))),
        }
    }
}

/// How a context reads the resources of the server its request came to: the server installs
/// one (routing to the resource or template, through its stack), so this layer needs nothing
/// of the server's.
pub(crate) trait ResourceReader: Send + Sync + std::fmt::Debug {
    /// Reads `uri` on behalf of `cx`, as a client's `resources/read` would.
    fn read(
        &self,
        uri: &str,
        cx: RequestContext,
    ) -> BoxFuture<'static, Result<Vec<ResourceContents>, ResourceError>>;
}
