//! Atomic replacement of a file: a temporary file in the same directory (created through the
//! directory handle), written, `fsync`ed, then renamed over the target with `renameat`.
//!
//! On Linux the temporary file is anonymous (`O_TMPFILE`): while it is being written it has
//! no name at all, so a process killed mid-write leaves nothing behind. It gets a name only
//! when complete: directly the target's, with `linkat` through `/proc/self/fd`, when the
//! target does not exist yet; otherwise a temporary name `.mcp-tmp-<pid>-<random>-<mark>`
//! followed at once by `renameat` over the target. Only a kill in the instant between those
//! two calls can leave a (complete) `.mcp-tmp-*` file, inside the same directory; elsewhere,
//! or without a usable `/proc`, the file is named from the start.
//!
//! [`remove_stale`] deletes such files when they are provably ours and abandoned (our marker
//! in the name, a regular file of our user with one link), called by
//! `FileService::remove_stale_temp_files`. *Abandoned* is proved in one of two ways:
//!
//! - **By a lock, at once.** An anonymous file is locked (`flock`, exclusive) by its writer
//!   before it ever gets a name, and the lock lives as long as the writer's descriptor; its
//!   temporary name carries a mark that says so. When a sweep can take the lock, no process
//!   anywhere holds the file open (not a live writer, not a zombie, whose descriptors are
//!   closed at exit, not a writer in another PID namespace sharing the directory), so it is
//!   removed whatever its age, and whatever its process id now names (a zombie still
//!   answers `kill(pid, 0)`; ids are reused). This is the leftover of a kill between `linkat`
//!   and `renameat`, so the next start of a server cleans it up.
//! - **By age, otherwise.** A file named from the start (no `O_TMPFILE`, other systems, or a
//!   file of an older version) could be locked only after it was created, so a sweep cannot
//!   tell a writer that has not locked it *yet* from a dead one. Such a file is removed once
//!   idle for [`STALE_AFTER`] with no process of its id in this PID namespace.
//!
//! On Windows a temporary file is named from its creation (there is no anonymous file), so
//! only the second proof applies; "its process gone" is asked of Windows (`OpenProcess`), and
//! "our user" is not checked (a file's owner is a security descriptor, not a number; the
//! marker, one link and the age still are). A rename over the target replaces it
//! (`MoveFileExW` with `MOVEFILE_REPLACE_EXISTING`, through cap-std), which fails on a target
//! marked read-only or held open by a process that did not share it for deletion: the write
//! is then an error and the target unchanged. Directories cannot be synced there.
//!
//! We do not use `cap-tempfile`, which does the same dance, because its temporary names are
//! not recognisable as ours and it always goes through one, even for a new file.

use cap_fs_ext::{FollowSymlinks, OpenOptionsFollowExt};
use cap_std::fs::{Dir, OpenOptions};
use std::ffi::{OsStr, OsString};
use std::hash::{BuildHasher, Hasher};
use std::io::{self, Write};

/// The prefix of our temporary files' names.
pub const TEMP_PREFIX: &str = ".mcp-tmp-";

/// A temporary file in a directory, published with [`TempFile::publish`] or dropped.
pub(crate) struct TempFile<'d> {
    dir: &'d Dir,
    file: std::fs::File,
    /// The name, when the file has one before publishing (the portable path).
    name: Option<OsString>,
}

/// How a temporary file's abandonment is proved (see the module documentation); its name
/// says which, through the label its mark is computed with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Named from its creation: abandoned once idle and its process gone.
    Named,
    /// Locked by its writer before it had a name: abandoned as soon as the lock is free.
    Locked,
}

impl Kind {
    fn label(self) -> &'static [u8] {
        match self {
            Kind::Named => b"mcp-runtime temporary file\0",
            Kind::Locked => b"mcp-runtime locked temporary file\0",
        }
    }
}

fn temp_name(kind: Kind) -> OsString {
    name_of(std::process::id(), kind)
}

/// The name a temporary file of process `pid` gets: [`TEMP_PREFIX`], the pid, 16 random hex
/// digits and an 8-digit check of the rest (the marker that tells our files from others
/// named alike). This is the name of a file named from its creation, which a sweep removes
/// only once it has been idle for [`STALE_AFTER`] and no process `pid` exists. For tests
/// that simulate a leftover (the project's own, through the `fuzzing` module).
#[cfg(any(test, feature = "fuzzing"))]
pub(crate) fn temp_file_name(pid: u32) -> OsString {
    name_of(pid, Kind::Named)
}

