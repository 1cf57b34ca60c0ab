//! The envelope of a request: its era (each message classified on its own, by its
//! `_meta`), its protocol version and client facts, and the transport's checks for that era.

use super::method::Method;
use super::{Connection, LegacySession};
use crate::protocol::meta::{RequestMeta, TraceContext};
use crate::protocol::version::{self, LATEST_LEGACY_VERSION, MODERN_VERSION, MODERN_VERSIONS};
use crate::protocol::{ClientCapabilities, Implementation};
use crate::protocol::{Era, LoggingLevel, McpError, ProgressToken};
use crate::server::contract::{Rejection, RequestChecks};
use std::sync::{Arc, LazyLock};

/// The era and client facts a request is served under.
pub(super) struct Envelope {
    pub(super) era: Era,
    pub(super) version: Arc<str>,
    pub(super) client_capabilities: Arc<ClientCapabilities>,
    pub(super) client_info: Option<Arc<Implementation>>,
    pub(super) progress_token: Option<ProgressToken>,
    /// The trace context from `_meta`, else from the transport; `None` when neither has one.
    pub(super) trace: Option<Arc<TraceContext>>,
    /// Modern: the request's `logLevel`. Legacy: unused (the session's level is read).
    pub(super) log_level: Option<LoggingLevel>,
    /// Legacy: the `initialize` behind the request, if any.
    pub(super) session: Option<Arc<LegacySession>>,
    /// The `_meta` keys the server does not read itself.
    pub(super) meta: Option<Arc<crate::protocol::JsonObject>>,
}

static MODERN: LazyLock<Arc<str>> = LazyLock::new(|| MODERN_VERSION.into());
static LATEST_LEGACY: LazyLock<Arc<str>> = LazyLock::new(|| LATEST_LEGACY_VERSION.into());
static NO_CAPABILITIES: LazyLock<Arc<ClientCapabilities>> = LazyLock::new(Arc::default);

impl Connection {
    /// Classifies a request by its `_meta`, checks the modern envelope, and runs the
    /// transport's header checks for the request's era.
    pub(super) fn envelope(
        &self,
        meta: Option<RequestMeta>,
        method: &str,
        checks: Option<&dyn RequestChecks>,
    ) -> Result<Envelope, Rejection> {
        let mut meta = meta.unwrap_or_default();
        let other = meta.other.take().map(Arc::new);
        let trace = meta
            .take_trace_context()
            .or(checks.and_then(RequestChecks::trace_context));
        let trace = (!trace.is_empty()).then(|| Arc::new(trace));
        if meta.claims_modern() {
            let Some(requested) = meta.protocol_version else {
                return Err(Rejection::invalid(McpError::invalid_params(
                    "params._meta lacks \"io.modelcontextprotocol/protocolVersion\"",
                )));
            };
            let Some(client_capabilities) = meta.client_capabilities else {
                return Err(Rejection::invalid(McpError::invalid_params(
                    "params._meta lacks \"io.modelcontextprotocol/clientCapabilities\" (send {} when the client declares none)",
                )));
            };
            // The transport's cross-check comes before the version gate: a header that
            // disagrees with the body is a transport-integrity failure (-32020), decided
            // before any version negotiation (spec conformance-next.md §10a).
            if let Some(checks) = checks {
                checks
                    .modern(method, &requested)
                    .map_err(Rejection::invalid)?;
            }
            if !version::is_supported_modern(&requested) {
                return Err(Rejection::invalid(McpError::unsupported_protocol_version(
                    &requested,
                    MODERN_VERSIONS,
                )));
            }
            return Ok(Envelope {
                era: Era::Modern,
                version: MODERN.clone(),
                client_capabilities: Arc::new(client_capabilities),
                client_info: meta.client_info.map(Arc::new),
                progress_token: meta.progress_token,
                trace,
                log_level: meta.log_level,
                session: None,
                meta: other,
            });
        }
        if let Some(checks) = checks {
            checks.legacy().map_err(Rejection::invalid)?;
        }
        let session = self
            .inner
            .legacy
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        let sessionless = match (&session, checks) {
            (None, Some(checks)) => checks.sessionless()?,
            _ => None,
        };
        Ok(match session {
            Some(s) => Envelope {
                era: Era::Legacy,
                version: s.version.clone(),
                client_capabilities: s.client_capabilities.clone(),
                client_info: Some(s.client_info.clone()),
                progress_token: meta.progress_token,
                trace,
                log_level: None,
                session: Some(s),
                meta: other,
            },
            None => Envelope {
                era: Era::Legacy,
                version: sessionless.map_or_else(|| LATEST_LEGACY.clone(), Arc::from),
                client_capabilities: NO_CAPABILITIES.clone(),
                client_info: None,
                progress_token: meta.progress_token,
                trace,
                log_level: None,
                session: None,
                meta: other,
            },
        })
    }

    /// [`envelope`](Self::envelope) for a request that names its target (`tools/call`,
    /// `prompts/get`, `resources/read`): on the modern leg the transport's `Mcp-Name` is
    /// checked against `name` too.
    pub(super) fn named_envelope(
        &self,
        meta: Option<RequestMeta>,
        method: &str,
        name: &str,
        checks: Option<&dyn RequestChecks>,
    ) -> Result<Envelope, Rejection> {
        let env = self.envelope(meta, method, checks)?;
        if let Some(checks) = checks.filter(|_| env.era == Era::Modern) {
            checks.name(method, name).map_err(Rejection::invalid)?;
        }
        Ok(env)
    }

    /// [`envelope`](Self::envelope), then [`admit`](Self::admit): the envelope of a request
    /// whose method is offered in its era, or the answer that it is not.
    pub(super) fn admitted(
        &self,
        meta: Option<RequestMeta>,
        method: &'static Method,
        checks: Option<&dyn RequestChecks>,
    ) -> Result<Envelope, Rejection> {
        let env = self.envelope(meta, method.name, checks)?;
        self.admit(method, env.era)?;
        Ok(env)
    }

    /// [`admitted`](Self::admitted) for a request that names its target (`name`), checked
    /// against the transport's `Mcp-Name` on the modern leg.
    pub(super) fn admitted_named(
        &self,
        meta: Option<RequestMeta>,
        method: &'static Method,
        name: &str,
        checks: Option<&dyn RequestChecks>,
    ) -> Result<Envelope, Rejection> {
        let env = self.named_envelope(meta, method.name, name, checks)?;
        self.admit(method, env.era)?;
        Ok(env)
    }
}
