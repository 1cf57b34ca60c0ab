//! Listings, trees and searches: bounded walks that never follow a symlink.
//!
//! Subdirectories are entered with `openat(O_NOFOLLOW | O_DIRECTORY)` on the parent's handle,
//! so a symlink (to a directory inside the root or out of it, or to itself) is an entry, never
//! a way in: no escape, no loop, no entry listed twice. Every walk is bounded by the policy's
//! [`WalkLimits`](super::WalkLimits) in depth, entries and time, and says when it stopped
//! early. Files whose extension the policy does not allow are left out; sizes are those of
//! the entries themselves (`lstat`), never of what a symlink points to, and a hard-linked
//! file's size is withheld unless the policy admits hard links.
//!
//! Walks are iterative (an explicit stack, never recursion, so no depth exhausts a thread's
//! stack) and hold few descriptors: at most [`KEEP_OPEN`] directory handles along the current
//! path, re-opening an ancestor from the nearest one still open when the walk climbs back to
//! it; at most [`MAX_CONCURRENT_WALKS`] walks run at once in the process (a walk waits for a
//! slot until its deadline). So no tree and no number of concurrent searches exhausts the
//! process's descriptors.

use super::error::{FsError, FsResult};
use super::path::FsPath;
use super::resolve::{Core, Location, open_dir_nofollow};
use cap_fs_ext::MetadataExt as _;
use cap_std::fs::Dir;
use globset::{Glob, GlobBuilder, GlobSet, GlobSetBuilder};
use serde::Serialize;
use std::ffi::OsString;
use std::sync::{Condvar, Mutex};
use std::time::{Instant, SystemTime};

/// What a directory entry is (the entry itself; symlinks are not followed).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EntryKind {
    /// A regular file.
    File,
    /// A directory.
    Directory,
    /// A symbolic link (wherever it points).
    Symlink,
    /// A FIFO, socket or device.
    Other,
}

/// Why a walk stopped before the end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Truncation {
    /// It visited the maximum number of entries.
    Entries,
    /// Directories below the maximum depth were not entered.
    Depth,
    /// It ran out of time.
    Time,
}

/// One entry of a directory listing.
#[derive(Debug, Clone)]
pub struct DirEntryInfo {
    /// The entry's name (invalid UTF-8 replaced with U+FFFD).
    pub name: String,
    /// What it is.
    pub kind: EntryKind,
    /// The size in bytes, for regular files (withheld for hard-linked files unless the policy
    /// admits them).
    pub size: Option<u64>,
    /// When it was last modified.
    pub modified: Option<SystemTime>,
}

/// A directory's entries, sorted by name (byte order).
#[derive(Debug, Clone)]
pub struct DirListing {
    /// The directory, as asked for.
    pub path: FsPath,
    /// The entries.
    pub entries: Vec<DirEntryInfo>,
    /// Set when the listing stopped early.
    pub truncated: Option<Truncation>,
}

/// A node of a [`DirectoryTree`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TreeNode {
    /// The entry's name.
    pub name: String,
    /// What it is.
    pub kind: EntryKind,
    /// A directory's children (empty if it was not entered); `None` for anything else.
    pub children: Option<Vec<TreeNode>>,
}

/// The reference server's JSON shape: `{"name", "type": "file"|"directory", "children"?}`,
/// where anything that is not a directory (a symlink included) is a `file`.
impl Serialize for TreeNode {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut st = s.serialize_struct("TreeNode", 3)?;
        st.serialize_field("name", &self.name)?;
        let kind = match self.kind {
            EntryKind::Directory => "directory",
            _ => "file",
        };
        st.serialize_field("type", kind)?;
        if let Some(children) = &self.children {
            st.serialize_field("children", children)?;
        }
        st.end()
    }
}

/// A recursive view of a directory, entries sorted by name at each level.
#[derive(Debug, Clone)]
pub struct DirectoryTree {
    /// The directory, as asked for.
    pub path: FsPath,
    /// Its entries.
    pub nodes: Vec<TreeNode>,
    /// Set when the walk stopped early.
    pub truncated: Option<Truncation>,
}

