//! Many instances of one server sharing their state, so that any request can land on any
//! instance behind a plain load balancer: the seams, and the one call that installs them
//! ([`Server::share_through`]).
//!
//! One instance needs none of this: every default is in this process, and a server that
//! shares nothing pays nothing for the seams (no future is boxed, no store is asked). What
//! instances share, each behind one trait in the layer that uses it:
//!
//! | concern | trait | used by | in memory |
//! | --- | --- | --- | --- |
//! | spent `requestState` nonces | [`SpentNonces`] | the input channel (`context`) | [`MemoryNonces`](crate::context::MemoryNonces) |
//! | list, resource and task changes, answers passed on | [`EventBus`] | the registry, tasks, the HTTP transport | [`MemoryFleet`]'s bus |
//! | rate-limit budgets | [`RateBudgets`] | the pipeline | [`MemoryRateBudgets`](crate::pipeline::MemoryRateBudgets) |
//! | tools' cached results (optional) | [`SharedResults`] | the pipeline | [`MemoryResults`](crate::pipeline::MemoryResults) |
//! | legacy sessions and their event streams | [`SessionStore`] | the HTTP transport | [`MemorySessions`] |
//! | tasks | [`TaskStore`] | tasks | [`MemoryTaskStore`](crate::task::MemoryTaskStore) |
//!
//! A [`Sharing`] bundles one of each. Redis's is `shared::RedisState` (the `redis`
//! feature), which converts into one; [`MemoryFleet`] makes one per instance for instances
//! in one process (and for tests of a fleet without Redis). Every implementation is held to
//! the same behaviour by [`suite`], which the memory implementations run in this crate's
//! tests and Redis's against a real Redis.
//!
//! ```
//! use mcp_runtime::prelude::*;
//! use mcp_runtime::server::sharing::MemoryFleet;
//!
//! # #[tokio::main(flavor = "current_thread")] async fn main() {
//! let fleet = MemoryFleet::new();
//! let one = Server::builder("demo", "1.0.0").share_through(fleet.instance()).build().unwrap();
//! let two = Server::builder("demo", "1.0.0").share_through(fleet.instance()).build().unwrap();
//! # let _ = (one, two); }
//! ```

mod memory;
mod sessions;
pub mod suite;

pub use super::registry::bus::{EventBus, SharedEvent};
pub use memory::MemoryFleet;
pub use sessions::{
    MAX_EVENT_AGE, MAX_EVENTS, MAX_INIT_BYTES, MAX_SESSION_CHANGE_BYTES, MAX_SESSION_CHANGES,
    MemorySessions, SessionRecord, SessionStore, SessionSync, StreamEvent,
};

use super::{Primitive, Server};
use crate::context::SpentNonces;
use crate::input::RequestStateKeys;
use crate::pipeline::{FleetPipeline, RateBudgets, SharedResults};
use crate::task::{TaskSignal, TaskStore};
use std::fmt;
use std::sync::Arc;

/// What a server shares with its other instances: one implementation of each seam, and the
/// requestState keys they all sign with. Made by a backend (`shared::RedisState` converts
/// into one, [`MemoryFleet::instance`] makes one) or by hand from [`Sharing::new`].
#[derive(Clone)]
pub struct Sharing {
    nonces: Arc<dyn SpentNonces>,
    bus: Arc<dyn EventBus>,
    tasks: Arc<dyn TaskStore>,
    sessions: Arc<dyn SessionStore>,
    budgets: Option<Arc<dyn RateBudgets>>,
    results: Option<Arc<dyn SharedResults>>,
    keys: Option<RequestStateKeys>,
    runtime: Option<tokio::runtime::Handle>,
}

impl fmt::Debug for Sharing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sharing")
            .field("rate_budgets", &self.budgets.is_some())
            .field("results", &self.results.is_some())
            .field("request_state_keys", &self.keys.is_some())
            .finish_non_exhaustive()
    }
}

