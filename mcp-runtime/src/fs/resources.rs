//! [`FileResources`]: the allowed directories' files as `file://` resources, read through the
//! [`FileService`] exactly like the file tools read them.
//!
//! # Decisions
//!
//! - **Two parts.** A *listing* (`resources/list`): the files of a bounded walk, each a
//!   resource with its `file://` URI, size, MIME type and modification time. And the
//!   *template* `file:///{+path}` (`resources/templates/list`): every file of the allowed
//!   directories, listed or not, can be read by URI, and its `path` variable completes from
//!   directory entries. A listing can never show a large tree whole; the template is what
//!   makes the rest reachable.
//! - **The listing is a snapshot, refreshed on demand.** The registry holds fixed items and
//!   pages them once per change, which suits a list that clients cache (`list_changed`
//!   tells them when to ask again). So [`FileResources::register`] walks once, at startup,
//!   and [`FileResources::refresh`] walks again and applies only the difference: new files
//!   registered in one batch, vanished ones removed (connected clients hear
//!   `notifications/resources/list_changed`), and files whose size or modification time
//!   changed re-registered and announced to their subscribers
//!   (`notifications/resources/updated`). Call it after your own writes,
//!   from a file watcher, or every so often with [`FileResources::refresh_every`]. Listing
//!   lazily on every `resources/list` was the alternative; it would walk the disk per
//!   request, make pages unstable between a client's page requests, and give list_changed
//!   nothing to announce.
//! - **Bounded.** At most [`DEFAULT_MAX_FILES`] files and [`DEFAULT_MAX_DEPTH`] directory
//!   levels by default ([`max_files`](FileResources::max_files),
//!   [`max_depth`](FileResources::max_depth)), within the policy's [`WalkLimits`] (entries
//!   visited, time). Breadth-first across the allowed directories, so a cap keeps the
//!   shallow files. Never through a symlink.
//! - **Only what a read returns.** Symlinks, hard-linked files (unless the policy admits
//!   them), files over the read limit, files with an extension the policy refuses, and names
//!   that are not UTF-8 are left out of the listing: every listed resource can be read.
//! - **Reads are the file tools' reads.** A read hands the URI, as received, to the
//!   FileService, which percent-decodes it once and applies the same rules as a tool call:
//!   kernel confinement beneath the allowed directory, no `..`, symlinks only inside their
//!   root, regular files only, the extension policy, the single-hard-link rule and the read
//!   limit. The template accepts `..` segments (its
//!   [`allow_dot_segments`](ResourceTemplate::allow_dot_segments)) only so that the
//!   FileService can refuse them with a reason instead of a bare "not found".
//! - **Errors.** A file that does not exist is [`ResourceError::NotFound`] (the spec's
//!   not-found code for the era). A request the policy refuses (outside the allowed
//!   directories, `..`, a directory, a symlink leading out, an extension not allowed, a
//!   hard-linked file) is [`ResourceError::InvalidUri`] with the FileService's message:
//!   `-32602`, `data.reason = "invalid_uri"`. Those messages quote only the URI the client
//!   sent, and the checks that refuse a path outside the roots are lexical, so a refusal
//!   says nothing about whether something exists out there. Anything else (over the read
//!   limit, an I/O error) is [`ResourceError::Failed`] with the message (`-32603`).
//! - **Contents.** UTF-8 without NUL bytes is `text`; anything else is a base64 `blob`. The
//!   MIME type comes from the extension of the name the file resolved to (`mime_guess`, the
//!   table web servers share), else `text/plain` for text and `application/octet-stream`
//!   for bytes. The contents carry the URI that was read.
//! - **Audit.** Every read, listing and completion is a FileService operation with its audit
//!   event, naming the request (`resources/read`, `resources/list`, `completion/complete`)
//!   as the tool.
//!
//! `fs` otherwise depends only on `tool`; this module also uses `resource`: what it
//! implements, and the seams it registers and refreshes through ([`ResourceSink`], which
//! the server's builder implements, and [`ResourceCatalog`], which a running server does),
//! so it knows nothing of the server.

