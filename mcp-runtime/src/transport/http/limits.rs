//! What one caller may hold at once: [`CallerSlots`] counts each caller's requests and
//! streams (by identity, else IP address) against
//! [`HttpOptions::max_requests_per_caller`](super::HttpOptions::max_requests_per_caller),
//! so one caller cannot take every slot of the server-wide caps.
//!
//! A hand-written counter rather than a crate: `governor` limits rates, not how many things
//! are held at once, and a semaphore per caller would need the same map to find it.

use super::auth::Identity;
use ipnet::IpNet;
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
    /// What the caller held when it took this one.
    pub(crate) held_before: usize,
}

/// A caller holding this many requests or more takes none of the reserved last quarter of
/// the request permits: those stay for callers holding few, so no set of callers can take
/// every permit.
pub(crate) const RESERVED_SHARE: usize = 4;

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
        let held_before = *count;
        *count += 1;
        Ok(Some(CallerSlot {
            slots: self.clone(),
            key,
            held_before,
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

/// Each caller's request rate ([`HttpOptions::rate_limit_per_caller`](super::HttpOptions::rate_limit_per_caller)):
/// `governor`'s GCRA keyed like [`CallerSlots`]; idle callers' state pruned as requests come
/// in, so memory follows the callers active within one period.
#[derive(Debug)]
pub(crate) struct CallerRates {
    limiter: governor::DefaultKeyedRateLimiter<CallerKey>,
    checks: std::sync::atomic::AtomicU32,
}

impl CallerRates {
    pub(crate) fn new(rate: crate::tool::Rate) -> Self {
        Self {
            limiter: governor::DefaultKeyedRateLimiter::keyed(crate::pipeline::quota(rate)),
            checks: std::sync::atomic::AtomicU32::new(0),
        }
    }

    /// Takes one request from `key`'s budget, or says how long until one is free.
    pub(crate) fn check(&self, key: &CallerKey) -> Result<(), std::time::Duration> {
        use governor::clock::Clock as _;
        const PRUNE_EVERY: u32 = 1024;
        let checks = self
            .checks
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        if checks % PRUNE_EVERY == PRUNE_EVERY - 1 {
            self.limiter.retain_recent();
            self.limiter.shrink_to_fit();
        }
        self.limiter.check_key(key).map_err(|not_until| {
            not_until.wait_time_from(governor::clock::DefaultClock::default().now())
        })
    }
}

/// Who a request is from, for per-caller caps: its authenticated identity, else the
/// client's network ([`client_network`]).
pub(crate) fn caller_key(identity: &Identity, client: Option<IpAddr>) -> Option<CallerKey> {
    if let Some(subject) = identity.subject_arc() {
        return Some(CallerKey::Identity(subject.clone()));
    }
    client.map(|ip| CallerKey::Address(client_network(ip)))
}

/// The client's address: the peer's (`HttpServer` passes it; a service in an axum router
/// reads axum's `ConnectInfo`), or, when the peer is a trusted proxy, the nearest address
/// in `Forwarded` (else `X-Forwarded-For`) that is not a trusted proxy itself. Headers from
/// any other peer are ignored: they are the client's to forge.
pub(crate) fn client_address(
    parts: &http::request::Parts,
    peer: Option<std::net::SocketAddr>,
    trusted: &[IpNet],
) -> Option<IpAddr> {
    let peer = unmapped(peer?.ip());
    let is_trusted = |ip: IpAddr| trusted.iter().any(|net| net.contains(&ip));
    if !is_trusted(peer) {
        return Some(peer);
    }
    let forwarded: Vec<IpAddr> = if parts.headers.contains_key(http::header::FORWARDED) {
        parts
            .headers
            .get_all(http::header::FORWARDED)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(','))
            .filter_map(|element| {
                element.split(';').find_map(|pair| {
                    let (key, value) = pair.trim().split_once('=')?;
                    key.eq_ignore_ascii_case("for")
                        .then(|| forwarded_ip(value))?
                })
            })
            .collect()
    } else {
        parts
            .headers
            .get_all("x-forwarded-for")
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(','))
            .filter_map(forwarded_ip)
            .collect()
    };
    // Nearest first: each trusted proxy appended the address it received from.
    let mut client = peer;
    for ip in forwarded.into_iter().rev() {
        client = ip;
        if !is_trusted(ip) {
            break;
        }
    }
    Some(client)
}

/// An address as `Forwarded` or `X-Forwarded-For` write it: `192.0.2.7`, `192.0.2.7:443`,
/// `"[2001:db8::1]:443"`, `2001:db8::1`.
fn forwarded_ip(value: &str) -> Option<IpAddr> {
    let value = value.trim().trim_matches('"');
    if let Some(v6) = value.strip_prefix('[') {
        return v6.split(']').next()?.parse().ok().map(unmapped);
    }
    value
        .parse::<IpAddr>()
        .or_else(|_| {
            value
                .rsplit_once(':')
                .ok_or(())
                .and_then(|(ip, _)| ip.parse().map_err(drop))
        })
        .ok()
        .map(unmapped)
}

/// An IPv4-mapped IPv6 address as the IPv4 address it is.
fn unmapped(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        v4 => v4,
    }
}

/// What per-caller limits count a client by: an IPv4 address; its IPv6 /64 (one host holds
/// a whole /64, and could otherwise be a new caller per address); and this machine as one
/// caller, whatever loopback address it uses (`127.0.0.2` is no new caller).
pub(crate) fn client_network(ip: IpAddr) -> IpAddr {
    match unmapped(ip) {
        ip if ip.is_loopback() => IpAddr::V4(std::net::Ipv4Addr::LOCALHOST),
        IpAddr::V6(v6) => {
            let bits = u128::from(v6) & !((1u128 << 64) - 1);
            IpAddr::V6(bits.into())
        }
        v4 => v4,
    }
}

