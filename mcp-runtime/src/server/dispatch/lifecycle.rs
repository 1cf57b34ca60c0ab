//! The lifecycle: `initialize` (the legacy handshake), `ping`, `server/discover` (the modern
//! one), `logging/setLevel`, and the client's notifications.

use super::Scope;
use super::method::Method;
use super::{Connection, LEVEL_UNSET, LegacySession, optional_params, required_params};
use crate::protocol::jsonrpc::{encode_notification, encode_raw_result, encode_result};
use crate::protocol::meta::RequestMeta;
use crate::protocol::methods;
use crate::protocol::version;
use crate::protocol::{
    InitializeParams, InitializeResult, MAX_RETAINED_CLIENT_BYTES, MetaOnlyParams,
};
use crate::protocol::{LoggingLevel, McpError, RequestId, SetLevelParams};
use crate::server::contract::Rejection;
use crate::server::registry::Primitive;
use serde::Deserialize;
use serde_json::json;
use serde_json::value::RawValue;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};

impl Connection {
    /// `initialize`: the legacy handshake. An enveloped `initialize` is a modern request,
    /// and 2026-07-28 has no such method: "not found" after the envelope's own checks (only
    /// a claimless `initialize` is the handshake; conformance-next.md §10b).
    pub(super) fn initialize(
        &self,
        id: &RequestId,
        method: &'static Method,
        params: Option<&RawValue>,
        scope: &Scope<'_>,
    ) -> Result<Vec<u8>, Rejection> {
        let checks = scope.checks;
        let p: MetaOnlyParams = optional_params(params).unwrap_or_default();
        if p.meta.as_ref().is_some_and(RequestMeta::claims_modern) {
            // Served in its era only if a row says so: "not found" here.
            self.admitted(p.meta, method, checks)?;
        }
        let p: InitializeParams = required_params(params)?;
        if let Some(checks) = checks {
            checks.legacy().map_err(Rejection::invalid)?;
        }
        Ok(self.handshake(id, p)?)
    }

    /// The legacy handshake itself: the negotiated version, kept for the connection unless
    /// it is the shared stateless one.
    fn handshake(&self, id: &RequestId, p: InitializeParams) -> Result<Vec<u8>, McpError> {
        let negotiated = version::negotiate_legacy(&p.protocol_version);
        if !self.inner.stateless {
            let mut legacy = self.inner.legacy.lock().unwrap_or_else(|e| e.into_inner());
            if legacy.is_some() {
                return Err(McpError::invalid_request(
                    "this connection is already initialized",
                ));
            }
            *legacy = Some(Arc::new(LegacySession {
                version: negotiated.into(),
                // A session lives long: keep a bounded copy of what the client sent.
                client_capabilities: Arc::new(p.capabilities.retained(MAX_RETAINED_CLIENT_BYTES)),
                client_info: Arc::new(p.client_info.retained(MAX_RETAINED_CLIENT_BYTES)),
                initialized: AtomicBool::new(false),
                log_level: AtomicU8::new(LEVEL_UNSET),
                _telemetry: crate::telemetry::Session::start(negotiated),
            }));
        }
        let server = &self.inner.server.inner;
        tracing::debug!(requested = %p.protocol_version, negotiated, "handshake (initialize)");
        Ok(encode_result(
            id,
            &InitializeResult {
                protocol_version: negotiated.to_owned(),
                capabilities: server.capabilities.clone(),
                server_info: server.info.clone(),
                instructions: server.instructions.clone(),
            },
        ))
    }

    /// `ping` (legacy only: 2026-07-28 has none).
    pub(super) fn ping(
        &self,
        id: &RequestId,
        method: &'static Method,
        params: Option<&RawValue>,
        scope: &Scope<'_>,
    ) -> Result<Vec<u8>, Rejection> {
        let checks = scope.checks;
        let p: MetaOnlyParams = optional_params(params)?;
        self.admitted(p.meta, method, checks)?;
        Ok(encode_result(id, &json!({})))
    }

    /// `server/discover`: the modern leg's discovery, answered from the result serialized at
    /// `build()`.
    pub(super) fn discover(
        &self,
        id: &RequestId,
        method: &'static Method,
        params: Option<&RawValue>,
        scope: &Scope<'_>,
    ) -> Result<Vec<u8>, Rejection> {
        let checks = scope.checks;
        let p: MetaOnlyParams = optional_params(params)?;
        if !p.meta.as_ref().is_some_and(RequestMeta::claims_modern) {
            // The envelope is what is missing: 400 on HTTP, like any bad envelope, and never
            // a question of legacy sessions.
            return Err(Rejection::invalid(McpError::invalid_params(
                "server/discover needs the 2026-07-28 envelope in params._meta \
                 (io.modelcontextprotocol/protocolVersion and clientCapabilities)",
            )));
        }
        self.admitted(p.meta, method, checks)?;
        Ok(encode_raw_result(
            id,
            &self.inner.server.inner.discover_json,
        ))
    }

