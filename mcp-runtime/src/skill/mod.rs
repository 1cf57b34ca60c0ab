//! Agent Skills served by the skills extension (SEP-2640, `io.modelcontextprotocol/skills`).
//!
//! A skill is a folder with a `SKILL.md` (YAML front matter with `name` and `description`,
//! then instructions in Markdown) and the files it refers to (references, scripts,
//! templates). A server serves each skill as resources, `skill://<skill-path>/<file>`, and
//! answers `skills/list`, `skills/get` and `resources/directory/read` with each skill's
//! front matter and the manifest of its files (`sha256:` digest and size of each), so a
//! client can fetch what it needs when it needs it and verify it.
//!
//! - [`ServerBuilder::skills_dir`] loads every skill folder below a folder when the server
//!   is built; [`ServerBuilder::skill`] adds a [`Skill`] declared in code. Either declares
//!   the extension (`{"directoryRead": true}`) and the `resources` capability.
//! - With the `skills-watch` feature, `SkillsWatcher` reloads a skills folder as it
//!   changes.
//!
//! # Decisions
//!
//! - **Loaded once, at `build()`.** Every file is read, digested (SHA-256) and measured
//!   when the server is built, and every problem of every skill is reported by
//!   [`build`](ServerBuilder::build) at once, each as `file:line:column` like prompt files
//!   ([`RegistrationError::SkillFiles`]): a `SKILL.md` without front matter, a `name` that
//!   is not its folder's name or breaks the naming rules (1–64 of `a-z0-9-`, no `--`), an
//!   empty `description`, a `metadata` key under the reserved `io.modelcontextprotocol/`, a
//!   symlink that leads out of its skill's folder, more than 512 files or more than 16 MiB
//!   in one skill. A server never starts with half its skills.
//! - **Which folders are skills.** A folder below the skills folder that holds a
//!   `SKILL.md` is a skill, with everything below it (its subfolders included); a folder
//!   without one groups skills, and its name becomes a segment of their path
//!   (`skills/acme/pdf/SKILL.md` is `skill://acme/pdf/SKILL.md`). Names starting with `.`
//!   are skipped (editors' and VCS files), as are files beside skill folders (a README).
//! - **Confined reads.** Each skill folder is opened as its own
//!   [`FileService`](crate::fs::FileService) root, read-only: every file is read through it
//!   at load and at each `resources/read`, so no symlink and no `..` reaches outside the
//!   skill's folder (the kernel resolves beneath it). A symlink that stays inside is served
//!   as the file it names.
//! - **What `resources/*` show.** Each `SKILL.md` is listed by `resources/list` (name and
//!   description from its front matter, `text/markdown`); the other files are named by the
//!   manifests, not listed one by one, and read with `resources/read` through the template
//!   `skill://{+path}`. A file that changed on disk since loading is refused on read
//!   (`-32603`), never served against a stale digest: restart, or watch the folder.
//! - **Both eras.** The methods are answered to 2025 clients too (the extension is declared
//!   in `initialize`), without the 2026-07-28 fields; modern results carry `ttlMs` and
//!   `cacheScope` from [`ServerBuilder::list_cache`].
//!
//! ```
//! use mcp_runtime::prelude::*;
//! use mcp_runtime::skill::Skill;
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let dir = tempfile::tempdir()?;
//! # let skills = dir.path();
//! std::fs::create_dir_all(skills.join("pdf-processing/references"))?;
//! std::fs::write(
//!     skills.join("pdf-processing/SKILL.md"),
//!     "---\nname: pdf-processing\ndescription: Fill and merge PDF forms.\n---\n\nSee references/FORMS.md.\n",
//! )?;
//! std::fs::write(skills.join("pdf-processing/references/FORMS.md"), "# Forms\n")?;
//!
//! let greeting = Skill::new("---\nname: greeting\ndescription: Greets people warmly.\n---\nSay hello.\n")
//!     .file("examples/formal.md", "Good morning.");
//! let server = Server::builder("demo", "1.0.0")
//!     .skills_dir(skills)
//!     .skill(greeting)
//!     .build()?;
//! assert_eq!(
//!     server.skills().uris(),
//!     ["skill://greeting/SKILL.md", "skill://pdf-processing/SKILL.md"]
//! );
//!
//! // Every problem is a build error with its place.
//! std::fs::create_dir(skills.join("broken"))?;
//! std::fs::write(skills.join("broken/SKILL.md"), "# No front matter\n")?;
//! let error = Server::builder("demo", "1.0.0").skills_dir(skills).build().unwrap_err();
//! assert!(error.to_string().contains("SKILL.md:1:1: SKILL.md has no YAML front matter"), "{error}");
//! # Ok(())
//! # }
//! ```

