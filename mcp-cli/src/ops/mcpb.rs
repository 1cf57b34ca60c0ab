//! MCP Bundles (`.mcpb`): a zip with `manifest.json` and the server, which Claude Desktop
//! installs with one click.
//!
//! Decisions:
//!
//! - **`manifest_version` "0.2"**: the version `mcpb init` writes and every MCPB client reads;
//!   nothing a binary server needs is newer (0.3 adds icons sets and localization, 0.4 the
//!   `uv` type). The pinned `@anthropic-ai/mcpb` CLI validates it in the tests.
//! - **A `binary` server**: `entry_point` `server/<bin>`, `mcp_config.command`
//!   `${__dirname}/server/<bin>` (the client substitutes the unpacked folder), no runtime.
//! - **Tools and prompts are what the built server answers** to `tools/list` and
//!   `prompts/list` (started by the CLI's own client, which also proves it starts). The
//!   manifest's prompt `text` is a static template there, while ours are rendered by the
//!   server on `prompts/get`; so `text` carries the prompt's description (a display string),
//!   and `arguments` the argument names.
//! - **`compatibility.platforms`** is the build host's only: the bundle holds one native
//!   binary.
//! - **`author`** (required by the schema) is the first of Cargo.toml's `authors`, else the
//!   GitHub owner of `repository`, else git's `user.name` and `user.email` (as `cargo new`
//!   once filled `authors`), else `--author` must say.
//! - **The zip is written with the `zip` crate**: `manifest.json`, `server/<bin>` with mode
//!   0755 (clients run it as unpacked; without the bit it would not start), and `icon.png`
//!   when the project has one (a PNG; the validator checks it). Deflate via flate2 + zlib-rs.

use super::package_info::{PackageInfo, github_repository, split_author};
use crate::error::usage;
use anyhow::{Context as _, Result};
use mcp_runtime::protocol::ToolDefinition;
use mcp_runtime::protocol::prompts::PromptDefinition;
use serde_json::{Value, json};
use sha2::{Digest as _, Sha256};
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// The manifest version written.
pub const MANIFEST_VERSION: &str = "0.2";

/// The platform name MCPB uses for the build host (Node's `process.platform`).
pub fn host_platform() -> &'static str {
    match std::env::consts::OS {
        "macos" => "darwin",
        "windows" => "win32",
        other => other,
    }
}

/// The manifest's `author`: `explicit`, else the first Cargo.toml author, else the GitHub
/// owner of `repository`, else git's configured user (asked in the package's folder).
pub fn author(package: &PackageInfo, explicit: Option<&str>) -> Result<Value> {
    if let Some(name) = explicit.map(str::trim).filter(|n| !n.is_empty()) {
        let (name, email) = split_author(name);
        return Ok(author_value(name, email, None));
    }
    if let Some(first) = package.authors.first() {
        let (name, email) = split_author(first);
        if !name.is_empty() {
            return Ok(author_value(name, email, None));
        }
    }
    if let Some((owner, _)) = package.repository.as_deref().and_then(github_repository) {
        let url = format!("https://github.com/{owner}");
        return Ok(author_value(owner, None, Some(url)));
    }
    if let Some((name, email)) = git_user(&package.root) {
        return Ok(author_value(name, email, None));
    }
    Err(usage(format!(
        "the bundle needs an author: set `authors` in Cargo.toml of `{}` (or git's user.name), or pass --author \"Name <email>\"",
        package.name
    )))
}

/// git's `user.name` (and `user.email`, when set) as configured for `dir`, if git runs and
/// has a name.
fn git_user(dir: &std::path::Path) -> Option<(String, Option<String>)> {
    let get = |key: &str| {
        let out = std::process::Command::new("git")
            .args(["config", "--get", key])
            .current_dir(dir)
            .stdin(std::process::Stdio::null())
            .output()
            .ok()?;
        let value = String::from_utf8(out.stdout).ok()?.trim().to_owned();
        (out.status.success() && !value.is_empty()).then_some(value)
    };
    Some((get("user.name")?, get("user.email")))
}

