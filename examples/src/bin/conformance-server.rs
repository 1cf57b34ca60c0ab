//! `conformance-server`: exactly the tools, resources and prompts the official MCP
//! conformance suites call (`@modelcontextprotocol/conformance` 0.1.16 and 0.2.0-alpha.12),
//! with the names, schemas and texts they expect (`spec/conformance-surface.md`,
//! `spec/conformance-next.md`). Built with the toolkit's public API only: nothing in the
//! runtime knows about the suites. `tests/it/http_conformance.rs` runs both suites against
//! it over HTTP, in both legacy modes.
//!
//! It also serves the skills of `examples/skills/` (the skills extension, SEP-2640), so the
//! suite's `sep-2640-skills-*` scenarios run every check: one skill with a subfolder at the
//! top (`pdf-processing`) and one below a group (`acme/release-notes`).
//!
//! ```text
//! conformance-server --transport http [--bind 127.0.0.1:0] [--legacy-mode sessionful|stateless]
//!                    [--skills-dir DIR]
//! ```

use clap::Parser;
use mcp_runtime::launch::{ServeArgs, init_tracing};
use mcp_runtime::prelude::*;
use mcp_runtime::prompt::{PromptError, prompt_fn};
use mcp_runtime::protocol::{
    CallToolResult, Content, PromptArgument, PromptDefinition, PromptMessage, ResourceDefinition,
    ResourceTemplateDefinition, Role, ToolDefinition,
};
use mcp_runtime::resource::{ResourceError, resource_fn, template_fn};
use mcp_runtime::tool::tool_fn;
use serde_json::{Value, json};
use std::process::ExitCode;
use std::sync::OnceLock;
use std::time::Duration;

/// Command-line options.
#[derive(Debug, Parser)]
#[command(
    version,
    about = "The surface the official MCP conformance suites test"
)]
struct Args {
    #[command(flatten)]
    serve: ServeArgs,
    /// The skills folder to serve (default: the package's `skills/`, where it was built).
    #[arg(long, value_name = "DIR", default_value = concat!(env!("CARGO_MANIFEST_DIR"), "/skills"))]
    skills_dir: std::path::PathBuf,
}

/// A 1×1 red PNG.
const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
/// A tiny WAV.
const WAV: &str = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=";

/// The running server, for the tools that change its lists.
static SERVER: OnceLock<Server> = OnceLock::new();

fn no_arguments() -> Value {
    json!({"type": "object", "properties": {}})
}

fn tool(name: &str, description: &str) -> ToolDefinition {
    ToolDefinition::new(name, description, no_arguments())
}

