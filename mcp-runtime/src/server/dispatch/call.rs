//! `tools/call`: the request is checked here (params, envelope, headers, the tool's
//! existence, the caller's scopes), then goes through the tool's stack of layers
//! (`crate::pipeline`: audit, panic isolation, policies, argument validation, output check)
//! as every item does (`serve.rs`); what comes out is projected for the request's era.

use super::method::Method;
use super::{Connection, Routed, Scope, required_params};
use crate::context::RequestContext;
use crate::pipeline::{AUDIT_TARGET, BoxError, McpRequest, Outcome};
use crate::protocol::apps::client_supports_apps;
use crate::protocol::jsonrpc::{encode_error, encode_result_within};
use crate::protocol::methods;
use crate::protocol::{CallToolParams, CallToolResult, Content, Era, McpError, RequestId};
use crate::server::Server;
use crate::server::contract::{Disposition, Rejection};
use crate::server::projection::Modern;
use crate::server::registry::tools::RegisteredTool;
use crate::server::visibility::ItemKind;
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};

impl Connection {
    pub(super) fn call_tool(
        &self,
        id: RequestId,
        method: &'static Method,
        params: Option<&RawValue>,
        scope: Scope<'_>,
    ) -> Routed {
        let checks = scope.checks;
        let prepared = (|| -> Result<_, Rejection> {
            let p: CallToolParams = required_params(params)?;
            let env = self.admitted_named(p.meta, method, &p.name, checks)?;
            // The mirrored headers exist on the modern leg only.
            let header_checks = checks.filter(|_| env.era == Era::Modern);
            // An app-only tool does not exist for a client that renders no MCP Apps
            // (`protocol::apps`): refused exactly as an unknown name.
            let tool = self
                .inner
                .server
                .tools()
                .snapshot()
                .get(&p.name)
                .filter(|t| !t.app_only() || client_supports_apps(&env.client_capabilities))
                // Nor does a tool the caller may not see (`server::visibility`).
                .filter(|t| self.may_see(&scope.outlet, ItemKind::Tool, &t.name, &t.scopes))
                .cloned()
                .ok_or_else(|| McpError::invalid_params(format!("Unknown tool: {}", p.name)))?;
            let arguments = match p.arguments {
                None => Map::new(),
                Some(Value::Object(arguments)) => arguments,
                Some(_) => {
                    return Err(McpError::invalid_params("\"arguments\" must be an object").into());
                }
            };
            if let Some(checks) = header_checks {
                checks
                    .params(&tool.header_params, &arguments)
                    .map_err(Rejection::invalid)?;
            }
            if !tool.scopes.is_empty() {
                let caller = self.caller_for(&scope.outlet);
                if !caller.has_scopes(&tool.scopes) {
                    return Err(forbidden(&tool, &caller, &id, env.era));
                }
            }
            let as_task = self.runs_as_task(&tool, &env)?;
            let round = self.round(
                env.era,
                method.name,
                params,
                &scope.outlet,
                p.input_responses,
                p.request_state,
            )?;
            Ok((env, tool, arguments, round, as_task))
        })();
        let (env, tool, arguments, round, as_task) = match prepared {
            Ok(p) => p,
            Err(rejection) => return Routed::rejected(&id, rejection),
        };
        let outlet = scope.outlet;
        if as_task && let Some(round) = round {
            return self.call_as_task(id, method, env, tool, arguments, round, outlet);
        }
        // With the server in it, so a tool can read the server's resources too.
        let cx = self.context(&id, env, &outlet, round);
        let request = McpRequest::new(method.spec, tool.name.clone(), arguments, cx.clone());
        let call = Self::after_spend(&cx, tool.stack.call(request));
        self.serve(id, call, outlet, cx, move |this, id, cx, out| {
            this.finish_call(id, &tool, cx.era(), out, cx)
        })
    }

