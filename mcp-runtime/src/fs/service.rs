//! [`FileService`]: the async API over the confined operations.

use super::audit::AuditRecord;
use super::edit::{EditOutcome, TextEdit};
use super::error::{FsError, FsResult};
use super::info::FileInfo;
use super::path::FsPath;
use super::policy::FsPolicy;
use super::read::{LineRange, MediaFile};
use super::resolve::{Core, Location, Root};
use super::walk::{DirListing, DirectoryTree, FoundFiles, SearchMatches};
use super::write::WriteOutcome;
use super::{atomic, edit, info, read, walk, write};
use std::ffi::OsString;
use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

/// Confined file access for tools: every path is resolved beneath one of the allowed
/// directories by the kernel, and every operation is audited.
///
/// Cheap to clone (one `Arc`). The async methods must run inside a Tokio runtime: each does
/// its file-system work in one [`tokio::task::spawn_blocking`] call, because file-system
/// system calls block the thread (there is no readiness-based async I/O for files, and
/// `tokio::fs` itself does the same per call; one hop per operation is cheaper than one per
/// system call). Cancel safety: dropping a returned future does not stop the blocking work;
/// a write then still completes or fails atomically.
///
/// ```
/// use mcp_runtime::fs::{FileService, FsPolicy, LineRange};
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let dir = tempfile::tempdir()?;
/// let files = FileService::new(FsPolicy::new().allow_dir(dir.path()).allow_extension("md"))?
///     .for_tool("example");
///
/// files.create_directory("notes").await?;
/// files.write_file("notes/today.md", "first\nsecond\n").await?;
/// assert_eq!(files.read_text_file("notes/today.md", LineRange::Tail(1)).await?, "second");
///
/// // Absolute paths work inside an allowed directory, and only there.
/// let inside = dir.path().join("notes/today.md");
/// assert!(files.read_text_file(inside.to_str().unwrap(), LineRange::All).await.is_ok());
/// let denied = files.read_text_file("/etc/passwd", LineRange::All).await.unwrap_err();
/// assert_eq!(denied.kind(), mcp_runtime::fs::FsErrorKind::OutsideRoots);
/// assert!(files.read_text_file("../x.md", LineRange::All).await.is_err());
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct FileService {
    core: Arc<Core>,
    tool: Option<Arc<str>>,
}

impl fmt::Debug for FileService {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FileService")
            .field("allowed_directories", &self.allowed_directories())
            .field("tool", &self.tool)
            .finish_non_exhaustive()
    }
}

/// Where a move went.
#[derive(Debug, Clone)]
pub struct MoveOutcome {
    /// The entry's old path.
    pub source: FsPath,
    /// Its new path.
    pub destination: FsPath,
}

impl FileService {
    /// Opens every allowed directory once, as a directory handle. A directory that is
    /// missing (or not a directory), an empty list or an invalid extension is an error: the
    /// service never starts with less than it was told.
    pub fn new(policy: FsPolicy) -> FsResult<Self> {
        policy.validate()?;
        let roots = policy
            .dirs
            .iter()
            .map(|d| Root::open(d))
            .collect::<FsResult<Vec<_>>>()?;
        Ok(Self {
            core: Arc::new(Core { roots, policy }),
            tool: None,
        })
    }

    /// The same service, with audit events naming `tool`.
    pub fn for_tool(&self, tool: impl Into<Arc<str>>) -> Self {
        Self {
            core: self.core.clone(),
            tool: Some(tool.into()),
        }
    }

    /// The allowed directories, as paths are shown and matched: as given (made absolute),
    /// or canonical when the given form had `..`. Relative paths resolve against the first.
    pub fn allowed_directories(&self) -> Vec<PathBuf> {
        self.core
            .roots
            .iter()
            .map(|r| r.display.to_path_buf())
            .collect()
    }

    /// The policy the service was built from.
    pub fn policy(&self) -> &FsPolicy {
        &self.core.policy
    }

