//! `file-server` killed (SIGKILL) in the middle of `write_file`, 50 times at varying moments.
//!
//! What is guaranteed, and checked here (the mechanism is in `mcp_runtime::fs`, `atomic.rs`):
//! - the target holds its old content or the new one, never a mix or a truncated file;
//! - nothing is ever created outside the allowed directory;
//! - inside it, the only possible leftover is one *complete* temporary file
//!   `.mcp-tmp-<pid of the killed server>-<hex>-<mark>` beside the target: on Linux the new
//!   content is written to an anonymous `O_TMPFILE` that has no name until it is complete,
//!   and it is named only for the instant between linking it and renaming it over an
//!   existing target;
//! - the next `file-server` started on that directory deletes such a file before it serves:
//!   at once, since the file was locked by its writer before it had a name and the lock died
//!   with the writer. Where this directory's file system has no `O_TMPFILE` (or no locks),
//!   files are named from their creation, so a kill mid-write leaves the beginning of a
//!   content, and a sweep takes it only once idle for `STALE_AFTER`: the test then sets its
//!   modification time back, as a restart a while later finds it.
//!
//! Each run starts a server on the same directory (so each start also cleans up after the
//! previous kill), keeps it busy rewriting a 4 MiB file with all-`A` and all-`B` content, and
//! kills it: every fifth run after a varying delay (so kills land anywhere, the transfer of
//! the request included), the others once a temporary file is open in the server (seen in
//! `/proc/<pid>/fd`), plus a varying number of polls more, so the kill lands inside the write,
//! the `fsync`, the link or the rename. Bounded: no wait is longer than 30 s.

use crate::fs_support::set_idle;
use crate::fs_tools_support::*;
use mcp_runtime::client::EraMode;
use mcp_runtime::fs::TEMP_PREFIX;
use serde_json::json;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

const RUNS: u64 = 50;
const SIZE: usize = 4 << 20;

/// Whether the server `pid` has a file open in `root` other than the root itself and the
/// target: the temporary file of a write (anonymous ones read as `root/#123 (deleted)`).
fn writing(pid: u32, root: &Path, target: &Path) -> bool {
    let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fd")) else {
        return false;
    };
    fds.flatten().any(|fd| {
        std::fs::read_link(fd.path()).is_ok_and(|l| l.starts_with(root) && l != root && l != target)
    })
}

/// Polls until the server is writing (or 30 s pass, or the process is gone); then `extra`
/// polls more.
fn wait_until_writing(pid: u32, root: PathBuf, target: PathBuf, extra: u64) -> bool {
    let deadline = Instant::now() + Duration::from_secs(30);
    while !writing(pid, &root, &target) {
        if Instant::now() > deadline || !Path::new(&format!("/proc/{pid}")).exists() {
            return false;
        }
        std::thread::yield_now();
    }
    for _ in 0..extra {
        let _ = writing(pid, &root, &target);
    }
    true
}

fn complete(bytes: &[u8]) -> bool {
    bytes == b"initial"
        || (bytes.len() == SIZE
            && (bytes.iter().all(|&b| b == b'A') || bytes.iter().all(|&b| b == b'B')))
}

/// Whether writes into `dir` take the anonymous, locked way (`O_TMPFILE` and `flock` work
/// there), whose leftovers the next start removes at once.
fn anonymous_writes(dir: &Path) -> bool {
    use rustix::fs::{FlockOperation, Mode, OFlags};
    let flags = OFlags::WRONLY | OFlags::TMPFILE | OFlags::CLOEXEC;
    rustix::fs::open(dir, flags, Mode::from_raw_mode(0o600))
        .is_ok_and(|fd| rustix::fs::flock(&fd, FlockOperation::NonBlockingLockExclusive).is_ok())
}

