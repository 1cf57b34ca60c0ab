//! Confined file access: a [`FileService`] that lets tools read and change files inside
//! allowed directories, and nowhere else, whatever path a model sends.
//!
//! Start from a [`FsPolicy`], build the service once at startup, and give each tool a
//! [`FileService::for_tool`] copy so its audit events carry the tool's name. The operations
//! mirror the reference `@modelcontextprotocol/server-filesystem` tools, and [`FileTools`] is
//! those tools (same names, arguments and result shapes) as a thin layer over this module.
//! For tools of your own, a parameter of type `FileService` is injected from the server's
//! state (`ServerBuilder::state`). [`FileResources`] serves the same files as `file://`
//! resources (a bounded listing and the template `file:///{+path}`), read through the same
//! rules.
//!
//! ```
//! use mcp_runtime::fs::{FileService, FileTools, FsPolicy};
//! use mcp_runtime::prelude::*;
//! use std::sync::Arc;
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let dir = tempfile::tempdir()?;
//! # let notes = dir.path();
//! let files = FileService::new(FsPolicy::new().allow_dir(notes).allow_extension("md"))?;
//! let server = Server::builder("notes", "1.0.0")
//!     .tools(Arc::new(FileTools::new(files)).mcp_tools())
//!     .build()?;
//! assert_eq!(server.tools().names().len(), 14);
//! # Ok(())
//! # }
//! ```
//!
//! # How confinement works
//!
//! File access is confined by the kernel, not by string checks:
//!
//! - Each allowed directory is opened **once**, at startup, as a directory handle (cap-std
//!   [`Dir`](cap_std::fs::Dir)); a missing one is a startup error.
//! - Every operation resolves its path **relative to that handle** with cap-std, which uses
//!   openat2 `RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS` on Linux: `..`, absolute symlinks and
//!   symlinks that climb out are refused by the kernel, atomically with the lookup, so a
//!   directory swapped for a symlink between "check" and "use" gains nothing. There is no
//!   `canonicalize()` + `starts_with` guard anywhere.
//! - Resolution ends in a directory handle and a single name. Everything after is a
//!   one-component `*at` call on that handle (`O_NOFOLLOW` when opening): the path string
//!   is never used again, and what is checked is exactly what is used: no trimming, no
//!   case folding, no decoding after the check.
//!
//! # Decisions
//!
//! - **Paths.** Relative paths resolve against the *first* allowed directory. Absolute
//!   paths must lie inside an allowed directory, compared component by component (so
//!   `/x/allowed_evil` is not inside `/x/allowed`); this only picks the root, the handle
//!   confines. The lexical rules (empty, NUL, backslashes, `..` resolved beneath the root,
//!   `~`, lengths, trailing `/`) are listed in `path.rs`.
//! - **Roots spelled through an alias** (a symlink, e.g. `/tmp` → `/private/tmp`): the handle
//!   is opened through the alias at startup. Absolute requests may use the spelling as given
//!   or the canonical one; paths are shown with the spelling as given.
//! - **`file://` URIs**: `file:///abs` and `file://localhost/abs` are percent-decoded once,
//!   before any check, then treated as absolute paths. Other hosts, queries, fragments and
//!   other schemes are refused. Plain paths are never decoded (`%2e%2e` is a name).
//! - **Symlinks** are followed only while they stay inside their root: relative targets
//!   resolved beneath the root; absolute targets refused (as `RESOLVE_BENEATH` does), even
//!   when they name a place inside, and a link whose text climbs above the root and back in
//!   (`../root/x`) is refused too. A symlink never leads from one root into another.
//!   Walks (listings, trees, searches) never follow symlinks at all, and sort entries by name
//!   (byte order; the reference server returns directory order).
//! - **Regular files only.** Reads check the type with `lstat` before opening, open with
//!   `O_NONBLOCK | O_NOFOLLOW | O_NOCTTY`, and check again with `fstat` on the descriptor:
//!   FIFOs, sockets and devices are refused and never block.
//! - **Hard links.** A regular file with more than one link is refused (reads, writes,
//!   edits, moves, info; listings withhold its size) unless
//!   [`FsPolicy::allow_hard_links`]: a hard link inside a root can be a file outside it.
//! - **Extensions** (optional): ASCII-case-insensitive, checked on the name asked for and on
//!   the name it resolves to; see [`FsPolicy`]. Directories have none. Walks leave out
//!   files with other extensions.
//! - **Writes are atomic**: see `atomic.rs`: an anonymous `O_TMPFILE` in the target's
//!   directory, `fsync`, then linked or renamed into place. A process killed mid-write leaves
//!   the old file or the new one and no stray file; the rare exception (a kill between the
//!   link and the rename) is a complete `.mcp-tmp-<pid>-<hex>-<check>` file in the same
//!   directory, which [`FileService::remove_stale_temp_files`] (one directory) and
//!   [`FileService::remove_stale_temp_files_recursively`] (a tree) delete once it is provably
//!   ours (our marker, our user, one link) and abandoned: at once when its writer's lock on it
//!   is free (the file was locked before it had a name, so a free lock means no process holds
//!   it, whatever its id says now); a file named from its creation (no `O_TMPFILE`, other
//!   systems) once idle for [`STALE_AFTER`] with its process gone. A server calls them at
//!   startup, so a restart after a kill leaves nothing behind.
//! - **Errors** ([`FsError`]) have kinds to branch on and texts that help a model correct
//!   itself; they quote only the requested path and never what lies outside the roots.
//! - **Audit**: every operation emits one `tracing` event, target [`AUDIT_TARGET`]
//!   (`mcp::audit`), with operation, tool, root, path relative to it, and outcome.
//! - **Limits**: reads and writes are capped ([`FsPolicy::max_read_bytes`],
//!   [`FsPolicy::max_write_bytes`]); walks are bounded in depth, entries and time
//!   ([`WalkLimits`]) and report truncation instead of failing.
//!
//!
//! # On each system
//!
//! The rules above are the same everywhere; how the system enforces them differs:
//!
//! - **Linux**: as described: openat2 `RESOLVE_BENEATH` confines every lookup in the
//!   kernel, atomically; writes go through an anonymous `O_TMPFILE`.
//! - **macOS** (and other Unix systems): no openat2, so cap-std walks the path one component
//!   at a time with `openat(O_NOFOLLOW)` from the root's handle, reading each symlink and
//!   checking it stays beneath; every step is a handle, so a directory swapped for a link
//!   mid-walk is met as a link and checked, not followed. Writes go through a named
//!   temporary file (no `O_TMPFILE`), so a kill mid-write can leave one, which the age rule
//!   removes. Reads, types, hard-link checks and moves (`renameat`, after checking the
//!   destination is free) are as on Linux; `RENAME_NOREPLACE` is Linux's, so on macOS a move
//!   racing with a file created at its destination in between could replace it.
//! - **Windows**: the request is first read with Windows' syntax (`\` and `/`, drive paths),
//!   and every spelling Windows would read as something other than a plain name is refused
//!   before any I/O: UNC and device paths, drive-relative paths, alternate data streams,
//!   reserved device names, trailing dots and spaces, 8.3 short names (see `path.rs`).
//!   Extensions compare case-insensitively, as everywhere. cap-std then resolves beneath
//!   the root's handle component by component, opening each with
//!   `FILE_FLAG_OPEN_REPARSE_POINT`, so symbolic links and junctions are met as links: one
//!   that stays inside is followed, one that leads out (a junction's target is always
//!   absolute) is refused; walks never follow them. What it does not guarantee: cap-std
//!   opens each step by the full path Windows reports for the handle so far, so a rename of
//!   a directory *above* a step, between two steps, could redirect that step (the handles it
//!   holds keep their directories from being removed, not from being renamed); there is no
//!   `O_NONBLOCK`/`O_NOCTTY` (Windows has no FIFOs in a directory tree); a replacement
//!   keeps no permission bits (there are none; a read-only target makes the write fail);
//!   moves never replace (`MoveFileExW` without `MOVEFILE_REPLACE_EXISTING`); directories
//!   are not synced; and the leftover sweep has no lock proof and no owner check (see
//!   `atomic.rs`).

