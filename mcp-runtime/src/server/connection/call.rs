//! `tools/call`: the one request that runs user code. Arguments are validated before the
//! tool runs; its first poll happens inline (most tools finish without waiting) and only a
//! tool that has to wait moves to a task; panics and bad output become `isError` results.

use super::{Connection, Routed, Scope, required_params};
use crate::protocol::jsonrpc::encode_result;
use crate::protocol::{CallToolParams, CallToolResult, Content, Era, McpError, RequestId};
use crate::server::Server;
use crate::server::exchange::{Rejection, Verdict};
use crate::server::projection::Modern;
use crate::server::registry::RegisteredTool;
use crate::tool::{RequestContext, RequestContextParts, schema};
use futures::FutureExt as _;
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};
use std::any::Any;
use std::panic::AssertUnwindSafe;
use std::task::{Context, Poll};

impl Connection {
    pub(super) fn call_tool(
        &self,
        id: RequestId,
        params: Option<&RawValue>,
        scope: Scope<'_>,
    ) -> Routed {
        let checks = scope.checks;
        let prepared = (|| -> Result<_, Rejection> {
            let p: CallToolParams = required_params(params)?;
            let env = self.envelope(p.meta, "tools/call", checks)?;
            // The mirrored headers exist on the modern leg only.
            let header_checks = checks.filter(|_| env.era == Era::Modern);
            if let Some(checks) = header_checks {
                checks
                    .name("tools/call", &p.name)
                    .map_err(Rejection::invalid)?;
            }
            let tool = self
                .inner
                .server
                .tools()
                .snapshot()
                .get(&p.name)
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
            Ok((env, tool, Value::Object(arguments)))
        })();
        let (env, tool, arguments) = match prepared {
            Ok(p) => p,
            Err(rejection) => return Routed::rejected(&id, rejection),
        };
        let input = match tool.input.validator() {
            Ok(v) => v,
            Err(reason) => {
                tracing::error!(tool = %tool.name, reason, "the tool's input schema does not compile");
                let error = McpError::internal(format!(
                    "the input schema of tool `{}` does not compile: {reason}",
                    tool.name
                ));
                return Routed::rejected(&id, error.into());
            }
        };
        if !input.is_valid(&arguments) {
            let found = schema::violations(input, &arguments);
            audit(&tool.name, "invalid_arguments");
            let text = format!(
                "Invalid arguments for tool `{}` ({} problem{}):\n- {}\nCorrect the arguments to match the tool's input schema and call it again.",
                tool.name,
                found.len(),
                if found.len() == 1 { "" } else { "s" },
                found.join("\n- ")
            );
            return Routed::Reply(
                encode_call_result(
                    &self.inner.server,
                    &id,
                    env.era,
                    CallToolResult::error(text),
                ),
                Verdict::Answered,
            );
        }
        let Value::Object(arguments) = arguments else {
            unreachable!("checked to be an object above")
        };
        let era = env.era;
        let outlet = scope.outlet;
        let cx = RequestContext::new(RequestContextParts {
            era,
            protocol_version: env.version,
            client_capabilities: env.client_capabilities,
            client_info: env.client_info,
            request_id: id.clone(),
            progress_token: env.progress_token,
            cancellation: self.cancellation_for(&outlet),
            peer: Some(self.notifications_for(&outlet)),
            extensions: self.inner.server.inner.extensions.clone(),
        });
        let started =
            std::panic::catch_unwind(AssertUnwindSafe(|| tool.tool.call(arguments, cx.clone())));
        let mut fut = match started {
            Ok(fut) => AssertUnwindSafe(fut).catch_unwind(),
            Err(panic) => {
                let result = panic_result(&tool, panic);
                let line = self.finish_call(&id, &tool, era, result, &cx);
                return Routed::Reply(line, Verdict::Answered);
            }
        };
        // Poll once inline: most tools answer without waiting, and skipping the task spawn
        // keeps the hot path short.
        let mut poll_cx = Context::from_waker(futures::task::noop_waker_ref());
        if let Poll::Ready(out) = fut.poll_unpin(&mut poll_cx) {
            let result = out.unwrap_or_else(|p| panic_result(&tool, p));
            let line = self.finish_call(&id, &tool, era, result, &cx);
            return Routed::Reply(line, Verdict::Answered);
        }
        let token = cx.cancellation().clone();
        let tracked = self.track(&id, &token, &outlet, era);
        let this = self.clone();
        self.inner.tasks.spawn(async move {
            tokio::select! {
                out = fut => {
                    this.untrack(tracked, &id);
                    let result = out.unwrap_or_else(|p| panic_result(&tool, p));
                    let line = this.finish_call(&id, &tool, era, result, &cx);
                    this.deliver(outlet, line).await;
                }
                () = token.cancelled() => {
                    this.untrack(tracked, &id);
                    cx.finish();
                    audit(&tool.name, "cancelled");
                }
            }
        });
        Routed::Pending
    }

    /// Checks a tool's result against its output schema, adds the text copy of structured
    /// output, and serializes it for the request's era.
    fn finish_call(
        &self,
        id: &RequestId,
        tool: &RegisteredTool,
        era: Era,
        mut result: CallToolResult,
        cx: &RequestContext,
    ) -> Vec<u8> {
        cx.finish();
        if let (false, Some(output)) = (result.is_error(), &tool.output) {
            let problems = match (output.validator(), &result.structured_content) {
                (Err(reason), _) => vec![format!("the output schema does not compile: {reason}")],
                (_, None) => vec![
                    "the tool declares an outputSchema but returned no structuredContent"
                        .to_owned(),
                ],
                (Ok(validator), Some(v)) if validator.is_valid(v) => Vec::new(),
                (Ok(validator), Some(v)) => schema::violations(validator, v),
            };
            if !problems.is_empty() {
                tracing::error!(tool = %tool.name, ?problems, "tool output does not match its outputSchema");
                result = CallToolResult::error(format!(
                    "Tool `{}` produced output that does not match its output schema:\n- {}",
                    tool.name,
                    problems.join("\n- ")
                ));
            }
        }
        if let Some(structured) = &result.structured_content {
            if result.content.is_empty() {
                result.content.push(Content::text(structured.to_string()));
            }
            if era == Era::Legacy && tool.wrap_legacy_output {
                result.structured_content = Some(json!({ "result": structured }));
            }
        }
        audit(&tool.name, if result.is_error() { "error" } else { "ok" });
        encode_call_result(&self.inner.server, id, era, result)
    }
}

fn encode_call_result(
    server: &Server,
    id: &RequestId,
    era: Era,
    mut result: CallToolResult,
) -> Vec<u8> {
    match era {
        Era::Legacy => encode_result(id, &result),
        Era::Modern => {
            let meta = result.meta.take();
            let projected =
                Modern::complete(&result, &server.inner.server_info_raw, None, meta.as_ref());
            encode_result(id, &projected)
        }
    }
}

fn panic_result(tool: &RegisteredTool, panic: Box<dyn Any + Send>) -> CallToolResult {
    let detail = panic
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_default();
    tracing::error!(tool = %tool.name, panic = %detail, "tool panicked");
    CallToolResult::error(format!(
        "Tool `{}` failed with an internal error; the server logged the details and keeps running.",
        tool.name
    ))
}

fn audit(tool: &str, outcome: &'static str) {
    tracing::info!(target: "mcp::audit", operation = "tools/call", tool, outcome);
}
