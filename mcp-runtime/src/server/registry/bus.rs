//! What one instance of a server tells the others sharing its state ([`SharedEvent`]), and
//! the seam it travels through ([`EventBus`]): list and resource changes raised by the
//! registry, task signals, and what the HTTP transport passes between instances about its
//! legacy sessions.
//!
//! It sits with the registry because the registry's change feed is its first user; the
//! server's [`sharing`](crate::server::sharing) installs an implementation and re-exports
//! these.

use super::Primitive;
use std::sync::Arc;
use tokio::sync::broadcast;

/// What one instance tells the others.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SharedEvent {
    /// A primitive's list changed (`notifications/{primitive}/list_changed`).
    ListChanged(Primitive),
    /// A resource's contents changed (`notifications/resources/updated`).
    ResourceUpdated(Arc<str>),
    /// A task was cancelled: the instance running it stops it.
    TaskCancelled(String),
    /// Answers for a task arrived (`tasks/update`): the instance running it wakes it.
    TaskAnswered(String),
    /// A legacy session ended (`DELETE`): the instances holding it drop it.
    SessionClosed(String),
    /// A client's answer to a request of ours reached an instance where nobody waits for
    /// it: the instance whose call asked takes it.
    Answer {
        /// The legacy session it came on (`""`: none, the stateless endpoint).
        session: String,
        /// The JSON-RPC response as the client sent it.
        message: String,
    },
}

/// How the instances of a server tell each other what happened: publish to all the others,
/// hear what the others publish.
///
/// Delivery may be best effort (Redis pub/sub's is): a lost list change is made up by the
/// client's next list request, a lost task cancellation reaches the worker through the task
/// store. The behaviour every implementation must have is checked by
/// [`sharing::suite`](crate::server::sharing::suite).
pub trait EventBus: Send + Sync + 'static {
    /// Tells every other instance (never this one). Must not block: an implementation
    /// queues, and drops with a warning when it cannot keep up.
    fn publish(&self, event: SharedEvent);

    /// Every event the other instances publish from now on.
    fn subscribe(&self) -> broadcast::Receiver<SharedEvent>;
}
