//! DNS-rebinding protection: the `Host` and `Origin` checks (streamable-http §Security:
//! servers MUST validate `Origin`; a local server should only be reachable by local
//! names). A refused request gets 403 before anything else happens.
//!
//! Rules (see [`HttpOptions::allow_host`](super::HttpOptions::allow_host)):
//! - `Host` is accepted when it is `localhost`, an IP address, or an allowed name. A
//!   rebinding attack makes a browser send the attacker's DNS name as `Host`; an IP address
//!   cannot be rebound, so accepting them keeps servers bound to `0.0.0.0` reachable by
//!   address without weakening the protection.
//! - `Origin`, when present, is accepted when it is a loopback origin (`localhost`,
//!   `127.0.0.0/8`, `[::1]`, any port), the same host and port as `Host`, or an allowed
//!   origin. `Origin: null` (sandboxed pages, files) is refused. Requests without `Origin`
//!   are not from a browser's cross-origin fetch and pass.

use super::options::HostPolicy;
use super::response::Refusal;
use crate::server::AUDIT_TARGET;
use http::header::{HOST, ORIGIN};
use http::{StatusCode, Uri};
use std::net::IpAddr;

/// Checks `Host` and `Origin`; the error is the 403 to send.
pub(crate) fn check(policy: &HostPolicy, parts: &http::request::Parts) -> Result<(), Refusal> {
    if policy.disabled {
        return Ok(());
    }
    let host = parts
        .headers
        .get(HOST)
        .and_then(|h| h.to_str().ok())
        .or_else(|| parts.uri.authority().map(|a| a.as_str()));
    let Some(host) = host else {
        return Err(forbidden("the request has no Host header"));
    };
    // Lower-cased only when it has to be: a copy per request for nothing otherwise.
    let host: std::borrow::Cow<'_, str> = if host.bytes().any(|b| b.is_ascii_uppercase()) {
        host.to_ascii_lowercase().into()
    } else {
        host.into()
    };
    let Some((host_name, host_port)) = split_host(&host) else {
        return Err(forbidden(&format!("the Host header {host:?} is malformed")));
    };
    if !host_allowed(policy, &host, host_name) {
        return Err(forbidden(&format!(
            "Host {host:?} is not allowed (DNS-rebinding protection); \
             allow it with HttpOptions::allow_host or the --allowed-host flag"
        )));
    }
    let mut origins = parts.headers.get_all(ORIGIN).iter();
    let Some(origin) = origins.next() else {
        return Ok(());
    };
    let allowed = origins.next().is_none()
        && origin.to_str().is_ok_and(|origin| {
            if origin.bytes().any(|b| b.is_ascii_uppercase()) {
                origin_allowed(policy, &origin.to_ascii_lowercase(), host_name, host_port)
            } else {
                origin_allowed(policy, origin, host_name, host_port)
            }
        });
    if allowed {
        Ok(())
    } else {
        Err(forbidden(&format!(
            "Origin {:?} is not allowed (DNS-rebinding protection); \
             allow it with HttpOptions::allow_origin or the --allowed-origin flag",
            String::from_utf8_lossy(origin.as_bytes())
        )))
    }
}

fn forbidden(text: &str) -> Refusal {
    tracing::debug!(target: AUDIT_TARGET, reason = text, "request refused");
    Refusal::new(StatusCode::FORBIDDEN, text)
}

/// Splits `name[:port]` (`[v6]:port` for IPv6); the name keeps its brackets.
fn split_host(host: &str) -> Option<(&str, Option<u16>)> {
    let (name, port) = if host.starts_with('[') {
        let end = host.find(']')?;
        let rest = &host[end + 1..];
        let port = match rest.strip_prefix(':') {
            Some(p) => Some(p),
            None if rest.is_empty() => None,
            None => return None,
        };
        (&host[..=end], port)
    } else {
        match host.rsplit_once(':') {
            Some((name, port)) => (name, Some(port)),
            None => (host, None),
        }
    };
    let port = match port {
        Some(p) => Some(p.parse().ok()?),
        None => None,
    };
    (!name.is_empty()).then_some((name, port))
}

