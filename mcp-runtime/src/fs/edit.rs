//! `edit_file`: the reference server's edit semantics, applied to a confined file.
//!
//! Each edit, in order, on the text with `\r\n` normalized to `\n`:
//! 1. if `oldText` occurs verbatim, its first occurrence is replaced by `newText`;
//! 2. otherwise a run of lines equal to `oldText`'s lines once each side's surrounding
//!    whitespace is trimmed is replaced; the first new line takes the matched first line's
//!    indentation, later new lines keep their indentation relative to the old text's;
//! 3. otherwise the edit fails: `Could not find exact match for edit:\n<oldText>`.
//!
//! Two deliberate differences from the reference: an empty `oldText` is refused (the
//! reference inserts `newText` at the top of the file), and a file whose line endings were
//! all `\r\n` is written back with `\r\n` (the reference converts it to `\n`). The diff, as the
//! reference's, is computed on the normalized text. A dry run works in read-only mode.

use super::diff::{fenced_diff, unified_diff};
use super::error::{FsError, FsErrorKind, FsResult, Quoted};
use super::path::FsPath;
use super::read::{open_regular, read_all};
use super::resolve::{Core, Location};
use super::write::{check_writable, check_write_size, replace_file};
use cap_std::fs::MetadataExt;

/// One replacement in [`FileService::edit_file`](super::FileService::edit_file).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextEdit {
    /// The text to find (exactly, or line by line ignoring surrounding whitespace).
    pub old_text: String,
    /// Its replacement.
    pub new_text: String,
}

impl TextEdit {
    /// An edit replacing `old_text` with `new_text`.
    pub fn new(old_text: impl Into<String>, new_text: impl Into<String>) -> Self {
        Self {
            old_text: old_text.into(),
            new_text: new_text.into(),
        }
    }
}

/// What an edit did (or, in a dry run, would do).
#[derive(Debug, Clone)]
pub struct EditOutcome {
    /// The file, as asked for.
    pub path: FsPath,
    /// A unified diff from the old text to the new (see [`unified_diff`]).
    pub diff: String,
    /// Whether the file was written (false for a dry run).
    pub written: bool,
}

impl EditOutcome {
    /// The diff in a Markdown code fence: the reference server's result text.
    pub fn fenced_diff(&self) -> String {
        fenced_diff(&self.diff)
    }
}

fn normalize(text: &str) -> String {
    text.replace("\r\n", "\n")
}

fn leading_whitespace(line: &str) -> &str {
    &line[..line.len() - line.trim_start().len()]
}

/// Applies the edits to normalized text, as described in the module documentation.
pub(crate) fn apply_edits(content: &str, edits: &[TextEdit]) -> FsResult<String> {
    let mut text = content.to_owned();
    for edit in edits {
        let old = normalize(&edit.old_text);
        let new = normalize(&edit.new_text);
        if old.is_empty() {
            return Err(FsError::invalid_argument(
                "an edit's oldText is empty; give the exact text to replace",
            ));
        }
        if let Some(at) = text.find(&old) {
            text.replace_range(at..at + old.len(), &new);
            continue;
        }
        let old_lines: Vec<&str> = old.split('\n').collect();
        let mut lines: Vec<String> = text.split('\n').map(str::to_owned).collect();
        let found = (0..(lines.len() + 1).saturating_sub(old_lines.len())).find(|&i| {
            old_lines
                .iter()
                .zip(&lines[i..])
                .all(|(o, l)| o.trim() == l.trim())
        });
        let Some(i) = found else {
            return Err(FsError::invalid_argument(format!(
                "Could not find exact match for edit:\n{}",
                edit.old_text
            )));
        };
        let indent = leading_whitespace(&lines[i]).to_owned();
        let replacement: Vec<String> = new
            .split('\n')
            .enumerate()
            .map(|(j, line)| {
                if j == 0 {
                    return format!("{indent}{}", line.trim_start());
                }
                let old_indent = old_lines.get(j).map_or("", |l| leading_whitespace(l));
                let new_indent = leading_whitespace(line);
                if !old_indent.is_empty() && !new_indent.is_empty() {
                    let extra = new_indent
                        .chars()
                        .count()
                        .saturating_sub(old_indent.chars().count());
                    format!("{indent}{}{}", " ".repeat(extra), line.trim_start())
                } else {
                    line.to_owned()
                }
            })
            .collect();
        lines.splice(i..i + old_lines.len(), replacement);
        text = lines.join("\n");
    }
    Ok(text)
}

