//! Keeping a server's prompts in step with a directory of prompt files as they change
//! (the `prompt-watch` feature). It lives with the server, which it changes; the prompt
//! templates it loads know nothing of servers.
//!
//! - **Debounced** with notify's debouncer: an editor's save (write, rename, chmod) is one
//!   change, applied once the file has been quiet for the debounce time.
//! - **Per file, last good version kept.** A changed file is loaded on its own; if the edit
//!   is broken (bad syntax, an undeclared variable, a name another file uses), the version
//!   served before stays served, and every problem is logged (target `mcp::prompts`, with
//!   file and line) and kept in [`PromptWatcher::problems`] until the file is fixed.
//! - **One atomic swap per batch**, through [`PromptRegistry::swap`]: new and changed
//!   prompts registered, deleted ones removed, all in one change, so a client never sees a
//!   prompt missing mid-replacement and gets one `list_changed`.
//! - The directory itself, not its subdirectories, as for loading. An event the watcher
//!   could not follow (a queue overflow) rescans the whole directory.
//!
//! [`PromptRegistry::swap`]: crate::server::PromptRegistry::swap

use super::{RegistrationError, Server};
use crate::prompt::Prompt;
use crate::prompt::templates::load::{self, Format};
use crate::prompt::templates::{LoadError, LoadProblem, PromptTemplates, TemplatePrompt};
use notify_debouncer_full::notify::{self, RecursiveMode};
use notify_debouncer_full::{DebounceEventResult, Debouncer, RecommendedCache, new_debouncer};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

impl PromptTemplates {
    /// Watches `dir` and keeps `server`'s prompts in step with its files: loads it now
    /// (every problem is an error, as for [`from_dir`](Self::from_dir)), registers its
    /// prompts (replacing registered prompts of the same names, so it can follow a
    /// `prompt_dir` of the same directory), then applies every change (see
    /// [`PromptWatcher`]). Changes are debounced by
    /// [`PromptWatcher::DEFAULT_DEBOUNCE`].
    ///
    /// The server must advertise prompts: build it with prompts or with
    /// `advertise(Primitive::Prompts)`.
    pub fn watch(dir: impl AsRef<Path>, server: &Server) -> Result<PromptWatcher, WatchError> {
        PromptWatcher::start(dir.as_ref(), server, PromptWatcher::DEFAULT_DEBOUNCE)
    }
}

/// Why watching could not start.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WatchError {
    /// The directory's files do not load (every problem listed).
    #[error(transparent)]
    Load(#[from] LoadError),
    /// Its prompts could not be registered (a name clash with another prompt, or a server
    /// built without prompts: see `ServerBuilder::advertise`).
    #[error("the prompts cannot be registered: {}", .0.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "))]
    Register(Vec<RegistrationError>),
    /// The file system cannot be watched.
    #[error("cannot watch the prompt directory: {0}")]
    Watch(#[from] notify::Error),
}

/// Watches a prompt directory and applies its changes to a server's prompts; stops when
/// dropped. Made by [`PromptTemplates::watch`] or
/// [`start`](Self::start).
///
/// - Changes are debounced: an editor's save is applied once the file has been quiet.
/// - A changed file is loaded on its own. If the edit is broken (bad syntax, an undeclared
///   variable, a name another file uses), the version served before stays served; the
///   problems are logged (target `mcp::prompts`, with file and line) and listed by
///   [`problems`](Self::problems) until the file is fixed.
/// - Each batch of changes is one atomic
///   [`PromptRegistry::swap`](crate::server::PromptRegistry::swap): new and changed
///   prompts in, deleted ones out, one `list_changed` for clients.
///
/// ```no_run
/// use mcp_runtime::prelude::*;
/// use mcp_runtime::prompt::PromptTemplates;
///
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let server = Server::builder("dev", "0.1.0").prompt_dir("prompts").build()?;
/// let _watcher = PromptTemplates::watch("prompts", &server)?; // keep it alive
/// # Ok(())
/// # }
/// ```
pub struct PromptWatcher {
    state: Arc<Mutex<State>>,
    applied: Arc<AtomicU64>,
    _debouncer: Debouncer<notify::RecommendedWatcher, RecommendedCache>,
}

impl fmt::Debug for PromptWatcher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        f.debug_struct("PromptWatcher")
            .field("dir", &state.dir)
            .field("files", &state.files.len())
            .finish_non_exhaustive()
    }
}

