//! `cargo mcp package`: the MCP Registry's `server.json` (and the README's `mcp-name:` line
//! it checks), and an MCPB bundle of the release binary. The steps are in
//! [`crate::ops::package`], the decisions in [`crate::ops::registry`] and
//! [`crate::ops::mcpb`]; this file parses the arguments, runs the build and prints.
//!
//! Order: everything that can refuse (the name, the description, the README, an existing
//! `server.json`) is checked before the build, so a mistake costs no release build; files are
//! written only after the bundle is made.

use super::block_on;
use crate::ops::package::{
    self, Bundle, BundleInput, Checked, PackageInfo, PackageRequest, Written,
};
use crate::ops::project;
use crate::ops::registry::ReadmeChange;
use anyhow::{Context as _, Result};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Write the registry's server.json and build an MCPB bundle.
#[derive(Debug, Clone, clap::Args)]
#[command(after_help = "\
Examples:
  cargo mcp package                              # server.json, README line, target/mcpb/<name>-<version>.mcpb
  cargo mcp package --name io.github.ada/weather # when Cargo.toml has no GitHub repository
  cargo mcp package --no-bundle                  # only server.json and the README (no build)
  cargo mcp package --out dist/weather.mcpb      # the bundle elsewhere
  cargo mcp package --bundle-url https://github.com/ada/weather/releases/download/v0.1.0/weather-0.1.0.mcpb
                                                 # also list the bundle in server.json, with its SHA-256

server.json (schema 2025-12-11) lists the crate as a `cargo` package on crates.io, named
io.github.<owner>/<crate> after a GitHub `repository` in Cargo.toml. The registry checks the
crate's README on crates.io for `mcp-name: <name>`; it is added as visible text (crates.io
drops HTML comments). A README or server.json naming another server is refused (exit 4)
unless --force. The bundle holds manifest.json and the release binary, for the build host's
platform. Publish: `cargo publish`, then `mcp-publisher login github` and `mcp-publisher
publish`.")]
pub struct Args {
    /// The registry name (default: io.github.<owner>/<crate> from a GitHub `repository`).
    #[arg(long)]
    pub name: Option<String>,

    /// The description (default: Cargo.toml's; at most 100 characters).
    #[arg(long)]
    pub description: Option<String>,

    /// The bundle's author, `Name <email>` (default: Cargo.toml's first author, else the
    /// GitHub owner).
    #[arg(long, value_name = "AUTHOR")]
    pub author: Option<String>,

    /// Where the bundle will be downloadable: adds an `mcpb` package with its SHA-256.
    #[arg(long, value_name = "URL", conflicts_with = "no_bundle")]
    pub bundle_url: Option<String>,

    /// Write the bundle here (default: <target-dir>/mcpb/<name>-<version>.mcpb).
    #[arg(long, value_name = "PATH", conflicts_with = "no_bundle")]
    pub out: Option<PathBuf>,

    /// Only write server.json and the README line; build nothing.
    #[arg(long)]
    pub no_bundle: bool,

    /// Replace a README line or a server.json naming another server.
    #[arg(long)]
    pub force: bool,

    /// The project's `Cargo.toml` (default: the one for the current folder).
    #[arg(long, value_name = "PATH")]
    pub manifest_path: Option<PathBuf>,

    /// The project's binary, when it has several.
    #[arg(long, value_name = "NAME")]
    pub bin: Option<String>,

    /// The cargo profile to build the bundled binary with (`dev` for a quick local try).
    #[arg(long, value_name = "PROFILE", default_value = "release")]
    pub profile: String,

    /// cargo's target folder for the build (default: cargo's own choice; the bundle goes to
    /// its `mcpb/` folder).
    #[arg(long, value_name = "DIR")]
    pub target_dir: Option<PathBuf>,

    /// Give up on the started server's answers after this many seconds.
    #[arg(long, value_name = "SECONDS", default_value_t = 30)]
    pub timeout: u64,