impl Sharing {
    /// The spent-nonce store (DPoP proofs' `jti`s use it too).
    #[cfg_attr(not(all(feature = "oauth", feature = "launch")), allow(dead_code))]
    pub(crate) fn spent_nonces(&self) -> Arc<dyn SpentNonces> {
        self.nonces.clone()
    }

    /// Spent nonces, events, tasks and legacy sessions shared through these; rate limits
    /// and cached results stay per instance until [`rate_budgets`](Self::rate_budgets) and
    /// [`results`](Self::results) say otherwise.
    pub fn new(
        nonces: Arc<dyn SpentNonces>,
        bus: Arc<dyn EventBus>,
        tasks: Arc<dyn TaskStore>,
        sessions: Arc<dyn SessionStore>,
    ) -> Self {
        Self {
            nonces,
            bus,
            tasks,
            sessions,
            budgets: None,
            results: None,
            keys: None,
            runtime: None,
        }
    }

    /// Rate limits are one budget across the instances.
    pub fn rate_budgets(mut self, budgets: Arc<dyn RateBudgets>) -> Self {
        self.budgets = Some(budgets);
        self
    }

    /// Tools' cached results are shared by the instances too: a result computed on one
    /// answers the same call (same tool, caller and arguments) on any other until it expires.
    pub fn results(mut self, results: Arc<dyn SharedResults>) -> Self {
        self.results = Some(results);
        self
    }

    /// The requestState keys every instance signs with, unless the server's own are
    /// configured ([`ServerBuilder::request_state_keys`](crate::ServerBuilder::request_state_keys)):
    /// a round of an `input_required` call may come back to any instance.
    pub fn request_state_keys(mut self, keys: RequestStateKeys) -> Self {
        self.keys = Some(keys);
        self
    }

    /// The runtime the sharing's background work runs on (what the others tell this
    /// instance); default: the one `share_through` is called on.
    pub fn runtime(mut self, runtime: tokio::runtime::Handle) -> Self {
        self.runtime = Some(runtime);
        self
    }

    /// The bus.
    pub fn bus(&self) -> &Arc<dyn EventBus> {
        &self.bus
    }

    /// The legacy sessions' store.
    pub fn sessions(&self) -> &Arc<dyn SessionStore> {
        &self.sessions
    }

    /// Runs `task` on the sharing's runtime (or the current one).
    pub(crate) fn spawn(&self, task: impl std::future::Future<Output = ()> + Send + 'static) {
        match &self.runtime {
            Some(runtime) => drop(runtime.spawn(task)),
            None => drop(tokio::spawn(task)),
        }
    }
}

