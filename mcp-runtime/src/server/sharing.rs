//! A built server sharing its state with other instances through Redis (the `redis`
//! feature): what [`ServerBuilder::redis`](super::ServerBuilder::redis) and `--redis` attach.

use super::{Primitive, Server};
use std::sync::Arc;

impl Server {
    /// Shares state with the other instances connected to `redis`, as
    /// [`ServerBuilder::redis`](crate::ServerBuilder::redis) does, for a server already built (what `--redis` does).
    /// Unless the server's requestState keys were configured
    /// ([`ServerBuilder::request_state_keys`](crate::ServerBuilder::request_state_keys)), it signs states with a key kept in Redis,
    /// which every instance sharing it uses.
    /// Must be called before the server serves anything; a server shares through one Redis
    /// only.
    ///
    /// # Errors
    ///
    /// [`AlreadyShared`] when it shares through a Redis already.
    #[cfg(feature = "redis")]
    pub fn share_through(&self, redis: crate::shared::RedisState) -> Result<(), AlreadyShared> {
        let inner = &self.inner;
        inner.redis.set(redis.clone()).map_err(|_| AlreadyShared)?;
        let bus = redis.clone();
        inner.tasks.attach(
            Arc::new(redis.task_store()),
            Box::new(move |signal| {
                use crate::shared::FleetEvent;
                use crate::task::TaskSignal;
                bus.publish(match signal {
                    TaskSignal::Cancelled(id) => FleetEvent::TaskCancelled(id.to_owned()),
                    TaskSignal::Answered(id) => FleetEvent::TaskAnswered(id.to_owned()),
                });
            }),
        );
        inner.request_state.attach(Arc::new(redis.clone()));
        if !inner.request_state_keys_configured {
            // Any instance continues any round: they sign with the key kept in Redis.
            inner.request_state.set_keys(redis.request_state_keys());
        }
        inner.registry.feed().attach(&redis);
        let _ = inner.registry.tools.policies().fleet.set(redis.clone());
        // What the others tell this instance, for as long as the server lives.
        let mut events = redis.events();
        let server = Arc::downgrade(&self.inner);
        redis.spawn(async move {
            use crate::shared::FleetEvent;
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
                    FleetEvent::ListChanged(name) => {
                        if let Some(primitive) =
                            Primitive::ALL.into_iter().find(|p| p.to_string() == name)
                        {
                            server.registry.feed().changed_here(primitive);
                        }
                    }
                    FleetEvent::ResourceUpdated(uri) => {
                        server.registry.resources.updated_here(&uri);
                    }
                    FleetEvent::TaskCancelled(id) => server.tasks.cancel_local(&id),
                    FleetEvent::TaskAnswered(id) => server.tasks.wake(&id),
                    // The HTTP transport's (it holds the sessions).
                    FleetEvent::SessionClosed(_) | FleetEvent::Answer(..) => {}
                }
            }
        });
        Ok(())
    }

    /// The Redis this server shares state through, if any.
    #[cfg(feature = "redis")]
    pub fn redis(&self) -> Option<&crate::shared::RedisState> {
        self.inner.redis.get()
    }
}

/// [`Server::share_through`] on a server that shares through a Redis already.
#[cfg(feature = "redis")]
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the server shares its state through a Redis already")]
pub struct AlreadyShared;