/// What the watcher serves.
struct State {
    /// The directory as given (file names are joined to it, so messages name files the way
    /// the caller named the directory).
    dir: PathBuf,
    server: Server,
    /// The version served for each file: its last good one.
    files: BTreeMap<PathBuf, TemplatePrompt>,
    /// The problems of files whose latest version is broken.
    broken: BTreeMap<PathBuf, Vec<LoadProblem>>,
}

impl PromptWatcher {
    /// How long a file must be quiet before its change is applied, by default.
    pub const DEFAULT_DEBOUNCE: Duration = Duration::from_millis(200);

    /// Loads `dir` (all files or every problem, as
    /// [`PromptTemplates::from_dir`]), registers its
    /// prompts with `server` (replacing prompts of the same names), and applies every later
    /// change once the files have been quiet for `debounce`.
    pub fn start(dir: &Path, server: &Server, debounce: Duration) -> Result<Self, WatchError> {
        let templates = load::load_dir(dir)?;
        let files: BTreeMap<PathBuf, TemplatePrompt> = templates
            .into_iter()
            .map(|t| (t.file.clone(), TemplatePrompt::new(t)))
            .collect();
        let names: Vec<&str> = files.values().map(TemplatePrompt::name).collect();
        server
            .prompts()
            .swap(
                &names,
                files
                    .values()
                    .map(|p| Arc::new(p.clone()) as Arc<dyn Prompt>),
            )
            .map_err(WatchError::Register)?;
        let state = Arc::new(Mutex::new(State {
            dir: dir.to_owned(),
            server: server.clone(),
            files,
            broken: BTreeMap::new(),
        }));
        let applied = Arc::new(AtomicU64::new(0));
        let (handler_state, handler_applied) = (state.clone(), applied.clone());
        let mut debouncer = new_debouncer(debounce, None, move |result: DebounceEventResult| {
            let mut state = handler_state.lock().unwrap_or_else(|p| p.into_inner());
            let changed = match result {
                Ok(events) => state.changed_files(&events),
                Err(errors) => {
                    for e in errors {
                        tracing::warn!(target: crate::targets::PROMPTS_TARGET, error = %e, "watching prompt files");
                    }
                    state.all_files()
                }
            };
            if !changed.is_empty() {
                state.apply(changed);
            }
            handler_applied.fetch_add(1, Ordering::Release);
        })?;
        debouncer.watch(dir, RecursiveMode::NonRecursive)?;
        Ok(Self {
            state,
            applied,
            _debouncer: debouncer,
        })
    }

    /// The problems of the files whose latest edit is broken (their previous version is
    /// still served); empty when every file loads.
    pub fn problems(&self) -> Vec<LoadProblem> {
        let state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        state.broken.values().flatten().cloned().collect()
    }

    /// How many batches of file events have been handled so far (for tests and
    /// diagnostics: it grows after each debounced batch, applied or refused).
    pub fn batches(&self) -> u64 {
        self.applied.load(Ordering::Acquire)
    }
}

impl State {
    /// The prompt files named by `events` (every file, if one asks for a rescan or names the
    /// directory itself).
    fn changed_files(&self, events: &[notify_debouncer_full::DebouncedEvent]) -> BTreeSet<PathBuf> {
        let mut changed = BTreeSet::new();
        for event in events {
            if event.need_rescan() {
                return self.all_files();
            }
            for path in &event.paths {
                let Some(name) = path.file_name() else {
                    continue;
                };
                let file = self.dir.join(name);
                if Format::of(&file).is_some() {
                    changed.insert(file);
                }
            }
        }
        changed
    }

