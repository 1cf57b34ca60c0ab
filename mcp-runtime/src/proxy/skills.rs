//! An upstream's skills (the skills extension, SEP-2640) served as the mirror's own.
//!
//! Read with `skills/list` at each sync of the resources; each skill with a manifest is
//! served from the mirror's skills catalog (so `skills/list`, `skills/get` and
//! `resources/directory/read` answer from memory, paged as the proxy pages), and its files
//! are read from the upstream with `resources/read` when a client reads them, then checked
//! against the manifest's size and digest like a local skill's: an upstream cannot serve
//! bytes that contradict the manifest it published. A skill whose files are `"dynamic"`
//! (no manifest) is left out and logged. The upstream's own listing of the skills' files
//! (their `SKILL.md` resources and its `skill://{+path}` template) is replaced by the
//! mirror's, which serves the same URIs.

use super::Link;
use crate::client::Client;
use crate::protocol::skills::{SkillEntry, SkillResources};
use crate::protocol::{ResourceContents, methods};
use crate::resource::{Resource, ResourceTemplate};
use crate::server::registry::skills::{SKILL_FILES_TEMPLATE, ServedFile, ServedSkill, SkillSource};
use crate::server::{RegistrationError, Server};
use base64::Engine as _;
use futures::future::BoxFuture;
use serde_json::json;
use std::collections::HashSet;
use std::sync::Arc;

/// The upstream's resources and templates with its skills served in their place, and the
/// skills left out.
type WithSkills = (
    Vec<Arc<dyn Resource>>,
    Vec<Arc<dyn ResourceTemplate>>,
    Vec<RegistrationError>,
);

/// The upstream's `skills/list`; `None` when it cannot be read now (logged).
pub(super) async fn entries(link: &Arc<Link>, client: &Client) -> Option<Vec<SkillEntry>> {
    super::relay::list::<SkillEntry>(client, methods::SKILLS_LIST.name, "skills")
        .await
        .map_err(|e| tracing::warn!(upstream = %link.upstream.name, "cannot list its skills: {e}"))
        .ok()
}

/// Serves the upstream's skills (`entries`, as listed) from `mirror`'s skills catalog, and
/// returns the upstream's `resources` and `templates` with the skills' listing in place of
/// the upstream's, and the skills left out. Skills that could not be listed (`None`) are
/// left as they were.
pub(super) fn serve(
    link: &Arc<Link>,
    mirror: &Server,
    entries: Option<Vec<SkillEntry>>,
    mut resources: Vec<Arc<dyn Resource>>,
    mut templates: Vec<Arc<dyn ResourceTemplate>>,
) -> WithSkills {
    let Some(entries) = entries else {
        return (resources, templates, Vec::new());
    };
    let (skills, covered) = served(link, entries);
    let catalog = &mirror.registry().skills;
    let problems = catalog.mirror(skills);
    resources.retain(|r| !covered.resource(&r.definition().uri));
    templates.retain(|t| !covered.template(&t.definition().uri_template));
    resources.extend(catalog.manifest_resources());
    if covered.template {
        templates.push(catalog.files_template());
    }
    (resources, templates, problems)
}

/// The upstream's skills, ready to serve, and the URIs they cover (to leave out of the
/// upstream's own resource lists).
fn served(link: &Arc<Link>, entries: Vec<SkillEntry>) -> (Vec<ServedSkill>, Covered) {
    let mut covered = Covered::default();
    let mut skills = Vec::with_capacity(entries.len());
    for entry in entries {
        let SkillResources::Files(manifest) = &entry.resources else {
            tracing::warn!(upstream = %link.upstream.name, skill = %entry.uri, "left out: a skill without a manifest (\"dynamic\") is not proxied");
            continue;
        };
        let directory = format!("{}/", entry.directory_uri());
        let files: Option<Vec<ServedFile>> = manifest
            .iter()
            .map(|f| {
                let path = f.uri.strip_prefix(&directory)?.to_owned();
                Some(ServedFile {
                    uri: f.uri.clone(),
                    mime_type: crate::skill::folder::mime_type(&path, b""),
                    path,
                    size: f.size,
                    digest: f.digest.clone(),
                })
            })
            .collect();
        let Some(files) = files else {
            tracing::warn!(upstream = %link.upstream.name, skill = %entry.uri, "left out: its manifest names a file outside its folder");
            continue;
        };
        covered.uris.insert(entry.uri.clone());
        let source = Arc::new(Upstream {
            link: Arc::downgrade(link),
            directory,
        });
        skills.push(ServedSkill::new(
            entry.uri,
            entry.frontmatter,
            files,
            source,
        ));
    }
    covered.template = !skills.is_empty();
    (skills, covered)
}

/// What the mirror's skills serve of the upstream's resource lists.
#[derive(Default)]
struct Covered {
    /// The skills' `SKILL.md` URIs.
    uris: HashSet<String>,
    /// Whether the upstream's `skill://{+path}` template is covered.
    template: bool,
}

impl Covered {
    /// Whether the resource `uri` is served by the mirror's skills.
    fn resource(&self, uri: &str) -> bool {
        self.uris.contains(uri)
    }

    /// Whether the template `uri_template` is served by the mirror's skills.
    fn template(&self, uri_template: &str) -> bool {
        self.template && uri_template == SKILL_FILES_TEMPLATE
    }
}

/// A proxied skill's files: read from the upstream with `resources/read`.
struct Upstream {
    link: std::sync::Weak<Link>,
    /// The skill's folder URI, with its final `/`.
    directory: String,
}

impl SkillSource for Upstream {
    fn read(&self, path: &str) -> BoxFuture<'static, Result<Vec<u8>, String>> {
        let (link, uri) = (self.link.clone(), format!("{}{path}", self.directory));
        Box::pin(async move {
            let link = link.upgrade().ok_or("the proxy has stopped")?;
            let client = link.client().map_err(|e| e.to_string())?;
            let result = client
                .request_cancellable(
                    methods::RESOURCES_READ.name,
                    Some(json!({ "uri": uri })),
                    None,
                )
                .await
                .map_err(|e| super::failed(&link, &e))?;
            let contents: Vec<ResourceContents> = result
                .get("contents")
                .cloned()
                .and_then(|c| serde_json::from_value(c).ok())
                .ok_or("the upstream's answer has no contents")?;
            match contents.into_iter().next() {
                Some(ResourceContents::Text(t)) => Ok(t.text.into_bytes()),
                Some(ResourceContents::Blob(b)) => base64::engine::general_purpose::STANDARD
                    .decode(b.blob.as_bytes())
                    .map_err(|e| format!("the upstream's blob is not base64: {e}")),
                None => Err("the upstream's answer has no contents".to_owned()),
            }
        })
    }
}
