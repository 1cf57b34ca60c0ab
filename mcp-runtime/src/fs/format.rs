//! The file tools' result texts, byte for byte as the reference server writes them where we
//! intend to match (see the module documentation of `tools.rs` for where we do not).

use super::info::FileInfo;
use super::walk::{DirEntryInfo, DirListing, EntryKind, Truncation, format_size};
use super::{SearchMatches, WalkLimits};
use std::cmp::Ordering;
use std::fmt::Write as _;
use std::time::{SystemTime, UNIX_EPOCH};

/// `[DIR] name` / `[FILE] name`, one line per entry: the reference's `list_directory` (whose
/// `[FILE]` is anything that is not a directory, a symlink to a directory included).
pub(crate) fn listing(listing: &DirListing) -> String {
    listing
        .entries
        .iter()
        .map(|e| format!("{} {}", tag(e), e.name))
        .collect::<Vec<_>>()
        .join("\n")
}

fn tag(e: &DirEntryInfo) -> &'static str {
    if e.kind == EntryKind::Directory {
        "[DIR]"
    } else {
        "[FILE]"
    }
}

/// How `list_directory_with_sizes` orders entries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum SizeOrder {
    /// By name.
    #[default]
    Name,
    /// Largest first; equal sizes by name.
    Size,
}

/// The reference's `list_directory_with_sizes` text: `[DIR] <name padded to 30> ` or
/// `[FILE] <name padded to 30> <size padded to 10>`, then a blank line, the counts and the
/// combined size.
///
/// Sizes are those of the entries themselves: a symlink, a special file or a hard-linked file
/// whose size the policy withholds counts as `0 B` (the reference prints what a symlink points
/// to, which leaks the size of files outside the roots; it prints `0 B` when it cannot tell).
/// Names sort case-insensitively, lower case first among equals: close to the reference's
/// `localeCompare`, which depends on the ICU locale.
pub(crate) fn listing_with_sizes(listing: &DirListing, order: SizeOrder) -> String {
    let size = |e: &DirEntryInfo| e.size.unwrap_or(0);
    let mut entries: Vec<&DirEntryInfo> = listing.entries.iter().collect();
    entries.sort_by(|a, b| match order {
        SizeOrder::Name => name_order(&a.name, &b.name),
        SizeOrder::Size => size(b)
            .cmp(&size(a))
            .then_with(|| name_order(&a.name, &b.name)),
    });
    let mut out = String::new();
    for e in &entries {
        let name = pad_end(&e.name, 30);
        if e.kind == EntryKind::Directory {
            let _ = writeln!(out, "[DIR] {name} ");
        } else {
            let _ = writeln!(out, "[FILE] {name} {:>10}", format_size(size(e)));
        }
    }
    let dirs = entries
        .iter()
        .filter(|e| e.kind == EntryKind::Directory)
        .count();
    let files = entries.len() - dirs;
    let total: u64 = entries
        .iter()
        .filter(|e| e.kind != EntryKind::Directory)
        .map(|e| size(e))
        .sum();
    let _ = write!(
        out,
        "\nTotal: {files} files, {dirs} directories\nCombined size: {}",
        format_size(total)
    );
    out
}

/// Case-insensitive, then lower case before upper case (as ICU's root collation orders
/// letters), then byte order.
fn name_order(a: &str, b: &str) -> Ordering {
    a.to_lowercase()
        .cmp(&b.to_lowercase())
        .then_with(|| b.cmp(a))
}

/// JavaScript's `padEnd`: pads to `width` UTF-16 code units.
fn pad_end(s: &str, width: usize) -> String {
    let len = s.encode_utf16().count();
    format!("{s}{}", " ".repeat(width.saturating_sub(len)))
}