    /// `logging/setLevel` (legacy; a modern request names its level in `_meta`).
    pub(super) fn set_level(
        &self,
        id: &RequestId,
        method: &'static Method,
        params: Option<&RawValue>,
        scope: &Scope<'_>,
    ) -> Result<Vec<u8>, Rejection> {
        let checks = scope.checks;
        // Classify first: on the modern leg the method does not exist, whatever its params
        // (404, conformance-next.md §6 probe 11).
        let p: MetaOnlyParams = optional_params(params)?;
        let env = self.admitted(p.meta, method, checks)?;
        let level: SetLevelParams = required_params(params)?;
        if let Some(session) = &env.session {
            let index = LoggingLevel::ALL
                .iter()
                .position(|l| *l == level.level)
                .unwrap_or_default();
            session.log_level.store(index as u8, Ordering::Relaxed);
        }
        // Exactly `{}`: the official suite fails on any key, `_meta` included.
        Ok(encode_result(id, &json!({})))
    }

    /// Handles a notification from the client (`notifications/initialized`,
    /// `notifications/cancelled`; others are ignored). A transport that decodes messages
    /// itself hands every JSON-RPC notification here.
    pub fn notification(&self, method: &str, params: Option<&RawValue>) {
        match method {
            m if m == methods::INITIALIZED.name => {
                let initialized = self
                    .inner
                    .legacy
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .as_ref()
                    .inspect(|s| s.initialized.store(true, Ordering::Release))
                    .is_some();
                if initialized && !self.inner.watching.swap(true, Ordering::AcqRel) {
                    self.watch_list_changes();
                }
            }
            m if m == methods::CANCELLED.name => {
                #[derive(Deserialize)]
                #[serde(rename_all = "camelCase")]
                struct Cancelled {
                    request_id: RequestId,
                }
                match optional_params::<Option<Cancelled>>(params) {
                    Ok(Some(c)) => {
                        if let Some(token) = self.lock_inflight().get(&c.request_id) {
                            token.cancel();
                        }
                    }
                    _ => tracing::debug!("ignoring a malformed notifications/cancelled"),
                }
            }
            other => tracing::debug!(method = other, "ignoring notification"),
        }
    }

    /// Tells this legacy connection, once initialized, that every advertised list may look
    /// different to it now (`notifications/<primitive>/list_changed`): its caller's
    /// credentials changed within the session (a token with other scopes).
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) async fn view_changed(&self) {
        tell_lists_changed(&self.inner, Primitive::ALL.into_iter()).await;
    }

    /// Sends `notifications/<primitive>/list_changed` to a legacy connection whenever an
    /// advertised list changes (modern clients get them on their `subscriptions/listen`
    /// stream). Started by `notifications/initialized`: only an initialized legacy
    /// connection is told.
    fn watch_list_changes(&self) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let mut changes = self.inner.server.registry().subscribe();
        let this = Arc::downgrade(&self.inner);
        let closing = self.inner.closing.clone();
        let tasks = self.inner.tasks.clone();
        runtime.spawn(tasks.track_future(async move {
            let mut seen = *changes.borrow_and_update();
            loop {
                tokio::select! {
                    () = closing.cancelled() => return,
                    changed = changes.changed() => if changed.is_err() { return },
                }
                let now = *changes.borrow_and_update();
                let Some(inner) = this.upgrade() else { return };
                tell_lists_changed(&inner, now.changed_since(seen)).await;
                seen = now;
            }
        }));
    }
}

/// Sends `notifications/<kind>/list_changed` for each advertised kind of `kinds` to a
/// legacy connection, once it is initialized.
async fn tell_lists_changed(inner: &super::ConnInner, kinds: impl Iterator<Item = Primitive>) {
    let initialized = inner
        .legacy
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .as_ref()
        .is_some_and(|s| s.initialized.load(Ordering::Acquire));
    if !initialized {
        return;
    }
    let registry = inner.server.registry();
    for kind in kinds.filter(|k| registry.advertises(*k)) {
        let line = encode_notification::<()>(kind.list_changed_method(), None);
        inner.peer.send_line(line).await;
    }
}
