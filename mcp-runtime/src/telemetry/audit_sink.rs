//! [`AuditSink`]: the audit trail as lines, formatted cheaply on the request's thread and
//! written by a thread of its own.
//!
//! Every request a server answers produces one [`AUDIT_TARGET`] event, so the trail is on the
//! hot path of every call. `tracing_subscriber::fmt` formats each field through `core::fmt`
//! (about 9,000 instructions for one audit line) and writes it with one `write` per line on
//! the request's thread. This sink:
//!
//! - **formats without `core::fmt`** wherever a field allows: text, integers (`itoa`), floats
//!   (`ryu`) and the timestamp are appended as bytes into a buffer the thread reuses; only
//!   `%`-formatted (`Display`) fields go through `core::fmt`;
//! - **writes off the request path**: lines are appended to one shared buffer; a writer thread
//!   takes the whole buffer at once and writes it with one `write`, after lingering
//!   [`LINGER`] so that lines arriving together share it. `tracing-appender`'s `NonBlocking`
//!   does the same job with a channel of one `Vec` per line written line by line; one buffer
//!   swapped whole allocates nothing per event and batches by construction, which is why it is
//!   not used here;
//! - **blocks under back-pressure, never drops**: the audit trail is a security record, so when
//!   the buffer holds [`AuditSink::capacity`] bytes (a writer stuck on a full pipe), the
//!   requests that want to add a line wait for room, as they would on a blocking `write`. The
//!   memory it takes is bounded by that capacity;
//! - **loses nothing at exit**: `launch::init_tracing` returns a `LogGuard` that `main`
//!   keeps; dropping it when `main` returns writes
//!   what is pending, and lines logged after that are written at once by whoever logs them.
//!   `launch::Launcher` does this itself. A process that ends without dropping it
//!   (`std::process::exit`, a signal) loses what was not yet written: at most one linger's
//!   worth, since the writer never waits longer.
//!
//! The line has the shape of `tracing_subscriber::fmt`'s default format: an RFC 3339
//! timestamp in UTC with microseconds, the level, the target, the message, then the fields
//! as `name=value`, quoted as logfmt does: a text value made only of letters, digits and
//! `-_.:/@+` as it is (`method=tools/call outcome=ok`), any other quoted and escaped as Rust's
//! `Debug` does (`target="two words"`); `%` fields as they display. Spans are not printed:
//! the audit event carries its own fields.
//!
//! ```text
//! 2026-11-26T19:20:00.123456Z  INFO mcp::audit: request id=7 era=modern method=tools/call target=echo caller=connection duration_ms=0.021 outcome=ok
//! ```

use crate::protocol::RequestId;
use crate::targets::AUDIT_TARGET;
use std::cell::{Cell, RefCell};
use std::fmt;
use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError, Weak};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};
use tracing::field::{Field, Visit};
use tracing::{Event, Level, Subscriber};
use tracing_subscriber::layer::{Context, Layer};

/// How long the writer thread waits after the first line of a batch for more lines to join
/// it. An audit line reaches its file at most this much later than it would written at once.
pub const LINGER: Duration = Duration::from_millis(2);

/// How long [`AuditSink::flush`] waits for a batch being written by the writer thread.
const FLUSH_WAIT: Duration = Duration::from_secs(2);

/// The default [`AuditSink::capacity`]: 1 MiB, about 5,000 audit lines.
pub const DEFAULT_CAPACITY: usize = 1 << 20;

/// A `tracing` [`Layer`] that writes the events on [`AUDIT_TARGET`] (every level) as lines to
/// a writer, off the request path (see the module's docs for how and why). Events on
/// other targets are left to the subscriber's other layers.
///
/// `launch::init_tracing` installs one writing to stderr. To keep the audit
/// trail in a file instead:
///
/// ```no_run
/// use mcp_runtime::telemetry::AuditSink;
/// use tracing_subscriber::{filter::Targets, fmt, prelude::*};
///
/// let file = std::fs::File::options().append(true).create(true).open("audit.log")?;
/// tracing_subscriber::registry()
///     .with(fmt::layer().with_writer(std::io::stderr).with_filter(Targets::new().with_default(tracing::Level::WARN)))
///     .with(AuditSink::new(file).with_filter(Targets::new().with_target("mcp::audit", tracing::Level::INFO)))
///     .init();
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Clone)]
pub struct AuditSink {
    shared: Arc<Shared>,
}

