//! Shared fixture for the FileService attack suite: an allowed directory next to places a
//! model must never reach, and checks that nothing leaked or changed there.

use mcp_runtime::fs::{FileService, FsError, FsErrorKind, FsPolicy, LineRange, TextEdit};
use std::collections::BTreeMap;
use std::future::Future;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Content of every file outside the root; no result or error may ever contain it.
pub(crate) const SECRET: &str = "TOP-SECRET-OUTSIDE-CONTENT";

/// ```text
/// base/
///   allowed/              the root
///     notes.txt           "hello notes\n"
///     d/inner.txt         "inner\n"
///   allowed_evil/secret.txt   SECRET   (a prefix sibling)
///   outside/secret.txt        SECRET
///   outside/sub/deep.txt      SECRET
/// ```
pub(crate) struct Fixture {
    _tmp: tempfile::TempDir,
    pub(crate) base: PathBuf,
    pub(crate) root: PathBuf,
    pub(crate) outside: PathBuf,
    pub(crate) files: FileService,
}

pub(crate) fn fixture() -> Fixture {
    fixture_with(|p| p)
}

pub(crate) fn fixture_with(policy: impl FnOnce(FsPolicy) -> FsPolicy) -> Fixture {
    let tmp = tempfile::tempdir().expect("tempdir");
    let base = tmp.path().to_path_buf();
    let root = base.join("allowed");
    let outside = base.join("outside");
    std::fs::create_dir_all(root.join("d")).unwrap();
    std::fs::create_dir_all(outside.join("sub")).unwrap();
    std::fs::create_dir_all(base.join("allowed_evil")).unwrap();
    std::fs::write(root.join("notes.txt"), "hello notes\n").unwrap();
    std::fs::write(root.join("d/inner.txt"), "inner\n").unwrap();
    std::fs::write(outside.join("secret.txt"), SECRET).unwrap();
    std::fs::write(outside.join("sub/deep.txt"), SECRET).unwrap();
    std::fs::write(base.join("allowed_evil/secret.txt"), SECRET).unwrap();
    let files = FileService::new(policy(FsPolicy::new().allow_dir(&root)))
        .expect("service")
        .for_tool("fs_attacks");
    Fixture {
        _tmp: tmp,
        base,
        root,
        outside,
        files,
    }
}

/// A path as a string (the tests' paths are UTF-8).
pub(crate) fn s(p: &Path) -> String {
    p.to_str().expect("UTF-8 test path").to_owned()
}

/// Every file and directory under `dir` (no symlinks followed) with file contents.
pub(crate) fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Option<Vec<u8>>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            let meta = std::fs::symlink_metadata(&p).unwrap();
            if meta.is_dir() {
                stack.push(p.clone());
                out.insert(p, None);
            } else if meta.is_file() {
                out.insert(p.clone(), Some(std::fs::read(&p).unwrap()));
            } else {
                out.insert(p, Some(b"<special>".to_vec()));
            }
        }
    }
    out
}

impl Fixture {
    /// Everything a model must not touch: `outside/` and `allowed_evil/`.
    pub(crate) fn forbidden(&self) -> BTreeMap<PathBuf, Option<Vec<u8>>> {
        let mut all = snapshot(&self.outside);
        all.extend(snapshot(&self.base.join("allowed_evil")));
        all
    }

    pub(crate) fn symlink(&self, target: impl AsRef<Path>, link: &str) {
        std::os::unix::fs::symlink(target, self.root.join(link)).unwrap();
    }

    pub(crate) fn write(&self, rel: &str, content: &str) {
        let p = self.root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, content).unwrap();
    }

    pub(crate) async fn read(&self, path: &str) -> Result<String, FsError> {
        guarded(self.files.read_text_file(path, LineRange::All)).await
    }
}

/// Fails the test if an operation hangs (a FIFO read, a runaway walk). Generous on purpose:
/// this guards against hangs, it does not measure speed.
pub(crate) async fn guarded<F: Future>(f: F) -> F::Output {
    tokio::time::timeout(Duration::from_secs(120), f)
        .await
        .expect("file operation hung")
}

fn dbg<T: std::fmt::Debug>(r: Result<T, FsError>) -> Result<String, FsError> {
    r.map(|v| format!("{v:?}"))
}

