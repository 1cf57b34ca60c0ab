//! What the file and command services ask of Windows directly: the one other place in the
//! crate with `unsafe` (beside `command::spawn`), each call a plain Win32 function on a
//! handle this module owns or borrows for the call.
#![allow(unsafe_code)]

use std::ffi::OsString;
use std::io;
use std::os::windows::ffi::OsStringExt as _;
use std::os::windows::io::{AsRawHandle, BorrowedHandle};
use std::path::PathBuf;
use windows_sys::Win32::Foundation::{CloseHandle, ERROR_INVALID_PARAMETER, HANDLE};
use windows_sys::Win32::Storage::FileSystem::{FILE_NAME_NORMALIZED, GetFinalPathNameByHandleW};
use windows_sys::Win32::System::Threading::{OpenProcess, PROCESS_QUERY_LIMITED_INFORMATION};

/// Whether a process `pid` exists: Windows opens it for a query, or refuses access to it
/// (it exists, and is another user's). Only "no such process" (`ERROR_INVALID_PARAMETER`)
/// says it is gone.
pub(crate) fn process_exists(pid: u32) -> bool {
    // SAFETY: `OpenProcess` takes no pointers; a handle it returns is closed once, here.
    let handle = unsafe { OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, 0, pid) };
    if handle.is_null() {
        return io::Error::last_os_error().raw_os_error() != Some(ERROR_INVALID_PARAMETER as i32);
    }
    // SAFETY: `handle` is a process handle we own and close once.
    unsafe { CloseHandle(handle) };
    true
}

/// The path Windows gives an open file or directory now (`GetFinalPathNameByHandleW`):
/// where it is, whatever spelling or link led there. A drive path comes without the `\\?\`
/// prefix Windows reports it with (`C:\dir`), since not every API takes that form (a child's
/// working directory does not); other forms (`\\?\UNC\…`) are left as they are.
#[cfg(feature = "command")]
pub(crate) fn final_path(handle: BorrowedHandle<'_>) -> io::Result<PathBuf> {
    let path = verbatim_path(handle)?;
    let simple = path
        .to_str()
        .and_then(|p| p.strip_prefix(r"\\?\"))
        .filter(|p| {
            let b = p.as_bytes();
            b.len() >= 3 && b[0].is_ascii_alphabetic() && b[1] == b':' && b[2] == b'\\'
        })
        .map(PathBuf::from);
    Ok(simple.unwrap_or_else(|| PathBuf::from(path)))
}

/// `GetFinalPathNameByHandleW`'s answer as it is: `\\?\C:\dir`, which Win32 calls take
/// without rewriting it (no trailing-dot trimming, no `MAX_PATH`).
fn verbatim_path(handle: BorrowedHandle<'_>) -> io::Result<OsString> {
    let raw = handle.as_raw_handle() as HANDLE;
    let mut buf = vec![0u16; 512];
    loop {
        let len = u32::try_from(buf.len()).unwrap_or(u32::MAX);
        // SAFETY: `raw` is a live handle borrowed for the call; `buf` holds `len` u16s.
        let n =
            unsafe { GetFinalPathNameByHandleW(raw, buf.as_mut_ptr(), len, FILE_NAME_NORMALIZED) };
        match n as usize {
            0 => return Err(io::Error::last_os_error()),
            // Too small: `n` is the size needed, terminating NUL included.
            n if n > buf.len() => buf.resize(n, 0),
            n => return Ok(OsString::from_wide(&buf[..n])),
        }
    }
}

/// Renames `from` in the directory `src` to `to` in `dst`, failing with
/// `ERROR_ALREADY_EXISTS` when `to` exists (`MoveFileExW` without
/// `MOVEFILE_REPLACE_EXISTING`: the check and the rename are one call). The directories are
/// named by their handles' final paths, as cap-std's own rename does on Windows.
pub(crate) fn rename_no_replace(
    src: BorrowedHandle<'_>,
    from: &std::ffi::OsStr,
    dst: BorrowedHandle<'_>,
    to: &std::ffi::OsStr,
) -> io::Result<()> {
    use std::os::windows::ffi::OsStrExt as _;
    use windows_sys::Win32::Storage::FileSystem::MoveFileExW;
    let wide = |p: PathBuf| -> Vec<u16> { p.as_os_str().encode_wide().chain([0]).collect() };
    let from = wide(PathBuf::from(verbatim_path(src)?).join(from));
    let to = wide(PathBuf::from(verbatim_path(dst)?).join(to));
    // SAFETY: both are NUL-terminated UTF-16 strings that live across the call.
    if unsafe { MoveFileExW(from.as_ptr(), to.as_ptr(), 0) } == 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// The verbatim path of a directory handle, for [`is_beneath`] (computed once per root).
pub(crate) fn root_path(handle: BorrowedHandle<'_>) -> io::Result<OsString> {
    verbatim_path(handle)
}

/// Whether the file or directory `handle` is open on lies at `root` (a [`root_path`]) or
/// below it, by the path Windows reports for it now, every link and junction on the way
/// resolved; compared case-insensitively, as NTFS names are.
pub(crate) fn is_beneath(root: &std::ffi::OsStr, handle: BorrowedHandle<'_>) -> io::Result<bool> {
    let path = verbatim_path(handle)?;
    let (Some(root), Some(path)) = (root.to_str(), path.to_str()) else {
        return Ok(false);
    };
    let (root, path) = (root.to_lowercase(), path.to_lowercase());
    let root = root.trim_end_matches('\\');
    Ok(path == root
        || path
            .strip_prefix(root)
            .is_some_and(|rest| rest.starts_with('\\')))
}
