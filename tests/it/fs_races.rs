//! Races and crashes against the FileService: a concurrent swapper exchanging what a path
//! names (a directory or a file for a symlink out of the root, a file for a FIFO) while the
//! service works on it, and writers killed mid-write.
//!
//! Bounded in iterations; the outcome of each operation depends on timing, but the assertions
//! do not: whatever the interleaving, nothing outside is ever read or written, and a killed
//! write leaves the old content or the new.

use crate::fs_support::*;
use mcp_runtime::fs::{FileService, FsErrorKind, FsPolicy, LineRange, TEMP_PREFIX, TextEdit};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Operations of each kind per race test.
const OPS: usize = 800;
/// The swapper stops by itself after this many swaps, whatever happens to the test.
const MAX_SWAPS: usize = 5_000_000;

/// A thread that keeps changing what a path names until stopped.
struct Swapper {
    stop: Arc<AtomicBool>,
    swaps: Arc<AtomicUsize>,
    handle: Option<JoinHandle<()>>,
}

impl Swapper {
    fn start(mut step: impl FnMut() + Send + 'static) -> Self {
        let stop = Arc::new(AtomicBool::new(false));
        let swaps = Arc::new(AtomicUsize::new(0));
        let (st, sw) = (stop.clone(), swaps.clone());
        let handle = std::thread::spawn(move || {
            while !st.load(Ordering::Relaxed) && sw.load(Ordering::Relaxed) < MAX_SWAPS {
                step();
                sw.fetch_add(1, Ordering::Relaxed);
            }
        });
        // Start racing only once the swapper runs, so every test really races.
        while swaps.load(Ordering::Relaxed) == 0 {
            std::thread::yield_now();
        }
        Self {
            stop,
            swaps,
            handle: Some(handle),
        }
    }

    fn finish(mut self) -> usize {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(h) = self.handle.take() {
            h.join().expect("swapper panicked");
        }
        self.swaps.load(Ordering::Relaxed)
    }
}

