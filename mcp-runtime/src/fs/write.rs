//! Changing things: whole-file writes (atomic), new directories, moves.

use super::atomic::TempFile;
use super::error::OsErrorClass;
use super::error::{FsError, FsErrorKind, FsResult, Quoted};
use super::path::FsPath;
use super::read::{check_links, describe};
use super::resolve::{Core, Location};
use cap_fs_ext::MetadataExt as _;
use cap_std::fs::Dir;
use std::ffi::OsStr;
use std::io;

/// What a write did.
#[derive(Debug, Clone)]
pub struct WriteOutcome {
    /// The file, as asked for.
    pub path: FsPath,
    /// Whether the file was new.
    pub created: bool,
    /// How many bytes were written.
    pub bytes: u64,
}

pub(crate) fn check_writable(core: &Core, loc: &Location) -> FsResult<()> {
    if core.policy.read_only {
        return Err(FsError::read_only(&loc.raw));
    }
    Ok(())
}

pub(crate) fn check_write_size(core: &Core, loc: &Location, len: usize) -> FsResult<()> {
    let limit = core.policy.max_write_bytes;
    if len as u64 > limit {
        return Err(FsError::new(
            FsErrorKind::TooLarge,
            format!(
                "the content for {} is {len} bytes, over the write limit of {limit} bytes",
                Quoted(&loc.raw)
            ),
        ));
    }
    Ok(())
}

/// Replaces `name` in `dir` with `content` atomically, keeping `mode` if given.
pub(crate) fn replace_file(
    loc: &Location,
    dir: &Dir,
    name: &OsStr,
    content: &[u8],
    mode: Option<u32>,
) -> FsResult<()> {
    let io = |e| FsError::io(&loc.raw, e);
    let mut tmp = TempFile::create(dir).map_err(io)?;
    tmp.finish(content, mode).map_err(io)?;
    tmp.publish(name).map_err(io)
}

/// Creates or replaces a regular file. A final symlink that stays inside the root is
/// followed (its target is replaced); the parent directory must exist.
pub(crate) fn write_file(core: &Core, loc: &Location, content: &[u8]) -> FsResult<WriteOutcome> {
    check_writable(core, loc)?;
    loc.require_file_syntax()?;
    check_write_size(core, loc, content.len())?;
    let target = core.open_target(loc, true)?;
    let Some(name) = target.name else {
        return Err(FsError::not_a_file(&loc.raw, "a directory"));
    };
    core.check_extension(loc, &name)?;
    let mode = match target.dir.symlink_metadata(&name) {
        Ok(m) if m.is_file() => {
            check_links(core, loc, m.nlink())?;
            // Windows: the file replaced must be the root's too (see `confirm_beneath`).
            #[cfg(windows)]
            {
                let file = target
                    .dir
                    .open(&name)
                    .map_err(|e| FsError::io(&loc.raw, e))?;
                core.confirm_beneath(loc, &file)?;
            }
            Some(super::atomic::mode_of(&m))
        }
        Ok(m) => return Err(FsError::not_a_file(&loc.raw, describe(&m.file_type()))),
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => return Err(FsError::io(&loc.raw, e)),
    };
    replace_file(loc, &target.dir, &name, content, mode)?;
    Ok(WriteOutcome {
        path: core.fs_path(loc),
        created: mode.is_none(),
        bytes: content.len() as u64,
    })
}

/// Creates a directory and any missing parents; an existing directory is fine.
pub(crate) fn create_directory(core: &Core, loc: &Location) -> FsResult<FsPath> {
    check_writable(core, loc)?;
    if !loc.rel.is_empty() {
        let root = &core.roots[loc.root].dir;
        let rel: std::path::PathBuf = loc.rel.iter().collect();
        root.create_dir_all(&rel).map_err(|e| match e.kind() {
            io::ErrorKind::AlreadyExists => FsError::new(
                FsErrorKind::AlreadyExists,
                format!(
                    "{} (or a parent of it) exists and is not a directory",
                    Quoted(&loc.raw)
                ),
            ),
            _ => FsError::io(&loc.raw, e),
        })?;
    }
    // What counts is that a directory is there now, reached the confined way.
    core.open_dir_target(loc)?;
    Ok(core.fs_path(loc))
}

