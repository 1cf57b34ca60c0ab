//! The skills kind (SEP-2640): the skills a server serves, each with its manifest computed
//! once when it was loaded, and the resources that make their files readable.
//!
//! # Decisions
//!
//! - **A catalog like any primitive.** `skills/list` pages are the catalog's: ordered by
//!   URI, opaque cursors that survive changes, serialized once per era. A skill is one
//!   item, so an entry is never split across pages.
//! - **Files are resources.** Each skill's `SKILL.md` is a listed resource (`resources/list`,
//!   name and description from its front matter, `text/markdown`), and one template,
//!   `skill://{+path}`, makes every other file of every skill readable with
//!   `resources/read` without listing thousands of files: the manifest of `skills/list` is
//!   what enumerates them. Reads go through the request pipeline like any resource read
//!   (audit, the server's layers, the response budget).
//! - **Only what the manifest names is readable.** A read looks the URI up in the
//!   manifests (exactly, as sent); nothing else under `skill://` exists. The bytes then come
//!   from the skill's source (for a folder, its confined
//!   [`FileService`](crate::fs::FileService)), and are checked against the manifest's size
//!   and digest: a file changed on disk since loading is a `-32603` error naming the file,
//!   never content that contradicts the digest a client verifies.
//! - **Directories.** `resources/directory/read` answers for a skill's folder and every
//!   folder inside it: its direct children, files with their MIME type and size, folders
//!   with `inode/directory`, paginated by the server's page size. Any other URI (a file, a
//!   URI outside every skill) is `-32602`.
//! - A change of the skills (a watched folder reloaded) is a change of the resources: one
//!   `notifications/resources/list_changed`.

use super::catalog::{Catalog, Kind, PageSettings};
use super::{ChangeFeed, Primitive, RegistrationError};
use crate::context::Caller;
use crate::context::RequestContext;
use crate::protocol::CachePolicy;
use crate::protocol::skills::{
    DIRECTORY_MIME_TYPE, ReadDirectoryResult, SKILL_MD_MIME_TYPE, SkillEntry, SkillResources,
};
use crate::protocol::{
    BlobResourceContents, McpError, ResourceContents, ResourceDefinition,
    ResourceTemplateDefinition, TextResourceContents,
};
use crate::resource::{Resource, ResourceError, ResourceTemplate, Variables};
use crate::server::visibility::{Item, ItemKind, View, Visibility};
use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use futures::future::BoxFuture;
use serde::Serialize;
use sha2::Digest as _;
use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

/// The URI template that makes every skill file readable.
pub(crate) const SKILL_FILES_TEMPLATE: &str = "skill://{+path}";

/// Where a skill's bytes come from: a folder (through its `FileService`) or memory.
pub(crate) trait SkillSource: Send + Sync + 'static {
    /// The bytes of the file at `path`, relative to the skill's folder, `/`-separated.
    fn read(&self, path: &str) -> BoxFuture<'static, Result<Vec<u8>, String>>;
}

/// A skill's files held in memory (a skill declared in code).
#[cfg_attr(not(feature = "skills"), allow(dead_code))]
pub(crate) struct MemorySource {
    files: std::collections::HashMap<String, Arc<[u8]>>,
}

impl SkillSource for MemorySource {
    fn read(&self, path: &str) -> BoxFuture<'static, Result<Vec<u8>, String>> {
        let found = self
            .files
            .get(path)
            .map(|b| b.to_vec())
            .ok_or_else(|| format!("no file {path}"));
        Box::pin(std::future::ready(found))
    }
}

/// One file of a served skill.
#[derive(Debug, Clone)]
pub(crate) struct ServedFile {
    /// Its URI (as in the manifest).
    pub(crate) uri: String,
    /// Its path in the skill's folder, `/`-separated.
    pub(crate) path: String,
    pub(crate) mime_type: String,
    pub(crate) size: u64,
    /// `sha256:<hex>`.
    pub(crate) digest: String,
}

/// A skill ready to serve: its entry, its files, and where their bytes come from.
pub(crate) struct ServedSkill {
    pub(crate) entry: SkillEntry,
    /// Sorted by URI.
    pub(crate) files: Vec<ServedFile>,
    pub(crate) source: Arc<dyn SkillSource>,
    /// The scopes a caller must hold to see the skill (`Skill::scopes`).
    pub(crate) scopes: Arc<[String]>,
}

impl fmt::Debug for ServedSkill {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ServedSkill")
            .field("uri", &self.entry.uri)
            .field("files", &self.files.len())
            .finish_non_exhaustive()
    }
}