fn name_of(pid: u32, kind: Kind) -> OsString {
    // `RandomState` is seeded from the OS's randomness: enough to avoid collisions (which
    // are retried anyway), and no extra dependency.
    let random = std::collections::hash_map::RandomState::new()
        .build_hasher()
        .finish();
    let body = format!("{pid}-{random:016x}");
    OsString::from(format!("{TEMP_PREFIX}{body}-{}", check(&body, kind)))
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
            .follow(FollowSymlinks::No);
        #[cfg(unix)]
        cap_std::fs::OpenOptionsExt::mode(&mut options, 0o666);
        for _ in 0..100 {
            let name = temp_name(Kind::Named);
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

    /// Writes everything and flushes it to disk; sets the permission bits if given (Unix;
    /// elsewhere there are none to keep), without setuid, setgid and sticky: a file whose
    /// content a client wrote must never run with its owner's (or group's) privileges,
    /// whatever the file it replaces allowed.
    pub(crate) fn finish(&mut self, content: &[u8], mode: Option<u32>) -> io::Result<()> {
        self.file.write_all(content)?;
        #[cfg(unix)]
        if let Some(mode) = mode {
            use std::os::unix::fs::PermissionsExt as _;
            self.file
                .set_permissions(std::fs::Permissions::from_mode(mode & 0o777))?;
        }
        #[cfg(not(unix))]
        let _ = mode;
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

/// The permission bits a replacement keeps (Unix).
///
/// Elsewhere it is what the file allows in Unix terms, for display: `0o444` when read-only,
/// else `0o666` (a replacement does not change a Windows file's attributes).
pub(crate) fn mode_of(meta: &cap_std::fs::Metadata) -> u32 {
    #[cfg(unix)]
    return cap_std::fs::MetadataExt::mode(meta);
    #[cfg(not(unix))]
    return if meta.permissions().readonly() {
        0o444
    } else {
        0o666
    };
}

#[cfg(not(unix))]
fn sync_dir(_: &Dir) {}

#[cfg(unix)]
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
        Ok(fd) => {
            // Locked before it can have a name, for as long as this descriptor lives: a sweep
            // that can take the lock knows the writer is gone (see the module documentation).
            // A file system without locks cannot give that proof: the file goes the named way.
            if rustix::fs::flock(&fd, rustix::fs::FlockOperation::NonBlockingLockExclusive).is_err()
            {
                return Ok(None);
            }
            Ok(Some(std::fs::File::from(fd)))
        }
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
        let name = temp_name(Kind::Locked);
        match link(&name) {
            Ok(()) => return rename_or_remove(dir, &name, target),
            Err(Errno::EXIST) => continue,
            Err(e) => return Err(e.into()),
        }
    }
    Err(io::Error::from(io::ErrorKind::AlreadyExists))
}

/// The marker of a temporary name: 8 hex digits of SHA-256 over the kind's label and `body`.
fn check(body: &str, kind: Kind) -> String {
    use sha2::{Digest as _, Sha256};
    let digest = Sha256::new()
        .chain_update(kind.label())
        .chain_update(body.as_bytes())
        .finalize();
    digest[..4].iter().map(|b| format!("{b:02x}")).collect()
}

/// The process id and kind in one of our temporary names, if it is one (marker included).
pub(crate) fn temp_owner(name: &OsStr) -> Option<(u32, Kind)> {
    let rest = name.to_str()?.strip_prefix(TEMP_PREFIX)?;
    let (body, mark) = rest.rsplit_once('-')?;
    let (pid, random) = body.split_once('-')?;
    if random.len() != 16 || !random.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let kind = [Kind::Locked, Kind::Named]
        .into_iter()
        .find(|&kind| mark == check(body, kind))?;
    Some((pid.parse().ok()?, kind))
}

/// How long a temporary file named from its creation must have been left alone before a
/// sweep may take it for a leftover (a file locked before it had a name needs no wait: see
/// the module documentation). Such a file lives for one write. A minute covers a slow disk's
/// `fsync`, and a writer whose process the sweep cannot see (another PID namespace sharing
/// the directory).
pub const STALE_AFTER: std::time::Duration = std::time::Duration::from_secs(60);

/// Removes the leftovers in `dir` (not below it) that are provably ours and abandoned: a
/// name we make (with its marker), a regular file with one link, owned by this process's
/// user, and either locked-kind with its lock free, or named-kind, untouched for
/// [`STALE_AFTER`], with no process of its id. Anything else that merely looks like one is
/// left alone. Returns how many were removed.
pub(crate) fn remove_stale(dir: &Dir) -> io::Result<usize> {
    let uid = os::user();
    let mut removed = 0;
    for entry in dir.entries()? {
        let name = entry?.file_name();
        let Some((pid, kind)) = temp_owner(&name) else {
            continue;
        };
        let abandoned = match kind {
            Kind::Locked => os::lock_is_free(dir, &name, uid),
            Kind::Named => idle_and_orphaned(dir, &name, pid, uid),
        };
        if abandoned && dir.remove_file(&name).is_ok() {
            removed += 1;
        }
    }
    Ok(removed)
}

/// Whether the named-kind file `name` is ours, idle for [`STALE_AFTER`], and no process
/// `pid` exists in this PID namespace (a zombie does).
fn idle_and_orphaned(dir: &Dir, name: &OsStr, pid: u32, uid: os::User) -> bool {
    if pid == std::process::id() || os::process_exists(pid) {
        return false;
    }
    use cap_fs_ext::MetadataExt as _;
    let Ok(meta) = dir.symlink_metadata(name) else {
        return false;
    };
    let idle = meta
        .modified()
        .ok()
        .and_then(|m| m.into_std().elapsed().ok())
        .is_some_and(|idle| idle >= STALE_AFTER);
    meta.is_file() && meta.nlink() == 1 && os::owned_by(&meta, uid) && idle
}

/// What proving abandonment asks of the operating system.
#[cfg(unix)]
mod os {
    use cap_std::fs::Dir;
    use std::ffi::OsStr;

    /// A user, as files record their owner.
    pub(super) type User = u32;

    pub(super) fn user() -> User {
        rustix::process::geteuid().as_raw()
    }

    pub(super) fn owned_by(meta: &cap_std::fs::Metadata, user: User) -> bool {
        cap_std::fs::MetadataExt::uid(meta) == user
    }

    /// Whether the locked-kind file `name` is ours and nobody holds its lock: its writer is
    /// gone. A file this process cannot open (its mode denies reading) is left alone.
    pub(super) fn lock_is_free(dir: &Dir, name: &OsStr, uid: User) -> bool {
        use rustix::fs::{FlockOperation, Mode, OFlags};
        // Never follow a link, never wait on a FIFO: what is checked is the descriptor.
        let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::NOCTTY;
        let Ok(fd) = rustix::fs::openat(dir, name, flags | OFlags::CLOEXEC, Mode::empty()) else {
            return false;
        };
        let Ok(stat) = rustix::fs::fstat(&fd) else {
            return false;
        };
        // A shared lock conflicts with the writer's exclusive one, and needs only read
        // access (also where `flock` is emulated with byte-range locks, as on NFS).
        let ours = rustix::fs::FileType::from_raw_mode(stat.st_mode).is_file()
            && stat.st_nlink == 1
            && stat.st_uid == uid;
        ours && rustix::fs::flock(&fd, FlockOperation::NonBlockingLockShared).is_ok()
    }

    pub(super) fn process_exists(pid: u32) -> bool {
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
}

/// What proving abandonment asks of the operating system: no locked kind, no owner check.
#[cfg(not(unix))]
mod os {
    use cap_std::fs::Dir;
    use std::ffi::OsStr;

    /// Windows records a file's owner in a security descriptor; not compared.
    #[derive(Clone, Copy)]
    pub(super) struct User;

    pub(super) fn user() -> User {
        User
    }

    pub(super) fn owned_by(_: &cap_std::fs::Metadata, _: User) -> bool {
        true
    }

    /// Locked-kind files are made on Linux only; one seen here is left alone.
    pub(super) fn lock_is_free(_: &Dir, _: &OsStr, _: User) -> bool {
        false
    }

    /// Whether a process `pid` exists: one Windows will open for a query, or one it refuses
    /// to open for this user (which exists too).
    #[cfg(windows)]
    pub(super) fn process_exists(pid: u32) -> bool {
        crate::windows::process_exists(pid)
    }

    /// Without a way to ask, a process is taken to exist: nothing is removed.
    #[cfg(not(windows))]
    pub(super) fn process_exists(_: u32) -> bool {
        true
    }
}

// Unix modes, owners and locks throughout; Windows writes run under Wine (`tests/it/wine.rs`).
#[cfg(all(test, unix))]
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
        assert_eq!(
            temp_owner(OsStr::new(&dead)),
            Some((99_999_999, Kind::Named))
        );
        assert_eq!(temp_owner(OsStr::new(&unmarked)), None);
        assert_eq!(temp_owner(OsStr::new(&forged)), None);
        assert_eq!(remove_stale(&dir).unwrap(), 1);
        assert!(!names(&dir).contains(&dead));
        assert_eq!(names(&dir).len(), 7, "{:?}", names(&dir));
        // Once idle long enough, the fresh one goes too.
        age(&dir, &fresh, old);
        assert_eq!(remove_stale(&dir).unwrap(), 1);
    }

    /// A locked-kind leftover as a kill between `linkat` and `renameat` leaves it, and the
    /// descriptor standing for its writer (which holds the lock while it lives).
    #[cfg(any(target_os = "linux", target_os = "android"))]
    fn locked_leftover(dir: &Dir, pid: u32) -> (String, std::fs::File) {
        let name = name_of(pid, Kind::Locked).into_string().unwrap();
        dir.write(&name, b"complete").unwrap();
        let writer = dir.open(&name).unwrap().into_std();
        rustix::fs::flock(&writer, rustix::fs::FlockOperation::LockExclusive).unwrap();
        (name, writer)
    }

    #[test]
    #[cfg(any(target_os = "linux", target_os = "android"))]
    fn a_locked_leftover_goes_as_soon_as_its_writer_is_gone() {
        let t = tempfile::tempdir().unwrap();
        let dir = Dir::open_ambient_dir(t.path(), ambient_authority()).unwrap();
        // Its writer lives (here, or in another PID namespace where its id means nothing to
        // us): kept, however old the file and whatever its id names here.
        let (gone, writer) = locked_leftover(&dir, 99_999_999);
        age(&dir, &gone, STALE_AFTER * 2);
        assert_eq!(
            temp_owner(OsStr::new(&gone)),
            Some((99_999_999, Kind::Locked))
        );
        assert_eq!(remove_stale(&dir).unwrap(), 0);
        // Its writer is gone: removed at once, though written a moment ago; and though its
        // id names a live process (a zombie answers `kill(pid, 0)`; ids are reused).
        drop(writer);
        let (_zombie, writer) = locked_leftover(&dir, std::process::id());
        drop(writer);
        assert_eq!(remove_stale(&dir).unwrap(), 2);
        assert_eq!(names(&dir), Vec::<String>::new());
        // The same checks as for any leftover: a second link, and it is someone else's.
        let (linked, writer) = locked_leftover(&dir, 99_999_999);
        drop(writer);
        dir.hard_link(&linked, &dir, "other-name").unwrap();
        assert_eq!(remove_stale(&dir).unwrap(), 0);
        assert!(names(&dir).contains(&linked));
    }

    #[test]
    #[cfg(any(target_os = "linux", target_os = "android"))]
    fn a_write_holds_its_lock_until_its_descriptor_closes() {
        let t = tempfile::tempdir().unwrap();
        let dir = Dir::open_ambient_dir(t.path(), ambient_authority()).unwrap();
        let mut tmp = TempFile::create(&dir).unwrap();
        if tmp.name.is_some() {
            // No O_TMPFILE here: the named way, tested above.
            return;
        }
        tmp.finish(b"new", None).unwrap();
        // What a kill between linkat and renameat leaves: the complete file under a
        // locked-kind name. While its writer lives, a sweep must not take it.
        let name = name_of(std::process::id(), Kind::Locked);
        rustix::fs::linkat(
            rustix_linux_procfs::proc_self_fd().unwrap(),
            rustix::path::DecInt::from_fd(&tmp.file).as_c_str(),
            &dir,
            &name,
            rustix::fs::AtFlags::SYMLINK_FOLLOW,
        )
        .unwrap();
        assert_eq!(remove_stale(&dir).unwrap(), 0, "its writer holds the lock");
        drop(tmp);
        assert_eq!(remove_stale(&dir).unwrap(), 1, "its writer is gone");
        assert_eq!(names(&dir), Vec::<String>::new());
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
