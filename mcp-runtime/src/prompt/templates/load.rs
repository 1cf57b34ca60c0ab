//! Reading prompt files: which files are prompt files (by extension), reading a directory
//! or one file, and parsing its text by format; the parsed tree is then checked by
//! [`super::check`]. Every problem is collected (with its position) instead of stopping at
//! the first, and a directory's files are loaded in name order so a duplicate name is
//! reported against the later file.

use super::check;
use super::checked::PromptTemplate;
use super::error::{LoadError, LoadProblem};
use super::source::{self, Node, Pos, Val};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// A prompt file's format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Format {
    Json,
    Yaml,
    Markdown,
}

impl Format {
    /// The format of `path` by its extension (ASCII case-insensitive), or `None` for a file
    /// that is not a prompt file (hidden files included: editors' swap files start with `.`).
    pub(crate) fn of(path: &Path) -> Option<Format> {
        let name = path.file_name()?.to_str()?;
        if name.starts_with('.') {
            return None;
        }
        match path.extension()?.to_str()?.to_ascii_lowercase().as_str() {
            "json" => Some(Format::Json),
            "yaml" | "yml" => Some(Format::Yaml),
            "md" | "markdown" => Some(Format::Markdown),
            _ => None,
        }
    }
}

/// Every prompt file of `dir` (not its subdirectories), sorted by name.
pub(crate) fn prompt_files(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let path = entry.path();
        if Format::of(&path).is_some() && std::fs::metadata(&path).is_ok_and(|m| m.is_file()) {
            files.push(path);
        }
    }
    files.sort();
    Ok(files)
}

/// Loads every prompt file of `dir`: all of them, or every problem of every file.
pub(crate) fn load_dir(dir: &Path) -> Result<Vec<PromptTemplate>, LoadError> {
    let files = prompt_files(dir).map_err(|e| {
        LoadError::new(vec![LoadProblem::file(
            dir,
            format!("cannot read the prompt directory: {e}"),
        )])
    })?;
    let mut problems = Vec::new();
    let mut templates = Vec::with_capacity(files.len());
    for file in &files {
        match load_file(file) {
            Ok(t) => templates.push(t),
            Err(found) => problems.extend(found),
        }
    }
    problems.extend(duplicates(&templates));
    if problems.is_empty() {
        Ok(templates)
    } else {
        Err(LoadError::new(problems))
    }
}

/// A problem for every template whose name an earlier one (in file order) already has.
pub(crate) fn duplicates(templates: &[PromptTemplate]) -> Vec<LoadProblem> {
    let mut first: HashMap<&str, &PromptTemplate> = HashMap::new();
    let mut problems = Vec::new();
    for t in templates {
        match first.get(t.name()) {
            Some(earlier) => problems.push(LoadProblem::at(
                &t.file,
                t.name_pos,
                format!(
                    "the prompt name `{}` is already used by {}:{}:{}",
                    t.name(),
                    earlier.file.display(),
                    earlier.name_pos.line,
                    earlier.name_pos.column
                ),
            )),
            None => {
                first.insert(t.name(), t);
            }
        }
    }
    problems
}

/// Reads and checks one prompt file.
pub(crate) fn load_file(file: &Path) -> Result<PromptTemplate, Vec<LoadProblem>> {
    let Some(format) = Format::of(file) else {
        return Err(vec![LoadProblem::file(file, "not a prompt file")]);
    };
    let text = std::fs::read_to_string(file).map_err(|e| {
        vec![LoadProblem::file(
            file,
            format!("cannot read the file: {e}"),
        )]
    })?;
    load_source(file, format, &text)
}

/// Parses one prompt file's text and checks it.
pub(crate) fn load_source(
    file: &Path,
    format: Format,
    text: &str,
) -> Result<PromptTemplate, Vec<LoadProblem>> {
    let syntax = |errors: Vec<source::SyntaxError>| -> Vec<LoadProblem> {
        errors
            .into_iter()
            .map(|e| LoadProblem::at(file, e.pos, e.message))
            .collect()
    };
    let (root, body) = match format {
        Format::Json => (source::parse_json(text).map_err(syntax)?, None),
        Format::Yaml => (source::parse_yaml(text, 0).map_err(syntax)?, None),
        Format::Markdown => {
            let md = source::split_markdown(text).map_err(|e| syntax(vec![e]))?;
            let root = match md.front_matter {
                Some((yaml, offset)) if !yaml.trim().is_empty() => {
                    source::parse_yaml(yaml, offset).map_err(syntax)?
                }
                _ => Node {
                    pos: Pos::START,
                    value: Val::Object(Vec::new()),
                },
            };
            (root, Some(md.body))
        }
    };
    check::prompt_file(file, &root, body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_by_extension() {
        assert_eq!(Format::of(Path::new("p/a.JSON")), Some(Format::Json));
        assert_eq!(Format::of(Path::new("p/a.yml")), Some(Format::Yaml));
        assert_eq!(Format::of(Path::new("p/a.md")), Some(Format::Markdown));
        assert_eq!(Format::of(Path::new("p/a.txt")), None);
        assert_eq!(Format::of(Path::new("p/.a.json")), None);
        assert_eq!(Format::of(Path::new("p/a.json~")), None);
        for ext in super::super::PROMPT_FILE_EXTENSIONS {
            assert!(
                Format::of(Path::new(&format!("p/a.{ext}"))).is_some(),
                "{ext}"
            );
        }
    }
}
