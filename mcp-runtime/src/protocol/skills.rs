//! The skills extension (SEP-2640, `io.modelcontextprotocol/skills`): Agent Skills (a
//! `SKILL.md` folder and its files) served as `skill://<skill-path>/<file>` resources.
//!
//! A server declares `capabilities.extensions["io.modelcontextprotocol/skills"]`
//! (`{"directoryRead": true}` when it answers `resources/directory/read`) and the
//! `resources` capability, and answers:
//!
//! - `skills/list` (paginated like `resources/list`): `{skills: [SkillEntry], nextCursor?}`;
//! - `skills/get {uri}`: `{skill: SkillEntry}`, no cursor; a URI that names no served skill
//!   is `-32602`;
//! - `resources/directory/read {uri, cursor?}`: `{resources: [Resource], nextCursor?}`, the
//!   direct children of a directory of a skill, subdirectories with
//!   `mimeType: "inode/directory"`; a URI that is not such a directory is `-32602`.
//!
//! On the 2026-07-28 wire these results carry `resultType`, `ttlMs` and `cacheScope` like
//! every list and read result. The files themselves are read with `resources/read`.

use super::common::JsonObject;
use super::meta::RequestMeta;
use super::resources::ResourceDefinition;
use serde::{Deserialize, Serialize};

/// The extension identifier.
pub const SKILLS_EXTENSION: &str = "io.modelcontextprotocol/skills";

/// The MIME type of a directory in a `resources/directory/read` result.
pub const DIRECTORY_MIME_TYPE: &str = "inode/directory";

/// The MIME type of a `SKILL.md`.
pub const SKILL_MD_MIME_TYPE: &str = "text/markdown";

/// The file every skill has at its root.
pub const SKILL_MD: &str = "SKILL.md";

/// The most files one skill may have, `SKILL.md` included (the SEP's limit).
pub const MAX_SKILL_FILES: usize = 512;

/// The most bytes one skill's files may hold together (16 MiB, the SEP's limit).
pub const MAX_SKILL_BYTES: u64 = 16 * 1024 * 1024;

/// One skill as `skills/list` and `skills/get` show it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SkillEntry {
    /// The URI of the skill's `SKILL.md` (`skill://<skill-path>/SKILL.md`); the last
    /// segment of the skill path is the skill's name.
    pub uri: String,
    /// The `SKILL.md` YAML front matter, as a JSON object (`name` and `description` at
    /// least).
    pub frontmatter: JsonObject,
    /// Every file of the skill, or `"dynamic"`.
    pub resources: SkillResources,
}

impl SkillEntry {
    /// An entry.
    pub fn new(uri: impl Into<String>, frontmatter: JsonObject, resources: SkillResources) -> Self {
        Self {
            uri: uri.into(),
            frontmatter,
            resources,
        }
    }

    /// The skill's name (`frontmatter.name`).
    pub fn name(&self) -> Option<&str> {
        self.frontmatter.get("name").and_then(|v| v.as_str())
    }

    /// The skill's description (`frontmatter.description`).
    pub fn description(&self) -> Option<&str> {
        self.frontmatter.get("description").and_then(|v| v.as_str())
    }

    /// The URI of the skill's folder: [`uri`](Self::uri) without `/SKILL.md`.
    pub fn directory_uri(&self) -> &str {
        self.uri
            .strip_suffix("/SKILL.md")
            .unwrap_or(self.uri.as_str())
    }
}

/// A skill's files: a complete manifest, or `"dynamic"` (files known only when read).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum SkillResources {
    /// Every file, `SKILL.md` included, each once.
    Files(Vec<SkillFile>),
    /// The string `"dynamic"`: no manifest is published.
    Dynamic,
}

impl Serialize for SkillResources {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            SkillResources::Files(files) => files.serialize(s),
            SkillResources::Dynamic => s.serialize_str("dynamic"),
        }
    }
}

impl<'de> Deserialize<'de> for SkillResources {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Wire {
            Files(Vec<SkillFile>),
            Word(String),
        }
        match Wire::deserialize(d)? {
            Wire::Files(files) => Ok(SkillResources::Files(files)),
            Wire::Word(w) if w == "dynamic" => Ok(SkillResources::Dynamic),
            Wire::Word(w) => Err(serde::de::Error::custom(format!(
                "resources is an array or \"dynamic\", not {w:?}"
            ))),
        }
    }
}

/// One file of a skill's manifest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SkillFile {
    /// Its URI, within the skill's folder.
    pub uri: String,
    /// `sha256:` and the 64 lowercase hex digits of the SHA-256 of its bytes.
    pub digest: String,
    /// Its length in bytes.
    pub size: u64,
}

impl SkillFile {
    /// A manifest entry.
    pub fn new(uri: impl Into<String>, digest: impl Into<String>, size: u64) -> Self {
        Self {
            uri: uri.into(),
            digest: digest.into(),
            size,
        }
    }
}

/// `skills/list` result (the era fields are added by the projection).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ListSkillsResult {
    /// One page of skills.
    pub skills: Vec<SkillEntry>,
    /// Cursor of the next page, absent on the last.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

/// `skills/get` and `resources/directory/read` parameters.
#[derive(Debug, Clone, Default, Deserialize)]
#[non_exhaustive]
pub struct SkillUriParams {
    /// The skill's `SKILL.md` URI, or the directory's URI.
    pub uri: String,
    /// Where to continue (`resources/directory/read`); opaque.
    #[serde(default)]
    pub cursor: Option<String>,
    /// `_meta`.
    #[serde(rename = "_meta", default)]
    pub meta: Option<RequestMeta>,
}

/// `skills/get` result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct GetSkillResult {
    /// The skill.
    pub skill: SkillEntry,
}

/// `resources/directory/read` result.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ReadDirectoryResult {
    /// One page of the directory's direct children; subdirectories have
    /// [`DIRECTORY_MIME_TYPE`].
    pub resources: Vec<ResourceDefinition>,
    /// Cursor of the next page, absent on the last.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn resources_is_an_array_or_dynamic() {
        let files =
            SkillResources::Files(vec![SkillFile::new("skill://a/SKILL.md", "sha256:00", 1)]);
        assert_eq!(
            serde_json::to_value(&files).unwrap(),
            json!([{"uri": "skill://a/SKILL.md", "digest": "sha256:00", "size": 1}])
        );
        assert_eq!(
            serde_json::to_value(SkillResources::Dynamic).unwrap(),
            json!("dynamic")
        );
        let back: SkillResources = serde_json::from_value(json!("dynamic")).unwrap();
        assert_eq!(back, SkillResources::Dynamic);
        assert!(serde_json::from_value::<SkillResources>(json!("static")).is_err());
    }
}