impl ServedSkill {
    /// A skill from its front matter and files (`path`, MIME type, bytes' size and
    /// digest): the manifest is made here, so it always matches what is served.
    // Without the `skills` feature nothing makes skills (the registry stays empty).
    #[cfg_attr(not(feature = "skills"), allow(dead_code))]
    pub(crate) fn new(
        uri: String,
        frontmatter: crate::protocol::JsonObject,
        mut files: Vec<ServedFile>,
        source: Arc<dyn SkillSource>,
    ) -> Self {
        files.sort_by(|a, b| a.uri.cmp(&b.uri));
        let manifest = files
            .iter()
            .map(|f| crate::protocol::skills::SkillFile::new(&f.uri, &f.digest, f.size))
            .collect();
        Self {
            entry: SkillEntry::new(uri, frontmatter, SkillResources::Files(manifest)),
            files,
            source,
            scopes: Arc::new([]),
        }
    }

    /// A skill whose files are in memory: `files` are `(path, MIME type, bytes)`, paths
    /// relative to the skill's folder (`SKILL.md`, `references/a.md`), already checked.
    #[cfg_attr(not(feature = "skills"), allow(dead_code))]
    pub(crate) fn from_memory(
        uri: String,
        frontmatter: crate::protocol::JsonObject,
        files: Vec<(String, String, Vec<u8>)>,
    ) -> Self {
        let base = uri.strip_suffix("SKILL.md").unwrap_or(&uri).to_owned();
        let mut served = Vec::with_capacity(files.len());
        let mut held = std::collections::HashMap::with_capacity(files.len());
        for (path, mime_type, bytes) in files {
            served.push(ServedFile {
                uri: format!("{base}{path}"),
                path: path.clone(),
                mime_type,
                size: bytes.len() as u64,
                digest: sha256_digest(&bytes),
            });
            held.insert(path, Arc::from(bytes));
        }
        Self::new(
            uri,
            frontmatter,
            served,
            Arc::new(MemorySource { files: held }),
        )
    }

    /// This skill as a server it is mounted into serves it (`ServerBuilder::mount`): its
    /// URIs (the entry's, the manifest's, the files') rewritten by `mount`, its bytes from
    /// the same source.
    pub(crate) fn mounted(&self, mount: &dyn Fn(&str) -> String) -> Self {
        let mut entry = self.entry.clone();
        entry.uri = mount(&entry.uri);
        if let SkillResources::Files(files) = &mut entry.resources {
            for file in files {
                file.uri = mount(&file.uri);
            }
        }
        let mut files: Vec<ServedFile> = self
            .files
            .iter()
            .map(|f| ServedFile {
                uri: mount(&f.uri),
                ..f.clone()
            })
            .collect();
        files.sort_by(|a, b| a.uri.cmp(&b.uri));
        Self {
            entry,
            files,
            source: self.source.clone(),
            scopes: self.scopes.clone(),
        }
    }

    fn file(&self, uri: &str) -> Option<&ServedFile> {
        self.files
            .binary_search_by(|f| f.uri.as_str().cmp(uri))
            .ok()
            .map(|i| &self.files[i])
    }

    /// The `SKILL.md` resource as `resources/list` shows it.
    fn manifest_definition(&self) -> ResourceDefinition {
        let name = self.entry.name().unwrap_or_default().to_owned();
        let mut definition =
            ResourceDefinition::new(&self.entry.uri, name).with_mime_type(SKILL_MD_MIME_TYPE);
        if let Some(description) = self.entry.description() {
            definition = definition.with_description(description);
        }
        definition.size = self.file(&self.entry.uri).map(|f| f.size);
        definition
    }

    /// Reads one of the skill's files and checks it against the manifest.
    fn read(
        &self,
        file: &ServedFile,
    ) -> BoxFuture<'static, Result<Vec<ResourceContents>, ResourceError>> {
        let read = self.source.read(&file.path);
        let file = file.clone();
        Box::pin(async move {
            let bytes = read
                .await
                .map_err(|e| ResourceError::failed(format!("{}: cannot be read: {e}", file.uri)))?;
            if bytes.len() as u64 != file.size || sha256_digest(&bytes) != file.digest {
                return Err(ResourceError::failed(format!(
                    "{} changed since the server loaded it (its size or digest no longer matches skills/list); restart the server or watch the skills folder",
                    file.uri
                )));
            }
            Ok(vec![contents(&file.uri, &file.mime_type, bytes)])
        })
    }
}

