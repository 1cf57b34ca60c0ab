//! The tools and the prompt of the official conformance suites that ask the client
//! (elicitation, sampling, roots) or log, with the names, schemas and texts the suites
//! expect (`spec/conformance-surface.md`, `spec/conformance-next.md` §5 and §7), for the
//! `conformance-server` example. Built with the public API only: each is an ordinary
//! `#[mcp_tool]` or `#[mcp_prompt]` using `RequestContext`'s asks, served the same way in
//! both eras (server-to-client requests on 2025 sessions, `input_required` rounds on
//! 2026-07-28).

use mcp_runtime::ServerBuilder;
use mcp_runtime::prelude::*;
use serde_json::{Value, json};

/// Adds every tool and prompt of this module.
pub fn register(builder: ServerBuilder) -> ServerBuilder {
    builder
        .tool(test_tool_with_logging::tool())
        .tool(test_logging_tool::tool())
        .tool(test_sampling::tool())
        .tool(test_elicitation::tool())
        .tool(test_elicitation_sep1034_defaults::tool())
        .tool(test_elicitation_sep1330_enums::tool())
        .tool(test_missing_capability::tool())
        .tool(test_streaming_elicitation::tool())
        .tool(test_input_required_result_elicitation::tool())
        .tool(test_input_required_result_sampling::tool())
        .tool(test_input_required_result_list_roots::tool())
        .tool(test_input_required_result_request_state::tool())
        .tool(test_input_required_result_multiple_inputs::tool())
        .tool(test_input_required_result_multi_round::tool())
        .tool(test_input_required_result_tampered_state::tool())
        .tool(test_input_required_result_capabilities::tool())
        .prompt(test_input_required_result_prompt::prompt())
}

use mcp_runtime::input::{Elicitation, InputError};
use mcp_runtime::protocol::{CreateMessageParams, LoggingLevel};

/// Tests logging: sends three log messages while it runs.
#[mcp_tool]
async fn test_tool_with_logging(cx: RequestContext) -> &'static str {
    for (i, message) in [
        "Tool execution started",
        "Tool processing data",
        "Tool execution completed",
    ]
    .into_iter()
    .enumerate()
    {
        if i > 0 {
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        cx.log(LoggingLevel::Info, message).await;
    }
    "Tool with logging executed successfully"
}

/// Logs only when the request asks for log messages (2026-07-28 `logLevel`).
#[mcp_tool]
async fn test_logging_tool(cx: RequestContext) -> &'static str {
    cx.log(LoggingLevel::Info, "test_logging_tool ran").await;
    "Logging tool executed"
}

/// Tests sampling: asks the client's model to answer the prompt.
#[mcp_tool]
async fn test_sampling(
    cx: RequestContext,
    /// The prompt to send to the client's model
    prompt: String,
) -> Result<String, InputError> {
    let answer = cx
        .sample(CreateMessageParams::new(100).user(prompt))
        .await?;
    Ok(format!(
        "LLM response: {}",
        answer.text().unwrap_or_default()
    ))
}

/// Tests elicitation: asks the user for a username and an email address.
#[mcp_tool]
async fn test_elicitation(
    cx: RequestContext,
    /// The message to show the user
    message: String,
) -> Result<String, InputError> {
    let schema = json!({
        "type": "object",
        "properties": {
            "username": {"type": "string", "description": "User's response"},
            "email": {"type": "string", "description": "User's email address"}
        },
        "required": ["username", "email"]
    });
    let answer = cx.elicit_schema(message, schema).await?;
    Ok(elicitation_summary("User response", answer))
}

fn elicitation_summary(
    prefix: &str,
    answer: Elicitation<mcp_runtime::protocol::JsonObject>,
) -> String {
    let action = answer.action();
    let action = serde_json::to_value(action).unwrap_or_default();
    let action = action.as_str().unwrap_or_default().to_owned();
    let content = answer.accepted().map(Value::Object).unwrap_or(Value::Null);
    format!("{prefix}: action={action}, content={content}")
}