pub(crate) mod folder;
pub(crate) mod front_matter;
#[cfg(feature = "skills-watch")]
mod watch;

#[cfg(feature = "skills-watch")]
pub use watch::{SkillsWatcher, WatchError};

use crate::prompt::templates::source::Pos;
use crate::prompt::{LoadError, LoadProblem};
use crate::protocol::skills::{MAX_SKILL_BYTES, MAX_SKILL_FILES, SKILL_MD, SKILL_MD_MIME_TYPE};
use crate::server::registry::skills::ServedSkill;
use crate::server::{RegistrationError, ServerBuilder};
use std::collections::HashSet;
use std::fmt;
use std::path::{Path, PathBuf};

/// Loads every skill of the skills folder `dir` (see the [module](self) docs): the skills,
/// or every problem of every skill.
pub(crate) fn load_dir(dir: &Path) -> Result<Vec<ServedSkill>, LoadError> {
    folder::load(dir).map_err(LoadError::skills)
}

/// A skill declared in code: its `SKILL.md` text and its other files, held in memory.
/// Served like a skill folder (same checks, same manifest), at
/// `skill://<name>/SKILL.md`, or below a group with [`under`](Self::under).
///
/// ```
/// use mcp_runtime::prelude::*;
/// use mcp_runtime::skill::Skill;
///
/// let skill = Skill::new("---\nname: release-notes\ndescription: Writes release notes.\n---\nUse the template.\n")
///     .file("templates/notes.md", "## What changed\n")
///     .under("acme");
/// let server = Server::builder("demo", "1.0.0").skill(skill).build().unwrap();
/// let entry = server.skills().entry("skill://acme/release-notes/SKILL.md").unwrap();
/// assert_eq!(entry.name(), Some("release-notes"));
/// ```
#[derive(Clone)]
pub struct Skill {
    skill_md: String,
    files: Vec<(String, Vec<u8>)>,
    groups: Vec<String>,
    scopes: Vec<String>,
}

impl fmt::Debug for Skill {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Skill")
            .field("files", &self.files.len())
            .field("groups", &self.groups)
            .field("scopes", &self.scopes)
            .finish_non_exhaustive()
    }
}

impl Skill {
    /// A skill from the text of its `SKILL.md` (front matter with `name` and
    /// `description`, then the instructions). Problems are reported by `build()`.
    pub fn new(skill_md: impl Into<String>) -> Self {
        Self {
            skill_md: skill_md.into(),
            files: Vec::new(),
            groups: Vec::new(),
            scopes: Vec::new(),
        }
    }

    /// Adds a file at `path` in the skill's folder (`/`-separated, e.g.
    /// `references/FORMS.md`).
    pub fn file(mut self, path: impl Into<String>, contents: impl Into<Vec<u8>>) -> Self {
        self.files.push((path.into(), contents.into()));
        self
    }

    /// Serves the skill below a group: `skill://<group>/<name>/SKILL.md`. Called again, it
    /// adds a deeper group.
    pub fn under(mut self, group: impl Into<String>) -> Self {
        self.groups.push(group.into());
        self
    }

    /// The OAuth scopes a caller must hold to see the skill (all of them): to a caller
    /// without them it is in no list and its files and folders read as URIs nothing serves
    /// (see [`visibility`](crate::server::visibility)). Each must be an RFC 6749 scope token;
    /// `build()` reports one that is not.
    ///
    /// ```
    /// use mcp_runtime::prelude::*;
    /// use mcp_runtime::skill::Skill;
    ///
    /// let runbook = Skill::new("---\nname: incident-runbook\ndescription: Steps for an outage.\n---\nPage the on-call.\n")
    ///     .scopes(["ops:admin"]);
    /// let server = Server::builder("ops", "1.0.0").skill(runbook).build().unwrap();
    /// assert_eq!(server.skills().uris(), ["skill://incident-runbook/SKILL.md"]);
    /// ```
    pub fn scopes<I, S>(mut self, scopes: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.scopes.extend(scopes.into_iter().map(Into::into));
        self
    }

