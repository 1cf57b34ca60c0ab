//! The work of `cargo mcp package`, in the order it runs: what it needs to know about the
//! project ([`read`], from [`super::package_info`]); everything that can refuse,
//! checked before any build ([`check`]); the bundle, from the built server and what it
//! offers ([`offers`], [`write_bundle`]); then server.json and the README ([`write()`]). The
//! registry's and the bundle's own rules are in [`super::registry`] and [`super::mcpb`].

use super::connect::{self, bounded};
use super::mcpb::{self, BundleFile, ManifestInput};
use super::registry::{self, BundleEntry, ReadmeChange, ServerJsonInput};
use super::write::{self, Mode, Scope};
use anyhow::{Context as _, Result};
use mcp_runtime::client::{EraMode, InputHandler};
use mcp_runtime::protocol::ToolDefinition;
use mcp_runtime::protocol::prompts::PromptDefinition;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::Duration;

pub use super::package_info::{PackageInfo, github_repository, read, split_author};

/// What the user asked `cargo mcp package` for, beside the project.
#[derive(Debug, Clone, Copy)]
pub struct PackageRequest<'a> {
    /// The registry name (default: from a GitHub `repository`).
    pub name: Option<&'a str>,
    /// The description (default: Cargo.toml's).
    pub description: Option<&'a str>,
    /// The bundle's author (default: Cargo.toml's first author, else the GitHub owner).
    pub author: Option<&'a str>,
    /// Where the bundle will be downloadable, to list in server.json.
    pub bundle_url: Option<&'a str>,
    /// Whether to make a bundle.
    pub bundle: bool,
    /// Replace a README line or a server.json naming another server.
    pub force: bool,
}

/// Everything checked before the build: what server.json and the README will say.
#[derive(Debug, Clone)]
pub struct Checked {
    /// The registry name.
    pub name: String,
    /// The description.
    pub description: String,
    /// The README that carries the `mcp-name:` line.
    pub readme_path: PathBuf,
    /// The README's text before, if it exists.
    pub readme_before: Option<String>,
    /// The README's text after.
    pub readme_after: String,
    /// What changes in the README.
    pub readme_change: ReadmeChange,
    /// Where server.json goes.
    pub server_json_path: PathBuf,
    /// The server.json there now, if any.
    pub existing: Option<Value>,
    /// The bundle's author; `None` when no bundle is made.
    pub author: Option<Value>,
}

/// Checks everything that can refuse (the name, the description, the bundle URL, the
/// README, an existing `server.json`), so a mistake costs no release build.
pub fn check(info: &PackageInfo, request: &PackageRequest<'_>) -> Result<Checked> {
    // Everything missing is reported at once, each with the flag that supplies it, rather
    // than one refusal per run.
    let name = registry::server_name(info, request.name);
    let description = registry::description(info, request.description);
    let author = request
        .bundle
        .then(|| mcpb::author(info, request.author))
        .transpose();
    let (name, description, author) = match (name, description, author) {
        (Ok(name), Ok(description), Ok(author)) => (name, description, author),
        (name, description, author) => {
            let problems: Vec<String> = [name.err(), description.err(), author.err()]
                .into_iter()
                .flatten()
                .map(|e| e.to_string())
                .collect();
            if let [one] = problems.as_slice() {
                return Err(crate::error::usage(one.clone()));
            }
            return Err(crate::error::usage(format!(
                "`{}` cannot be packaged yet ({} things to supply):\n  - {}",
                info.name,
                problems.len(),
                problems.join("\n  - ")
            )));
        }
    };
    if let Some(url) = request.bundle_url {
        registry::check_bundle_url(url)?;
    }
    // Every file package reads or writes resolves inside the project: a `readme =
    // "../…"`, or a link leading out or to nothing, is refused before anything is built.
    let readme_path = info
        .readme
        .clone()
        .unwrap_or_else(|| info.root.join("README.md"));
    let readme_path = write::resolve(&readme_path, Scope::Project(&info.root))?;
    let readme_before = match std::fs::read_to_string(&readme_path) {
        Ok(text) => Some(text),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", readme_path.display())),
    };
    let (readme_after, readme_change) =
        registry::readme_with_mcp_name(readme_before.as_deref(), &name, request.force)?;
    let server_json_path =
        write::resolve(&info.root.join("server.json"), Scope::Project(&info.root))?;
    project_icon(info)?;
    let existing = read_existing(&server_json_path)?;
    // A first check of server.json (a rename refusal) before building; redone with the bundle.
    let input = ServerJsonInput {
        package: info,
        name: &name,
        description: &description,
        bundle: None,
    };
    registry::server_json(&input, existing.clone(), request.force)?;
    Ok(Checked {
        name,
        description,
        readme_path,
        readme_before,
        readme_after,
        readme_change,
        server_json_path,
        existing,
        author,
    })
}

/// The server.json at `path`, if there is one; one that cannot be parsed is refused.
fn read_existing(path: &Path) -> Result<Option<Value>> {
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

/// What a server advertises: its tools and prompts.
#[derive(Debug, Clone, Default)]
pub struct Offers {
    /// Its tools.
    pub tools: Vec<ToolDefinition>,
    /// Its prompts.
    pub prompts: Vec<PromptDefinition>,
}

/// Starts the executable and lists its tools and prompts (what it advertises).
pub async fn offers(executable: &Path, args: &[String], timeout: Duration) -> Result<Offers> {
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
    Ok(Offers { tools, prompts })
}

/// A bundle written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bundle {
    /// Where it is.
    pub path: PathBuf,
    /// Its SHA-256, in hex.
    pub sha256: String,
}