impl Server {
    /// Shares state with the other instances of this server through `sharing` (a
    /// [`Sharing`], or what converts into one: `shared::RedisState`), for a server already
    /// built (what `--redis` does); [`ServerBuilder::share_through`](crate::ServerBuilder::share_through)
    /// does it at build time. Unless the server's requestState keys were configured
    /// ([`ServerBuilder::request_state_keys`](crate::ServerBuilder::request_state_keys)),
    /// it signs states with the sharing's keys. Must be called before the server serves
    /// anything, within a Tokio runtime (unless the sharing names one); a server shares
    /// through one backend only.
    ///
    /// # Errors
    ///
    /// [`AlreadyShared`] when it shares its state already.
    pub fn share_through(&self, sharing: impl Into<Sharing>) -> Result<(), AlreadyShared> {
        let sharing = sharing.into();
        let inner = &self.inner;
        inner
            .sharing
            .set(sharing.clone())
            .map_err(|_| AlreadyShared)?;
        let bus = sharing.bus.clone();
        inner.tasks.attach(
            sharing.tasks.clone(),
            Box::new(move |signal| {
                bus.publish(match signal {
                    TaskSignal::Cancelled(id) => SharedEvent::TaskCancelled(id.to_owned()),
                    TaskSignal::Answered(id) => SharedEvent::TaskAnswered(id.to_owned()),
                });
            }),
        );
        inner.request_state.attach(sharing.nonces.clone());
        if !inner.request_state_keys_configured
            && let Some(keys) = &sharing.keys
        {
            // Any instance continues any round: they sign with the sharing's key.
            inner.request_state.set_keys(keys.clone());
        }
        inner.registry.feed().attach(sharing.bus.clone());
        let _ = inner.registry.tools.policies().fleet.set(FleetPipeline {
            budgets: sharing.budgets.clone(),
            results: sharing.results.clone(),
        });
        // What the others tell this instance, for as long as the server lives.
        let mut events = sharing.bus.subscribe();
        let server = Arc::downgrade(&self.inner);
        sharing.spawn(async move {
            use tokio::sync::broadcast::error::RecvError;
            loop {
                let event = match events.recv().await {
                    Ok(event) => event,
                    Err(RecvError::Lagged(missed)) => {
                        tracing::warn!(
                            target: crate::targets::REDIS_TARGET,
                            missed,
                            "events from other instances were skipped: too many at once"
                        );
                        continue;
                    }
                    Err(RecvError::Closed) => return,
                };
                let Some(server) = server.upgrade() else {
                    return;
                };
                match event {
                    SharedEvent::ListChanged(primitive) => {
                        server.registry.feed().changed_here(primitive);
                    }
                    SharedEvent::ResourceUpdated(uri) => {
                        server.registry.resources.updated_here(&uri);
                    }
                    SharedEvent::TaskCancelled(id) => server.tasks.cancel_local(&id),
                    SharedEvent::TaskAnswered(id) => server.tasks.wake(&id),
                    // The HTTP transport's (it holds the sessions).
                    SharedEvent::SessionClosed(_) | SharedEvent::Answer { .. } => {}
                }
            }
        });
        Ok(())
    }

    /// What this server shares with its other instances, if it shares anything (the HTTP
    /// transport's sessions read it).
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn sharing(&self) -> Option<&Sharing> {
        self.inner.sharing.get()
    }
}

/// The primitives, for backends that name them in their messages.
impl Primitive {
    /// The primitive a [`Display`](fmt::Display) name (`tools`, `resources`, `prompts`)
    /// names.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|p| p.to_string() == name)
    }
}

/// [`Server::share_through`] on a server that shares its state already.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the server shares its state already")]
pub struct AlreadyShared;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::context::MemoryNonces;
    use crate::pipeline::MemoryResults;

    #[tokio::test]
    async fn the_memory_seams_behave_as_every_implementation_must() {
        let fleet = MemoryFleet::new();
        suite::check(&fleet.instance(), &fleet.instance()).await;
    }

    #[tokio::test]
    async fn memory_stores_are_bounded() {
        let nonces = MemoryNonces::with_capacity(2);
        let far = u64::MAX;
        assert_eq!(nonces.spend_nonce("a".into(), far).await, Ok(true));
        assert_eq!(nonces.spend_nonce("b".into(), far).await, Ok(true));
        assert!(
            nonces.spend_nonce("c".into(), far).await.is_err(),
            "full: refused, never a replay risked"
        );
        assert_eq!(nonces.spend_nonce("a".into(), far).await, Ok(false));
        // Expired nonces make room.
        let spent = MemoryNonces::with_capacity(1);
        assert_eq!(spent.spend_nonce("old".into(), 0).await, Ok(true));
        assert_eq!(spent.spend_nonce("new".into(), far).await, Ok(true));

        let results = MemoryResults::with_capacity(1);
        let minute = std::time::Duration::from_secs(60);
        results.put("a", "1".into(), minute).await.unwrap();
        results.put("b", "2".into(), minute).await.unwrap();
        assert_eq!(results.get("a").await, Ok(Some("1".into())));
        assert_eq!(results.get("b").await, Ok(None), "past the bound, not kept");
    }

    #[tokio::test]
    async fn a_server_shares_through_one_backend_only() {
        let fleet = MemoryFleet::new();
        let server = Server::builder("demo", "1.0.0")
            .share_through(fleet.instance())
            .build()
            .unwrap();
        assert!(server.shares_state());
        assert_eq!(server.share_through(fleet.instance()), Err(AlreadyShared));
    }
}
