//! `cargo mcp dev --inspector`: the official MCP Inspector
//! (`@modelcontextprotocol/inspector`), pinned to [`INSPECTOR_VERSION`], in front of the dev
//! endpoint.
//!
//! - **Installed on first use, every package pinned**: the CLI carries a `package.json`
//!   naming the exact version and its `package-lock.json` (`mcp-cli/inspector/`, every
//!   dependency's version and integrity hash), writes both into
//!   `<cache>/cargo-mcp/inspector-<version>` (the user's cache folder: `$XDG_CACHE_HOME`,
//!   `~/Library/Caches` on macOS, `%LOCALAPPDATA%` on Windows, else `~/.cache`) and runs
//!   `npm ci` there, which installs exactly the locked tree or fails. Later runs reuse it; a
//!   new pin installs beside it. Nothing is installed globally, and `npx` (which would
//!   resolve "latest" or prompt) is not used.
//! - **Pointed at the dev endpoint.** Over stdio the Inspector starts its server itself, so
//!   it is given this very program: `cargo-mcp dev` with the same project flags and server
//!   arguments (minus `--inspector`); the Inspector's connection then gets every rebuild and
//!   `list_changed` like any client.
//! - **Started once the dev server answers.** The project is built first, and the very
//!   command the Inspector will start answers `initialize` before the Inspector starts
//!   ([`wait_until_serving`]). The Inspector is then given it in a session config file
//!   (`--config`, `--server`) with a connect timeout of [`CONNECT_TIMEOUT`] instead of its
//!   default 15 s, which a rebuild on a busy machine exceeds: neither the command nor its
//!   test depends on the machine's speed.
//! - Needs Node.js 22.19 or newer (the Inspector's own requirement); checked first, with a
//!   message saying what was found.

use crate::ops::connect::{ServerSpec, connect};
use anyhow::{Context as _, Result, bail};
use mcp_runtime::client::{EraMode, InputHandler};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

/// The Inspector version installed and run.
pub const INSPECTOR_VERSION: &str = "2.12.0";

/// How long the Inspector waits for the dev server to answer `initialize`: long enough for
/// a rebuild (the dev server builds before it serves), where the Inspector's own default is
/// 15 s.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(600);

/// The Inspector's `package.json` and lock file, as installed (`npm ci`).
const PACKAGE_JSON: &str = include_str!("../../../inspector/package.json");
const PACKAGE_LOCK: &str = include_str!("../../../inspector/package-lock.json");

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
    for (name, text) in [
        ("package.json", PACKAGE_JSON),
        ("package-lock.json", PACKAGE_LOCK),
    ] {
        std::fs::write(dir.join(name), text)
            .with_context(|| format!("cannot write {}", dir.join(name).display()))?;
    }
    let status = Command::new("npm")
        .args(["ci", "--no-audit", "--no-fund", "--prefix"])
        .arg(&dir)
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

#[cfg(test)]
mod pinning {
    use super::*;

    #[test]
    fn the_carried_lock_file_pins_the_inspector_version() {
        let manifest: serde_json::Value = serde_json::from_str(PACKAGE_JSON).unwrap();
        assert_eq!(
            manifest["dependencies"]["@modelcontextprotocol/inspector"],
            INSPECTOR_VERSION
        );
        let lock: serde_json::Value = serde_json::from_str(PACKAGE_LOCK).unwrap();
        assert_eq!(
            lock["packages"]["node_modules/@modelcontextprotocol/inspector"]["version"],
            INSPECTOR_VERSION
        );
        let packages = lock["packages"].as_object().unwrap();
        assert!(
            packages
                .iter()
                .filter(|(path, _)| !path.is_empty())
                .all(|(_, p)| p["version"].is_string() && p["integrity"].is_string()),
            "every locked package has a version and an integrity hash"
        );
    }
}

fn installed_version(package: &Path) -> Option<String> {
    let manifest = std::fs::read_to_string(package.join("package.json")).ok()?;
    let manifest: serde_json::Value = serde_json::from_str(&manifest).ok()?;
    manifest.get("version")?.as_str().map(str::to_owned)
}

/// Starts `server` (the dev command the Inspector will start: the program, then its
/// arguments) and returns once it answers `initialize`; an error says why it did not (it
/// exited, or did not answer within [`CONNECT_TIMEOUT`]).
pub async fn wait_until_serving(server: &[OsString], cwd: &Path) -> Result<()> {
    let command = server
        .iter()
        .map(|part| part.to_string_lossy().into_owned())
        .collect();
    let connection = connect(
        &ServerSpec::Command(command),
        EraMode::Legacy,
        CONNECT_TIMEOUT,
        cwd,
        InputHandler::new(),
    )
    .await
    .context("the dev server did not start, so the Inspector was not started")?;
    connection.close().await;
    Ok(())
}

/// The Inspector's session config: one stdio server, `name`, started as `server` (the
/// program, then its arguments), with [`CONNECT_TIMEOUT`].
fn session_config(server: &[OsString], name: &str) -> serde_json::Value {
    let mut parts = server.iter().map(|p| p.to_string_lossy().into_owned());
    let command = parts.next().unwrap_or_default();
    let args: Vec<String> = parts.collect();
    serde_json::json!({
        "mcpServers": {
            name: {
                "type": "stdio",
                "command": command,
                "args": args,
                "connectionTimeout": CONNECT_TIMEOUT.as_millis() as u64,
            }
        }
    })
}

/// Runs the Inspector on the stdio server `name`, started as `server` (the program, then its
/// arguments), until it exits.
pub fn run(server: &[OsString], name: &str) -> Result<()> {
    let launcher = ensure_installed()?;
    // A read-only session file the Inspector reads at start; removed when it exits.
    let mut config = tempfile::Builder::new()
        .prefix("cargo-mcp-inspector-")
        .suffix(".json")
        .tempfile()
        .context("cannot write the Inspector's session config")?;
    serde_json::to_writer(&mut config, &session_config(server, name))
        .context("cannot write the Inspector's session config")?;
    let status = Command::new("node")
        .arg(&launcher)
        .arg("--config")
        .arg(config.path())
        .args(["--server", name])
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
    fn the_session_config_names_the_dev_command_and_a_long_connect_timeout() {
        let server: Vec<OsString> = ["/bin/cargo-mcp", "dev", "--bin", "weather"]
            .map(OsString::from)
            .into();
        let config = session_config(&server, "weather");
        let entry = &config["mcpServers"]["weather"];
        assert_eq!(entry["command"], "/bin/cargo-mcp");
        assert_eq!(
            entry["args"],
            serde_json::json!(["dev", "--bin", "weather"])
        );
        assert_eq!(entry["type"], "stdio");
        assert_eq!(entry["connectionTimeout"], 600_000);
    }

    #[test]
    fn node_versions_are_read() {
        assert_eq!(node_version("v22.19.0\n"), Some((22, 19)));
        assert_eq!(node_version("v20.20.2"), Some((20, 20)));
        assert!(node_version("v20.20.2").unwrap() < NODE_MIN);
        assert_eq!(node_version("nonsense"), None);
    }
}