    /// Arguments the client passes to the server, after `--` (in the bundle's manifest).
    #[arg(last = true, value_name = "SERVER_ARGS")]
    pub server_args: Vec<String>,
}

/// Checks, builds, bundles, then writes server.json and the README.
pub fn exec(args: Args) -> Result<()> {
    let cwd = std::env::current_dir().context("cannot read the current folder")?;
    let binary = project::locate(
        args.manifest_path.as_deref(),
        args.bin.as_deref(),
        &cwd,
        "--manifest-path",
    )?;
    let info = package::read(&binary.manifest_path, &cwd)?;
    let request = PackageRequest {
        name: args.name.as_deref(),
        description: args.description.as_deref(),
        author: args.author.as_deref(),
        bundle_url: args.bundle_url.as_deref(),
        bundle: !args.no_bundle,
        force: args.force,
    };
    let checked = package::check(&info, &request)?;
    let bundle = match &checked.author {
        None => None,
        Some(author) => Some(bundle(
            &args,
            &binary,
            &info,
            &checked,
            author.clone(),
            &cwd,
        )?),
    };
    let written = package::write(
        &info,
        &checked,
        bundle.as_ref(),
        args.bundle_url.as_deref(),
        args.force,
    )?;
    report(&info, &checked, bundle.as_ref(), written);
    Ok(())
}

/// Builds the binary, asks it what it offers, and writes the bundle.
fn bundle(
    args: &Args,
    binary: &project::ProjectBinary,
    info: &PackageInfo,
    checked: &Checked,
    author: serde_json::Value,
    cwd: &Path,
) -> Result<Bundle> {
    eprintln!("building `{}` ({} profile)…", binary.bin, args.profile);
    let built = project::build_into(binary, &args.profile, args.target_dir.as_deref(), cwd)?;
    let timeout = Duration::from_secs(args.timeout.max(1));
    let offers = block_on(package::offers(
        &built.executable,
        &args.server_args,
        timeout,
    ))
    .context("the built server did not answer as an MCP server")?;
    let input = BundleInput {
        package: info,
        description: &checked.description,
        executable: &built.executable,
        server_args: &args.server_args,
        offers: &offers,
        out: args.out.as_deref(),
        target_dir: args.target_dir.as_deref(),
        cwd,
    };
    package::write_bundle(&input, author)
}

/// Says what was written, what to check, and what comes next.
fn report(info: &PackageInfo, checked: &Checked, bundle: Option<&Bundle>, written: Written) {
    let name = &checked.name;
    println!(
        "wrote {} ({name} {})",
        checked.server_json_path.display(),
        info.version
    );
    let readme = checked.readme_path.display();
    match &checked.readme_change {
        ReadmeChange::Present => println!("{readme} already says `mcp-name: {name}`"),
        ReadmeChange::Added if checked.readme_before.is_none() => {
            println!(
                "created {readme} with `mcp-name: {name}` (the registry checks it on crates.io)"
            )
        }
        ReadmeChange::Added => println!("added `mcp-name: {name}` to {readme}"),
        ReadmeChange::MadeVisible => println!(
            "made `mcp-name: {name}` visible text in {readme} (crates.io drops HTML comments)"
        ),
        ReadmeChange::Replaced(old) => {
            println!("replaced `mcp-name: {old}` with `{name}` in {readme}")
        }
    }
    if let Some(bundle) = bundle {
        println!("wrote {}", bundle.path.display());
        println!("  sha256: {}", bundle.sha256);
    }
    if written.stale_bundle_entry {
        eprintln!(
            "warning: server.json lists an mcpb package that was left as it was; pass \
             --bundle-url with this version's download URL to update its URL and SHA-256"
        );
    }
    if info.unpublishable {
        eprintln!(
            "warning: Cargo.toml has `publish = false`; the registry checks the crate on crates.io, \
             so remove it before `cargo publish`"
        );
    }
    println!(
        "Next: `cargo publish`, then `mcp-publisher login github` and `mcp-publisher publish`."
    );
}
