//! Shared helpers: running `cargo-mcp` and cargo, temporary folders outside the workspace,
//! and the one target folder every generated project builds into.

use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
#[cfg(unix)]
use std::sync::RwLockWriteGuard;
use std::sync::{PoisonError, RwLock, RwLockReadGuard};

/// The toolkit checkout (the workspace root).
pub(crate) fn workspace_root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("mcp-cli sits one level below the workspace root")
}

/// `cargo-mcp` as cargo built it for these tests.
pub(crate) fn cargo_mcp() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_cargo-mcp"));
    // Tables are laid out for `$COLUMNS` when it is set; the tests read them unwrapped.
    cmd.stdin(Stdio::null()).env_remove("COLUMNS");
    cmd
}

/// Runs a command and returns its output (stdout and stderr captured).
pub(crate) fn output(cmd: &mut Command) -> Output {
    cmd.output().expect("the command runs")
}

/// Text of stdout and stderr, for assertion messages.
pub(crate) fn show(out: &Output) -> String {
    format!(
        "status {}\n--- stdout ---\n{}\n--- stderr ---\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// Stdout as text.
pub(crate) fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Stderr as text.
pub(crate) fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A temporary folder outside the workspace (so cargo does not take a generated project
/// for a member of the toolkit's workspace).
pub(crate) fn outside_tempdir() -> tempfile::TempDir {
    let dir = tempfile::Builder::new()
        .prefix("cargo-mcp-test-")
        .tempdir()
        .expect("a temporary folder");
    assert!(
        !dir.path().starts_with(workspace_root()),
        "the temporary folder {} is inside the workspace; set TMPDIR elsewhere",
        dir.path().display()
    );
    dir
}

/// The target folder all generated projects share, so their dependencies compile once:
/// `target/cli-generated` beside the profile folder of this test binary.
pub(crate) fn generated_target_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("the test binary has a path");
    // target/<profile>/deps/it-<hash>
    exe.ancestors()
        .nth(3)
        .expect("test binaries live in target/<profile>/deps")
        .join("cli-generated")
}

/// Who builds in [`generated_target_dir`] now. Cargo runs one build at a time there, so a
/// test's build can wait minutes behind another test's; most steps wait as long as it
/// takes, but a step bounded by a client's own timeout (the Inspector's fixed 60 s for
/// `initialize`, spent while `cargo mcp dev` waits for the folder's lock) cannot. Every test
/// that builds there holds this lock shared from its first build until it ends
/// ([`in_generated_target`] takes it), and such a step holds it alone
/// ([`generated_target_to_myself`]).
static GENERATED_TARGET: RwLock<()> = RwLock::new(());

thread_local! {
    /// This test's share of [`GENERATED_TARGET`]; libtest runs each test on a thread of its
    /// own, so the share ends with the test (panicking included).
    static SHARE: RefCell<Option<RwLockReadGuard<'static, ()>>> = const { RefCell::new(None) };
}

/// Takes [`GENERATED_TARGET`] alone: waits until no other test is building (or may build)
/// in [`generated_target_dir`], and keeps new ones from starting while the guard lives.
/// The calling test gives up its own share first, and must not build there again while it
/// holds the guard.
// Only the Inspector's test needs it, and it signals the dev loop by Unix signal.
#[cfg(unix)]
pub(crate) fn generated_target_to_myself() -> RwLockWriteGuard<'static, ()> {
    SHARE.with(|share| share.borrow_mut().take());
    GENERATED_TARGET
        .write()
        .unwrap_or_else(PoisonError::into_inner)
}

/// Points a cargo command at [`generated_target_dir`], without debug info: these builds only
/// prove that generated projects compile and pass their tests, and debug info would multiply
/// the disk they take. The calling test holds [`GENERATED_TARGET`] shared from now on.
pub(crate) fn in_generated_target(cmd: &mut Command) -> &mut Command {
    SHARE.with(|share| {
        share.borrow_mut().get_or_insert_with(|| {
            GENERATED_TARGET
                .read()
                .unwrap_or_else(PoisonError::into_inner)
        });
    });
    cmd.env("CARGO_TARGET_DIR", generated_target_dir())
        .env("CARGO_PROFILE_DEV_DEBUG", "false")
}

/// `cargo <args>` in `dir`, building into [`generated_target_dir`].
pub(crate) fn cargo_in(dir: &Path, args: &[&str]) -> Output {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    output(
        in_generated_target(Command::new(cargo).args(args).current_dir(dir)).stdin(Stdio::null()),
    )
}

/// Pins a generated project's (or temporary workspace's) dependencies to the versions of
/// the toolkit's own lock file, so the shared target folder is reused across projects.
pub(crate) fn pin_dependencies(dir: &Path) {
    std::fs::copy(workspace_root().join("Cargo.lock"), dir.join("Cargo.lock"))
        .expect("the workspace has a Cargo.lock");
}

/// `cargo-mcp new <dir>/<name> --runtime-path <checkout> --vcs none <extra>`, asserting
/// success; returns the project folder.
pub(crate) fn generate(parent: &Path, name: &str, extra: &[&str]) -> PathBuf {
    let out = output(
        cargo_mcp()
            .current_dir(parent)
            .args(["new", name, "--vcs", "none", "--runtime-path"])
            .arg(workspace_root())
            .args(extra),
    );
    assert!(
        out.status.success(),
        "cargo mcp new failed:\n{}",
        show(&out)
    );
    parent.join(name)
}

/// `cargo-mcp new <dir>/<name> --vcs none <extra>`: the command as a user types it, without
/// `--runtime-path`. A CLI built from this checkout points the project at the checkout's
/// `mcp-runtime` (asserted here); returns the project folder.
pub(crate) fn generate_default(parent: &Path, name: &str, extra: &[&str]) -> PathBuf {
    let out = output(
        cargo_mcp()
            .current_dir(parent)
            .args(["new", name, "--vcs", "none"])
            .args(extra),
    );
    assert!(
        out.status.success(),
        "cargo mcp new failed:\n{}",
        show(&out)
    );
    let project = parent.join(name);
    let manifest: toml_edit::DocumentMut = std::fs::read_to_string(project.join("Cargo.toml"))
        .unwrap()
        .parse()
        .unwrap();
    let runtime = workspace_root().join("mcp-runtime").canonicalize().unwrap();
    assert_eq!(
        manifest["dependencies"]["mcp-runtime"]["path"].as_str(),
        Some(runtime.to_str().unwrap()),
        "the default points at the checkout the CLI was built from"
    );
    assert!(
        stdout(&out).contains(&format!("depends on mcp-runtime at {}", runtime.display())),
        "{}",
        show(&out)
    );
    project
}

/// `<file>.bak` beside `path`.
pub(crate) fn backup_of(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap().to_os_string();
    name.push(".bak");
    path.with_file_name(name)
}