/// `sha256:` and the lowercase hex SHA-256 of `bytes`, the SEP's digest form.
pub(crate) fn sha256_digest(bytes: &[u8]) -> String {
    let hash = sha2::Sha256::digest(bytes);
    let mut out = String::with_capacity(7 + 64);
    out.push_str("sha256:");
    for b in hash {
        use std::fmt::Write as _;
        let _ = write!(out, "{b:02x}");
    }
    out
}

/// UTF-8 without NUL is text, anything else a base64 blob (as file resources do).
fn contents(uri: &str, mime_type: &str, bytes: Vec<u8>) -> ResourceContents {
    match String::from_utf8(bytes) {
        Ok(text) if !text.contains('\0') => TextResourceContents::new(uri, text)
            .with_mime_type(mime_type)
            .into(),
        Ok(text) => blob(uri, mime_type, text.as_bytes()),
        Err(e) => blob(uri, mime_type, e.as_bytes()),
    }
}

fn blob(uri: &str, mime_type: &str, bytes: &[u8]) -> ResourceContents {
    BlobResourceContents::new(uri, STANDARD.encode(bytes))
        .with_mime_type(mime_type)
        .into()
}

/// The skills catalog kind.
pub(crate) struct Skills;

impl Kind for Skills {
    type Item = ServedSkill;
    // A change of the skills is a change of the resources (their `SKILL.md`s are listed).
    const PRIMITIVE: Primitive = Primitive::Resources;
    const LIST_FIELD: &'static str = "skills";
    const ITEM: Option<ItemKind> = Some(ItemKind::Skill);

    fn scopes(item: &ServedSkill) -> &[String] {
        &item.scopes
    }

    fn key(item: &ServedSkill) -> &str {
        &item.entry.uri
    }

    fn listed(item: &ServedSkill, _modern: bool) -> impl Serialize + '_ {
        &item.entry
    }

    fn duplicate(uri: &str) -> RegistrationError {
        RegistrationError::InvalidSkill {
            uri: uri.to_owned(),
            reason: "another skill is served at this URI".into(),
        }
    }
}

/// The skills a server serves (the skills extension, SEP-2640): list their URIs, or see
/// whether there are any. Skills are added with `ServerBuilder::skills_dir` and
/// `ServerBuilder::skill` (feature `skills`).
pub struct SkillRegistry {
    catalog: Arc<Catalog<Skills>>,
    page_size: usize,
    /// `ttlMs` and `cacheScope` of modern `skills/get` and `resources/directory/read`
    /// results.
    pub(crate) cache: CachePolicy,
}

impl fmt::Debug for SkillRegistry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SkillRegistry")
            .field("skills", &self.catalog.keys())
            .finish_non_exhaustive()
    }
}

impl SkillRegistry {
    pub(crate) fn new(settings: PageSettings, feed: ChangeFeed) -> Self {
        Self {
            page_size: settings.page_size.max(1),
            cache: settings.cache,
            catalog: Arc::new(Catalog::new(settings, feed)),
        }
    }

    /// The `SKILL.md` URIs of the skills, in `skills/list` order.
    pub fn uris(&self) -> Vec<String> {
        self.catalog.keys()
    }

    /// Whether no skill is served.
    pub fn is_empty(&self) -> bool {
        self.catalog.is_empty()
    }

    /// The entry of the skill whose `SKILL.md` has this URI.
    pub fn entry(&self, uri: &str) -> Option<SkillEntry> {
        self.catalog.snapshot().get(uri).map(|s| s.entry.clone())
    }

    /// Adds skills: all or none.
    pub(crate) fn insert_all(
        &self,
        skills: Vec<ServedSkill>,
    ) -> Result<(), Vec<RegistrationError>> {
        self.catalog
            .insert_all(skills.into_iter().map(Ok).collect())
    }

    /// Serves `skills` instead of the skills keyed `remove` (a reloaded folder), and lists
    /// their `SKILL.md`s in `resources` instead of the removed ones': all or none (the
    /// skills first, then the listing, each one change).
    #[cfg_attr(not(feature = "skills-watch"), allow(dead_code))]
    pub(crate) fn reload(
        &self,
        resources: &super::ResourceRegistry,
        remove: &[&str],
        skills: Vec<ServedSkill>,
    ) -> Result<(), Vec<RegistrationError>> {
        let added: Vec<String> = skills.iter().map(|s| s.entry.uri.clone()).collect();
        self.catalog
            .replace(remove, skills.into_iter().map(Ok).collect())?;
        let listed: Vec<&str> = remove
            .iter()
            .copied()
            .filter(|uri| resources.has_resource(uri))
            .collect();
        let manifests = self
            .manifest_resources()
            .into_iter()
            .filter(|r| added.contains(&r.definition().uri))
            .collect();
        resources.swap_resources(&listed, manifests)
    }

