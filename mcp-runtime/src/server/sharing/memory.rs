//! A fleet in one process: every seam in memory, shared by the instances made from one
//! [`MemoryFleet`].

use super::{EventBus, MemorySessions, SharedEvent, Sharing};
use crate::context::MemoryNonces;
use crate::input::RequestStateKeys;
use crate::pipeline::{MemoryRateBudgets, MemoryResults};
use crate::task::{MemoryTaskStore, TaskLimits};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};
use tokio::sync::broadcast;

/// Events received and not yet taken by a slow reader, at most (it then skips ahead).
const INBOX: usize = 4096;

/// Instances of a server sharing their state in one process: the stores every seam uses,
/// and a bus on which each instance hears the others. [`instance`](Self::instance) makes
/// the [`Sharing`] of one more instance. What Redis does for instances in many processes,
/// for tests of a fleet (and servers that run several instances in one process).
#[derive(Debug, Clone)]
pub struct MemoryFleet {
    nonces: Arc<MemoryNonces>,
    tasks: Arc<MemoryTaskStore>,
    sessions: Arc<MemorySessions>,
    budgets: Arc<MemoryRateBudgets>,
    results: Arc<MemoryResults>,
    keys: RequestStateKeys,
    hub: Arc<Hub>,
}

#[derive(Debug, Default)]
struct Hub {
    next: AtomicU64,
    ports: Mutex<Vec<(u64, Weak<broadcast::Sender<SharedEvent>>)>>,
}

/// One instance's end of the fleet's bus.
#[derive(Debug)]
struct Port {
    id: u64,
    inbox: Arc<broadcast::Sender<SharedEvent>>,
    hub: Arc<Hub>,
}

impl EventBus for Port {
    fn publish(&self, event: SharedEvent) {
        let mut ports = self.hub.ports.lock().unwrap_or_else(|e| e.into_inner());
        ports.retain(|(_, port)| port.strong_count() > 0);
        for (id, port) in ports.iter() {
            if *id != self.id
                && let Some(port) = port.upgrade()
            {
                // No receiver: that instance listens to nothing yet.
                let _ = port.send(event.clone());
            }
        }
    }

    fn subscribe(&self) -> broadcast::Receiver<SharedEvent> {
        self.inbox.subscribe()
    }
}

impl Default for MemoryFleet {
    fn default() -> Self {
        Self {
            nonces: Arc::default(),
            tasks: Arc::new(MemoryTaskStore::new(TaskLimits::default())),
            sessions: Arc::default(),
            budgets: Arc::default(),
            results: Arc::default(),
            keys: RequestStateKeys::generate(),
            hub: Arc::default(),
        }
    }
}

impl MemoryFleet {
    /// A fleet of no instance yet, with a random requestState key they all sign with.
    pub fn new() -> Self {
        Self::default()
    }

    /// The sharing of one more instance: every store of the fleet (rate limits and cached
    /// results included), its own end of the bus, the fleet's key.
    pub fn instance(&self) -> Sharing {
        let (inbox, _) = broadcast::channel(INBOX);
        let inbox = Arc::new(inbox);
        let id = self.hub.next.fetch_add(1, Ordering::Relaxed);
        self.hub
            .ports
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((id, Arc::downgrade(&inbox)));
        let port = Port {
            id,
            inbox,
            hub: self.hub.clone(),
        };
        Sharing::new(
            self.nonces.clone(),
            Arc::new(port),
            self.tasks.clone(),
            self.sessions.clone(),
        )
        .rate_budgets(self.budgets.clone())
        .results(self.results.clone())
        .request_state_keys(self.keys.clone())
    }
}
