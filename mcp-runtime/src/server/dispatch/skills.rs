//! The skills extension's methods (SEP-2640): `skills/list` (the catalog's pages),
//! `skills/get {uri}` (one entry; a URI that names no served skill is `-32602` with
//! `data.uri`) and `resources/directory/read {uri, cursor?}` (a skill folder's direct
//! children). Skill files themselves are read with `resources/read` (`read.rs`), as
//! resources of the registry.
//!
//! All three answer at once from what was loaded (no user code runs). Their rows exist in
//! both eras, as the SEP defines them against the base protocol: a 2025 client that sees the
//! extension in `initialize` gets the same entries, without the 2026-07-28 fields
//! (`resultType`, `ttlMs`, `cacheScope`, `_meta` serverInfo), which modern results carry
//! (the list cache policy of the server: `ServerBuilder::list_cache`).

use super::Scope;
use super::method::Method;
use super::{Connection, optional_params, required_params};
use crate::protocol::apps::client_supports_apps;
use crate::protocol::jsonrpc::encode_raw_result;
use crate::protocol::skills::{GetSkillResult, SkillUriParams};
use crate::protocol::{Era, McpError, PaginatedParams, RequestId};
use crate::server::contract::Rejection;
use crate::server::registry::skills::not_a_directory;
use crate::server::visibility::View;
use serde::Serialize;
use serde_json::value::RawValue;

impl Connection {
    /// `skills/list`: one page, from its `cursor`.
    pub(super) fn list_skills(
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
        let page = self.inner.server.registry().skills.list_page(
            p.cursor.as_deref(),
            env.era == Era::Modern,
            &view,
        )?;
        Ok(encode_raw_result(id, &page))
    }

    /// `skills/get`: the entry of the skill whose `SKILL.md` is `uri`.
    pub(super) fn get_skill(
        &self,
        id: &RequestId,
        method: &'static Method,
        params: Option<&RawValue>,
        scope: &Scope<'_>,
    ) -> Result<Vec<u8>, Rejection> {
        let checks = scope.checks;
        let p: SkillUriParams = required_params(params)?;
        let env = self.admitted(p.meta, method, checks)?;
        valid_uri(&p.uri)?;
        let skills = &self.inner.server.registry().skills;
        let hidden = self.hides_skill(&scope.outlet, &p.uri);
        let skill = skills.entry(&p.uri).filter(|_| !hidden).ok_or_else(|| {
            McpError::invalid_params(format!(
                "no skill is served at {} (skills/list names every skill by the URI of its SKILL.md)",
                p.uri
            ))
            .with_data(serde_json::json!({ "uri": p.uri }))
        })?;
        Ok(self.skills_answer(id, env.era, method, &GetSkillResult { skill }))
    }

    /// `resources/directory/read`: one page of a skill folder's direct children.
    pub(super) fn read_directory(
        &self,
        id: &RequestId,
        method: &'static Method,
        params: Option<&RawValue>,
        scope: &Scope<'_>,
    ) -> Result<Vec<u8>, Rejection> {
        let checks = scope.checks;
        let p: SkillUriParams = required_params(params)?;
        let env = self.admitted(p.meta, method, checks)?;
        valid_uri(&p.uri)?;
        if self.hides_skill(&scope.outlet, &p.uri) {
            return Err(not_a_directory(&p.uri).into());
        }
        let result = self
            .inner
            .server
            .registry()
            .skills
            .read_directory(&p.uri, p.cursor.as_deref())?;
        Ok(self.skills_answer(id, env.era, method, &result))
    }
}

/// `-32602` for a URI `resources/read` would refuse too (empty, over
/// [`MAX_URI_BYTES`](super::read::MAX_URI_BYTES), spaces, no scheme), before any lookup and
/// without echoing it (it may be megabytes).
fn valid_uri(uri: &str) -> Result<(), McpError> {
    match super::read::uri_problem(uri) {
        Some(problem) => Err(McpError::invalid_params(format!("invalid uri: {problem}"))),
        None => Ok(()),
    }
}

impl Connection {
    /// Whether `uri` belongs to a skill the caller of `outlet` may not see
    /// (`server::visibility`): it answers as a URI no skill serves.
    pub(super) fn hides_skill(&self, outlet: &super::Outlet, uri: &str) -> bool {
        self.inner.server.registry().skills.hides(
            uri,
            self.caller_of(outlet),
            self.inner.server.visibility(),
        )
    }

    /// A skills result in the request's era, through the answer every read and prompt gets
    /// (`serve.rs`): modern with the era fields and the skills' cache policy, within the
    /// response budget.
    fn skills_answer<R: Serialize>(
        &self,
        id: &RequestId,
        era: Era,
        method: &'static Method,
        result: &R,
    ) -> Vec<u8> {
        let cache = self.inner.server.inner.registry.skills.cache;
        self.answer(id, era, method.name, result, None, Some(cache))
            .0
    }
}
