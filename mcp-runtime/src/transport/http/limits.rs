//! What one caller may hold at once: [`CallerSlots`] counts each caller's requests and
//! streams (by identity, else IP address) against
//! [`HttpOptions::max_requests_per_caller`](super::HttpOptions::max_requests_per_caller),
//! so one caller cannot take every slot of the server-wide caps.
//!
//! A hand-written counter rather than a crate: `governor` limits rates, not how many things
//! are held at once, and a semaphore per caller would need the same map to find it.

use super::auth::Identity;
use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};

/// Who a request is from, for per-caller caps: no allocation on the request path (the
/// identity's own `Arc`, a copied address).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum CallerKey {
    /// An authenticated subject.
    Identity(Arc<str>),
    /// The peer's IP address, when there is no identity.
    Address(IpAddr),
}

/// Every caller's count of requests and streams held.
#[derive(Debug)]
pub(crate) struct CallerSlots {
    limit: usize,
    held: Mutex<HashMap<CallerKey, usize>>,
}

/// One request or stream of one caller; dropping it gives the slot back.
#[derive(Debug)]
pub(crate) struct CallerSlot {
    slots: Arc<CallerSlots>,
    key: CallerKey,
}

/// The caller is at its limit.
#[derive(Debug)]
pub(crate) struct OverLimit;

impl CallerSlots {
    pub(crate) fn new(limit: usize) -> Arc<Self> {
        Arc::new(Self {
            limit,
            held: Mutex::default(),
        })
    }

    /// A slot for the caller `key`; `Ok(None)` when the caller cannot be told apart (no
    /// identity, no address): it is held to the server-wide caps only.
    pub(crate) fn take(
        self: &Arc<Self>,
        key: Option<CallerKey>,
    ) -> Result<Option<CallerSlot>, OverLimit> {
        let Some(key) = key else {
            return Ok(None);
        };
        let mut held = self.held.lock().unwrap_or_else(|e| e.into_inner());
        let count = held.entry(key.clone()).or_insert(0);
        if *count >= self.limit {
            return Err(OverLimit);
        }
        *count += 1;
        Ok(Some(CallerSlot {
            slots: self.clone(),
            key,
        }))
    }

    /// How many callers hold something (for tests).
    #[cfg(test)]
    fn callers(&self) -> usize {
        self.held.lock().unwrap_or_else(|e| e.into_inner()).len()
    }
}

impl Drop for CallerSlot {
    fn drop(&mut self) {
        let mut held = self.slots.held.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(count) = held.get_mut(&self.key) {
            *count -= 1;
            if *count == 0 {
                held.remove(&self.key);
            }
        }
    }
}

/// Who a request is from, for per-caller caps: its authenticated identity, else the peer's
/// IP address (recorded by `HttpServer` as axum's `ConnectInfo`).
pub(crate) fn caller_key(parts: &http::request::Parts, identity: &Identity) -> Option<CallerKey> {
    if let Some(subject) = identity.subject_arc() {
        return Some(CallerKey::Identity(subject.clone()));
    }
    parts
        .extensions
        .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>()
        .map(|axum::extract::ConnectInfo(peer)| CallerKey::Address(peer.ip()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_caller_gets_its_own_count_and_slots_come_back() {
        let slots = CallerSlots::new(2);
        let a = || Some(CallerKey::Identity(Arc::from("a")));
        let first = slots.take(a()).unwrap();
        let second = slots.take(a()).unwrap();
        assert!(slots.take(a()).is_err(), "a third one for `a`");
        let b = slots
            .take(Some(CallerKey::Address([127, 0, 0, 1].into())))
            .unwrap();
        assert!(
            slots.take(None).unwrap().is_none(),
            "unknown callers are not counted"
        );
        drop(first);
        let third = slots.take(a()).unwrap();
        drop((second, third, b));
        assert_eq!(
            slots.callers(),
            0,
            "nothing is kept for callers holding nothing"
        );
    }
}