impl DirectoryTree {
    /// The nodes as JSON indented by two spaces: the reference server's `directory_tree`
    /// result text.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(&self.nodes).unwrap_or_else(|_| "[]".to_owned())
    }
}

/// The paths a search found, in walk order (depth-first, by name).
#[derive(Debug, Clone)]
pub struct SearchMatches {
    /// The matching files and directories.
    pub matches: Vec<FsPath>,
    /// Set when the search stopped early.
    pub truncated: Option<Truncation>,
}

/// A size as the reference server prints it: `0 B`, `512 B`, `1.50 KB`, `2.00 MB`, … (units
/// of 1024, two decimals).
pub fn format_size(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KB", "MB", "GB", "TB"];
    if bytes == 0 {
        return "0 B".to_owned();
    }
    let mut unit = 0;
    while unit + 1 < UNITS.len() && bytes >= 1024u64.pow(unit as u32 + 1) {
        unit += 1;
    }
    if unit == 0 {
        return format!("{bytes} B");
    }
    // Hundredths, rounded half up as JavaScript's `toFixed(2)` does (Rust's `{:.2}` rounds
    // half to even: 1152 bytes would be "1.12 KB" instead of the reference's "1.13 KB").
    let divisor = 1024u128.pow(unit as u32);
    let hundredths = (u128::from(bytes) * 200 + divisor) / (2 * divisor);
    format!(
        "{}.{:02} {}",
        hundredths / 100,
        hundredths % 100,
        UNITS[unit]
    )
}

/// How many directory handles one walk keeps open along its current path.
pub(crate) const KEEP_OPEN: usize = 16;

/// How many walks run at once in the process; more wait for a slot.
pub(crate) const MAX_CONCURRENT_WALKS: usize = 16;

/// The process's walk slots (a counting semaphore for blocking threads; tokio's is for
/// tasks, and walks run on the blocking pool).
static WALKS: (Mutex<usize>, Condvar) = (Mutex::new(0), Condvar::new());

/// One walk's slot; given back when dropped.
struct WalkSlot;

impl WalkSlot {
    /// Waits for a slot until `deadline`; `None` when none came in time.
    fn acquire(deadline: Instant) -> Option<Self> {
        let (count, freed) = &WALKS;
        let mut running = count.lock().unwrap_or_else(|e| e.into_inner());
        while *running >= MAX_CONCURRENT_WALKS {
            let left = deadline.checked_duration_since(Instant::now())?;
            running = freed
                .wait_timeout(running, left)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        *running += 1;
        Some(WalkSlot)
    }
}

impl Drop for WalkSlot {
    fn drop(&mut self) {
        let (count, freed) = &WALKS;
        *count.lock().unwrap_or_else(|e| e.into_inner()) -= 1;
        freed.notify_one();
    }
}

/// How much a walk may still do.
struct Budget {
    deadline: Instant,
    entries_left: usize,
    max_depth: usize,
    truncated: Option<Truncation>,
    /// `None` when no slot came before the deadline: the walk does nothing (`Time`).
    _slot: Option<WalkSlot>,
}

impl Budget {
    fn new(core: &Core) -> Self {
        let limits = core.policy.walk;
        let deadline = Instant::now() + limits.timeout;
        let slot = WalkSlot::acquire(deadline);
        Self {
            deadline,
            entries_left: if slot.is_some() {
                limits.max_entries
            } else {
                0
            },
            max_depth: limits.max_depth,
            truncated: slot.is_none().then_some(Truncation::Time),
            _slot: slot,
        }
    }

    /// Takes one entry from the budget; false once it is spent (the reason is recorded).
    fn take(&mut self) -> bool {
        if self.truncated.is_some_and(|t| t != Truncation::Depth) {
            return false;
        }
        // Cancelled: stop as if out of time; nobody will see the result.
        if super::work::cancelled() {
            self.truncated = Some(Truncation::Time);
            return false;
        }
        if self.entries_left == 0 {
            self.truncated = Some(Truncation::Entries);
            return false;
        }
        if Instant::now() >= self.deadline {
            self.truncated = Some(Truncation::Time);
            return false;
        }
        self.entries_left -= 1;
        true
    }