    /// The skill ready to serve, or its problems (the "file" of each is its URI).
    fn prepare(self) -> Result<ServedSkill, Vec<LoadProblem>> {
        let groups = self.groups.join("/");
        let provisional: PathBuf = if groups.is_empty() {
            PathBuf::from("skill://<declared>/SKILL.md")
        } else {
            PathBuf::from(format!("skill://{groups}/<declared>/SKILL.md"))
        };
        let frontmatter = front_matter::parse(&provisional, &self.skill_md, None)?;
        let name = frontmatter
            .get("name")
            .and_then(|n| n.as_str())
            .unwrap_or_default()
            .to_owned();
        let base = if groups.is_empty() {
            format!("skill://{name}/")
        } else {
            format!("skill://{groups}/{name}/")
        };
        let uri = format!("{base}{SKILL_MD}");
        let file = PathBuf::from(&uri);
        let mut problems = Vec::new();
        let mut at = |message: String| problems.push(LoadProblem::at(&file, Pos::START, message));
        for group in &self.groups {
            if group.is_empty()
                || !group
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~'))
            {
                at(format!(
                    "the group {group:?} cannot be part of a skill:// URI: use letters, digits, `-`, `.`, `_` and `~`"
                ));
            }
        }
        let mut seen = HashSet::new();
        let mut total = self.skill_md.len() as u64;
        let mut files = vec![(
            SKILL_MD.to_owned(),
            SKILL_MD_MIME_TYPE.to_owned(),
            self.skill_md.into_bytes(),
        )];
        for (path, bytes) in self.files {
            let segments_ok = !path.is_empty()
                && path.split('/').all(|s| {
                    !s.is_empty()
                        && s != "."
                        && s != ".."
                        && s.bytes()
                            .all(|b| b.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=:@".contains(&b))
                });
            if !segments_ok {
                at(format!(
                    "the file path {path:?} is not a relative path of URI-safe segments (no `.`, `..`, empty segments, spaces or `%`)"
                ));
                continue;
            }
            if path == SKILL_MD || !seen.insert(path.clone()) {
                at(format!("the file {path:?} is given twice"));
                continue;
            }
            total += bytes.len() as u64;
            let mime = folder::mime_type(&path, &bytes);
            files.push((path, mime, bytes));
        }
        if files.len() > MAX_SKILL_FILES {
            at(format!(
                "the skill `{name}` has {} files; a skill has at most {MAX_SKILL_FILES}, SKILL.md included",
                files.len()
            ));
        }
        if total > MAX_SKILL_BYTES {
            at(format!(
                "the skill `{name}` holds {total} bytes; a skill holds at most 16 MiB ({MAX_SKILL_BYTES} bytes) in all its files"
            ));
        }
        let scopes = crate::server::registry::resources::checked_scopes(self.scopes)
            .unwrap_or_else(|reason| {
                at(format!("the skill's scopes: {reason}"));
                Default::default()
            });
        if !problems.is_empty() {
            return Err(problems);
        }
        let mut served = ServedSkill::from_memory(uri, frontmatter, files);
        served.scopes = scopes;
        Ok(served)
    }
}

impl ServerBuilder {
    /// Serves every skill below the folder `dir` (the skills extension; see
    /// [`skill`](crate::skill)): each folder with a `SKILL.md` is a skill, read whole
    /// through its own confined [`FileService`](crate::fs::FileService), its files'
    /// digests and sizes computed now. Every problem of every skill is reported by
    /// [`build`](Self::build) ([`RegistrationError::SkillFiles`]), each as
    /// `file:line:column`. Declares the extension even when the folder has no skill.
    ///
    /// ```
    /// use mcp_runtime::prelude::*;
    ///
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let dir = tempfile::tempdir()?;
    /// # let skills = dir.path();
    /// std::fs::create_dir(skills.join("haiku"))?;
    /// std::fs::write(
    ///     skills.join("haiku/SKILL.md"),
    ///     "---\nname: haiku\ndescription: Writes haiku.\n---\nFive, seven, five.\n",
    /// )?;
    /// let server = Server::builder("poet", "1.0.0").skills_dir(skills).build()?;
    /// let haiku = server.skills().entry("skill://haiku/SKILL.md").unwrap();
    /// assert_eq!(haiku.description(), Some("Writes haiku."));
    ///
    /// std::fs::create_dir(skills.join("limerick"))?;
    /// std::fs::write(skills.join("limerick/SKILL.md"), "---\nname: limericks\n---\n")?;
    /// let error = Server::builder("poet", "1.0.0").skills_dir(skills).build().unwrap_err();
    /// assert!(error.to_string().contains("limerick/SKILL.md:2:7: the skill's name is \"limericks\" but its folder is `limerick`"), "{error}");
    /// # Ok(())
    /// # }
    /// ```
    pub fn skills_dir(self, dir: impl AsRef<Path>) -> Self {
        match load_dir(dir.as_ref()) {
            Ok(skills) => self.served_skills(skills, []),
            Err(e) => self.served_skills(Vec::new(), [RegistrationError::SkillFiles(e)]),
        }
    }

    /// Serves a skill declared in code (see [`Skill`]); its problems are reported by
    /// [`build`](Self::build).
    pub fn skill(self, skill: Skill) -> Self {
        match skill.prepare() {
            Ok(served) => self.served_skills(vec![served], []),
            Err(problems) => self.served_skills(
                Vec::new(),
                [RegistrationError::SkillFiles(LoadError::skills(problems))],
            ),
        }
    }
}
