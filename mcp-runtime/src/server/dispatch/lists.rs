//! `tools/list`, `resources/list`, `resources/templates/list` and `prompts/list`: pages
//! serialized once per registry change, per era.

use super::method::Method;
use super::{Connection, optional_params};
use crate::protocol::apps::client_supports_apps;
use crate::protocol::jsonrpc::encode_raw_result;
use crate::protocol::{Era, McpError, PaginatedParams, RequestId};
use crate::server::contract::{Rejection, RequestChecks};
use crate::server::registry::Registry;
use serde_json::value::RawValue;
use std::sync::Arc;

/// A list a `*/list` method pages through: one registry's page from a cursor, per era.
pub(super) trait Listed {
    /// The page at `cursor` (the first without one), for a client that renders MCP Apps
    /// (`apps`) or not.
    fn page(
        registry: &Registry,
        cursor: Option<&str>,
        modern: bool,
        apps: bool,
    ) -> Result<Arc<str>, McpError>;
}

/// `tools/list`.
pub(super) struct Tools;
/// `prompts/list`.
pub(super) struct Prompts;
/// `resources/list`.
pub(super) struct Resources;
/// `resources/templates/list`.
pub(super) struct Templates;

impl Listed for Tools {
    fn page(
        r: &Registry,
        cursor: Option<&str>,
        modern: bool,
        apps: bool,
    ) -> Result<Arc<str>, McpError> {
        r.tools.list_page(cursor, modern, apps)
    }
}

impl Listed for Prompts {
    fn page(
        r: &Registry,
        cursor: Option<&str>,
        modern: bool,
        _: bool,
    ) -> Result<Arc<str>, McpError> {
        r.prompts.list_page(cursor, modern)
    }
}

impl Listed for Resources {
    fn page(
        r: &Registry,
        cursor: Option<&str>,
        modern: bool,
        _: bool,
    ) -> Result<Arc<str>, McpError> {
        r.resources.list_page(cursor, modern)
    }
}

impl Listed for Templates {
    fn page(
        r: &Registry,
        cursor: Option<&str>,
        modern: bool,
        _: bool,
    ) -> Result<Arc<str>, McpError> {
        r.resources.templates_page(cursor, modern)
    }
}

impl Connection {
    /// One page of list `L`, from its `cursor`.
    pub(super) fn list<L: Listed>(
        &self,
        id: &RequestId,
        method: &'static Method,
        params: Option<&RawValue>,
        checks: Option<&dyn RequestChecks>,
    ) -> Result<Vec<u8>, Rejection> {
        let p: PaginatedParams = optional_params(params)?;
        let env = self.admitted(p.meta, method, checks)?;
        let page = L::page(
            self.inner.server.registry(),
            p.cursor.as_deref(),
            env.era == Era::Modern,
            client_supports_apps(&env.client_capabilities),
        )?;
        Ok(encode_raw_result(id, &page))
    }
}