fn parse_ip(name: &str) -> Option<IpAddr> {
    name.trim_start_matches('[')
        .trim_end_matches(']')
        .parse()
        .ok()
}

fn host_allowed(policy: &HostPolicy, host: &str, name: &str) -> bool {
    name == "localhost"
        || parse_ip(name).is_some()
        || policy.hosts.iter().any(|h| h == host || h == name)
}

fn is_loopback(name: &str) -> bool {
    name == "localhost" || parse_ip(name).is_some_and(|ip| ip.is_loopback())
}

fn origin_allowed(
    policy: &HostPolicy,
    origin: &str,
    host_name: &str,
    host_port: Option<u16>,
) -> bool {
    let origin = origin.trim_end_matches('/');
    if policy.origins.iter().any(|o| o == origin) {
        return true;
    }
    let Ok(uri) = origin.parse::<Uri>() else {
        return false; // includes `null`
    };
    let (Some(scheme), Some(authority)) = (uri.scheme_str(), uri.authority()) else {
        return false;
    };
    let Some((name, port)) = split_host(authority.as_str()) else {
        return false;
    };
    if is_loopback(name) {
        return true;
    }
    let default_port = match scheme {
        "http" => 80,
        "https" => 443,
        _ => return false,
    };
    // Same origin as the endpoint itself (a page served by this host and port).
    name == host_name && port.unwrap_or(default_port) == host_port.unwrap_or(default_port)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(host: Option<&str>, origin: Option<&str>) -> http::request::Parts {
        let mut b = http::Request::builder().uri("/mcp");
        if let Some(h) = host {
            b = b.header(HOST, h);
        }
        if let Some(o) = origin {
            b = b.header(ORIGIN, o);
        }
        b.body(()).unwrap().into_parts().0
    }

    fn ok(policy: &HostPolicy, host: &str, origin: Option<&str>) -> bool {
        check(policy, &parts(Some(host), origin)).is_ok()
    }

    #[test]
    fn local_names_and_addresses_pass_foreign_names_do_not() {
        let p = HostPolicy::default();
        for host in [
            "localhost",
            "localhost:8080",
            "127.0.0.1:3000",
            "[::1]:9",
            "10.0.0.7",
            "LOCALHOST:1",
        ] {
            assert!(ok(&p, host, None), "{host}");
        }
        for host in [
            "evil.example.com",
            "evil.example.com:8080",
            "localhost.evil.com",
            "[::1",
            "a:b:c",
        ] {
            assert!(!ok(&p, host, None), "{host}");
        }
        assert!(check(&p, &parts(None, None)).is_err(), "no Host at all");
    }

    #[test]
    fn origins_must_be_loopback_same_origin_or_allowed() {
        let p = HostPolicy::default();
        assert!(ok(&p, "127.0.0.1:8080", Some("http://localhost:5173")));
        assert!(ok(&p, "127.0.0.1:8080", Some("http://127.0.0.1:8080")));
        assert!(ok(&p, "10.0.0.7:8080", Some("http://10.0.0.7:8080")));
        assert!(!ok(&p, "10.0.0.7:8080", Some("http://10.0.0.7:9999")));
        assert!(!ok(&p, "127.0.0.1:8080", Some("http://evil.example.com")));
        assert!(!ok(&p, "127.0.0.1:8080", Some("null")));
        let p = HostPolicy {
            hosts: vec!["mcp.example.com".into()],
            origins: vec!["https://app.example.com".into()],
            disabled: false,
        };
        assert!(ok(&p, "mcp.example.com", Some("https://app.example.com")));
        assert!(ok(
            &p,
            "mcp.example.com:443",
            Some("https://mcp.example.com")
        ));
        assert!(!ok(
            &p,
            "mcp.example.com",
            Some("https://other.example.com")
        ));
        let p = HostPolicy {
            hosts: vec!["mcp.example.com:8443".into()],
            ..HostPolicy::default()
        };
        assert!(ok(&p, "mcp.example.com:8443", None));
        assert!(!ok(&p, "mcp.example.com:9000", None));
    }
}