    /// Makes the skills exactly the good ones of `skills` (one change), leaving out (and
    /// returning the problem of) a repeated URI: how a proxy mirrors its upstream's skills.
    #[cfg_attr(not(feature = "skills"), allow(dead_code))]
    pub(crate) fn mirror(&self, skills: Vec<ServedSkill>) -> Vec<RegistrationError> {
        self.catalog
            .replace_all_lenient(skills.into_iter().map(Ok).collect())
    }

    /// This registry's skills as a server it is mounted into serves them (URIs rewritten by
    /// `mount`).
    pub(crate) fn mounted(&self, mount: &dyn Fn(&str) -> String) -> Vec<ServedSkill> {
        self.catalog
            .snapshot()
            .iter()
            .map(|s| s.mounted(mount))
            .collect()
    }

    /// Replaces the skills one mounted server added (`held`: their URIs) with `add`, as
    /// `Catalog::swap_held` does for every kind.
    pub(crate) fn swap_mounted(
        &self,
        held: &mut Vec<String>,
        add: Vec<ServedSkill>,
        leave_out_clashes: bool,
    ) -> Vec<RegistrationError> {
        self.catalog.swap_held(held, add, leave_out_clashes)
    }

    /// One page of `skills/list`, as `view`'s caller sees it.
    pub(crate) fn list_page(
        &self,
        cursor: Option<&str>,
        modern: bool,
        view: &View<'_>,
    ) -> Result<Arc<str>, McpError> {
        self.catalog.list_page_for(cursor, modern, view)
    }

    /// Whether `uri` is a skill's `SKILL.md`, one of its files or folders, of a skill the
    /// visibility rules hide from `caller`: such a URI answers as one no skill serves.
    pub(crate) fn hides(&self, uri: &str, caller: &Caller, rules: &Visibility) -> bool {
        if !rules.may_hide(caller) || self.catalog.is_empty() {
            return false;
        }
        let snapshot = self.catalog.snapshot();
        skill_of(&snapshot, uri).is_some_and(|skill| {
            !rules.allows(
                caller,
                &Item::new(ItemKind::Skill, &skill.entry.uri, &skill.scopes),
            )
        })
    }

    /// The `SKILL.md` resources, to be listed by `resources/list`.
    pub(crate) fn manifest_resources(&self) -> Vec<Arc<dyn Resource>> {
        self.catalog
            .snapshot()
            .iter()
            .map(|s| {
                Arc::new(SkillManifest {
                    definition: s.manifest_definition(),
                    scopes: s.scopes.clone(),
                    catalog: self.catalog.clone(),
                }) as Arc<dyn Resource>
            })
            .collect()
    }

    /// The template that reads every skill file.
    pub(crate) fn files_template(&self) -> Arc<dyn ResourceTemplate> {
        Arc::new(SkillFiles {
            catalog: self.catalog.clone(),
        })
    }

    /// One page of the direct children of the directory `uri`.
    pub(crate) fn read_directory(
        &self,
        uri: &str,
        cursor: Option<&str>,
    ) -> Result<ReadDirectoryResult, McpError> {
        let snapshot = self.catalog.snapshot();
        let not_a_directory = || not_a_directory(uri);
        let skill = skill_of(&snapshot, uri).ok_or_else(not_a_directory)?;
        let root = skill.entry.directory_uri();
        if uri != root && skill.file(uri).is_some() {
            return Err(not_a_directory());
        }
        let prefix = format!("{}/", uri.trim_end_matches('/'));
        // Direct children: a file right below, or the first segment of a deeper path.
        let mut children: BTreeMap<&str, Option<&ServedFile>> = BTreeMap::new();
        for file in skill.files.iter().filter(|f| f.uri.starts_with(&prefix)) {
            let rest = &file.uri[prefix.len()..];
            match rest.split_once('/') {
                None => {
                    children.insert(rest, Some(file));
                }
                Some((dir, _)) => {
                    children.entry(dir).or_insert(None);
                }
            }
        }
        if children.is_empty() && uri != root {
            return Err(not_a_directory());
        }
        let from = match cursor {
            None => String::new(),
            Some(c) => URL_SAFE_NO_PAD
                .decode(c)
                .ok()
                .and_then(|b| String::from_utf8(b).ok())
                .ok_or_else(|| McpError::invalid_params("invalid cursor"))?,
        };
        let mut page: Vec<ResourceDefinition> = Vec::new();
        let mut next_cursor = None;
        for (name, file) in children.range(from.as_str()..) {
            if page.len() == self.page_size {
                next_cursor = Some(URL_SAFE_NO_PAD.encode(name));
                break;
            }
            let child_uri = format!("{prefix}{name}");
            page.push(match file {
                Some(f) => {
                    let mut d =
                        ResourceDefinition::new(child_uri, *name).with_mime_type(&f.mime_type);
                    d.size = Some(f.size);
                    d
                }
                None => {
                    ResourceDefinition::new(child_uri, *name).with_mime_type(DIRECTORY_MIME_TYPE)
                }
            });
        }
        Ok(ReadDirectoryResult {
            resources: page,
            next_cursor,
        })
    }
}

