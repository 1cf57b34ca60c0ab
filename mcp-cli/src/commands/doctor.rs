//! `cargo mcp doctor`: toolchain and versions.

use super::block_on;
use crate::error::check_failed;
use crate::ops::doctor::{self, Status};
use crate::ops::project;
use anyhow::{Context as _, Result};
use std::path::PathBuf;

/// Check the toolchain and the toolkit versions.
#[derive(Debug, Clone, clap::Args)]
#[command(after_help = "\
Examples:
  cargo mcp doctor                                   # in a server's folder
  cargo mcp doctor --manifest-path servers/weather/Cargo.toml

Checks cargo and rustc (at least the toolkit's rust-version), and compares the mcp-runtime
the project uses with this cargo-mcp's version. When the project's server is built, starts it
(with the arguments after `--`) and checks that it answers and writes nothing but protocol
messages to stdout; nothing is built. Exits with 3 when something needs fixing.")]
pub struct Args {
    /// The project's `Cargo.toml` (default: the nearest one with a `[package]`).
    #[arg(long, value_name = "PATH")]
    pub manifest_path: Option<PathBuf>,

    /// The project's binary, when it has several.
    #[arg(long, value_name = "NAME")]
    pub bin: Option<String>,

    /// Arguments for the server, after `--`.
    #[arg(last = true, value_name = "SERVER_ARGS")]
    pub server_args: Vec<String>,
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
        Some(manifest) => {
            checks.extend(doctor::project(&manifest, crate::VERSION));
            // A package without a binary to run is checked as a library: nothing to start.
            if let Ok(binary) = project::locate(
                Some(&manifest),
                args.bin.as_deref(),
                &cwd,
                "--manifest-path",
            ) {
                checks.push(block_on(async {
                    Ok(doctor::server_check(&binary, &args.server_args, &cwd).await)
                })?);
            }
        }
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
