//! `cargo mcp new`: a new project in a new folder.

use super::ProjectArgs;
use crate::ops::scaffold;
use anyhow::Result;
use std::path::PathBuf;

/// Create a new MCP server project in a new folder.
#[derive(Debug, Clone, clap::Args)]
#[command(after_help = "\
Examples:
  cargo mcp new weather                                  # template stdio, mcp-runtime from crates.io
  cargo mcp new servers/files --template files --name notes
  cargo mcp new weather --runtime-path ~/src/mcp-toolkit # depend on a local checkout
  cargo mcp new crates/weather --standalone              # inside a workspace, without joining it

The folder must not exist (or be empty). Inside a cargo workspace the project joins its
`members` unless --standalone. Nothing is left behind when generation fails.")]
pub struct Args {
    /// The folder to create; its name is the package name unless --name.
    pub path: PathBuf,

    /// What to generate.
    #[command(flatten)]
    pub project: ProjectArgs,
}

/// Generates the project and prints the next steps.
pub fn exec(args: Args) -> Result<()> {
    let options = args.project.options(args.path)?;
    let created = scaffold::new_project(&options)?;
    let cwd = std::env::current_dir().unwrap_or_default();
    print!("{}", scaffold::next_steps(&created, &cwd));
    Ok(())
}
