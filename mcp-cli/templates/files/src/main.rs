//! Serves the tools of `src/lib.rs` on the directories given as arguments (or in
//! `MCP_FILES_DIR`): over stdio by default (what desktop clients start), or over
//! Streamable HTTP with `--transport http`. The options are every server's
//! (`mcp_runtime::launch::ServeArgs`; `cargo run -- --help` lists them) plus `DIR...`.
//!
//! stdout carries only the protocol; write logs and messages to stderr.

use std::path::PathBuf;

// The tools and the server, from src/lib.rs.
use {{crate_name}}::{DIRS_ENV, directories, file_service, server};

/// This server's own arguments, beside the options every server takes.
#[derive(clap::Args)]
struct Dirs {
    /// The directories the tools may read (default: `MCP_FILES_DIR`).
    #[arg(value_name = "DIR")]
    dirs: Vec<PathBuf>,
}

fn main() -> std::process::ExitCode {
    // The name, version and description in `--help` come from Cargo.toml.
    mcp_runtime::launcher!().run_with(|Dirs { dirs }| {
        let dirs = directories(dirs, std::env::var_os(DIRS_ENV))?;
        let files = file_service(&dirs).map_err(|e| e.to_string())?;
        server(files).map_err(|e| e.to_string())
    })
}
