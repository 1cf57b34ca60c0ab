//! The memory of live `requestState` nonces behind single use (`state.rs`).

use std::collections::HashMap;
use std::sync::Arc;

/// The nonces of live states: minted here and not spent yet (with who they were minted
/// for), and spent, each until its state expires (the second a state stays valid).
///
/// Hand-written rather than a cache crate's: a cache evicts to make room (TinyLFU or LRU),
/// and forgetting a live nonce is exactly the replay this exists to stop. Expiry is the only
/// way out, swept by a scan at most once a second (or when full).
#[derive(Default)]
pub(super) struct Ledger {
    pub(super) minted: HashMap<String, (u64, Option<Arc<str>>)>,
    pub(super) spent: HashMap<String, u64>,
    pub(super) per_identity: HashMap<Arc<str>, u64>,
    last_sweep: u64,
}

impl Ledger {
    pub(super) fn len(&self) -> u64 {
        (self.minted.len() + self.spent.len()) as u64
    }

    fn sweep(&mut self, now: u64) {
        self.last_sweep = now;
        let per_identity = &mut self.per_identity;
        self.minted.retain(|_, (expires, identity)| {
            let live = *expires >= now;
            if !live && let Some(identity) = identity {
                release(per_identity, identity);
            }
            live
        });
        self.spent.retain(|_, expires| *expires >= now);
    }

    pub(super) fn sweep_if_due(&mut self, now: u64, capacity: u64) {
        if now > self.last_sweep || self.len() >= capacity {
            self.sweep(now);
        }
    }

    /// Takes a nonce out of `minted`, giving back its identity's share.
    pub(super) fn unmint(&mut self, nonce: &str) -> bool {
        match self.minted.remove(nonce) {
            Some((_, identity)) => {
                if let Some(identity) = identity {
                    release(&mut self.per_identity, &identity);
                }
                true
            }
            None => false,
        }
    }
}

fn release(per_identity: &mut HashMap<Arc<str>, u64>, identity: &Arc<str>) {
    if let Some(n) = per_identity.get_mut(identity) {
        *n -= 1;
        if *n == 0 {
            per_identity.remove(identity);
        }
    }
}
