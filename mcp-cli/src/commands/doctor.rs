//! `cargo mcp doctor`: toolchain and versions.

use crate::error::check_failed;
use crate::ops::doctor::{self, Status};
use anyhow::{Context as _, Result};
use std::path::PathBuf;

/// Check the toolchain and the toolkit versions.
#[derive(Debug, Clone, clap::Args)]
#[command(after_help = "\
Examples:
  cargo mcp doctor                                   # in a server's folder
  cargo mcp doctor --manifest-path servers/weather/Cargo.toml

Checks cargo and rustc (at least the toolkit's rust-version), and compares the mcp-runtime
the project uses with this cargo-mcp's version. Exits with 3 when something needs fixing.")]
pub struct Args {
    /// The project's `Cargo.toml` (default: the nearest one with a `[package]`).
    #[arg(long, value_name = "PATH")]
    pub manifest_path: Option<PathBuf>,
}

/// Runs the checks and prints them.
pub fn exec(args: Args) -> Result<()> {
    let mut checks = doctor::toolchain();
    let cwd = std::env::current_dir().context("cannot read the current folder")?;
    let manifest = args
        .manifest_path
        .clone()
        .or_else(|| doctor::find_package_manifest(&cwd));
    match manifest {
        Some(manifest) => checks.extend(doctor::project(&manifest, crate::VERSION)),
        None => checks.push(doctor::Check {
            status: Status::Ok,
            message: "no cargo package here; run in a server's folder to check its toolkit version"
                .into(),
            advice: None,
        }),
    }
    println!("cargo-mcp {}", crate::VERSION);
    print!("{}", doctor::render(&checks));
    let problems = checks.iter().filter(|c| c.status == Status::Error).count();
    if problems > 0 {
        return Err(check_failed(format!(
            "{problems} problem{} to fix (above)",
            if problems == 1 { "" } else { "s" }
        )));
    }
    Ok(())
}