    /// Whether a directory at `level` (the start's entries are level 1) may be entered.
    fn may_enter(&mut self, level: usize) -> bool {
        if level > self.max_depth {
            self.truncated.get_or_insert(Truncation::Depth);
            return false;
        }
        true
    }
}

struct Entry {
    name: String,
    raw: OsString,
    kind: EntryKind,
}

/// The entries of `dir`, sorted by name, within the budget, without the files the policy's
/// extensions exclude.
fn entries(core: &Core, dir: &Dir, budget: &mut Budget) -> std::io::Result<Vec<Entry>> {
    let mut out = Vec::new();
    for entry in dir.entries()? {
        if !budget.take() {
            break;
        }
        let Ok(entry) = entry else { continue };
        let raw = entry.file_name();
        let kind = match entry.file_type() {
            Ok(t) if t.is_dir() => EntryKind::Directory,
            Ok(t) if t.is_file() => EntryKind::File,
            Ok(t) if t.is_symlink() => EntryKind::Symlink,
            _ => EntryKind::Other,
        };
        if kind != EntryKind::Directory && !core.policy.extension_allowed(&raw) {
            continue;
        }
        out.push(Entry {
            name: raw.to_string_lossy().into_owned(),
            raw,
            kind,
        });
    }
    out.sort_by(|a, b| a.raw.cmp(&b.raw));
    Ok(out)
}

pub(crate) fn list_directory(core: &Core, loc: &Location) -> FsResult<DirListing> {
    let dir = core.open_dir_target(loc)?;
    let mut budget = Budget::new(core);
    let found = entries(core, &dir, &mut budget).map_err(|e| FsError::io(&loc.raw, e))?;
    let entries = found
        .into_iter()
        .map(|e| {
            let meta = dir.symlink_metadata(&e.raw).ok();
            let size = meta.as_ref().and_then(|m| {
                let shown = m.is_file() && (m.nlink() == 1 || core.policy.allow_hard_links);
                shown.then(|| m.len())
            });
            DirEntryInfo {
                name: e.name,
                kind: e.kind,
                size,
                modified: meta.and_then(|m| m.modified().ok()).map(|t| t.into_std()),
            }
        })
        .collect();
    Ok(DirListing {
        path: core.fs_path(loc),
        entries,
        truncated: budget.truncated,
    })
}

/// A glob matching paths relative to the walk's start: `*` does not cross `/`, `**` does,
/// dot-files match like any other (the reference's `minimatch` with `dot: true`).
fn glob(pattern: &str) -> FsResult<Glob> {
    GlobBuilder::new(pattern)
        .literal_separator(true)
        .backslash_escape(true)
        .build()
        .map_err(|e| {
            FsError::invalid_argument(format!("invalid glob pattern {pattern:?}: {}", e.kind()))
        })
}

fn glob_set(patterns: impl IntoIterator<Item = String>) -> FsResult<GlobSet> {
    let mut builder = GlobSetBuilder::new();
    for p in patterns {
        builder.add(glob(&p)?);
    }
    builder
        .build()
        .map_err(|e| FsError::invalid_argument(format!("invalid glob patterns: {e}")))
}

/// The reference's tree exclusion: a pattern with `*` matches the relative path; one
/// without also excludes that name anywhere, and anything below it.
fn tree_excludes(patterns: &[String]) -> FsResult<GlobSet> {
    glob_set(patterns.iter().flat_map(|p| {
        if p.contains('*') {
            vec![p.clone()]
        } else {
            vec![p.clone(), format!("**/{p}"), format!("**/{p}/**")]
        }
    }))
}

fn join(prefix: &str, name: &str) -> String {
    if prefix.is_empty() {
        name.to_owned()
    } else {
        format!("{prefix}/{name}")
    }
}

pub(crate) fn directory_tree(
    core: &Core,
    loc: &Location,
    exclude: &[String],
) -> FsResult<DirectoryTree> {
    let exclude = tree_excludes(exclude)?;
    let dir = core.open_dir_target(loc)?;
    let mut budget = Budget::new(core);
    // The children being collected at each open level; a directory's node is pushed with
    // empty children, filled when the walk leaves it.
    let mut levels: Vec<Vec<TreeNode>> = Vec::new();
    let walked = depth_first(core, dir, &mut budget, &mut |event| match event {
        Event::Entry { entry, rel, .. } => {
            if exclude.is_match(rel) {
                return false;
            }
            let is_dir = entry.kind == EntryKind::Directory;
            if let Some(level) = levels.last_mut() {
                level.push(TreeNode {
                    name: entry.name.clone(),
                    kind: entry.kind,
                    children: is_dir.then(Vec::new),
                });
            }
            is_dir
        }
        Event::Enter { .. } => {
            levels.push(Vec::new());
            true
        }
        Event::Leave => {
            let children = levels.pop().unwrap_or_default();
            if let Some(node) = levels.last_mut().and_then(|level| level.last_mut()) {
                node.children = Some(children);
            }
            true
        }
    });
    walked.map_err(|e| FsError::io(&loc.raw, e))?;
    Ok(DirectoryTree {
        path: core.fs_path(loc),
        nodes: levels.into_iter().next().unwrap_or_default(),
        truncated: budget.truncated,
    })
}

/// What a depth-first walk tells its caller.
enum Event<'a> {
    /// An entry of the directory being read; the caller answers whether to enter it (only
    /// directories are entered, within the depth limit).
    Entry {
        entry: &'a Entry,
        rel: &'a str,
        at: &'a [OsString],
    },
    /// A directory was entered (after its `Entry`); its entries follow.
    Enter { dir: &'a Dir },
    /// The walk is done with the directory entered last.
    Leave,
}

/// One open level of a depth-first walk. Frame `i` of the stack is the directory
/// `path[..i]` below the start, and its entries are at level `i + 1`.
struct Frame {
    /// Its handle, while it is among the [`KEEP_OPEN`] deepest (the start's always).
    dir: Option<Dir>,
    /// Its path below the start, as the relative path globs match.
    rel: String,
    /// Its entries not yet seen.
    pending: std::vec::IntoIter<Entry>,
}

/// Walks `start` depth-first, in name order, with an explicit stack (see the module docs
/// for the descriptors it holds). `on` gets every event; returning `false` from an `Entry`
/// does not enter it (the return value of the others is ignored). The start itself gets an
/// `Enter` first; unreadable subdirectories are skipped.
fn depth_first(
    core: &Core,
    start: Dir,
    budget: &mut Budget,
    on: &mut dyn FnMut(Event<'_>) -> bool,
) -> std::io::Result<()> {
    on(Event::Enter { dir: &start });
    let first = entries(core, &start, budget)?;
    let mut stack = vec![Frame {
        dir: Some(start),
        rel: String::new(),
        pending: first.into_iter(),
    }];
    // The names from the start to the top frame, one per frame above the start's.
    let mut path: Vec<OsString> = Vec::new();
    while let Some(top) = stack.last_mut() {
        let Some(entry) = top.pending.next() else {
            stack.pop();
            if path.pop().is_some() {
                on(Event::Leave);
            }
            continue;
        };
        let rel = join(&top.rel, &entry.name);
        let level = stack.len();
        let wanted = on(Event::Entry {
            entry: &entry,
            rel: &rel,
            at: &path,
        });
        if !wanted || entry.kind != EntryKind::Directory || !budget.may_enter(level) {
            continue;
        }
        let Some(parent) = reopen_top(&mut stack, &path) else {
            continue;
        };
        let Ok(sub) = open_dir_nofollow(parent, &entry.raw) else {
            continue;
        };
        let Ok(listed) = entries(core, &sub, budget) else {
            continue;
        };
        path.push(entry.raw);
        on(Event::Enter { dir: &sub });
        stack.push(Frame {
            dir: Some(sub),
            rel,
            pending: listed.into_iter(),
        });
        // Keep the start's handle and the deepest ones; an ancestor in between is
        // re-opened if the walk comes back to it.
        let len = stack.len();
        if len > KEEP_OPEN + 1 {
            stack[len - KEEP_OPEN - 1].dir = None;
        }
    }
    Ok(())
}

/// The handle of the stack's top frame (the directory `path` below the start), re-opened
/// from its nearest open ancestor if it was let go; `None` if that fails (the directory was
/// removed or replaced meanwhile).
fn reopen_top<'s>(stack: &'s mut [Frame], path: &[OsString]) -> Option<&'s Dir> {
    let (top, ancestors) = stack.split_last_mut()?;
    if top.dir.is_none() {
        let base = ancestors.iter().rposition(|f| f.dir.is_some())?;
        let below = &path[base..];
        top.dir = Some(open_below(ancestors[base].dir.as_ref()?, below).ok()?);
    }
    top.dir.as_ref()
}

