//! Handshake and discovery: `initialize` (legacy), `server/discover` (modern), and the
//! caching hints of modern results.

use super::capabilities::{ClientCapabilities, Implementation, ServerCapabilities};
use super::meta::RequestMeta;
use serde::{Deserialize, Serialize};

/// `initialize` params (legacy handshake).
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct InitializeParams {
    /// The version the client asks for.
    pub protocol_version: String,
    /// What the client can do.
    #[serde(default)]
    pub capabilities: ClientCapabilities,
    /// Who the client is.
    pub client_info: Implementation,
    /// `_meta`.
    #[serde(rename = "_meta", default)]
    pub meta: Option<RequestMeta>,
}

/// `initialize` result.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct InitializeResult {
    /// The negotiated version (always a legacy one).
    pub protocol_version: String,
    /// What the server offers.
    pub capabilities: ServerCapabilities,
    /// Who the server is.
    pub server_info: Implementation,
    /// Usage hints for the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
}

/// `server/discover` result body (the era fields are added by the projection).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct DiscoverResult {
    /// Modern versions this server serves.
    pub supported_versions: Vec<String>,
    /// What the server offers.
    pub capabilities: ServerCapabilities,
    /// Usage hints for the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
}

/// Params that carry nothing but `_meta` (`ping`, `server/discover`, unknown methods).
#[derive(Debug, Clone, Default, Deserialize)]
#[non_exhaustive]
pub struct MetaOnlyParams {
    /// `_meta`.
    #[serde(rename = "_meta", default)]
    pub meta: Option<RequestMeta>,
}

/// Whether a result may be shared beyond one authorization context (modern caching).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum CacheScope {
    /// Gateways may share it across users.
    Public,
    /// Only within the requesting authorization context.
    Private,
}

/// How long and how widely a modern client may cache a list or discover result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct CachePolicy {
    /// `ttlMs`: milliseconds the result stays fresh (0: revalidate every time).
    pub ttl_ms: u64,
    /// `cacheScope`.
    pub scope: CacheScope,
}

impl CachePolicy {
    /// Fresh for `ttl_ms` milliseconds, within `scope`.
    ///
    /// ```
    /// use mcp_runtime::protocol::{CachePolicy, CacheScope};
    ///
    /// let hour = CachePolicy::new(3_600_000, CacheScope::Public);
    /// assert_eq!(hour.ttl_ms, 3_600_000);
    /// ```
    pub fn new(ttl_ms: u64, scope: CacheScope) -> Self {
        Self { ttl_ms, scope }
    }
}

impl Default for CachePolicy {
    /// `ttlMs: 0`, `cacheScope: "private"`: the official TypeScript and Python SDKs' default,
    /// and the only one that stays right when a list can change at run time or depend on
    /// the caller's authorization.
    fn default() -> Self {
        Self {
            ttl_ms: 0,
            scope: CacheScope::Private,
        }
    }
}