impl fmt::Debug for AuditSink {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AuditSink")
            .field("capacity", &self.shared.capacity)
            .field("failed_lines", &self.failed_lines())
            .finish_non_exhaustive()
    }
}

/// What the request threads, the writer thread and [`AuditSink::flush`] share.
struct Shared {
    state: Mutex<State>,
    /// The writer thread waits here for lines.
    wake: Condvar,
    /// Lines waiting for room, and flushes waiting for a batch to be written, wait here.
    room: Condvar,
    /// Where the lines go; held only while writing.
    out: Mutex<Box<dyn Write + Send>>,
    capacity: usize,
    /// Lines whose write failed.
    failed: AtomicU64,
    /// The sink is the only consumer of audit events in its subscriber (see
    /// [`AuditSink::exclusive`]).
    exclusive: AtomicBool,
}

struct State {
    /// Lines not yet taken by a writer.
    pending: Vec<u8>,
    /// The writer thread waits on `wake` with nothing to do: the next line must wake it.
    idle: bool,
    /// A batch is being written outside the lock.
    writing: bool,
    /// No writer thread (the process is exiting, or the thread could not start): each line is
    /// written by the thread that formats it.
    direct: bool,
    /// The writer thread was started (or could not be).
    started: bool,
}

impl AuditSink {
    /// A sink writing to `out`. Its writer thread starts with the first line.
    pub fn new(out: impl Write + Send + 'static) -> Self {
        Self::with_capacity(out, DEFAULT_CAPACITY)
    }

    /// A sink writing to stderr.
    pub fn stderr() -> Self {
        Self::new(io::stderr())
    }

    /// A sink that holds at most `capacity` bytes of lines not yet written (at least one line
    /// always fits): past it, the threads adding lines wait for the writer.
    pub fn with_capacity(out: impl Write + Send + 'static, capacity: usize) -> Self {
        let shared = Arc::new(Shared {
            state: Mutex::new(State {
                pending: Vec::new(),
                idle: false,
                writing: false,
                direct: false,
                started: false,
            }),
            wake: Condvar::new(),
            room: Condvar::new(),
            out: Mutex::new(Box::new(out)),
            capacity,
            failed: AtomicU64::new(0),
            exclusive: AtomicBool::new(false),
        });
        Self { shared }
    }

    /// Starts the writer thread, at the first line rather than at start-up: a server that
    /// answers its first request sooner (cold start is measured to the first answer). If the
    /// thread cannot start, lines are written by whoever logs them.
    fn start_writer(shared: &Arc<Shared>, state: &mut State) {
        state.started = true;
        let worker = Arc::downgrade(shared);
        let started = std::thread::Builder::new()
            .name("mcp-audit".into())
            .spawn(move || write_batches(&worker));
        if started.is_err() {
            state.direct = true;
        }
    }

    /// The most bytes of lines held before they are written.
    pub fn capacity(&self) -> usize {
        self.shared.capacity
    }

    /// Lines lost because writing them failed (a closed stderr, a full disk). Lines are never
    /// dropped for lack of room: adding one waits instead.
    pub fn failed_lines(&self) -> u64 {
        self.shared.failed.load(Ordering::Relaxed)
    }

    /// Writes every line added so far, waiting up to two seconds for a batch the writer
    /// thread is writing; then flushes the writer.
    pub fn flush(&self) {
        self.shared.flush(false);
    }

    /// Writes every line added so far, stops the writer thread, and from then on has each
    /// line written by the thread that logs it (slower, but nothing is left pending). For the
    /// end of a program: `launch::LogGuard` calls it when dropped.
    pub fn finish(&self) {
        self.shared.flush(true);
    }