/// Tests SEP-1034 defaults: every field of the form carries a default.
#[mcp_tool]
async fn test_elicitation_sep1034_defaults(cx: RequestContext) -> Result<String, InputError> {
    let schema = json!({
        "type": "object",
        "properties": {
            "name": {"type": "string", "description": "User name", "default": "John Doe"},
            "age": {"type": "integer", "description": "User age", "default": 30},
            "score": {"type": "number", "description": "User score", "default": 95.5},
            "status": {"type": "string", "description": "User status",
                       "enum": ["active", "inactive", "pending"], "default": "active"},
            "verified": {"type": "boolean", "description": "Verification status", "default": true}
        },
        "required": []
    });
    let answer = cx
        .elicit_schema(
            "Please review and update the form fields with defaults",
            schema,
        )
        .await?;
    Ok(elicitation_summary("Elicitation completed", answer))
}

/// Tests SEP-1330 enums: one field of each enum shape.
#[mcp_tool]
async fn test_elicitation_sep1330_enums(cx: RequestContext) -> Result<String, InputError> {
    let schema = json!({
        "type": "object",
        "properties": {
            "untitledSingle": {"type": "string", "description": "Choose an option",
                               "enum": ["option1", "option2", "option3"]},
            "titledSingle": {"type": "string", "description": "Choose a titled option", "oneOf": [
                {"const": "value1", "title": "First Option"},
                {"const": "value2", "title": "Second Option"},
                {"const": "value3", "title": "Third Option"}]},
            "legacyEnum": {"type": "string", "description": "Choose a legacy option",
                           "enum": ["opt1", "opt2", "opt3"],
                           "enumNames": ["Option One", "Option Two", "Option Three"]},
            "untitledMulti": {"type": "array", "description": "Choose multiple options",
                              "minItems": 1, "maxItems": 3,
                              "items": {"type": "string", "enum": ["option1", "option2", "option3"]}},
            "titledMulti": {"type": "array", "description": "Choose multiple titled options",
                            "minItems": 1, "maxItems": 3, "items": {"anyOf": [
                                {"const": "value1", "title": "First Choice"},
                                {"const": "value2", "title": "Second Choice"},
                                {"const": "value3", "title": "Third Choice"}]}}
        },
        "required": []
    });
    let answer = cx
        .elicit_schema("Please select options from the enum fields", schema)
        .await?;
    Ok(elicitation_summary("Elicitation completed", answer))
}

/// Needs sampling: a client that did not declare it gets -32021.
#[mcp_tool]
async fn test_missing_capability(cx: RequestContext) -> Result<String, InputError> {
    let answer = cx
        .sample(CreateMessageParams::new(50).user("Say hello"))
        .await?;
    Ok(answer.text().unwrap_or_default())
}