use super::file_resource::{FILE_URI_TEMPLATE, FileResource, FileTemplate};
use super::service::FileService;
use super::walk::{FoundFile, Truncation};
use crate::protocol::methods;
use crate::resource::{Resource, ResourceCatalog, ResourceSink};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

/// How many files the listing shows by default.
pub const DEFAULT_MAX_FILES: usize = 1_000;

/// How many directory levels below an allowed directory the listing enters by default.
pub const DEFAULT_MAX_DEPTH: usize = 10;

/// What tells a listed file's resource apart from its next version: size and modification
/// time.
type Fingerprint = (u64, Option<SystemTime>);

/// The allowed directories of a [`FileService`] as `file://` resources: a bounded listing and
/// the template `file:///{+path}` (the decisions are in the comments of `fs/resources.rs`).
///
/// Cheap to clone; clones share the listing's bookkeeping, so register and refresh with the
/// same instance (one per server).
///
/// ```
/// use mcp_runtime::client::{Client, EraMode};
/// use mcp_runtime::fs::{FileResources, FileService, FsPolicy};
/// use mcp_runtime::prelude::*;
/// use mcp_runtime::protocol::ResourceContents;
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let dir = tempfile::tempdir()?;
/// std::fs::write(dir.path().join("notes.md"), "# Notes\n")?;
/// let files = FileService::new(FsPolicy::new().allow_dir(dir.path()))?;
/// let resources = FileResources::new(files).max_files(500);
///
/// let server = resources.register(Server::builder("notes", "1.0.0")).build()?;
/// let uri = server.resources().uris()[0].clone();
/// assert!(uri.starts_with("file:///") && uri.ends_with("/notes.md"));
///
/// let client = Client::memory(&server);
/// client.connect(EraMode::Modern).await?;
/// let read = client.read_resource(&uri).await?;
/// let ResourceContents::Text(text) = &read.contents[0] else { panic!("text expected") };
/// assert_eq!((text.text.as_str(), text.mime_type.as_deref()), ("# Notes\n", Some("text/markdown")));
///
/// // A file created later is readable at once through the template, and listed after a
/// // refresh (which tells connected clients the list changed).
/// std::fs::write(dir.path().join("todo.txt"), "milk")?;
/// let change = resources.refresh(&server).await?;
/// assert_eq!(change.added.len(), 1);
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct FileResources {
    files: FileService,
    max_files: usize,
    max_depth: usize,
    state: Arc<Listed>,
}

/// The listing as registered, and a lock that makes refreshes take turns.
#[derive(Default)]
struct Listed {
    files: Mutex<BTreeMap<String, Fingerprint>>,
    truncated: Mutex<Option<Truncation>>,
    refreshing: tokio::sync::Mutex<()>,
}

impl fmt::Debug for FileResources {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FileResources")
            .field("allowed_directories", &self.files.allowed_directories())
            .field("max_files", &self.max_files)
            .field("max_depth", &self.max_depth)
            .finish_non_exhaustive()
    }
}

/// What a [`FileResources::refresh`] changed, by URI.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ListingChange {
    /// Files now listed that were not.
    pub added: Vec<String>,
    /// Files no longer listed (deleted, or pushed out by the cap).
    pub removed: Vec<String>,
    /// Listed files whose size or modification time changed: re-registered, and announced
    /// to the clients subscribed to them.
    pub changed: Vec<String>,
    /// Set when the new listing stopped early.
    pub truncated: Option<Truncation>,
}

impl ListingChange {
    /// Whether nothing changed.
    pub fn is_empty(&self) -> bool {
        self.added.is_empty() && self.removed.is_empty() && self.changed.is_empty()
    }
}

impl FileResources {
    /// The files of `files`' allowed directories, with the default bounds.
    pub fn new(files: FileService) -> Self {
        Self {
            files,
            max_files: DEFAULT_MAX_FILES,
            max_depth: DEFAULT_MAX_DEPTH,
            state: Arc::default(),
        }
    }

