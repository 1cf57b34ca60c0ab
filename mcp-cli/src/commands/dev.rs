//! `cargo mcp dev`: serve the current project and rebuild it on every saved change, while
//! the client stays connected.

use super::block_on;
use crate::ops::dev::{self, DevOptions, inspector};
use crate::ops::project;
use anyhow::{Context as _, Result};
use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

/// Serve the current project over stdio, rebuilding and restarting it on every saved change
/// while the client stays connected.
#[derive(Debug, Clone, clap::Args)]
#[command(
    long_about = "Serve the current project over stdio, and rebuild it on every saved change while \
                  the client stays connected.\n\n\
                  Give `cargo mcp dev` to an MCP client as the server's command. It builds the project, \
                  starts its server behind a stable stdio endpoint and watches the sources. After \
                  each successful build it restarts the server, replays the client's handshake to \
                  it and sends `notifications/tools/list_changed` (and for resources and prompts), \
                  so the client sees a new tool without reconnecting. A failed build prints the \
                  compiler's errors and keeps the last good server serving. stdout carries only the \
                  protocol: the build output and our messages go to stderr.",
    after_help = "\
Examples:
  cargo mcp dev                                   # the server command for a client, in the project
  cargo mcp dev --manifest-path ~/weather/Cargo.toml
  cargo mcp dev -- ~/notes                        # arguments for the project's server
  cargo mcp dev --inspector                       # open the official MCP Inspector on it
  cargo mcp dev --transport http                  # at http://127.0.0.1:8808/<token>/mcp instead of stdio

A client configuration (Claude Desktop, VS Code, …):
  {\"command\": \"cargo\", \"args\": [\"mcp\", \"dev\", \"--manifest-path\", \"/path/to/weather/Cargo.toml\"]}
or, with --transport http (VS Code, Claude Code, Cursor):
  {\"type\": \"http\", \"url\": \"http://127.0.0.1:8808/<token>/mcp\"}
(the URL printed: its token is kept in the target folder, the same on every run)

`cargo mcp preview` runs the same loop with an MCP Apps view hosted in the browser."
)]
pub struct Args {
    /// The project's `Cargo.toml` (default: the one for the current folder).
    #[arg(long, value_name = "PATH")]
    pub manifest_path: Option<PathBuf>,

    /// The project's binary to run, when it has several.
    #[arg(long, value_name = "NAME")]
    pub bin: Option<String>,

    /// Where the client reaches the dev server: our stdio (the client starts `cargo mcp
    /// dev`), or a Streamable HTTP endpoint at `--bind` (it runs until Ctrl-C).
    #[arg(long, value_enum, default_value_t = DevTransport::Stdio)]
    pub transport: DevTransport,

    /// The address of the HTTP endpoint (`--transport http`): a loopback one (others are
    /// refused); only loopback pages may call it.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8808")]
    pub bind: std::net::SocketAddr,

    /// Start the official MCP Inspector (pinned; installed with npm into the user's cache
    /// folder on first use) on this dev server, instead of serving a client on stdio.
    #[arg(long)]
    pub inspector: bool,

    /// Build a change once the files have been quiet this long (milliseconds).
    #[arg(long, value_name = "MS", default_value_t = 200)]
    pub debounce_ms: u64,

    /// How long a replaced server may finish the requests it was given (seconds).
    #[arg(long, value_name = "SECONDS", default_value_t = 5)]
    pub grace: u64,

    /// Arguments for the project's server, after `--`.
    #[arg(last = true, value_name = "SERVER_ARGS")]
    pub server_args: Vec<String>,
}

/// Where `cargo mcp dev` serves its client.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum DevTransport {
    /// Our stdin and stdout.
    Stdio,
    /// Streamable HTTP at `--bind`, path `/<token>/mcp` (printed; the token is kept in the
    /// target folder, so the URL stays the same across runs).
    Http,
}

/// Serves until the client closes stdin, or Ctrl-C over HTTP (or runs the Inspector until
/// it exits).
pub fn exec(args: Args) -> Result<()> {
    if args.inspector {
        // Built first, then the dev server the Inspector will start is asked `initialize`
        // (it answers once its own check finds nothing to rebuild), and only then is the
        // Inspector started: its connect timeout is then about start-up, not a build. The
        // Inspector also gets a connect timeout that covers a rebuild
        // (`inspector::CONNECT_TIMEOUT`), for a file saved in between.
        let cwd = std::env::current_dir().context("cannot read the current folder")?;
        let binary = project::locate(
            args.manifest_path.as_deref(),
            args.bin.as_deref(),
            &cwd,
            "--manifest-path",
        )?;
        eprintln!(
            "cargo mcp dev: building `{}` before starting the Inspector",
            binary.bin
        );
        project::build(&binary, "dev", &cwd)?;
        let server = inspector_server(&args)?;
        block_on(inspector::wait_until_serving(&server, &cwd))?;
        return inspector::run(&server, &binary.bin);
    }
    let transport = match args.transport {
        DevTransport::Stdio => dev::Transport::Stdio,
        DevTransport::Http => dev::Transport::Http(args.bind),
    };
    block_on(dev::serve(
        DevOptions {
            manifest_path: args.manifest_path,
            bin: args.bin,
            server_args: args.server_args,
            debounce: Duration::from_millis(args.debounce_ms.max(1)),
            grace: Duration::from_secs(args.grace),
        },
        transport,
    ))
}

/// The command the Inspector starts: this program's `dev`, with the same flags (the
/// manifest path made absolute) and without `--inspector`.
fn inspector_server(args: &Args) -> Result<Vec<OsString>> {
    let program = std::env::current_exe().context("cannot tell where cargo-mcp is")?;
    let cwd = std::env::current_dir().context("cannot read the current folder")?;
    let mut command: Vec<OsString> = vec![program.into(), "dev".into()];
    // The Inspector starts it in our folder, so only a given path needs to be absolute.
    if let Some(path) = &args.manifest_path {
        command.extend(["--manifest-path".into(), cwd.join(path).into()]);
    }
    if let Some(bin) = &args.bin {
        command.extend(["--bin".into(), bin.into()]);
    }
    command.extend([
        "--debounce-ms".into(),
        args.debounce_ms.to_string().into(),
        "--grace".into(),
        args.grace.to_string().into(),
    ]);
    if !args.server_args.is_empty() {
        command.push("--".into());
        command.extend(args.server_args.iter().map(OsString::from));
    }
    Ok(command)
}
