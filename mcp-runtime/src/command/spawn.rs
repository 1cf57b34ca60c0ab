//! Starting a child and ending its whole process tree: with `crate::windows`, the only
//! places in the crate with `unsafe`.
//!
//! **Unix.**
//! What must happen in the child between `fork` and `exec` (entering the working directory
//! by descriptor, `no_new_privs`, resource limits) can only be done in a `pre_exec` hook, and
//! `Command::pre_exec` is `unsafe`: the closure runs in a forked copy of a multi-threaded
//! process, where only async-signal-safe calls are allowed. Doing it after `spawn` instead
//! (`prlimit` on the child's pid) would leave the program running, unbounded, for as long as
//! the parent takes; doing it in a wrapper program would add a process and a dependency.
//!
//! **Windows.** No code runs in the child before the program: the child is created suspended
//! (by `process-wrap`), put in a new Job object with `JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE`,
//! then resumed, so every process it starts is in the job from its first instruction, and
//! terminating the job (timeout, cancel, drop) ends them all. The working directory is the
//! path Windows reports for the directory handle the `FileService` opened, held open until
//! the child runs. Resource limits cannot be set there: `CommandService::new` refuses a
//! policy that sets them.
//!
//! The crate's lint is `deny(unsafe_code)`; this module and `crate::windows` allow it.
#![allow(unsafe_code)]

use super::policy::ResourceLimits;
use cap_std::fs::Dir;
use std::io;
use std::process::ExitStatus;
use tokio::process::{ChildStderr, ChildStdin, ChildStdout};

/// Sets up `command`'s child: its own process group (so the whole group can be killed),
/// the working directory `dir` entered by descriptor, `no_new_privs`, and `limits`.
#[cfg(unix)]
pub(crate) fn confine(
    command: &mut tokio::process::Command,
    dir: &Dir,
    limits: ResourceLimits,
) -> io::Result<()> {
    use std::os::fd::{AsFd as _, AsRawFd as _, BorrowedFd};
    command.process_group(0);
    let dir = dir.as_fd().as_raw_fd();
    let limits = [
        (rustix::process::Resource::Cpu, limits.cpu_seconds),
        (rustix::process::Resource::As, limits.address_space),
        (rustix::process::Resource::Nofile, limits.open_files),
        (rustix::process::Resource::Nproc, limits.processes),
    ];
    // SAFETY: the closure only makes system calls through rustix, which are async-signal-safe
    // (no allocation, no lock, no panic path: every error is returned, and `limits` is an
    // array copied in before the fork). `dir` is the descriptor of `OwnedFd` the caller
    // keeps open until `spawn` returns, which is after this closure ran in the child; the
    // child's copy of it is valid until `exec` closes it (it is `O_CLOEXEC`).
    unsafe {
        command.pre_exec(move || {
            let dir = BorrowedFd::borrow_raw(dir);
            rustix::process::fchdir(dir)?;
            #[cfg(any(target_os = "linux", target_os = "android"))]
            rustix::thread::set_no_new_privs(true)?;
            // The program adopts its orphans (a grandchild whose parent exited, one that
            // double-forked): while it runs, its whole tree stays its own, and is found from
            // it (`sweep`). The flag survives `exec`; rustix takes any pid as "on".
            #[cfg(any(target_os = "linux", target_os = "android"))]
            rustix::process::set_child_subreaper(Some(rustix::process::Pid::INIT))?;
            for (resource, limit) in limits {
                if let Some(limit) = limit {
                    // Never above the hard limit the server has: raising it is not ours to do.
                    let hard = rustix::process::getrlimit(resource).maximum;
                    let limit = hard.map_or(limit, |hard| hard.min(limit));
                    let limit = rustix::process::Rlimit {
                        current: Some(limit),
                        maximum: Some(limit),
                    };
                    rustix::process::setrlimit(resource, limit).map_err(io::Error::from)?;
                }
            }
            Ok(())
        });
    }
    Ok(())
}

/// Sets up `command`'s child: the working directory `dir` (by the path Windows gives its
/// handle). Explicit resource limits were refused when the service was built (Windows has
/// no way to set them before the program runs); the CPU bound derived from the timeout is
/// not needed, since the timeout ends the whole job.
#[cfg(windows)]
pub(crate) fn confine(
    command: &mut tokio::process::Command,
    dir: &Dir,
    _: ResourceLimits,
) -> io::Result<()> {
    use std::os::windows::io::AsHandle as _;
    command.current_dir(crate::windows::final_path(dir.as_handle())?);
    Ok(())
}

/// A started program and every process it starts: all killed by [`Child::kill_tree`] and
/// when this is dropped (a cancelled call).
pub(crate) struct Child {
    #[cfg(unix)]
    child: tokio::process::Child,
    /// The process group (Unix): the child's id, as it leads its group.
    #[cfg(unix)]
    group: Option<u32>,
    /// The run's [`RUN_MARKER`](super::RUN_MARKER) value (Linux: found in `/proc`).
    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    marker: String,
    /// Whether the program was waited for: its id may belong to another process since.
    #[cfg(unix)]
    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    reaped: bool,
    #[cfg(windows)]
    child: Box<dyn process_wrap::tokio::ChildWrapper>,
}