/// The reference's `search_files` text: absolute paths, one per line, or `No matches found`.
pub(crate) fn search(matches: &SearchMatches) -> String {
    if matches.matches.is_empty() {
        return "No matches found".to_owned();
    }
    matches
        .matches
        .iter()
        .map(|m| m.absolute().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("\n")
}

/// The reference's `get_file_info` text: `key: value` lines in its order, times as
/// JavaScript's `Date.prototype.toString()` prints them in UTC.
pub(crate) fn file_info(info: &FileInfo) -> String {
    format!(
        "size: {}\ncreated: {}\nmodified: {}\naccessed: {}\nisDirectory: {}\nisFile: {}\n\
         permissions: {:03o}",
        info.size,
        js_date(info.created),
        js_date(info.modified),
        js_date(info.accessed),
        info.kind == EntryKind::Directory,
        info.kind == EntryKind::File,
        info.permissions & 0o777,
    )
}

/// `Date.prototype.toString()` in UTC: `Tue Mar 05 2024 14:03:07 GMT+0000 (Coordinated
/// Universal Time)`. A time the file system does not record is the epoch, as Node reports a
/// missing birth time.
///
/// Hand-written (a dozen lines of calendar arithmetic) rather than a date crate: this is the
/// only date the toolkit formats.
pub(crate) fn js_date(time: Option<SystemTime>) -> String {
    const DAYS: [&str; 7] = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let secs: i64 = match time.map(|t| t.duration_since(UNIX_EPOCH)) {
        Some(Ok(d)) => i64::try_from(d.as_secs()).unwrap_or(i64::MAX / 2),
        // Before the epoch: whole seconds, rounded down.
        Some(Err(e)) => {
            let d = e.duration();
            -i64::try_from(d.as_secs()).unwrap_or(i64::MAX / 2) - i64::from(d.subsec_nanos() > 0)
        }
        None => 0,
    };
    let (days, rest) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let (year, month, day) = civil_from_days(days);
    let weekday = DAYS[(days + 4).rem_euclid(7) as usize]; // 1970-01-01 was a Thursday.
    format!(
        "{weekday} {} {day:02} {year:04} {:02}:{:02}:{:02} GMT+0000 (Coordinated Universal Time)",
        MONTHS[month as usize - 1],
        rest / 3600,
        rest / 60 % 60,
        rest % 60
    )
}

/// An ISO 8601 UTC time to the second, `2025-01-12T15:00:58Z` (a resource's `lastModified`
/// annotation); `None` before 1970, which no file of interest has.
pub(crate) fn iso8601(time: SystemTime) -> Option<String> {
    let secs = i64::try_from(time.duration_since(UNIX_EPOCH).ok()?.as_secs()).ok()?;
    let (days, rest) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let (year, month, day) = civil_from_days(days);
    Some(format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rest / 3600,
        rest / 60 % 60,
        rest % 60
    ))
}

/// The proleptic Gregorian date of a day counted from 1970-01-01 (Howard Hinnant's
/// `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// A note for a walk that stopped early, shown as a second text block so the first stays
/// exactly the reference's text (JSON, for `directory_tree`).
pub(crate) fn truncation_note(
    what: &str,
    t: Option<Truncation>,
    limits: WalkLimits,
) -> Option<String> {
    let why = match t? {
        Truncation::Entries => format!("it reached the limit of {} entries", limits.max_entries),
        Truncation::Depth => format!(
            "directories more than {} levels deep were not entered",
            limits.max_depth
        ),
        Truncation::Time => format!(
            "it reached the time limit of {} s",
            limits.timeout.as_secs_f64()
        ),
    };
    Some(format!(
        "Note: this {what} is incomplete: {why}. Narrow it down (a subdirectory, \
         excludePatterns) to see the rest."
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn at(secs: u64) -> Option<SystemTime> {
        Some(UNIX_EPOCH + Duration::from_secs(secs))
    }

    // Expected texts from Node 20: `new Date(ms).toString()` with TZ=UTC.
    #[test]
    fn dates_as_javascript_prints_them() {
        assert_eq!(
            js_date(None),
            "Thu Jan 01 1970 00:00:00 GMT+0000 (Coordinated Universal Time)"
        );
        assert_eq!(
            js_date(at(1_709_647_387)),
            "Tue Mar 05 2024 14:03:07 GMT+0000 (Coordinated Universal Time)"
        );
        assert_eq!(
            js_date(at(951_782_400)),
            "Tue Feb 29 2000 00:00:00 GMT+0000 (Coordinated Universal Time)"
        );
        assert_eq!(
            js_date(at(4_102_444_799)),
            "Thu Dec 31 2099 23:59:59 GMT+0000 (Coordinated Universal Time)"
        );
        assert_eq!(
            js_date(Some(UNIX_EPOCH - Duration::from_millis(500))),
            "Wed Dec 31 1969 23:59:59 GMT+0000 (Coordinated Universal Time)"
        );
    }

    #[test]
    fn iso_times_for_annotations() {
        let iso = |t: Option<SystemTime>| iso8601(t.unwrap());
        assert_eq!(iso(at(0)).as_deref(), Some("1970-01-01T00:00:00Z"));
        assert_eq!(
            iso(at(1_709_647_387)).as_deref(),
            Some("2024-03-05T14:03:07Z")
        );
        assert_eq!(
            iso(at(951_782_400)).as_deref(),
            Some("2000-02-29T00:00:00Z")
        );
        assert_eq!(iso8601(UNIX_EPOCH - Duration::from_secs(1)), None);
    }

    #[test]
    fn names_sort_like_locale_compare() {
        let mut names = vec!["b", "B", "a_b", "A", "a", "ab", "aB", "10", "2"];
        names.sort_by(|a, b| name_order(a, b));
        assert_eq!(names, ["10", "2", "a", "A", "a_b", "ab", "aB", "b", "B"]);
    }

    #[test]
    fn padding_counts_utf16_units() {
        assert_eq!(pad_end("ab", 4), "ab  ");
        assert_eq!(pad_end("😀", 4), "😀  ");
        assert_eq!(pad_end("toolongname", 4), "toolongname");
    }
}
