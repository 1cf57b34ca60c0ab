//! Which IP addresses are public: every other one is refused unless an origin is allowed
//! exactly.
//!
//! The ranges are IANA's special-purpose registries (RFC 6890 and its updates) plus the
//! cloud metadata addresses, which all fall in them (169.254.169.254 link-local,
//! 100.100.100.200 CGNAT, fd00:ec2::254 ULA). IPv6 forms that carry an IPv4 address
//! (IPv4-mapped, IPv4-compatible, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`) are judged by the
//! IPv4 address they carry, so `[::ffff:127.0.0.1]` is loopback. Written out here rather than
//! with `std`'s `is_global` (unstable) or a crate: the table *is* the policy, and reading it
//! in one place is the point.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// Why an address is not public: the class it falls in, as shown in errors and audit events.
pub(crate) fn non_public(ip: IpAddr) -> Option<&'static str> {
    match ip {
        IpAddr::V4(v4) => v4_class(v4),
        IpAddr::V6(v6) => v6_class(v6),
    }
}

fn v4_class(ip: Ipv4Addr) -> Option<&'static str> {
    let [a, b, c, _] = ip.octets();
    let class = match (a, b, c) {
        (0, _, _) => "unspecified (0.0.0.0/8)",
        (10, _, _) => "private (10.0.0.0/8)",
        (100, 64..=127, _) => "shared CGNAT (100.64.0.0/10)",
        (127, _, _) => "loopback (127.0.0.0/8)",
        (169, 254, _) => "link-local (169.254.0.0/16, cloud metadata)",
        (172, 16..=31, _) => "private (172.16.0.0/12)",
        (192, 0, 0) => "IETF protocol assignments (192.0.0.0/24)",
        (192, 0, 2) => "documentation (192.0.2.0/24)",
        (192, 88, 99) => "6to4 relay anycast (192.88.99.0/24)",
        (192, 168, _) => "private (192.168.0.0/16)",
        (198, 18..=19, _) => "benchmarking (198.18.0.0/15)",
        (198, 51, 100) => "documentation (198.51.100.0/24)",
        (203, 0, 113) => "documentation (203.0.113.0/24)",
        (224..=239, _, _) => "multicast (224.0.0.0/4)",
        (240..=255, _, _) => "reserved or broadcast (240.0.0.0/4)",
        _ => return None,
    };
    Some(class)
}

fn v6_class(ip: Ipv6Addr) -> Option<&'static str> {
    if let Some(v4) = embedded_v4(ip) {
        return v4_class(v4);
    }
    let s = ip.segments();
    let class = match s {
        [0, 0, 0, 0, 0, 0, 0, 0] => "unspecified (::)",
        [0, 0, 0, 0, 0, 0, 0, 1] => "loopback (::1)",
        // The rest of ::/96 that `embedded_v4` did not take, and the discard prefix.
        [0, 0, 0, 0, _, _, _, _] => "reserved (::/64)",
        [0x100, 0, 0, 0, _, _, _, _] => "discard-only (100::/64)",
        // Local-use NAT64 (RFC 8215): translates to whatever the operator's network has.
        [0x64, 0xff9b, 1, ..] => "local-use NAT64 (64:ff9b:1::/48)",
        [0x2001, 0, ..] => "Teredo (2001::/32)",
        [0x2001, 0xdb8, ..] => "documentation (2001:db8::/32)",
        [0x2001, 0x2, 0, ..] => "benchmarking (2001:2::/48)",
        [0x2001, x, ..] if x < 0x200 => "IETF protocol assignments (2001::/23)",
        [0x3fff, x, ..] if x < 0x1000 => "documentation (3fff::/20)",
        [x, ..] if x & 0xfe00 == 0xfc00 => "unique local (fc00::/7)",
        [x, ..] if x & 0xffc0 == 0xfe80 => "link-local (fe80::/10)",
        [x, ..] if x & 0xffc0 == 0xfec0 => "site-local (fec0::/10)",
        [x, ..] if x & 0xff00 == 0xff00 => "multicast (ff00::/8)",
        _ => return None,
    };
    Some(class)
}

