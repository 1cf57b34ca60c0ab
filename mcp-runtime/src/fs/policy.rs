//! [`FsPolicy`]: which directories, which files, how much.

use super::error::{FsError, FsErrorKind, FsResult};
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// What a [`FileService`](super::FileService) may touch, built with chained calls.
///
/// Defaults: no directories (at least one is required), every extension, reads and writes
/// up to 10 MiB, writable, hard-linked files refused, walks bounded by [`WalkLimits`]'s
/// defaults.
///
/// **Extensions** are compared ASCII-case-insensitively (`txt` admits `a.txt` and `A.TXT`)
/// and must be the end of the file's own name after a `.`, with a non-empty stem: `x.txt.`,
/// `x.txt/`, `x.txt ` and `.txt` are not `txt` files. A multi-part extension (`tar.gz`)
/// works. Directories have no extension rule; the rule applies to the name given *and* to
/// the name a symlink resolves to, so `a.txt → b.bin` is refused when only `txt` is allowed.
///
/// ```
/// use mcp_runtime::fs::FsPolicy;
///
/// let policy = FsPolicy::new()
///     .allow_dir("/srv/notes")
///     .allow_extensions(["md", ".TXT"])
///     .max_read_bytes(1 << 20)
///     .read_only(true);
/// assert!(policy.is_read_only());
/// ```
#[derive(Debug, Clone)]
pub struct FsPolicy {
    pub(crate) dirs: Vec<PathBuf>,
    pub(crate) extensions: Option<Vec<String>>,
    pub(crate) max_read_bytes: u64,
    pub(crate) max_write_bytes: u64,
    pub(crate) read_only: bool,
    pub(crate) allow_hard_links: bool,
    pub(crate) walk: WalkLimits,
}

/// Bounds on listings, trees and searches. Past a bound the walk stops and its result says
/// it was truncated; it never fails for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct WalkLimits {
    /// How many directory levels below the starting directory are entered (default 32).
    pub max_depth: usize,
    /// How many entries one walk visits at most (default 20,000).
    pub max_entries: usize,
    /// How long one walk may run (default 10 s).
    pub timeout: Duration,
}

impl Default for WalkLimits {
    fn default() -> Self {
        Self {
            max_depth: 32,
            max_entries: 20_000,
            timeout: Duration::from_secs(10),
        }
    }
}

/// The default read and write limit: 10 MiB.
pub const DEFAULT_MAX_BYTES: u64 = 10 * 1024 * 1024;

impl Default for FsPolicy {
    fn default() -> Self {
        Self::new()
    }
}

impl FsPolicy {
    /// A policy with no directories yet and the defaults above.
    pub fn new() -> Self {
        Self {
            dirs: Vec::new(),
            extensions: None,
            max_read_bytes: DEFAULT_MAX_BYTES,
            max_write_bytes: DEFAULT_MAX_BYTES,
            read_only: false,
            allow_hard_links: false,
            walk: WalkLimits::default(),
        }
    }

