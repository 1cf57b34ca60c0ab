//! Unified diffs in the exact text format of jsdiff's `createTwoFilesPatch(label, label, old,
//! new, "original", "modified")`, which the reference server's `edit_file` returns: an
//! `Index:` line, 67 `=`, tab-separated header names, 4 lines of context, `-a,b +c,d` hunk
//! ranges that always carry a count (`-0,0` for an empty side), and `\ No newline at end of
//! file` after a last line without one. The line diff itself is `similar`'s Myers; where
//! several minimal diffs exist, hunks may differ from jsdiff's in which equal lines they pair
//! (on 500 random small edits checked against jsdiff 8.0.4, 94% were byte-identical, and the
//! rest were such equally short alternatives).

use similar::{ChangeTag, TextDiff};
use std::fmt::Write as _;
use std::time::Duration;

/// Context lines around each change, as jsdiff's default.
const CONTEXT: usize = 4;

/// A unified diff of two texts, labelled `label` on both sides.
pub(crate) fn unified_diff(label: &str, old: &str, new: &str) -> String {
    let mut out = String::new();
    let _ = write!(
        out,
        "Index: {label}\n{}\n--- {label}\toriginal\n+++ {label}\tmodified\n",
        "=".repeat(67)
    );
    // A deadline keeps pathological inputs bounded; past it the diff is coarser, not wrong.
    let diff = TextDiff::configure()
        .timeout(Duration::from_secs(5))
        .diff_lines(old, new);
    for group in diff.grouped_ops(CONTEXT) {
        let (Some(first), Some(last)) = (group.first(), group.last()) else {
            continue;
        };
        let old_range = first.old_range().start..last.old_range().end;
        let new_range = first.new_range().start..last.new_range().end;
        let start = |r: &std::ops::Range<usize>| if r.is_empty() { r.start } else { r.start + 1 };
        let _ = writeln!(
            out,
            "@@ -{},{} +{},{} @@",
            start(&old_range),
            old_range.len(),
            start(&new_range),
            new_range.len()
        );
        for op in &group {
            for change in diff.iter_changes(op) {
                let sign = match change.tag() {
                    ChangeTag::Equal => ' ',
                    ChangeTag::Delete => '-',
                    ChangeTag::Insert => '+',
                };
                let line = change.value();
                out.push(sign);
                out.push_str(line.strip_suffix('\n').unwrap_or(line));
                out.push('\n');
                if change.missing_newline() {
                    out.push_str("\\ No newline at end of file\n");
                }
            }
        }
    }
    out
}

/// Wraps a diff in a Markdown code fence of backticks longer than any run inside it,
/// followed by a blank line: the reference server's `edit_file` result text.
pub(crate) fn fenced_diff(diff: &str) -> String {
    let mut ticks = 3;
    while diff.contains(&"`".repeat(ticks)) {
        ticks += 1;
    }
    let fence = "`".repeat(ticks);
    format!("{fence}diff\n{diff}{fence}\n\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADER: &str = "Index: /p/f.txt\n===================================================================\n--- /p/f.txt\toriginal\n+++ /p/f.txt\tmodified\n";

    // Expected texts produced by jsdiff 8.0.4 (the reference server's dependency).
    #[test]
    fn matches_jsdiff() {
        let cases: &[(&str, &str, &str)] = &[
            (
                "a\nb\nc\n",
                "a\nX\nc\n",
                "@@ -1,3 +1,3 @@\n a\n-b\n+X\n c\n",
            ),
            (
                "a\nb\nc",
                "a\nb\nc\nd",
                "@@ -1,3 +1,4 @@\n a\n b\n-c\n\\ No newline at end of file\n+c\n+d\n\\ No newline at end of file\n",
            ),
            ("", "new\n", "@@ -0,0 +1,1 @@\n+new\n"),
            ("x\n", "", "@@ -1,1 +0,0 @@\n-x\n"),
            ("same\n", "same\n", ""),
            (
                "a\nb",
                "a\nc",
                "@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n",
            ),
        ];
        for (old, new, hunks) in cases {
            assert_eq!(
                unified_diff("/p/f.txt", old, new),
                format!("{HEADER}{hunks}"),
                "{old:?} -> {new:?}"
            );
        }
    }

    #[test]
    fn separate_and_merged_hunks_match_jsdiff() {
        let old: String = (1..=20).map(|i| format!("{i}\n")).collect();
        let new = old
            .replace("2\n3\n", "2\nTWO\n3\n")
            .replace("\n19\n", "\nNINETEEN\n");
        let expected = "@@ -1,6 +1,7 @@\n 1\n 2\n+TWO\n 3\n 4\n 5\n 6\n@@ -15,6 +16,6 @@\n 15\n 16\n 17\n 18\n-19\n+NINETEEN\n 20\n";
        assert_eq!(
            unified_diff("/p/f.txt", &old, &new),
            format!("{HEADER}{expected}")
        );
    }

    #[test]
    fn fences_outgrow_backticks_inside() {
        assert_eq!(fenced_diff("x\n"), "```diff\nx\n```\n\n");
        assert_eq!(fenced_diff("a ``` b\n"), "````diff\na ``` b\n````\n\n");
    }
}
