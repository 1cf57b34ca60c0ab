//! [`ToolPolicy`]: the policies a tool declares (`#[mcp_tool(timeout = "30s", concurrency = 4,
//! rate_limit = "10/s", cache = "60s", scopes = ["files:write"])]`), as plain data.
//!
//! A tool only declares; the server enforces, with the layers of
//! [`pipeline`](crate::pipeline), which it assembles once per tool at registration. A tool
//! that declares nothing gets none of those layers and pays nothing for them. Values are
//! checked at registration ([`ServerBuilder::build`](crate::ServerBuilder::build) reports a
//! zero concurrency or a zero rate, and `cache` on a tool whose annotations do not say it is
//! both read-only and idempotent); the attribute checks them at compile time.
//!
//! `cache` is enforced by [`ResultCache`](crate::pipeline::ResultCache). `scopes` are
//! checked by the dispatcher before a call enters the tool's stack, so a refusal can be
//! answered with the transport's own challenge (HTTP 403).

use super::Confirm;
use crate::protocol::ToolAnnotations;
use std::borrow::Cow;
use std::fmt;
use std::str::FromStr;
use std::time::Duration;

/// How many calls a caller may make in a period: `rate_limit = "10/s"` is
/// `Rate::new(10, Duration::from_secs(1))`.
///
/// ```
/// use mcp_runtime::tool::Rate;
/// use std::time::Duration;
///
/// let rate: Rate = "120/m".parse().unwrap();
/// assert_eq!(rate, Rate::new(120, Duration::from_secs(60)));
/// assert_eq!(rate.to_string(), "120/m");
/// assert!("ten/s".parse::<Rate>().is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Rate {
    count: u32,
    period: Duration,
}

impl Rate {
    /// `count` calls per `period`. A zero count or period is refused at registration.
    pub const fn new(count: u32, period: Duration) -> Self {
        Self { count, period }
    }

    /// `count` calls per second.
    pub const fn per_second(count: u32) -> Self {
        Self::new(count, Duration::from_secs(1))
    }

    /// `count` calls per minute.
    pub const fn per_minute(count: u32) -> Self {
        Self::new(count, Duration::from_secs(60))
    }

    /// `count` calls per hour.
    pub const fn per_hour(count: u32) -> Self {
        Self::new(count, Duration::from_secs(3600))
    }

    /// Calls allowed per period.
    pub const fn count(&self) -> u32 {
        self.count
    }

    /// The period.
    pub const fn period(&self) -> Duration {
        self.period
    }
}

impl fmt::Display for Rate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.period.as_secs() {
            1 if self.period.subsec_nanos() == 0 => write!(f, "{}/s", self.count),
            60 if self.period.subsec_nanos() == 0 => write!(f, "{}/m", self.count),
            3600 if self.period.subsec_nanos() == 0 => write!(f, "{}/h", self.count),
            _ => write!(f, "{} per {:?}", self.count, self.period),
        }
    }
}

/// Why a rate or duration string was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct PolicyParseError(String);

impl FromStr for Rate {
    type Err = PolicyParseError;

    /// `"N/s"`, `"N/m"` or `"N/h"`, N a whole number above zero (the attribute's syntax).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = || {
            PolicyParseError(format!(
                "{s:?} is not a rate; write it like \"10/s\", \"100/m\" or \"1000/h\""
            ))
        };
        let (count, unit) = s.split_once('/').ok_or_else(bad)?;
        if !count.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad());
        }
        let count: u32 = count.parse().map_err(|_| bad())?;
        if count == 0 {
            return Err(bad());
        }
        match unit {
            "s" => Ok(Self::per_second(count)),
            "m" => Ok(Self::per_minute(count)),
            "h" => Ok(Self::per_hour(count)),
            _ => Err(bad()),
        }
    }
}

/// Parses a duration written like the attribute's: `"250ms"`, `"30s"`, `"2m"`, `"1h"` (a
/// whole number and a unit, above zero).
///
/// ```
/// use mcp_runtime::tool::parse_duration;
/// use std::time::Duration;
///
/// assert_eq!(parse_duration("250ms"), Ok(Duration::from_millis(250)));
/// assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
/// assert!(parse_duration("0s").is_err() && parse_duration("5").is_err());
/// ```
pub fn parse_duration(s: &str) -> Result<Duration, PolicyParseError> {
    let bad = || {
        PolicyParseError(format!(
            "{s:?} is not a duration; write it like \"250ms\", \"30s\", \"2m\" or \"1h\""
        ))
    };
    let digits = s.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return Err(bad());
    }
    let (number, unit) = s.split_at(digits);
    let n: u64 = number.parse().map_err(|_| bad())?;
    let d = match unit {
        "ms" => Duration::from_millis(n),
        "s" => Duration::from_secs(n),
        "m" => Duration::from_secs(n.checked_mul(60).ok_or_else(bad)?),
        "h" => Duration::from_secs(n.checked_mul(3600).ok_or_else(bad)?),
        _ => return Err(bad()),
    };
    if d.is_zero() {
        return Err(bad());
    }
    Ok(d)
}