/// How a client's network is shown (audit, rate-limit keys): the address, an IPv6 network
/// with its `/64`.
pub(crate) fn shown(network: IpAddr) -> String {
    match network {
        IpAddr::V6(v6) => format!("{v6}/64"),
        // Every request names its caller: four octets written directly, not through
        // `core::fmt` (a tenth of the instructions).
        IpAddr::V4(v4) => {
            let mut text = String::with_capacity(15);
            for (i, octet) in v4.octets().into_iter().enumerate() {
                if i > 0 {
                    text.push('.');
                }
                if octet >= 100 {
                    text.push(char::from(b'0' + octet / 100));
                }
                if octet >= 10 {
                    text.push(char::from(b'0' + octet / 10 % 10));
                }
                text.push(char::from(b'0' + octet % 10));
            }
            text
        }
    }
}

/// [`shown`] as the shared text a `Caller` holds. Every request names its caller, and a
/// client's requests come in runs (keep-alive connections), so each thread remembers the
/// last network it showed: a repeat costs a reference count, not two allocations.
pub(crate) fn shown_shared(network: IpAddr) -> Arc<str> {
    use std::cell::RefCell;
    thread_local! {
        static LAST: RefCell<Option<(IpAddr, Arc<str>)>> = const { RefCell::new(None) };
    }
    LAST.with_borrow_mut(|last| match last {
        Some((ip, text)) if *ip == network => text.clone(),
        _ => {
            let text: Arc<str> = shown(network).into();
            *last = Some((network, text.clone()));
            text
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(headers: &[(&str, &str)]) -> http::request::Parts {
        let mut builder = http::Request::builder();
        for (k, v) in headers {
            builder = builder.header(*k, *v);
        }
        builder.body(()).unwrap().into_parts().0
    }

    fn network(peer: &str, headers: &[(&str, &str)], trusted: &[&str]) -> String {
        let trusted: Vec<IpNet> = trusted.iter().map(|t| t.parse().unwrap()).collect();
        let peer = Some(peer.parse().unwrap());
        shown(client_network(
            client_address(&request(headers), peer, &trusted).unwrap(),
        ))
    }

    #[test]
    fn an_ipv4_network_is_shown_as_std_shows_it() {
        for address in [
            "0.0.0.0",
            "10.9.99.100",
            "127.0.0.1",
            "255.255.255.255",
            "1.20.200.9",
        ] {
            let ip: IpAddr = address.parse().unwrap();
            assert_eq!(shown(ip), ip.to_string());
        }
    }

    #[test]
    fn the_shared_text_follows_the_network_it_is_asked_for() {
        let a: IpAddr = [192, 0, 2, 7].into();
        let b: IpAddr = "2001:db8::".parse().unwrap();
        let first = shown_shared(a);
        assert_eq!(&*first, "192.0.2.7");
        assert!(Arc::ptr_eq(&first, &shown_shared(a)), "a repeat is shared");
        assert_eq!(&*shown_shared(b), "2001:db8::/64");
        assert_eq!(&*shown_shared(a), "192.0.2.7");
    }

    #[test]
    fn callers_are_counted_by_network_loopback_as_one_ipv6_by_its_64() {
        assert_eq!(network("127.0.0.2:1", &[], &[]), "127.0.0.1");
        assert_eq!(network("[::1]:1", &[], &[]), "127.0.0.1");
        assert_eq!(network("[::ffff:192.0.2.7]:1", &[], &[]), "192.0.2.7");
        assert_eq!(
            network("[2001:db8:1:2:aaaa::1]:1", &[], &[]),
            network("[2001:db8:1:2:bbbb::9]:1", &[], &[])
        );
        assert_eq!(
            network("[2001:db8:1:2::1]:1", &[], &[]),
            "2001:db8:1:2::/64"
        );
        assert_ne!(
            network("[2001:db8:1:2::1]:1", &[], &[]),
            network("[2001:db8:1:3::1]:1", &[], &[])
        );
    }

    #[test]
    fn forwarded_addresses_are_believed_from_trusted_proxies_only() {
        let xff = [("x-forwarded-for", "203.0.113.9, 10.0.0.2")];
        // Not a trusted proxy: the header is the client's own claim, ignored.
        assert_eq!(
            network("198.51.100.1:1", &xff, &["10.0.0.0/8"]),
            "198.51.100.1"
        );
        // Through two trusted proxies: the nearest untrusted address is the client.
        assert_eq!(network("10.0.0.1:1", &xff, &["10.0.0.0/8"]), "203.0.113.9");
        // A client that prepends a forged address is still found by its real one.
        let forged = [("x-forwarded-for", "1.2.3.4, 203.0.113.9")];
        assert_eq!(
            network("10.0.0.1:1", &forged, &["10.0.0.0/8"]),
            "203.0.113.9"
        );
        let forwarded = [(
            "forwarded",
            "for=\"[2001:db8::1]:443\";proto=https, for=10.0.0.2",
        )];
        assert_eq!(
            network("10.0.0.1:1", &forwarded, &["10.0.0.0/8"]),
            "2001:db8::/64"
        );
        // A trusted proxy that forwards nothing: the proxy is the caller.
        assert_eq!(network("10.0.0.1:1", &[], &["10.0.0.0/8"]), "10.0.0.1");
    }

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
