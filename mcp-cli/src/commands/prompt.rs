//! `cargo mcp prompt`: one prompt, rendered.

use super::{ServerArgs, block_on};
use crate::error::{check_failed, usage};
use crate::ops::connect::{bounded, describe};
use crate::ops::{ask, content, inspect};
use anyhow::{Result, anyhow};
use mcp_runtime::client::ClientError;
use mcp_runtime::protocol::ErrorCode;

/// Render a prompt of a server.
#[derive(Debug, Clone, clap::Args)]
#[command(after_help = "\
Examples:
  cargo mcp prompt greet name=Ada                   # the messages, each under its role
  cargo mcp prompt greet name=Ada style=formal --json
  cargo mcp prompt code_review code='fn main() {}' --url http://127.0.0.1:8000/mcp
  cargo mcp prompt greet name=Ada --command ./target/debug/echo-server

Values are strings, as the protocol has them. Exits with 2 when the server has no such
prompt, or an argument is unknown or missing.")]
pub struct Args {
    /// The prompt's name.
    pub name: String,

    /// Arguments as `key=value` (everything after the first `=` is the value).
    #[arg(value_name = "KEY=VALUE")]
    pub pairs: Vec<String>,

    /// Print the whole result as JSON.
    #[arg(long)]
    pub json: bool,

    /// Which server, and how to reach it.
    #[command(flatten)]
    pub server: ServerArgs,
}

/// Connects, checks the prompt and its arguments, renders it and prints the messages.
pub fn exec(args: Args) -> Result<()> {
    let answering = ask::Answering::new(args.json)?;
    block_on(async {
        let connection = args.server.connect_answering(answering.handler()).await?;
        let server = args.server.spec().describe();
        if connection.capabilities.prompts.is_none() {
            connection.close().await;
            return Err(usage(format!("{server} offers no prompts")));
        }
        let timeout = args.server.timeout();
        let prompts = bounded(
            timeout,
            "prompts/list failed",
            connection.client.list_prompts(),
        )
        .await?;
        let Some(prompt) = prompts.iter().find(|p| p.name == args.name) else {
            connection.close().await;
            let names = prompts.iter().map(|p| p.name.as_str());
            let close = inspect::closest(&args.name, names.clone());
            let hint = if close.is_empty() {
                format!("it has: {}", names.collect::<Vec<_>>().join(", "))
            } else {
                format!("did you mean {}?", close.join(", "))
            };
            return Err(usage(format!(
                "{server} has no prompt `{}`; {hint}",
                args.name
            )));
        };
        let arguments = match content::prompt_arguments(&args.pairs, prompt) {
            Ok(arguments) => arguments,
            Err(e) => {
                connection.close().await;
                return Err(e);
            }
        };
        let answer = answering
            .bounded(
                timeout,
                connection.client.get_prompt(&args.name, &arguments),
            )
            .await
            .ok_or(());
        connection.close().await;
        let what = format!("rendering the prompt `{}` failed", args.name);
        let result = match answer {
            Err(()) => return Err(anyhow!("{what}: no answer within {} s", timeout.as_secs())),
            Ok(Err(ClientError::Protocol(e)))
                if e.code == ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY =>
            {
                let subject = format!("the prompt `{}`", args.name);
                return Err(check_failed(answering.needs_input(&subject, &e)));
            }
            // The server's own check of the arguments (beyond what the definition says).
            Ok(Err(ClientError::Protocol(e))) if e.code == ErrorCode::INVALID_PARAMS => {
                return Err(usage(format!("{what}: {}", e.message)));
            }
            Ok(Err(e)) => return Err(describe(e).context(what)),
            Ok(Ok(result)) => result,
        };
        if args.json {
            println!("{}", serde_json::to_string_pretty(&result)?);
        } else {
            print!("{}", content::render_messages(&result));
        }
        Ok(())
    })
}
