//! The per-request context a tool receives: era, client, progress, cancellation.

use super::extract::Extensions;
use crate::input::Channel;
use crate::protocol::jsonrpc::encode_notification;
use crate::protocol::{ClientCapabilities, Era, Implementation, ProgressToken, RequestId};
use crate::protocol::{InputRequest, LoggingLevel};
use crate::transport::Peer;
use serde_json::Value;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use tokio_util::sync::CancellationToken;

/// Who a request comes from, as far as its transport knows: what rate limits and caches
/// are keyed by and what a tool or a layer can authorize by. Cheap to clone.
///
/// stdio has one client per process, so its caller is that connection. Streamable HTTP
/// fills in the identity its [`Authenticator`](crate::transport::http::Authenticator)
/// established with the scopes it granted, the legacy session, and the peer's IP address.
///
/// Scopes: a caller *with* scopes (every HTTP caller; an unauthenticated one has none) is
/// held to the scopes a tool declares; a caller without (stdio and in-memory, whose client
/// is the local user who started the server, as the MCP authorization spec has it) is not.
///
/// ```
/// use mcp_runtime::tool::Caller;
///
/// let caller = Caller::connection().with_identity("alice").with_session("s1");
/// assert_eq!(caller.identity(), Some("alice"));
/// assert_eq!(caller.key(), "identity:alice");
/// assert_eq!(Caller::connection().key(), "connection");
///
/// let required = ["files:read".to_owned(), "files:write".to_owned()];
/// let reader = Caller::connection().with_identity("bob").with_scopes(["files:read"]);
/// assert!(!reader.has_scopes(&required));
/// assert!(Caller::connection().has_scopes(&required), "a local client is not held to scopes");
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Caller {
    identity: Option<Arc<str>>,
    session: Option<Arc<str>>,
    address: Option<Arc<str>>,
    scopes: Option<Arc<[String]>>,
}

impl Caller {
    /// The connection itself, nothing more known (stdio, in-memory).
    pub fn connection() -> Self {
        Self::default()
    }

    /// With an authenticated identity (e.g. the token's subject).
    pub fn with_identity(mut self, identity: impl Into<Arc<str>>) -> Self {
        self.identity = Some(identity.into());
        self
    }

    /// With a session id (a legacy Streamable HTTP session).
    pub fn with_session(mut self, session: impl Into<Arc<str>>) -> Self {
        self.session = Some(session.into());
        self
    }

    /// With the peer's network address (an IP address, without port).
    pub fn with_address(mut self, address: impl Into<Arc<str>>) -> Self {
        self.address = Some(address.into());
        self
    }

    /// With the scopes the caller's credentials grant (possibly none): from now on the
    /// caller is held to the scopes of what it calls.
    pub fn with_scopes<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        self.scopes = Some(scopes.into_iter().map(Into::into).collect());
        self
    }

    /// [`with_scopes`](Self::with_scopes) with a set already shared (no copy).
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn with_granted_scopes(mut self, scopes: Arc<[String]>) -> Self {
        self.scopes = Some(scopes);
        self
    }

    /// The scopes the caller's credentials grant, or `None` when its transport does not
    /// authorize by scope.
    pub fn scopes(&self) -> Option<&[String]> {
        self.scopes.as_deref()
    }

    /// Whether the caller may use something that requires every scope in `required`: it
    /// holds them all, or its transport does not authorize by scope.
    pub fn has_scopes(&self, required: &[String]) -> bool {
        match &self.scopes {
            None => true,
            Some(granted) => required.iter().all(|r| granted.contains(r)),
        }
    }

    /// The authenticated identity, if any.
    pub fn identity(&self) -> Option<&str> {
        self.identity.as_deref()
    }

    /// The legacy session, if any.
    pub fn session(&self) -> Option<&str> {
        self.session.as_deref()
    }

    /// The peer's address, if known.
    pub fn address(&self) -> Option<&str> {
        self.address.as_deref()
    }

    /// The most specific name of this caller: `identity:…`, else `session:…`, else
    /// `address:…`, else `connection`. Rate limits and caches are keyed by it.
    pub fn key(&self) -> String {
        match (&self.identity, &self.session, &self.address) {
            (Some(i), _, _) => format!("identity:{i}"),
            (None, Some(s), _) => format!("session:{s}"),
            (None, None, Some(a)) => format!("address:{a}"),
            (None, None, None) => "connection".to_owned(),
        }
    }
}

/// What a tool knows about the request that called it. Cheap to clone.
///
/// Everything here comes from this request alone (on the modern leg) or from this
/// connection's `initialize` (on the legacy leg); nothing is inferred from earlier requests.
#[derive(Debug, Clone)]
pub struct RequestContext {
    inner: Arc<ContextInner>,
}