/// Runs every path-taking operation on `path` and returns what each produced, as text
/// (errors as their message, media decoded from base64). Writes and edits try to plant
/// `PWNED`; `create_directory` and moves try to make entries.
pub(crate) async fn every_operation(
    files: &FileService,
    path: &str,
) -> Vec<(&'static str, Result<String, FsError>)> {
    use base64::Engine as _;
    let text = |r: Result<String, FsError>| r;
    let none: &[String] = &[];
    let mut out = vec![
        (
            "read_text",
            text(guarded(files.read_text_file(path, LineRange::All)).await),
        ),
        (
            "head",
            text(guarded(files.read_text_file(path, LineRange::Head(5))).await),
        ),
        (
            "tail",
            text(guarded(files.read_text_file(path, LineRange::Tail(5))).await),
        ),
        (
            "read_bytes",
            guarded(files.read_file_bytes(path))
                .await
                .map(|b| String::from_utf8_lossy(&b).into_owned()),
        ),
        (
            "read_media",
            guarded(files.read_media_file(path)).await.map(|m| {
                let bytes = base64::engine::general_purpose::STANDARD
                    .decode(&m.data_base64)
                    .unwrap();
                String::from_utf8_lossy(&bytes).into_owned()
            }),
        ),
        (
            "edit",
            guarded(files.edit_file(path, vec![TextEdit::new(SECRET, "PWNED")], false))
                .await
                .map(|o| o.diff),
        ),
        (
            "edit_dry_run",
            guarded(files.edit_file(path, vec![TextEdit::new("e", "E")], true))
                .await
                .map(|o| o.diff),
        ),
        ("info", dbg(guarded(files.get_file_info(path)).await)),
        ("list", dbg(guarded(files.list_directory(path)).await)),
        (
            "tree",
            guarded(files.directory_tree(path, none))
                .await
                .map(|t| t.to_json()),
        ),
        (
            "search",
            dbg(guarded(files.search_files(path, "**/*", none)).await),
        ),
        (
            "move_from",
            dbg(guarded(files.move_file(path, "moved-here.txt")).await),
        ),
    ];
    // Put a moved file back so later operations see the same state.
    if out.last().is_some_and(|(_, r)| r.is_ok()) {
        let _ = files.move_file("moved-here.txt", path).await;
    }
    out.push(("write", dbg(guarded(files.write_file(path, "PWNED")).await)));
    out.push((
        "create_directory",
        dbg(guarded(files.create_directory(&format!("{path}/newdir"))).await),
    ));
    out.push((
        "move_to",
        dbg(guarded(files.move_file("notes.txt", path)).await),
    ));
    if out.last().is_some_and(|(_, r)| r.is_ok()) {
        let _ = files.move_file(path, "notes.txt").await;
    }
    out
}

/// Asserts no result or error text carries the secret or names a place outside that the
/// request itself did not name.
pub(crate) fn assert_no_leak(
    fx: &Fixture,
    path: &str,
    results: &[(&str, Result<String, FsError>)],
) {
    for (op, r) in results {
        let text = match r {
            Ok(t) => t.clone(),
            Err(e) => e.to_string(),
        };
        assert!(
            !text.contains(SECRET),
            "{op} on {path:?} leaked the secret: {text}"
        );
        let outside = s(&fx.outside);
        if !path.contains(&outside) {
            assert!(
                !text.contains(&outside),
                "{op} on {path:?} named the outside directory: {text}"
            );
        }
        if let Ok(t) = r {
            assert!(
                !t.contains("deep.txt"),
                "{op} on {path:?} listed outside: {t}"
            );
        }
    }
}

/// Asserts every operation on `path` failed, each with one of `kinds`, leaking nothing and
/// changing nothing outside.
pub(crate) async fn assert_all_refused(fx: &Fixture, path: &str, kinds: &[FsErrorKind]) {
    assert_refused_except(fx, path, kinds, &[]).await;
}

/// Like [`assert_all_refused`], but the operations named in `may_succeed` may succeed (a
/// move of a symlink moves the link itself, which is harmless).
pub(crate) async fn assert_refused_except(
    fx: &Fixture,
    path: &str,
    kinds: &[FsErrorKind],
    may_succeed: &[&str],
) {
    let before = fx.forbidden();
    let results = every_operation(&fx.files, path).await;
    assert_no_leak(fx, path, &results);
    for (op, r) in &results {
        match r {
            Ok(_) if may_succeed.contains(op) => {}
            Ok(v) => panic!("{op} on {path:?} succeeded: {v}"),
            Err(e) => assert!(
                kinds.contains(&e.kind()),
                "{op} on {path:?}: unexpected {:?}: {e}",
                e.kind()
            ),
        }
    }
    assert_eq!(
        before,
        fx.forbidden(),
        "operations on {path:?} changed the outside"
    );
}

/// Sets a file's modification time `ago` in the past (a leftover found after a restart).
pub(crate) fn set_idle(path: &Path, ago: std::time::Duration) {
    let file = std::fs::File::options().append(true).open(path).unwrap();
    file.set_modified(std::time::SystemTime::now() - ago)
        .unwrap();
}
