//! Legacy (2025) sessions shared by a server's instances ([`SessionStore`]): what another
//! instance needs to serve a session it did not open, and the messages of its GET stream
//! for a client that resumes elsewhere.
//!
//! The trait lives with the server, not the HTTP transport that is its only user today: a
//! legacy session is the server's [`Connection`](crate::server::Connection), and any
//! transport that keeps sessions across instances needs the same record.
//!
//! A session is its record (who opened it, its `initialize` params, when it was made and
//! its lifetime) and the ordered list of the requests that changed its state since
//! (`notifications/initialized`, `logging/setLevel`, `resources/subscribe`,
//! `resources/unsubscribe`: the methods whose
//! [`changes_session`](crate::protocol::methods::MethodSpec::changes_session) is set). An
//! instance that meets the session first makes it again by replaying `initialize` and those
//! changes; one that has it applies the changes it has not seen yet.

use crate::context::Unavailable;
use futures::future::BoxFuture;
use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;
use std::time::Duration;
use tokio::time::Instant;

/// The most state changes one session keeps; past it further ones are not shared. Clients
/// set a log level or subscribe a few times, not thousands.
pub const MAX_SESSION_CHANGES: usize = 4096;

/// The most bytes of state changes one session keeps; past it, as past
/// [`MAX_SESSION_CHANGES`], further ones are not shared.
pub const MAX_SESSION_CHANGE_BYTES: usize = 1024 * 1024;

/// The most messages kept per session for streams that resume.
pub const MAX_EVENTS: usize = 1000;

/// How long a message is kept for streams that resume.
pub const MAX_EVENT_AGE: Duration = Duration::from_secs(600);

/// The longest `initialize` params shared (beyond it, `initialize` is refused when sessions
/// are shared: no instance could serve the session).
pub const MAX_INIT_BYTES: usize = 256 * 1024;

/// A message kept for a session's GET stream: its event id and the message.
pub type StreamEvent = (String, Vec<u8>);

/// A shared session as another instance finds it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SessionRecord {
    /// Who opened it (`None`: an unauthenticated caller).
    pub subject: Option<String>,
    /// Its `initialize` params, as the client sent them.
    pub init: String,
}

impl SessionRecord {
    /// A record of a session `subject` opened with `init`.
    pub fn new(subject: Option<String>, init: impl Into<String>) -> Self {
        Self {
            subject,
            init: init.into(),
        }
    }
}

/// What [`SessionStore::sync`] finds of a live session.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SessionSync {
    /// The record, when asked for it.
    pub record: Option<SessionRecord>,
    /// The state changes from the index asked for on, oldest first.
    pub changes: Vec<String>,
}

impl SessionSync {
    /// What a sync found.
    pub fn new(record: Option<SessionRecord>, changes: Vec<String>) -> Self {
        Self { record, changes }
    }
}

/// Where a server's instances keep their legacy sessions.
///
/// Sessions expire after `idle` without a [`sync`](Self::sync) and are gone past their
/// `lifetime` whatever their use. Event ids are the store's own strings; one the store did
/// not make finds nothing. The behaviour every implementation must have is checked by
/// [`suite::sessions`](super::suite::sessions).
///
/// Every method fails with [`Unavailable`] when the store cannot answer (the client then
/// gets `503`, and nothing is half-made).
pub trait SessionStore: Send + Sync + 'static {
    /// Records a session just opened (replacing any of that id).
    fn create(
        &self,
        id: &str,
        record: SessionRecord,
        idle: Duration,
        lifetime: Duration,
    ) -> BoxFuture<'static, Result<(), Unavailable>>;

    /// Renews session `id` and reads its state changes from index `applied` on (and the
    /// record when `whole`); `None` when it is gone (ended, idle too long, past its
    /// lifetime).
    fn sync(
        &self,
        id: &str,
        applied: usize,
        idle: Duration,
        whole: bool,
    ) -> BoxFuture<'static, Result<Option<SessionSync>, Unavailable>>;

    /// Appends a state change of session `id` (nothing when it is gone; past
    /// [`MAX_SESSION_CHANGES`] or [`MAX_SESSION_CHANGE_BYTES`] it is not kept, with a
    /// warning).
    fn record_change(
        &self,
        id: &str,
        change: String,
        idle: Duration,
    ) -> BoxFuture<'static, Result<(), Unavailable>>;

    /// Keeps a message sent on session `id`'s GET stream (at most [`MAX_EVENTS`], none
    /// older than [`MAX_EVENT_AGE`]); returns its event id.
    fn append_event(
        &self,
        id: &str,
        message: Vec<u8>,
    ) -> BoxFuture<'static, Result<String, Unavailable>>;

    /// The messages of session `id`'s GET stream after event `last`, oldest first, with
    /// their event ids; none when `last` is not an event id of this store.
    fn events_after(
        &self,
        id: &str,
        last: &str,
    ) -> BoxFuture<'static, Result<Vec<StreamEvent>, Unavailable>>;

    /// Ends session `id`: its record, changes and events go.
    fn forget(&self, id: &str) -> BoxFuture<'static, Result<(), Unavailable>>;
}