#[derive(Debug)]
struct ContextInner {
    era: Era,
    protocol_version: Arc<str>,
    client_capabilities: Arc<ClientCapabilities>,
    client_info: Option<Arc<Implementation>>,
    request_id: RequestId,
    progress_token: Option<ProgressToken>,
    cancellation: CancellationToken,
    peer: Option<Peer>,
    extensions: Arc<Extensions>,
    caller: Caller,
    /// The server the request came to (`None` for a context made outside one).
    server: Option<crate::server::Server>,
    last_progress: Mutex<Option<f64>>,
    finished: AtomicBool,
    answered_from_cache: AtomicBool,
    /// How asks reach the client (`crate::input`).
    input: Channel,
    /// The least severe log level the client wants for this request; `None`: no messages.
    log_threshold: Option<LoggingLevel>,
    /// The client capabilities asks needed and the client lacked (merged).
    missing_capability: Mutex<Option<Value>>,
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

/// The parts a transport or test assembles a [`RequestContext`] from.
#[derive(Debug, Clone)]
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
    /// Cancelled when the client cancels the request or the connection ends.
    pub cancellation: CancellationToken,
    /// Where notifications for this request go; `None` drops them.
    pub peer: Option<Peer>,
    /// The server's shared state.
    pub extensions: Arc<Extensions>,
    /// Who the request comes from.
    pub caller: Caller,
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

    /// A context of a request served by `server`: [`read_resource`](Self::read_resource)
    /// reaches its resources.
    pub(crate) fn for_server(
        parts: RequestContextParts,
        server: crate::server::Server,
        io: RequestIo,
    ) -> Self {
        Self::with_server(parts, Some(server), io)
    }

    fn with_server(
        parts: RequestContextParts,
        server: Option<crate::server::Server>,
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
                cancellation: parts.cancellation,
                peer: parts.peer,
                extensions: parts.extensions,
                caller: parts.caller,
                server,
                last_progress: Mutex::new(None),
                finished: AtomicBool::new(false),
                answered_from_cache: AtomicBool::new(false),
                input: io.input,
                log_threshold: io.log_threshold,
                missing_capability: Mutex::new(None),
            }),
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
            cancellation: CancellationToken::new(),
            peer: None,
            extensions: Arc::default(),
            caller: Caller::connection(),
        })
    }

    /// Who the request comes from (see [`Caller`]).
    pub fn caller(&self) -> &Caller {
        &self.inner.caller
    }

    /// The server's shared state (see [`State`](super::State)).
    pub fn extensions(&self) -> &Extensions {
        &self.inner.extensions
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

    /// The client's identity, when it gave one.
    pub fn client_info(&self) -> Option<&Implementation> {
        self.inner.client_info.as_deref()
    }

    /// The JSON-RPC id of the request.
    pub fn request_id(&self) -> &RequestId {
        &self.inner.request_id
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
    pub async fn progress(&self, progress: f64, total: Option<f64>, message: Option<&str>) -> bool {
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
        peer.send_line(encode_notification("notifications/progress", Some(params)))
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

    /// The modern round of this request, when it has one.
    pub(crate) fn round(&self) -> Option<&Arc<crate::input::Round>> {
        match &self.inner.input {
            Channel::Modern(round) => Some(round),
            _ => None,
        }
    }

    pub(crate) fn log_threshold(&self) -> Option<LoggingLevel> {
        self.inner.log_threshold
    }

    /// Notes a capability an ask needed and the client lacked.
    pub(crate) fn record_missing_capability(&self, request: &InputRequest) {
        let required = request.required_capability();
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
    ) -> futures::future::BoxFuture<
        'static,
        Result<Vec<crate::protocol::ResourceContents>, crate::resource::ResourceError>,
    > {
        use crate::pipeline::{BoxError, Outcome};
        use crate::resource::ResourceError;
        use crate::server::registry::resources::Route;
        let Some(server) = &self.inner.server else {
            return Box::pin(std::future::ready(Err(ResourceError::NotFound)));
        };
        let resources = &server.registry().resources;
        // Boxed with its type spelled out: the compiler cannot prove the stack's nested
        // future `Send` through an `async` block on its own (as in `tools/call`).
        let read: futures::future::BoxFuture<'static, Result<Outcome, BoxError>> =
            match resources.route(uri) {
                None => return Box::pin(std::future::ready(Err(ResourceError::NotFound))),
                Some(Route::Exact(r)) => Box::pin(r.stack.call(r.request(uri, self.clone()))),
                Some(Route::Template(t, variables)) => {
                    Box::pin(t.stack.call(t.request(uri, variables, self.clone())))
                }
            };
        Box::pin(async move {
            match read.await.unwrap_or_else(Outcome::from_error) {
                Outcome::Read(result) => Ok(result.contents),
                // The read asked the client and this round could not answer: the round's
                // ask is recorded, so the outer handler suspends with it.
                Outcome::InputRequired => std::future::pending().await,
                Outcome::Refused(refusal) => {
                    Err(ResourceError::Failed(refusal.message().to_owned()))
                }
                Outcome::Error(error) => Err(ResourceError::from_mcp_error(error)),
                _ => Err(ResourceError::failed(
                    "a layer answered a read with another kind of result",
                )),
            }
        })
    }
}
