//! Legacy sessions (sessionful mode): the store, session ids, the queue of server-initiated
//! messages and its stream, idle expiry and the cap (GET and DELETE themselves are
//! `session_methods.rs`).
//!
//! - An id is 256 bits from the operating system's CSPRNG, base64url (43 visible ASCII
//!   characters): unguessable, so knowing one is the only way into a session.
//! - A session remembers the [`Identity`] that opened it; a request with another identity
//!   is answered as if the session did not exist (404), so ids cannot be used across users.
//! - One GET stream per session at a time; a second gets 409. Messages sent while no stream
//!   is open wait in a small queue (there is no resumability, so nothing is replayed).
//! - A session is idle when no request is in flight and no GET stream is open; after
//!   [`session_idle_timeout`](super::HttpOptions::session_idle_timeout) of that it expires.
//!   A sweeper task, started with the first session, looks every quarter of the timeout.
//! - A session lives at most
//!   [`max_session_lifetime`](super::HttpOptions::max_session_lifetime), its GET stream
//!   at most [`max_stream_lifetime`](super::HttpOptions::max_stream_lifetime).
//! - A caller (identity, else IP address) has at most
//!   [`max_sessions_per_caller`](super::HttpOptions::max_sessions_per_caller): its next
//!   `initialize` ends its own session idle the longest (429 when all are in use).
//! - At [`max_sessions`](super::HttpOptions::max_sessions), expired sessions are swept
//!   first, then the session idle the longest ends; a session in use (a request in flight,
//!   a stream open) is never evicted, and when all are, `initialize` gets 503. So a flood of
//!   `initialize` costs the flooder its own old sessions, and idle clients at worst a new
//!   handshake, never a lock-out.
//! - What a session keeps of its client's `initialize` is bounded
//!   ([`MAX_RETAINED_CLIENT_BYTES`](crate::protocol::MAX_RETAINED_CLIENT_BYTES)).

use super::auth::Identity;
use super::limits::CallerKey;
use crate::protocol::headers::MCP_SESSION_ID;
use crate::server::Connection;
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use http::HeaderMap;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::time::{Duration, Instant};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// How many server-initiated messages wait for a GET stream.
pub(crate) const OUTBOX: usize = 64;

/// One legacy session.
pub(crate) struct Session {
    pub(crate) id: Arc<str>,
    pub(crate) connection: Connection,
    subject: Option<Arc<str>>,
    /// The scopes of the credentials its latest request came with.
    scopes: Mutex<Arc<[String]>>,
    /// Who opened it, for the per-caller quota (`None`: cannot be told apart).
    caller: Option<CallerKey>,
    created: Instant,
    /// The receiving end of the connection's peer, while no GET stream holds it.
    outbox: Mutex<Option<mpsc::Receiver<Vec<u8>>>>,
    last_active: Mutex<Instant>,
    busy: AtomicUsize,
    closing: CancellationToken,
    /// How many of the session's shared state changes (kept in Redis by the instance that
    /// served them) this copy has applied.
    pub(crate) applied: AtomicUsize,
}

impl Session {
    /// Whether `identity` holds other scopes than the session's previous request did (a
    /// token refreshed or stepped up within the session); remembers them.
    pub(crate) fn scopes_changed(&self, identity: &Identity) -> bool {
        let now = identity.scope_set();
        let mut held = lock(&self.scopes);
        if Arc::ptr_eq(&held, now) || *held == *now {
            return false;
        }
        *held = now.clone();
        true
    }

    fn in_use(&self) -> bool {
        self.busy.load(Ordering::Acquire) > 0
    }

    fn idle_since(&self) -> Instant {
        *lock(&self.last_active)
    }

    fn expired(&self, limits: &SessionLimits, now: Instant) -> bool {
        now.saturating_duration_since(self.created) > limits.lifetime
            || (!self.in_use() && now.saturating_duration_since(self.idle_since()) > limits.idle)
    }

    /// Ends the session: its GET stream closes, queued messages are dropped, listen
    /// streams and the tool watcher stop; tool calls in flight still finish.
    fn close(&self) {
        self.closing.cancel();
        drop(lock(&self.outbox).take());
        let connection = self.connection.clone();
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move { connection.shutdown().await });
        }
    }
}

/// Marks a session in use (a request in flight, a GET stream open) while it lives.
pub(crate) struct Busy(Arc<Session>);

