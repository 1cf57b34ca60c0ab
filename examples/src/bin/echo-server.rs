//! `echo-server`: the smallest useful MCP server, with tools `echo` and `add`, and one of each
//! other primitive to try clients on: resources `echo://readme` (text) and `echo://logo`
//! (a PNG, served as a blob), the template `echo://greeting/{name}` (with completions for
//! `name`), and prompts `greet` (arguments), `readme` (the readme embedded) and `logo` (an
//! image).
//!
//! Three tools ask the client something while they run, one of each kind: `ask_name` asks
//! the user to fill in a form (elicitation), `ask_model` asks the client's model (sampling)
//! and `list_roots` asks for the client's roots. The same code serves both protocol eras: on
//! a 2025 session each ask is a request to the client that the tool waits for; on a
//! 2026-07-28 request the tool is answered `input_required` and runs again when the client
//! retries with the answer (see `mcp_runtime::input`).
//!
//! ```text
//! echo-server [--transport stdio|http] [--bind ADDR] [...]
//! ```
//!
//! Serves both protocol eras, over stdio by default; the flags are every server's
//! (`mcp_runtime::launch::ServeArgs`, see `--help`). Logs go to stderr (`RUST_LOG` filters
//! them).

use clap::Parser;
use futures::future::BoxFuture;
use mcp_runtime::input::{Elicitation, InputError};
use mcp_runtime::launch::{ServeArgs, init_tracing};
use mcp_runtime::prelude::*;
use mcp_runtime::prompt::{PromptError, prompt_fn};
use mcp_runtime::protocol::{
    Completion, CreateMessageParams, PromptArgument, PromptDefinition, PromptMessage,
    ResourceContents, ResourceDefinition, ResourceTemplateDefinition, Role,
};
use mcp_runtime::resource::{
    IntoContents, ResourceError, ResourceTemplate, Variables, resource_fn,
};
use std::collections::BTreeMap;
use std::process::ExitCode;

/// Command-line options.
#[derive(Debug, Parser)]
#[command(
    version,
    about = "An MCP server with the tools `echo` and `add`, and tools that ask the client"
)]
struct Args {
    #[command(flatten)]
    serve: ServeArgs,
}

/// Shown on stderr when stdin is a terminal.
const TERMINAL_HINT: &str = "echo-server: serving MCP on stdio; paste one JSON-RPC message per line, e.g.
{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"hi\"}}}
(Ctrl-D to quit)";

/// Returns the given text unchanged.
#[mcp_tool(read_only, idempotent, open_world = false)]
async fn echo(
    /// The text to echo back
    text: String,
) -> String {
    text
}

/// Adds two numbers and returns the sum.
#[mcp_tool(read_only, idempotent, open_world = false)]
async fn add(
    /// The first addend
    a: f64,
    /// The second addend
    b: f64,
) -> f64 {
    a + b
}

/// The form `ask_name` asks the user to fill in.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Name {
    /// What should I call you?
    name: String,
}

/// Asks the user for their name in a form and greets them by it. Needs a client that
/// supports elicitation.
#[mcp_tool(read_only, idempotent, open_world = false)]
async fn ask_name(cx: RequestContext) -> Result<String, InputError> {
    // The key names the question in a 2026-07-28 `input_required` result (default:
    // `elicit_1`).
    let answer = cx.elicit::<Name>("Who are you?").key("name").await?;
    Ok(match answer {
        Elicitation::Accepted(Name { name }) => format!("Hello, {name}!"),
        Elicitation::Declined => "You declined to say your name.".to_owned(),
        Elicitation::Cancelled => "You dismissed the question.".to_owned(),
    })
}

/// Asks the client's language model a question and returns its answer. Needs a client that
/// supports sampling; the client may show the request to the user first.
#[mcp_tool(read_only, open_world = false)]
async fn ask_model(
    cx: RequestContext,
    /// The question for the model
    question: String,
) -> Result<String, InputError> {
    let answer = cx
        .sample(CreateMessageParams::new(200).user(question))
        .key("answer")
        .await?;
    Ok(answer
        .text()
        .unwrap_or_else(|| "The model answered with something other than text.".to_owned()))
}

/// Lists the client's roots (the folders it lets servers work in), one URI per line. Needs a
/// client that supports roots.
#[mcp_tool(read_only, idempotent, open_world = false)]
async fn list_roots(cx: RequestContext) -> Result<String, InputError> {
    let roots = cx.roots().key("roots").await?;
    if roots.is_empty() {
        return Ok("The client shares no roots.".to_owned());
    }
    Ok(roots
        .iter()
        .map(|root| root.uri.as_str())
        .collect::<Vec<_>>()
        .join("\n"))
}

/// What `echo://readme` says.
const README: &str = "# echo-server\n\nRepeats text (`echo`) and adds numbers (`add`). \
Asks you your name (`ask_name`), asks your model (`ask_model`) and lists your roots \
(`list_roots`).\n";

