//! Log messages to the client (`notifications/message`, spec `primitives.md` §6), from
//! [`RequestContext::log`] and, through [`ClientLogLayer`], from `tracing` events.
//!
//! Who gets what:
//! - **Legacy sessions**: messages at or above the level the client chose with
//!   `logging/setLevel` (before it chooses, `info` and above), on stdio or the request's
//!   HTTP stream.
//! - **Modern requests**: only when the request carries
//!   `_meta["io.modelcontextprotocol/logLevel"]`, at or above it, on that request's own
//!   stream before its answer. Without it, nothing (the spec's MUST NOT).
//! - A server built with [`ServerBuilder::logging(false)`](crate::ServerBuilder::logging)
//!   does not declare `logging` and sends none.

use crate::context::RequestContext;
use crate::protocol::LoggingLevel;
use crate::protocol::jsonrpc::encode_notification;
use crate::protocol::methods;
use serde::Serialize;
use serde_json::{Map, Value, json};
use std::cell::RefCell;
use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use tracing::field::{Field, Visit};
use tracing_subscriber::layer::Context as LayerContext;

impl RequestContext {
    /// Sends a log message about this request to the client, if it wants messages of
    /// `level` (see the module docs for who gets what). `data` is any JSON (a string, or an
    /// object of details). Returns whether it was sent.
    pub async fn log(&self, level: LoggingLevel, data: impl Serialize) -> bool {
        self.log_as(level, None, data).await
    }

    /// [`log`](Self::log) naming the part of the server that logs (`logger`).
    pub async fn log_as(
        &self,
        level: LoggingLevel,
        logger: Option<&str>,
        data: impl Serialize,
    ) -> bool {
        match self.log_line(level, logger, data) {
            Some((peer, line)) => peer.send_line(line).await,
            None => false,
        }
    }

    /// The least severe level the client wants for this request, or `None` when it wants
    /// no log messages.
    pub fn log_level(&self) -> Option<LoggingLevel> {
        self.log_threshold()
    }

    fn log_line(
        &self,
        level: LoggingLevel,
        logger: Option<&str>,
        data: impl Serialize,
    ) -> Option<(crate::context::Peer, Vec<u8>)> {
        let threshold = self.log_threshold()?;
        if level < threshold || self.is_finished() {
            return None;
        }
        let peer = self.peer()?.clone();
        let data = serde_json::to_value(data).unwrap_or(Value::Null);
        let mut params = json!({ "level": level, "data": data });
        if let Some(logger) = logger {
            params["logger"] = logger.into();
        }
        Some((
            peer,
            encode_notification(methods::MESSAGE.name, Some(params)),
        ))
    }
}

/// Forwards `tracing` events emitted while a request's handler runs to that request's
/// client as `notifications/message` (with the event's target as `logger`, its message
/// and fields as `data`), under the same rules as [`RequestContext::log`]. Add it to your
/// subscriber; events outside a handler are not forwarded, and a full outbound queue drops
/// a message rather than wait.
///
/// ```
/// use tracing_subscriber::layer::SubscriberExt as _;
///
/// let subscriber = tracing_subscriber::registry().with(mcp_runtime::input::ClientLogLayer::new());
/// # let _ = subscriber;
/// ```
#[derive(Debug, Clone, Default)]
pub struct ClientLogLayer {
    _private: (),
}

/// Whether any [`ClientLogLayer`] exists: the handler futures only publish their context
/// for it when one does, so a server without the bridge pays nothing.
static BRIDGED: AtomicBool = AtomicBool::new(false);

thread_local! {
    static CURRENT: RefCell<Option<RequestContext>> = const { RefCell::new(None) };
}

impl ClientLogLayer {
    /// The bridge.
    pub fn new() -> Self {
        BRIDGED.store(true, Ordering::Relaxed);
        Self { _private: () }
    }
}

/// Runs `poll` with `cx` as the request whose handler is running on this thread, when the
/// bridge is installed.
pub(crate) fn with_current<R>(cx: &RequestContext, poll: impl FnOnce() -> R) -> R {
    if !BRIDGED.load(Ordering::Relaxed) || cx.log_threshold().is_none() {
        return poll();
    }
    let previous = CURRENT.with(|c| c.replace(Some(cx.clone())));
    struct Restore(Option<RequestContext>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let previous = self.0.take();
            CURRENT.with(|c| *c.borrow_mut() = previous);
        }
    }
    let _restore = Restore(previous);
    poll()
}

fn level_of(level: &tracing::Level) -> LoggingLevel {
    match *level {
        tracing::Level::ERROR => LoggingLevel::Error,
        tracing::Level::WARN => LoggingLevel::Warning,
        tracing::Level::INFO => LoggingLevel::Info,
        _ => LoggingLevel::Debug,
    }
}

struct Fields(Map<String, Value>);

impl Visit for Fields {
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().to_owned(), value.into());
    }
    fn record_i64(&mut self, field: &Field, value: i64) {
        self.0.insert(field.name().to_owned(), value.into());
    }
    fn record_u64(&mut self, field: &Field, value: u64) {
        self.0.insert(field.name().to_owned(), value.into());
    }
    fn record_f64(&mut self, field: &Field, value: f64) {
        self.0.insert(field.name().to_owned(), value.into());
    }
    fn record_bool(&mut self, field: &Field, value: bool) {
        self.0.insert(field.name().to_owned(), value.into());
    }
    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        self.0
            .insert(field.name().to_owned(), format!("{value:?}").into());
    }
}

impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for ClientLogLayer {
    fn on_event(&self, event: &tracing::Event<'_>, _: LayerContext<'_, S>) {
        let Some(cx) = CURRENT.with(|c| c.borrow().clone()) else {
            return;
        };
        let meta = event.metadata();
        let mut fields = Fields(Map::new());
        event.record(&mut fields);
        let data = match fields.0.len() {
            1 if fields.0.contains_key("message") => fields.0.remove("message").unwrap_or_default(),
            _ => Value::Object(fields.0),
        };
        if let Some((peer, line)) = cx.log_line(level_of(meta.level()), Some(meta.target()), data) {
            peer.try_send_line(line);
        }
    }
}