impl Busy {
    pub(crate) fn new(session: &Arc<Session>) -> Self {
        session.busy.fetch_add(1, Ordering::AcqRel);
        Busy(session.clone())
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        *lock(&self.0.last_active) = Instant::now();
        self.0.busy.fetch_sub(1, Ordering::AcqRel);
    }
}

/// What the `Mcp-Session-Id` of a request leads to.
pub(crate) enum Lookup {
    /// No header.
    Absent,
    /// A header naming no session this identity may use.
    Unknown,
    /// A live session.
    Found(Arc<Session>),
}

/// The bounds on sessions (from [`HttpOptions`](super::HttpOptions)).
#[derive(Debug, Clone, Copy)]
pub(crate) struct SessionLimits {
    pub(crate) max: usize,
    pub(crate) per_caller: usize,
    pub(crate) idle: Duration,
    pub(crate) lifetime: Duration,
}

/// Why a session could not be opened.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Refused {
    /// Every session is in use.
    Full,
    /// Every session of this caller is in use.
    CallerFull,
    /// No randomness for an id.
    NoId,
}

/// Every live session.
pub(crate) struct Sessions {
    map: Mutex<HashMap<Arc<str>, Arc<Session>>>,
    limits: SessionLimits,
    sweeping: AtomicBool,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Sessions {
    pub(crate) fn new(limits: SessionLimits) -> Self {
        Self {
            map: Mutex::new(HashMap::new()),
            limits,
            sweeping: AtomicBool::new(false),
        }
    }

    pub(crate) fn len(&self) -> usize {
        lock(&self.map).len()
    }

    /// Finds the session a request names.
    pub(crate) fn lookup(&self, headers: &HeaderMap, identity: &Identity) -> Lookup {
        let mut values = headers.get_all(MCP_SESSION_ID).iter();
        let (Some(value), None) = (values.next(), values.next()) else {
            return if headers.contains_key(MCP_SESSION_ID) {
                Lookup::Unknown
            } else {
                Lookup::Absent
            };
        };
        let Ok(id) = value.to_str() else {
            return Lookup::Unknown;
        };
        match lock(&self.map).get(id) {
            Some(s) if s.subject.as_deref() == identity.subject_name() => Lookup::Found(s.clone()),
            _ => Lookup::Unknown,
        }
    }

    /// Registers a session for an initialized connection opened by `caller`, making room
    /// as the module docs say.
    pub(crate) fn insert(
        self: &Arc<Self>,
        connection: Connection,
        outbox: mpsc::Receiver<Vec<u8>>,
        identity: &Identity,
        caller: Option<CallerKey>,
    ) -> Result<Arc<Session>, Refused> {
        let id = new_session_id().ok_or(Refused::NoId)?;
        self.adopt(id, connection, outbox, identity, caller)
    }

    /// Registers a session under `id`: a new one, or (instances sharing state) one another
    /// instance opened, made again here.
    pub(crate) fn adopt(
        self: &Arc<Self>,
        id: Arc<str>,
        connection: Connection,
        outbox: mpsc::Receiver<Vec<u8>>,
        identity: &Identity,
        caller: Option<CallerKey>,
    ) -> Result<Arc<Session>, Refused> {
        let now = Instant::now();
        let session = Arc::new(Session {
            id: id.clone(),
            connection,
            subject: identity.subject_name().map(Arc::from),
            scopes: Mutex::new(identity.scope_set().clone()),
            caller,
            created: now,
            outbox: Mutex::new(Some(outbox)),
            last_active: Mutex::new(now),
            busy: AtomicUsize::new(0),
            closing: CancellationToken::new(),
            applied: AtomicUsize::new(0),
        });
        {
            let mut map = lock(&self.map);
            // Two requests making the same shared session again at once: the first stays.
            if let Some(existing) = map.get(&session.id) {
                let existing = existing.clone();
                drop(map);
                session.close();
                return Ok(existing);
            }
            if let Some(caller) = &session.caller {
                let theirs = |s: &Session| s.caller.as_ref() == Some(caller);
                if map.values().filter(|s| theirs(s)).count() >= self.limits.per_caller {
                    Self::evict_oldest_idle(&mut map, theirs).ok_or(Refused::CallerFull)?;
                }
            }
            if map.len() >= self.limits.max {
                self.sweep_locked(&mut map);
            }
            if map.len() >= self.limits.max {
                Self::evict_oldest_idle(&mut map, |_| true).ok_or(Refused::Full)?;
            }
            map.insert(id, session.clone());
        }
        self.start_sweeper();
        Ok(session)
    }

    /// Ends the session idle the longest among those `eligible` and not in use; `None`
    /// when there is none.
    fn evict_oldest_idle(
        map: &mut HashMap<Arc<str>, Arc<Session>>,
        eligible: impl Fn(&Session) -> bool,
    ) -> Option<()> {
        let oldest = map
            .values()
            .filter(|s| eligible(s) && !s.in_use())
            .min_by_key(|s| s.idle_since())?
            .id
            .clone();
        let evicted = map.remove(&oldest)?;
        tracing::debug!(session = %oldest, "legacy session evicted to make room");
        evicted.close();
        Some(())
    }

    /// The session `id`, if held here.
    pub(crate) fn get(&self, id: &str) -> Option<Arc<Session>> {
        lock(&self.map).get(id).cloned()
    }

    /// Ends the session `id`; returns whether there was one.
    pub(crate) fn remove(&self, id: &str) -> bool {
        let removed = lock(&self.map).remove(id);
        removed.inspect(|s| s.close()).is_some()
    }

    /// Ends every session (shutdown).
    pub(crate) fn close_all(&self) {
        let all: Vec<_> = lock(&self.map).drain().map(|(_, s)| s).collect();
        for s in all {
            s.close();
        }
    }

    fn sweep_locked(&self, map: &mut HashMap<Arc<str>, Arc<Session>>) {
        let now = Instant::now();
        map.retain(|id, s| {
            let keep = !s.expired(&self.limits, now);
            if !keep {
                tracing::debug!(session = %id, "legacy session expired");
                s.close();
            }
            keep
        });
    }

    fn start_sweeper(self: &Arc<Self>) {
        if self.sweeping.swap(true, Ordering::AcqRel) {
            return;
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            self.sweeping.store(false, Ordering::Release);
            return;
        };
        let shortest = self.limits.idle.min(self.limits.lifetime);
        let period = (shortest / 4).clamp(Duration::from_millis(50), Duration::from_secs(60));
        let this: Weak<Self> = Arc::downgrade(self);
        runtime.spawn(async move {
            loop {
                tokio::time::sleep(period).await;
                let Some(sessions) = this.upgrade() else {
                    return;
                };
                sessions.sweep_locked(&mut lock(&sessions.map));
            }
        });
    }
}

/// 256 bits from the OS CSPRNG, base64url without padding.
fn new_session_id() -> Option<Arc<str>> {
    let mut bytes = [0u8; 32];
    match getrandom::fill(&mut bytes) {
        Ok(()) => Some(URL_SAFE_NO_PAD.encode(bytes).into()),
        Err(e) => {
            tracing::error!(error = %e, "no randomness for a session id");
            None
        }
    }
}

/// The session's GET stream, holding the outbox receiver while it is open.
struct Outbox {
    rx: Option<mpsc::Receiver<Vec<u8>>>,
    session: Arc<Session>,
    service_closing: CancellationToken,
    /// When the stream ends at the latest.
    ends: tokio::time::Instant,
    _busy: Busy,
}

impl Drop for Outbox {
    fn drop(&mut self) {
        // Hand the queue back so a reconnecting client gets what arrives meanwhile.
        if let Some(rx) = self.rx.take()
            && !self.session.closing.is_cancelled()
        {
            *lock(&self.session.outbox) = Some(rx);
        }
    }
}

impl Session {
    /// The session's stream of server-initiated messages: until the session closes, the
    /// service closes (`service_closing`) or `ends`; the session is busy (never idle, never
    /// evicted) while it is open. `None` while another stream holds it.
    pub(crate) fn stream(
        self: &Arc<Self>,
        service_closing: CancellationToken,
        ends: tokio::time::Instant,
    ) -> Option<impl futures::Stream<Item = Vec<u8>> + Send + 'static> {
        let rx = lock(&self.outbox).take()?;
        let outbox = Outbox {
            rx: Some(rx),
            session: self.clone(),
            service_closing,
            ends,
            _busy: Busy::new(self),
        };
        Some(futures::stream::unfold(outbox, |mut o| async move {
            let ends = o.ends;
            let rx = o.rx.as_mut()?;
            let next = tokio::select! {
                () = o.session.closing.cancelled() => None,
                () = o.service_closing.cancelled() => None,
                // The client reconnects; what arrives meanwhile waits in the queue.
                () = tokio::time::sleep_until(ends) => None,
                line = rx.recv() => line,
            };
            next.map(|line| (line, o))
        }))
    }
}