/// Opens the directory `names` below `base`, one component at a time, never through a
/// symlink; holds one extra handle at a time.
fn open_below(base: &Dir, names: &[OsString]) -> std::io::Result<Dir> {
    let mut dir = base.try_clone()?;
    for name in names {
        dir = open_dir_nofollow(&dir, name)?;
    }
    Ok(dir)
}

/// Calls `f` on the directory at `loc` and on every directory below it (entered the same
/// way as the other walks: never through a symlink), within the walk limits.
pub(crate) fn visit_dirs(
    core: &Core,
    loc: &Location,
    f: &mut dyn FnMut(&Dir),
) -> FsResult<Option<Truncation>> {
    let dir = core.open_dir_target(loc)?;
    let mut budget = Budget::new(core);
    // An unreadable start or subdirectory is skipped, as in searches.
    let _ = depth_first(core, dir, &mut budget, &mut |event| match event {
        Event::Enter { dir } => {
            f(dir);
            true
        }
        Event::Entry { entry, .. } => entry.kind == EntryKind::Directory,
        Event::Leave => true,
    });
    Ok(budget.truncated)
}

/// A regular file found by [`readable_files`].
#[derive(Debug, Clone)]
pub(crate) struct FoundFile {
    /// Where it is.
    pub(crate) path: FsPath,
    /// Its size in bytes.
    pub(crate) size: u64,
    /// When it was last modified.
    pub(crate) modified: Option<SystemTime>,
}

