//! Legacy sessions (sessionful mode): the store, session ids, the GET stream for
//! server-initiated messages, DELETE, idle expiry and the cap.
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
//! - At [`max_sessions`](super::HttpOptions::max_sessions), expired sessions are swept
//!   first; if none can go, `initialize` gets 503 rather than evicting a live session.

use super::auth::Identity;
use super::response;
use super::service::Shared;
use crate::protocol::headers::MCP_SESSION_ID;
use crate::server::Connection;
use axum::body::Body;
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use http::{HeaderMap, Response, StatusCode};
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
    /// The receiving end of the connection's peer, while no GET stream holds it.
    outbox: Mutex<Option<mpsc::Receiver<Vec<u8>>>>,
    last_active: Mutex<Instant>,
    busy: AtomicUsize,
    closing: CancellationToken,
}

impl Session {
    fn expired(&self, idle: Duration, now: Instant) -> bool {
        self.busy.load(Ordering::Acquire) == 0
            && now.saturating_duration_since(*lock(&self.last_active)) > idle
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

/// Every live session.
pub(crate) struct Sessions {
    map: Mutex<HashMap<Arc<str>, Arc<Session>>>,
    max: usize,
    idle: Duration,
    sweeping: AtomicBool,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Sessions {
    pub(crate) fn new(max: usize, idle: Duration) -> Self {
        Self {
            map: Mutex::new(HashMap::new()),
            max,
            idle,
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

    /// Registers a session for an initialized connection; `None` at the cap.
    pub(crate) fn insert(
        self: &Arc<Self>,
        connection: Connection,
        outbox: mpsc::Receiver<Vec<u8>>,
        identity: &Identity,
    ) -> Option<Arc<Session>> {
        let id = new_session_id()?;
        let session = Arc::new(Session {
            id: id.clone(),
            connection,
            subject: identity.subject_name().map(Arc::from),
            outbox: Mutex::new(Some(outbox)),
            last_active: Mutex::new(Instant::now()),
            busy: AtomicUsize::new(0),
            closing: CancellationToken::new(),
        });
        {
            let mut map = lock(&self.map);
            if map.len() >= self.max {
                self.sweep_locked(&mut map);
            }
            if map.len() >= self.max {
                return None;
            }
            map.insert(id, session.clone());
        }
        self.start_sweeper();
        Some(session)
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
            let keep = !s.expired(self.idle, now);
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
        let period = (self.idle / 4).clamp(Duration::from_millis(50), Duration::from_secs(60));
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

/// GET: the session's stream of server-initiated messages.
pub(crate) fn open_stream(shared: &Shared, session: &Arc<Session>) -> Response<Body> {
    let Some(rx) = lock(&session.outbox).take() else {
        return response::message(
            StatusCode::CONFLICT,
            "this session already has an open GET stream",
        );
    };
    let outbox = Outbox {
        rx: Some(rx),
        session: session.clone(),
        service_closing: shared.closing.clone(),
        _busy: Busy::new(session),
    };
    let stream = futures::stream::unfold(outbox, |mut o| async move {
        let rx = o.rx.as_mut()?;
        let next = tokio::select! {
            () = o.session.closing.cancelled() => None,
            () = o.service_closing.cancelled() => None,
            line = rx.recv() => line,
        };
        next.map(|line| (line, o))
    });
    response::sse(stream, shared.options.keep_alive)
}

/// DELETE: ends the session.
pub(crate) fn delete(shared: &Shared, session: &Arc<Session>) -> Response<Body> {
    shared.sessions.remove(&session.id);
    let mut resp = Response::new(Body::empty());
    *resp.status_mut() = StatusCode::NO_CONTENT;
    resp
}