mod atomic;
mod audit;
mod diff;
mod edit;
mod error;
mod file_resource;
mod format;
mod info;
pub(crate) mod path;
mod policy;
mod read;
mod resolve;
mod resources;
mod service;
mod tool_io;
mod tools;
mod walk;
mod work;
mod write;

#[cfg(feature = "fuzzing")]
pub(crate) use atomic::temp_file_name;
pub use atomic::{STALE_AFTER, TEMP_PREFIX};
pub use audit::AUDIT_TARGET;
pub use edit::{EditOutcome, TextEdit};
pub use error::{FsError, FsErrorKind, FsResult};
pub use file_resource::{FILE_URI_TEMPLATE, FileTemplate};
pub use info::FileInfo;
pub use path::FsPath;
pub use policy::{DEFAULT_MAX_BYTES, FsPolicy, WalkLimits};
pub use read::{LineRange, MediaFile, MediaKind, media_type};
pub use resources::{DEFAULT_MAX_DEPTH, DEFAULT_MAX_FILES, FileResources, ListingChange};
pub use service::{FileService, MoveOutcome};
pub use tools::FileTools;
pub use walk::{
    DirEntryInfo, DirListing, DirectoryTree, EntryKind, SearchMatches, TreeNode, Truncation,
    format_size,
};
pub use write::WriteOutcome;