    /// Lists at most `max` files (default [`DEFAULT_MAX_FILES`]); `0` lists none (the
    /// template still reads every file).
    pub fn max_files(mut self, max: usize) -> Self {
        self.max_files = max;
        self
    }

    /// Enters directories at most `levels` below an allowed directory (default
    /// [`DEFAULT_MAX_DEPTH`]; `0`: only the files directly in them). The policy's
    /// [`WalkLimits::max_depth`](super::WalkLimits::max_depth) bounds it too.
    pub fn max_depth(mut self, levels: usize) -> Self {
        self.max_depth = levels;
        self
    }

    /// The service the resources read through.
    pub fn service(&self) -> &FileService {
        &self.files
    }

    /// Whether the last listing stopped early (at the file cap, the depth, or a bound of the
    /// policy's walk limits); `None` before the first.
    pub fn truncated(&self) -> Option<Truncation> {
        *lock(&self.state.truncated)
    }

    /// The template `file:///{+path}`: reads any file of the allowed directories, and
    /// completes its `path`.
    pub fn template(&self) -> FileTemplate {
        FileTemplate::new(self.files.clone())
    }

    /// Walks the allowed directories now, on this thread, and returns the listed files as
    /// resources (remembered for [`refresh`](Self::refresh)). The walk is bounded by the
    /// caps and by the policy's walk limits, its time limit included.
    pub fn resources(&self) -> Vec<Arc<dyn Resource>> {
        let found = self
            .files
            .for_tool(methods::RESOURCES_LIST.name)
            .readable_files_blocking(self.max_files, self.max_depth);
        self.note_truncation(found.truncated);
        let mut listed = lock(&self.state.files);
        listed.clear();
        found
            .files
            .iter()
            .map(|f| {
                let resource = self.resource(f);
                listed.insert(resource.uri().to_owned(), fingerprint(f));
                Arc::new(resource) as Arc<dyn Resource>
            })
            .collect()
    }

    /// Adds the listing ([`resources`](Self::resources): walked now) and the
    /// [`template`](Self::template) to a server being built.
    ///
    /// ```
    /// use mcp_runtime::fs::{FileResources, FileService, FileTools, FsPolicy};
    /// use mcp_runtime::prelude::*;
    /// use std::sync::Arc;
    ///
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let dir = tempfile::tempdir()?;
    /// let files = FileService::new(FsPolicy::new().allow_dir(dir.path()).read_only(true))?;
    /// let builder = Server::builder("files", "1.0.0")
    ///     .tools(Arc::new(FileTools::new(files.clone())).tools_for_policy());
    /// let server = FileResources::new(files).register(builder).build()?;
    /// assert_eq!(server.resources().templates(), ["file:///{+path}"]);
    /// # Ok(())
    /// # }
    /// ```
    pub fn register<B: ResourceSink>(&self, builder: B) -> B {
        builder
            .add_resources(self.resources())
            .add_template(Arc::new(self.template()))
    }

