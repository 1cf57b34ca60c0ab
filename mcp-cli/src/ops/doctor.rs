//! `doctor`: the toolchain, and the toolkit version the project uses against the CLI's.

use super::connect::{ServerSpec, connect};
use super::project::{ProjectBinary, cargo, expected_executable};
use crate::CLI_PACKAGE;
use mcp_runtime::client::{EraMode, InputHandler};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

/// How a check came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// Fine.
    Ok,
    /// Works, but worth a look.
    Warn,
    /// Needs fixing.
    Error,
}

/// One finding: what was checked, what was found, and what to do about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Check {
    /// The outcome.
    pub status: Status,
    /// What was found.
    pub message: String,
    /// What to do, when something is off.
    pub advice: Option<String>,
}

impl Check {
    fn ok(message: impl Into<String>) -> Self {
        Check {
            status: Status::Ok,
            message: message.into(),
            advice: None,
        }
    }

    fn warn(message: impl Into<String>, advice: impl Into<String>) -> Self {
        Check {
            status: Status::Warn,
            message: message.into(),
            advice: Some(advice.into()),
        }
    }

    fn error(message: impl Into<String>, advice: impl Into<String>) -> Self {
        Check {
            status: Status::Error,
            message: message.into(),
            advice: Some(advice.into()),
        }
    }
}

/// `major.minor.patch` of a version line like `rustc 1.95.0 (59807616e 2026-04-14)`.
pub fn parse_version(line: &str) -> Option<(u64, u64, u64)> {
    let word = line
        .split_whitespace()
        .find(|w| w.starts_with(|c: char| c.is_ascii_digit()))?;
    let core = word.split(['-', '+']).next()?;
    let mut parts = core.split('.').map(|p| p.parse::<u64>().ok());
    Some((
        parts.next()??,
        parts.next()?.unwrap_or(0),
        parts.next().flatten().unwrap_or(0),
    ))
}

