//! `cargo mcp package`: the MCP Registry's `server.json` (and the README's `mcp-name:` line
//! it checks), and an MCPB bundle of the release binary. The decisions are in
//! [`crate::ops::registry`] and [`crate::ops::mcpb`].
//!
//! Order: everything that can refuse (the name, the description, the README, an existing
//! `server.json`) is checked before the build, so a mistake costs no release build; files are
//! written only after the bundle is made.

use super::block_on;
use crate::ops::connect::{self, bounded};
use crate::ops::mcpb::{self, BundleFile, ManifestInput};
use crate::ops::registry::{self, BundleEntry, ReadmeChange, ServerJsonInput};
use crate::ops::{package, project};
use anyhow::{Context as _, Result};
use mcp_runtime::client::{EraMode, InputHandler};
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

    // Everything that can refuse, before the build.
    let name = registry::server_name(&info, args.name.as_deref())?;
    let description = registry::description(&info, args.description.as_deref())?;
    if let Some(url) = &args.bundle_url {
        registry::check_bundle_url(url)?;
    }
    let readme_path = info
        .readme
        .clone()
        .unwrap_or_else(|| info.root.join("README.md"));
    let readme_before = match std::fs::read_to_string(&readme_path) {
        Ok(text) => Some(text),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", readme_path.display())),
    };
    let (readme_after, readme_change) =
        registry::readme_with_mcp_name(readme_before.as_deref(), &name, args.force)?;
    let server_json_path = info.root.join("server.json");
    let existing = read_existing(&server_json_path)?;
    // A first check of server.json (a rename refusal) before building; redone with the bundle.
    let mut input = ServerJsonInput {
        package: &info,
        name: &name,
        description: &description,
        bundle: None,
    };
    registry::server_json(&input, existing.clone(), args.force)?;
    let author = if args.no_bundle {
        None
    } else {
        Some(mcpb::author(&info, args.author.as_deref())?)
    };

    let bundle = match author {
        None => None,
        Some(author) => Some(bundle(&args, &binary, &info, &description, author, &cwd)?),
    };
    let entry = match (&bundle, &args.bundle_url) {
        (Some((_, sha256)), Some(url)) => Some(BundleEntry {
            url: url.clone(),
            sha256: sha256.clone(),
        }),
        _ => None,
    };
    input.bundle = entry.as_ref();
    let doc = registry::server_json(&input, existing, args.force)?;
    let text = serde_json::to_string_pretty(&doc)? + "\n";
    std::fs::write(&server_json_path, text)
        .with_context(|| format!("cannot write {}", server_json_path.display()))?;
    if readme_change != ReadmeChange::Present {
        std::fs::write(&readme_path, &readme_after)
            .with_context(|| format!("cannot write {}", readme_path.display()))?;
    }

    println!(
        "wrote {} ({name} {})",
        server_json_path.display(),
        info.version
    );
    let readme = readme_path.display();
    match &readme_change {
        ReadmeChange::Present => println!("{readme} already says `mcp-name: {name}`"),
        ReadmeChange::Added if readme_before.is_none() => {
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
    if let Some((path, sha256)) = &bundle {
        println!("wrote {}", path.display());
        println!("  sha256: {sha256}");
    }
    let lists_a_bundle = doc["packages"]
        .as_array()
        .is_some_and(|p| p.iter().any(|p| p["registryType"] == "mcpb"));
    if entry.is_none() && lists_a_bundle {
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
    Ok(())
}

fn read_existing(path: &Path) -> Result<Option<serde_json::Value>> {
    match std::fs::read(path) {
        Ok(bytes) => serde_json::from_slice(&bytes).map(Some).map_err(|e| {
            crate::error::refused(format!(
                "cannot parse {}: {e}; fix or remove it",
                path.display()
            ))
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e).with_context(|| format!("cannot read {}", path.display())),
    }
}

/// Builds the binary, asks it what it offers, and zips the bundle; returns its path and
/// SHA-256.
fn bundle(
    args: &Args,
    binary: &project::ProjectBinary,
    info: &package::PackageInfo,
    description: &str,
    author: serde_json::Value,
    cwd: &Path,
) -> Result<(PathBuf, String)> {
    eprintln!("building `{}` ({} profile)…", binary.bin, args.profile);
    let built = project::build_into(binary, &args.profile, args.target_dir.as_deref(), cwd)?;
    let timeout = Duration::from_secs(args.timeout.max(1));
    let (tools, prompts) = block_on(offers(&built.executable, &args.server_args, timeout))
        .context("the built server did not answer as an MCP server")?;
    let executable_name = built
        .executable
        .file_name()
        .and_then(|n| n.to_str())
        .context("the executable has no file name")?
        .to_owned();
    let icon = info.root.join("icon.png");
    let icon = icon.is_file().then_some(icon);
    let manifest = mcpb::manifest(&ManifestInput {
        package: info,
        description,
        author,
        executable_name: &executable_name,
        args: &args.server_args,
        tools: &tools,
        prompts: &prompts,
        icon: icon.is_some(),
    });
    let mut files = vec![BundleFile {
        name: format!("server/{executable_name}"),
        source: built.executable.clone(),
        executable: true,
    }];
    if let Some(icon) = icon {
        files.push(BundleFile {
            name: "icon.png".into(),
            source: icon,
            executable: false,
        });
    }
    let out = args.out.clone().unwrap_or_else(|| {
        let target = args.target_dir.as_ref().map(|d| cwd.join(d));
        target
            .unwrap_or_else(|| info.target_directory.clone())
            .join("mcpb")
            .join(format!("{}-{}.mcpb", info.name, info.version))
    });
    let sha256 = mcpb::write_bundle(&out, &manifest, &files)?;
    Ok((out, sha256))
}

/// Starts the executable and lists its tools and prompts (what it advertises).
async fn offers(
    executable: &Path,
    args: &[String],
    timeout: Duration,
) -> Result<(
    Vec<mcp_runtime::protocol::ToolDefinition>,
    Vec<mcp_runtime::protocol::PromptDefinition>,
)> {
    let mut command = vec![executable.to_string_lossy().into_owned()];
    command.extend(args.iter().cloned());
    let spec = connect::ServerSpec::Command(command);
    let cwd = std::env::current_dir().context("cannot read the current folder")?;
    let connection =
        connect::connect(&spec, EraMode::Auto, timeout, &cwd, InputHandler::new()).await?;
    let client = &connection.client;
    let tools = match connection.capabilities.tools {
        Some(_) => bounded(timeout, "tools/list failed", client.list_tools()).await?,
        None => Vec::new(),
    };
    let prompts = match connection.capabilities.prompts {
        Some(_) => bounded(timeout, "prompts/list failed", client.list_prompts()).await?,
        None => Vec::new(),
    };
    connection.close().await;
    Ok((tools, prompts))
}