/// The names in `dir`.
fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    v.sort();
    v
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn killed_mid_write_leaves_old_or_new_content_and_no_stray_file() {
    let tmp = tempfile::tempdir().unwrap();
    let base = tmp.path().canonicalize().unwrap();
    let root = base.join("root");
    std::fs::create_dir(&root).unwrap();
    let target = root.join("target.txt");
    std::fs::write(&target, "initial").unwrap();
    let contents = [
        String::from_utf8(vec![b'A'; SIZE]).unwrap(),
        String::from_utf8(vec![b'B'; SIZE]).unwrap(),
    ];
    let anonymous = anonymous_writes(&root);
    let (mut seen_writing, mut leftovers) = (0, 0);
    for run in 0..RUNS {
        let client = file_server([root.to_str().unwrap()], EraMode::Legacy).await;
        // The start cleaned up after the previous kill (at once: its writer is gone): only
        // the target is left.
        assert_eq!(
            names(&root),
            ["target.txt"],
            "run {run}: after the start's cleanup"
        );
        let pid = client.process_id().expect("a child process");
        let writer = tokio::spawn({
            let client = client.clone();
            let contents = contents.clone();
            async move {
                for i in run.. {
                    let content = &contents[(i % 2) as usize];
                    let args = json!({"path": "target.txt", "content": content});
                    match client.call_tool("write_file", args).await {
                        Ok(r) if !r.is_error() => {}
                        Ok(r) => panic!("write_file failed: {r:?}"),
                        Err(_) => return, // killed
                    }
                }
            }
        });
        if run % 5 == 0 {
            tokio::time::sleep(Duration::from_millis(run * 7 % 120)).await;
        } else {
            let (r, t) = (root.clone(), target.clone());
            let extra = run * 37 % 400;
            let found = tokio::task::spawn_blocking(move || wait_until_writing(pid, r, t, extra))
                .await
                .unwrap();
            seen_writing += u64::from(found);
        }
        rustix::process::kill_process(
            rustix::process::Pid::from_raw(pid as i32).expect("a valid pid"),
            rustix::process::Signal::KILL,
        )
        .expect("the server can be killed");
        // Waits for the process to be gone: nothing changes after this.
        client.close().await.unwrap();
        // The writer's request in flight may never be answered now: stop it (keeping a panic
        // it may have had, a failed write).
        writer.abort();
        if let Err(e) = writer.await
            && e.is_panic()
        {
            std::panic::resume_unwind(e.into_panic());
        }

        let content = std::fs::read(&target).unwrap();
        assert!(
            complete(&content),
            "run {run}: a partial file of {} bytes",
            content.len()
        );
        assert_eq!(names(&base), ["root"], "run {run}: a file outside the root");
        for name in names(&root) {
            if name == "target.txt" {
                continue;
            }
            assert!(
                name.starts_with(&format!("{TEMP_PREFIX}{pid}-")),
                "run {run}: stray file {name}"
            );
            let left = std::fs::read(root.join(&name)).unwrap();
            if anonymous {
                assert!(
                    left.len() == SIZE && complete(&left),
                    "run {run}: an incomplete temporary file"
                );
            } else {
                // Named from its creation, so killed while being written: any beginning of a
                // content; swept once idle (see the module documentation).
                assert!(
                    contents.iter().any(|c| c.as_bytes().starts_with(&left)),
                    "run {run}: a temporary file of neither content"
                );
                set_idle(&root.join(&name), mcp_runtime::fs::STALE_AFTER * 2);
            }
            leftovers += 1;
        }
    }
    // The last kill's leftovers go at the next start too.
    let client = file_server([root.to_str().unwrap()], EraMode::Legacy).await;
    assert_eq!(names(&root), ["target.txt"]);
    client.close().await.unwrap();
    eprintln!(
        "file-server kill test: {RUNS} runs, {seen_writing} killed while a temporary file was \
         open, {leftovers} complete temporary files left by a kill and cleaned at the next start \
         ({})",
        if anonymous {
            "anonymous, locked writes: at once"
        } else {
            "named writes: once idle"
        }
    );
}