/// The tools whose answers are fixed content.
fn content_tools(builder: mcp_runtime::ServerBuilder) -> mcp_runtime::ServerBuilder {
    builder
        .tool(tool_fn(
            tool("test_simple_text", "Tests simple text content response"),
            |_, _| async { "This is a simple text response for testing." },
        ))
        .tool(tool_fn(
            tool("test_image_content", "Tests image content response"),
            |_, _| async { Content::image(PNG, "image/png") },
        ))
        .tool(tool_fn(
            tool("test_audio_content", "Tests audio content response"),
            |_, _| async { Content::audio(WAV, "audio/wav") },
        ))
        .tool(tool_fn(
            tool("test_embedded_resource", "Tests embedded resource content response"),
            |_, _| async {
                Content::embedded_text(
                    "test://embedded-resource",
                    Some("text/plain".into()),
                    "This is an embedded resource content.",
                )
            },
        ))
        .tool(tool_fn(
            tool("test_multiple_content_types", "Tests response with multiple content types"),
            |_, _| async {
                CallToolResult::success(vec![
                    Content::text("Multiple content types test:"),
                    Content::image(PNG, "image/png"),
                    Content::embedded_text(
                        "test://mixed-content-resource",
                        Some("application/json".into()),
                        r#"{"test":"data","value":123}"#,
                    ),
                ])
            },
        ))
        .tool(tool_fn(
            tool("test_error_handling", "Tests error response handling"),
            |_, _| async {
                CallToolResult::error("This tool intentionally returns an error for testing")
            },
        ))
        .tool(tool_fn(
            tool("test_tool_with_progress", "Tests tool that reports progress notifications"),
            |_, cx: RequestContext| async move {
                for (i, progress) in [0.0, 50.0, 100.0].into_iter().enumerate() {
                    if i > 0 {
                        tokio::time::sleep(Duration::from_millis(50)).await;
                    }
                    cx.progress(progress, Some(100.0), None).await;
                }
                "Progress test completed"
            },
        ))
        .tool(tool_fn(
            tool("test_reconnection", "Tests a call that outlives its first stream"),
            |_, _| async {
                tokio::time::sleep(Duration::from_millis(100)).await;
                "Reconnection test completed"
            },
        ))
        .tool(tool_fn(
            ToolDefinition::new(
                "json_schema_2020_12_tool",
                "Tests JSON Schema 2020-12 keywords kept verbatim",
                json!({
                    "$schema": "https://json-schema.org/draft/2020-12/schema",
                    "type": "object",
                    "$defs": {"address": {"$anchor": "addressDef", "type": "object",
                        "properties": {"street": {"type": "string"}, "city": {"type": "string"}}}},
                    "properties": {
                        "name": {"type": "string"},
                        "address": {"$ref": "#/$defs/address"},
                        "contactMethod": {"type": "string", "enum": ["phone", "email"]},
                        "phone": {"type": "string"},
                        "email": {"type": "string"}
                    },
                    "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
                    "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
                    "then": {"required": ["phone"]},
                    "else": {"required": ["email"]},
                    "additionalProperties": false
                }),
            ),
            |args, _| async move {
                format!("JSON Schema 2020-12 tool called with: {}", Value::Object(args))
            },
        ))
        .tool(tool_fn(
            ToolDefinition::new(
                "test_header_param",
                "Echoes a value the client mirrors into the Mcp-Param-Value header",
                json!({"type": "object",
                       "properties": {"value": {"type": "string", "x-mcp-header": "Value"}},
                       "required": ["value"]}),
            ),
            |args, _| async move {
                format!("value: {}", args.get("value").and_then(Value::as_str).unwrap_or_default())
            },
        ))
}

/// The hooks that change the lists, so list-change notifications can be observed.
fn trigger_tools(builder: mcp_runtime::ServerBuilder) -> mcp_runtime::ServerBuilder {
    builder
        .tool(tool_fn(
            tool(
                "test_trigger_tool_change",
                "Adds and removes a tool: the tool list changes",
            ),
            |_, _| async {
                let Some(server) = SERVER.get() else {
                    return CallToolResult::error("the server is not running");
                };
                let probe = tool_fn(
                    tool("conformance_probe_tool", "A short-lived tool."),
                    |_, _| async { "probe" },
                );
                let _ = server.tools().register(probe);
                server.tools().remove("conformance_probe_tool");
                CallToolResult::text("The tool list changed")
            },
        ))
        .tool(tool_fn(
            tool(
                "test_trigger_prompt_change",
                "Adds and removes a prompt: the prompt list changes",
            ),
            |_, _| async {
                let Some(server) = SERVER.get() else {
                    return CallToolResult::error("the server is not running");
                };
                let probe = prompt_fn(
                    PromptDefinition::new("conformance_probe_prompt", "A short-lived prompt."),
                    |_, _| async { "probe" },
                );
                let _ = server.prompts().register(probe);
                server.prompts().remove("conformance_probe_prompt");
                CallToolResult::text("The prompt list changed")
            },
        ))
}