    /// Marks this sink as the only consumer of [`AUDIT_TARGET`] events in the subscriber it
    /// is installed in, as `launch::init_tracing` installs it: then the
    /// [`Audit`](crate::pipeline::Audit) layer hands it each request's record directly, without a
    /// `tracing` event (the same line, for about a third of the instructions: no field
    /// visits, no dispatch through the other layers). Set it only when no other layer of the
    /// subscriber should see the requests' audit events.
    pub fn exclusive(self) -> Self {
        self.shared.exclusive.store(true, Ordering::Relaxed);
        self
    }

    /// Whether [`exclusive`](Self::exclusive) was set.
    pub(crate) fn is_exclusive(&self) -> bool {
        self.shared.exclusive.load(Ordering::Relaxed)
    }

    /// Writes a request's audit line straight from its record: the line the `tracing` event
    /// of [`Audit`](super::Audit) would have produced (`tests.rs` checks they are equal).
    pub(crate) fn push_request(&self, record: &RequestLine<'_>) {
        let format = |line: &mut Vec<u8>| {
            line.clear();
            push_timestamp(line, SystemTime::now());
            line.extend_from_slice(b"  INFO ");
            line.extend_from_slice(AUDIT_TARGET.as_bytes());
            line.extend_from_slice(b": request id=");
            match record.id {
                RequestId::Number(id) => {
                    line.extend_from_slice(itoa::Buffer::new().format(*id).as_bytes());
                }
                RequestId::String(id) => push_text(line, id),
            }
            push_field(line, b" era=", record.era);
            push_field(line, b" method=", record.method);
            push_field(line, b" target=", record.target);
            push_field(line, b" caller=", record.caller);
            line.extend_from_slice(b" duration_ms=");
            push_f64(line, record.duration_ms);
            push_field(line, b" outcome=", record.outcome);
            if record.cached {
                line.extend_from_slice(b" cached=true");
            }
            if let Some(task) = record.task {
                line.extend_from_slice(b" task=");
                push_text(line, task);
            }
            if let Some(arguments) = record.arguments {
                line.extend_from_slice(b" arguments=");
                push_text(line, arguments);
            }
            if let Some(trace_id) = record.trace_id {
                push_field(line, b" trace_id=", trace_id);
            }
            line.push(b'\n');
            self.push(line);
        };
        LINE.with(|line| match line.try_borrow_mut() {
            Ok(mut line) => format(&mut line),
            Err(_) => format(&mut Vec::new()),
        });
    }

    /// Adds one formatted line (ending in `\n`).
    fn push(&self, line: &[u8]) {
        let shared = &*self.shared;
        let mut state = shared.lock();
        if !state.started {
            Self::start_writer(&self.shared, &mut state);
        }
        if state.direct {
            drop(state);
            shared.write(line);
            return;
        }
        while !state.pending.is_empty() && state.pending.len() + line.len() > shared.capacity {
            if state.idle {
                state.idle = false;
                shared.wake.notify_one();
            }
            state = shared
                .room
                .wait(state)
                .unwrap_or_else(PoisonError::into_inner);
            if state.direct {
                drop(state);
                shared.write(line);
                return;
            }
        }
        let was_below_half = state.pending.len() < shared.capacity / 2;
        state.pending.extend_from_slice(line);
        // The writer is woken by the first line of a batch, and again when the batch passes
        // half the capacity (to cut its linger short); other lines only join the batch.
        let wake = state.idle || (was_below_half && state.pending.len() >= shared.capacity / 2);
        state.idle = false;
        drop(state);
        if wake {
            shared.wake.notify_one();
        }
    }
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Writes `bytes` (whole lines) and flushes, counting the lines lost if that fails.
    fn write(&self, bytes: &[u8]) {
        let mut out = self.out.lock().unwrap_or_else(PoisonError::into_inner);
        if out.write_all(bytes).and_then(|()| out.flush()).is_err() {
            let lines = memchr::memchr_iter(b'\n', bytes).count() as u64;
            self.failed.fetch_add(lines, Ordering::Relaxed);
        }
    }

