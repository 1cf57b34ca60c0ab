//! `file-server`: a secure drop-in for the reference `@modelcontextprotocol/server-filesystem`
//! server, with its tools, names, arguments and result shapes, over a kernel-confined
//! [`FileService`].
//!
//! ```text
//! file-server [--ext EXT]... [--read-only] [--confirm] [--transport stdio|http] [--bind ADDR] DIR...
//! ```
//!
//! - `DIR...`: the allowed directories (at least one; each must exist). Everything below them
//!   is reachable, nothing else; relative paths in tool calls resolve against the first.
//! - `--ext EXT`: only files with these extensions (repeatable, ASCII-case-insensitive, with
//!   or without the dot); directories are always reachable.
//! - `--read-only`: refuse every change, and list only the tools that read.
//! - `--confirm`: ask the user before every tool that may destroy (`write_file`, `edit_file`,
//!   `move_file`; `ServerBuilder::confirm_destructive`) and change nothing unless the
//!   answer is accept; a client that cannot elicit gets an `isError` refusal.
//! - `--transport`, `--bind`, ...: every server's flags, `mcp_runtime::launch::ServeArgs`
//!   (stdio by default; see `--help`).
//!
//! **Resources.** The same files are also resources ([`FileResources`]): `resources/list`
//! shows a bounded listing taken at startup (the first 1,000 readable files, breadth-first,
//! 10 levels deep), and the template `file:///{+path}` reads any file of the allowed
//! directories under the same rules as the tools, with `path` completing from directory
//! entries.
//!
//! **Startup cleanup.** Writes go through a temporary file that is renamed over the target.
//! On Linux that file is anonymous until it is complete, so a server killed mid-write leaves
//! nothing behind, except when killed in the instant between naming a complete temporary file
//! `.mcp-tmp-<pid>-<hex>` and renaming it over an existing target. At startup, before serving,
//! this server deletes such files left by dead processes in each allowed directory itself;
//! then, in the background, in every directory below (never through a symlink, within the
//! service's walk limits). A `--read-only` server changes nothing, so it skips the cleanup.
//!
//! Exit codes: 0 when the client goes away, 1 when a directory cannot be opened or the
//! transport fails, 2 on a usage error (no DIR, an unknown flag).

use clap::Parser;
use mcp_runtime::Server;
use mcp_runtime::fs::{FileResources, FileService, FileTools, FsPolicy};
use mcp_runtime::launch::{ServeArgs, init_tracing};
use mcp_runtime::tool::Confirm;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

/// Command-line options.
#[derive(Debug, Parser)]
#[command(
    version,
    about = "An MCP server with confined access to files: the reference filesystem server's tools"
)]
struct Args {
    /// Allow only files with this extension (repeatable; case-insensitive; `md` or `.md`).
    #[arg(long = "ext", value_name = "EXT")]
    extensions: Vec<String>,

    /// Refuse every change and offer only the tools that read.
    #[arg(long)]
    read_only: bool,

    /// Ask the user (elicitation) before every tool that may destroy; refuse when the
    /// client cannot be asked.
    #[arg(long)]
    confirm: bool,

    #[command(flatten)]
    serve: ServeArgs,

    /// The directories the server may access (with everything below them).
    #[arg(value_name = "DIR", required = true)]
    dirs: Vec<PathBuf>,
}

/// Shown on stderr when stdin is a terminal.
const TERMINAL_HINT: &str = "file-server: serving MCP on stdio; paste one JSON-RPC message per line, e.g.
{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"list_allowed_directories\",\"arguments\":{}}}
(Ctrl-D to quit)";

fn policy(args: &Args) -> FsPolicy {
    FsPolicy::new()
        .allow_dirs(args.dirs.iter().cloned())
        .allow_extensions(&args.extensions)
        .read_only(args.read_only)
}

/// Deletes the temporary files of writes killed mid-way: in each allowed directory now, and
/// below them in the background (see the module documentation).
async fn remove_stale_temp_files(files: &FileService) {
    if files.policy().is_read_only() {
        return;
    }
    let roots: Vec<String> = files
        .allowed_directories()
        .iter()
        .map(|d| d.to_string_lossy().into_owned())
        .collect();
    for root in &roots {
        if let Err(e) = files.remove_stale_temp_files(root).await {
            tracing::warn!("cleaning up temporary files in {root}: {e}");
        }
    }
    let files = files.clone();
    tokio::spawn(async move {
        for root in &roots {
            if let Err(e) = files.remove_stale_temp_files_recursively(root).await {
                tracing::warn!("cleaning up temporary files below {root}: {e}");
            }
        }
    });
}

fn server(files: FileService, confirm: bool) -> Result<Server, mcp_runtime::server::BuildError> {
    let dirs: Vec<String> = files
        .allowed_directories()
        .iter()
        .map(|d| d.display().to_string())
        .collect();
    let tools = Arc::new(FileTools::new(files.clone()));
    let mut builder = Server::builder(env!("CARGO_BIN_NAME"), env!("CARGO_PKG_VERSION"))
        .instructions(format!(
            "File access confined to these directories (relative paths resolve against the \
             first): {}. Use list_allowed_directories to see them. Files are also resources: \
             file:///{{+path}} reads any of them.",
            dirs.join(", ")
        ))
        .tools(tools.tools_for_policy());
    if confirm {
        builder = builder.confirm_destructive(Confirm::new());
    }
    FileResources::new(files).register(builder).build()
}

#[tokio::main]
async fn main() -> ExitCode {
    let args: Args = mcp_runtime::launch::parse();
    let _logs = init_tracing();
    let files = match FileService::new(policy(&args)) {
        Ok(files) => files.for_tool("file-server"),
        Err(e) => {
            eprintln!("file-server: {e}");
            return ExitCode::FAILURE;
        }
    };
    remove_stale_temp_files(&files).await;
    match server(files, args.confirm) {
        Ok(server) => {
            args.serve
                .with_stdio_hint(TERMINAL_HINT)
                .serve(server)
                .await
        }
        Err(e) => {
            eprintln!("file-server: {e}");
            ExitCode::FAILURE
        }
    }
}
