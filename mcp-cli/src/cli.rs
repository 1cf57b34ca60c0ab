//! The command line: `cargo mcp <command>`, parsed with clap derive in the cargo-subcommand
//! shape, so `cargo mcp new x` and `cargo-mcp new x` parse the same way.

use crate::commands::{
    call, completions, dev, doctor, init, install, list, login, new, package, preview, prompt,
    read, schema, task, uninstall,
};
use clap::{Parser, Subcommand};
use std::ffi::OsString;

/// `cargo` as it runs us: `cargo mcp …`.
#[derive(Debug, Parser)]
#[command(name = "cargo", bin_name = "cargo")]
pub enum Cargo {
    /// Scaffold, inspect and install MCP servers.
    Mcp(McpCli),
}

/// The arguments after `cargo mcp`.
#[derive(Debug, clap::Args)]
#[command(
    version,
    about = "Scaffold, inspect and install MCP servers",
    long_about = "Scaffold, inspect and install Model Context Protocol servers built with mcp-runtime.\n\n\
                  `new` and `init` generate a project that builds and passes `cargo test` at once; \
                  `list`, `call`, `read`, `prompt` and `schema` talk to the current project (built and run), to any \
                  command over stdio, or to a URL over Streamable HTTP; `install` adds the server \
                  to a client's configuration; `dev` serves the current project and rebuilds it on every \
                  saved change while the client stays connected; `package` writes the MCP Registry's \
                  server.json and builds an MCPB bundle; `doctor` checks the toolchain and versions.",
    after_help = AFTER_HELP
)]
pub struct McpCli {
    /// The command.
    #[command(subcommand)]
    pub command: Command,
}

/// Examples and the exit codes (the same table as [`crate::error::EXIT_CODES_HELP`]).
const AFTER_HELP: &str = "\
Examples:
  cargo mcp new weather                          # scaffold a server (template stdio)
  cargo mcp new files-srv --template files       # a server of confined file tools
  cd weather && cargo mcp list                   # build it, start it, list what it offers
  cargo mcp call add a=2 b=3                     # call a tool
  cargo mcp read echo://readme                   # read a resource
  cargo mcp prompt greet name=Ada                # render a prompt
  cargo mcp schema --check tests/snapshots/tools.json   # CI: fail when the tools changed
  cargo mcp install claude-desktop               # build in release, add it to Claude Desktop
  cargo mcp uninstall claude-desktop             # and take it out again
  cargo mcp doctor                               # toolchain and toolkit versions
  cargo mcp dev                                  # serve it, rebuilt on every saved change
  cargo mcp completions bash                     # shell completions (bash, zsh, fish)
  cargo mcp package                              # registry server.json + an MCPB bundle

Exit codes:
  0  success
  1  failure: a build, the server, the network or the file system failed
  2  usage: invalid arguments or an invalid package name
  3  check failed: `schema --check` differs, `call` got an error result, `doctor` found a problem
  4  refused: would overwrite or replace something (see --force), or cannot edit a file safely";

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Create a new MCP server project in a new folder.
    New(new::Args),
    /// Create an MCP server project in an existing folder.
    Init(init::Args),
    /// List the tools, resources, resource templates and prompts of a server.
    List(list::Args),
    /// Call a tool of a server.
    Call(call::Args),
    /// Read a resource of a server.
    Read(read::Args),
    /// Look at or cancel a task a server runs (2026-07-28 tasks).
    Task(task::Args),
    /// Render a prompt of a server.
    Prompt(prompt::Args),
    /// Print, save or check the server's tools/list snapshot.
    Schema(schema::Args),
    /// Log in to a server over HTTP (OAuth), for the other commands' --url.
    Login(login::LoginArgs),
    /// Forget the login to a server over HTTP (and revoke its tokens).
    Logout(login::LogoutArgs),
    /// Add the server to an MCP client's configuration.
    Install(install::Args),
    /// Remove a server from an MCP client's configuration.
    Uninstall(uninstall::Args),
    /// Check the toolchain and the toolkit versions.
    Doctor(doctor::Args),
    /// Serve the current project, rebuilding it on every saved change.
    Dev(dev::Args),
    /// Show a tool's MCP Apps view in the browser, hosted as a chat host does.
    Preview(preview::Args),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    Completions(completions::Args),
    /// Write the MCP Registry's server.json and build an MCPB bundle.
    Package(package::Args),
}

/// Parses a command line as the process receives it (the program first). `mcp` is
/// inserted when absent, so `cargo-mcp new x` works like `cargo mcp new x`.
pub fn parse(args: impl IntoIterator<Item = OsString>) -> Result<McpCli, clap::Error> {
    let mut args: Vec<OsString> = args.into_iter().collect();
    if args.is_empty() {
        args.push("cargo-mcp".into());
    }
    if args.get(1).map(|a| a.as_os_str()) != Some("mcp".as_ref()) {
        args.insert(1, "mcp".into());
    }
    let Cargo::Mcp(cli) = Cargo::try_parse_from(args)?;
    Ok(cli)
}

/// Runs the parsed command.
pub fn exec(cli: McpCli) -> anyhow::Result<()> {
    match cli.command {
        Command::New(args) => new::exec(args),
        Command::Init(args) => init::exec(args),
        Command::List(args) => list::exec(args),
        Command::Call(args) => call::exec(args),
        Command::Read(args) => read::exec(args),
        Command::Task(args) => task::exec(args),
        Command::Prompt(args) => prompt::exec(args),
        Command::Schema(args) => schema::exec(args),
        Command::Login(args) => login::exec(args),
        Command::Logout(args) => login::exec_logout(args),
        Command::Install(args) => install::exec(args),
        Command::Uninstall(args) => uninstall::exec(args),
        Command::Doctor(args) => doctor::exec(args),
        Command::Dev(args) => dev::exec(args),
        Command::Preview(args) => preview::exec(args),
        Command::Completions(args) => {
            completions::exec(args, <Cargo as clap::CommandFactory>::command())
        }
        Command::Package(args) => package::exec(args),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::EXIT_CODES_HELP;
    use clap::CommandFactory;

    fn parse_str(line: &str) -> Result<McpCli, clap::Error> {
        parse(line.split_whitespace().map(OsString::from))
    }

    #[test]
    fn the_definition_is_consistent() {
        Cargo::command().debug_assert();
    }

    #[test]
    fn both_invocation_shapes_parse() {
        for line in [
            "cargo mcp new weather",
            "cargo-mcp new weather",
            "cargo-mcp mcp new weather",
        ] {
            let cli = parse_str(line).unwrap_or_else(|e| panic!("{line}: {e}"));
            assert!(matches!(cli.command, Command::New(_)), "{line}");
        }
    }

    #[test]
    fn every_command_has_examples_in_its_help() {
        let mut cargo = Cargo::command();
        let mcp = cargo.find_subcommand_mut("mcp").unwrap();
        assert!(mcp.render_long_help().to_string().contains(EXIT_CODES_HELP));
        for sub in mcp.get_subcommands_mut().filter(|s| s.get_name() != "help") {
            let help = sub.render_long_help().to_string();
            assert!(
                help.contains("Examples:"),
                "`{}` has no examples",
                sub.get_name()
            );
        }
    }
}
