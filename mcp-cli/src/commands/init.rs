//! `cargo mcp init`: a project in an existing folder.

use super::ProjectArgs;
use crate::ops::scaffold;
use anyhow::Result;
use std::path::PathBuf;

/// Create an MCP server project in an existing folder.
#[derive(Debug, Clone, clap::Args)]
#[command(after_help = "\
Examples:
  cargo mcp init                         # in the current folder, named after it
  cargo mcp init weather --template http
  cargo mcp init --force                 # overwrite src/lib.rs, … and merge into Cargo.toml

Files of the template that already exist are listed and nothing is written, unless --force.
With --force an existing Cargo.toml is merged into, not replaced: its package (name, version,
edition) and dependencies stay, missing dependencies and features are added, and the old file
is kept as Cargo.toml.bak. Other files are left alone.")]
pub struct Args {
    /// The folder (default: the current one).
    #[arg(default_value = ".")]
    pub path: PathBuf,

    /// Overwrite files of the template that already exist.
    #[arg(long)]
    pub force: bool,

    /// What to generate.
    #[command(flatten)]
    pub project: ProjectArgs,
}

/// Generates the project and prints the next steps.
pub fn exec(args: Args) -> Result<()> {
    let options = args.project.options(args.path)?;
    let created = scaffold::init_project(&options, args.force)?;
    for path in &created.overwritten {
        match &created.merged_manifest {
            Some(backup) if path == std::path::Path::new("Cargo.toml") => eprintln!(
                "merged the template into Cargo.toml (its name, version and dependencies stay; the previous file is {})",
                backup.display()
            ),
            _ => eprintln!("overwrote {}", path.display()),
        }
    }
    let cwd = std::env::current_dir().unwrap_or_default();
    print!("{}", scaffold::next_steps(&created, &cwd));
    Ok(())
}