    /// Allows a directory and everything beneath it. It must exist when the service starts.
    /// Relative paths are taken against the current directory at that moment.
    pub fn allow_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.dirs.push(dir.into());
        self
    }

    /// Allows several directories.
    pub fn allow_dirs<I, P>(mut self, dirs: I) -> Self
    where
        I: IntoIterator<Item = P>,
        P: Into<PathBuf>,
    {
        self.dirs.extend(dirs.into_iter().map(Into::into));
        self
    }

    /// Restricts files to an extension (with or without the leading dot; see the type's
    /// documentation for the case rule). Without any call, every extension is allowed.
    pub fn allow_extension(mut self, ext: impl AsRef<str>) -> Self {
        let ext = ext.as_ref();
        let ext = ext.strip_prefix('.').unwrap_or(ext).to_ascii_lowercase();
        self.extensions.get_or_insert_with(Vec::new).push(ext);
        self
    }

    /// Restricts files to several extensions.
    pub fn allow_extensions<I, S>(self, exts: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        exts.into_iter().fold(self, |p, e| p.allow_extension(e))
    }

    /// The largest file a read returns whole, in bytes (`head`/`tail` read at most this much).
    pub fn max_read_bytes(mut self, bytes: u64) -> Self {
        self.max_read_bytes = bytes;
        self
    }

    /// The largest content a write or an edit stores, in bytes.
    pub fn max_write_bytes(mut self, bytes: u64) -> Self {
        self.max_write_bytes = bytes;
        self
    }

    /// Refuses every change (writes, edits other than dry runs, new directories, moves).
    pub fn read_only(mut self, yes: bool) -> Self {
        self.read_only = yes;
        self
    }

    /// Admits regular files with more than one hard link. Off by default: a hard link inside
    /// a root can name a file that lives outside it, and no path check can tell.
    pub fn allow_hard_links(mut self, yes: bool) -> Self {
        self.allow_hard_links = yes;
        self
    }

    /// Bounds listings, trees and searches.
    pub fn walk_limits(mut self, limits: WalkLimits) -> Self {
        self.walk = limits;
        self
    }

    /// The directories, as given.
    pub fn dirs(&self) -> &[PathBuf] {
        &self.dirs
    }

    /// The allowed extensions (lower case, without dots), or `None` for all.
    pub fn extensions(&self) -> Option<&[String]> {
        self.extensions.as_deref()
    }

    /// Whether the policy refuses every change.
    pub fn is_read_only(&self) -> bool {
        self.read_only
    }

    /// The read limit in bytes.
    pub fn read_limit(&self) -> u64 {
        self.max_read_bytes
    }

    /// The write limit in bytes.
    pub fn write_limit(&self) -> u64 {
        self.max_write_bytes
    }

    /// Whether hard-linked files are admitted.
    pub fn hard_links_allowed(&self) -> bool {
        self.allow_hard_links
    }

    /// The bounds on walks.
    pub fn walk(&self) -> WalkLimits {
        self.walk
    }

    /// Checks the policy itself (not the directories, which the service opens).
    pub(crate) fn validate(&self) -> FsResult<()> {
        if self.dirs.is_empty() {
            return Err(FsError::new(
                FsErrorKind::Config,
                "no allowed directories: give at least one",
            ));
        }
        for ext in self.extensions.iter().flatten() {
            if ext.is_empty() || ext.contains(['/', '\0']) || ext.ends_with('.') {
                return Err(FsError::new(
                    FsErrorKind::Config,
                    format!("invalid allowed extension {ext:?}"),
                ));
            }
        }
        Ok(())
    }

    /// Whether a file's own name (not a path) carries an allowed extension.
    pub(crate) fn extension_allowed(&self, name: &OsStr) -> bool {
        let Some(allowed) = &self.extensions else {
            return true;
        };
        let name = name.as_encoded_bytes();
        allowed.iter().any(|ext| {
            let ext = ext.as_bytes();
            // `stem` + `.` + `ext`, with a non-empty stem.
            name.len() > ext.len() + 1
                && name[name.len() - ext.len() - 1] == b'.'
                && name[name.len() - ext.len()..].eq_ignore_ascii_case(ext)
        })
    }

    /// The error for a file whose extension is not allowed.
    pub(crate) fn extension_error(&self, requested: &str, name: &Path) -> FsError {
        let list = self
            .extensions
            .iter()
            .flatten()
            .map(|e| format!(".{e}"))
            .collect::<Vec<_>>()
            .join(", ");
        let via = if Path::new(requested).file_name() == name.file_name() {
            String::new()
        } else {
            format!(" (it resolves to {:?})", name.to_string_lossy())
        };
        FsError::new(
            FsErrorKind::ExtensionNotAllowed,
            format!(
                "access denied: {}{via} does not have an allowed extension; allowed: {list}",
                super::error::Quoted(requested)
            ),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn allowed(p: &FsPolicy, name: &str) -> bool {
        p.extension_allowed(OsStr::new(name))
    }

    #[test]
    fn extension_rule() {
        let p = FsPolicy::new().allow_extensions([".txt", "tar.gz"]);
        for ok in ["a.txt", "A.TXT", "x.Txt", "b.tar.gz", "c.d.txt", "..txt"] {
            assert!(allowed(&p, ok), "{ok} should be allowed");
        }
        for no in [
            "a.txt.", "a.txt ", ".txt", "txt", "a.txt/", "a.bin", "a.tхt", "a.gz", "a_txt", "",
        ] {
            assert!(!allowed(&p, no), "{no} should be refused");
        }
        assert!(allowed(&FsPolicy::new(), "anything"));
    }

    #[test]
    fn validation() {
        assert_eq!(
            FsPolicy::new().validate().unwrap_err().kind(),
            FsErrorKind::Config
        );
        let bad = FsPolicy::new().allow_dir("/").allow_extension(".");
        assert_eq!(bad.validate().unwrap_err().kind(), FsErrorKind::Config);
        assert!(FsPolicy::new().allow_dir("/").validate().is_ok());
    }
}
