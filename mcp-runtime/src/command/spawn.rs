//! Starting a child: the one place in the crate with `unsafe`.
//!
//! What must happen in the child between `fork` and `exec` (entering the working directory
//! by descriptor, `no_new_privs`, resource limits) can only be done in a `pre_exec` hook, and
//! `Command::pre_exec` is `unsafe`: the closure runs in a forked copy of a multi-threaded
//! process, where only async-signal-safe calls are allowed. Doing it after `spawn` instead
//! (`prlimit` on the child's pid) would leave the program running, unbounded, for as long as
//! the parent takes; doing it in a wrapper program would add a process and a dependency.
//! The crate's lint is `deny(unsafe_code)`; this module alone allows it.
#![allow(unsafe_code)]

use super::policy::ResourceLimits;
use std::io;
use std::os::fd::{AsRawFd, BorrowedFd, OwnedFd};

/// Sets up `command`'s child: its own process group (so the whole group can be killed),
/// the working directory `dir` entered by descriptor, `no_new_privs`, and `limits`.
pub(crate) fn confine(
    command: &mut tokio::process::Command,
    dir: &OwnedFd,
    limits: ResourceLimits,
) {
    command.process_group(0);
    let dir = dir.as_raw_fd();
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
}