/// The IPv4 address an IPv6 address carries, in the forms that route to it: IPv4-mapped
/// (`::ffff:a.b.c.d`), IPv4-compatible (`::a.b.c.d`, deprecated but still parsed), NAT64
/// (`64:ff9b::a.b.c.d`) and 6to4 (`2002:aabb:ccdd::`).
fn embedded_v4(ip: Ipv6Addr) -> Option<Ipv4Addr> {
    let s = ip.segments();
    let low =
        |hi: u16, lo: u16| Ipv4Addr::new((hi >> 8) as u8, hi as u8, (lo >> 8) as u8, lo as u8);
    match s {
        [0, 0, 0, 0, 0, 0xffff, hi, lo] => Some(low(hi, lo)),
        // `::` and `::1` are their own addresses, not 0.0.0.0 and 0.0.0.1.
        [0, 0, 0, 0, 0, 0, hi, lo] if hi != 0 => Some(low(hi, lo)),
        [0x64, 0xff9b, 0, 0, 0, 0, hi, lo] => Some(low(hi, lo)),
        [0x2002, hi, lo, ..] => Some(low(hi, lo)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::non_public;
    use std::net::IpAddr;

    fn class(s: &str) -> Option<&'static str> {
        non_public(s.parse::<IpAddr>().unwrap())
    }

    #[test]
    fn every_special_range_is_refused_with_its_class() {
        let cases = [
            ("0.0.0.0", "unspecified"),
            ("0.1.2.3", "unspecified"),
            ("10.1.2.3", "private"),
            ("100.64.0.1", "CGNAT"),
            ("100.100.100.200", "CGNAT"),
            ("127.0.0.1", "loopback"),
            ("127.255.255.254", "loopback"),
            ("169.254.169.254", "metadata"),
            ("172.16.0.1", "private"),
            ("172.31.255.255", "private"),
            ("192.0.0.8", "IETF"),
            ("192.0.2.1", "documentation"),
            ("192.88.99.1", "6to4"),
            ("192.168.1.1", "private"),
            ("198.18.0.1", "benchmarking"),
            ("198.51.100.7", "documentation"),
            ("203.0.113.9", "documentation"),
            ("224.0.0.1", "multicast"),
            ("239.255.255.250", "multicast"),
            ("240.0.0.1", "reserved"),
            ("255.255.255.255", "broadcast"),
            ("::", "unspecified"),
            ("::1", "loopback"),
            ("::ffff:127.0.0.1", "loopback"),
            ("::ffff:10.0.0.1", "private"),
            ("::ffff:169.254.169.254", "link-local"),
            ("::127.0.0.1", "loopback"),
            ("64:ff9b::7f00:1", "loopback"),
            ("64:ff9b::a9fe:a9fe", "link-local"),
            ("64:ff9b:1::1", "NAT64"),
            ("2002:7f00:1::", "loopback"),
            ("2002:c0a8:101::1", "private"),
            ("100::1", "discard"),
            ("2001::1", "Teredo"),
            ("2001:db8::1", "documentation"),
            ("3fff::1", "documentation"),
            ("fc00::1", "unique local"),
            ("fd00:ec2::254", "unique local"),
            ("fe80::1", "link-local"),
            ("fec0::1", "site-local"),
            ("ff02::1", "multicast"),
        ];
        for (ip, want) in cases {
            let got = class(ip).unwrap_or_else(|| panic!("{ip} was taken for public"));
            assert!(got.contains(want), "{ip}: {got:?} does not say {want:?}");
        }
    }

    #[test]
    fn public_addresses_pass() {
        for ip in [
            "1.1.1.1",
            "8.8.8.8",
            "93.184.216.34",
            "100.63.255.255",
            "100.128.0.0",
            "172.15.255.255",
            "172.32.0.0",
            "192.0.1.1",
            "192.169.0.1",
            "198.20.0.1",
            "223.255.255.255",
            "2606:4700:4700::1111",
            "2a00:1450:4001:800::200e",
            "64:ff9b::808:808",
            "2002:808:808::1",
            "::ffff:8.8.8.8",
        ] {
            assert_eq!(class(ip), None, "{ip} was refused");
        }
    }
}
