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
//!
//! Bounds (no input may abort the process or hold a worker): the text each edit would produce
//! is measured before it is built and refused past the policy's write limit, dry runs
//! included (a long indentation copied onto many new lines could otherwise ask for hundreds
//! of gigabytes, and a failed allocation aborts the whole server); matching allocates nothing
//! per line; and the work of all the edits of one call is counted against
//! [`EDIT_WORK_BUDGET`], so many edits of a large file, or a line-by-line match that would be
//! quadratic, fail at once with [`FsErrorKind::TooLarge`].

use super::diff::{fenced_diff, unified_diff};
use super::error::{FsError, FsErrorKind, FsResult, Quoted};
use super::path::FsPath;
use super::read::{open_regular, read_all};
use super::resolve::{Core, Location};
use super::write::{check_writable, check_write_size, replace_file};
use cap_fs_ext::MetadataExt;

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
    /// A unified diff from the old text to the new.
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

/// How much work one `edit_file` call may do, in bytes of text scanned, compared or moved.
///
/// Every edit scans the whole text (and a line-by-line match may compare each candidate
/// window), so the work of a call grows with the number of edits times the file's size, and a
/// whitespace-tolerant match can be quadratic in the number of lines. 256 MiB of such work
/// takes a fraction of a second and is far beyond any edit a model makes (it allows twenty
/// edits of a 10 MiB file, thousands of a typical source file); past it the call fails with
/// [`FsErrorKind::TooLarge`] instead of holding a worker for hours. It is a count, not a
/// clock, so the same call fails the same way on any machine, loaded or not.
pub(crate) const EDIT_WORK_BUDGET: usize = 256 << 20;

/// Work charged per line comparison on top of the bytes compared, so that a flood of empty
/// lines (one byte each) is not nearly free.
const LINE_COST: usize = 16;

/// The bounds [`apply_edits`] works within.
#[derive(Debug, Clone, Copy)]
pub(crate) struct EditLimits {
    /// The largest text the edits may produce, checked before the text is built (the
    /// policy's write limit, for dry runs as well).
    pub(crate) max_output: usize,
    /// See [`EDIT_WORK_BUDGET`].
    pub(crate) work: usize,
}

/// Counts work against the budget.
struct Work {
    left: usize,
}

impl Work {
    fn charge(&mut self, amount: usize) -> FsResult<()> {
        if super::work::cancelled() {
            return Err(FsError::new(FsErrorKind::Io, "the request was cancelled"));
        }
        match self.left.checked_sub(amount) {
            Some(left) => {
                self.left = left;
                Ok(())
            }
            None => Err(FsError::new(
                FsErrorKind::TooLarge,
                "these edits need too much work to apply (too many edits for the file's size, \
                 or an oldText whose lines match in too many places); use fewer edits with \
                 more distinctive oldText, or write the file whole",
            )),
        }
    }
}

fn too_large_output(len: usize, max: usize) -> FsError {
    FsError::new(
        FsErrorKind::TooLarge,
        format!("the edited text would be {len} bytes, over the write limit of {max} bytes"),
    )
}

/// Applies the edits to normalized text, as described in the module documentation, within
/// `limits`: the text each edit produces is measured before it is built, and the work of
/// matching is counted, so no input can make this allocate more than about twice
/// `max_output` or run for long.
pub(crate) fn apply_edits(
    content: &str,
    edits: &[TextEdit],
    limits: EditLimits,
) -> FsResult<String> {
    let mut work = Work { left: limits.work };
    let mut text = content.to_owned();
    for edit in edits {
        let old = normalize(&edit.old_text);
        let new = normalize(&edit.new_text);
        if old.is_empty() {
            return Err(FsError::invalid_argument(
                "an edit's oldText is empty; give the exact text to replace",
            ));
        }
        // Finding (linear: two-way search) and splicing each move the whole text once.
        work.charge(text.len() + old.len() + new.len())?;
        if let Some(at) = text.find(&old) {
            let len = text.len() - old.len() + new.len();
            if len > limits.max_output {
                return Err(too_large_output(len, limits.max_output));
            }
            text.replace_range(at..at + old.len(), &new);
            continue;
        }
        let Some(window) = find_trimmed_lines(&text, &old, &mut work)? else {
            return Err(FsError::invalid_argument(format!(
                "Could not find exact match for edit:\n{}",
                edit.old_text
            )));
        };
        text = splice_reindented(&text, window, &old, &new, limits.max_output)?;
    }
    Ok(text)
}

