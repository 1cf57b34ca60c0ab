//! One file as a resource ([`FileResource`], what the listing holds) and every file as one
//! template ([`FileTemplate`], `file:///{+path}`): reading a file's contents (text or
//! base64, typed by its name) and completing a path, through a [`FileService`].

use super::error::{FsError, FsErrorKind};
use super::format::iso8601;
use super::service::FileService;
use super::walk::{EntryKind, FoundFile};
use crate::context::RequestContext;
use crate::protocol::methods;
use crate::protocol::{
    Annotations, BlobResourceContents, Completion, ResourceContents, ResourceDefinition,
    ResourceTemplateDefinition, TextResourceContents,
};
use crate::resource::{Resource, ResourceError, ResourceTemplate, Variables};
use base64::Engine as _;
use futures::future::BoxFuture;
use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::path::Path;

/// The URI template of every file: `file:///{+path}` (`path` is absolute, without its first
/// `/`, and may hold `/`).
pub const FILE_URI_TEMPLATE: &str = "file:///{+path}";

/// One listed file.
pub(super) struct FileResource {
    definition: ResourceDefinition,
    files: FileService,
}

impl FileResource {
    /// `file`'s resource, read through `files`.
    pub(super) fn new(file: &FoundFile, files: FileService) -> Self {
        let uri = file.path.file_uri();
        let mut definition = ResourceDefinition::new(&uri, file.path.relative());
        definition.mime_type = mime_from_name(file.path.relative()).map(str::to_owned);
        definition.size = Some(file.size);
        definition.annotations = file.modified.and_then(iso8601).map(|t| Annotations {
            last_modified: Some(t),
            ..Annotations::default()
        });
        Self { definition, files }
    }

    /// Its URI.
    pub(super) fn uri(&self) -> &str {
        &self.definition.uri
    }
}

impl Resource for FileResource {
    fn definition(&self) -> ResourceDefinition {
        self.definition.clone()
    }

    fn read(
        &self,
        _cx: RequestContext,
    ) -> BoxFuture<'static, Result<Vec<ResourceContents>, ResourceError>> {
        Box::pin(read(self.files.clone(), self.definition.uri.clone()))
    }
}

/// The template `file:///{+path}` over a [`FileService`]: see [`FileResources::template`](super::FileResources::template).
#[derive(Debug, Clone)]
pub struct FileTemplate {
    files: FileService,
}

impl FileTemplate {
    /// The template over `files`.
    pub(super) fn new(files: FileService) -> Self {
        Self { files }
    }
}

impl ResourceTemplate for FileTemplate {
    fn definition(&self) -> ResourceTemplateDefinition {
        let dirs: Vec<String> = self
            .files
            .allowed_directories()
            .iter()
            .map(|d| d.display().to_string())
            .collect();
        ResourceTemplateDefinition::new(FILE_URI_TEMPLATE, "file").with_description(format!(
            "Any file in the allowed directories ({}), by absolute path: text (UTF-8) as \
                 text, anything else as base64 bytes. `path` completes from directory entries.",
            dirs.join(", ")
        ))
    }

    fn read(
        &self,
        uri: String,
        _variables: Variables,
        _cx: RequestContext,
    ) -> BoxFuture<'static, Result<Vec<ResourceContents>, ResourceError>> {
        Box::pin(read(self.files.for_tool(methods::RESOURCES_READ.name), uri))
    }

    fn complete(
        &self,
        variable: &str,
        value: &str,
        _chosen: &BTreeMap<String, String>,
    ) -> BoxFuture<'static, Completion> {
        if variable != "path" {
            return Box::pin(std::future::ready(Completion::default()));
        }
        let files = self.files.for_tool(methods::COMPLETION_COMPLETE.name);
        let value = value.to_owned();
        Box::pin(async move { complete_path(&files, &value).await })
    }

    /// The FileService refuses `..` itself, saying why (see the module documentation).
    fn allow_dot_segments(&self) -> bool {
        true
    }
}

/// Reads `uri` through the FileService (which decodes it once and applies every rule).
async fn read(files: FileService, uri: String) -> Result<Vec<ResourceContents>, ResourceError> {
    let (bytes, resolved) = files.read_file_resolved(&uri).await.map_err(read_error)?;
    Ok(vec![contents(uri, bytes, &resolved)])
}

/// How a FileService error answers a read (see the module documentation).
fn read_error(e: FsError) -> ResourceError {
    match e.kind() {
        FsErrorKind::NotFound | FsErrorKind::NotADirectory => ResourceError::NotFound,
        FsErrorKind::InvalidPath
        | FsErrorKind::OutsideRoots
        | FsErrorKind::NotAFile
        | FsErrorKind::ExtensionNotAllowed
        | FsErrorKind::HardLinked
        | FsErrorKind::SymlinkLoop => ResourceError::InvalidUri(e.to_string()),
        _ => ResourceError::Failed(e.to_string()),
    }
}