    /// Walks the allowed directories again and brings `server`'s listing up to date: files
    /// that appeared are registered, files that vanished removed (connected clients hear
    /// `notifications/resources/list_changed`), and files whose size or modification time
    /// changed are re-registered and announced to their subscribers
    /// (`notifications/resources/updated`). Refreshes of one instance take turns.
    ///
    /// `server` is a [`Server`](crate::Server) (or any [`ResourceCatalog`]).
    ///
    /// # Errors
    ///
    /// Only when the server refuses a registration (a URI that something else registered
    /// meanwhile); the files it removed stay removed, none is added.
    pub async fn refresh<C: ResourceCatalog + ?Sized>(
        &self,
        server: &C,
    ) -> Result<ListingChange, C::Error> {
        let _turn = self.state.refreshing.lock().await;
        let found = self
            .files
            .for_tool(methods::RESOURCES_LIST.name)
            .readable_files(self.max_files, self.max_depth)
            .await;
        self.note_truncation(found.truncated);
        let fresh: BTreeMap<String, (&FoundFile, Fingerprint)> = found
            .files
            .iter()
            .map(|f| (f.path.file_uri(), (f, fingerprint(f))))
            .collect();
        let mut change = ListingChange {
            truncated: found.truncated,
            ..ListingChange::default()
        };
        let mut to_register = Vec::new();
        {
            let mut listed = lock(&self.state.files);
            let old: BTreeSet<String> = listed.keys().cloned().collect();
            for uri in &old {
                match fresh.get(uri) {
                    None => change.removed.push(uri.clone()),
                    Some((_, print)) if Some(print) != listed.get(uri) => {
                        change.changed.push(uri.clone());
                    }
                    Some(_) => {}
                }
            }
            for (uri, (file, print)) in &fresh {
                let is_new = !old.contains(uri);
                if is_new {
                    change.added.push(uri.clone());
                }
                if is_new || change.changed.binary_search(uri).is_ok() {
                    to_register.push((Arc::new(self.resource(file)) as Arc<dyn Resource>, *print));
                }
            }
            for uri in change.removed.iter().chain(&change.changed) {
                server.remove_resource(uri);
                listed.remove(uri);
            }
            let (resources, prints): (Vec<_>, Vec<_>) = to_register.into_iter().unzip();
            let uris: Vec<String> = resources.iter().map(|r| r.definition().uri).collect();
            server.add_resources(resources)?;
            listed.extend(uris.into_iter().zip(prints));
        }
        for uri in &change.changed {
            server.resource_updated(uri);
        }
        Ok(change)
    }

    /// Calls [`refresh`](Self::refresh) every `period` until the returned task is aborted
    /// (a failed refresh is logged and retried at the next tick). The task holds a clone of
    /// `server`.
    pub fn refresh_every<C>(&self, server: C, period: Duration) -> tokio::task::JoinHandle<()>
    where
        C: ResourceCatalog + 'static,
    {
        let this = self.clone();
        tokio::spawn(async move {
            let mut ticks = tokio::time::interval(period);
            ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            ticks.tick().await;
            loop {
                ticks.tick().await;
                if let Err(e) = this.refresh(&server).await {
                    tracing::warn!("refreshing the file resources failed: {e}");
                }
            }
        })
    }

    fn note_truncation(&self, truncated: Option<Truncation>) {
        if let Some(t) = truncated {
            tracing::info!(
                "the file resource listing stopped early ({t:?}); every file stays readable \
                 through {FILE_URI_TEMPLATE}"
            );
        }
        *lock(&self.state.truncated) = truncated;
    }

