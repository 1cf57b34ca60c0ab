//! `cargo-mcp`: scaffold, inspect and install MCP servers.
//!
//! Invoked as `cargo mcp …` (cargo passes `mcp` as the first argument) or as `cargo-mcp …`.
//! Everything happens in the `mcp_cli` library; exit codes are listed in `cargo mcp --help`.

use std::process::ExitCode;

fn main() -> ExitCode {
    ExitCode::from(mcp_cli::run(std::env::args_os()))
}
