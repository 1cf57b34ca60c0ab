//! Following resources and lists: `resources/subscribe` and `resources/unsubscribe` on a
//! legacy connection (updates as unsolicited notifications), and `subscriptions/listen` on
//! the modern leg (one stream per request, tagged with its id).

use super::method::Method;
use super::{Connection, Deferred, Routed, Scope, optional_params, required_params};
use crate::protocol::MetaOnlyParams;
use crate::protocol::jsonrpc::{encode_notification, encode_result};
use crate::protocol::meta::RequestMeta;
use crate::protocol::methods;
use crate::protocol::{Era, McpError, RequestId, ResourceUriParams};
use crate::resource::ResourceError;
use crate::server::contract::Rejection;
use crate::server::projection::Modern;
use crate::server::registry::{Primitive, Registry};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Map, json};
use std::collections::HashSet;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use tokio::sync::broadcast;

/// At most this many resources one legacy connection subscribes to at once; beyond it a
/// subscription is refused (`-32602`), so a client cannot grow the server's memory
/// without bound.
pub(super) const MAX_SUBSCRIPTIONS: usize = 1024;

/// At most this many bytes of URIs one connection (or one listen stream) follows, whatever
/// their count: each URI is at most [`MAX_URI_BYTES`](super::read::MAX_URI_BYTES), and
/// every one must name a resource or match a template, so this is ample for real use.
pub(super) const MAX_SUBSCRIPTION_BYTES: usize = 256 * 1024;

/// `_meta` key tagging notifications of a `subscriptions/listen` stream.
const SUBSCRIPTION_ID_KEY: &str = "io.modelcontextprotocol/subscriptionId";

