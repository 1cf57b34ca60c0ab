//! `completion/complete`: suggestions for a prompt's argument or a template's variable,
//! from the item's own completer (user code: a panic in it is answered like one in a tool).
//! An unknown prompt, template or argument is `-32602`.

use super::method::Method;
use super::serve::error_reply;
use super::{Connection, Routed, Scope, required_params};
use crate::context::RequestContext;
use crate::prompt::PromptArguments;
use crate::protocol::jsonrpc::encode_result;
use crate::protocol::{
    CompleteParams, CompleteResult, Completion, CompletionReference, Era, ErrorCode, McpError,
    RequestId,
};
use crate::server::contract::{Disposition, Rejection};
use crate::server::projection::Modern;
use crate::server::registry::prompts::RegisteredPrompt;
use crate::server::visibility::ItemKind;
use futures::FutureExt as _;
use serde_json::value::RawValue;
use std::sync::Arc;

impl Connection {
    pub(super) fn complete(
        &self,
        id: RequestId,
        method: &'static Method,
        params: Option<&RawValue>,
        scope: Scope<'_>,
    ) -> Routed {
        let prepared = (|| -> Result<_, Rejection> {
            let p: CompleteParams = required_params(params)?;
            let env = self.admitted(p.meta, method, scope.checks)?;
            let registry = self.inner.server.registry();
            let chosen: PromptArguments = p.context.and_then(|c| c.arguments).unwrap_or_default();
            let argument = p.argument;
            let suggestions = match p.reference {
                CompletionReference::Prompt { name } => {
                    let prompt = registry.prompts.get(&name);
                    let seen = |p: &Arc<RegisteredPrompt>| {
                        self.may_see(&scope.outlet, ItemKind::Prompt, &p.name, &p.scopes)
                    };
                    let prompt = prompt.filter(seen).ok_or_else(|| {
                        McpError::new(
                            ErrorCode::INVALID_PARAMS,
                            format!("Prompt {name} not found"),
                        )
                    })?;
                    if !prompt.declares(&argument.name) {
                        return Err(McpError::invalid_params(format!(
                            "prompt `{name}` has no argument `{}`",
                            argument.name
                        ))
                        .into());
                    }
                    prompt
                        .prompt
                        .complete(&argument.name, &argument.value, &chosen)
                }
                CompletionReference::Resource { uri } => {
                    let template = registry.resources.template(&uri).filter(|t| {
                        self.may_see(
                            &scope.outlet,
                            ItemKind::ResourceTemplate,
                            t.template.as_str(),
                            &t.scopes,
                        )
                    });
                    match template {
                        Some(template) => {
                            if !template
                                .template
                                .variable_names()
                                .any(|v| v == argument.name)
                            {
                                return Err(McpError::invalid_params(format!(
                                    "the template `{uri}` has no variable `{}`",
                                    argument.name
                                ))
                                .into());
                            }
                            template
                                .inner
                                .complete(&argument.name, &argument.value, &chosen)
                        }
                        // A fixed resource has nothing to fill in.
                        None if registry.resources.has_resource(&uri) => {
                            Box::pin(std::future::ready(Completion::default()))
                        }
                        None => {
                            return Err(McpError::new(
                                ErrorCode::INVALID_PARAMS,
                                format!("Resource template {uri} not found"),
                            )
                            .into());
                        }
                    }
                }
            };
            Ok((env, suggestions))
        })();
        let (env, suggestions) = match prepared {
            Ok(p) => p,
            Err(rejection) => return Routed::rejected(&id, rejection),
        };
        let outlet = scope.outlet;
        let cx = self.context(&id, env, &outlet, None);
        // Suggestions come from user code: a panic in it is answered like one in a tool.
        let future = std::panic::AssertUnwindSafe(suggestions).catch_unwind();
        self.serve(id, future, outlet, cx, finish_complete)
    }
}

fn finish_complete(
    this: &Connection,
    id: &RequestId,
    cx: &RequestContext,
    out: std::thread::Result<Completion>,
) -> (Vec<u8>, Disposition) {
    let era = cx.era();
    let Ok(completion) = out else {
        tracing::error!(%id, "a completion handler panicked");
        return error_reply(id, McpError::internal("the completion handler failed"));
    };
    let result = CompleteResult {
        completion: completion.capped(),
    };
    let line = match era {
        Era::Legacy => encode_result(id, &result),
        Era::Modern => {
            let server = &this.inner.server.inner;
            let projected = Modern::complete(&result, &server.server_info_raw, None, None);
            encode_result(id, &projected)
        }
    };
    (line, Disposition::Answered)
}
