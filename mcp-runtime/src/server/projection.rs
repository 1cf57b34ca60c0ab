//! Era projection of results: what a modern result adds, and what a legacy one must not have.
//!
//! Modern (2026-07-28) results carry `resultType`, `_meta["io.modelcontextprotocol/serverInfo"]`,
//! and on discover, list and read results `ttlMs` and `cacheScope`. Legacy results carry none
//! of these (spec `dual-era.md` §1 and §3.5).

use crate::protocol::{CachePolicy, CacheScope, JsonObject};
use serde::Serialize;
use serde_json::value::RawValue;

/// A modern result: the body plus the era fields.
#[derive(Serialize)]
pub(crate) struct Modern<'a, T: Serialize> {
    #[serde(flatten)]
    pub(crate) body: &'a T,
    #[serde(rename = "resultType")]
    pub(crate) result_type: &'static str,
    #[serde(rename = "ttlMs", skip_serializing_if = "Option::is_none")]
    pub(crate) ttl_ms: Option<u64>,
    #[serde(rename = "cacheScope", skip_serializing_if = "Option::is_none")]
    pub(crate) cache_scope: Option<CacheScope>,
    #[serde(rename = "_meta")]
    pub(crate) meta: ModernMeta<'a>,
}

/// The `_meta` of a modern result: the server's identity, plus the body's own `_meta`.
#[derive(Serialize)]
pub(crate) struct ModernMeta<'a> {
    // Keep in step with `protocol::meta::SERVER_INFO_KEY`.
    #[serde(rename = "io.modelcontextprotocol/serverInfo")]
    server_info: &'a RawValue,
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    extra: Option<&'a JsonObject>,
}

impl<'a, T: Serialize> Modern<'a, T> {
    /// A complete modern result. `cache` is given for discover, list and read results.
    /// The body's own `_meta` must be passed as `extra_meta` (and left out of `body`).
    pub(crate) fn complete(
        body: &'a T,
        server_info: &'a RawValue,
        cache: Option<CachePolicy>,
        extra_meta: Option<&'a JsonObject>,
    ) -> Self {
        Self {
            body,
            result_type: "complete",
            ttl_ms: cache.map(|c| c.ttl_ms),
            cache_scope: cache.map(|c| c.scope),
            meta: ModernMeta {
                server_info,
                extra: extra_meta,
            },
        }
    }

    /// An `input_required` result (never with caching hints).
    /// A task handle (`CreateTaskResult`, the tasks extension): `resultType: "task"`.
    pub(crate) fn task(body: &'a T, server_info: &'a RawValue) -> Self {
        Self {
            body,
            result_type: "task",
            ttl_ms: None,
            cache_scope: None,
            meta: ModernMeta {
                server_info,
                extra: None,
            },
        }
    }

    pub(crate) fn input_required(body: &'a T, server_info: &'a RawValue) -> Self {
        Self {
            body,
            result_type: "input_required",
            ttl_ms: None,
            cache_scope: None,
            meta: ModernMeta {
                server_info,
                extra: None,
            },
        }
    }
}

/// Serializes any value to a boxed raw JSON value (used for results built once and served
/// many times).
pub(crate) fn to_raw<T: Serialize>(value: &T) -> Box<RawValue> {
    serde_json::value::to_raw_value(value).expect("MCP wire types always serialize")
}