/// What [`readable_files`] found.
#[derive(Debug, Clone, Default)]
pub(crate) struct FoundFiles {
    /// The files, shallowest first.
    pub(crate) files: Vec<FoundFile>,
    /// Set when the walk stopped early (at `max_files`, the depth, or a policy bound).
    pub(crate) truncated: Option<Truncation>,
}

/// The regular files below every root that a whole read would return, at most `max_files`,
/// entering directories at most `max_depth` levels below a root (and never more than the
/// policy's walk limits allow).
///
/// Breadth-first, across the roots at once: every root's top-level files come before any
/// file one level down, so a cap keeps the shallow files (the ones a person names first)
/// rather than the first deep subtree. Directories are entered as the other walks enter them
/// (never through a symlink). Left out, so that every file listed can be read: symlinks,
/// hard-linked files (unless the policy admits them), files over the read limit, files whose
/// extension is not allowed, and names that are not UTF-8 or that the path rules refuse (a
/// backslash), which no request could name. Unreadable subdirectories are skipped.
pub(crate) fn readable_files(core: &Core, max_files: usize, max_depth: usize) -> FoundFiles {
    use std::collections::VecDeque;
    let mut budget = Budget::new(core);
    budget.max_depth = budget.max_depth.min(max_depth);
    let mut found = FoundFiles::default();
    // Queued directories are paths, not handles: a wide tree queues thousands of them. Each
    // is opened when its turn comes, from its root, never through a symlink.
    let mut queue: VecDeque<(usize, Vec<OsString>, FsPath, usize)> = core
        .roots
        .iter()
        .enumerate()
        .map(|(i, root)| {
            let at = FsPath::new(root.display.clone(), &[] as &[&str]);
            (i, Vec::new(), at, 1)
        })
        .collect();
    while let Some((root, names, at, level)) = queue.pop_front() {
        let Ok(dir) = open_below(&core.roots[root].dir, &names) else {
            continue;
        };
        let Ok(listed) = entries(core, &dir, &mut budget) else {
            continue;
        };
        for e in listed {
            let Some(name) = e.raw.to_str() else { continue };
            if name.contains('\\') {
                continue;
            }
            match e.kind {
                EntryKind::Directory => {
                    if budget.may_enter(level) {
                        let mut below = names.clone();
                        below.push(e.raw.clone());
                        queue.push_back((root, below, at.child(name), level + 1));
                    }
                }
                EntryKind::File => {
                    let Ok(meta) = dir.symlink_metadata(&e.raw) else {
                        continue;
                    };
                    let admitted = meta.is_file()
                        && (meta.nlink() == 1 || core.policy.allow_hard_links)
                        && meta.len() <= core.policy.max_read_bytes;
                    if !admitted {
                        continue;
                    }
                    if found.files.len() == max_files {
                        found.truncated = Some(Truncation::Entries);
                        return found;
                    }
                    found.files.push(FoundFile {
                        path: at.child(name),
                        size: meta.len(),
                        modified: meta.modified().ok().map(|t| t.into_std()),
                    });
                }
                EntryKind::Symlink | EntryKind::Other => {}
            }
        }
    }
    found.truncated = budget.truncated;
    found
}

