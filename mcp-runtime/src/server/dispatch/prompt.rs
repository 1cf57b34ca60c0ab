//! `prompts/get`: the prompt's arguments checked, then its stack (audit, panic isolation,
//! the server's layers) renders it. An unknown prompt, a missing or unknown argument are
//! `-32602`; a failure inside is `-32603`.

use super::method::Method;
use super::serve::{error_reply, wrong_outcome};
use super::{Connection, Routed, Scope, required_params};
use crate::context::RequestContext;
use crate::pipeline::{BoxError, McpRequest, Outcome};
use crate::protocol::methods;
use crate::protocol::{Era, ErrorCode, GetPromptParams, McpError, RequestId};
use crate::server::contract::{Disposition, Rejection};
use crate::server::visibility::ItemKind;
use futures::future::BoxFuture;
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};

impl Connection {
    pub(super) fn get_prompt(
        &self,
        id: RequestId,
        method: &'static Method,
        params: Option<&RawValue>,
        scope: Scope<'_>,
    ) -> Routed {
        let prepared = (|| -> Result<_, Rejection> {
            let p: GetPromptParams = required_params(params)?;
            let env = self.admitted_named(p.meta, method, &p.name, scope.checks)?;
            let prompt = self
                .inner
                .server
                .registry()
                .prompts
                .get(&p.name)
                .filter(|p| self.may_see(&scope.outlet, ItemKind::Prompt, &p.name, &p.scopes))
                .ok_or_else(|| {
                    McpError::new(
                        ErrorCode::INVALID_PARAMS,
                        format!("Prompt {} not found", p.name),
                    )
                    .with_data(json!({ "name": p.name }))
                })?;
            let arguments = p.arguments.unwrap_or_default();
            prompt
                .check_arguments(&arguments)
                .map_err(|e| e.into_mcp_error())?;
            let round = self.round(
                env.era,
                method.name,
                params,
                &scope.outlet,
                p.input_responses,
                p.request_state,
            )?;
            Ok((env, prompt, arguments, round))
        })();
        let (env, prompt, arguments, round) = match prepared {
            Ok(p) => p,
            Err(rejection) => return Routed::rejected(&id, rejection),
        };
        let outlet = scope.outlet;
        let cx = self.context(&id, env, &outlet, round);
        let arguments: Map<String, Value> = arguments
            .into_iter()
            .map(|(k, v)| (k, Value::String(v)))
            .collect();
        let request = McpRequest::new(method.spec, prompt.name.clone(), arguments, cx.clone());
        let future: BoxFuture<'static, _> = Box::pin(prompt.stack.call(request));
        self.serve(
            id,
            Self::after_spend(&cx, future),
            outlet,
            cx,
            finish_prompt,
        )
    }
}

fn finish_prompt(
    this: &Connection,
    id: &RequestId,
    cx: &RequestContext,
    out: Result<Outcome, BoxError>,
) -> (Vec<u8>, Disposition) {
    match this.outcome(id, cx, out) {
        Ok(Outcome::Prompt(mut result)) => {
            let meta = match cx.era() {
                Era::Modern => result.meta.take(),
                Era::Legacy => None,
            };
            // No caching hints on prompts/get (server/utilities/caching).
            this.answer(id, cx.era(), methods::PROMPTS_GET.name, &result, meta, None)
        }
        Ok(_) => error_reply(id, wrong_outcome(methods::PROMPTS_GET.name)),
        Err(answer) => answer,
    }
}
