//! What instances of one server share about requestState: the nonces of spent states, behind
//! [`SpentNonces`], and the error every shared store gives when it cannot answer
//! ([`Unavailable`]).
//!
//! One instance needs none of it: its own ledger remembers the nonces it minted (see
//! [`input::state`](crate::input::state)). Instances that share state install a store
//! through `Server::share_through` (Redis's is `shared::RedisState`; [`MemoryNonces`] serves
//! instances in one process and tests), so a state replayed on another instance is refused
//! like one replayed on the same.

use futures::future::BoxFuture;
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

/// A store shared by a server's instances could not answer: unreachable, too slow, or full.
/// The request that needed it fails with this message (an internal error to the client, a
/// `503` from the HTTP transport); nothing is half-done.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Unavailable(String);

impl Unavailable {
    /// The error, with a message saying which store failed and why.
    pub fn new(message: impl Into<String>) -> Self {
        Self(message.into())
    }

    /// The message.
    pub fn message(&self) -> &str {
        &self.0
    }
}

/// Where instances sharing state keep the nonces of spent requestStates.
///
/// The behaviour every implementation must have is checked by `server::sharing::suite`.
pub trait SpentNonces: Send + Sync + 'static {
    /// Spends `nonce`, valid until `expires` (Unix seconds, inclusive): `true` the first
    /// time, `false` for a replay. Kept at least until `expires` has passed.
    ///
    /// # Errors
    ///
    /// [`Unavailable`] when the store cannot say (the state is then refused: failing closed).
    fn spend_nonce(
        &self,
        nonce: String,
        expires: u64,
    ) -> BoxFuture<'static, Result<bool, Unavailable>>;
}

/// Spent nonces in this process, for instances sharing one process (and tests). Expired
/// nonces are swept as new ones come; past [`MemoryNonces::with_capacity`]'s bound (a
/// million by default) a spend is [`Unavailable`] rather than a replay risked.
#[derive(Debug)]
pub struct MemoryNonces {
    spent: Mutex<HashMap<String, u64>>,
    capacity: usize,
}

impl Default for MemoryNonces {
    fn default() -> Self {
        Self::with_capacity(1 << 20)
    }
}

impl MemoryNonces {
    /// An empty store, bounded to a million live nonces.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty store that keeps at most `capacity` live nonces.
    pub fn with_capacity(capacity: usize) -> Self {
        Self {
            spent: Mutex::new(HashMap::new()),
            capacity,
        }
    }

    fn spend(&self, nonce: String, expires: u64) -> Result<bool, Unavailable> {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let mut spent = self.spent.lock().unwrap_or_else(|e| e.into_inner());
        if spent.contains_key(&nonce) {
            return Ok(false);
        }
        if spent.len() >= self.capacity {
            spent.retain(|_, until| *until >= now);
            if spent.len() >= self.capacity {
                return Err(Unavailable::new(format!(
                    "the spent requestState nonces in memory are full ({} live)",
                    self.capacity
                )));
            }
        }
        spent.insert(nonce, expires);
        Ok(true)
    }
}

impl SpentNonces for MemoryNonces {
    fn spend_nonce(
        &self,
        nonce: String,
        expires: u64,
    ) -> BoxFuture<'static, Result<bool, Unavailable>> {
        let spent = self.spend(nonce, expires);
        Box::pin(std::future::ready(spent))
    }
}
