//! What `cargo mcp package` knows about the project before anything else: its package
//! fields, read from `cargo metadata` (so workspace-inherited fields such as
//! `repository.workspace = true` arrive resolved, and the target folder honours
//! `CARGO_TARGET_DIR` and `.cargo/config.toml` as cargo does), and how a repository URL and
//! an author are read. The registry entry ([`super::registry`]) and the bundle
//! ([`super::mcpb`]) are made of it.

use anyhow::{Context as _, Result, bail};
use serde::Deserialize;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The package fields the registry entry and the bundle manifest are made of.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackageInfo {
    /// The package (crate) name: the registry's `identifier` and the bundle's `name`.
    pub name: String,
    /// The package version.
    pub version: String,
    /// `description`, if set.
    pub description: Option<String>,
    /// `authors`, as written (`Name <email>`).
    pub authors: Vec<String>,
    /// `repository`, if set.
    pub repository: Option<String>,
    /// `homepage`, if set.
    pub homepage: Option<String>,
    /// `documentation`, if set.
    pub documentation: Option<String>,
    /// `license`, if set.
    pub license: Option<String>,
    /// `keywords`.
    pub keywords: Vec<String>,
    /// The README cargo packages (absolute), if any: `readme` or the one cargo finds.
    pub readme: Option<PathBuf>,
    /// `publish = false` (or a list of registries without crates.io).
    pub unpublishable: bool,
    /// The folder holding `Cargo.toml`.
    pub root: PathBuf,
    /// cargo's target folder for this package.
    pub target_directory: PathBuf,
}

#[derive(Debug, Deserialize)]
struct Metadata {
    packages: Vec<Package>,
    target_directory: PathBuf,
}

#[derive(Debug, Deserialize)]
struct Package {
    name: String,
    version: String,
    manifest_path: PathBuf,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    authors: Vec<String>,
    #[serde(default)]
    repository: Option<String>,
    #[serde(default)]
    homepage: Option<String>,
    #[serde(default)]
    documentation: Option<String>,
    #[serde(default)]
    license: Option<String>,
    #[serde(default)]
    keywords: Vec<String>,
    #[serde(default)]
    readme: Option<PathBuf>,
    /// `null`: anywhere; `[]`: `publish = false`; else the registries allowed.
    #[serde(default)]
    publish: Option<Vec<String>>,
}

/// Reads the package whose manifest is `manifest_path`.
pub fn read(manifest_path: &Path, cwd: &Path) -> Result<PackageInfo> {
    let out = Command::new(super::project::cargo())
        .current_dir(cwd)
        .args([
            "metadata",
            "--no-deps",
            "--format-version",
            "1",
            "--manifest-path",
        ])
        .arg(manifest_path)
        .stdin(Stdio::null())
        .stderr(Stdio::inherit())
        .output()
        .context("cannot run cargo metadata")?;
    if !out.status.success() {
        bail!("cargo metadata failed ({})", out.status);
    }
    let metadata: Metadata =
        serde_json::from_slice(&out.stdout).context("cannot read `cargo metadata`")?;
    let wanted = manifest_path
        .canonicalize()
        .unwrap_or_else(|_| manifest_path.to_path_buf());
    let package = metadata
        .packages
        .into_iter()
        .find(|p| {
            p.manifest_path
                .canonicalize()
                .unwrap_or(p.manifest_path.clone())
                == wanted
        })
        .with_context(|| format!("cargo metadata does not list {}", manifest_path.display()))?;
    let root = package
        .manifest_path
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    let readme = package
        .readme
        .map(|r| root.join(r))
        .or_else(|| Some(root.join("README.md")).filter(|p| p.is_file()));
    let unpublishable = package
        .publish
        .as_ref()
        .is_some_and(|registries| !registries.iter().any(|r| r == "crates-io"));
    Ok(PackageInfo {
        name: package.name,
        version: package.version,
        description: package
            .description
            .map(|d| d.trim().to_owned())
            .filter(|d| !d.is_empty()),
        authors: package.authors,
        repository: package.repository,
        homepage: package.homepage,
        documentation: package.documentation,
        license: package.license,
        keywords: package.keywords,
        readme,
        unpublishable,
        root,
        target_directory: metadata.target_directory,
    })
}

/// `owner` and `repo` of a GitHub repository URL (`https://github.com/o/r`, with or without
/// `.git`, a trailing slash, or `www.`); `None` for anything else.
pub fn github_repository(url: &str) -> Option<(String, String)> {
    let rest = url
        .trim()
        .strip_prefix("https://")
        .or_else(|| url.trim().strip_prefix("http://"))?;
    let rest = rest
        .strip_prefix("github.com/")
        .or_else(|| rest.strip_prefix("www.github.com/"))?;
    let mut parts = rest.trim_end_matches('/').split('/');
    let owner = parts.next().filter(|s| !s.is_empty())?;
    let repo = parts.next().filter(|s| !s.is_empty())?;
    let repo = repo.strip_suffix(".git").unwrap_or(repo);
    Some((owner.to_owned(), repo.to_owned()))
}

/// Splits a cargo author (`Name <email>`) into its name and email.
pub fn split_author(author: &str) -> (String, Option<String>) {
    match author.split_once('<') {
        Some((name, rest)) => {
            let email = rest.trim_end().trim_end_matches('>').trim();
            (
                name.trim().to_owned(),
                Some(email.to_owned()).filter(|e| e.contains('@')),
            )
        }
        None => (author.trim().to_owned(), None),
    }
}