fn author_value(name: String, email: Option<String>, url: Option<String>) -> Value {
    let mut author = json!({ "name": name });
    if let Some(email) = email {
        author["email"] = json!(email);
    }
    if let Some(url) = url {
        author["url"] = json!(url);
    }
    author
}

/// What goes into `manifest.json`.
#[derive(Debug, Clone)]
pub struct ManifestInput<'a> {
    /// The package.
    pub package: &'a PackageInfo,
    /// The description (Cargo.toml's, or `--description`).
    pub description: &'a str,
    /// The manifest's `author`.
    pub author: Value,
    /// The executable's file name (`server/<this>` in the bundle).
    pub executable_name: &'a str,
    /// Arguments the client passes to the server.
    pub args: &'a [String],
    /// What the server answered to `tools/list`.
    pub tools: &'a [ToolDefinition],
    /// What the server answered to `prompts/list`.
    pub prompts: &'a [PromptDefinition],
    /// Whether the bundle has `icon.png`.
    pub icon: bool,
}

/// The `manifest.json` of a binary server.
pub fn manifest(input: &ManifestInput<'_>) -> Value {
    let package = input.package;
    let entry_point = format!("server/{}", input.executable_name);
    let mut manifest = json!({
        "manifest_version": MANIFEST_VERSION,
        "name": package.name,
        "version": package.version,
        "description": input.description,
        "author": input.author,
        "server": {
            "type": "binary",
            "entry_point": entry_point,
            "mcp_config": {
                "command": format!("${{__dirname}}/{entry_point}"),
                "args": input.args,
                "env": {},
            },
        },
        "compatibility": { "platforms": [host_platform()] },
    });
    let tools: Vec<Value> = input
        .tools
        .iter()
        .map(|t| {
            let mut tool = json!({ "name": t.name });
            if let Some(d) = &t.description {
                tool["description"] = json!(d);
            }
            tool
        })
        .collect();
    if !tools.is_empty() {
        manifest["tools"] = Value::Array(tools);
    }
    let prompts: Vec<Value> = input
        .prompts
        .iter()
        .map(|p| {
            let mut prompt = json!({
                "name": p.name,
                "text": p.description.clone().unwrap_or_else(|| p.name.clone()),
            });
            if let Some(d) = &p.description {
                prompt["description"] = json!(d);
            }
            if let Some(arguments) = &p.arguments {
                let names: Vec<&str> = arguments.iter().map(|a| a.name.as_str()).collect();
                prompt["arguments"] = json!(names);
            }
            prompt
        })
        .collect();
    if !prompts.is_empty() {
        manifest["prompts"] = Value::Array(prompts);
    }
    if let Some(url) = package
        .repository
        .as_deref()
        .filter(|u| u.starts_with("http"))
    {
        manifest["repository"] = json!({ "type": "git", "url": url });
    }
    for (key, value) in [
        ("homepage", &package.homepage),
        ("documentation", &package.documentation),
    ] {
        if let Some(url) = value.as_deref().filter(|u| u.starts_with("http")) {
            manifest[key] = json!(url);
        }
    }
    if let Some(license) = &package.license {
        manifest["license"] = json!(license);
    }
    if !package.keywords.is_empty() {
        manifest["keywords"] = json!(package.keywords);
    }
    if input.icon {
        manifest["icon"] = json!("icon.png");
    }
    manifest
}

/// A file to put in the bundle.
#[derive(Debug, Clone)]
pub struct BundleFile {
    /// Its path inside the bundle (`/`-separated).
    pub name: String,
    /// Where it is now.
    pub source: PathBuf,
    /// Mark it executable (mode 0755; else 0644).
    pub executable: bool,
}