/// The byte range of the first run of lines of `text` equal to `old`'s lines once each
/// side's surrounding whitespace is trimmed, from the start of its first line to the end of
/// its last (newline excluded). Nothing is allocated: candidate windows are compared by
/// walking both texts, and each comparison is charged to `work`.
fn find_trimmed_lines(
    text: &str,
    old: &str,
    work: &mut Work,
) -> FsResult<Option<std::ops::Range<usize>>> {
    let old_count = memchr::memchr_iter(b'\n', old.as_bytes()).count() + 1;
    let text_count = memchr::memchr_iter(b'\n', text.as_bytes()).count() + 1;
    if old_count > text_count {
        return Ok(None);
    }
    let first = old.split('\n').next().unwrap_or("").trim();
    let mut start = 0;
    for (index, line) in text.split('\n').enumerate() {
        if index + old_count > text_count {
            break;
        }
        let line_start = start;
        start += line.len() + 1;
        work.charge(LINE_COST + line.len())?;
        if line.trim() != first {
            continue;
        }
        // The first line matches; compare the rest of the window.
        let mut end = line_start + line.len();
        let mut rest = text[end..].split('\n').skip(1);
        let mut matched = true;
        for o in old.split('\n').skip(1) {
            let Some(l) = rest.next() else {
                matched = false;
                break;
            };
            work.charge(LINE_COST + o.len() + l.len())?;
            if o.trim() != l.trim() {
                matched = false;
                break;
            }
            end += 1 + l.len();
        }
        if matched {
            return Ok(Some(line_start..end));
        }
    }
    Ok(None)
}

/// The new lines that replace a whitespace-tolerant match, each as (indentation, extra
/// spaces, rest): the first takes the matched first line's indentation; a later one whose
/// old counterpart and itself are both indented takes it too, plus its indentation beyond the
/// old line's; any other is kept as written.
fn reindented<'a>(
    indent: &'a str,
    old: &'a str,
    new: &'a str,
) -> impl Iterator<Item = (&'a str, usize, &'a str)> + 'a {
    let mut old_lines = old.split('\n');
    new.split('\n').enumerate().map(move |(j, line)| {
        let old_indent = old_lines.next().map_or("", leading_whitespace);
        if j == 0 {
            return (indent, 0, line.trim_start());
        }
        let new_indent = leading_whitespace(line);
        if !old_indent.is_empty() && !new_indent.is_empty() {
            let extra = new_indent
                .chars()
                .count()
                .saturating_sub(old_indent.chars().count());
            (indent, extra, line.trim_start())
        } else {
            ("", 0, line)
        }
    })
}