/// The policies a tool declares ([`Tool::policy`](super::Tool::policy)); the server enforces
/// them with the layers of [`pipeline`](crate::pipeline).
///
/// ```
/// use mcp_runtime::tool::{Rate, ToolPolicy};
/// use std::time::Duration;
///
/// let policy = ToolPolicy::new()
///     .timeout(Duration::from_secs(30))
///     .concurrency(4)
///     .rate_limit(Rate::per_second(10));
/// assert_eq!(policy.concurrency, Some(4));
/// assert!(ToolPolicy::default().is_empty());
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ToolPolicy {
    /// Past this, the call's future is dropped and the model gets an `isError` result.
    pub timeout: Option<Duration>,
    /// At most this many calls of the tool run at once; more wait, then get "busy".
    pub concurrency: Option<usize>,
    /// Calls per caller (authenticated identity, else session, else connection).
    pub rate_limit: Option<Rate>,
    /// Answer a repeated call from the result of an earlier one for this long, keyed by
    /// tool, caller and arguments; only successful results are kept (see
    /// [`ResultCache`](crate::pipeline::ResultCache)). Only for tools whose annotations say
    /// `readOnlyHint` and `idempotentHint`: registration refuses it on any other.
    pub cache: Option<Duration>,
    /// OAuth scopes the caller's token must carry, all of them. To a caller authenticated
    /// over HTTP without them the tool does not exist: it is not listed, and a call is
    /// refused as an unknown tool's (see `server::visibility`); with
    /// [`ServerBuilder::step_up_scopes`](crate::ServerBuilder::step_up_scopes) it is listed
    /// and the call gets 403 with an `insufficient_scope` challenge naming them. A local
    /// client (stdio) is not held to scopes (see [`Caller`](super::Caller)).
    pub scopes: Vec<Cow<'static, str>>,
    /// Whether calls may run as tasks (`crate::task`): a client with the tasks extension
    /// gets a task handle and polls for the result.
    pub task: crate::task::TaskSupport,
    /// Ask the user before every call, and run only on an explicit accept (see
    /// [`Confirm`]).
    pub confirm: Option<Confirm>,
}

impl ToolPolicy {
    /// No policy.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets [`timeout`](Self::timeout).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Sets [`concurrency`](Self::concurrency).
    pub fn concurrency(mut self, limit: usize) -> Self {
        self.concurrency = Some(limit);
        self
    }

    /// Sets [`rate_limit`](Self::rate_limit).
    pub fn rate_limit(mut self, rate: Rate) -> Self {
        self.rate_limit = Some(rate);
        self
    }

    /// Sets [`cache`](Self::cache).
    pub fn cache(mut self, ttl: Duration) -> Self {
        self.cache = Some(ttl);
        self
    }

    /// Sets [`task`](Self::task).
    pub fn task(mut self, support: crate::task::TaskSupport) -> Self {
        self.task = support;
        self
    }

    /// Sets [`confirm`](Self::confirm).
    pub fn confirm(mut self, confirm: Confirm) -> Self {
        self.confirm = Some(confirm);
        self
    }

    /// Adds a required scope.
    pub fn scope(mut self, scope: impl Into<Cow<'static, str>>) -> Self {
        self.scopes.push(scope.into());
        self
    }

    /// Whether nothing is declared.
    pub fn is_empty(&self) -> bool {
        *self == Self::default()
    }

    /// What is wrong with the values, if anything, for a tool with `annotations` (checked
    /// at registration).
    pub(crate) fn problems(&self, annotations: Option<&ToolAnnotations>) -> Vec<String> {
        let mut out = Vec::new();
        if self.timeout.is_some_and(|t| t.is_zero()) {
            out.push("a timeout of zero would fail every call".to_owned());
        }
        if self.concurrency == Some(0) {
            out.push("a concurrency limit of zero would refuse every call".to_owned());
        }
        if self
            .rate_limit
            .is_some_and(|r| r.count == 0 || r.period.is_zero())
        {
            out.push("a rate limit needs a count and a period above zero".to_owned());
        }
        if self.cache.is_some_and(|t| t.is_zero()) {
            out.push("a cache lifetime of zero caches nothing".to_owned());
        }
        if let Some(ttl) = self.cache.filter(|t| *t > MAX_CACHE_TTL) {
            out.push(format!(
                "a cache lifetime of {ttl:?} cannot be honoured; the longest is {} days",
                MAX_CACHE_TTL.as_secs() / 86_400
            ));
        }
        if self.cache.is_some()
            && let Some(problem) = cache_needs(annotations)
        {
            out.push(problem);
        }
        for scope in &self.scopes {
            if !is_scope_token(scope) {
                out.push(format!(
                    "{scope:?} is not an OAuth scope (printable ASCII without spaces, quotes or backslashes)"
                ));
            }
        }
        out
    }
}