    /// Every prompt file there is or was.
    fn all_files(&self) -> BTreeSet<PathBuf> {
        let mut all: BTreeSet<PathBuf> = self.files.keys().cloned().collect();
        match load::prompt_files(&self.dir) {
            Ok(files) => all.extend(files),
            Err(e) => {
                tracing::warn!(target: crate::targets::PROMPTS_TARGET, dir = %self.dir.display(), error = %e, "cannot read the prompt directory")
            }
        }
        all
    }

    /// Reloads `changed` and swaps what changed into the server's prompts.
    fn apply(&mut self, changed: BTreeSet<PathBuf>) {
        let mut next = self.files.clone();
        let mut broken = self.broken.clone();
        for file in &changed {
            let exists = std::fs::metadata(file).is_ok_and(|m| m.is_file());
            if !exists {
                next.remove(file);
                broken.remove(file);
                continue;
            }
            match load::load_file(file) {
                Ok(t) => {
                    next.insert(file.clone(), TemplatePrompt::new(t));
                    broken.remove(file);
                }
                Err(problems) => {
                    log(
                        &problems,
                        "this edit is broken; the previous version stays served",
                    );
                    broken.insert(file.clone(), problems);
                }
            }
        }
        // A name another file already uses: the newcomer's edit is broken.
        let mut owner: BTreeMap<String, PathBuf> = next
            .iter()
            .filter(|(file, _)| !changed.contains(*file))
            .map(|(file, prompt)| (prompt.name().to_owned(), file.clone()))
            .collect();
        for file in &changed {
            let Some(prompt) = next.get(file) else {
                continue;
            };
            let name = prompt.name().to_owned();
            match owner.get(&name) {
                Some(other) if other != file => {
                    let problem = LoadProblem::at(
                        file,
                        prompt.template.name_pos,
                        format!(
                            "the prompt name `{name}` is already used by {}",
                            other.display()
                        ),
                    );
                    log(
                        std::slice::from_ref(&problem),
                        "this edit is broken; the previous version stays served",
                    );
                    match self.files.get(file) {
                        Some(previous) => next.insert(file.clone(), previous.clone()),
                        None => next.remove(file),
                    };
                    broken.entry(file.clone()).or_default().push(problem);
                }
                _ => {
                    owner.insert(name, file.clone());
                }
            }
        }
        // What to take out and put in.
        let mut remove = Vec::new();
        let mut add: Vec<Arc<dyn Prompt>> = Vec::new();
        for file in &changed {
            let before = self.files.get(file);
            let after = next.get(file);
            let same = match (before, after) {
                (Some(b), Some(a)) => Arc::ptr_eq(&b.template, &a.template),
                (None, None) => true,
                _ => false,
            };
            if same {
                continue;
            }
            if let Some(b) = before {
                remove.push(b.name().to_owned());
            }
            if let Some(a) = after {
                add.push(Arc::new(a.clone()));
            }
        }
        self.broken = broken;
        if remove.is_empty() && add.is_empty() {
            return;
        }
        let names: Vec<&str> = remove.iter().map(String::as_str).collect();
        match self.server.prompts().swap(&names, add) {
            Ok(()) => {
                tracing::info!(target: crate::targets::PROMPTS_TARGET, dir = %self.dir.display(), files = changed.len(), "prompt files reloaded");
                self.files = next;
            }
            Err(errors) => {
                for e in errors {
                    tracing::warn!(target: crate::targets::PROMPTS_TARGET, dir = %self.dir.display(), error = %e, "reloaded prompts cannot be registered; the previous versions stay served");
                }
            }
        }
    }
}

fn log(problems: &[LoadProblem], what: &str) {
    for p in problems {
        tracing::warn!(
            target: crate::targets::PROMPTS_TARGET,
            file = %p.file.display(),
            line = p.line,
            column = p.column,
            "{p} ({what})"
        );
    }
}