/// Replaces `window` of `text` with `new`'s lines reindented (see [`reindented`]), after
/// checking the size of the result: the indentation is repeated on every line, so a long one
/// times many lines could otherwise ask for far more memory than exists.
fn splice_reindented(
    text: &str,
    window: std::ops::Range<usize>,
    old: &str,
    new: &str,
    max_output: usize,
) -> FsResult<String> {
    let first_line = text[window.clone()].split('\n').next().unwrap_or("");
    let indent = leading_whitespace(first_line);
    let kept = text.len() - window.len();
    let mut len = kept;
    for (i, (indent, extra, rest)) in reindented(indent, old, new).enumerate() {
        len = len
            .saturating_add(usize::from(i > 0))
            .saturating_add(indent.len())
            .saturating_add(extra)
            .saturating_add(rest.len());
        if len > max_output {
            return Err(too_large_output(len, max_output));
        }
    }
    let mut out = String::with_capacity(len);
    out.push_str(&text[..window.start]);
    for (i, (indent, extra, rest)) in reindented(indent, old, new).enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(indent);
        out.extend(std::iter::repeat_n(' ', extra));
        out.push_str(rest);
    }
    out.push_str(&text[window.end..]);
    Ok(out)
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
    let limits = EditLimits {
        max_output: usize::try_from(core.policy.max_write_bytes).unwrap_or(usize::MAX),
        work: EDIT_WORK_BUDGET,
    };
    let edited = apply_edits(&content, edits, limits)?;
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

    const LIMITS: EditLimits = EditLimits {
        max_output: 10 << 20,
        work: EDIT_WORK_BUDGET,
    };

    fn apply(content: &str, edits: &[(&str, &str)]) -> FsResult<String> {
        let edits: Vec<TextEdit> = edits.iter().map(|(o, n)| TextEdit::new(*o, *n)).collect();
        apply_edits(content, &edits, LIMITS)
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
    fn a_blank_first_line_lends_only_its_own_indentation() {
        // The matched first line is all whitespace: its indentation must not run on into the
        // next line's.
        let edited = apply("x\n   \n  y\n", &[("\t\n y", "A\nB")]).unwrap();
        assert_eq!(edited, "x\n   A\nB\n");
    }

    /// The reindented text is measured before it is built: a long indentation repeated on
    /// many lines is refused, not allocated.
    #[test]
    fn output_over_the_limit_is_refused_before_it_is_built() {
        let indent = " ".repeat(1000);
        let content = format!("{indent}a\n{}", "b\n".repeat(1000));
        let old = format!("\ta{}", "\n\tb".repeat(1000));
        let new = format!("x{}", "\n\t\ty".repeat(1000));
        let limits = EditLimits {
            max_output: 100_000,
            work: EDIT_WORK_BUDGET,
        };
        let e = apply_edits(&content, &[TextEdit::new(&old, &new)], limits).unwrap_err();
        assert_eq!(e.kind(), FsErrorKind::TooLarge);
        assert!(
            e.to_string()
                .contains("over the write limit of 100000 bytes"),
            "{e}"
        );
        // The same edit fits a larger limit, and then every line is reindented.
        let limits = EditLimits {
            max_output: 2 << 20,
            work: EDIT_WORK_BUDGET,
        };
        let edited = apply_edits(&content, &[TextEdit::new(&old, &new)], limits).unwrap();
        assert_eq!(edited.lines().count(), 1001);
        assert!(edited.lines().skip(1).all(|l| l == format!("{indent} y")));
        // An exact replacement is measured too.
        let limits = EditLimits {
            max_output: 10,
            work: EDIT_WORK_BUDGET,
        };
        let e = apply_edits("abc", &[TextEdit::new("b", "0123456789")], limits).unwrap_err();
        assert_eq!(e.kind(), FsErrorKind::TooLarge);
    }

    /// Matching that would be quadratic (many candidate windows, each long) stops at the work
    /// budget with an error instead of running for hours.
    #[test]
    fn quadratic_matching_stops_at_the_work_budget() {
        let content = "\n".repeat(10 << 20);
        let old = format!("{}zzz", "\n".repeat(2_000_000));
        let e = apply(&content, &[(&old, "y")]).unwrap_err();
        assert_eq!(e.kind(), FsErrorKind::TooLarge);
        assert!(e.to_string().contains("too much work"), "{e}");
    }

    /// Many edits of a large file: each scans the whole text, so their number is bounded by
    /// the budget.
    #[test]
    fn many_edits_of_a_large_file_stop_at_the_work_budget() {
        let content = "a".repeat(10 << 20);
        let edits = vec![TextEdit::new("a", "b"); 130_000];
        let e = apply_edits(&content, &edits, LIMITS).unwrap_err();
        assert_eq!(e.kind(), FsErrorKind::TooLarge);
        // A few hundred edits of a small file are nothing.
        let small = "a".repeat(1000);
        let edits = vec![TextEdit::new("a", "b"); 500];
        let edited = apply_edits(&small, &edits, LIMITS).unwrap();
        assert_eq!(edited, format!("{}{}", "b".repeat(500), "a".repeat(500)));
    }

    /// The line matching of the previous implementation (one `String` per line of the file),
    /// kept as the oracle for the allocation-free one.
    fn reference_apply(content: &str, old: &str, new: &str) -> Option<String> {
        if let Some(at) = content.find(old) {
            let mut text = content.to_owned();
            text.replace_range(at..at + old.len(), new);
            return Some(text);
        }
        let old_lines: Vec<&str> = old.split('\n').collect();
        let mut lines: Vec<String> = content.split('\n').map(str::to_owned).collect();
        let i = (0..(lines.len() + 1).saturating_sub(old_lines.len())).find(|&i| {
            old_lines
                .iter()
                .zip(&lines[i..])
                .all(|(o, l)| o.trim() == l.trim())
        })?;
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
        Some(lines.join("\n"))
    }

    proptest::proptest! {
        #[test]
        fn matches_the_reference_implementation(
            content in "[ab \t\n]{0,40}",
            old in "[ab \t\n]{1,12}",
            new in "[xy \t\n]{0,12}",
        ) {
            let ours = apply(&content, &[(&old, &new)]).ok();
            proptest::prop_assert_eq!(ours, reference_apply(&content, &old, &new));
        }
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