impl Drop for Swapper {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// Atomically exchanges two names (`renameat2(RENAME_EXCHANGE)`).
fn exchange(a: &Path, b: &Path) {
    use rustix::fs::{CWD, RenameFlags, renameat_with};
    renameat_with(CWD, a, CWD, b, RenameFlags::EXCHANGE).expect("exchange");
}

fn no_secret<T: std::fmt::Debug>(what: &str, r: &Result<T, mcp_runtime::fs::FsError>) {
    let text = match r {
        Ok(v) => format!("{v:?}"),
        Err(e) => e.to_string(),
    };
    assert!(!text.contains(SECRET), "{what} leaked: {text}");
    assert!(!text.contains("deep.txt"), "{what} listed outside: {text}");
}

async fn dir_swap_race(link_target: impl FnOnce(&Fixture) -> PathBuf) {
    let fx = fixture();
    let link_target = link_target(&fx);
    std::fs::write(fx.outside.join("f.txt"), SECRET).unwrap();
    fx.write("d/f.txt", "inside");
    std::os::unix::fs::symlink(&link_target, fx.root.join("d_alt")).unwrap();
    let before = fx.forbidden();
    let (d, alt) = (fx.root.join("d"), fx.root.join("d_alt"));
    let swapper = Swapper::start(move || exchange(&d, &alt));
    let mut reads_ok = 0;
    for i in 0..OPS {
        let r = fx.read("d/f.txt").await;
        no_secret("read", &r);
        if let Ok(t) = &r {
            assert_eq!(t, "inside");
            reads_ok += 1;
        }
        let w = fx.files.write_file("d/w.txt", format!("write {i}")).await;
        no_secret("write", &w);
        no_secret("list", &fx.files.list_directory("d").await);
        no_secret("info", &fx.files.get_file_info("d/f.txt").await);
        no_secret("mkdir", &fx.files.create_directory("d/nd/deeper").await);
        let e = fx
            .files
            .edit_file("d/f.txt", vec![TextEdit::new("inside", "inside")], false);
        no_secret("edit", &e.await);
        if i % 20 == 0 {
            no_secret(
                "tree",
                &fx.files.directory_tree(".", &[]).await.map(|t| t.to_json()),
            );
            no_secret("search", &fx.files.search_files(".", "**/*", &[]).await);
            let m = fx.files.move_file("d/w.txt", "moved.txt").await;
            no_secret("move", &m);
            if m.is_ok() {
                let _ = fx.files.move_file("moved.txt", "d/w.txt").await;
            }
        }
    }
    let swaps = swapper.finish();
    assert!(swaps > 0);
    assert_eq!(
        before,
        fx.forbidden(),
        "the outside changed during the race"
    );
    eprintln!("dir swap race: {swaps} swaps, {reads_ok}/{OPS} reads inside, none outside");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn directory_swapped_for_absolute_symlink_never_escapes() {
    dir_swap_race(|fx| fx.outside.clone()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn directory_swapped_for_relative_symlink_never_escapes() {
    dir_swap_race(|_| PathBuf::from("../outside")).await;
}

async fn file_swap_race(link_target: impl FnOnce(&Fixture) -> PathBuf) {
    let fx = fixture();
    let link_target = link_target(&fx);
    fx.write("f.txt", "inside");
    let before = fx.forbidden();
    let root = fx.root.clone();
    // Alternately put a symlink out and a regular file at `f.txt`, each atomically.
    let swapper = Swapper::start(move || {
        let (lnk, reg, f) = (
            root.join("lnk.tmp"),
            root.join("reg.tmp"),
            root.join("f.txt"),
        );
        let _ = std::fs::remove_file(&lnk);
        std::os::unix::fs::symlink(&link_target, &lnk).unwrap();
        std::fs::rename(&lnk, &f).unwrap();
        std::fs::write(&reg, "inside").unwrap();
        std::fs::rename(&reg, &f).unwrap();
    });
    for i in 0..OPS {
        let r = fx.read("f.txt").await;
        no_secret("read", &r);
        if let Ok(t) = &r {
            assert!(t == "inside" || t.starts_with("written"), "{t}");
        }
        no_secret(
            "tail",
            &fx.files.read_text_file("f.txt", LineRange::Tail(1)).await,
        );
        no_secret(
            "media",
            &fx.files
                .read_media_file("f.txt")
                .await
                .map(|m| m.data_base64),
        );
        no_secret(
            "info",
            &fx.files.get_file_info("f.txt").await.map(|i| i.size),
        );
        no_secret(
            "write",
            &fx.files.write_file("f.txt", format!("written {i}")).await,
        );
        let e = fx
            .files
            .edit_file("f.txt", vec![TextEdit::new("i", "i")], false);
        no_secret("edit", &e.await);
    }
    let swaps = swapper.finish();
    assert!(swaps > 0);
    assert_eq!(
        before,
        fx.forbidden(),
        "the outside changed during the race"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn file_swapped_for_absolute_symlink_never_escapes() {
    file_swap_race(|fx| fx.outside.join("secret.txt")).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn file_swapped_for_relative_symlink_never_escapes() {
    file_swap_race(|_| PathBuf::from("../outside/secret.txt")).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn file_swapped_for_a_fifo_never_blocks() {
    use rustix::fs::{CWD, FileType, Mode, mknodat};
    let fx = fixture();
    let root = fx.root.clone();
    fx.write("p.txt", "regular");
    let swapper = Swapper::start(move || {
        let (fifo, reg, p) = (
            root.join("fifo.tmp"),
            root.join("reg.tmp"),
            root.join("p.txt"),
        );
        let _ = std::fs::remove_file(&fifo);
        mknodat(CWD, &fifo, FileType::Fifo, Mode::from_raw_mode(0o644), 0).unwrap();
        std::fs::rename(&fifo, &p).unwrap();
        std::fs::write(&reg, "regular").unwrap();
        std::fs::rename(&reg, &p).unwrap();
    });
    for _ in 0..OPS {
        match fx.read("p.txt").await {
            Ok(t) => assert!(t == "regular" || t == "written", "{t}"),
            Err(e) => assert!(
                matches!(
                    e.kind(),
                    FsErrorKind::NotAFile | FsErrorKind::NotFound | FsErrorKind::SymlinkLoop
                ),
                "{e}"
            ),
        }
        let _ = guarded(fx.files.write_file("p.txt", "written")).await;
        let _ = guarded(fx.files.read_text_file("p.txt", LineRange::Head(1))).await;
    }
    assert!(swapper.finish() > 0);
}

// ---- Killed mid-write -------------------------------------------------------------------

const CHILD_ENV: &str = "MCP_FS_KILL_CHILD_DIR";
const CHILD_STARTED: &str = "MCP-FS-CHILD-WRITING";
const CHILD_SIZE: usize = 4 << 20;
const KILL_RUNS: u64 = 50;
/// The padding of `edited.txt`: 2,000 lines, so an edit rewrites a file of some size.
const EDIT_PADDING: &str = "padding line, kept as it is by every edit\n";
const EDIT_LINES: usize = 2_000;

/// `edited.txt` in state `n`.
fn edited(n: u64) -> String {
    format!("state: {n}\n{}", EDIT_PADDING.repeat(EDIT_LINES))
}

/// Not a test on its own: the child process of
/// [`killed_writers_leave_old_or_new_content_and_no_stray_file`], which re-runs this test
/// binary with `CHILD_ENV` set. It rewrites `target.txt` with 4 MiB of `A`s, then of `B`s,
/// and so on, until killed (or after a minute, so it can never outlive a broken parent).
#[test]
fn kill_child_writer() {
    let Ok(dir) = std::env::var(CHILD_ENV) else {
        return;
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .build()
        .unwrap();
    rt.block_on(async {
        let policy = FsPolicy::new()
            .allow_dir(dir)
            .max_write_bytes(CHILD_SIZE as u64);
        let files = FileService::new(policy).unwrap();
        let mut out = std::io::stdout();
        writeln!(out, "{CHILD_STARTED}").unwrap();
        out.flush().unwrap();
        let deadline = Instant::now() + Duration::from_secs(60);
        // Two writers race on `target.txt`; an editor steps `edited.txt` from state to state.
        let writers: Vec<_> = (0..2)
            .map(|w| {
                let files = files.clone();
                tokio::spawn(async move {
                    let contents = [vec![b'A'; CHILD_SIZE], vec![b'B'; CHILD_SIZE]];
                    let mut i = w;
                    while Instant::now() < deadline {
                        files
                            .write_file("target.txt", contents[i % 2].clone())
                            .await
                            .unwrap();
                        i += 1;
                    }
                })
            })
            .collect();
        let editor = tokio::spawn(async move {
            let mut n = 0;
            while Instant::now() < deadline {
                let edit = TextEdit::new(format!("state: {n}\n"), format!("state: {}\n", n + 1));
                files
                    .edit_file("edited.txt", vec![edit], false)
                    .await
                    .unwrap();
                n += 1;
            }
        });
        for task in writers.into_iter().chain([editor]) {
            task.await.unwrap();
        }
    });
}

#[test]
fn killed_writers_leave_old_or_new_content_and_no_stray_file() {
    // This very test binary; through /proc so a rebuild replacing the file meanwhile does
    // not matter.
    let proc_exe = Path::new("/proc/self/exe");
    let exe = if proc_exe.exists() {
        proc_exe.to_path_buf()
    } else {
        std::env::current_exe().unwrap()
    };
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let mut named_leftovers = 0;
    for run in 0..KILL_RUNS {
        let tmp = tempfile::tempdir().unwrap();
        let target = tmp.path().join("target.txt");
        std::fs::write(&target, "initial").unwrap();
        let edited_path = tmp.path().join("edited.txt");
        std::fs::write(&edited_path, edited(0)).unwrap();
        let mut child = Command::new(&exe)
            .args(["fs_races::kill_child_writer", "--exact", "--nocapture"])
            .args(["--test-threads=1"])
            .env(CHILD_ENV, tmp.path())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        // The harness may print "test … ... " on the same line first.
        let started = lines.any(|l| l.is_ok_and(|l| l.contains(CHILD_STARTED)));
        assert!(started, "the child writer exited before writing");
        // Kill at a different moment of the write cycle each run.
        std::thread::sleep(Duration::from_millis(run * 7 % 45));
        child.kill().unwrap();
        child.wait().unwrap();
        drop(lines);

        let complete = |bytes: &[u8]| {
            bytes == b"initial"
                || (bytes.len() == CHILD_SIZE
                    && (bytes.iter().all(|&b| b == b'A') || bytes.iter().all(|&b| b == b'B')))
        };
        let content = std::fs::read(&target).unwrap();
        assert!(
            complete(&content),
            "run {run}: partial file of {} bytes",
            content.len()
        );
        // The edited file is in one of its states, whole.
        let text = std::fs::read_to_string(&edited_path).unwrap();
        let state = text
            .strip_prefix("state: ")
            .and_then(|rest| rest.split_once('\n'))
            .and_then(|(n, _)| n.parse::<u64>().ok());
        let edited_whole = |text: &str| state.is_some_and(|n| text == edited(n));
        assert!(
            edited_whole(&text),
            "run {run}: edited.txt is partial ({} bytes)",
            text.len()
        );
        // Nothing else, except (rarely) a complete temporary file from a kill between link
        // and rename, which the documented cleanup removes.
        for entry in std::fs::read_dir(tmp.path()).unwrap() {
            let entry = entry.unwrap();
            let name = entry.file_name().into_string().unwrap();
            if name == "target.txt" || name == "edited.txt" {
                continue;
            }
            assert!(
                name.starts_with(&format!("{TEMP_PREFIX}{}-", child.id())),
                "run {run}: stray file {name}"
            );
            let leftover = std::fs::read(entry.path()).unwrap();
            let leftover_text = String::from_utf8_lossy(&leftover);
            assert!(complete(&leftover) || leftover_text.starts_with("state: "));
            // As a restart a while later finds it (a sweep spares a file touched recently).
            set_idle(&entry.path(), mcp_runtime::fs::STALE_AFTER * 2);
            named_leftovers += 1;
        }
        let files = FileService::new(FsPolicy::new().allow_dir(tmp.path())).unwrap();
        rt.block_on(files.remove_stale_temp_files(".")).unwrap();
        let names: Vec<_> = std::fs::read_dir(tmp.path()).unwrap().collect();
        assert_eq!(names.len(), 2, "run {run}: files left after cleanup");
    }
    eprintln!("kill test: {KILL_RUNS} runs, {named_leftovers} complete temporary files cleaned");
}

/// Unmounts the small file system of the disk-full test, however it ends.
struct Mounted(PathBuf);

impl Drop for Mounted {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
    }
}

#[tokio::test]
async fn a_write_that_fills_the_disk_leaves_the_old_content_and_no_temporary_file() {
    let tmp = tempfile::tempdir().unwrap();
    let mounted = Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=1m", "tmpfs"])
        .arg(tmp.path())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !mounted {
        eprintln!("skipped: this machine does not let the test mount a small tmpfs");
        return;
    }
    let _unmount = Mounted(tmp.path().to_path_buf());
    std::fs::write(tmp.path().join("notes.txt"), "the old content").unwrap();
    let files = FileService::new(FsPolicy::new().allow_dir(tmp.path())).unwrap();
    // 2 MiB into a 1 MiB file system: the write fails with the disk full.
    let e = files
        .write_file("notes.txt", vec![b'x'; 2 << 20])
        .await
        .unwrap_err();
    assert!(e.to_string().to_lowercase().contains("space"), "{e}");
    assert_eq!(
        std::fs::read_to_string(tmp.path().join("notes.txt")).unwrap(),
        "the old content"
    );
    // A new file that does not fit is not left half-written either.
    assert!(
        files
            .write_file("new.txt", vec![b'y'; 2 << 20])
            .await
            .is_err()
    );
    let names: Vec<String> = std::fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(names, ["notes.txt"], "nothing but the old file remains");
}