/// Reads, edits and (unless a dry run) atomically rewrites a UTF-8 text file.
pub(crate) fn edit_file(
    core: &Core,
    loc: &Location,
    edits: &[TextEdit],
    dry_run: bool,
) -> FsResult<EditOutcome> {
    if !dry_run {
        check_writable(core, loc)?;
    }
    let open = open_regular(core, loc)?;
    let bytes = read_all(core, loc, &open)?;
    let original = String::from_utf8(bytes).map_err(|_| {
        FsError::new(
            FsErrorKind::NotUtf8,
            format!(
                "{} is not valid UTF-8 text, so it cannot be edited as text",
                Quoted(&loc.raw)
            ),
        )
    })?;
    let content = normalize(&original);
    let edited = apply_edits(&content, edits)?;
    let path = core.fs_path(loc);
    let diff = unified_diff(&path.absolute().to_string_lossy(), &content, &edited);
    if !dry_run {
        let all_crlf = original.contains("\r\n")
            && original.matches('\n').count() == original.matches("\r\n").count();
        let out = if all_crlf {
            edited.replace('\n', "\r\n")
        } else {
            edited
        };
        check_write_size(core, loc, out.len())?;
        // The file we read must still be the one under that name: no swap in between.
        let now = open
            .dir
            .symlink_metadata(&open.resolved)
            .map_err(|e| FsError::io(&loc.raw, e))?;
        if (now.dev(), now.ino()) != open.dev_ino {
            return Err(FsError::new(
                FsErrorKind::Conflict,
                format!(
                    "{} was replaced while being edited; read it again and retry",
                    Quoted(&loc.raw)
                ),
            ));
        }
        replace_file(
            loc,
            &open.dir,
            &open.resolved,
            out.as_bytes(),
            Some(open.mode),
        )?;
    }
    Ok(EditOutcome {
        path,
        diff,
        written: !dry_run,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn apply(content: &str, edits: &[(&str, &str)]) -> FsResult<String> {
        let edits: Vec<TextEdit> = edits.iter().map(|(o, n)| TextEdit::new(*o, *n)).collect();
        apply_edits(content, &edits)
    }

    #[test]
    fn exact_match_replaces_the_first_occurrence() {
        assert_eq!(apply("a b a", &[("a", "X")]).unwrap(), "X b a");
        assert_eq!(
            apply("one\ntwo\n", &[("one", "1"), ("two", "2")]).unwrap(),
            "1\n2\n"
        );
        // `$&` and friends are not special (the reference passes a function to replace).
        assert_eq!(apply("x", &[("x", "$&$1")]).unwrap(), "$&$1");
    }

    // Expected texts produced by the reference server's `applyFileEdits`, quirks included
    // (a new line whose old counterpart had no indentation is kept as written).
    #[test]
    fn whitespace_flexible_match_as_the_reference() {
        let content = "fn main() {\n    let x = 1;\n    if x {\n        go();\n    }\n}\n";
        let edited = apply(
            content,
            &[(
                "let x = 1;\nif x {\n    go();",
                "let y = 2;\nif y {\n    stop();",
            )],
        )
        .unwrap();
        assert_eq!(
            edited,
            "fn main() {\n    let y = 2;\nif y {\n    stop();\n    }\n}\n"
        );
        let edited = apply("  a\n    b\n  c\n", &[("a\n  b", "A\n    B\n  C")]).unwrap();
        assert_eq!(edited, "  A\n    B\n  C\n  c\n");
    }

    #[test]
    fn crlf_in_the_edit_is_normalized() {
        assert_eq!(apply("a\nb\n", &[("a\r\nb", "c\r\nd")]).unwrap(), "c\nd\n");
    }

    #[test]
    fn failures_quote_the_edit() {
        let e = apply("abc", &[("zzz", "y")]).unwrap_err();
        assert_eq!(e.kind(), FsErrorKind::InvalidArgument);
        assert_eq!(e.to_string(), "Could not find exact match for edit:\nzzz");
        assert!(apply("abc", &[("", "y")]).is_err());
        assert!(apply("", &[("a\nb\nc", "y")]).is_err());
    }
}
