//! Shared support for the end-to-end tests in `tests/it`.
//!
//! The tests drive the example servers as real subprocesses. Those binaries live in another
//! package (`mcp-examples`), and cargo only exposes `CARGO_BIN_EXE_*` for a package's own
//! binaries, so [`example_bin`] builds them once per test run with the same cargo and profile
//! and returns their path.

pub mod http;
pub mod layering;
pub mod oauth;
pub mod policy;
pub mod redis;
pub mod tls;
pub mod transports;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// The workspace root (the folder holding the top-level `Cargo.toml`).
pub fn workspace_root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the tests package sits one level below the workspace root")
}

/// The path of a binary of package `mcp-examples`, built on first use.
///
/// Panics with cargo's output when the build fails: a test cannot run without its server.
pub fn example_bin(name: &str) -> PathBuf {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    let dir = BUILT.get_or_init(|| {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
        let mut cmd = Command::new(cargo);
        cmd.current_dir(workspace_root()).args([
            "build",
            "--quiet",
            "-p",
            "mcp-examples",
            "--bins",
        ]);
        if !cfg!(debug_assertions) {
            cmd.arg("--release");
        }
        let out = cmd.output().expect("cargo runs");
        assert!(
            out.status.success(),
            "building the example servers failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        target_dir()
    });
    let path = dir.join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    assert!(path.is_file(), "no example binary at {}", path.display());
    path
}

/// The profile directory of the running test executable (`target/debug` or `target/release`).
fn target_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("the test executable has a path");
    // target/<profile>/deps/it-<hash>
    exe.parent()
        .and_then(Path::parent)
        .expect("test executables live in target/<profile>/deps")
        .to_path_buf()
}

/// Runs `tests/{folder}/setup.sh` once per test process (later callers wait for the first
/// run) and returns the folder. Panics with the script's output when it fails: a test that
/// needs what the script installs cannot run without it.
pub fn setup(folder: &'static str) -> &'static Path {
    use std::collections::HashMap;
    use std::sync::{Arc, Mutex};
    type Outcome = Arc<OnceLock<Result<&'static Path, String>>>;
    static RUNS: OnceLock<Mutex<HashMap<&'static str, Outcome>>> = OnceLock::new();
    let run = RUNS
        .get_or_init(Mutex::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .entry(folder)
        .or_default()
        .clone();
    let outcome = run.get_or_init(|| {
        let dir = workspace_root().join("tests").join(folder);
        let out = Command::new("bash")
            .arg(dir.join("setup.sh"))
            .current_dir(&dir)
            .stdin(std::process::Stdio::null())
            .output()
            .map_err(|e| format!("cannot run bash {}/setup.sh: {e}", dir.display()))?;
        if out.status.success() {
            // Leaked once per folder: the answer of every later call.
            Ok(&*Box::leak(dir.into_boxed_path()))
        } else {
            Err(format!(
                "tests/{folder}/setup.sh failed ({}):\n--- stdout ---\n{}\n--- stderr ---\n{}",
                out.status,
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            ))
        }
    });
    match outcome {
        Ok(dir) => dir,
        Err(message) => panic!("setting up tests/{folder} failed:\n{message}"),
    }
}
