//! `tools/list`, `resources/list`, `resources/templates/list` and `prompts/list`: pages
//! serialized once per registry change, per era.

use super::table::Method;
use super::{Connection, optional_params};
use crate::protocol::jsonrpc::encode_raw_result;
use crate::protocol::{Era, PaginatedParams, RequestId};
use crate::server::contract::{Rejection, RequestChecks};
use serde_json::value::RawValue;

impl Connection {
    /// One page of a list, from its `cursor`.
    pub(super) fn list(
        &self,
        id: &RequestId,
        method: &'static Method,
        params: Option<&RawValue>,
        checks: Option<&dyn RequestChecks>,
    ) -> Result<Vec<u8>, Rejection> {
        let p: PaginatedParams = optional_params(params)?;
        let env = self.admitted(p.meta, method, checks)?;
        let registry = self.inner.server.registry();
        let cursor = p.cursor.as_deref();
        let modern = env.era == Era::Modern;
        let page = match method.name {
            "tools/list" => registry.tools.list_page(cursor, modern),
            "prompts/list" => registry.prompts.list_page(cursor, modern),
            "resources/list" => registry.resources.list_page(cursor, modern),
            _ => registry.resources.templates_page(cursor, modern),
        }?;
        Ok(encode_raw_result(id, &page))
    }
}
