//! `resources/read`: the resource with exactly this URI, or the first template that
//! matches, through its stack.
//!
//! Errors follow `primitives.md`: a URI nothing serves is "Resource not found" (`-32602` with
//! `data.uri` on the modern leg, `-32002` on the legacy one); a URI that is not one (no
//! scheme, spaces or control characters) is `-32602` with `data.reason = "invalid_uri"`; a
//! failure inside is `-32603`.

use super::method::Method;
use super::serve::{error_reply, wrong_outcome};
use super::{Connection, Routed, Scope, required_params};
use crate::context::RequestContext;
use crate::pipeline::{BoxError, Outcome};
use crate::protocol::methods;
use crate::protocol::{Era, RequestId, ResourceUriParams};
use crate::resource::ResourceError;
use crate::server::contract::{Disposition, Rejection};
use crate::server::registry::resources::Route;
use crate::server::visibility::ItemKind;
use futures::future::BoxFuture;
use serde_json::value::RawValue;

impl Connection {
    /// Whether the caller of `outlet` may see the resource or template `route` reaches for
    /// `uri`, and the skill `uri` belongs to if it is a skill's file.
    pub(super) fn may_see_route(&self, outlet: &super::Outlet, route: &Route, uri: &str) -> bool {
        let seen = match route {
            Route::Exact(r) => self.may_see(outlet, r.item, &r.uri, &r.scopes),
            Route::Template(t, _) => self.may_see(
                outlet,
                ItemKind::ResourceTemplate,
                t.template.as_str(),
                &t.scopes,
            ),
        };
        seen && !self.hides_skill(outlet, uri)
    }

    pub(super) fn read_resource(
        &self,
        id: RequestId,
        method: &'static Method,
        params: Option<&RawValue>,
        scope: Scope<'_>,
    ) -> Routed {
        let prepared = (|| -> Result<_, Rejection> {
            let p: ResourceUriParams = required_params(params)?;
            let env = self.admitted_named(p.meta, method, &p.uri, scope.checks)?;
            let round = self.round(
                env.era,
                method.name,
                params,
                &scope.outlet,
                p.input_responses,
                p.request_state,
            )?;
            if let Some(reason) = uri_problem(&p.uri) {
                return Err(ResourceError::InvalidUri(reason.into())
                    .into_mcp_error(&p.uri, env.era)
                    .into());
            }
            let route = self
                .inner
                .server
                .registry()
                .resources
                .route(&p.uri)
                .filter(|route| self.may_see_route(&scope.outlet, route, &p.uri))
                .ok_or_else(|| ResourceError::NotFound.into_mcp_error(&p.uri, env.era))?;
            Ok((env, p.uri, route, round))
        })();
        let (env, uri, route, round) = match prepared {
            Ok(p) => p,
            Err(rejection) => return Routed::rejected(&id, rejection),
        };
        let outlet = scope.outlet;
        let cx = self.context(&id, env, &outlet, round);
        let future: BoxFuture<'static, _> = match route {
            Route::Exact(r) => Box::pin(r.stack.call(r.request(uri, cx.clone()))),
            Route::Template(t, variables) => {
                Box::pin(t.stack.call(t.request(uri, variables, cx.clone())))
            }
        };
        self.serve(id, Self::after_spend(&cx, future), outlet, cx, finish_read)
    }
}

fn finish_read(
    this: &Connection,
    id: &RequestId,
    cx: &RequestContext,
    out: Result<Outcome, BoxError>,
) -> (Vec<u8>, Disposition) {
    match this.outcome(id, cx, out) {
        Ok(Outcome::Read(mut result)) => {
            // Modern: the result's `_meta` goes beside the server's; legacy: it stays in it.
            let meta = match cx.era() {
                Era::Modern => result.meta.take(),
                Era::Legacy => None,
            };
            let cache = Some(this.inner.server.inner.read_cache);
            this.answer(
                id,
                cx.era(),
                methods::RESOURCES_READ.name,
                &result,
                meta,
                cache,
            )
        }
        Ok(_) => error_reply(id, wrong_outcome(methods::RESOURCES_READ.name)),
        Err(answer) => answer,
    }
}

/// The longest URI read or followed (browsers and proxies stop near 8 KiB too): a URI is
/// a name, and a longer one only costs memory where it is kept (subscriptions).
pub(crate) const MAX_URI_BYTES: usize = 8 * 1024;

/// Why `uri` is not a URI at all (as opposed to one nothing serves).
pub(super) fn uri_problem(uri: &str) -> Option<&'static str> {
    if uri.is_empty() {
        return Some("the URI is empty");
    }
    if uri.len() > MAX_URI_BYTES {
        return Some("the URI is longer than 8 KiB");
    }
    if uri.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Some("a URI has no spaces or control characters");
    }
    let scheme = uri.split_once(':').map(|(s, _)| s);
    let valid_scheme = scheme.is_some_and(|s| {
        s.starts_with(|c: char| c.is_ascii_alphabetic())
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
    });
    (!valid_scheme).then_some("a URI starts with a scheme (`file:`, `config:`, …)")
}
