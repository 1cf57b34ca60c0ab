//! `cargo mcp preview`: show a tool's MCP Apps view in the browser, hosted the way a chat host
//! does, and reload it whenever the project changes.

use super::block_on;
use crate::ops::dev::{self, DevOptions};
use crate::ops::inspect;
use anyhow::Result;
use std::path::PathBuf;
use std::time::Duration;

/// `cargo mcp preview` arguments.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Examples:
  cargo mcp preview                               # the first tool that has a view
  cargo mcp preview text_stats text=\"one two\"     # this tool, called with these arguments
  cargo mcp preview forecast --args '{\"city\": \"Oslo\"}'

Open the URL printed (http://127.0.0.1:8809/<token>/): the page calls the tool, hosts its view
in a sandboxed iframe through the official MCP Apps host bridge (the view's CSP and
permissions applied, as a chat host does), passes it the tool's arguments and result, and
proxies the view's own tool calls and resource reads to the server. The project is rebuilt on
every saved change (as with `cargo mcp dev`), and the page reloads when the server restarts
or the view's HTML changes. Loopback only; Ctrl-C stops.")]
pub struct Args {
    /// The tool whose view to show (default: the first tool that has one).
    pub tool: Option<String>,

    /// Arguments as `key=value`; a value is JSON (`3`, `true`, `[1]`) unless it is not JSON.
    #[arg(value_name = "KEY=VALUE")]
    pub pairs: Vec<String>,

    /// All arguments as one JSON object (`key=value` pairs are applied on top).
    #[arg(long, value_name = "JSON")]
    pub args: Option<String>,

    /// The address of the page: 127.0.0.1 and a port (its sandbox is served from
    /// `localhost`, another origin).
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8809")]
    pub bind: std::net::SocketAddr,

    /// The project's `Cargo.toml` (default: the one for the current folder).
    #[arg(long, value_name = "PATH")]
    pub manifest_path: Option<PathBuf>,

    /// The binary to run, when the package has several.
    #[arg(long, value_name = "NAME")]
    pub bin: Option<String>,

    /// Milliseconds without further changes before a rebuild starts.
    #[arg(long, value_name = "MS", default_value_t = 200)]
    pub debounce_ms: u64,

    /// Arguments for the project's server, after `--`.
    #[arg(last = true, value_name = "SERVER_ARGS")]
    pub server_args: Vec<String>,
}

/// Serves the preview until Ctrl-C.
pub fn exec(args: Args) -> Result<()> {
    let arguments = inspect::call_arguments(args.args.as_deref(), &args.pairs, None)?;
    block_on(dev::serve(
        DevOptions {
            manifest_path: args.manifest_path,
            bin: args.bin,
            server_args: args.server_args,
            debounce: Duration::from_millis(args.debounce_ms.max(1)),
            grace: Duration::from_secs(5),
        },
        dev::Transport::Preview {
            address: args.bind,
            tool: args.tool,
            arguments,
        },
    ))
}
