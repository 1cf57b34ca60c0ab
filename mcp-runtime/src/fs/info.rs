//! `get_file_info`: metadata of a file or directory, without opening it.

use super::error::FsResult;
use super::path::FsPath;
use super::read::check_links;
use super::resolve::{Core, Location};
use super::walk::EntryKind;
use cap_fs_ext::MetadataExt as _;
use cap_std::fs::Metadata;
use std::time::SystemTime;

/// Metadata of a file or directory (a final symlink inside the root is followed).
#[derive(Debug, Clone)]
pub struct FileInfo {
    /// The entry, as asked for.
    pub path: FsPath,
    /// What it is.
    pub kind: EntryKind,
    /// Its size in bytes.
    pub size: u64,
    /// When it was created, where the file system records it.
    pub created: Option<SystemTime>,
    /// When it was last modified.
    pub modified: Option<SystemTime>,
    /// When it was last accessed.
    pub accessed: Option<SystemTime>,
    /// The permission bits (`mode & 0o777`; print with `{:03o}` for the reference's form).
    pub permissions: u32,
}

pub(crate) fn file_info(core: &Core, loc: &Location) -> FsResult<FileInfo> {
    let io = |e| super::error::FsError::io(&loc.raw, e);
    let target = core.open_target(loc, true)?;
    let meta: Metadata = match &target.name {
        None => target.dir.dir_metadata().map_err(io)?,
        Some(name) => target.dir.symlink_metadata(name).map_err(io)?,
    };
    let ft = meta.file_type();
    let kind = if ft.is_dir() {
        EntryKind::Directory
    } else if ft.is_file() {
        EntryKind::File
    } else if ft.is_symlink() {
        EntryKind::Symlink
    } else {
        EntryKind::Other
    };
    if kind != EntryKind::Directory {
        loc.require_file_syntax()?;
        if let Some(name) = &target.name {
            core.check_extension(loc, name)?;
        }
    }
    if kind == EntryKind::File {
        check_links(core, loc, meta.nlink())?;
    }
    Ok(FileInfo {
        path: core.fs_path(loc),
        kind,
        size: meta.len(),
        created: meta.created().ok().map(|t| t.into_std()),
        modified: meta.modified().ok().map(|t| t.into_std()),
        accessed: meta.accessed().ok().map(|t| t.into_std()),
        permissions: super::atomic::mode_of(&meta) & 0o777,
    })
}