    /// Writes what is pending from this thread; with `last`, later lines are written directly
    /// by whoever adds them.
    fn flush(&self, last: bool) {
        let deadline = Instant::now() + FLUSH_WAIT;
        let mut state = self.lock();
        while state.writing {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            state = self
                .room
                .wait_timeout(state, left)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
        if state.writing {
            // The writer is stuck (a full pipe nobody reads): writing too would hang here.
            return;
        }
        if last {
            state.direct = true;
        }
        let batch = std::mem::take(&mut state.pending);
        state.writing = true;
        drop(state);
        if !batch.is_empty() {
            self.write(&batch);
        }
        self.lock().writing = false;
        self.room.notify_all();
        self.wake.notify_one();
    }
}

/// The writer thread: takes the pending lines as one batch, writes them, and waits for more.
/// Ends when the sink is gone or has gone direct.
fn write_batches(shared: &Weak<Shared>) {
    let mut batch = Vec::new();
    loop {
        let Some(shared) = shared.upgrade() else {
            return;
        };
        let mut state = shared.lock();
        while state.pending.is_empty() || state.writing {
            if state.direct || Arc::strong_count(&shared) == 1 {
                return;
            }
            state.idle = !state.writing;
            // Waking up now and then notices a sink that was dropped while idle.
            state = shared
                .wake
                .wait_timeout(state, Duration::from_secs(1))
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
        state.idle = false;
        if state.pending.len() < shared.capacity / 2 {
            state = shared
                .wake
                .wait_timeout(state, LINGER)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
        if state.direct || state.writing {
            continue;
        }
        std::mem::swap(&mut batch, &mut state.pending);
        state.writing = true;
        drop(state);
        shared.write(&batch);
        batch.clear();
        if batch.capacity() > shared.capacity {
            batch = Vec::new();
        }
        shared.lock().writing = false;
        shared.room.notify_all();
    }
}

/// A finished request as [`Audit`](super::Audit) records it: the fields of its event.
pub(crate) struct RequestLine<'a> {
    pub(crate) id: &'a RequestId,
    pub(crate) era: &'static str,
    pub(crate) method: &'static str,
    pub(crate) target: &'a str,
    pub(crate) caller: &'a str,
    pub(crate) duration_ms: f64,
    pub(crate) outcome: &'static str,
    pub(crate) cached: bool,
    pub(crate) task: Option<&'a str>,
    pub(crate) arguments: Option<&'a str>,
    pub(crate) trace_id: Option<&'a str>,
}

thread_local! {
    /// Each thread formats its lines here, so a line costs no allocation.
    static LINE: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

impl<S: Subscriber> Layer<S> for AuditSink {
    fn on_event(&self, event: &Event<'_>, _: Context<'_, S>) {
        let metadata = event.metadata();
        if metadata.target() != AUDIT_TARGET {
            return;
        }
        let format = |line: &mut Vec<u8>| {
            line.clear();
            format_line(line, SystemTime::now(), *metadata.level(), event);
            self.push(line);
        };
        // A `Display` field that itself logs an audit event finds the buffer borrowed: it
        // gets a buffer of its own.
        LINE.with(|line| match line.try_borrow_mut() {
            Ok(mut line) => format(&mut line),
            Err(_) => format(&mut Vec::new()),
        });
    }
}

thread_local! {
    /// The second [`push_timestamp`] last formatted on this thread, and its text up to the
    /// fraction (`2026-11-26T19:20:00.`).
    static SECOND: Cell<(u64, [u8; 20])> = const { Cell::new((u64::MAX, [0; 20])) };
}

/// Appends `now` as RFC 3339 in UTC with microseconds (`2026-11-26T19:20:00.123456Z`). The
/// date and time of day are formatted once per second (by `humantime`), the fraction here.
fn push_timestamp(line: &mut Vec<u8>, now: SystemTime) {
    let since_epoch = now.duration_since(UNIX_EPOCH).unwrap_or_default();
    let seconds = since_epoch.as_secs();
    let (cached, mut prefix) = SECOND.get();
    if cached != seconds {
        let text = humantime::format_rfc3339_seconds(now).to_string();
        prefix[..19].copy_from_slice(&text.as_bytes()[..19]);
        prefix[19] = b'.';
        SECOND.set((seconds, prefix));
    }
    line.extend_from_slice(&prefix);
    let mut micros = since_epoch.subsec_micros();
    let mut fraction = *b"000000Z";
    for digit in fraction[..6].iter_mut().rev() {
        *digit = b'0' + (micros % 10) as u8;
        micros /= 10;
    }
    line.extend_from_slice(&fraction);
}

/// Whether a text value is written as it is: non-empty, and only letters, digits and
/// `-_.:/@+` (an id, a method, a tool name, an outcome). Others are quoted and escaped.
fn plain(value: &str) -> bool {
    !value.is_empty()
        && value
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_.:/@+".contains(&b))
}

/// Appends a text value: as it is when [`plain`], else quoted and escaped as `Debug` does.
fn push_text(line: &mut Vec<u8>, value: &str) {
    if plain(value) {
        line.extend_from_slice(value.as_bytes());
    } else {
        let _infallible = write!(line, "{value:?}");
    }
}

/// Appends ` name=` (given with its space and `=`) and a text value.
fn push_field(line: &mut Vec<u8>, name: &[u8], value: &str) {
    line.extend_from_slice(name);
    push_text(line, value);
}

/// Appends a float as `Debug` shows it (`ryu` for finite values).
fn push_f64(line: &mut Vec<u8>, value: f64) {
    if value.is_finite() {
        line.extend_from_slice(ryu::Buffer::new().format_finite(value).as_bytes());
    } else {
        let _infallible = write!(line, "{value:?}");
    }
}

/// Formats one event as a line ending in `\n`.
fn format_line(line: &mut Vec<u8>, now: SystemTime, level: Level, event: &Event<'_>) {
    push_timestamp(line, now);
    line.extend_from_slice(match level {
        Level::TRACE => b" TRACE ",
        Level::DEBUG => b" DEBUG ",
        Level::INFO => b"  INFO ",
        Level::WARN => b"  WARN ",
        Level::ERROR => b" ERROR ",
    });
    line.extend_from_slice(event.metadata().target().as_bytes());
    line.extend_from_slice(b":");
    event.record(&mut Fields { line });
    line.push(b'\n');
}

/// Appends an event's fields: the message as it is, the others as ` name=value`.
struct Fields<'a> {
    line: &'a mut Vec<u8>,
}

impl Fields<'_> {
    fn name(&mut self, field: &Field) {
        self.line.push(b' ');
        if field.name() != "message" {
            self.line.extend_from_slice(field.name().as_bytes());
            self.line.push(b'=');
        }
    }
}

impl Visit for Fields<'_> {
    fn record_str(&mut self, field: &Field, value: &str) {
        self.name(field);
        if field.name() == "message" {
            self.line.extend_from_slice(value.as_bytes());
        } else {
            push_text(self.line, value);
        }
    }

    fn record_f64(&mut self, field: &Field, value: f64) {
        self.name(field);
        push_f64(self.line, value);
    }

    fn record_i64(&mut self, field: &Field, value: i64) {
        self.name(field);
        self.line
            .extend_from_slice(itoa::Buffer::new().format(value).as_bytes());
    }

    fn record_u64(&mut self, field: &Field, value: u64) {
        self.name(field);
        self.line
            .extend_from_slice(itoa::Buffer::new().format(value).as_bytes());
    }

    fn record_bool(&mut self, field: &Field, value: bool) {
        self.name(field);
        self.line
            .extend_from_slice(if value { b"true" } else { b"false" });
    }

    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        self.name(field);
        let _infallible = write!(self.line, "{value:?}");
    }
}

#[cfg(test)]
mod tests;