impl Connection {
    /// `resources/subscribe` and `resources/unsubscribe` (legacy only: on the modern leg
    /// `subscriptions/listen` carries `resourceSubscriptions`, and these methods do not
    /// exist).
    pub(super) fn subscription(
        &self,
        id: &RequestId,
        row: &'static Method,
        params: Option<&RawValue>,
        scope: &Scope<'_>,
    ) -> Result<Vec<u8>, Rejection> {
        let checks = scope.checks;
        let method = row.name;
        // The era first: on the modern leg the method does not exist, whatever its params
        // (404 `-32601`, checked by the suite's `server-stateless`).
        let meta: MetaOnlyParams = optional_params(params)?;
        let env = self.admitted(meta.meta, row, checks)?;
        let p: ResourceUriParams = required_params(params)?;
        if let Some(reason) = super::read::uri_problem(&p.uri) {
            return Err(ResourceError::InvalidUri(reason.into())
                .into_mcp_error(&p.uri, env.era)
                .into());
        }
        // Only what the server serves can be followed: a URI no resource or template
        // matches is refused as a read of it would be (`-32602` / `-32002`).
        if method == methods::RESOURCES_SUBSCRIBE.name
            && self
                .inner
                .server
                .registry()
                .resources
                .route(&p.uri)
                .filter(|route| self.may_see_route(&scope.outlet, route, &p.uri))
                .is_none()
        {
            return Err(ResourceError::NotFound
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
        if method == methods::RESOURCES_SUBSCRIBE.name {
            let held: usize = subscriptions.iter().map(|u| u.len()).sum();
            if !subscriptions.contains(&*p.uri)
                && (subscriptions.len() >= MAX_SUBSCRIPTIONS
                    || held + p.uri.len() > MAX_SUBSCRIPTION_BYTES)
            {
                return Err(McpError::invalid_params(format!(
                    "this session already follows as many resources as it may \
                     ({MAX_SUBSCRIPTIONS} URIs, {} KiB of them); unsubscribe from one first",
                    MAX_SUBSCRIPTION_BYTES / 1024
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
                        methods::RESOURCES_UPDATED.name,
                        Some(json!({ "uri": &*uri })),
                    );
                    inner.peer.send_line(line).await;
                }
            }
        }));
    }

    /// `subscriptions/listen` (modern): one stream of the list changes and resource updates
    /// it asks for, acknowledged first, ended by the client or the connection's end with
    /// its final result.
    pub(super) fn listen(
        &self,
        id: RequestId,
        method: &'static Method,
        params: Option<&RawValue>,
        scope: Scope<'_>,
    ) -> Routed {
        #[derive(Deserialize, Default)]
        struct ListenParams {
            #[serde(default)]
            notifications: Map<String, serde_json::Value>,
            #[serde(rename = "_meta", default)]
            meta: Option<RequestMeta>,
        }
        let p: ListenParams = match optional_params(params) {
            Ok(p) => p,
            Err(e) => return Routed::rejected(&id, e.into()),
        };
        // A legacy connection has unsolicited list_changed instead.
        if let Err(rejection) = self.admitted(p.meta, method, scope.checks) {
            return Routed::rejected(&id, rejection);
        }
        let registry = self.inner.server.registry();
        let (wanted, resource_uris) = asked(registry, &p.notifications);
        let outlet = scope.outlet;
        let peer = self.notifications_for(&outlet);
        let token = self.cancellation_for(&outlet);
        let tracked = self.track(&id, &token, &outlet, Era::Modern);
        let this = self.clone();
        let mut changes = registry.subscribe();
        // What the lists are now, before the acknowledgement: a change made once the client
        // has it (by this instance, or another of its fleet) is always told.
        let mut seen = *changes.borrow_and_update();
        let mut updates = resource_uris
            .as_ref()
            .map(|_| registry.resources.subscribe_updates());
        let deferred = Deferred::take();
        self.inner.tasks.spawn(async move {
            let tag = json!({ SUBSCRIPTION_ID_KEY: id });
            let ack = acknowledgement(&wanted, resource_uris.as_ref(), &tag);
            peer.send_line(encode_notification(methods::SUBSCRIPTIONS_ACKNOWLEDGED.name, Some(ack))).await;
            loop {
                tokio::select! {
                    () = token.cancelled() => {
                        // The client ended it: send nothing more.
                        this.untrack(tracked, &id);
                        deferred.dropped(true);
                        return;
                    }
                    () = this.inner.closing.cancelled() => break,
                    changed = changes.changed() => {
                        if changed.is_err() { break; }
                        let now = *changes.borrow_and_update();
                        for kind in now.changed_since(seen).filter(|k| wanted.contains(k)) {
                            let params = json!({ "_meta": tag });
                            peer.send_line(encode_notification(kind.list_changed_method(), Some(params))).await;
                        }
                        seen = now;
                    }
                    Some(update) = next_update(&mut updates) => {
                        let Ok(uri) = update else { continue };
                        if resource_uris.as_ref().is_some_and(|u| u.contains(&uri)) {
                            let params = json!({ "uri": &*uri, "_meta": tag });
                            peer.send_line(encode_notification(methods::RESOURCES_UPDATED.name, Some(params))).await;
                        }
                    }
                }
            }
            this.untrack(tracked, &id);
            let line = this.stream_ended(&id);
            deferred.answered(&line);
            this.deliver(outlet, line, crate::server::contract::Disposition::Answered).await;
        });
        Routed::Pending
    }
}

impl Connection {
    /// The final result of a listen stream the server ended, tagged with its id.
    fn stream_ended(&self, id: &RequestId) -> Vec<u8> {
        let server = &self.inner.server.inner;
        let tag = serde_json::to_value(id).unwrap_or_default();
        let extra = Map::from_iter([(SUBSCRIPTION_ID_KEY.to_owned(), tag)]);
        let body = Map::new();
        let done = Modern::complete(&body, &server.server_info_raw, None, Some(&extra));
        encode_result(id, &done)
    }
}

/// What a listen request asks for and the server honours: the list-change events of the
/// primitives it advertises (a filter it cannot honour is left out of the acknowledgement),
/// and the resources to follow when it advertises resources: URIs it serves, bounded like a
/// legacy session's subscriptions (the others are left out of the acknowledgement).
fn asked(
    registry: &Registry,
    notifications: &Map<String, serde_json::Value>,
) -> (Vec<Primitive>, Option<HashSet<Arc<str>>>) {
    let wanted = Primitive::ALL
        .into_iter()
        .filter(|p| registry.advertises(*p))
        .filter(|kind| {
            notifications.get(kind.listen_filter()) == Some(&serde_json::Value::Bool(true))
        })
        .collect();
    let resource_uris = registry
        .advertises(Primitive::Resources)
        .then(|| notifications.get("resourceSubscriptions"))
        .flatten()
        .and_then(serde_json::Value::as_array)
        .map(|uris| {
            // Followed: valid URIs the server serves, within the count and byte bounds of a
            // session's subscriptions; the acknowledgement lists what is honoured.
            let mut bytes = 0;
            uris.iter()
                .filter_map(serde_json::Value::as_str)
                .filter(|uri| {
                    super::read::uri_problem(uri).is_none()
                        && registry.resources.route(uri).is_some()
                })
                .take_while(|uri| {
                    bytes += uri.len();
                    bytes <= MAX_SUBSCRIPTION_BYTES
                })
                .take(MAX_SUBSCRIPTIONS)
                .map(Arc::from)
                .collect()
        });
    (wanted, resource_uris)
}

/// `notifications/subscriptions/acknowledged`'s params: what the stream will carry.
fn acknowledgement(
    wanted: &[Primitive],
    resource_uris: Option<&HashSet<Arc<str>>>,
    tag: &serde_json::Value,
) -> serde_json::Value {
    let mut honoured: Map<String, serde_json::Value> = wanted
        .iter()
        .map(|p| (p.listen_filter().to_owned(), true.into()))
        .collect();
    if let Some(uris) = resource_uris {
        let mut listed: Vec<&str> = uris.iter().map(|u| &**u).collect();
        listed.sort_unstable();
        honoured.insert("resourceSubscriptions".to_owned(), json!(listed));
    }
    json!({ "notifications": honoured, "_meta": tag })
}

/// The next announced resource update, for a listen stream that follows resources (never,
/// for one that does not). A stream that fell behind skips what it missed.
async fn next_update(
    updates: &mut Option<tokio::sync::broadcast::Receiver<Arc<str>>>,
) -> Option<Result<Arc<str>, ()>> {
    use tokio::sync::broadcast::error::RecvError;
    match updates {
        None => std::future::pending().await,
        Some(rx) => match rx.recv().await {
            Ok(uri) => Some(Ok(uri)),
            Err(RecvError::Lagged(_)) => Some(Err(())),
            Err(RecvError::Closed) => None,
        },
    }
}