    async fn run<T, F>(&self, operation: &'static str, requested: &str, f: F) -> FsResult<T>
    where
        T: Send + 'static,
        F: FnOnce(&Core, &mut AuditRecord) -> FsResult<T> + Send + 'static,
    {
        let core = self.core.clone();
        let mut record = AuditRecord::new(operation, self.tool.clone(), requested);
        let fallback = record.clone();
        // In its turn, and told if its request goes away (see `work.rs`); a child span of
        // the request's when a subscriber asks for one.
        let joined = tracing::Instrument::instrument(
            super::work::blocking(move || {
                let result = f(&core, &mut record);
                (result, record)
            }),
            tracing::debug_span!(target: crate::pipeline::REQUEST_TARGET, "file operation", operation),
        )
        .await;
        let (result, record) = joined.unwrap_or_else(|err| (Err(err), fallback));
        record.emit(&result);
        result
    }

    /// [`run`](Self::run) on this thread: for work that must happen where no runtime may be
    /// (a server's `build()`, which loads skill folders).
    // Only the skills loader reads on the calling thread.
    #[cfg_attr(not(feature = "skills"), allow(dead_code))]
    fn run_here<T>(
        &self,
        operation: &'static str,
        requested: &str,
        f: impl FnOnce(&Core, &mut AuditRecord) -> FsResult<T>,
    ) -> FsResult<T> {
        let mut record = AuditRecord::new(operation, self.tool.clone(), requested);
        let result = f(&self.core, &mut record);
        record.emit(&result);
        result
    }

    /// [`read_file_bytes`](Self::read_file_bytes) on this thread (it blocks).
    // Only the skills loader reads on the calling thread.
    #[cfg_attr(not(feature = "skills"), allow(dead_code))]
    pub(crate) fn read_file_bytes_blocking(&self, path: &str) -> FsResult<Vec<u8>> {
        self.run_here("read_bytes", path, |core, audit| {
            let loc = core.locate(path)?;
            audit.located(core, &loc);
            let open = read::open_regular(core, &loc)?;
            read::read_all(core, &loc, &open)
        })
    }

    /// [`list_directory`](Self::list_directory) on this thread (it blocks).
    // Only the skills loader reads on the calling thread.
    #[cfg_attr(not(feature = "skills"), allow(dead_code))]
    pub(crate) fn list_directory_blocking(&self, path: &str) -> FsResult<DirListing> {
        self.run_here("list_directory", path, |core, audit| {
            let loc = core.locate(path)?;
            audit.located(core, &loc);
            walk::list_directory(core, &loc)
        })
    }

    /// Reads a text file whole, or its first or last lines. Invalid UTF-8 is replaced with
    /// U+FFFD. A whole read over the read limit fails with [`FsErrorKind::TooLarge`](super::FsErrorKind::TooLarge); `head`
    /// and `tail` read only what they need (at most the limit).
    pub async fn read_text_file(&self, path: &str, lines: LineRange) -> FsResult<String> {
        let p = path.to_owned();
        self.run("read_text", path, move |core, audit| {
            let loc = core.locate(&p)?;
            audit.located(core, &loc);
            read::read_text(core, &loc, lines)
        })
        .await
    }

    /// Reads a file's bytes (up to the read limit).
    pub async fn read_file_bytes(&self, path: &str) -> FsResult<Vec<u8>> {
        let p = path.to_owned();
        self.run("read_bytes", path, move |core, audit| {
            let loc = core.locate(&p)?;
            audit.located(core, &loc);
            let open = read::open_regular(core, &loc)?;
            read::read_all(core, &loc, &open)
        })
        .await
    }

    /// Reads a file's bytes (up to the read limit), with the name it resolved to (the final
    /// component after following a symlink inside its root): what a file resource needs to
    /// choose its MIME type.
    pub(crate) async fn read_file_resolved(&self, path: &str) -> FsResult<(Vec<u8>, OsString)> {
        let p = path.to_owned();
        self.run("read_bytes", path, move |core, audit| {
            let loc = core.locate(&p)?;
            audit.located(core, &loc);
            let open = read::open_regular(core, &loc)?;
            let bytes = read::read_all(core, &loc, &open)?;
            Ok((bytes, open.resolved))
        })
        .await
    }

    /// Reads a file as base64 with a MIME type from its extension, for an image, audio or
    /// embedded-resource content block.
    pub async fn read_media_file(&self, path: &str) -> FsResult<MediaFile> {
        let p = path.to_owned();
        self.run("read_media", path, move |core, audit| {
            let loc = core.locate(&p)?;
            audit.located(core, &loc);
            read::read_media(core, &loc)
        })
        .await
    }

    /// Creates or replaces a file, atomically: readers see the old content or the new,
    /// never a mix, and a crash leaves no partial file. The parent directory must exist. An
    /// existing file keeps its permission bits (not its owner, and never setuid or setgid).
    /// A final symlink that stays inside the allowed directory is followed.
    pub async fn write_file(
        &self,
        path: &str,
        content: impl Into<Vec<u8>>,
    ) -> FsResult<WriteOutcome> {
        let p = path.to_owned();
        let content = content.into();
        self.run("write", path, move |core, audit| {
            let loc = core.locate(&p)?;
            audit.located(core, &loc);
            write::write_file(core, &loc, &content)
        })
        .await
    }

    /// Applies text edits with the reference server's semantics (exact match first, then a
    /// line-by-line match ignoring surrounding whitespace; see [`TextEdit`]) and returns a
    /// unified diff; with `dry_run` nothing is written. The file must be UTF-8.
    ///
    /// ```
    /// use mcp_runtime::fs::{FileService, FsPolicy, TextEdit};
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let dir = tempfile::tempdir()?;
    /// let files = FileService::new(FsPolicy::new().allow_dir(dir.path()))?;
    /// files.write_file("config.toml", "[server]\n    port = 80\n").await?;
    ///
    /// let edit = vec![TextEdit::new("port = 80", "port = 8080")];
    /// let preview = files.edit_file("config.toml", edit.clone(), true).await?;
    /// assert!(preview.diff.contains("-    port = 80\n+    port = 8080\n"));
    /// assert!(preview.fenced_diff().starts_with("```diff\nIndex: "));
    ///
    /// files.edit_file("config.toml", edit, false).await?;
    /// let bytes = files.read_file_bytes("config.toml").await?;
    /// assert_eq!(bytes, b"[server]\n    port = 8080\n");
    /// # Ok(())
    /// # }
    /// ```
    pub async fn edit_file(
        &self,
        path: &str,
        edits: Vec<TextEdit>,
        dry_run: bool,
    ) -> FsResult<EditOutcome> {
        let p = path.to_owned();
        self.run("edit", path, move |core, audit| {
            let loc = core.locate(&p)?;
            audit.located(core, &loc);
            edit::edit_file(core, &loc, &edits, dry_run)
        })
        .await
    }

    /// Creates a directory and any missing parents; an existing directory is not an error.
    pub async fn create_directory(&self, path: &str) -> FsResult<FsPath> {
        let p = path.to_owned();
        self.run("create_directory", path, move |core, audit| {
            let loc = core.locate(&p)?;
            audit.located(core, &loc);
            write::create_directory(core, &loc)
        })
        .await
    }

    /// Opens a directory inside the allowed directories, confined like every other
    /// operation, and returns its handle and where it is. Made for a child process's
    /// working directory (`CommandService`): on Unix, changing into the descriptor
    /// (`fchdir`) is race-free, where a path checked now and entered later could have been
    /// swapped for a symlink in between. (Windows has no such call: there the child is given
    /// the path Windows reports for the open handle, which stays open meanwhile.)
    pub async fn open_directory(&self, path: &str) -> FsResult<(cap_std::fs::Dir, FsPath)> {
        let p = path.to_owned();
        self.run("open_directory", path, move |core, audit| {
            let loc = core.locate(&p)?;
            audit.located(core, &loc);
            let dir = core.open_dir_target(&loc)?;
            Ok((dir, core.fs_path(&loc)))
        })
        .await
    }

    /// Lists a directory: names, kinds, sizes of regular files, modification times.
    pub async fn list_directory(&self, path: &str) -> FsResult<DirListing> {
        let p = path.to_owned();
        self.run("list_directory", path, move |core, audit| {
            let loc = core.locate(&p)?;
            audit.located(core, &loc);
            walk::list_directory(core, &loc)
        })
        .await
    }

    /// A recursive tree of a directory, leaving out entries matching `exclude_patterns`
    /// (globs on the path relative to `path`; a pattern without `*` also excludes that name
    /// anywhere and everything below it).
    pub async fn directory_tree(
        &self,
        path: &str,
        exclude_patterns: &[String],
    ) -> FsResult<DirectoryTree> {
        let p = path.to_owned();
        let exclude = exclude_patterns.to_vec();
        self.run("directory_tree", path, move |core, audit| {
            let loc = core.locate(&p)?;
            audit.located(core, &loc);
            walk::directory_tree(core, &loc, &exclude)
        })
        .await
    }

    /// Files and directories below `path` whose path relative to it matches the glob
    /// `pattern` (`*.rs` at the top level, `**/*.rs` at any depth), skipping those (and what
    /// is below them) matching one of `exclude_patterns`.
    pub async fn search_files(
        &self,
        path: &str,
        pattern: &str,
        exclude_patterns: &[String],
    ) -> FsResult<SearchMatches> {
        let p = path.to_owned();
        let pattern = pattern.to_owned();
        let exclude = exclude_patterns.to_vec();
        self.run("search_files", path, move |core, audit| {
            let loc = core.locate(&p)?;
            audit.located(core, &loc);
            walk::search_files(core, &loc, &pattern, &exclude)
        })
        .await
    }

    /// Moves or renames a file, directory or symlink (a symlink itself, not its target),
    /// within or between allowed directories. Never overwrites: an existing destination is
    /// [`FsErrorKind::AlreadyExists`](super::FsErrorKind::AlreadyExists).
    pub async fn move_file(&self, source: &str, destination: &str) -> FsResult<MoveOutcome> {
        let (s, d) = (source.to_owned(), destination.to_owned());
        self.run("move", source, move |core, audit| {
            let from = core.locate(&s)?;
            audit.located(core, &from);
            let to = core.locate(&d)?;
            audit.destination(core, &to);
            write::move_entry(core, &from, &to)?;
            Ok(MoveOutcome {
                source: core.fs_path(&from),
                destination: core.fs_path(&to),
            })
        })
        .await
    }

    /// Metadata of a file or directory.
    pub async fn get_file_info(&self, path: &str) -> FsResult<FileInfo> {
        let p = path.to_owned();
        self.run("get_file_info", path, move |core, audit| {
            let loc = core.locate(&p)?;
            audit.located(core, &loc);
            info::file_info(core, &loc)
        })
        .await
    }

    /// Deletes, in the directory at `path` (not below it), the temporary files of writes
    /// whose process died between naming the file and renaming it (`.mcp-tmp-<pid>-<hex>`):
    /// at once when the writer's lock on the file is free, else (a file named from its
    /// creation) once idle for [`STALE_AFTER`](super::STALE_AFTER) with no process `pid`.
    /// Returns how many were removed.
    pub async fn remove_stale_temp_files(&self, path: &str) -> FsResult<usize> {
        let p = path.to_owned();
        self.run("remove_stale_temp_files", path, move |core, audit| {
            let loc = core.locate(&p)?;
            audit.located(core, &loc);
            write::check_writable(core, &loc)?;
            let dir = core.open_dir_target(&loc)?;
            atomic::remove_stale(&dir).map_err(|e| FsError::io(&loc.raw, e))
        })
        .await
    }

    /// Like [`remove_stale_temp_files`](Self::remove_stale_temp_files), in the directory at
    /// `path` and in every directory below it (never through a symlink), within the policy's
    /// [`WalkLimits`](super::WalkLimits): a server calls this at startup to sweep up after a
    /// predecessor that was killed mid-write. Returns how many files were removed.
    pub async fn remove_stale_temp_files_recursively(&self, path: &str) -> FsResult<usize> {
        let p = path.to_owned();
        self.run("remove_stale_temp_files", path, move |core, audit| {
            let loc = core.locate(&p)?;
            audit.located(core, &loc);
            write::check_writable(core, &loc)?;
            let mut removed = 0;
            walk::visit_dirs(core, &loc, &mut |dir| {
                removed += atomic::remove_stale(dir).unwrap_or(0);
            })?;
            Ok(removed)
        })
        .await
    }

    /// The files a bounded listing of every allowed directory shows (see
    /// `walk::readable_files`), walked on this thread. One audit event per allowed directory.
    pub(crate) fn readable_files_blocking(&self, max_files: usize, max_depth: usize) -> FoundFiles {
        let found = walk::readable_files(&self.core, max_files, max_depth);
        for (root, r) in self.core.roots.iter().enumerate() {
            let loc = Location {
                raw: r.display.to_string_lossy().into_owned(),
                root,
                rel: Vec::new(),
                trailing_slash: false,
            };
            let mut record = AuditRecord::new("list_files", self.tool.clone(), &loc.raw);
            record.located(&self.core, &loc);
            record.emit(&Ok::<(), FsError>(()));
        }
        found
    }

    /// [`readable_files_blocking`](Self::readable_files_blocking) on a blocking thread.
    pub(crate) async fn readable_files(&self, max_files: usize, max_depth: usize) -> FoundFiles {
        let this = self.clone();
        tokio::task::spawn_blocking(move || this.readable_files_blocking(max_files, max_depth))
            .await
            .unwrap_or_default()
    }

    /// Those of `paths` (absolute, or below the first directory) that would leave the allowed
    /// directories once resolved, symlinks followed, each with the refusal; a path inside,
    /// existing or not, passes. No audit event of its own: for a caller that checks the
    /// arguments of an operation it audits (the command service's operands).
    #[cfg(feature = "command")]
    pub(crate) async fn leaving(&self, paths: Vec<String>) -> FsResult<Vec<(String, FsError)>> {
        let core = self.core.clone();
        super::work::blocking(move || {
            paths
                .into_iter()
                .filter_map(|path| {
                    let resolved = core
                        .locate(&path)
                        .and_then(|loc| info::file_info(&core, &loc).map(drop));
                    match resolved {
                        Err(e) if leaves(e.kind()) => Some((path, e)),
                        _ => None,
                    }
                })
                .collect()
        })
        .await
    }

    /// The allowed directory a path belongs to and the path below it, without touching the
    /// file system (the lexical rules and root choice only).
    pub fn locate(&self, path: &str) -> FsResult<FsPath> {
        let loc = self.core.locate(path)?;
        Ok(self.core.fs_path(&loc))
    }
}

/// Whether a refusal of [`FileService::leaving`] means the path leaves the directories. On
/// Windows also a path the rules cannot read (a root-relative `\\x`, a device name), which a
/// program would resolve against the current drive; elsewhere such a "path" (a backslash in
/// a sed script) is no path at all.
#[cfg(feature = "command")]
fn leaves(kind: super::FsErrorKind) -> bool {
    use super::FsErrorKind::{InvalidPath, OutsideRoots, SymlinkLoop};
    matches!(kind, OutsideRoots | SymlinkLoop) || (cfg!(windows) && kind == InvalidPath)
}