/// Writes the bundle to `out` (through a temporary file in the same folder, renamed at the
/// end, so a failure leaves no half bundle) and returns its SHA-256 in lowercase hex.
pub fn write_bundle(out: &Path, manifest: &Value, files: &[BundleFile]) -> Result<String> {
    let folder = out
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(folder)
        .with_context(|| format!("cannot create {}", folder.display()))?;
    let temp = tempfile::NamedTempFile::new_in(folder)
        .with_context(|| format!("cannot write in {}", folder.display()))?;
    let mut zip = zip::ZipWriter::new(temp);
    let options = |mode: u32| {
        zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated)
            .unix_permissions(mode)
            .large_file(false)
    };
    let text = serde_json::to_string_pretty(manifest)? + "\n";
    zip.start_file("manifest.json", options(0o644))?;
    zip.write_all(text.as_bytes())?;
    for file in files {
        let mode = if file.executable { 0o755 } else { 0o644 };
        zip.start_file(file.name.as_str(), options(mode))?;
        let mut source = std::fs::File::open(&file.source)
            .with_context(|| format!("cannot read {}", file.source.display()))?;
        std::io::copy(&mut source, &mut zip)
            .with_context(|| format!("cannot pack {}", file.source.display()))?;
    }
    let temp = zip.finish().context("cannot finish the bundle")?;
    temp.persist(out)
        .with_context(|| format!("cannot write {}", out.display()))?;
    sha256_file(out)
}

/// The SHA-256 of a file, lowercase hex.
pub fn sha256_file(path: &Path) -> Result<String> {
    let mut file =
        std::fs::File::open(path).with_context(|| format!("cannot read {}", path.display()))?;
    let mut hasher = Sha256::new();
    std::io::copy(&mut file, &mut hasher)?;
    Ok(hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn package() -> PackageInfo {
        PackageInfo {
            name: "weather".into(),
            version: "0.3.0".into(),
            description: None,
            authors: vec![],
            repository: Some("https://github.com/ada/weather".into()),
            homepage: None,
            documentation: None,
            license: Some("MIT".into()),
            keywords: vec![],
            readme: None,
            unpublishable: false,
            root: PathBuf::from("/p"),
            target_directory: PathBuf::from("/p/target"),
        }
    }

    #[test]
    fn the_author_falls_back_to_the_github_owner_and_else_is_required() {
        let mut p = package();
        assert_eq!(
            author(&p, None).unwrap(),
            json!({"name": "ada", "url": "https://github.com/ada"})
        );
        p.authors = vec!["Ada L <ada@example.com>".into()];
        assert_eq!(
            author(&p, None).unwrap(),
            json!({"name": "Ada L", "email": "ada@example.com"})
        );
        p.authors.clear();
        p.repository = None;
        assert!(author(&p, None).is_err());
        assert_eq!(author(&p, Some("Bo")).unwrap(), json!({"name": "Bo"}));
    }

    #[test]
    fn the_manifest_describes_a_binary_server() {
        let p = package();
        let tools: Vec<ToolDefinition> = serde_json::from_value(json!([
            {"name": "add", "description": "Adds", "inputSchema": {"type": "object"}}
        ]))
        .unwrap();
        let m = manifest(&ManifestInput {
            package: &p,
            description: "Weather",
            author: json!({"name": "ada"}),
            executable_name: "weather",
            args: &[],
            tools: &tools,
            prompts: &[],
            icon: false,
        });
        assert_eq!(m["manifest_version"], "0.2");
        assert_eq!(m["server"]["type"], "binary");
        assert_eq!(m["server"]["entry_point"], "server/weather");
        assert_eq!(
            m["server"]["mcp_config"]["command"],
            "${__dirname}/server/weather"
        );
        assert_eq!(m["tools"], json!([{"name": "add", "description": "Adds"}]));
        assert!(m.get("prompts").is_none());
        assert_eq!(m["compatibility"]["platforms"], json!([host_platform()]));
    }
}