/// A 1×1 transparent PNG, base64: `echo://logo` and the `logo` prompt's image.
const LOGO_PNG_BASE64: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";

/// The names `echo://greeting/{name}` suggests.
const NAMES: [&str; 4] = ["Ada", "Alan", "Grace", "Linus"];

/// `echo://greeting/{name}`: a greeting for anyone, with completions for `name`.
struct Greeting;

impl ResourceTemplate for Greeting {
    fn definition(&self) -> ResourceTemplateDefinition {
        ResourceTemplateDefinition::new("echo://greeting/{name}", "greeting")
            .with_description("A greeting for `name`.")
            .with_mime_type("text/plain")
    }

    fn read(
        &self,
        uri: String,
        variables: Variables,
        _cx: RequestContext,
    ) -> BoxFuture<'static, Result<Vec<ResourceContents>, ResourceError>> {
        let name = variables.get("name").unwrap_or_default().to_owned();
        Box::pin(async move { format!("Hello, {name}!").into_contents(&uri, Some("text/plain")) })
    }

    fn complete(
        &self,
        _variable: &str,
        value: &str,
        _chosen: &BTreeMap<String, String>,
    ) -> BoxFuture<'static, Completion> {
        let typed = value.to_lowercase();
        let values = NAMES
            .iter()
            .filter(|n| n.to_lowercase().starts_with(&typed))
            .map(|n| (*n).to_owned());
        Box::pin(std::future::ready(Completion::from_all(values)))
    }
}

fn server() -> Result<Server, mcp_runtime::server::BuildError> {
    let readme = resource_fn(
        ResourceDefinition::new("echo://readme", "readme")
            .with_description("What this server does.")
            .with_mime_type("text/markdown"),
        |_cx| async { README },
    );
    let logo = resource_fn(
        ResourceDefinition::new("echo://logo", "logo")
            .with_description("The server's logo.")
            .with_mime_type("image/png"),
        |_cx| async {
            use base64::Engine as _;
            base64::engine::general_purpose::STANDARD
                .decode(LOGO_PNG_BASE64)
                .map_err(ResourceError::failed)
        },
    );
    let greet = prompt_fn(
        PromptDefinition::new("greet", "Asks the model to greet someone.")
            .with_argument(PromptArgument::required("name", "Who to greet"))
            .with_argument(PromptArgument::optional("style", "How: formal or casual")),
        |args, _cx| async move {
            let style = args.get("style").map_or("casual", String::as_str);
            format!("Greet {} in a {style} way.", args["name"])
        },
    );
    let embedded = prompt_fn(
        PromptDefinition::new(
            "readme",
            "Asks for a summary of the server's readme, embedded.",
        ),
        |_args, cx: RequestContext| async move {
            let contents = cx
                .read_resource("echo://readme")
                .await
                .map_err(PromptError::failed)?;
            let mut messages = vec![PromptMessage::user("Summarize this readme:")];
            messages.extend(
                contents
                    .into_iter()
                    .map(|c| PromptMessage::new(Role::User, Content::embedded(c))),
            );
            Ok::<_, PromptError>(messages)
        },
    );
    let image = prompt_fn(
        PromptDefinition::new("logo", "Asks the model to describe the server's logo."),
        |_args, _cx| async {
            vec![
                PromptMessage::new(Role::User, Content::image(LOGO_PNG_BASE64, "image/png")),
                PromptMessage::user("Describe this image."),
            ]
        },
    );
    Server::builder(env!("CARGO_BIN_NAME"), env!("CARGO_PKG_VERSION"))
        .instructions(
            "Use `echo` to repeat text and `add` to add two numbers. `ask_name`, `ask_model` \
             and `list_roots` show how a tool asks the client: the user, its model, its roots.",
        )
        .tool(echo::tool())
        .tool(add::tool())
        .tool(ask_name::tool())
        .tool(ask_model::tool())
        .tool(list_roots::tool())
        .resource(readme)
        .resource(logo)
        .resource_template(Greeting)
        .prompt(greet)
        .prompt(embedded)
        .prompt(image)
        .build()
}

// One thread: a stdio server answers one client, and with the event loop reading stdin,
// dispatching and writing stdout on the same thread no request waits for a thread wake-up
// (see `bench/` for the numbers). Servers whose tools compute for long stretches should use
// the multi-threaded runtime or `spawn_blocking`. (`Launcher` makes the same choice for stdio
// and serves HTTP on a pool: `launch::RuntimeFlavor`; this example serves both on one thread.)
#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let args: Args = mcp_runtime::launch::parse();
    let _logs = init_tracing();
    match server() {
        Ok(server) => {
            args.serve
                .with_stdio_hint(TERMINAL_HINT)
                .serve(server)
                .await
        }
        Err(e) => {
            eprintln!("echo-server: {e}");
            ExitCode::FAILURE
        }
    }
}
