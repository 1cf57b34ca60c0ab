//! Watching the project's sources for `cargo mcp dev`, with notify's debouncer.
//!
//! - **What is watched.** The workspace root (the package's folder for a package of its
//!   own): its files, and each folder in it recursively, except the ignored ones, so a
//!   target folder inside the project (thousands of folders, written by every build) costs
//!   no watches. A folder created at the top later is added when it appears.
//! - **What is ignored**: the target folder (wherever it is), `.git` and other version
//!   control folders, `node_modules`, and editors' temporary and backup files (`*~`,
//!   `.*.swp`, `.#*`, `#*#`, vim's `4913` probe, JetBrains' `___jb_tmp___`), and accesses
//!   (a build reading a source is not a change).
//! - **Debounced**: an editor's save (write, rename, chmod) is one change, reported once the
//!   files have been quiet for the debounce time.

use notify_debouncer_full::notify::event::{EventKind, ModifyKind};
use notify_debouncer_full::notify::{self, RecommendedWatcher, RecursiveMode};
use notify_debouncer_full::{DebounceEventResult, Debouncer, RecommendedCache, new_debouncer};
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Which paths are not sources.
#[derive(Debug, Clone)]
pub struct Ignore {
    root: PathBuf,
    target: PathBuf,
}

/// Folders that never hold the project's sources.
const IGNORED_FOLDERS: [&str; 6] = [".git", ".hg", ".jj", ".svn", "node_modules", "target"];

impl Ignore {
    /// Ignores `target` and the usual non-source paths under `root`.
    pub fn new(root: &Path, target: &Path) -> Self {
        Ignore {
            root: canonical(root),
            target: canonical(target),
        }
    }

    /// Whether a change to `path` is not a change to the project.
    pub fn ignores(&self, path: &Path) -> bool {
        if path.starts_with(&self.target) {
            return true;
        }
        let relative = path.strip_prefix(&self.root).unwrap_or(path);
        let mut components = relative.components().peekable();
        while let Some(component) = components.next() {
            let name = component.as_os_str();
            let last = components.peek().is_none();
            if IGNORED_FOLDERS.iter().any(|f| name == OsStr::new(f)) && !last {
                return true;
            }
            if last {
                return is_scratch(name) || IGNORED_FOLDERS.iter().any(|f| name == OsStr::new(f));
            }
        }
        false
    }
}

/// Editors' temporary and backup files.
fn is_scratch(name: &OsStr) -> bool {
    let name = name.to_string_lossy();
    name.ends_with('~')
        || name.starts_with(".#")
        || (name.starts_with('#') && name.ends_with('#'))
        || [".swp", ".swo", ".swx", ".tmp", ".kate-swp"]
            .iter()
            .any(|s| name.ends_with(s))
        || name == "4913"
        || name.contains("___jb_")
        || name == ".DS_Store"
}

fn canonical(path: &Path) -> PathBuf {
    path.canonicalize().unwrap_or_else(|_| path.to_path_buf())
}

type SharedDebouncer = Arc<Mutex<Option<Debouncer<RecommendedWatcher, RecommendedCache>>>>;

/// Watches a project until dropped.
pub struct Watcher {
    debouncer: SharedDebouncer,
}

impl std::fmt::Debug for Watcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Watcher").finish_non_exhaustive()
    }
}

impl Drop for Watcher {
    fn drop(&mut self) {
        let debouncer = self
            .debouncer
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        if let Some(debouncer) = debouncer {
            debouncer.stop_nonblocking();
        }
    }
}

/// Starts watching `ignore`'s root; `changed` gets the changed paths of each debounced batch
/// that holds a source change (on the watcher's thread), `failed` any watch error.
pub fn watch(
    ignore: Ignore,
    debounce: Duration,
    changed: impl Fn(Vec<PathBuf>) + Send + 'static,
    failed: impl Fn(String) + Send + 'static,
) -> notify::Result<Watcher> {
    let shared: SharedDebouncer = Arc::default();
    let root = ignore.root.clone();
    let handler_shared = Arc::downgrade(&shared);
    let handler_ignore = ignore.clone();
    let handler = move |result: DebounceEventResult| match result {
        Ok(events) => {
            let mut paths: Vec<PathBuf> = Vec::new();
            for event in events {
                if matches!(event.kind, EventKind::Access(_)) {
                    continue;
                }
                for path in &event.paths {
                    if handler_ignore.ignores(path) {
                        continue;
                    }
                    // A folder made at the top level after the start: watch it too.
                    let new_folder = matches!(
                        event.kind,
                        EventKind::Create(_) | EventKind::Modify(ModifyKind::Name(_))
                    ) && path.parent() == Some(handler_ignore.root.as_path())
                        && path.is_dir();
                    if new_folder && let Some(shared) = handler_shared.upgrade() {
                        let mut guard = shared.lock().unwrap_or_else(|e| e.into_inner());
                        if let Some(debouncer) = guard.as_mut()
                            && let Err(e) = debouncer.watch(path, RecursiveMode::Recursive)
                        {
                            failed(format!("cannot watch {}: {e}", path.display()));
                        }
                    }
                    if !paths.contains(path) {
                        paths.push(path.clone());
                    }
                }
            }
            if !paths.is_empty() {
                changed(paths);
            }
        }
        Err(errors) => {
            for e in errors {
                failed(e.to_string());
            }
        }
    };
    let mut debouncer = new_debouncer(debounce, None, handler)?;
    debouncer.watch(&root, RecursiveMode::NonRecursive)?;
    for entry in std::fs::read_dir(&root)?.flatten() {
        let path = entry.path();
        if entry.file_type().is_ok_and(|t| t.is_dir()) && !ignore.ignores(&path) {
            debouncer.watch(&path, RecursiveMode::Recursive)?;
        }
    }
    *shared.lock().unwrap_or_else(|e| e.into_inner()) = Some(debouncer);
    Ok(Watcher { debouncer: shared })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources_count_and_build_output_vcs_and_editor_files_do_not() {
        let ignore = Ignore::new(Path::new("/p"), Path::new("/elsewhere/target"));
        for source in [
            "/p/src/lib.rs",
            "/p/Cargo.toml",
            "/p/prompts/greet.md",
            "/p/src/targets.rs",
        ] {
            assert!(!ignore.ignores(Path::new(source)), "{source}");
        }
        for other in [
            "/elsewhere/target/debug/demo",
            "/p/target/debug/demo",
            "/p/.git/index",
            "/p/node_modules/x/y.js",
            "/p/src/lib.rs~",
            "/p/src/.lib.rs.swp",
            "/p/src/.#lib.rs",
            "/p/src/#lib.rs#",
            "/p/src/4913",
            "/p/src/lib.rs___jb_tmp___",
            "/p/target",
        ] {
            assert!(ignore.ignores(Path::new(other)), "{other}");
        }
    }
}