/// Text when the bytes are UTF-8 without NUL, else a blob; the MIME type by the resolved
/// name's extension.
fn contents(uri: String, bytes: Vec<u8>, resolved: &OsStr) -> ResourceContents {
    let guessed = mime_from_name(&resolved.to_string_lossy());
    let is_text = !bytes.contains(&0) && std::str::from_utf8(&bytes).is_ok();
    if is_text {
        let text = String::from_utf8(bytes).unwrap_or_default();
        ResourceContents::Text(TextResourceContents {
            uri,
            mime_type: Some(guessed.unwrap_or("text/plain").to_owned()),
            text,
            meta: None,
        })
    } else {
        ResourceContents::Blob(BlobResourceContents {
            uri,
            mime_type: Some(guessed.unwrap_or("application/octet-stream").to_owned()),
            blob: base64::engine::general_purpose::STANDARD.encode(bytes),
            meta: None,
        })
    }
}

/// The MIME type for a file name's extension, when the table knows it.
fn mime_from_name(name: &str) -> Option<&'static str> {
    let ext = Path::new(name).extension()?.to_str()?;
    mime_guess::from_ext(ext).first_raw()
}

/// Completions of the template's `path` (absolute, without its first `/`): the allowed
/// directories that extend what was typed, then the entries of the typed directory whose
/// names start with the typed rest (directories end with `/`). Files a read would refuse
/// (symlinks, hard-linked files, other extensions) are not offered.
pub(super) async fn complete_path(files: &FileService, value: &str) -> Completion {
    let mut values: Vec<String> = files
        .allowed_directories()
        .iter()
        .filter_map(|d| {
            let d = d.to_str()?.trim_start_matches('/');
            let d = if d.is_empty() {
                String::new()
            } else {
                format!("{d}/")
            };
            (d.starts_with(value) && d != value).then_some(d)
        })
        .collect();
    let (dir, prefix) = match value.rfind('/') {
        Some(i) => (&value[..i], &value[i + 1..]),
        None => ("", value),
    };
    if let Ok(listing) = files.list_directory(&format!("/{dir}")).await {
        let join = |name: &str| {
            if dir.is_empty() {
                name.to_owned()
            } else {
                format!("{dir}/{name}")
            }
        };
        values.extend(listing.entries.iter().filter_map(|e| {
            if !e.name.starts_with(prefix) {
                return None;
            }
            match e.kind {
                EntryKind::Directory => Some(join(&e.name) + "/"),
                // A file's size is withheld when the policy refuses it for its hard links.
                EntryKind::File if e.size.is_some() => Some(join(&e.name)),
                _ => None,
            }
        }));
    }
    Completion::from_all(values)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_or_blob_by_content_and_mime_by_extension() {
        let text = contents(
            "file:///r/a.md".into(),
            b"# hi".to_vec(),
            OsStr::new("a.md"),
        );
        let ResourceContents::Text(t) = text else {
            panic!("text expected")
        };
        assert_eq!(t.mime_type.as_deref(), Some("text/markdown"));
        let unknown = contents("file:///r/x".into(), b"plain".to_vec(), OsStr::new("x"));
        assert!(
            matches!(unknown, ResourceContents::Text(t) if t.mime_type.as_deref() == Some("text/plain"))
        );
        let nul = contents(
            "file:///r/n.txt".into(),
            b"a\0b".to_vec(),
            OsStr::new("n.txt"),
        );
        assert!(
            matches!(nul, ResourceContents::Blob(b) if b.mime_type.as_deref() == Some("text/plain") && b.blob == "YQBi")
        );
        let png = contents(
            "file:///r/i.png".into(),
            vec![0x89, b'P'],
            OsStr::new("i.PNG"),
        );
        assert!(
            matches!(png, ResourceContents::Blob(b) if b.mime_type.as_deref() == Some("image/png"))
        );
        let bin = contents("file:///r/d".into(), vec![0xff], OsStr::new("d"));
        assert!(
            matches!(bin, ResourceContents::Blob(b) if b.mime_type.as_deref() == Some("application/octet-stream"))
        );
        assert_eq!(mime_from_name("src/main.rs"), Some("text/x-rust"));
        assert_eq!(mime_from_name("data.json"), Some("application/json"));
        assert_eq!(mime_from_name("Makefile"), None);
    }

    #[test]
    fn refusals_are_invalid_uris_and_absence_is_not_found() {
        let kinds = [
            (FsErrorKind::NotFound, ResourceError::NotFound),
            (FsErrorKind::NotADirectory, ResourceError::NotFound),
            (
                FsErrorKind::OutsideRoots,
                ResourceError::InvalidUri("m".into()),
            ),
            (
                FsErrorKind::InvalidPath,
                ResourceError::InvalidUri("m".into()),
            ),
            (FsErrorKind::NotAFile, ResourceError::InvalidUri("m".into())),
            (
                FsErrorKind::HardLinked,
                ResourceError::InvalidUri("m".into()),
            ),
            (FsErrorKind::TooLarge, ResourceError::Failed("m".into())),
            (FsErrorKind::Io, ResourceError::Failed("m".into())),
        ];
        for (kind, expected) in kinds {
            assert_eq!(read_error(FsError::new(kind, "m")), expected, "{kind:?}");
        }
    }
}
