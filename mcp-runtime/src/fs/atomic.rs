//! Atomic replacement of a file: a temporary file in the same directory (created through the
//! directory handle), written, `fsync`ed, then renamed over the target with `renameat`.
//!
//! On Linux the temporary file is anonymous (`O_TMPFILE`): while it is being written it has
//! no name at all, so a process killed mid-write leaves nothing behind. It gets a name only
//! when complete: directly the target's, with `linkat` through `/proc/self/fd`, when the
//! target does not exist yet; otherwise a temporary name `.mcp-tmp-<pid>-<random>` followed at
//! once by `renameat` over the target. Only a kill in the instant between those two calls can
//! leave a (complete) `.mcp-tmp-*` file, inside the same directory; elsewhere, or without a
//! usable `/proc`, the file is named from the start. [`remove_stale`] deletes such files when
//! they are provably ours and abandoned: our marker in the name, our user, one link, idle for
//! [`STALE_AFTER`], their process gone (`FileService::remove_stale_temp_files`).
//!
//! We do not use `cap-tempfile`, which does the same dance, because its temporary names are
//! not recognisable as ours and it always goes through one, even for a new file.

use cap_fs_ext::{FollowSymlinks, OpenOptionsFollowExt};
use cap_std::fs::{Dir, OpenOptions, OpenOptionsExt};
use std::ffi::{OsStr, OsString};
use std::hash::{BuildHasher, Hasher};
use std::io::{self, Write};
use std::os::unix::fs::PermissionsExt as _;

/// The prefix of our temporary files' names.
pub const TEMP_PREFIX: &str = ".mcp-tmp-";

/// A temporary file in a directory, published with [`TempFile::publish`] or dropped.
pub(crate) struct TempFile<'d> {
    dir: &'d Dir,
    file: std::fs::File,
    /// The name, when the file has one before publishing (the portable path).
    name: Option<OsString>,
}

fn temp_name() -> OsString {
    temp_file_name(std::process::id())
}

/// The name a temporary file of process `pid` gets: [`TEMP_PREFIX`], the pid, 16 random hex
/// digits and an 8-digit check of the rest (the marker that tells our files from others
/// named alike). Public for tests and tools that simulate a leftover.
pub fn temp_file_name(pid: u32) -> OsString {
    // `RandomState` is seeded from the OS's randomness: enough to avoid collisions (which
    // are retried anyway), and no extra dependency.
    let random = std::collections::hash_map::RandomState::new()
        .build_hasher()
        .finish();
    let body = format!("{pid}-{random:016x}");
    OsString::from(format!("{TEMP_PREFIX}{body}-{}", check(&body)))
}

impl<'d> TempFile<'d> {
    /// Creates the temporary file; `mode` is the new file's permission bits before `umask`.
    pub(crate) fn create(dir: &'d Dir) -> io::Result<Self> {
        #[cfg(any(target_os = "linux", target_os = "android"))]
        if let Some(file) = anonymous(dir)? {
            return Ok(Self {
                dir,
                file,
                name: None,
            });
        }
        let mut options = OpenOptions::new();
        options
            .write(true)
            .create_new(true)
            .follow(FollowSymlinks::No)
            .mode(0o666);
        for _ in 0..100 {
            let name = temp_name();
            match dir.open_with(&name, &options) {
                Ok(file) => {
                    return Ok(Self {
                        dir,
                        file: file.into_std(),
                        name: Some(name),
                    });
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(e),
            }
        }
        Err(io::Error::from(io::ErrorKind::AlreadyExists))
    }

    /// Writes everything and flushes it to disk; sets the permission bits if given, without
    /// setuid, setgid and sticky: a file whose content a client wrote must never run with
    /// its owner's (or group's) privileges, whatever the file it replaces allowed.
    pub(crate) fn finish(&mut self, content: &[u8], mode: Option<u32>) -> io::Result<()> {
        self.file.write_all(content)?;
        if let Some(mode) = mode {
            self.file
                .set_permissions(std::fs::Permissions::from_mode(mode & 0o777))?;
        }
        self.file.sync_all()
    }

    /// Puts the file in place under `target`, replacing whatever is there (a symlink there is
    /// replaced, never followed). Then syncs the directory, best effort.
    pub(crate) fn publish(mut self, target: &OsStr) -> io::Result<()> {
        let result = match self.name.take() {
            Some(name) => rename_or_remove(self.dir, &name, target),
            #[cfg(any(target_os = "linux", target_os = "android"))]
            None => publish_anonymous(self.dir, &self.file, target),
            #[cfg(not(any(target_os = "linux", target_os = "android")))]
            None => unreachable!("anonymous temporary files exist only on Linux"),
        };
        if result.is_ok() {
            sync_dir(self.dir);
        }
        result
    }
}

impl Drop for TempFile<'_> {
    fn drop(&mut self) {
        if let Some(name) = self.name.take() {
            let _ = self.dir.remove_file(name);
        }
    }
}

fn rename_or_remove(dir: &Dir, from: &OsStr, to: &OsStr) -> io::Result<()> {
    dir.rename(from, dir, to).inspect_err(|_| {
        let _ = dir.remove_file(from);
    })
}

