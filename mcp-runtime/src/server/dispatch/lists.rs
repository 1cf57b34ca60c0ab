//! `tools/list`, `resources/list`, `resources/templates/list` and `prompts/list`: pages
//! serialized once per registry change, per era.

use super::table::Method;
use super::{Connection, optional_params};
use crate::protocol::jsonrpc::encode_raw_result;
use crate::protocol::{Era, McpError, PaginatedParams, RequestId};
use crate::server::contract::{Rejection, RequestChecks};
use crate::server::registry::Registry;
use serde_json::value::RawValue;
use std::sync::Arc;

/// One registry's page from a cursor: `tools`, `prompts`, `resources` or templates.
type Page = fn(&Registry, Option<&str>, bool) -> Result<Arc<str>, McpError>;

impl Connection {
    /// `tools/list`.
    pub(super) fn list_tools(
        &self,
        id: &RequestId,
        method: &'static Method,
        params: Option<&RawValue>,
        checks: Option<&dyn RequestChecks>,
    ) -> Result<Vec<u8>, Rejection> {
        self.list(id, method, params, checks, |r, cursor, modern| {
            r.tools.list_page(cursor, modern)
        })
    }

    /// `prompts/list`.
    pub(super) fn list_prompts(
        &self,
        id: &RequestId,
        method: &'static Method,
        params: Option<&RawValue>,
        checks: Option<&dyn RequestChecks>,
    ) -> Result<Vec<u8>, Rejection> {
        self.list(id, method, params, checks, |r, cursor, modern| {
            r.prompts.list_page(cursor, modern)
        })
    }

    /// `resources/list`.
    pub(super) fn list_resources(
        &self,
        id: &RequestId,
        method: &'static Method,
        params: Option<&RawValue>,
        checks: Option<&dyn RequestChecks>,
    ) -> Result<Vec<u8>, Rejection> {
        self.list(id, method, params, checks, |r, cursor, modern| {
            r.resources.list_page(cursor, modern)
        })
    }

    /// `resources/templates/list`.
    pub(super) fn list_templates(
        &self,
        id: &RequestId,
        method: &'static Method,
        params: Option<&RawValue>,
        checks: Option<&dyn RequestChecks>,
    ) -> Result<Vec<u8>, Rejection> {
        self.list(id, method, params, checks, |r, cursor, modern| {
            r.resources.templates_page(cursor, modern)
        })
    }

    /// One page of a list, from its `cursor`.
    fn list(
        &self,
        id: &RequestId,
        method: &'static Method,
        params: Option<&RawValue>,
        checks: Option<&dyn RequestChecks>,
        page: Page,
    ) -> Result<Vec<u8>, Rejection> {
        let p: PaginatedParams = optional_params(params)?;
        let env = self.admitted(p.meta, method, checks)?;
        let page = page(
            self.inner.server.registry(),
            p.cursor.as_deref(),
            env.era == Era::Modern,
        )?;
        Ok(encode_raw_result(id, &page))
    }
}