fn resources(builder: mcp_runtime::ServerBuilder) -> mcp_runtime::ServerBuilder {
    builder
        .resource(resource_fn(
            ResourceDefinition::new("test://static-text", "static-text")
                .with_description("A static text resource")
                .with_mime_type("text/plain"),
            |_| async { "This is the content of the static text resource." },
        ))
        .resource(resource_fn(
            ResourceDefinition::new("test://static-binary", "static-binary")
                .with_description("A static binary resource (a PNG)")
                .with_mime_type("image/png"),
            |_| async {
                use base64::Engine as _;
                base64::engine::general_purpose::STANDARD
                    .decode(PNG)
                    .map_err(ResourceError::failed)
            },
        ))
        .resource(resource_fn(
            ResourceDefinition::new("test://watched-resource", "watched-resource")
                .with_description("A resource clients subscribe to")
                .with_mime_type("text/plain"),
            |_| async { "Watched resource content" },
        ))
        .resource_template(template_fn(
            ResourceTemplateDefinition::new("test://template/{id}/data", "template")
                .with_description("A templated resource")
                .with_mime_type("application/json"),
            |vars, _| async move {
                let id = vars.get("id").unwrap_or_default().to_owned();
                json!({"id": id, "templateTest": true, "data": format!("Data for ID: {id}")})
                    .to_string()
            },
        ))
}

fn prompts(builder: mcp_runtime::ServerBuilder) -> mcp_runtime::ServerBuilder {
    builder
        .prompt(prompt_fn(
            PromptDefinition::new("test_simple_prompt", "A simple prompt without arguments"),
            |_, _| async { "This is a simple prompt for testing." },
        ))
        .prompt(prompt_fn(
            PromptDefinition::new(
                "test_prompt_with_arguments",
                "A prompt with required arguments",
            )
            .with_argument(PromptArgument::required("arg1", "First test argument"))
            .with_argument(PromptArgument::required("arg2", "Second test argument")),
            |args, _| async move {
                format!(
                    "Prompt with arguments: arg1='{}', arg2='{}'",
                    args["arg1"], args["arg2"]
                )
            },
        ))
        .prompt(prompt_fn(
            PromptDefinition::new(
                "test_prompt_with_embedded_resource",
                "A prompt that embeds a resource",
            )
            .with_argument(PromptArgument::required(
                "resourceUri",
                "URI of the resource to embed",
            )),
            |args, _| async move {
                vec![
                    PromptMessage::new(
                        Role::User,
                        Content::embedded_text(
                            args["resourceUri"].clone(),
                            Some("text/plain".into()),
                            "Embedded resource content for testing.",
                        ),
                    ),
                    PromptMessage::user("Please process the embedded resource above."),
                ]
            },
        ))
        .prompt(prompt_fn(
            PromptDefinition::new("test_prompt_with_image", "A prompt with an image"),
            |_, _| async {
                Ok::<_, PromptError>(vec![
                    PromptMessage::new(Role::User, Content::image(PNG, "image/png")),
                    PromptMessage::user("Please analyze the image above."),
                ])
            },
        ))
}

fn server(skills_dir: &std::path::Path) -> Result<Server, mcp_runtime::server::BuildError> {
    let builder =
        Server::builder(env!("CARGO_BIN_NAME"), env!("CARGO_PKG_VERSION")).skills_dir(skills_dir);
    let builder = mcp_examples::conformance_input::register(prompts(resources(trigger_tools(
        content_tools(builder),
    ))));
    let builder = mcp_examples::conformance_tasks::register(builder);
    builder.build()
}

#[tokio::main]
async fn main() -> ExitCode {
    let args: Args = mcp_runtime::launch::parse();
    let _logs = init_tracing();
    match server(&args.skills_dir) {
        Ok(server) => {
            let _ = SERVER.set(server.clone());
            // Started by test harnesses, never by a person at a terminal: no hint.
            args.serve.with_stdio_hint("").serve(server).await
        }
        Err(e) => {
            eprintln!("conformance-server: {e}");
            ExitCode::FAILURE
        }
    }
}
