//! Keeping a server's skills in step with a skills folder as it changes (the
//! `skills-watch` feature), like prompt files (`PromptTemplates::watch`).
//!
//! - **Debounced** with notify's debouncer, recursively: an editor's save, a `git pull`,
//!   a copied folder are one change, applied once the folder has been quiet.
//! - **The whole folder, last good version kept.** A batch reloads the folder exactly as
//!   [`ServerBuilder::skills_dir`](crate::ServerBuilder::skills_dir) loads it (digests
//!   recomputed, limits checked). If anything in it is broken, the skills served before
//!   stay served, and every problem is logged (target `mcp::skills`, with file and line)
//!   and kept in [`SkillsWatcher::problems`] until it is fixed: a client never sees a
//!   manifest that disagrees with the files, nor half a folder.
//! - **One swap of the skills, one of their listing**: removed skills go, new and changed
//!   ones come, and connected clients hear `notifications/resources/list_changed`.

use super::load_dir;
use crate::prompt::{LoadError, LoadProblem};
use crate::server::{RegistrationError, Server};
use notify_debouncer_full::notify::{self, RecursiveMode};
use notify_debouncer_full::{DebounceEventResult, Debouncer, RecommendedCache, new_debouncer};
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Why watching could not start.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WatchError {
    /// The folder's skills do not load (every problem listed).
    #[error(transparent)]
    Load(#[from] LoadError),
    /// The skills cannot be served: the server was built without skills (so it does not
    /// declare the extension: give it `skills_dir` or a `skill`), or a URI clashes.
    #[error("the skills cannot be served: {}", .0.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "))]
    Register(Vec<RegistrationError>),
    /// The file system cannot be watched.
    #[error("cannot watch the skills folder: {0}")]
    Watch(#[from] notify::Error),
}

/// Watches a skills folder and serves its latest good version; stops when dropped.
///
/// ```no_run
/// use mcp_runtime::prelude::*;
/// use mcp_runtime::skill::SkillsWatcher;
///
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let server = Server::builder("dev", "0.1.0").skills_dir("skills").build()?;
/// let _watcher = SkillsWatcher::start("skills", &server, SkillsWatcher::DEFAULT_DEBOUNCE)?;
/// # Ok(())
/// # }
/// ```
pub struct SkillsWatcher {
    state: Arc<Mutex<State>>,
    batches: Arc<AtomicU64>,
    _debouncer: Debouncer<notify::RecommendedWatcher, RecommendedCache>,
}

impl fmt::Debug for SkillsWatcher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        f.debug_struct("SkillsWatcher")
            .field("dir", &state.dir)
            .field("skills", &state.served)
            .finish_non_exhaustive()
    }
}

struct State {
    dir: PathBuf,
    server: Server,
    /// The URIs of the skills this watcher serves.
    served: Vec<String>,
    /// The problems of the folder's latest version, when it is broken.
    problems: Vec<LoadProblem>,
}

impl SkillsWatcher {
    /// How long the folder must be quiet before a change is applied, by default.
    pub const DEFAULT_DEBOUNCE: Duration = Duration::from_millis(200);

    /// Loads `dir` (every problem is an error, as for `skills_dir`), serves its skills on
    /// `server` (replacing skills of the same URIs, so it can follow a `skills_dir` of the
    /// same folder), then applies every change once the folder has been quiet for
    /// `debounce`. The server must serve skills (built with `skills_dir` or `skill`).
    pub fn start(
        dir: impl AsRef<Path>,
        server: &Server,
        debounce: Duration,
    ) -> Result<Self, WatchError> {
        let dir = dir.as_ref();
        let declared = server
            .capabilities()
            .extensions
            .as_ref()
            .is_some_and(|e| e.contains_key(crate::protocol::skills::SKILLS_EXTENSION));
        if !declared {
            return Err(WatchError::Register(vec![RegistrationError::InvalidSkill {
                uri: dir.display().to_string(),
                reason: "the server was built without skills, so it does not declare the skills extension; build it with skills_dir".into(),
            }]));
        }
        let skills = load_dir(dir)?;
        let uris: Vec<String> = skills.iter().map(|s| s.entry.uri.clone()).collect();
        let registry = &server.registry().skills;
        let remove: Vec<&str> = uris.iter().map(String::as_str).collect();
        registry
            .reload(&server.registry().resources, &remove, skills)
            .map_err(WatchError::Register)?;
        let state = Arc::new(Mutex::new(State {
            dir: dir.to_owned(),
            server: server.clone(),
            served: uris,
            problems: Vec::new(),
        }));
        let batches = Arc::new(AtomicU64::new(0));
        let (handler_state, handler_batches) = (state.clone(), batches.clone());
        let mut debouncer = new_debouncer(debounce, None, move |result: DebounceEventResult| {
            if let Err(errors) = &result {
                for e in errors {
                    tracing::warn!(target: crate::targets::SKILLS_TARGET, error = %e, "watching skill files");
                }
            }
            let changed = match &result {
                Ok(events) => !events.is_empty(),
                Err(_) => true,
            };
            if changed {
                handler_state
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .reload();
            }
            handler_batches.fetch_add(1, Ordering::Release);
        })?;
        debouncer.watch(dir, RecursiveMode::Recursive)?;
        Ok(Self {
            state,
            batches,
            _debouncer: debouncer,
        })
    }

    /// The problems of the folder's latest version when it is broken (the previous skills
    /// are still served); empty when it loads.
    pub fn problems(&self) -> Vec<LoadProblem> {
        self.state
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .problems
            .clone()
    }

    /// How many batches of file events have been handled so far (for tests and
    /// diagnostics: it grows after each debounced batch, applied or refused).
    pub fn batches(&self) -> u64 {
        self.batches.load(Ordering::Acquire)
    }
}

impl State {
    fn reload(&mut self) {
        let skills = match load_dir(&self.dir) {
            Ok(skills) => skills,
            Err(e) => {
                for p in e.problems() {
                    tracing::warn!(
                        target: crate::targets::SKILLS_TARGET,
                        file = %p.file.display(),
                        line = p.line,
                        column = p.column,
                        "{p} (this version is broken; the previous skills stay served)"
                    );
                }
                self.problems = e.problems().to_vec();
                return;
            }
        };
        let uris: Vec<String> = skills.iter().map(|s| s.entry.uri.clone()).collect();
        let remove: Vec<&str> = self.served.iter().map(String::as_str).collect();
        let registry = &self.server.registry().skills;
        match registry.reload(&self.server.registry().resources, &remove, skills) {
            Ok(()) => {
                tracing::info!(target: crate::targets::SKILLS_TARGET, dir = %self.dir.display(), skills = uris.len(), "skills reloaded");
                self.served = uris;
                self.problems.clear();
            }
            Err(errors) => {
                for e in errors {
                    tracing::warn!(target: crate::targets::SKILLS_TARGET, dir = %self.dir.display(), error = %e, "reloaded skills cannot be served; the previous ones stay served");
                }
            }
        }
    }
}