#[derive(Debug)]
struct Held {
    record: SessionRecord,
    changes: Vec<String>,
    change_bytes: usize,
    idle_until: Instant,
    end: Instant,
}

#[derive(Debug, Default)]
struct Events {
    next: u64,
    kept: VecDeque<(u64, Instant, Vec<u8>)>,
}

#[derive(Debug, Default)]
struct Sessions {
    held: HashMap<String, Held>,
    events: HashMap<String, Events>,
}

/// Sessions in this process, for instances sharing one process (and tests). Expired
/// sessions are dropped when met and swept as new ones are made.
#[derive(Debug, Default)]
pub struct MemorySessions {
    inner: Mutex<Sessions>,
}

impl MemorySessions {
    /// No sessions yet.
    pub fn new() -> Self {
        Self::default()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Sessions> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Session `id` if it is live now (a dead one is dropped).
    fn live<'a>(sessions: &'a mut Sessions, id: &str, now: Instant) -> Option<&'a mut Held> {
        let dead = sessions
            .held
            .get(id)
            .is_some_and(|h| now >= h.idle_until || now >= h.end);
        if dead {
            sessions.held.remove(id);
            return None;
        }
        sessions.held.get_mut(id)
    }
}

fn ready<T: Send + 'static>(value: T) -> BoxFuture<'static, T> {
    Box::pin(std::future::ready(value))
}

impl SessionStore for MemorySessions {
    fn create(
        &self,
        id: &str,
        record: SessionRecord,
        idle: Duration,
        lifetime: Duration,
    ) -> BoxFuture<'static, Result<(), Unavailable>> {
        let now = Instant::now();
        let mut sessions = self.lock();
        sessions
            .held
            .retain(|_, h| now < h.idle_until && now < h.end);
        let held = &mut sessions.held;
        held.insert(
            id.to_owned(),
            Held {
                record,
                changes: Vec::new(),
                change_bytes: 0,
                idle_until: now + idle,
                end: now + lifetime,
            },
        );
        let live: std::collections::HashSet<String> = held.keys().cloned().collect();
        sessions.events.retain(|id, _| live.contains(id));
        ready(Ok(()))
    }

    fn sync(
        &self,
        id: &str,
        applied: usize,
        idle: Duration,
        whole: bool,
    ) -> BoxFuture<'static, Result<Option<SessionSync>, Unavailable>> {
        let now = Instant::now();
        let mut sessions = self.lock();
        let found = Self::live(&mut sessions, id, now).map(|held| {
            held.idle_until = now + idle;
            SessionSync {
                record: whole.then(|| held.record.clone()),
                changes: held.changes.get(applied..).unwrap_or_default().to_vec(),
            }
        });
        ready(Ok(found))
    }

    fn record_change(
        &self,
        id: &str,
        change: String,
        idle: Duration,
    ) -> BoxFuture<'static, Result<(), Unavailable>> {
        let now = Instant::now();
        let mut sessions = self.lock();
        if let Some(held) = Self::live(&mut sessions, id, now) {
            if held.changes.len() >= MAX_SESSION_CHANGES
                || held.change_bytes + change.len() > MAX_SESSION_CHANGE_BYTES
            {
                tracing::warn!(
                    target: crate::targets::REDIS_TARGET,
                    session = id,
                    "a legacy session changed its state more than {MAX_SESSION_CHANGES} times or \
                     by more than {MAX_SESSION_CHANGE_BYTES} bytes; later changes are not shared"
                );
            } else {
                held.change_bytes += change.len();
                held.changes.push(change);
                held.idle_until = now + idle;
            }
        }
        ready(Ok(()))
    }

    fn append_event(
        &self,
        id: &str,
        message: Vec<u8>,
    ) -> BoxFuture<'static, Result<String, Unavailable>> {
        let now = Instant::now();
        let mut sessions = self.lock();
        let events = sessions.events.entry(id.to_owned()).or_default();
        events.next += 1;
        let event = events.next;
        events.kept.push_back((event, now, message));
        while events.kept.len() > MAX_EVENTS
            || events
                .kept
                .front()
                .is_some_and(|(_, at, _)| now.duration_since(*at) > MAX_EVENT_AGE)
        {
            events.kept.pop_front();
        }
        ready(Ok(event.to_string()))
    }

    fn events_after(
        &self,
        id: &str,
        last: &str,
    ) -> BoxFuture<'static, Result<Vec<StreamEvent>, Unavailable>> {
        let now = Instant::now();
        let Ok(last) = last.parse::<u64>() else {
            return ready(Ok(Vec::new()));
        };
        let sessions = self.lock();
        let after = sessions.events.get(id).map_or_else(Vec::new, |events| {
            events
                .kept
                .iter()
                .filter(|(event, at, _)| *event > last && now.duration_since(*at) <= MAX_EVENT_AGE)
                .map(|(event, _, message)| (event.to_string(), message.clone()))
                .collect()
        });
        ready(Ok(after))
    }

    fn forget(&self, id: &str) -> BoxFuture<'static, Result<(), Unavailable>> {
        let mut sessions = self.lock();
        sessions.held.remove(id);
        sessions.events.remove(id);
        ready(Ok(()))
    }
}
