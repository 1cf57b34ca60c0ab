//! Atomic replacement of a file: a temporary file in the same directory (created through the
//! directory handle), written, `fsync`ed, then renamed over the target with `renameat`.
//!
//! On Linux the temporary file is anonymous (`O_TMPFILE`): while it is being written it has
//! no name at all, so a process killed mid-write leaves nothing behind. It gets a name only
//! when complete: directly the target's, with `linkat` through `/proc/self/fd`, when the
//! target does not exist yet; otherwise a temporary name `.mcp-tmp-<pid>-<random>` followed at
//! once by `renameat` over the target. Only a kill in the instant between those two calls can
//! leave a (complete) `.mcp-tmp-*` file, inside the same directory; elsewhere, or without a
//! usable `/proc`, the file is named from the start. [`remove_stale`] deletes such files whose
//! process is gone (`FileService::remove_stale_temp_files`).
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
    // `RandomState` is seeded from the OS's randomness: enough to avoid collisions (which
    // are retried anyway), and no extra dependency.
    let random = std::collections::hash_map::RandomState::new()
        .build_hasher()
        .finish();
    OsString::from(format!("{TEMP_PREFIX}{}-{random:016x}", std::process::id()))
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

/// The process id in one of our temporary names, if it is one.
pub(crate) fn temp_owner(name: &OsStr) -> Option<u32> {
    let rest = name.to_str()?.strip_prefix(TEMP_PREFIX)?;
    let (pid, random) = rest.split_once('-')?;
    (random.len() == 16 && random.bytes().all(|b| b.is_ascii_hexdigit()))
        .then(|| pid.parse().ok())
        .flatten()
}

/// Removes our temporary files in `dir` (not below it) whose process no longer exists.
/// Returns how many were removed.
pub(crate) fn remove_stale(dir: &Dir) -> io::Result<usize> {
    let mut removed = 0;
    for entry in dir.entries()? {
        let name = entry?.file_name();
        let Some(pid) = temp_owner(&name) else {
            continue;
        };
        if pid == std::process::id() || process_exists(pid) {
            continue;
        }
        if dir.symlink_metadata(&name).is_ok_and(|m| m.is_file()) && dir.remove_file(&name).is_ok()
        {
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

    #[test]
    fn stale_files_of_dead_processes_are_removed() {
        let t = tempfile::tempdir().unwrap();
        let dir = Dir::open_ambient_dir(t.path(), ambient_authority()).unwrap();
        // pid_max is at most 2^22, so this process cannot exist.
        let dead = format!("{TEMP_PREFIX}99999999-0123456789abcdef");
        let mine = format!("{TEMP_PREFIX}{}-0123456789abcdef", std::process::id());
        for n in [
            &dead,
            &mine,
            &".mcp-tmp-x".to_owned(),
            &"keep.txt".to_owned(),
        ] {
            dir.write(n, b"x").unwrap();
        }
        assert_eq!(temp_owner(OsStr::new(&dead)), Some(99999999));
        assert_eq!(remove_stale(&dir).unwrap(), 1);
        assert_eq!(names(&dir).len(), 3);
        assert!(!names(&dir).contains(&dead));
    }
}
