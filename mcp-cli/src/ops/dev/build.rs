//! Building the project for `cargo mcp dev`: `cargo build --message-format=json-render-diagnostics`,
//! async and killed with the session, so a build in progress never holds up the exit.
//!
//! Cargo renders the compiler's diagnostics to its stderr, which is ours: the user sees the
//! errors as `cargo build` shows them, and stdout (the protocol channel on stdio) never sees
//! them. The JSON messages on cargo's stdout give the executable's path and whether cargo
//! had to rebuild it (`fresh`), so a save that changes nothing (a README) does not restart
//! the server. Unlike [`crate::ops::project::build`] (blocking, for one-shot commands), this
//! never passes `--quiet`: in a session that runs for hours, cargo's `Compiling …` and
//! `Finished …` lines are how the user sees that a save was picked up and built.

use crate::ops::project::{self, ProjectBinary};
use anyhow::{Context as _, Result, bail};
use serde::Deserialize;
use std::path::{Path, PathBuf};
use std::process::{ExitStatus, Stdio};
use tokio::io::AsyncReadExt as _;

/// A successful build.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Build {
    /// The executable's absolute path.
    pub executable: PathBuf,
    /// Cargo did not have to rebuild it: the binary is the one of the last build.
    pub fresh: bool,
}

/// Runs cargo with its stdout captured and its stderr ours (tokio's `output()` would
/// capture stderr too, and the user would never see the compiler's errors); killed if the
/// session ends first.
async fn run(mut cmd: tokio::process::Command) -> std::io::Result<(ExitStatus, Vec<u8>)> {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()?;
    let mut stdout = Vec::new();
    if let Some(mut pipe) = child.stdout.take() {
        pipe.read_to_end(&mut stdout).await?;
    }
    Ok((child.wait().await?, stdout))
}

#[derive(Debug, Deserialize)]
struct Message {
    reason: String,
    #[serde(default)]
    target: Option<Target>,
    #[serde(default)]
    executable: Option<PathBuf>,
    #[serde(default)]
    fresh: bool,
}

#[derive(Debug, Deserialize)]
struct Target {
    name: String,
    kind: Vec<String>,
}

/// The artifact of binary `bin` among cargo's JSON messages.
fn artifact(stdout: &[u8], bin: &str) -> Option<Build> {
    stdout
        .split(|b| *b == b'\n')
        .filter_map(|line| serde_json::from_slice::<Message>(line).ok())
        .filter(|m| m.reason == "compiler-artifact")
        .filter(|m| {
            m.target
                .as_ref()
                .is_some_and(|t| t.name == bin && t.kind.iter().any(|k| k == "bin"))
        })
        .find_map(|m| {
            Some(Build {
                executable: m.executable?,
                fresh: m.fresh,
            })
        })
}

/// Builds `binary` in the dev profile. Compiler output goes to our stderr; a failed build is
/// an error saying so (the errors themselves are already on stderr).
pub async fn build(binary: &ProjectBinary, cwd: &Path) -> Result<Build> {
    let mut cmd = tokio::process::Command::new(project::cargo());
    cmd.current_dir(cwd)
        .args(["build", "--message-format", "json-render-diagnostics"])
        .arg("--manifest-path")
        .arg(&binary.manifest_path)
        .args(["--bin", &binary.bin]);
    let (status, stdout) = run(cmd).await.context("cannot run cargo build")?;
    if !status.success() {
        bail!("cargo build of `{}` failed ({status})", binary.bin);
    }
    artifact(&stdout, &binary.bin).with_context(|| {
        format!(
            "cargo build did not report an executable for `{}`",
            binary.bin
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_binary_artifact_and_its_freshness_are_found() {
        let stdout = br#"{"reason":"compiler-artifact","target":{"name":"demo","kind":["lib"]},"fresh":false}
{"reason":"compiler-artifact","target":{"name":"demo","kind":["bin"]},"executable":"/t/debug/demo","fresh":true}
{"reason":"build-finished","success":true}
"#;
        assert_eq!(
            artifact(stdout, "demo"),
            Some(Build {
                executable: "/t/debug/demo".into(),
                fresh: true
            })
        );
        assert_eq!(artifact(stdout, "other"), None);
    }
}
