//! `cargo-mcp`: scaffold, inspect and install MCP servers.
//!
//! Invoked as `cargo mcp …` (cargo passes `mcp` as the first argument) or as
//! `cargo-mcp …`. The subcommands arrive with their own issue; this binary already parses
//! both invocation shapes.

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// The cargo subcommand shape: `cargo mcp <command>`.
#[derive(Debug, Parser)]
#[command(name = "cargo", bin_name = "cargo")]
enum Cargo {
    /// MCP server tooling.
    Mcp(McpArgs),
}

/// Arguments after `cargo mcp`.
#[derive(Debug, Parser)]
#[command(version, about = "Scaffold, inspect and install MCP servers")]
struct McpArgs {
    #[command(subcommand)]
    command: Option<Command>,
}

/// Subcommands.
#[derive(Debug, Subcommand)]
enum Command {
    /// Print the toolkit version this CLI was built from.
    Version,
}

fn main() -> ExitCode {
    // Accept `cargo-mcp <args>` as well as `cargo mcp <args>`.
    let mut args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) != Some("mcp") {
        args.insert(1, "mcp".to_owned());
    }
    let Cargo::Mcp(mcp) = Cargo::parse_from(args);
    match mcp.command {
        Some(Command::Version) => {
            println!("cargo-mcp {}", env!("CARGO_PKG_VERSION"));
            ExitCode::SUCCESS
        }
        None => {
            eprintln!(
                "cargo-mcp {}: no command given; see `cargo mcp --help`",
                env!("CARGO_PKG_VERSION")
            );
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn cli_definition_is_consistent() {
        Cargo::command().debug_assert();
    }

    #[test]
    fn parses_both_invocation_shapes() {
        let Cargo::Mcp(a) = Cargo::parse_from(["cargo", "mcp", "version"]);
        assert!(matches!(a.command, Some(Command::Version)));
    }
}