/// The longest `cache` lifetime a tool may declare: a year. Longer ones are refused at
/// registration, a clear `build()` error, where the cache underneath would panic.
pub const MAX_CACHE_TTL: std::time::Duration = std::time::Duration::from_secs(365 * 86_400);

/// Why `cache` is refused on a tool with `annotations`, if it is: a cached answer is only
/// right for a tool that changes nothing and answers the same arguments the same way.
fn cache_needs(annotations: Option<&ToolAnnotations>) -> Option<String> {
    let marked =
        |hint: fn(&ToolAnnotations) -> Option<bool>| annotations.and_then(hint) == Some(true);
    let missing = match (marked(|a| a.read_only_hint), marked(|a| a.idempotent_hint)) {
        (true, true) => return None,
        (false, false) => {
            "neither read-only (`readOnlyHint: true`) nor idempotent (`idempotentHint: true`)"
        }
        (false, true) => "not read-only (`readOnlyHint: true`)",
        (true, false) => "not idempotent (`idempotentHint: true`)",
    };
    Some(format!(
        "`cache` is only for tools annotated read-only and idempotent, and this tool is \
         {missing}; mark it so if it is (`#[mcp_tool(read_only, idempotent, cache = ...)]`), \
         or remove `cache`"
    ))
}

/// RFC 6749 §3.3 `scope-token`: one or more of `%x21 / %x23-5B / %x5D-7E`.
pub fn is_scope_token(scope: &str) -> bool {
    !scope.is_empty()
        && scope
            .bytes()
            .all(|b| b == 0x21 || (0x23..=0x5B).contains(&b) || (0x5D..=0x7E).contains(&b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_and_durations_parse_like_the_attribute() {
        assert_eq!("10/s".parse(), Ok(Rate::per_second(10)));
        assert_eq!("1000/h".parse(), Ok(Rate::per_hour(1000)));
        for bad in ["", "10", "0/s", "10/d", "-1/s", "+10/s", "10/ s", "1.5/s"] {
            assert!(bad.parse::<Rate>().is_err(), "{bad}");
        }
        assert_eq!(parse_duration("30s"), Ok(Duration::from_secs(30)));
        assert_eq!(parse_duration("1h"), Ok(Duration::from_secs(3600)));
        for bad in ["", "s", "30", "0ms", "1.5s", "30 s", "3d", "-1s"] {
            assert!(parse_duration(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn problems_are_found() {
        assert!(ToolPolicy::new().problems(None).is_empty());
        let bad = ToolPolicy::new()
            .concurrency(0)
            .rate_limit(Rate::per_second(0))
            .scope("has space");
        // The two zero values and the bad scope's syntax.
        assert_eq!(bad.problems(None).len(), 3);
        assert!(is_scope_token("files:write") && !is_scope_token("a\"b"));
    }

    #[test]
    fn cache_needs_read_only_and_idempotent_annotations() {
        let cached = ToolPolicy::new().cache(Duration::from_secs(60));
        let hints = |read_only, idempotent| ToolAnnotations {
            read_only_hint: read_only,
            idempotent_hint: idempotent,
            ..ToolAnnotations::default()
        };
        assert!(
            cached
                .problems(Some(&hints(Some(true), Some(true))))
                .is_empty()
        );
        for (annotations, missing) in [
            (
                None,
                "neither read-only (`readOnlyHint: true`) nor idempotent",
            ),
            (Some(hints(None, None)), "neither read-only"),
            (
                Some(hints(Some(true), Some(false))),
                "this tool is not idempotent",
            ),
            (Some(hints(Some(true), None)), "this tool is not idempotent"),
            (Some(hints(None, Some(true))), "this tool is not read-only"),
        ] {
            let problems = cached.problems(annotations.as_ref());
            assert_eq!(problems.len(), 1, "{problems:?}");
            assert!(
                problems[0].contains(missing),
                "{missing} in {}",
                problems[0]
            );
            assert!(problems[0].starts_with("`cache` is only for tools annotated"));
        }
        // Without `cache`, the annotations do not matter.
        assert!(ToolPolicy::new().problems(None).is_empty());
    }
}
