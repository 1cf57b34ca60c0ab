//! Loading a skills folder: finding its skill folders, reading each one whole through its
//! own [`FileService`] (so nothing leaves the skill's folder), checking the limits, and
//! computing the manifest (digests and sizes) once.

use super::front_matter;
use crate::fs::{EntryKind, FileService, FsPolicy};
use crate::prompt::LoadProblem;
use crate::prompt::templates::source::Pos;
use crate::protocol::skills::{MAX_SKILL_BYTES, MAX_SKILL_FILES, SKILL_MD, SKILL_MD_MIME_TYPE};
use crate::server::registry::skills::{ServedFile, ServedSkill, SkillSource, sha256_digest};
use futures::future::BoxFuture;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// How deep skill folders may sit below the skills folder (`acme/pdf/SKILL.md` is 2).
const MAX_GROUP_DEPTH: usize = 8;

/// A skill folder's files, read through its confined service.
struct FolderSource {
    files: FileService,
}

impl SkillSource for FolderSource {
    fn read(&self, path: &str) -> BoxFuture<'static, Result<Vec<u8>, String>> {
        let files = self.files.clone();
        let path = path.to_owned();
        Box::pin(async move {
            files
                .read_file_bytes(&path)
                .await
                .map_err(|e| e.to_string())
        })
    }
}

/// Every skill of the skills folder `dir`, or every problem found in it.
pub(crate) fn load(dir: &Path) -> Result<Vec<ServedSkill>, Vec<LoadProblem>> {
    let whole = |message: String| vec![LoadProblem::file(dir, message)];
    let groups = FileService::new(FsPolicy::new().allow_dir(dir).read_only(true))
        .map_err(|e| whole(format!("cannot open the skills folder: {e}")))?
        .for_tool("skills");
    let mut problems = Vec::new();
    let mut skills = Vec::new();
    // (path below `dir`, as segments): folders to look into, in name order.
    let mut pending: Vec<Vec<String>> = vec![Vec::new()];
    while let Some(segments) = pending.pop() {
        let rel = if segments.is_empty() {
            ".".to_owned()
        } else {
            segments.join("/")
        };
        let listing = match groups.list_directory_blocking(&rel) {
            Ok(l) => l,
            Err(e) => {
                problems.push(LoadProblem::file(
                    &dir.join(&rel),
                    format!("cannot list: {e}"),
                ));
                continue;
            }
        };
        let has_skill_md = listing.entries.iter().any(|e| e.name == SKILL_MD);
        if has_skill_md && segments.is_empty() {
            // A skill's own folder given as the skills folder: its name would be lost.
            problems.push(LoadProblem::at(
                &dir.join(SKILL_MD),
                Pos::START,
                "the skills folder itself holds a SKILL.md; give skills_dir the folder that holds the skill folders (each skill is a folder named after the skill)".to_owned(),
            ));
            continue;
        }
        let is_skill = has_skill_md;
        if is_skill {
            match load_skill(dir, &segments) {
                Ok(skill) => skills.push(skill),
                Err(found) => problems.extend(found),
            }
            continue;
        }
        let mut below = Vec::new();
        for entry in listing.entries.iter().filter(|e| !e.name.starts_with('.')) {
            let path = dir.join(&rel).join(&entry.name);
            match entry.kind {
                EntryKind::Directory if segments.len() < MAX_GROUP_DEPTH => {
                    if let Some(why) = segment_problem(&entry.name) {
                        problems.push(LoadProblem::at(&path, Pos::START, why));
                        continue;
                    }
                    let mut next = segments.clone();
                    next.push(entry.name.clone());
                    below.push(next);
                }
                EntryKind::Directory => problems.push(LoadProblem::at(
                    &path,
                    Pos::START,
                    format!("skill folders sit at most {MAX_GROUP_DEPTH} folders deep"),
                )),
                EntryKind::Symlink => problems.push(LoadProblem::at(
                    &path,
                    Pos::START,
                    "a symlink in the skills folder; symlinks are not followed here: make it a folder"
                        .to_owned(),
                )),
                // Files beside skill folders (a README) are not skills.
                _ => {}
            }
        }
        // Popped last first: push in reverse so folders are loaded in name order.
        pending.extend(below.into_iter().rev());
    }
    if problems.is_empty() {
        Ok(skills)
    } else {
        Err(problems)
    }
}