/// Renames an entry (a file, directory or symlink; a symlink is moved, not followed). The
/// destination must not exist: the rename is `RENAME_NOREPLACE` where the kernel has it.
pub(crate) fn move_entry(core: &Core, from: &Location, to: &Location) -> FsResult<()> {
    check_writable(core, from)?;
    for loc in [from, to] {
        if loc.rel.is_empty() {
            return Err(FsError::invalid_argument(format!(
                "{} is an allowed directory itself, which cannot be moved or replaced",
                Quoted(&loc.raw)
            )));
        }
    }
    let src = core.open_target(from, false)?;
    let src_name = src.name.expect("a non-root location has a name");
    let meta = src
        .dir
        .symlink_metadata(&src_name)
        .map_err(|e| FsError::io(&from.raw, e))?;
    let ft = meta.file_type();
    if !ft.is_dir() {
        if !(ft.is_file() || ft.is_symlink()) {
            return Err(FsError::not_a_file(&from.raw, describe(&ft)));
        }
        for loc in [from, to] {
            if loc.trailing_slash {
                return Err(FsError::new(
                    FsErrorKind::NotADirectory,
                    format!(
                        "{} ends with '/', but the source is not a directory",
                        Quoted(&loc.raw)
                    ),
                ));
            }
        }
        if ft.is_file() {
            check_links(core, from, meta.nlink())?;
        }
        core.check_extension(from, &src_name)?;
        core.check_extension(to, OsStr::new(to.name().unwrap_or_default()))?;
    }
    let dst = core.open_target(to, false)?;
    let dst_name = dst.name.expect("a non-root location has a name");
    rename_noreplace(&src.dir, &src_name, &dst.dir, &dst_name).map_err(|e| {
        if OsErrorClass::of(&e) == Some(OsErrorClass::Exists) {
            return FsError::new(
                FsErrorKind::AlreadyExists,
                format!(
                    "destination {} already exists; moves never overwrite",
                    Quoted(&to.raw)
                ),
            );
        }
        if is_move_into_itself(&e) {
            return FsError::invalid_argument(format!(
                "cannot move {} to {}: a directory cannot be moved into itself",
                Quoted(&from.raw),
                Quoted(&to.raw)
            ));
        }
        FsError::io(&from.raw, e)
    })
}

/// What a rename of a directory into itself fails with: `EINVAL` on Unix; on Windows
/// `ERROR_SHARING_VIOLATION` (the directory is open as the destination's parent).
fn is_move_into_itself(e: &io::Error) -> bool {
    #[cfg(unix)]
    return e.raw_os_error() == Some(rustix::io::Errno::INVAL.raw_os_error());
    #[cfg(windows)]
    return e.raw_os_error()
        == Some(windows_sys::Win32::Foundation::ERROR_SHARING_VIOLATION as i32);
    #[cfg(not(any(unix, windows)))]
    return e.kind() == io::ErrorKind::InvalidInput;
}

/// Windows: one `MoveFileExW` that never replaces (see `crate::windows`).
#[cfg(windows)]
fn rename_noreplace(src: &Dir, from: &OsStr, dst: &Dir, to: &OsStr) -> io::Result<()> {
    use std::os::windows::io::AsHandle as _;
    crate::windows::rename_no_replace(src.as_handle(), from, dst.as_handle(), to)
}

#[cfg(not(windows))]
fn rename_noreplace(src: &Dir, from: &OsStr, dst: &Dir, to: &OsStr) -> io::Result<()> {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        use rustix::fs::RenameFlags;
        use rustix::io::Errno;
        match rustix::fs::renameat_with(src, from, dst, to, RenameFlags::NOREPLACE) {
            Ok(()) => return Ok(()),
            // The file system does not support the flag; fall through. (EINVAL is also a
            // directory moved into itself, which the plain rename reports again.)
            Err(Errno::INVAL | Errno::NOSYS | Errno::OPNOTSUPP) => {}
            Err(e) => return Err(e.into()),
        }
    }
    match dst.symlink_metadata(to) {
        Ok(_) => Err(io::Error::from(io::ErrorKind::AlreadyExists)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => src.rename(from, dst, to),
        Err(e) => Err(e),
    }
}