fn sync_dir(dir: &Dir) {
    use rustix::fs::{Mode, OFlags};
    // Directory handles are `O_PATH`, which cannot be synced: reopen "." (one component,
    // nothing to resolve) for reading.
    let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
    if let Ok(fd) = rustix::fs::openat(dir, ".", flags, Mode::empty()) {
        let _ = rustix::fs::fsync(fd);
    }
}

#[cfg(any(target_os = "linux", target_os = "android"))]
fn anonymous(dir: &Dir) -> io::Result<Option<std::fs::File>> {
    use rustix::fs::{Mode, OFlags};
    use rustix::io::Errno;
    // Without a usable /proc the file could not be linked into place later.
    if rustix_linux_procfs::proc_self_fd().is_err() {
        return Ok(None);
    }
    let flags = OFlags::WRONLY | OFlags::TMPFILE | OFlags::CLOEXEC;
    match rustix::fs::openat(dir, ".", flags, Mode::from_raw_mode(0o666)) {
        Ok(fd) => Ok(Some(std::fs::File::from(fd))),
        // Unsupported by the kernel or the file system.
        Err(Errno::OPNOTSUPP | Errno::ISDIR | Errno::NOENT | Errno::INVAL) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

#[cfg(any(target_os = "linux", target_os = "android"))]
fn publish_anonymous(dir: &Dir, file: &std::fs::File, target: &OsStr) -> io::Result<()> {
    use rustix::fs::AtFlags;
    use rustix::io::Errno;
    let proc_fd = rustix_linux_procfs::proc_self_fd()?;
    let fd_name = rustix::path::DecInt::from_fd(file);
    let link = |name: &OsStr| {
        rustix::fs::linkat(
            proc_fd,
            fd_name.as_c_str(),
            dir,
            name,
            AtFlags::SYMLINK_FOLLOW,
        )
    };
    // A new file: link it in under its own name, atomically and with no temporary name.
    match link(target) {
        Ok(()) => return Ok(()),
        Err(Errno::EXIST) => {}
        Err(e) => return Err(e.into()),
    }
    // Something is there: link under a temporary name, then rename over it.
    for _ in 0..100 {
        let name = temp_name();
        match link(&name) {
            Ok(()) => return rename_or_remove(dir, &name, target),
            Err(Errno::EXIST) => continue,
            Err(e) => return Err(e.into()),
        }
    }
    Err(io::Error::from(io::ErrorKind::AlreadyExists))
}

/// The marker of a temporary name: 8 hex digits of SHA-256 over a fixed label and `body`.
fn check(body: &str) -> String {
    use sha2::{Digest as _, Sha256};
    let digest = Sha256::new()
        .chain_update(b"mcp-runtime temporary file\0")
        .chain_update(body.as_bytes())
        .finalize();
    digest[..4].iter().map(|b| format!("{b:02x}")).collect()
}

/// The process id in one of our temporary names, if it is one (marker included).
pub(crate) fn temp_owner(name: &OsStr) -> Option<u32> {
    let rest = name.to_str()?.strip_prefix(TEMP_PREFIX)?;
    let (body, mark) = rest.rsplit_once('-')?;
    let (pid, random) = body.split_once('-')?;
    let well_formed =
        random.len() == 16 && random.bytes().all(|b| b.is_ascii_hexdigit()) && mark == check(body);
    well_formed.then(|| pid.parse().ok()).flatten()
}

/// How long a temporary file must have been left alone before a sweep may take it for a
/// leftover. On Linux a named temporary file lives for the instant between `linkat` and
/// `renameat`; elsewhere for one write. A minute covers a slow disk's `fsync`, and a writer
/// whose process the sweep cannot see (another PID namespace sharing the directory).
pub const STALE_AFTER: std::time::Duration = std::time::Duration::from_secs(60);

/// Removes the leftovers in `dir` (not below it) that are provably ours and abandoned: a
/// name we make (with its marker), a regular file with one link, owned by this process's
/// user, untouched for [`STALE_AFTER`], whose process no longer exists. Anything else that
/// merely looks like one is left alone. Returns how many were removed.
pub(crate) fn remove_stale(dir: &Dir) -> io::Result<usize> {
    use cap_std::fs::MetadataExt as _;
    let uid = rustix::process::geteuid().as_raw();
    let mut removed = 0;
    for entry in dir.entries()? {
        let name = entry?.file_name();
        let Some(pid) = temp_owner(&name) else {
            continue;
        };
        if pid == std::process::id() || process_exists(pid) {
            continue;
        }
        let Ok(meta) = dir.symlink_metadata(&name) else {
            continue;
        };
        let idle = meta
            .modified()
            .ok()
            .and_then(|m| m.into_std().elapsed().ok())
            .is_some_and(|idle| idle >= STALE_AFTER);
        let ours = meta.is_file() && meta.nlink() == 1 && meta.uid() == uid;
        if ours && idle && dir.remove_file(&name).is_ok() {
            removed += 1;
        }
    }
    Ok(removed)
}

fn process_exists(pid: u32) -> bool {
    let Some(pid) = i32::try_from(pid)
        .ok()
        .and_then(rustix::process::Pid::from_raw)
    else {
        return false;
    };
    // EPERM means it exists but belongs to someone else.
    !matches!(
        rustix::process::test_kill_process(pid),
        Err(rustix::io::Errno::SRCH)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use cap_std::ambient_authority;
    use cap_std::fs::PermissionsExt;

    fn names(dir: &Dir) -> Vec<String> {
        let mut v: Vec<String> = dir
            .entries()
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn replaces_and_creates_without_leftovers() {
        let t = tempfile::tempdir().unwrap();
        let dir = Dir::open_ambient_dir(t.path(), ambient_authority()).unwrap();
        let mut tmp = TempFile::create(&dir).unwrap();
        tmp.finish(b"one", None).unwrap();
        tmp.publish(OsStr::new("f")).unwrap();
        let mut tmp = TempFile::create(&dir).unwrap();
        tmp.finish(b"two", Some(0o600)).unwrap();
        tmp.publish(OsStr::new("f")).unwrap();
        assert_eq!(dir.read("f").unwrap(), b"two");
        assert_eq!(
            dir.metadata("f").unwrap().permissions().mode() & 0o777,
            0o600
        );
        // Replacing a setuid/setgid file keeps its permissions, not those bits.
        let mut tmp = TempFile::create(&dir).unwrap();
        tmp.finish(b"four", Some(0o6755)).unwrap();
        tmp.publish(OsStr::new("f")).unwrap();
        assert_eq!(
            dir.metadata("f").unwrap().permissions().mode() & 0o7777,
            0o755
        );
        // Dropped unpublished: nothing remains. On Linux the file never had a name.
        let mut tmp = TempFile::create(&dir).unwrap();
        tmp.finish(b"three", None).unwrap();
        if cfg!(target_os = "linux") {
            assert_eq!(names(&dir), ["f"]);
            assert!(tmp.name.is_none());
        }
        drop(tmp);
        assert_eq!(names(&dir), ["f"]);
    }

    /// Sets a file's modification time `ago` in the past.
    fn age(dir: &Dir, name: &str, ago: std::time::Duration) {
        let file = dir.open(name).unwrap().into_std();
        file.set_modified(std::time::SystemTime::now() - ago)
            .unwrap();
    }

    #[test]
    fn only_provably_abandoned_files_of_ours_are_removed() {
        let t = tempfile::tempdir().unwrap();
        let dir = Dir::open_ambient_dir(t.path(), ambient_authority()).unwrap();
        let old = STALE_AFTER + std::time::Duration::from_secs(5);
        // pid_max is at most 2^22, so this process cannot exist.
        let name = |pid| temp_file_name(pid).into_string().unwrap();
        let dead = name(99_999_999);
        let fresh = name(99_999_998);
        let mine = name(std::process::id());
        let linked = name(99_999_997);
        // Named like ours, without our marker (or with a wrong one): someone else's.
        let unmarked = format!("{TEMP_PREFIX}99999999-0123456789abcdef");
        let forged = format!("{TEMP_PREFIX}99999999-0123456789abcdef-00000000");
        for n in [
            &dead,
            &fresh,
            &mine,
            &linked,
            &unmarked,
            &forged,
            &"keep.txt".to_owned(),
        ] {
            dir.write(n, b"x").unwrap();
        }
        dir.hard_link(&linked, &dir, "other-name").unwrap();
        for n in [&dead, &mine, &linked, &unmarked, &forged] {
            age(&dir, n, old);
        }
        assert_eq!(temp_owner(OsStr::new(&dead)), Some(99_999_999));
        assert_eq!(temp_owner(OsStr::new(&unmarked)), None);
        assert_eq!(temp_owner(OsStr::new(&forged)), None);
        assert_eq!(remove_stale(&dir).unwrap(), 1);
        assert!(!names(&dir).contains(&dead));
        assert_eq!(names(&dir).len(), 7, "{:?}", names(&dir));
        // Once idle long enough, the fresh one goes too.
        age(&dir, &fresh, old);
        assert_eq!(remove_stale(&dir).unwrap(), 1);
    }

    #[test]
    #[allow(clippy::print_stderr)] // A skipped test says why.
    fn another_users_file_is_never_removed() {
        if !rustix::process::geteuid().is_root() {
            eprintln!("skipped: changing a file's owner needs root");
            return;
        }
        let t = tempfile::tempdir().unwrap();
        let dir = Dir::open_ambient_dir(t.path(), ambient_authority()).unwrap();
        let theirs = temp_file_name(99_999_999).into_string().unwrap();
        dir.write(&theirs, b"x").unwrap();
        age(&dir, &theirs, STALE_AFTER * 2);
        let path = t.path().join(&theirs);
        std::os::unix::fs::chown(&path, Some(65534), Some(65534)).unwrap();
        assert_eq!(remove_stale(&dir).unwrap(), 0);
        assert!(path.exists());
    }
}
