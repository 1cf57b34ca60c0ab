//! `cargo mcp call`: one tool call.

use super::{ServerArgs, block_on};
use crate::error::{check_failed, usage};
use crate::ops::connect::bounded;
use crate::ops::inspect;
use anyhow::Result;

/// Call a tool of a server.
#[derive(Debug, Clone, clap::Args)]
#[command(after_help = "\
Examples:
  cargo mcp call add a=2 b=3                        # values are JSON unless the schema says string
  cargo mcp call get_weather city=Seoul unit=celsius
  cargo mcp call search --args '{\"query\": \"mcp\", \"tags\": [\"rust\"]}'
  cargo mcp call echo text=hi --json                # the whole result as JSON
  cargo mcp call add a=1 b=2 --url http://127.0.0.1:8000/mcp
  cargo mcp call echo text=hi --command ./target/debug/echo-server

Exits with 3 when the tool reports an error (`isError`); its message is printed first.")]
pub struct Args {
    /// The tool's name.
    pub tool: String,

    /// Arguments as `key=value`; a value is JSON (`3`, `true`, `[1]`) unless the property
    /// is a string or the value is not JSON.
    #[arg(value_name = "KEY=VALUE")]
    pub pairs: Vec<String>,

    /// All arguments as one JSON object (`key=value` pairs are applied on top).
    #[arg(long, value_name = "JSON")]
    pub args: Option<String>,

    /// Print the whole result as JSON.
    #[arg(long)]
    pub json: bool,

    /// Which server, and how to reach it.
    #[command(flatten)]
    pub server: ServerArgs,
}

/// Connects, checks the tool exists, calls it and prints the result.
pub fn exec(args: Args) -> Result<()> {
    block_on(async {
        let connection = args.server.connect().await?;
        let timeout = args.server.timeout();
        let tools = bounded(timeout, "tools/list failed", connection.client.list_tools()).await?;
        let Some(tool) = tools.iter().find(|t| t.name == args.tool) else {
            let close = inspect::similar_names(&args.tool, &tools);
            let hint = if close.is_empty() {
                let all: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
                format!("it has: {}", all.join(", "))
            } else {
                format!("did you mean {}?", close.join(", "))
            };
            connection.close().await;
            return Err(usage(format!(
                "{} has no tool `{}`; {hint}",
                args.server.spec().describe(),
                args.tool
            )));
        };
        let arguments = inspect::call_arguments(args.args.as_deref(), &args.pairs, Some(tool))?;
        let what = format!("calling `{}` failed", args.tool);
        let result = bounded(
            timeout,
            &what,
            connection.client.call_tool(&args.tool, arguments),
        )
        .await?;
        if args.json {
            println!("{}", serde_json::to_string_pretty(&result)?);
        } else {
            print!("{}", inspect::render_result(&result));
        }
        connection.close().await;
        if result.is_error() {
            return Err(check_failed(format!(
                "the tool `{}` reported an error (above)",
                args.tool
            )));
        }
        Ok(())
    })
}
