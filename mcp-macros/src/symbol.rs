//! Attribute keys, in one place (after serde's `symbol.rs`).

// Keys of every attribute.
pub(crate) const NAME: &str = "name";
pub(crate) const DESCRIPTION: &str = "description";
pub(crate) const TITLE: &str = "title";
pub(crate) const ICONS: &str = "icons";
pub(crate) const CRATE: &str = "crate";

// `#[mcp_tool(...)]` keys.
pub(crate) const READ_ONLY: &str = "read_only";
pub(crate) const DESTRUCTIVE: &str = "destructive";
pub(crate) const IDEMPOTENT: &str = "idempotent";
pub(crate) const OPEN_WORLD: &str = "open_world";
pub(crate) const ADDITIONAL_PROPERTIES: &str = "additional_properties";
pub(crate) const SCHEMA_DIALECT: &str = "schema_dialect";
pub(crate) const TIMEOUT: &str = "timeout";
pub(crate) const CONCURRENCY: &str = "concurrency";
pub(crate) const RATE_LIMIT: &str = "rate_limit";
pub(crate) const CACHE: &str = "cache";
pub(crate) const SCOPES: &str = "scopes";
pub(crate) const TASK: &str = "task";
pub(crate) const APP: &str = "app";
pub(crate) const VISIBILITY: &str = "visibility";
pub(crate) const CONFIRM: &str = "confirm";
pub(crate) const UNCONFIRMABLE: &str = "unconfirmable";

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
    TASK,
    APP,
    VISIBILITY,
    CONFIRM,
    UNCONFIRMABLE,
    CRATE,
];

// `#[mcp_resource(...)]` keys.
pub(crate) const URI: &str = "uri";
pub(crate) const TEMPLATE: &str = "template";
pub(crate) const MIME_TYPE: &str = "mime_type";
pub(crate) const AUDIENCE: &str = "audience";
pub(crate) const PRIORITY: &str = "priority";
pub(crate) const SIZE: &str = "size";
pub(crate) const ALLOW_DOT_SEGMENTS: &str = "allow_dot_segments";

/// Every `#[mcp_resource]` key, as listed in the unknown-key error.
pub(crate) const RESOURCE_KEYS: &[&str] = &[
    URI,
    TEMPLATE,
    NAME,
    TITLE,
    DESCRIPTION,
    MIME_TYPE,
    AUDIENCE,
    PRIORITY,
    SIZE,
    ICONS,
    ALLOW_DOT_SEGMENTS,
    SCOPES,
    CRATE,
];

/// Every `#[mcp_prompt]` key, as listed in the unknown-key error.
pub(crate) const PROMPT_KEYS: &[&str] = &[NAME, TITLE, DESCRIPTION, ICONS, SCOPES, CRATE];

// `#[mcp(...)]` parameter keys.
pub(crate) const INJECT: &str = "inject";
pub(crate) const ARG: &str = "arg";
pub(crate) const DEFAULT: &str = "default";
pub(crate) const RENAME: &str = "rename";
pub(crate) const COMPLETE: &str = "complete";

/// The parameter keys of a tool, a resource and a prompt, as listed in the unknown-key error.
pub(crate) const TOOL_PARAM_KEYS: &[&str] = &[INJECT, ARG, DEFAULT, RENAME];
pub(crate) const RESOURCE_PARAM_KEYS: &[&str] = &[INJECT, ARG, RENAME, COMPLETE];
pub(crate) const PROMPT_PARAM_KEYS: &[&str] = &[INJECT, ARG, RENAME, DESCRIPTION, COMPLETE];

/// Parameter types injected without `#[mcp(inject)]`: the prelude's extractors. The guess is
/// checked both ways through the types' traits (see `mcp_runtime::__private`).
pub(crate) const INJECTED_TYPES: &[&str] = &["RequestContext", "State"];

/// The type name of the request context (at most one such parameter).
pub(crate) const CONTEXT_TYPE: &str = "RequestContext";
