//! Redis behind every seam of [`server::sharing`](crate::server::sharing), and the
//! [`Sharing`] a [`RedisState`] installs.

use super::RedisState;
use crate::context::{SpentNonces, Unavailable};
use crate::pipeline::{RateBudgets, SharedResults};
use crate::server::sharing::{
    EventBus, SessionRecord, SessionStore, SessionSync, SharedEvent, Sharing, StreamEvent,
};
use futures::future::BoxFuture;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::broadcast;

/// Every seam on this Redis: spent nonces, the bus, tasks ([`RedisState::task_store`]),
/// legacy sessions, rate-limit budgets, the fleet's requestState key, and tools' cached
/// results when [`RedisOptions::share_result_cache`](super::RedisOptions::share_result_cache)
/// is set. Background work runs on the runtime it was connected on.
impl From<RedisState> for Sharing {
    fn from(redis: RedisState) -> Self {
        let this = Arc::new(redis.clone());
        let sharing = Sharing::new(
            this.clone(),
            this.clone(),
            Arc::new(redis.task_store()),
            this.clone(),
        )
        .rate_budgets(this.clone())
        .request_state_keys(redis.request_state_keys())
        .runtime(redis.runtime().clone());
        if redis.options().share_result_cache {
            sharing.results(this)
        } else {
            sharing
        }
    }
}

impl SpentNonces for RedisState {
    fn spend_nonce(
        &self,
        nonce: String,
        expires: u64,
    ) -> BoxFuture<'static, Result<bool, Unavailable>> {
        let this = self.clone();
        Box::pin(async move { this.spend(&nonce, expires).await.map_err(Unavailable::new) })
    }
}

impl EventBus for RedisState {
    fn publish(&self, event: SharedEvent) {
        RedisState::publish(self, event);
    }

    fn subscribe(&self) -> broadcast::Receiver<SharedEvent> {
        self.events()
    }
}

impl RateBudgets for RedisState {
    fn take(
        &self,
        name: &str,
        count: u32,
        period: Duration,
    ) -> BoxFuture<'static, Result<Option<Duration>, Unavailable>> {
        let (this, name) = (self.clone(), name.to_owned());
        Box::pin(async move {
            this.take_rate(&name, count, period)
                .await
                .map_err(Unavailable::new)
        })
    }
}

impl SharedResults for RedisState {
    fn get(&self, name: &str) -> BoxFuture<'static, Result<Option<String>, Unavailable>> {
        let (this, name) = (self.clone(), name.to_owned());
        Box::pin(async move { this.cached_result(&name).await.map_err(Unavailable::new) })
    }

    fn put(
        &self,
        name: &str,
        text: String,
        ttl: Duration,
    ) -> BoxFuture<'static, Result<(), Unavailable>> {
        let (this, name) = (self.clone(), name.to_owned());
        Box::pin(async move {
            this.cache_result(&name, &text, ttl)
                .await
                .map_err(Unavailable::new)
        })
    }
}

impl SessionStore for RedisState {
    fn create(
        &self,
        id: &str,
        record: SessionRecord,
        idle: Duration,
        lifetime: Duration,
    ) -> BoxFuture<'static, Result<(), Unavailable>> {
        let (this, id) = (self.clone(), id.to_owned());
        Box::pin(async move {
            this.create_session(&id, record, idle, lifetime)
                .await
                .map_err(Unavailable::new)
        })
    }

    fn sync(
        &self,
        id: &str,
        applied: usize,
        idle: Duration,
        whole: bool,
    ) -> BoxFuture<'static, Result<Option<SessionSync>, Unavailable>> {
        let (this, id) = (self.clone(), id.to_owned());
        Box::pin(async move {
            this.sync_session(&id, applied, idle, whole)
                .await
                .map_err(Unavailable::new)
        })
    }

    fn record_change(
        &self,
        id: &str,
        change: String,
        idle: Duration,
    ) -> BoxFuture<'static, Result<(), Unavailable>> {
        let (this, id) = (self.clone(), id.to_owned());
        Box::pin(async move {
            this.record_session_change(&id, &change, idle)
                .await
                .map_err(Unavailable::new)
        })
    }

    fn append_event(
        &self,
        id: &str,
        message: Vec<u8>,
    ) -> BoxFuture<'static, Result<String, Unavailable>> {
        let (this, id) = (self.clone(), id.to_owned());
        Box::pin(async move {
            this.append_event(&id, &message)
                .await
                .map_err(Unavailable::new)
        })
    }

    fn events_after(
        &self,
        id: &str,
        last: &str,
    ) -> BoxFuture<'static, Result<Vec<StreamEvent>, Unavailable>> {
        let (this, id, last) = (self.clone(), id.to_owned(), last.to_owned());
        Box::pin(async move {
            RedisState::events_after(&this, &id, &last)
                .await
                .map_err(Unavailable::new)
        })
    }

    fn forget(&self, id: &str) -> BoxFuture<'static, Result<(), Unavailable>> {
        let (this, id) = (self.clone(), id.to_owned());
        Box::pin(async move { this.forget_session(&id).await.map_err(Unavailable::new) })
    }
}
