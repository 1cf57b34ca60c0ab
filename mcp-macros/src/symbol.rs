//! Attribute keys, in one place (after serde's `symbol.rs`).

/// `#[mcp_tool(...)]` keys.
pub(crate) const NAME: &str = "name";
pub(crate) const DESCRIPTION: &str = "description";
pub(crate) const TITLE: &str = "title";
pub(crate) const READ_ONLY: &str = "read_only";
pub(crate) const DESTRUCTIVE: &str = "destructive";
pub(crate) const IDEMPOTENT: &str = "idempotent";
pub(crate) const OPEN_WORLD: &str = "open_world";
pub(crate) const ICONS: &str = "icons";
pub(crate) const ADDITIONAL_PROPERTIES: &str = "additional_properties";
pub(crate) const SCHEMA_DIALECT: &str = "schema_dialect";
pub(crate) const TIMEOUT: &str = "timeout";
pub(crate) const CONCURRENCY: &str = "concurrency";
pub(crate) const RATE_LIMIT: &str = "rate_limit";
pub(crate) const CACHE: &str = "cache";
pub(crate) const SCOPES: &str = "scopes";
pub(crate) const CRATE: &str = "crate";

/// Every `#[mcp_tool]` key, as listed in the unknown-key error.
pub(crate) const TOOL_KEYS: &[&str] = &[
    NAME,
    DESCRIPTION,
    TITLE,
    READ_ONLY,
    DESTRUCTIVE,
    IDEMPOTENT,
    OPEN_WORLD,
    ICONS,
    ADDITIONAL_PROPERTIES,
    SCHEMA_DIALECT,
    TIMEOUT,
    CONCURRENCY,
    RATE_LIMIT,
    CACHE,
    SCOPES,
    CRATE,
];

/// `#[mcp(...)]` parameter keys.
pub(crate) const INJECT: &str = "inject";
pub(crate) const ARG: &str = "arg";
pub(crate) const DEFAULT: &str = "default";
pub(crate) const RENAME: &str = "rename";

/// Every parameter key, as listed in the unknown-key error.
pub(crate) const PARAM_KEYS: &[&str] = &[INJECT, ARG, DEFAULT, RENAME];

/// Parameter types injected from the request context (backed by a `FromContext` bound).
pub(crate) const INJECTED_TYPES: &[&str] = &["RequestContext", "State", "FileService"];

/// The type name of the request context (at most one such parameter).
pub(crate) const CONTEXT_TYPE: &str = "RequestContext";