/// `-32602` for a `resources/directory/read` of `uri`, which is no folder of a skill served
/// (to this caller).
pub(crate) fn not_a_directory(uri: &str) -> McpError {
    McpError::invalid_params(format!(
        "{uri} is not a directory of a skill this server serves (resources/directory/read lists a skill's folder or a folder inside it)"
    ))
    .with_data(serde_json::json!({ "uri": uri }))
}

/// The skill whose folder holds `uri` (or is `uri`): the longest prefix of `uri` that ends
/// at a `/` and is a skill's folder (skills may nest).
///
/// Only prefixes no longer than the longest skill folder's URI can name one, so the work is
/// bounded by the catalog whatever the URI's length: one scan of `uri` for its slashes, then
/// a lookup per slash within that length. (Trying every prefix from the longest down made a
/// URI of many slashes cost time quadratic in them.)
fn skill_of<'a>(
    snapshot: &'a super::catalog::Snapshot<Skills>,
    uri: &str,
) -> Option<&'a Arc<ServedSkill>> {
    const MANIFEST: &str = "/SKILL.md";
    let uri = uri.trim_end_matches('/');
    let scheme_end = uri.find("://")? + 3;
    let longest = snapshot
        .iter()
        .map(|s| s.entry.directory_uri().len())
        .max()?;
    let mut key = String::with_capacity(longest + MANIFEST.len());
    let ends = uri
        .match_indices('/')
        .map(|(i, _)| i)
        .chain(std::iter::once(uri.len()));
    let mut found = None;
    for end in ends
        .filter(|&e| e > scheme_end)
        .take_while(|&e| e <= longest)
    {
        key.clear();
        key.push_str(&uri[..end]);
        key.push_str(MANIFEST);
        found = snapshot.get(&key).or(found);
    }
    found
}

/// A skill's `SKILL.md`, listed.
struct SkillManifest {
    definition: ResourceDefinition,
    /// The skill's: its `SKILL.md` is listed to whoever sees the skill.
    scopes: Arc<[String]>,
    catalog: Arc<Catalog<Skills>>,
}

impl Resource for SkillManifest {
    fn definition(&self) -> ResourceDefinition {
        self.definition.clone()
    }

    fn scopes(&self) -> Vec<String> {
        self.scopes.to_vec()
    }

    fn is_skill_manifest(&self) -> bool {
        true
    }

    fn read(
        &self,
        _cx: RequestContext,
    ) -> BoxFuture<'static, Result<Vec<ResourceContents>, ResourceError>> {
        read_file(&self.catalog, &self.definition.uri)
    }
}

/// `skill://{+path}`: every file of every skill.
struct SkillFiles {
    catalog: Arc<Catalog<Skills>>,
}

impl ResourceTemplate for SkillFiles {
    fn definition(&self) -> ResourceTemplateDefinition {
        ResourceTemplateDefinition::new(SKILL_FILES_TEMPLATE, "skill-files").with_description(
            "The files of the skills this server serves (skills/list names each one with its digest and size).",
        )
    }

    fn read(
        &self,
        uri: String,
        _variables: Variables,
        _cx: RequestContext,
    ) -> BoxFuture<'static, Result<Vec<ResourceContents>, ResourceError>> {
        read_file(&self.catalog, &uri)
    }
}

fn read_file(
    catalog: &Catalog<Skills>,
    uri: &str,
) -> BoxFuture<'static, Result<Vec<ResourceContents>, ResourceError>> {
    let snapshot = catalog.snapshot();
    match skill_of(&snapshot, uri).and_then(|s| s.file(uri).map(|f| (s, f))) {
        Some((skill, file)) => skill.read(file),
        None => Box::pin(std::future::ready(Err(ResourceError::NotFound))),
    }
}