fn version_output(program: &std::ffi::OsStr) -> Option<String> {
    let out = Command::new(program)
        .arg("--version")
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

/// The toolchain checks: cargo and rustc present, rustc at least the toolkit's
/// `rust-version`.
pub fn toolchain() -> Vec<Check> {
    let mut checks = Vec::new();
    match version_output(&cargo()) {
        Some(v) => checks.push(Check::ok(v)),
        None => checks.push(Check::error(
            "cargo is not on PATH",
            "install Rust with rustup (https://rustup.rs)",
        )),
    }
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    match version_output(&rustc) {
        None => checks.push(Check::error(
            "rustc is not on PATH",
            "install Rust with rustup (https://rustup.rs)",
        )),
        Some(v) => checks.push(rustc_check(&v, crate::RUST_VERSION)),
    }
    checks
}

/// Compares a `rustc --version` line with the minimum `required`.
pub fn rustc_check(found: &str, required: &str) -> Check {
    match (parse_version(found), parse_version(required)) {
        (Some(have), Some(need)) if have >= need => {
            Check::ok(format!("{found} (the toolkit needs {required} or newer)"))
        }
        (Some(_), Some(_)) => Check::error(
            format!("{found} is older than the toolkit's minimum, {required}"),
            "run `rustup update stable`",
        ),
        _ => Check::warn(
            format!("cannot read the rustc version from {found:?}"),
            format!("make sure rustc is {required} or newer"),
        ),
    }
}

/// The nearest `Cargo.toml` with a `[package]`, from `dir` up.
pub fn find_package_manifest(dir: &Path) -> Option<PathBuf> {
    dir.ancestors().map(|d| d.join("Cargo.toml")).find(|m| {
        std::fs::read_to_string(m)
            .ok()
            .and_then(|t| t.parse::<toml_edit::DocumentMut>().ok())
            .is_some_and(|d| d.contains_key("package"))
    })
}

/// The version of `mcp-runtime` in the nearest `Cargo.lock`, from `dir` up.
fn locked_runtime_version(dir: &Path) -> Option<String> {
    let lock = dir
        .ancestors()
        .map(|d| d.join("Cargo.lock"))
        .find(|l| l.is_file())?;
    let doc: toml_edit::DocumentMut = std::fs::read_to_string(lock).ok()?.parse().ok()?;
    doc.get("package")?
        .as_array_of_tables()?
        .iter()
        .find(|p| p.get("name").and_then(|n| n.as_str()) == Some("mcp-runtime"))?
        .get("version")?
        .as_str()
        .map(str::to_owned)
}

/// The project checks, for the package whose manifest is `manifest`, against the CLI's
/// `cli_version`.
pub fn project(manifest: &Path, cli_version: &str) -> Vec<Check> {
    let mut checks = Vec::new();
    let doc = match std::fs::read_to_string(manifest)
        .map_err(|e| e.to_string())
        .and_then(|t| {
            t.parse::<toml_edit::DocumentMut>()
                .map_err(|e| e.to_string())
        }) {
        Ok(doc) => doc,
        Err(e) => {
            checks.push(Check::error(
                format!("cannot read {}: {e}", manifest.display()),
                "fix the manifest; `cargo metadata` shows what cargo thinks of it",
            ));
            return checks;
        }
    };
    let name = doc["package"]["name"].as_str().unwrap_or("?").to_owned();
    checks.push(Check::ok(format!(
        "project `{name}` ({})",
        manifest.display()
    )));
    let dependency = doc
        .get("dependencies")
        .and_then(|d| d.get("mcp-runtime"))
        .cloned();
    let Some(dependency) = dependency else {
        checks.push(Check::warn(
            format!("`{name}` does not depend on mcp-runtime"),
            "run `cargo mcp doctor` in the server's folder, or add `mcp-runtime` to [dependencies]",
        ));
        return checks;
    };
    let path = dependency
        .get("path")
        .and_then(|p| p.as_str())
        .map(str::to_owned);
    let requirement = dependency.as_str().map(str::to_owned).or_else(|| {
        dependency
            .get("version")
            .and_then(|v| v.as_str())
            .map(str::to_owned)
    });
    let dir = manifest.parent().unwrap_or(Path::new("."));
    let locked = locked_runtime_version(dir);
    let used = match (&path, &locked, &requirement) {
        (Some(p), _, _) => {
            let runtime_manifest = dir.join(p).join("Cargo.toml");
            let version = std::fs::read_to_string(&runtime_manifest)
                .ok()
                .and_then(|t| t.parse::<toml_edit::DocumentMut>().ok())
                .and_then(|d| d["package"]["version"].as_str().map(str::to_owned));
            match version {
                Some(v) => {
                    checks.push(Check::ok(format!("mcp-runtime {v} from the path {p}")));
                    Some(v)
                }
                // `version.workspace = true` and the like: use the lock file.
                None if locked.is_some() => {
                    checks.push(Check::ok(format!(
                        "mcp-runtime {} from the path {p}",
                        locked.clone().unwrap_or_default()
                    )));
                    locked.clone()
                }
                None => {
                    checks.push(Check::error(
                        format!("mcp-runtime's path dependency {p} does not hold the crate"),
                        "point `path` at the toolkit's `mcp-runtime` folder (or regenerate with --runtime-path)",
                    ));
                    None
                }
            }
        }
        (None, Some(v), _) => {
            checks.push(Check::ok(format!("mcp-runtime {v} (Cargo.lock)")));
            Some(v.clone())
        }
        (None, None, Some(req)) => {
            checks.push(Check::warn(
                format!("mcp-runtime {req} is required but not yet resolved (no Cargo.lock)"),
                "run `cargo build` once",
            ));
            None
        }
        (None, None, None) => None,
    };
    if let Some(used) = used {
        match (parse_version(&used), parse_version(cli_version)) {
            (Some(u), Some(c)) if (u.0, u.1) == (c.0, c.1) => {
                checks.push(Check::ok(format!("cargo-mcp {cli_version} matches the project's toolkit {used}")));
            }
            // A mismatch is an error (exit 3): the CLI's templates, `schema` snapshots and
            // the runtime's protocol support move together, so mixing them misleads.
            (Some(u), Some(c)) if u < c => checks.push(Check::error(
                format!("the project uses mcp-runtime {used}, older than this cargo-mcp ({cli_version})"),
                format!(
                    "update the project: set `mcp-runtime = \"{cli_version}\"` in Cargo.toml and run \
                     `cargo update -p mcp-runtime`; or install the CLI of its version: \
                     `cargo install {CLI_PACKAGE} --version {used}`"
                ),
            )),
            (Some(_), Some(_)) => checks.push(Check::error(
                format!("the project uses mcp-runtime {used}, newer than this cargo-mcp ({cli_version})"),
                format!(
                    "install the matching CLI: `cargo install {CLI_PACKAGE} --version {used}` \
                     (or, from a toolkit checkout, `cargo install --path <checkout>/mcp-cli`)"
                ),
            )),
            _ => {}
        }
    }
    match doc
        .get("package")
        .and_then(|p| p.get("metadata"))
        .and_then(|m| m.get("mcp"))
    {
        Some(meta) => checks.push(Check::ok(format!(
            "generated from template `{}` by cargo-mcp {}",
            meta.get("template").and_then(|t| t.as_str()).unwrap_or("?"),
            meta.get("cli-version")
                .and_then(|t| t.as_str())
                .unwrap_or("?")
        ))),
        None => checks.push(Check::ok(
            "not generated by cargo mcp (no [package.metadata.mcp])",
        )),
    }
    checks
}

/// Whether the project's server, as last built (the dev profile's binary; nothing is built
/// here), starts with `args`, answers `initialize`, and writes nothing but protocol messages
/// to stdout: a `println!` in a stdio server breaks every client, and only shows as a
/// client's parse error far from its cause.
pub async fn server_check(binary: &ProjectBinary, args: &[String], cwd: &Path) -> Check {
    let executable = expected_executable(binary, "dev");
    if !executable.is_file() {
        return Check::ok(format!(
            "`{}` is not built yet; after `cargo build`, doctor also checks that it starts and keeps stdout clean",
            binary.bin
        ));
    }
    let mut command = vec![executable.to_string_lossy().into_owned()];
    command.extend(args.iter().cloned());
    let spec = ServerSpec::Command(command);
    let connected = connect(
        &spec,
        EraMode::Legacy,
        Duration::from_secs(15),
        cwd,
        InputHandler::new(),
    )
    .await;
    let mut connection = match connected {
        Ok(connection) => connection,
        Err(e) => {
            return Check::warn(
                format!(
                    "the built server {} did not answer `initialize`: {e:#}",
                    executable.display()
                ),
                "run it (`cargo run`) to see why; a server that needs arguments takes them after `--` (`cargo mcp doctor -- ARGS`)",
            );
        }
    };
    let noise = connection.stdout_noise();
    let label = connection.server_label();
    connection.close().await;
    match noise {
        Some(noise) => Check::warn(
            noise.trim_start_matches("warning: ").to_owned(),
            "print with `eprintln!` or log with `tracing` to stderr; stdout belongs to the protocol",
        ),
        None => Check::ok(format!(
            "the built server ({label}) answers `initialize` and writes only protocol messages to stdout"
        )),
    }
}

/// The report as printed: one line per check, advice indented below.
pub fn render(checks: &[Check]) -> String {
    let mut out = String::new();
    for check in checks {
        let tag = match check.status {
            Status::Ok => "ok   ",
            Status::Warn => "warn ",
            Status::Error => "error",
        };
        out.push_str(&format!("{tag} {}\n", check.message));
        if let Some(advice) = &check.advice {
            out.push_str(&format!("      → {advice}\n"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_parse() {
        assert_eq!(
            parse_version("rustc 1.95.0 (59807616e 2026-04-14)"),
            Some((1, 95, 0))
        );
        assert_eq!(
            parse_version("rustc 1.96.0-nightly (abc 2026-05-01)"),
            Some((1, 96, 0))
        );
        assert_eq!(parse_version("1.95"), Some((1, 95, 0)));
        assert_eq!(parse_version("nothing"), None);
        assert_eq!(rustc_check("rustc 1.95.0 (x)", "1.95").status, Status::Ok);
        assert_eq!(
            rustc_check("rustc 1.80.1 (x)", "1.95").status,
            Status::Error
        );
    }

    #[test]
    fn project_checks_compare_versions() {
        let tmp = tempfile::tempdir().unwrap();
        let manifest = tmp.path().join("Cargo.toml");
        std::fs::write(
            &manifest,
            "[package]\nname = \"w\"\nversion = \"0.1.0\"\n[dependencies]\nmcp-runtime = \"0.1.0\"\n[package.metadata.mcp]\ntemplate = \"stdio\"\ncli-version = \"0.1.0\"\n",
        )
        .unwrap();
        std::fs::write(
            tmp.path().join("Cargo.lock"),
            "version = 4\n[[package]]\nname = \"mcp-runtime\"\nversion = \"0.1.3\"\n",
        )
        .unwrap();
        let checks = project(&manifest, "0.1.0");
        assert!(checks.iter().all(|c| c.status == Status::Ok), "{checks:?}");
        let checks = project(&manifest, "0.2.0");
        let error = checks
            .iter()
            .find(|c| c.status == Status::Error)
            .expect("an error");
        assert!(error.message.contains("older"), "{error:?}");
        assert!(render(&checks).contains("→ update the project"));
        assert!(
            render(&checks).contains("cargo install mcp-runtime-cli --version 0.1.3"),
            "{}",
            render(&checks)
        );
        let checks = project(&manifest, "0.0.9");
        let error = checks
            .iter()
            .find(|c| c.status == Status::Error)
            .expect("an error");
        assert!(error.message.contains("newer"), "{error:?}");
        let advice = error.advice.as_deref().unwrap();
        assert!(
            advice.contains("cargo install mcp-runtime-cli --version 0.1.3"),
            "{advice}"
        );
    }
}