    fn resource(&self, file: &FoundFile) -> FileResource {
        FileResource::new(file, self.files.for_tool(methods::RESOURCES_READ.name))
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

fn fingerprint(file: &FoundFile) -> Fingerprint {
    (file.size, file.modified)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fs::FsPolicy;
    use crate::fs::file_resource::complete_path;

    fn tree() -> (tempfile::TempDir, FileService) {
        let t = tempfile::tempdir().unwrap();
        for (rel, content) in [
            ("top.txt", "t"),
            ("a/one.txt", "1"),
            ("a/b/two.txt", "2"),
            ("a/b/c/three.txt", "3"),
            ("z.log", "z"),
        ] {
            let p = t.path().join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, content).unwrap();
        }
        let files = FileService::new(FsPolicy::new().allow_dir(t.path())).unwrap();
        (t, files)
    }

    fn names(r: &FileResources) -> Vec<String> {
        r.resources().iter().map(|r| r.definition().name).collect()
    }

    #[test]
    fn the_listing_is_breadth_first_and_bounded() {
        let (_t, files) = tree();
        let all = FileResources::new(files.clone());
        assert_eq!(
            names(&all),
            [
                "top.txt",
                "z.log",
                "a/one.txt",
                "a/b/two.txt",
                "a/b/c/three.txt"
            ]
        );
        assert_eq!(all.truncated(), None);
        let capped = FileResources::new(files.clone()).max_files(3);
        assert_eq!(names(&capped), ["top.txt", "z.log", "a/one.txt"]);
        assert_eq!(capped.truncated(), Some(Truncation::Entries));
        let shallow = FileResources::new(files.clone()).max_depth(1);
        assert_eq!(names(&shallow), ["top.txt", "z.log", "a/one.txt"]);
        assert_eq!(shallow.truncated(), Some(Truncation::Depth));
        assert!(
            FileResources::new(files)
                .max_files(0)
                .resources()
                .is_empty()
        );
    }

    #[test]
    fn listed_definitions_carry_uri_size_type_and_time() {
        let (t, files) = tree();
        let listed = FileResources::new(files).resources();
        let def = listed[0].definition();
        let root = t.path().to_str().unwrap();
        assert_eq!(def.uri, format!("file://{root}/top.txt"));
        assert_eq!(def.mime_type.as_deref(), Some("text/plain"));
        assert_eq!(def.size, Some(1));
        let modified = def.annotations.unwrap().last_modified.unwrap();
        assert!(
            modified.ends_with('Z') && modified.len() == 20,
            "{modified}"
        );
    }

    #[test]
    #[cfg(unix)]
    fn policy_refusals_stay_out_of_the_listing() {
        let t = tempfile::tempdir().unwrap();
        std::fs::write(t.path().join("ok.md"), "ok").unwrap();
        std::fs::write(t.path().join("no.bin"), "no").unwrap();
        std::fs::write(t.path().join("big.md"), "x".repeat(100)).unwrap();
        std::fs::write(t.path().join("linked.md"), "l").unwrap();
        std::fs::hard_link(t.path().join("linked.md"), t.path().join("linked2.md")).unwrap();
        std::os::unix::fs::symlink("ok.md", t.path().join("sym.md")).unwrap();
        std::fs::write(t.path().join("back\\slash.md"), "b").unwrap();
        let policy = FsPolicy::new()
            .allow_dir(t.path())
            .allow_extension("md")
            .max_read_bytes(10);
        let files = FileService::new(policy).unwrap();
        assert_eq!(names(&FileResources::new(files)), ["ok.md"]);
    }

    #[tokio::test]
    async fn paths_complete_from_roots_and_entries() {
        let (t, files) = tree();
        let root = t
            .path()
            .to_str()
            .unwrap()
            .trim_start_matches('/')
            .to_owned();
        let c = complete_path(&files, "").await;
        assert_eq!(c.values, [format!("{root}/")]);
        let c = complete_path(&files, &root[..3]).await;
        assert_eq!(c.values, [format!("{root}/")]);
        let c = complete_path(&files, &format!("{root}/")).await;
        assert_eq!(
            c.values,
            [
                format!("{root}/a/"),
                format!("{root}/top.txt"),
                format!("{root}/z.log")
            ]
        );
        let c = complete_path(&files, &format!("{root}/a/b/t")).await;
        assert_eq!(c.values, [format!("{root}/a/b/two.txt")]);
        assert!(complete_path(&files, "etc/pa").await.values.is_empty());
        assert!(
            complete_path(&files, &format!("{root}/../"))
                .await
                .values
                .is_empty()
        );
    }

    #[tokio::test]
    async fn many_entries_complete_to_the_first_hundred() {
        let t = tempfile::tempdir().unwrap();
        for i in 0..150 {
            std::fs::write(t.path().join(format!("f{i:03}.txt")), "").unwrap();
        }
        let files = FileService::new(FsPolicy::new().allow_dir(t.path())).unwrap();
        let root = t.path().to_str().unwrap().trim_start_matches('/');
        let c = complete_path(&files, &format!("{root}/f")).await;
        assert_eq!(
            (c.values.len(), c.total, c.has_more),
            (100, Some(150), Some(true))
        );
    }
}
