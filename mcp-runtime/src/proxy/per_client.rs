//! A connection of its own for each client ([`Upstream::connection_per_client`]).
//!
//! A 2025 server's questions (elicitation, sampling, roots) say nothing on the wire of the
//! request they are for, so on a connection shared by several clients a question is refused
//! while more than one client's requests wait on it ([`Waiters::route`]). With a connection
//! per client (a child process of its own, or an HTTP session of its own), every question
//! on it is its client's. A client is a 2025 session of the proxy's (a Streamable HTTP
//! session; a stdio connection has one client, and the shared connection serves it). The
//! connection is opened at the client's first request, kept while it is used, and closed
//! when the upstream ends it or, idle for [`IDLE`], when another client needs its place;
//! with `max` connections open and every one busy, a new client is served by the shared
//! connection. The lists, list changes and resource updates are the shared connection's
//! to follow.
//!
//! [`Upstream::connection_per_client`]: super::Upstream::connection_per_client

use super::{Link, Process, Waiters, ask_or_refuse, connect, log_hook};
use crate::client::{Client, EraMode};
use crate::context::RequestContext;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};
use tokio::sync::OnceCell;

/// How long a client's connection is kept for it without a request, once another client
/// needs its place.
pub(super) const IDLE: Duration = Duration::from_secs(300);

/// A client's connection, once opened (`None`: it could not be).
type Slot = Arc<OnceCell<Option<Arc<Own>>>>;

/// The clients' own connections, by their session.
#[derive(Default)]
pub(crate) struct Connections {
    by_client: Mutex<HashMap<Arc<str>, (Slot, Instant)>>,
}

/// One client's connection.
pub(crate) struct Own {
    pub(crate) client: Client,
    pub(crate) waiting: Waiters,
    _process: Process,
}

impl Connections {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<Arc<str>, (Slot, Instant)>> {
        self.by_client.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Forgets `session`'s connection, if `slot` is still it.
    fn forget(&self, session: &str, slot: &Slot) {
        let mut all = self.lock();
        if all.get(session).is_some_and(|(s, _)| Arc::ptr_eq(s, slot)) {
            all.remove(session);
        }
    }

    /// How many clients have a connection of their own now.
    #[cfg(all(test, feature = "http"))]
    pub(crate) fn len(&self) -> usize {
        self.lock().len()
    }
}

/// Whether requests wait on the connection in `slot`.
fn busy(slot: &Slot) -> bool {
    slot.get()
        .and_then(Option::as_ref)
        .is_some_and(|own| !own.waiting.is_empty())
}

impl Link {
    /// The connection of `cx`'s client, opened at its first request; `None` when the shared
    /// connection serves it: no connections per client configured, a 2026-07-28 upstream
    /// (its questions come in the answer of the request they are for), a request of no
    /// 2025 session, every place taken by a busy client, or its own connection could not be
    /// opened (logged; tried again at its next request).
    pub(crate) async fn own_connection(self: &Arc<Self>, cx: &RequestContext) -> Option<Arc<Own>> {
        let max = self.upstream.per_client?;
        if self.upstream.era != EraMode::Legacy {
            return None;
        }
        let session = cx.caller().session()?;
        let slot = {
            let mut all = self.own.lock();
            let now = Instant::now();
            match all.get_mut(session) {
                Some((slot, used)) => {
                    *used = now;
                    slot.clone()
                }
                None => {
                    if all.len() >= max {
                        // The least recently used of the idle ones makes room.
                        let idle = all
                            .iter()
                            .filter(|(_, (slot, used))| {
                                !busy(slot) && now.duration_since(*used) >= IDLE
                            })
                            .min_by_key(|(_, (_, used))| *used)
                            .map(|(session, _)| session.clone());
                        all.remove(&idle?);
                    }
                    let slot = Slot::default();
                    all.insert(session.into(), (slot.clone(), now));
                    slot
                }
            }
        };
        let own = slot
            .get_or_init(|| open(self, session, &slot))
            .await
            .clone();
        if own.is_none() {
            self.own.forget(session, &slot);
        }
        own
    }
}

/// Opens a connection for the client of `session`: its questions and log messages go to
/// that client's requests; when the upstream ends it, it is forgotten (the client's next
/// request opens another).
async fn open(link: &Arc<Link>, session: &str, slot: &Slot) -> Option<Arc<Own>> {
    let name = &link.upstream.name;
    let (client, mut notes, process) = match connect(&link.upstream).await {
        Ok(connected) => connected,
        Err(e) => {
            tracing::warn!(upstream = %name, "cannot open a client's own connection ({e}): the shared one serves it");
            return None;
        }
    };
    let own = Arc::new(Own {
        client: client.clone(),
        waiting: Waiters::default(),
        _process: process,
    });
    client.intercept_notifications(log_hook(
        Arc::downgrade(&own),
        |own: &Own| &own.waiting,
        name.clone(),
    ));
    let (weak, link, session, slot) = (
        Arc::downgrade(&own),
        Arc::downgrade(link),
        Arc::<str>::from(session),
        slot.clone(),
    );
    tokio::spawn(async move {
        while let Some(note) = notes.recv().await {
            let Some(own) = weak.upgrade() else { break };
            let method = note.get("method").and_then(Value::as_str).unwrap_or("");
            if let Some(id) = note.get("id").filter(|_| !method.is_empty()) {
                let params = note.get("params").cloned().unwrap_or(Value::Null);
                ask_or_refuse(&own.waiting, &own.client, id, method, params).await;
            }
        }
        if let Some(link) = Weak::upgrade(&link) {
            link.own.forget(&session, &slot);
        }
    });
    Some(own)
}
