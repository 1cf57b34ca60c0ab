//! The cargo workspace a new project lands in, and adding it to `members`.
//!
//! Cargo treats a package below a `[workspace]` manifest as part of that workspace and
//! refuses to build it ("believes it's in a workspace when it's not") unless the workspace
//! lists it in `members` or `exclude`, or the package declares its own `[workspace]`.

use anyhow::{Context as _, Result};
use std::path::{Component, Path, PathBuf};
use toml_edit::{Array, DocumentMut, Item, Value};

/// An enclosing workspace manifest.
#[derive(Debug)]
pub struct Workspace {
    /// The folder holding the workspace `Cargo.toml`.
    pub root: PathBuf,
    doc: DocumentMut,
}

/// How a project at some path relates to the enclosing workspace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Membership {
    /// `members` already names it (directly or by a glob).
    Member,
    /// `exclude` names it: cargo leaves it alone.
    Excluded,
    /// Neither: it must be added to `members` or stand alone.
    Outside,
}

/// What happened to the enclosing workspace, if any.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WorkspaceChange {
    /// No workspace encloses the project.
    None,
    /// Added to the `members` of the workspace at this root.
    AddedMember(PathBuf),
    /// The workspace at this root already covered it (a `members` glob or `exclude`).
    AlreadyCovered(PathBuf),
    /// The project has its own empty `[workspace]` (`--standalone`) inside this one.
    Standalone(PathBuf),
}

impl Workspace {
    /// The nearest workspace manifest in `dir` or above it, as cargo looks for one.
    pub fn find_enclosing(dir: &Path) -> Result<Option<Workspace>> {
        for ancestor in dir.ancestors() {
            let manifest = ancestor.join("Cargo.toml");
            let Ok(text) = std::fs::read_to_string(&manifest) else {
                continue;
            };
            let doc: DocumentMut = text
                .parse()
                .with_context(|| format!("cannot parse {}", manifest.display()))?;
            if doc.contains_key("workspace") {
                return Ok(Some(Workspace {
                    root: ancestor.to_path_buf(),
                    doc,
                }));
            }
        }
        Ok(None)
    }

    /// The project's path relative to the workspace root, with `/` separators.
    fn relative(&self, project: &Path) -> Option<String> {
        let rel = project.strip_prefix(&self.root).ok()?;
        let parts: Vec<String> = rel
            .components()
            .filter_map(|c| match c {
                Component::Normal(s) => Some(s.to_string_lossy().into_owned()),
                _ => None,
            })
            .collect();
        Some(parts.join("/"))
    }

    fn list(&self, key: &str) -> Vec<String> {
        self.doc
            .get("workspace")
            .and_then(|w| w.get(key))
            .and_then(Item::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .map(|s| s.trim_end_matches('/').trim_start_matches("./").to_owned())
                    .collect()
            })
            .unwrap_or_default()
    }

    /// How `project` (an absolute path below the root) relates to this workspace.
    pub fn membership(&self, project: &Path) -> Membership {
        let Some(rel) = self.relative(project) else {
            return Membership::Outside;
        };
        let excluded = self
            .list("exclude")
            .iter()
            .any(|e| rel == *e || rel.starts_with(&format!("{e}/")));
        if excluded {
            return Membership::Excluded;
        }
        // Cargo expands `members` with the `glob` crate, one path component at a time, so
        // `*` never crosses a `/`; the same crate and rule here.
        let options = glob::MatchOptions {
            require_literal_separator: true,
            ..glob::MatchOptions::new()
        };
        let member = self.list("members").iter().any(|pattern| {
            pattern == &rel
                || glob::Pattern::new(pattern).is_ok_and(|p| p.matches_with(&rel, options))
        });
        if member {
            Membership::Member
        } else {
            Membership::Outside
        }
    }

    /// Adds `project` to `members` and writes the manifest back, keeping its formatting.
    pub fn add_member(&mut self, project: &Path) -> Result<()> {
        let rel = self
            .relative(project)
            .context("the project is not below the workspace root")?;
        let workspace = self.doc["workspace"]
            .as_table_like_mut()
            .context("`workspace` is not a table")?;
        let members = workspace
            .entry("members")
            .or_insert(Item::Value(Value::Array(Array::new())));
        let array = members
            .as_array_mut()
            .context("`workspace.members` is not an array")?;
        // Keep a multi-line list multi-line.
        let multiline = array.iter().any(|v| {
            v.decor()
                .prefix()
                .and_then(|p| p.as_str())
                .is_some_and(|p| p.contains('\n'))
        });
        array.push(rel.as_str());
        if multiline {
            let indent = array
                .iter()
                .next()
                .and_then(|v| v.decor().prefix()?.as_str().map(str::to_owned))
                .unwrap_or_else(|| "\n    ".to_owned());
            if let Some(last) = array.iter_mut().last() {
                last.decor_mut().set_prefix(indent);
            }
            array.set_trailing_comma(true);
        }
        let manifest = self.root.join("Cargo.toml");
        std::fs::write(&manifest, self.doc.to_string())
            .with_context(|| format!("cannot write {}", manifest.display()))
    }

    /// The manifest text as it would be written.
    pub fn manifest_text(&self) -> String {
        self.doc.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn workspace(text: &str) -> (tempfile::TempDir, Workspace) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("Cargo.toml"), text).unwrap();
        std::fs::create_dir_all(dir.path().join("crates/inner")).unwrap();
        let ws = Workspace::find_enclosing(&dir.path().join("crates/inner"))
            .unwrap()
            .expect("found");
        (dir, ws)
    }

    #[test]
    fn finds_the_nearest_workspace_and_classifies() {
        let (dir, ws) = workspace(
            "[workspace]\nmembers = [\"crates/*\", \"tools/a\"]\nexclude = [\"scratch\"]\n",
        );
        assert_eq!(ws.root, dir.path());
        assert_eq!(
            ws.membership(&dir.path().join("crates/new")),
            Membership::Member
        );
        assert_eq!(
            ws.membership(&dir.path().join("tools/a")),
            Membership::Member
        );
        assert_eq!(
            ws.membership(&dir.path().join("tools/b")),
            Membership::Outside
        );
        // As in cargo, `*` stays within one folder.
        assert_eq!(
            ws.membership(&dir.path().join("crates/group/deep")),
            Membership::Outside
        );
        assert_eq!(
            ws.membership(&dir.path().join("scratch/x")),
            Membership::Excluded
        );
        assert!(Workspace::find_enclosing(Path::new("/")).unwrap().is_none());
    }

    #[test]
    fn adds_members_keeping_the_format() {
        let (dir, mut ws) = workspace(
            "# my workspace\n[workspace]\nmembers = [\n    \"a\",\n    \"b\",\n]\n\n[workspace.dependencies]\nx = \"1\"\n",
        );
        ws.add_member(&dir.path().join("servers/new")).unwrap();
        let text = std::fs::read_to_string(dir.path().join("Cargo.toml")).unwrap();
        assert_eq!(
            text,
            "# my workspace\n[workspace]\nmembers = [\n    \"a\",\n    \"b\",\n    \"servers/new\",\n]\n\n[workspace.dependencies]\nx = \"1\"\n"
        );

        let (dir, mut ws) = workspace("[workspace]\nresolver = \"3\"\n");
        ws.add_member(&dir.path().join("new")).unwrap();
        let text = std::fs::read_to_string(dir.path().join("Cargo.toml")).unwrap();
        assert_eq!(text, "[workspace]\nresolver = \"3\"\nmembers = [\"new\"]\n");
    }
}
