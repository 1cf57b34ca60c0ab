//! `cargo mcp dev --inspector`: the official MCP Inspector
//! (`@modelcontextprotocol/inspector`), pinned to [`INSPECTOR_VERSION`], in front of the dev
//! endpoint.
//!
//! - **Installed on first use**, with `npm install --prefix <cache>/cargo-mcp/inspector-<version>`
//!   of the exact version (the user's cache folder: `$XDG_CACHE_HOME`, `~/Library/Caches`
//!   on macOS, `%LOCALAPPDATA%` on Windows, else `~/.cache`). Later runs reuse it; a new
//!   pin installs beside it. Nothing is installed globally, and `npx` (which would resolve
//!   "latest" or prompt) is not used.
//! - **Pointed at the dev endpoint.** Over stdio the Inspector starts its server itself, so
//!   it is given this very program: `cargo-mcp dev` with the same project flags and server
//!   arguments (minus `--inspector`); the Inspector's connection then gets every rebuild and
//!   `list_changed` like any client.
//! - Needs Node.js 22.19 or newer (the Inspector's own requirement); checked first, with a
//!   message saying what was found.

use anyhow::{Context as _, Result, bail};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The Inspector version installed and run.
pub const INSPECTOR_VERSION: &str = "2.12.0";

/// The oldest Node.js the pinned Inspector runs on.
const NODE_MIN: (u32, u32) = (22, 19);

/// Where the pinned Inspector is installed.
pub fn install_dir() -> Option<PathBuf> {
    let env = |name: &str| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    let cache = if cfg!(windows) {
        env("LOCALAPPDATA")
    } else if cfg!(target_os = "macos") {
        env("HOME").map(|h| h.join("Library").join("Caches"))
    } else {
        env("XDG_CACHE_HOME").or_else(|| env("HOME").map(|h| h.join(".cache")))
    }?;
    Some(
        cache
            .join("cargo-mcp")
            .join(format!("inspector-{INSPECTOR_VERSION}")),
    )
}

/// `major.minor` of `node --version` output (`v22.19.0`).
fn node_version(text: &str) -> Option<(u32, u32)> {
    let mut parts = text.trim().trim_start_matches('v').split('.');
    Some((parts.next()?.parse().ok()?, parts.next()?.parse().ok()?))
}

/// The Inspector's launcher script, installing the pinned version first when needed.
pub fn ensure_installed() -> Result<PathBuf> {
    let node = Command::new("node")
        .arg("--version")
        .output()
        .context("the MCP Inspector needs Node.js, and `node` cannot be run")?;
    let found = String::from_utf8_lossy(&node.stdout).trim().to_owned();
    match node_version(&found) {
        Some(version) if version >= NODE_MIN => {}
        _ => bail!(
            "the MCP Inspector {INSPECTOR_VERSION} needs Node.js {}.{} or newer; found {found}",
            NODE_MIN.0,
            NODE_MIN.1
        ),
    }
    let dir = install_dir().context("cannot tell where the user's cache folder is")?;
    let package = dir.join("node_modules/@modelcontextprotocol/inspector");
    let launcher = package.join("clients/launcher/build/index.js");
    if installed_version(&package).as_deref() == Some(INSPECTOR_VERSION) && launcher.is_file() {
        return Ok(launcher);
    }
    eprintln!(
        "cargo mcp dev: installing the MCP Inspector {INSPECTOR_VERSION} into {} (once)",
        dir.display()
    );
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let status = Command::new("npm")
        .args([
            "install",
            "--no-audit",
            "--no-fund",
            "--save-exact",
            "--prefix",
        ])
        .arg(&dir)
        .arg(format!(
            "@modelcontextprotocol/inspector@{INSPECTOR_VERSION}"
        ))
        .stdin(Stdio::null())
        .stdout(Stdio::inherit())
        .stderr(Stdio::inherit())
        .status()
        .context("cannot run npm (it comes with Node.js)")?;
    if !status.success() {
        bail!("npm could not install the MCP Inspector ({status})");
    }
    if !launcher.is_file() {
        bail!(
            "the MCP Inspector installed, but its launcher is not at {}",
            launcher.display()
        );
    }
    Ok(launcher)
}

fn installed_version(package: &Path) -> Option<String> {
    let manifest = std::fs::read_to_string(package.join("package.json")).ok()?;
    let manifest: serde_json::Value = serde_json::from_str(&manifest).ok()?;
    manifest.get("version")?.as_str().map(str::to_owned)
}

/// Runs the Inspector with `server` as the stdio command it starts (the program, then its
/// arguments), until it exits.
pub fn run(server: Vec<OsString>) -> Result<()> {
    let launcher = ensure_installed()?;
    let status = Command::new("node")
        .arg(&launcher)
        .arg("--")
        .args(&server)
        .stdin(Stdio::inherit())
        .status()
        .context("cannot start the MCP Inspector")?;
    if !status.success() {
        bail!("the MCP Inspector exited ({status})");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_versions_are_read() {
        assert_eq!(node_version("v22.19.0\n"), Some((22, 19)));
        assert_eq!(node_version("v20.20.2"), Some((20, 20)));
        assert!(node_version("v20.20.2").unwrap() < NODE_MIN);
        assert_eq!(node_version("nonsense"), None);
    }
}
