//! `tools/list`, `resources/list`, `resources/templates/list` and `prompts/list`: pages
//! serialized once per registry change, per era.

use super::Scope;
use super::method::Method;
use super::{Connection, optional_params};
use crate::protocol::apps::client_supports_apps;
use crate::protocol::jsonrpc::encode_raw_result;
use crate::protocol::{Era, McpError, PaginatedParams, RequestId};
use crate::server::contract::Rejection;
use crate::server::registry::Registry;
use crate::server::visibility::View;
use serde_json::value::RawValue;
use std::sync::Arc;

/// A list a `*/list` method pages through: one registry's page from a cursor, per era.
pub(super) trait Listed {
    /// The page at `cursor` (the first without one), as `view`'s caller sees it.
    fn page(
        registry: &Registry,
        cursor: Option<&str>,
        modern: bool,
        view: &View<'_>,
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
        view: &View<'_>,
    ) -> Result<Arc<str>, McpError> {
        r.tools.list_page(cursor, modern, view)
    }
}

impl Listed for Prompts {
    fn page(
        r: &Registry,
        cursor: Option<&str>,
        modern: bool,
        view: &View<'_>,
    ) -> Result<Arc<str>, McpError> {
        r.prompts.list_page(cursor, modern, view)
    }
}

impl Listed for Resources {
    fn page(
        r: &Registry,
        cursor: Option<&str>,
        modern: bool,
        view: &View<'_>,
    ) -> Result<Arc<str>, McpError> {
        r.resources.list_page(cursor, modern, view)
    }
}

impl Listed for Templates {
    fn page(
        r: &Registry,
        cursor: Option<&str>,
        modern: bool,
        view: &View<'_>,
    ) -> Result<Arc<str>, McpError> {
        r.resources.templates_page(cursor, modern, view)
    }
}

impl Connection {
    /// One page of list `L`, from its `cursor`.
    pub(super) fn list<L: Listed>(
        &self,
        id: &RequestId,
        method: &'static Method,
        params: Option<&RawValue>,
        scope: &Scope<'_>,
    ) -> Result<Vec<u8>, Rejection> {
        let checks = scope.checks;
        let p: PaginatedParams = optional_params(params)?;
        let env = self.admitted(p.meta, method, checks)?;
        let view = View {
            apps: client_supports_apps(&env.client_capabilities),
            caller: self.caller_of(&scope.outlet),
            rules: self.inner.server.visibility(),
        };
        let page = L::page(
            self.inner.server.registry(),
            p.cursor.as_deref(),
            env.era == Era::Modern,
            &view,
        )?;
        Ok(encode_raw_result(id, &page))
    }
}