/// Why a folder name cannot be a segment of a skill path (`skill://<segments>/SKILL.md`):
/// a URI's authority and path take it as is, so only RFC 3986 unreserved characters.
fn segment_problem(name: &str) -> Option<String> {
    let ok = name
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~'));
    (!ok).then(|| {
        format!("the folder name {name:?} cannot be part of a skill:// URI: use letters, digits, `-`, `.`, `_` and `~`")
    })
}

/// Percent-encodes one segment of a file path for its URI (RFC 3986 `pchar`s stay).
fn encode_segment(segment: &str) -> String {
    let mut out = String::with_capacity(segment.len());
    for b in segment.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=:@".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// One found file of a skill: its path in the folder.
struct Found {
    path: String,
}

/// Loads the skill in the folder `segments` below `dir`.
fn load_skill(dir: &Path, segments: &[String]) -> Result<ServedSkill, Vec<LoadProblem>> {
    let folder: PathBuf = segments.iter().fold(dir.to_path_buf(), |p, s| p.join(s));
    let skill_md = folder.join(SKILL_MD);
    let name = segments.last().map(String::as_str).unwrap_or_default();
    let here = |message: String| vec![LoadProblem::at(&skill_md, Pos::START, message)];
    let files = FileService::new(
        FsPolicy::new()
            .allow_dir(&folder)
            .read_only(true)
            .max_read_bytes(MAX_SKILL_BYTES),
    )
    .map_err(|e| here(format!("cannot open the skill's folder: {e}")))?
    .for_tool("skills");

    let mut problems = Vec::new();
    let mut found: Vec<Found> = Vec::new();
    let mut total: u64 = 0;
    let mut pending = vec![String::new()];
    'walk: while let Some(rel) = pending.pop() {
        let listing = match files.list_directory_blocking(if rel.is_empty() { "." } else { &rel }) {
            Ok(l) => l,
            Err(e) => {
                problems.push(LoadProblem::at(
                    &folder.join(&rel),
                    Pos::START,
                    format!("cannot list: {e}"),
                ));
                continue;
            }
        };
        let mut below = Vec::new();
        for entry in listing.entries.iter().filter(|e| !e.name.starts_with('.')) {
            let path = if rel.is_empty() {
                entry.name.clone()
            } else {
                format!("{rel}/{}", entry.name)
            };
            let shown = folder.join(&path);
            match entry.kind {
                EntryKind::Directory => below.push(path),
                EntryKind::File => {
                    let size = entry.size.unwrap_or(0);
                    found.push(Found { path });
                    total += size;
                }
                EntryKind::Symlink => {
                    // Followed only when it stays inside the skill's folder, by the kernel.
                    match files.read_file_bytes_blocking(&path) {
                        Ok(bytes) => {
                            total += bytes.len() as u64;
                            found.push(Found { path });
                        }
                        Err(e) => problems.push(LoadProblem::at(
                            &shown,
                            Pos::START,
                            format!("a symlink that leads out of the skill's folder (or to no regular file); a skill serves only files inside its folder: {e}"),
                        )),
                    }
                }
                EntryKind::Other => problems.push(LoadProblem::at(
                    &shown,
                    Pos::START,
                    "not a regular file (a FIFO, socket or device)".to_owned(),
                )),
            }
            if found.len() > MAX_SKILL_FILES {
                problems.extend(here(format!(
                    "the skill `{name}` has more than {MAX_SKILL_FILES} files; a skill has at most {MAX_SKILL_FILES}, SKILL.md included"
                )));
                break 'walk;
            }
        }
        pending.extend(below.into_iter().rev());
    }
    if total > MAX_SKILL_BYTES {
        problems.extend(here(format!(
            "the skill `{name}` holds {total} bytes; a skill holds at most 16 MiB ({MAX_SKILL_BYTES} bytes) in all its files"
        )));
    }
    if !found.iter().any(|f| f.path == SKILL_MD) {
        problems.extend(here(
            "SKILL.md is not a regular file in the skill's folder".into(),
        ));
    }
    if !problems.is_empty() {
        return Err(problems);
    }

    let mut frontmatter = None;
    let mut served = Vec::with_capacity(found.len());
    let mut read_total: u64 = 0;
    for file in &found {
        let bytes = match files.read_file_bytes_blocking(&file.path) {
            Ok(b) => b,
            Err(e) => {
                problems.push(LoadProblem::at(
                    &folder.join(&file.path),
                    Pos::START,
                    format!("cannot read: {e}"),
                ));
                continue;
            }
        };
        read_total += bytes.len() as u64;
        let mime_type = if file.path == SKILL_MD {
            match std::str::from_utf8(&bytes) {
                Ok(text) => match front_matter::parse(&skill_md, text, Some(name)) {
                    Ok(fm) => frontmatter = Some(fm),
                    Err(found) => problems.extend(found),
                },
                Err(_) => problems.extend(here("SKILL.md is not UTF-8 text".into())),
            }
            SKILL_MD_MIME_TYPE.to_owned()
        } else {
            mime_type(&file.path, &bytes)
        };
        let base = segments
            .iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join("/");
        let encoded = file
            .path
            .split('/')
            .map(encode_segment)
            .collect::<Vec<_>>()
            .join("/");
        served.push(ServedFile {
            uri: format!("skill://{base}/{encoded}"),
            path: file.path.clone(),
            mime_type,
            size: bytes.len() as u64,
            digest: sha256_digest(&bytes),
        });
    }
    if read_total > MAX_SKILL_BYTES {
        problems.extend(here(format!(
            "the skill `{name}` holds {read_total} bytes; a skill holds at most 16 MiB ({MAX_SKILL_BYTES} bytes) in all its files"
        )));
    }
    match frontmatter {
        Some(fm) if problems.is_empty() => Ok(ServedSkill::new(
            format!("skill://{}/{SKILL_MD}", segments.join("/")),
            fm,
            served,
            Arc::new(FolderSource { files }),
        )),
        _ => Err(problems),
    }
}

