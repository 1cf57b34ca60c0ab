//! `cargo mcp uninstall`: remove a server from a client's configuration.

use crate::error::usage;
use crate::ops::install::{self, ClientKind, ConfigFile, Environment, Uninstalled};
use crate::ops::project;
use anyhow::{Context as _, Result};
use std::path::PathBuf;

/// Remove a server from an MCP client's configuration.
#[derive(Debug, Clone, clap::Args)]
#[command(after_help = "\
Examples:
  cargo mcp uninstall claude-desktop                   # the current project's server
  cargo mcp uninstall cursor --name weather-dev        # a server by its name in the client
  cargo mcp uninstall vscode --dry-run                 # show the change, write nothing
  cargo mcp uninstall claude-code --config-path .mcp.json

The name defaults to the current project's binary (as `install` names it); nothing is
built. Only that entry is removed; everything else in the file is kept byte for byte, and
the old file is kept as <file>.bak (a link at either is replaced, never written through; a
project file that resolves outside the project is refused, exit 4). No such entry is not an error.")]
pub struct Args {
    /// The client (`json` needs --config-path).
    #[arg(value_enum)]
    pub client: ClientKind,

    /// The server's name in the client (default: the current project's binary).
    #[arg(long)]
    pub name: Option<String>,

    /// The configuration file to edit (default: the client's usual place).
    #[arg(long, value_name = "PATH")]
    pub config_path: Option<PathBuf>,

    /// Show what would change; write nothing.
    #[arg(long)]
    pub dry_run: bool,

    /// The project's `Cargo.toml` (default: the one for the current folder).
    #[arg(long, value_name = "PATH", conflicts_with = "name")]
    pub manifest_path: Option<PathBuf>,

    /// The project's binary, when it has several.
    #[arg(long, value_name = "NAME", conflicts_with = "name")]
    pub bin: Option<String>,
}

/// Removes the entry and reports what happened.
pub fn exec(args: Args) -> Result<()> {
    let cwd = std::env::current_dir().context("cannot read the current folder")?;
    let (name, project_root) = match &args.name {
        Some(name) if name.is_empty() => return Err(usage("--name cannot be empty")),
        Some(name) => (name.clone(), None),
        None => {
            let binary = project::locate(
                args.manifest_path.as_deref(),
                args.bin.as_deref(),
                &cwd,
                "--name",
            )?;
            let root = binary.manifest_path.parent().map(PathBuf::from);
            (binary.bin, root)
        }
    };
    let environment = Environment::from_process(project_root.or(Some(cwd)));
    let path = match &args.config_path {
        Some(path) => path.clone(),
        None => args
            .client
            .default_config_path(&environment)
            .ok_or_else(|| {
                usage(format!(
                    "cannot tell where {} keeps its configuration here; pass --config-path",
                    args.client
                ))
            })?,
    };
    let scope = environment.scope_of(args.client, &path, args.config_path.is_none());
    let file = ConfigFile::resolve(&path, scope)?;
    match install::uninstall_from(&file, args.client, &name, args.dry_run)? {
        Uninstalled::Absent => println!(
            "{} has no server named `{name}`; nothing to do",
            path.display()
        ),
        Uninstalled::WouldWrite(text) => install::print_dry_run(&path, &text, "after uninstall"),
        Uninstalled::Removed { backup, .. } => {
            println!(
                "removed `{name}` from {}{} ({})",
                path.display(),
                install::through_link(&file),
                args.client
            );
            println!("  the previous file is in {}", backup.display());
            if args.client == ClientKind::ClaudeDesktop {
                println!("Restart Claude Desktop to unload it.");
            }
        }
    }
    Ok(())
}
