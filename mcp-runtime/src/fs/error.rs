//! [`FsError`]: what went wrong, in words a model can act on.
//!
//! Every message names only what the caller gave (the requested path, quoted with escapes so
//! stray whitespace or quotes are visible) or what lies inside an allowed directory. Nothing
//! outside the roots (a symlink's target, an operating-system path, file content) ever
//! reaches the text. The underlying `io::Error`, when there is one, is kept as the
//! [`source`](std::error::Error::source) for operators' logs; its own text carries no path.

use std::fmt;
use std::io;

/// The kind of a file-service error: what a caller (or a tool) can branch on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FsErrorKind {
    /// The path is malformed: empty, a NUL byte, a backslash, a leading `~`, a bad
    /// `file://` URI, too long.
    InvalidPath,
    /// The path is outside every allowed directory, or resolving it (through a symlink) would
    /// leave its allowed directory.
    OutsideRoots,
    /// Nothing exists at the path (or at its parent directory).
    NotFound,
    /// Something already exists where the operation would create an entry.
    AlreadyExists,
    /// The path names something other than a regular file where a file is needed: a
    /// directory, FIFO, socket or device.
    NotAFile,
    /// The path (or one of its parents) is not a directory where one is needed.
    NotADirectory,
    /// The file's extension is not in the policy's allowed list.
    ExtensionNotAllowed,
    /// The file has more than one hard link and the policy refuses such files.
    HardLinked,
    /// The content is over the policy's read or write limit.
    TooLarge,
    /// The service is read-only.
    ReadOnly,
    /// The file is not valid UTF-8 where text is required.
    NotUtf8,
    /// An argument other than the path is wrong: a bad glob, an edit whose `oldText` is not
    /// found, both `head` and `tail`.
    InvalidArgument,
    /// The file changed while the operation was running; retrying may succeed.
    Conflict,
    /// Too many levels of symbolic links.
    SymlinkLoop,
    /// The operating system refused (permissions).
    PermissionDenied,
    /// The service could not start: a missing root, an invalid policy.
    Config,
    /// Another I/O error.
    Io,
    /// Too many operations are waiting already; retrying shortly may succeed.
    Busy,
}

/// An error from the file service. Its `Display` text is safe to show a model.
#[derive(Debug)]
pub struct FsError {
    kind: FsErrorKind,
    message: String,
    source: Option<io::Error>,
}

