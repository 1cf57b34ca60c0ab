//! The cargo project in the current folder: finding its package and binary, and building
//! it (`cargo build --message-format=json`) to learn the executable's absolute path.

use crate::error::usage;
use anyhow::{Context as _, Result, bail};
use serde::Deserialize;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The `cargo` to run: the one that started us (`$CARGO`), else the one on `PATH`.
pub fn cargo() -> OsString {
    std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into())
}

/// A package's binary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProjectBinary {
    /// The package name.
    pub package: String,
    /// The package's `Cargo.toml`.
    pub manifest_path: PathBuf,
    /// The binary target's name.
    pub bin: String,
    /// The workspace root (the package's folder for a package of its own).
    pub workspace_root: PathBuf,
    /// cargo's target folder (honouring `CARGO_TARGET_DIR` and `build.target-dir`).
    pub target_directory: PathBuf,
}

/// A built binary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuiltBinary {
    /// What was built.
    pub binary: ProjectBinary,
    /// The executable's absolute path.
    pub executable: PathBuf,
}

#[derive(Debug, Deserialize)]
struct Metadata {
    packages: Vec<Package>,
    workspace_root: PathBuf,
    target_directory: PathBuf,
}

#[derive(Debug, Deserialize)]
struct Package {
    name: String,
    manifest_path: PathBuf,
    targets: Vec<Target>,
}

#[derive(Debug, Deserialize)]
struct Target {
    name: String,
    kind: Vec<String>,
}

#[derive(Debug, Deserialize)]
struct LocatedProject {
    root: PathBuf,
}

fn run_cargo(args: &[&str], manifest_path: Option<&Path>, cwd: &Path) -> Result<Vec<u8>> {
    let mut cmd = Command::new(cargo());
    cmd.args(args).current_dir(cwd).stdin(Stdio::null());
    if let Some(manifest) = manifest_path {
        cmd.arg("--manifest-path").arg(manifest);
    }
    let out = cmd.output().context("cannot run cargo")?;
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        let first = stderr
            .lines()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("no output")
            .trim_start_matches("error: ");
        bail!("cargo {} failed: {first}", args[0]);
    }
    Ok(out.stdout)
}

/// The package in `cwd` (or at `manifest_path`) and the binary to run: `bin` if given,
/// else its only binary, else the one named like the package. Outside a project, the error
/// suggests `instead`: the flags of the calling command that name a server another way.
pub fn locate(
    manifest_path: Option<&Path>,
    bin: Option<&str>,
    cwd: &Path,
    instead: &str,
) -> Result<ProjectBinary> {
    let located = run_cargo(
        &["locate-project", "--message-format", "json"],
        manifest_path,
        cwd,
    )
    .with_context(|| format!("no cargo project here; run inside one, or pass {instead}"))?;
    let located: LocatedProject =
        serde_json::from_slice(&located).context("cannot read `cargo locate-project`")?;
    let metadata = run_cargo(
        &["metadata", "--no-deps", "--format-version", "1"],
        Some(&located.root),
        cwd,
    )?;
    let metadata: Metadata =
        serde_json::from_slice(&metadata).context("cannot read `cargo metadata`")?;
    let root = located.root.canonicalize().unwrap_or(located.root.clone());
    let package = metadata
        .packages
        .into_iter()
        .find(|p| p.manifest_path.canonicalize().unwrap_or(p.manifest_path.clone()) == root)
        .ok_or_else(|| {
            usage(format!(
                "{} is a workspace without a package of its own; run inside the server's folder, or pass --manifest-path",
                located.root.display()
            ))
        })?;
    let bins: Vec<&str> = package
        .targets
        .iter()
        .filter(|t| t.kind.iter().any(|k| k == "bin"))
        .map(|t| t.name.as_str())
        .collect();
    let chosen = match bin {
        Some(b) if bins.contains(&b) => b.to_owned(),
        Some(b) => {
            return Err(usage(format!(
                "package `{}` has no binary `{b}`; it has: {}",
                package.name,
                if bins.is_empty() {
                    "none".to_owned()
                } else {
                    bins.join(", ")
                }
            )));
        }
        None => match bins.as_slice() {
            [] => {
                return Err(usage(format!(
                    "package `{}` has no binary to run as a server",
                    package.name
                )));
            }
            [only] => (*only).to_owned(),
            several => match several.iter().find(|b| **b == package.name) {
                Some(b) => (*b).to_owned(),
                None => {
                    return Err(usage(format!(
                        "package `{}` has several binaries ({}); pick one with --bin",
                        package.name,
                        several.join(", ")
                    )));
                }
            },
        },
    };
    Ok(ProjectBinary {
        package: package.name,
        manifest_path: package.manifest_path,
        bin: chosen,
        workspace_root: metadata.workspace_root,
        target_directory: metadata.target_directory,
    })
}

/// Where `cargo build --profile <profile>` puts `binary`'s executable, without building:
/// the target folder (as `cargo metadata` told [`locate`]), then the profile's folder
/// (`debug` for `dev`, `release` for `release`, else the profile's name). The file may not
/// exist yet.
pub fn expected_executable(binary: &ProjectBinary, profile: &str) -> PathBuf {
    let folder = match profile {
        "dev" | "test" => "debug",
        "bench" => "release",
        other => other,
    };
    binary.target_directory.join(folder).join(format!(
        "{}{}",
        binary.bin,
        std::env::consts::EXE_SUFFIX
    ))
}

#[derive(Debug, Deserialize)]
struct BuildMessage {
    reason: String,
    #[serde(default)]
    target: Option<Target>,
    #[serde(default)]
    executable: Option<PathBuf>,
}

/// Builds `binary` with cargo's `profile` (`dev`, `release`, …) and returns the executable.
/// Cargo's output goes to our stderr: its progress bar on a terminal, its plain
/// `Compiling …` lines otherwise (a long first build is never silent).
pub fn build(binary: &ProjectBinary, profile: &str, cwd: &Path) -> Result<BuiltBinary> {
    build_into(binary, profile, None, cwd)
}

/// [`build`], into `target_dir` when given (cargo's `--target-dir`).
pub fn build_into(
    binary: &ProjectBinary,
    profile: &str,
    target_dir: Option<&Path>,
    cwd: &Path,
) -> Result<BuiltBinary> {
    let mut cmd = Command::new(cargo());
    cmd.current_dir(cwd)
        .args(["build", "--message-format", "json-render-diagnostics"])
        .arg("--manifest-path")
        .arg(&binary.manifest_path)
        .args(["--bin", &binary.bin, "--profile", profile])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    if let Some(dir) = target_dir {
        cmd.arg("--target-dir").arg(dir);
    }
    let out = cmd.output().context("cannot run cargo build")?;
    if !out.status.success() {
        bail!(
            "cargo build of `{}` failed ({}); see the compiler output above",
            binary.bin,
            out.status
        );
    }
    let executable = out
        .stdout
        .split(|b| *b == b'\n')
        .filter_map(|line| serde_json::from_slice::<BuildMessage>(line).ok())
        .filter(|m| m.reason == "compiler-artifact")
        .filter(|m| {
            m.target
                .as_ref()
                .is_some_and(|t| t.name == binary.bin && t.kind.iter().any(|k| k == "bin"))
        })
        .find_map(|m| m.executable)
        .with_context(|| {
            format!(
                "cargo build did not report an executable for `{}`",
                binary.bin
            )
        })?;
    Ok(BuiltBinary {
        binary: binary.clone(),
        executable,
    })
}