/// The MIME type of a skill file: by its extension (`mime_guess`, Markdown as
/// `text/markdown`), else `text/plain` for UTF-8 text and `application/octet-stream` for
/// anything else.
pub(crate) fn mime_type(path: &str, bytes: &[u8]) -> String {
    let ext = Path::new(path)
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    if matches!(ext.as_deref(), Some("md" | "markdown")) {
        return SKILL_MD_MIME_TYPE.to_owned();
    }
    if let Some(mime) = ext
        .as_deref()
        .and_then(|e| mime_guess::from_ext(e).first_raw())
    {
        return mime.to_owned();
    }
    if std::str::from_utf8(bytes).is_ok_and(|t| !t.contains('\0')) {
        "text/plain".to_owned()
    } else {
        "application/octet-stream".to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_are_percent_encoded_in_uris() {
        assert_eq!(encode_segment("FORMS.md"), "FORMS.md");
        assert_eq!(encode_segment("a b#c.md"), "a%20b%23c.md");
        assert_eq!(encode_segment("é"), "%C3%A9");
        assert!(segment_problem("pdf-processing").is_none());
        assert!(segment_problem("a b").is_some());
    }

    #[test]
    fn mime_types_by_extension_then_content() {
        assert_eq!(mime_type("references/FORMS.md", b"x"), "text/markdown");
        assert_eq!(mime_type("data/fields.json", b"{}"), "application/json");
        assert_eq!(mime_type("LICENSE", b"MIT"), "text/plain");
        assert_eq!(mime_type("blob", &[0, 159]), "application/octet-stream");
    }
}