pub(crate) fn search_files(
    core: &Core,
    loc: &Location,
    pattern: &str,
    exclude: &[String],
) -> FsResult<SearchMatches> {
    let pattern = glob(pattern)?.compile_matcher();
    let exclude = glob_set(exclude.iter().cloned())?;
    let dir = core.open_dir_target(loc)?;
    let start = core.fs_path(loc);
    let mut budget = Budget::new(core);
    let mut matches = Vec::new();
    // An unreadable subdirectory is skipped, as the reference does.
    let walked = depth_first(core, dir, &mut budget, &mut |event| match event {
        Event::Entry { entry, rel, at } => {
            if exclude.is_match(rel) {
                return false;
            }
            if pattern.is_match(rel) {
                let mut path = start.clone();
                for name in at {
                    path = path.child(&name.to_string_lossy());
                }
                matches.push(path.child(&entry.name));
            }
            true
        }
        Event::Enter { .. } | Event::Leave => true,
    });
    walked.map_err(|e| FsError::io(&loc.raw, e))?;
    Ok(SearchMatches {
        matches,
        truncated: budget.truncated,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_follow_minimatch_conventions() {
        let g = glob("*.txt").unwrap().compile_matcher();
        assert!(g.is_match("a.txt") && g.is_match(".hidden.txt") && !g.is_match("d/a.txt"));
        let g = glob("**/*.txt").unwrap().compile_matcher();
        assert!(g.is_match("a.txt") && g.is_match("d/e/a.txt"));
        assert!(glob("a[").is_err());
        let ex = tree_excludes(&["node_modules".into(), "*.log".into()]).unwrap();
        for m in [
            "node_modules",
            "a/node_modules",
            "a/node_modules/x",
            "x.log",
        ] {
            assert!(ex.is_match(m), "{m}");
        }
        assert!(!ex.is_match("a/x.log") && !ex.is_match("node_modules2"));
    }

    #[test]
    fn sizes_as_the_reference_formats_them() {
        assert_eq!(format_size(0), "0 B");
        assert_eq!(format_size(1023), "1023 B");
        assert_eq!(format_size(1024), "1.00 KB");
        assert_eq!(format_size(1536), "1.50 KB");
        // Ties round up, as `toFixed(2)` does: 1152 / 1024 = 1.125.
        assert_eq!(format_size(1152), "1.13 KB");
        assert_eq!(format_size(1024 * 1024 - 1), "1024.00 KB");
        assert_eq!(format_size(5 * 1024 * 1024 * 1024), "5.00 GB");
        assert_eq!(format_size(u64::MAX), "16777216.00 TB");
    }

    #[test]
    fn tree_json_has_the_reference_shape() {
        let tree = DirectoryTree {
            path: FsPath::new(std::sync::Arc::from(std::path::Path::new("/r")), &["d"]),
            nodes: vec![
                TreeNode {
                    name: "d".into(),
                    kind: EntryKind::Directory,
                    children: Some(vec![]),
                },
                TreeNode {
                    name: "l".into(),
                    kind: EntryKind::Symlink,
                    children: None,
                },
            ],
            truncated: None,
        };
        assert_eq!(
            tree.to_json(),
            "[\n  {\n    \"name\": \"d\",\n    \"type\": \"directory\",\n    \"children\": []\n  },\n  {\n    \"name\": \"l\",\n    \"type\": \"file\"\n  }\n]"
        );
    }
}