/// Streams a progress notification, then answers; never sends the client a request.
#[mcp_tool]
async fn test_streaming_elicitation(cx: RequestContext) -> &'static str {
    cx.progress(1.0, Some(2.0), Some("working")).await;
    tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    "Streaming finished without a server-to-client request"
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct UserName {
    /// Your name
    name: String,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Confirm {
    /// Confirm to continue
    ok: bool,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct FavoriteColor {
    /// Your favorite color
    color: String,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct UserContext {
    /// Context for the prompt
    context: String,
}

/// Asks the user's name (input_required on 2026-07-28), then greets them.
#[mcp_tool]
async fn test_input_required_result_elicitation(cx: RequestContext) -> Result<String, InputError> {
    let name = cx
        .elicit::<UserName>("Please provide your name")
        .key("user_name")
        .await?
        .accepted()
        .map_or_else(|| "stranger".to_owned(), |n| n.name);
    Ok(format!("Hello, {name}!"))
}

/// Asks the client's model a question, then reports the answer.
#[mcp_tool]
async fn test_input_required_result_sampling(cx: RequestContext) -> Result<String, InputError> {
    let answer = cx
        .sample(CreateMessageParams::new(100).user("What is the capital of France?"))
        .key("sample_request")
        .await?;
    Ok(format!(
        "Model answered: {}",
        answer.text().unwrap_or_default()
    ))
}

/// Asks the client for its roots, then lists them.
#[mcp_tool]
async fn test_input_required_result_list_roots(cx: RequestContext) -> Result<String, InputError> {
    let roots = cx.roots().key("client_roots").await?;
    let uris: Vec<&str> = roots.iter().map(|r| r.uri.as_str()).collect();
    Ok(format!("Roots: {}", uris.join(", ")))
}

/// Asks for a confirmation; the answer travels back with the request state.
#[mcp_tool]
async fn test_input_required_result_request_state(
    cx: RequestContext,
) -> Result<String, InputError> {
    let confirmed = cx
        .elicit::<Confirm>("Please confirm")
        .key("confirm")
        .await?
        .accepted()
        .is_some_and(|c| c.ok);
    Ok(if confirmed {
        "state-ok"
    } else {
        "state-not-confirmed"
    }
    .to_owned())
}

/// Asks for an elicitation, a sampling and the roots in one round.
#[mcp_tool]
async fn test_input_required_result_multiple_inputs(
    cx: RequestContext,
) -> Result<String, InputError> {
    let (name, answer, roots) = futures::join!(
        cx.elicit::<UserName>("Please provide your name")
            .key("user_name"),
        cx.sample(CreateMessageParams::new(100).user("Say hello"))
            .key("greeting"),
        cx.roots().key("client_roots"),
    );
    let name = name?.accepted().map(|n| n.name).unwrap_or_default();
    let greeting = answer?.text().unwrap_or_default();
    Ok(format!("{name} / {greeting} / {} root(s)", roots?.len()))
}

/// Asks twice, one round after the other: a name, then a favorite color.
#[mcp_tool]
async fn test_input_required_result_multi_round(cx: RequestContext) -> Result<String, InputError> {
    let name = cx
        .elicit::<UserName>("Please provide your name")
        .key("user_name")
        .await?
        .accepted()
        .map(|n| n.name)
        .unwrap_or_default();
    let color = cx
        .elicit::<FavoriteColor>("Please provide your favorite color")
        .key("favorite_color")
        .await?
        .accepted()
        .map(|c| c.color)
        .unwrap_or_default();
    Ok(format!("{name} likes {color}"))
}

/// Asks for a confirmation; a retry with a tampered state is refused.
#[mcp_tool]
async fn test_input_required_result_tampered_state(
    cx: RequestContext,
) -> Result<String, InputError> {
    let confirmed = cx
        .elicit::<Confirm>("Please confirm")
        .key("confirm")
        .await?
        .accepted()
        .is_some_and(|c| c.ok);
    Ok(format!("confirmed: {confirmed}"))
}

/// Prefers a form; asks the client's model instead when the client cannot show one.
#[mcp_tool]
async fn test_input_required_result_capabilities(cx: RequestContext) -> Result<String, InputError> {
    match cx
        .elicit::<UserName>("Please provide your name")
        .key("user_name")
        .await
    {
        Ok(answer) => Ok(format!(
            "Hello, {}!",
            answer.accepted().map(|n| n.name).unwrap_or_default()
        )),
        Err(InputError::MissingCapability { .. }) => {
            let answer = cx
                .sample(CreateMessageParams::new(50).user("Suggest a name"))
                .key("suggest_name")
                .await?;
            Ok(format!("Hello, {}!", answer.text().unwrap_or_default()))
        }
        Err(e) => Err(e),
    }
}

/// A prompt that asks the user for context before it is rendered.
#[mcp_prompt]
async fn test_input_required_result_prompt(cx: RequestContext) -> Result<String, PromptError> {
    let context = cx
        .elicit::<UserContext>("Please provide context for the prompt")
        .key("user_context")
        .await
        .map_err(|e| PromptError::failed(e.to_string()))?
        .accepted()
        .map(|c| c.context)
        .unwrap_or_default();
    Ok(format!("Use this context: {context}"))
}