/// What goes into a bundle.
#[derive(Debug, Clone, Copy)]
pub struct BundleInput<'a> {
    /// The package.
    pub package: &'a PackageInfo,
    /// The checked description.
    pub description: &'a str,
    /// The built executable.
    pub executable: &'a Path,
    /// Arguments the client passes to the server.
    pub server_args: &'a [String],
    /// What the built server offers.
    pub offers: &'a Offers,
    /// Where to write it (default: `<target-dir>/mcpb/<name>-<version>.mcpb`).
    pub out: Option<&'a Path>,
    /// cargo's target folder the build used, as given (relative to `cwd`).
    pub target_dir: Option<&'a Path>,
    /// The current folder.
    pub cwd: &'a Path,
}

/// The project's `icon.png`, if it has one; a link is packed only if it leads to a file
/// inside the project (refused otherwise, exit code 4).
fn project_icon(info: &PackageInfo) -> Result<Option<PathBuf>> {
    let icon = info.root.join("icon.png");
    match std::fs::symlink_metadata(&icon) {
        Ok(_) => {
            Ok(Some(write::resolve(&icon, Scope::Project(&info.root))?)
                .filter(|icon| icon.is_file()))
        }
        Err(_) => Ok(None),
    }
}

/// Writes the bundle: manifest.json, the executable, and the project's `icon.png` if it
/// has one.
pub fn write_bundle(input: &BundleInput<'_>, author: Value) -> Result<Bundle> {
    let info = input.package;
    let executable_name = input
        .executable
        .file_name()
        .and_then(|n| n.to_str())
        .context("the executable has no file name")?
        .to_owned();
    let icon = project_icon(info)?;
    let manifest = mcpb::manifest(&ManifestInput {
        package: info,
        description: input.description,
        author,
        executable_name: &executable_name,
        args: input.server_args,
        tools: &input.offers.tools,
        prompts: &input.offers.prompts,
        icon: icon.is_some(),
    });
    let mut files = vec![BundleFile {
        name: format!("server/{executable_name}"),
        source: input.executable.to_path_buf(),
        executable: true,
    }];
    if let Some(icon) = icon {
        files.push(BundleFile {
            name: "icon.png".into(),
            source: icon,
            executable: false,
        });
    }
    let path = input.out.map(Path::to_path_buf).unwrap_or_else(|| {
        let target = input.target_dir.map(|d| input.cwd.join(d));
        target
            .unwrap_or_else(|| info.target_directory.clone())
            .join("mcpb")
            .join(format!("{}-{}.mcpb", info.name, info.version))
    });
    let sha256 = mcpb::write_bundle(&path, &manifest, &files)?;
    Ok(Bundle { path, sha256 })
}

/// What [`write()`] wrote, beyond what [`Checked`] already says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Written {
    /// server.json lists an `mcpb` package that was left as it was (no `--bundle-url` for
    /// this version).
    pub stale_bundle_entry: bool,
}

/// Writes server.json (listing the bundle when it has a URL) and, if it changes, the README.
pub fn write(
    info: &PackageInfo,
    checked: &Checked,
    bundle: Option<&Bundle>,
    bundle_url: Option<&str>,
    force: bool,
) -> Result<Written> {
    let entry = match (bundle, bundle_url) {
        (Some(bundle), Some(url)) => Some(BundleEntry {
            url: url.to_owned(),
            sha256: bundle.sha256.clone(),
        }),
        _ => None,
    };
    let input = ServerJsonInput {
        package: info,
        name: &checked.name,
        description: &checked.description,
        bundle: entry.as_ref(),
    };
    let doc = registry::server_json(&input, checked.existing.clone(), force)?;
    let text = serde_json::to_string_pretty(&doc)? + "\n";
    // Through a fresh file renamed into place, inside the project (`write`).
    write::replace_inside(
        &info.root,
        &checked.server_json_path,
        text.as_bytes(),
        Mode::Default,
    )?;
    if checked.readme_change != ReadmeChange::Present {
        let mode = std::fs::metadata(&checked.readme_path)
            .map_or(Mode::Default, |m| Mode::Like(m.permissions()));
        write::replace_inside(
            &info.root,
            &checked.readme_path,
            checked.readme_after.as_bytes(),
            mode,
        )?;
    }
    let lists_a_bundle = doc["packages"]
        .as_array()
        .is_some_and(|p| p.iter().any(|p| p["registryType"] == "mcpb"));
    Ok(Written {
        stale_bundle_entry: entry.is_none() && lists_a_bundle,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn github_urls_give_owner_and_repo() {
        for url in [
            "https://github.com/ada/weather",
            "https://github.com/ada/weather.git",
            "https://github.com/ada/weather/",
            "https://www.github.com/ada/weather/tree/main/srv",
        ] {
            assert_eq!(
                github_repository(url),
                Some(("ada".into(), "weather".into())),
                "{url}"
            );
        }
        assert_eq!(github_repository("https://gitlab.com/ada/weather"), None);
        assert_eq!(github_repository("https://github.com/ada"), None);
    }

    #[test]
    fn authors_split_into_name_and_email() {
        assert_eq!(
            split_author("Ada Lovelace <ada@example.com>"),
            ("Ada Lovelace".into(), Some("ada@example.com".into()))
        );
        assert_eq!(split_author("Ada"), ("Ada".into(), None));
    }
}