impl Child {
    /// Starts `command`, set up by [`confine`].
    #[cfg(unix)]
    pub(crate) fn spawn(mut command: tokio::process::Command, marker: String) -> io::Result<Self> {
        let child = command.kill_on_drop(true).spawn()?;
        let group = child.id();
        Ok(Self {
            child,
            group,
            marker,
            reaped: false,
        })
    }

    /// Starts `command`, set up by [`confine`], inside its Job object.
    #[cfg(windows)]
    pub(crate) fn spawn(mut command: tokio::process::Command, marker: String) -> io::Result<Self> {
        use process_wrap::tokio::{CommandWrap, JobObject, KillOnDrop};
        command.kill_on_drop(true);
        let child = CommandWrap::from(command)
            .wrap(JobObject)
            .wrap(KillOnDrop)
            .spawn()?;
        Ok(Self { child, marker })
    }

    /// The child's pipes, once.
    pub(crate) fn take_pipes(
        &mut self,
    ) -> (Option<ChildStdin>, Option<ChildStdout>, Option<ChildStderr>) {
        #[cfg(unix)]
        return (
            self.child.stdin.take(),
            self.child.stdout.take(),
            self.child.stderr.take(),
        );
        #[cfg(windows)]
        return (
            self.child.stdin().take(),
            self.child.stdout().take(),
            self.child.stderr().take(),
        );
    }

    /// Waits for the program to end (on Windows: every process of its job).
    pub(crate) async fn wait(&mut self) -> Option<ExitStatus> {
        let status = self.child.wait().await.ok();
        #[cfg(unix)]
        {
            self.reaped = true;
        }
        status
    }

    /// Kills the whole tree now; one already gone is no error.
    pub(crate) fn kill_tree(&mut self) {
        #[cfg(unix)]
        if let Some(pid) = self
            .group
            .and_then(|p| rustix::process::Pid::from_raw(p as i32))
        {
            // ESRCH (the group is gone) is the usual answer and not an error.
            let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
        }
        // Its tree only while its id is surely still its own.
        #[cfg(target_os = "linux")]
        sweep(self.group.filter(|_| !self.reaped), &self.marker);
        #[cfg(windows)]
        let _ = self.child.start_kill();
    }
}

impl Drop for Child {
    fn drop(&mut self) {
        self.kill_tree();
    }
}

/// The exit code and (Unix) the signal that ended a program.
pub(crate) fn exit_of(status: ExitStatus) -> (Option<i32>, Option<i32>) {
    #[cfg(unix)]
    let signal = std::os::unix::process::ExitStatusExt::signal(&status);
    #[cfg(not(unix))]
    let signal = None;
    (status.code(), signal)
}

/// Kills, on Linux, what of a run is left outside its process group: the program's whole
/// tree while it lives (it adopts its orphans, see [`confine`]), and every process carrying
/// the run's marker in its environment (what a `setsid` grandchild or a double fork left
/// behind after the program exited). Repeated while it finds some, since a process may fork
/// while the others die; at most 16 passes. A process that cleared its environment and
/// left the tree after the program ended is beyond it: a cgroup is the deployment's tool for
/// that.
#[cfg(target_os = "linux")]
fn sweep(root: Option<u32>, marker: &str) {
    let needle = format!("{}={marker}\0", super::RUN_MARKER);
    for _ in 0..16 {
        let mut parents = std::collections::HashMap::new();
        let mut found = Vec::new();
        let Ok(entries) = std::fs::read_dir("/proc") else {
            return;
        };
        for entry in entries.flatten() {
            let Some(pid) = entry
                .file_name()
                .to_str()
                .and_then(|n| n.parse::<u32>().ok())
            else {
                continue;
            };
            let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
                continue;
            };
            // `pid (comm) state ppid ...`: the command may hold spaces and parentheses.
            let mut rest = stat
                .rsplit_once(')')
                .map_or("", |(_, r)| r)
                .split_whitespace();
            let (state, ppid) = (rest.next(), rest.next().and_then(|p| p.parse::<u32>().ok()));
            if matches!(state, Some("Z" | "X")) {
                continue;
            }
            if let Some(ppid) = ppid {
                parents.insert(pid, ppid);
            }
            let environ = std::fs::read(entry.path().join("environ")).unwrap_or_default();
            if environ
                .windows(needle.len())
                .any(|w| w == needle.as_bytes())
            {
                found.push(pid);
            }
        }
        if let Some(root) = root {
            for &pid in parents.keys() {
                let mut at = pid;
                // A chain longer than the table is a cycle of recycled ids: stop.
                for _ in 0..parents.len() {
                    match parents.get(&at) {
                        Some(&parent) if parent == root => {
                            found.push(pid);
                            break;
                        }
                        Some(&parent) if parent > 1 => at = parent,
                        _ => break,
                    }
                }
            }
        }
        found.retain(|&pid| Some(pid) != root && pid != std::process::id());
        found.sort_unstable();
        found.dedup();
        if found.is_empty() {
            return;
        }
        for pid in found {
            if let Some(pid) = rustix::process::Pid::from_raw(pid as i32) {
                let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
            }
        }
    }
}