impl FsError {
    /// An error of `kind` with a message.
    pub fn new(kind: FsErrorKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
            source: None,
        }
    }

    /// The kind of error.
    pub fn kind(&self) -> FsErrorKind {
        self.kind
    }

    /// The message (the same text as `Display`).
    pub fn message(&self) -> &str {
        &self.message
    }

    pub(crate) fn with_source(mut self, source: io::Error) -> Self {
        self.source = Some(source);
        self
    }

    /// The kind as a short, stable label (for audit events).
    pub fn kind_label(&self) -> &'static str {
        match self.kind {
            FsErrorKind::InvalidPath => "invalid_path",
            FsErrorKind::OutsideRoots => "outside_roots",
            FsErrorKind::NotFound => "not_found",
            FsErrorKind::AlreadyExists => "already_exists",
            FsErrorKind::NotAFile => "not_a_file",
            FsErrorKind::NotADirectory => "not_a_directory",
            FsErrorKind::ExtensionNotAllowed => "extension_not_allowed",
            FsErrorKind::HardLinked => "hard_linked",
            FsErrorKind::TooLarge => "too_large",
            FsErrorKind::ReadOnly => "read_only",
            FsErrorKind::NotUtf8 => "not_utf8",
            FsErrorKind::InvalidArgument => "invalid_argument",
            FsErrorKind::Conflict => "conflict",
            FsErrorKind::SymlinkLoop => "symlink_loop",
            FsErrorKind::PermissionDenied => "permission_denied",
            FsErrorKind::Config => "config",
            FsErrorKind::Io => "io",
            FsErrorKind::Busy => "busy",
        }
    }

    /// Whether the policy refused the request (as opposed to the file system failing it):
    /// audit events record these as `denied`.
    pub fn is_denial(&self) -> bool {
        matches!(
            self.kind,
            FsErrorKind::InvalidPath
                | FsErrorKind::OutsideRoots
                | FsErrorKind::ExtensionNotAllowed
                | FsErrorKind::HardLinked
                | FsErrorKind::TooLarge
                | FsErrorKind::ReadOnly
                | FsErrorKind::NotAFile
                | FsErrorKind::SymlinkLoop
        )
    }

    pub(crate) fn invalid_path(requested: &str, why: impl fmt::Display) -> Self {
        Self::new(
            FsErrorKind::InvalidPath,
            format!("invalid path {}: {why}", Quoted(requested)),
        )
    }

    pub(crate) fn outside(requested: &str) -> Self {
        Self::new(
            FsErrorKind::OutsideRoots,
            format!(
                "access denied: {} is outside the allowed directories; use a path relative to \
                 an allowed directory or an absolute path inside one",
                Quoted(requested)
            ),
        )
    }

    /// A relative path whose `..` climbs above its allowed directory.
    pub(crate) fn above_root(requested: &str) -> Self {
        Self::new(
            FsErrorKind::OutsideRoots,
            format!(
                "access denied: {} climbs above its allowed directory with '..'; name the path \
                 from an allowed directory",
                Quoted(requested)
            ),
        )
    }

    pub(crate) fn escapes(requested: &str) -> Self {
        Self::new(
            FsErrorKind::OutsideRoots,
            format!(
                "access denied: {} leads outside its allowed directory through a symbolic link",
                Quoted(requested)
            ),
        )
    }

    pub(crate) fn read_only(requested: &str) -> Self {
        Self::new(
            FsErrorKind::ReadOnly,
            format!(
                "cannot modify {}: the file service is read-only",
                Quoted(requested)
            ),
        )
    }

    pub(crate) fn not_a_file(requested: &str, what: &str) -> Self {
        Self::new(
            FsErrorKind::NotAFile,
            format!("{} is {what}, not a regular file", Quoted(requested)),
        )
    }

    pub(crate) fn hard_linked(requested: &str) -> Self {
        Self::new(
            FsErrorKind::HardLinked,
            format!(
                "access denied: {} has more than one hard link, and hard-linked files are refused",
                Quoted(requested)
            ),
        )
    }

    pub(crate) fn invalid_argument(message: impl Into<String>) -> Self {
        Self::new(FsErrorKind::InvalidArgument, message)
    }

    /// Maps an I/O error met while working on `requested`. The texts are ours, never the
    /// error's own (which, for cap-std's custom errors, could describe the resolution).
    pub(crate) fn io(requested: &str, err: io::Error) -> Self {
        let q = Quoted(requested);
        if is_escape(&err) {
            return Self::escapes(requested).with_source(err);
        }
        let (kind, message) = match OsErrorClass::of(&err) {
            Some(OsErrorClass::NotFound) => (
                FsErrorKind::NotFound,
                format!("{q} does not exist (nor does some parent directory of it)"),
            ),
            Some(OsErrorClass::NotADirectory) => (
                FsErrorKind::NotADirectory,
                format!("{q}: a component of the path is not a directory"),
            ),
            Some(OsErrorClass::IsADirectory) => (
                FsErrorKind::NotAFile,
                format!("{q} is a directory, not a regular file"),
            ),
            Some(OsErrorClass::Exists) => {
                (FsErrorKind::AlreadyExists, format!("{q} already exists"))
            }
            Some(OsErrorClass::Loop) => (
                FsErrorKind::SymlinkLoop,
                format!(
                    "{q}: too many levels of symbolic links, or a symbolic link appeared \
                     where it is not followed"
                ),
            ),
            Some(OsErrorClass::PermissionDenied) => (
                FsErrorKind::PermissionDenied,
                format!("{q}: permission denied by the operating system"),
            ),
            Some(OsErrorClass::NameTooLong) => (
                FsErrorKind::InvalidPath,
                format!("invalid path {q}: a name is too long"),
            ),
            Some(OsErrorClass::CrossesDevices) => (
                FsErrorKind::InvalidArgument,
                format!("{q}: cannot move between different file systems"),
            ),
            Some(OsErrorClass::NoSpace) => {
                (FsErrorKind::Io, format!("{q}: no space left on the device"))
            }
            Some(OsErrorClass::ReadOnly) => (
                FsErrorKind::Io,
                format!("{q}: the file system is mounted read-only"),
            ),
            Some(OsErrorClass::Busy) => (FsErrorKind::Io, format!("{q} is busy")),
            None => match err.raw_os_error() {
                Some(code) => (FsErrorKind::Io, format!("{q}: I/O error (os error {code})")),
                None => (FsErrorKind::Io, format!("{q}: I/O error")),
            },
        };
        Self::new(kind, message).with_source(err)
    }
}

/// What an operating system's error code means for a file operation, on every system.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum OsErrorClass {
    NotFound,
    NotADirectory,
    /// (Windows reports opening a directory as a file as access denied.)
    #[cfg_attr(windows, allow(dead_code))]
    IsADirectory,
    /// The name exists (or a directory to replace is not empty).
    Exists,
    /// Too many symbolic links, or one where none is followed.
    Loop,
    PermissionDenied,
    NameTooLong,
    CrossesDevices,
    NoSpace,
    ReadOnly,
    /// In use: a running program, a mount point, or (Windows) a file another process holds
    /// open without sharing.
    Busy,
}

impl OsErrorClass {
    /// The class of `err`'s OS error code, or `None` for another code or none.
    #[cfg(unix)]
    pub(crate) fn of(err: &io::Error) -> Option<Self> {
        use rustix::io::Errno;
        Some(match Errno::from_raw_os_error(err.raw_os_error()?) {
            Errno::NOENT => Self::NotFound,
            Errno::NOTDIR => Self::NotADirectory,
            Errno::ISDIR => Self::IsADirectory,
            Errno::EXIST | Errno::NOTEMPTY => Self::Exists,
            Errno::LOOP => Self::Loop,
            Errno::ACCESS | Errno::PERM => Self::PermissionDenied,
            Errno::NAMETOOLONG => Self::NameTooLong,
            Errno::XDEV => Self::CrossesDevices,
            Errno::NOSPC | Errno::DQUOT => Self::NoSpace,
            Errno::ROFS => Self::ReadOnly,
            Errno::TXTBSY | Errno::BUSY => Self::Busy,
            _ => return None,
        })
    }