    /// Projects what came out of the tool's stack for the request's era: a refusal becomes
    /// an `isError` result, structured output gets its text copy (and, for legacy clients,
    /// the `{result: …}` wrapping of a non-object), a protocol error its JSON-RPC error.
    pub(super) fn finish_call(
        &self,
        id: &RequestId,
        tool: &RegisteredTool,
        era: Era,
        out: Result<Outcome, BoxError>,
        cx: &RequestContext,
    ) -> (Vec<u8>, Disposition) {
        cx.finish();
        let result = match out.unwrap_or_else(Outcome::from_error) {
            Outcome::InputRequired => return self.input_required(id, cx),
            other => match call_result(tool, era, other) {
                Ok(result) => result,
                Err(error) => {
                    let rejection = Rejection::from(error);
                    return (
                        encode_error(Some(id), &rejection.error),
                        rejection.disposition,
                    );
                }
            },
        };
        (
            encode_call_result(&self.inner.server, id, &tool.name, era, result),
            Disposition::Answered,
        )
    }
}

/// The `tools/call` result of what came out of a tool's stack, as the client of `era` sees
/// it (a refusal is an `isError` result, structured output gets its text copy, and legacy
/// clients the `{result: …}` wrapping of a non-object), or the protocol error it is.
pub(super) fn call_result(
    tool: &RegisteredTool,
    era: Era,
    out: Outcome,
) -> Result<CallToolResult, McpError> {
    let mut result = match out {
        Outcome::Tool(result) => result,
        Outcome::Refused(refusal) => refusal.into_tool_result(),
        Outcome::Error(error) => return Err(error),
        _ => {
            return Err(McpError::internal(
                "a layer answered tools/call with the result of another kind of request",
            ));
        }
    };
    if let Some(structured) = &result.structured_content {
        if result.content.is_empty() {
            result.content.push(Content::text(structured.to_string()));
        }
        if era == Era::Legacy && tool.wrap_legacy_output {
            result.structured_content = Some(json!({ "result": structured }));
        }
    }
    Ok(result)
}

/// A caller without the scopes a tool requires: refused before the tool's stack (so the
/// transport can answer with its own challenge), and audited at WARN like any refused
/// credentials.
fn forbidden(
    tool: &RegisteredTool,
    caller: &crate::context::Caller,
    id: &RequestId,
    era: Era,
) -> Rejection {
    let required = tool.scopes.join(" ");
    tracing::warn!(
        target: AUDIT_TARGET,
        %id,
        %era,
        method = methods::TOOLS_CALL.name,
        target = &*tool.name,
        caller = %caller.log_name(),
        required = %required,
        outcome = "forbidden",
        "request refused"
    );
    let error = McpError::invalid_request(format!(
        "tool `{}` requires the scopes {required:?}, which the caller's credentials do not grant",
        tool.name
    ))
    .with_data(json!({ "requiredScopes": &*tool.scopes }));
    Rejection {
        error,
        disposition: Disposition::Forbidden {
            scopes: tool.scopes.clone(),
        },
    }
}

fn encode_call_result(
    server: &Server,
    id: &RequestId,
    tool: &str,
    era: Era,
    mut result: CallToolResult,
) -> Vec<u8> {
    let budget = server.inner.max_response_bytes;
    let encoded = match era {
        Era::Legacy => encode_result_within(id, &result, budget),
        Era::Modern => {
            let meta = result.meta.take();
            let projected =
                Modern::complete(&result, &server.inner.server_info_raw, None, meta.as_ref());
            encode_result_within(id, &projected, budget)
        }
    };
    encoded.unwrap_or_else(|budget| {
        tracing::warn!(
            tool,
            budget,
            "a tool result over the response budget was not sent"
        );
        let over = CallToolResult::error(format!(
            "The result of tool `{tool}` is larger than this server's response budget \
             ({budget} bytes), so it was not sent. Ask for less: a smaller range, fewer items, \
             or a smaller file."
        ));
        encode_call_result(server, id, tool, era, over)
    })
}