    /// The class of `err`'s Win32 error code, or `None` for another code or none.
    #[cfg(windows)]
    pub(crate) fn of(err: &io::Error) -> Option<Self> {
        use windows_sys::Win32::Foundation as w;
        let code = u32::try_from(err.raw_os_error()?).ok()?;
        Some(match code {
            w::ERROR_FILE_NOT_FOUND | w::ERROR_PATH_NOT_FOUND | w::ERROR_INVALID_DRIVE => {
                Self::NotFound
            }
            w::ERROR_DIRECTORY => Self::NotADirectory,
            w::ERROR_FILE_EXISTS | w::ERROR_ALREADY_EXISTS | w::ERROR_DIR_NOT_EMPTY => Self::Exists,
            w::ERROR_CANT_RESOLVE_FILENAME | w::ERROR_STOPPED_ON_SYMLINK => Self::Loop,
            w::ERROR_ACCESS_DENIED | w::ERROR_PRIVILEGE_NOT_HELD => Self::PermissionDenied,
            w::ERROR_FILENAME_EXCED_RANGE => Self::NameTooLong,
            w::ERROR_NOT_SAME_DEVICE => Self::CrossesDevices,
            w::ERROR_DISK_FULL | w::ERROR_HANDLE_DISK_FULL => Self::NoSpace,
            w::ERROR_WRITE_PROTECT => Self::ReadOnly,
            w::ERROR_SHARING_VIOLATION | w::ERROR_LOCK_VIOLATION | w::ERROR_BUSY => Self::Busy,
            _ => return None,
        })
    }

    /// Elsewhere: what the standard library's error kind says.
    #[cfg(not(any(unix, windows)))]
    pub(crate) fn of(err: &io::Error) -> Option<Self> {
        err.raw_os_error()?;
        Some(match err.kind() {
            io::ErrorKind::NotFound => Self::NotFound,
            io::ErrorKind::AlreadyExists => Self::Exists,
            io::ErrorKind::PermissionDenied => Self::PermissionDenied,
            _ => return None,
        })
    }
}

/// cap-std reports an attempt to leave the directory as a `PermissionDenied` error of its own
/// making (no OS error code); openat2 `RESOLVE_BENEATH` reports `EXDEV`, which cap-std maps to
/// the same.
pub(crate) fn is_escape(err: &io::Error) -> bool {
    err.kind() == io::ErrorKind::PermissionDenied && err.raw_os_error().is_none()
}

impl fmt::Display for FsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for FsError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source
            .as_ref()
            .map(|e| e as &(dyn std::error::Error + 'static))
    }
}

/// A requested path quoted with escapes, so `"notes.txt "` shows its trailing space and a
/// newline cannot forge a second line. Long inputs are cut, so an error never echoes a
/// megabyte back.
pub(crate) struct Quoted<'a>(pub(crate) &'a str);

impl fmt::Display for Quoted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const MAX: usize = 300;
        if self.0.len() <= MAX {
            write!(f, "{:?}", self.0)
        } else {
            let mut end = MAX;
            while !self.0.is_char_boundary(end) {
                end -= 1;
            }
            write!(f, "{:?}… ({} bytes)", &self.0[..end], self.0.len())
        }
    }
}

/// Shorthand for results of the file service.
pub type FsResult<T> = Result<T, FsError>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn io_errors_get_our_texts_and_keep_the_source() {
        let e = FsError::io("a/b.txt", io::Error::from_raw_os_error(2));
        assert_eq!(e.kind(), FsErrorKind::NotFound);
        assert!(e.to_string().starts_with("\"a/b.txt\" does not exist"));
        assert!(std::error::Error::source(&e).is_some());
    }

    #[test]
    fn cap_std_escapes_are_outside_roots() {
        let escape = io::Error::new(
            io::ErrorKind::PermissionDenied,
            "a path led outside of the filesystem",
        );
        let e = FsError::io("link", escape);
        assert_eq!(e.kind(), FsErrorKind::OutsideRoots);
        assert!(!e.to_string().contains("filesystem"));
        let eacces = FsError::io("x", io::Error::from_raw_os_error(13));
        assert_eq!(eacces.kind(), FsErrorKind::PermissionDenied);
    }

    #[test]
    fn quoting_shows_whitespace_and_cuts_long_input() {
        assert_eq!(Quoted("a \n").to_string(), "\"a \\n\"");
        let long = "é".repeat(400);
        let q = Quoted(&long).to_string();
        assert!(q.len() < 400 && q.ends_with("(800 bytes)"));
    }
}
