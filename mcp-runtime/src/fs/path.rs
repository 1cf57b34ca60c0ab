//! Reading a requested path: the lexical rules, applied once, before any I/O.
//!
//! What is checked here is exactly what is used afterwards: the components produced here are
//! the names handed to the kernel, relative to a root's directory handle. Nothing is trimmed,
//! case-folded or Unicode-normalized, and nothing is decoded after the check (a `file://`
//! URI is percent-decoded once, before it).
//!
//! The rules, and why:
//! - empty, a NUL byte, longer than 4096 bytes or a component over 255 bytes: refused;
//! - a backslash or a Windows drive (`C:`): refused, since on Unix `a\b` is one odd name
//!   and the caller almost certainly meant something else;
//! - a `..` component removes the one before it, lexically (as the reference server's
//!   `path.resolve` does, and as models write them): `sub/dir/../../notes.txt` is
//!   `notes.txt`, beneath its root. One that would climb above the start of a relative path
//!   is refused as outside the allowed directories; in an absolute path the result is
//!   checked against the roots like any other. Only the resolved components reach the
//!   kernel, which confines them again (`RESOLVE_BENEATH`); a `..` is never handed to an
//!   `*at` call, where a final one would name the directory above its handle;
//! - a leading `~` component: refused (no home expansion; `~user` is an ordinary name);
//! - `.` components and repeated `/` are dropped, as POSIX does;
//! - a trailing `/` is kept as a fact: it says "directory", so a file operation refuses it;
//! - `file:///abs/path` and `file://localhost/abs/path` are accepted and percent-decoded
//!   once; other hosts, queries, fragments and other schemes are refused;
//! - surrounding spaces and quotes are part of the name: `"a.txt "` is not `a.txt`.
//!
//! **On Windows** ([`Flavor::Windows`]) the same rules hold, with Windows' syntax, and every
//! spelling Windows would read as something other than a plain name is refused before any
//! I/O, since Win32 path handling rewrites some of them and gives others a meaning:
//! - `\` and `/` both separate components, mixed as they come;
//! - an absolute path is a drive path, `C:\dir\x` or `C:/dir/x` (its first component is the
//!   drive, `C:`, upper-cased); `file:///C:/dir/x` is one too;
//! - refused: UNC and device paths (`\\server\share`, `\\?\`, `\\.\`, and the same with
//!   `/`), drive-relative paths (`C:x`, which depend on drive C's current folder),
//!   root-relative ones (`\x`, on the current drive), and in any component: a `:`
//!   (alternate data streams, `name:stream`, `::$DATA`), the characters `<>"|?*` and
//!   control characters, a trailing `.` or space (Win32 drops them, so `a.txt.` would be
//!   `a.txt`), reserved device names with or without an extension (`CON`, `PRN`, `AUX`,
//!   `NUL`, `COM0`–`COM9`, `LPT0`–`LPT9`, and their superscript-digit forms, `CONIN$`,
//!   `CONOUT$`: `nul.txt` is the null device), and 8.3 short-name aliases (`PROGRA~1`: a
//!   `~` then a digit, in a name of at most 12 characters), which name a file by another
//!   name than the extension check sees.
//!
//! The Windows rules are plain functions of the text, tested on every host.

use super::error::{FsError, FsResult};
use crate::protocol::Root;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Longest path accepted, in bytes (Linux's `PATH_MAX`).
pub(crate) const MAX_PATH_BYTES: usize = 4096;
/// Longest component accepted, in bytes (Linux's `NAME_MAX`).
pub(crate) const MAX_NAME_BYTES: usize = 255;

/// Whose path syntax a request is read with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Flavor {
    /// `/` only; a backslash or a drive is refused.
    Unix,
    /// `\` or `/`; drive paths; Windows' reserved spellings refused.
    Windows,
}

impl Flavor {
    /// This host's.
    pub(crate) const HOST: Flavor = if cfg!(windows) {
        Flavor::Windows
    } else {
        Flavor::Unix
    };
}

/// A requested path after the lexical rules.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Request {
    /// Whether the path was absolute (or a `file://` URI).
    pub(crate) absolute: bool,
    /// The components, none of them empty, `.` or `..` (those are resolved lexically).
    pub(crate) components: Vec<String>,
    /// Whether the path ended with `/`.
    pub(crate) trailing_slash: bool,
}

/// Applies this host's lexical rules to a requested path.
pub(crate) fn parse(raw: &str) -> FsResult<Request> {
    parse_as(raw, Flavor::HOST)
}

/// Applies `flavor`'s lexical rules to a requested path.
pub(crate) fn parse_as(raw: &str, flavor: Flavor) -> FsResult<Request> {
    if raw.is_empty() {
        return Err(FsError::invalid_path(
            raw,
            "the path is empty; use \".\" for the first allowed directory",
        ));
    }
    if let Some(rest) = strip_prefix_ignore_case(raw, "file:") {
        let decoded = decode_file_uri(raw, rest)?;
        return match flavor {
            Flavor::Unix => parse_plain(raw, &decoded, true),
            // `file:///C:/x`: the path is `C:/x`.
            Flavor::Windows => match decoded.strip_prefix('/') {
                Some(path) if drive_of(path).is_some() => parse_windows(raw, path, true),
                _ => Err(FsError::invalid_path(
                    raw,
                    "a file URI must name a drive path here: file:///C:/path/to/file",
                )),
            },
        };
    }
    if has_uri_scheme(raw) {
        return Err(FsError::invalid_path(
            raw,
            "only plain paths and file:// URIs are accepted",
        ));
    }
    match flavor {
        Flavor::Unix => parse_plain(raw, raw, false),
        Flavor::Windows => parse_windows(raw, raw, false),
    }
}

/// The drive letter of a path that starts with one (`C:`), upper-cased.
fn drive_of(path: &str) -> Option<char> {
    let b = path.as_bytes();
    (b.len() >= 2 && b[0].is_ascii_alphabetic() && b[1] == b':')
        .then(|| b[0].to_ascii_uppercase() as char)
}

/// The Windows rules (see the module documentation).
fn parse_windows(raw: &str, path: &str, from_uri: bool) -> FsResult<Request> {
    check_text(raw, path)?;
    let is_sep = |c: char| c == '/' || c == '\\';
    let mut rest = path;
    let mut components = Vec::new();
    let absolute = match drive_of(path) {
        Some(drive) => {
            rest = &path[2..];
            if !rest.starts_with(is_sep) {
                return Err(FsError::invalid_path(
                    raw,
                    format_args!(
                        "{drive}: without a separator after it is relative to drive {drive}'s \
                         current folder; write {drive}:\\ and the full path, or a relative path"
                    ),
                ));
            }
            components.push(format!("{drive}:"));
            true
        }
        None if path.starts_with(is_sep) => {
            let mut chars = path.chars();
            chars.next();
            let why = if chars.next().is_some_and(is_sep) {
                "UNC and device paths (\\\\server\\share, \\\\?\\, \\\\.\\) are not accepted; \
                 use a drive path (C:\\...) or a path relative to an allowed directory"
            } else {
                "a path that starts with a separator is relative to the current drive; \
                 give the drive (C:\\...) or a path relative to an allowed directory"
            };
            return Err(FsError::invalid_path(raw, why));
        }
        None => false,
    };
    if from_uri && !absolute {
        return Err(FsError::invalid_path(
            raw,
            "a file URI must name an absolute path: file:///C:/path/to/file",
        ));
    }
    let components = resolve(
        raw,
        rest.split(is_sep),
        absolute,
        components,
        windows_name_problem,
    )?;
    Ok(Request {
        absolute,
        trailing_slash: rest.len() > 1 && rest.ends_with(is_sep),
        components,
    })
}

/// Why Windows would not read `name` (one component, not `.` or `..`) as a plain file name,
/// or `None` if it would.
pub(crate) fn windows_name_problem(name: &str) -> Option<&'static str> {
    if name.contains(':') {
        return Some(
            "a name contains ':', which on Windows names an alternate data stream \
             (name:stream) or a drive; file names cannot contain it",
        );
    }
    if name
        .chars()
        .any(|c| matches!(c, '<' | '>' | '"' | '|' | '?' | '*') || c.is_ascii_control())
    {
        return Some(
            "a name contains a character Windows does not allow in names (<>\"|?* or a control character)",
        );
    }
    if name.ends_with(['.', ' ']) {
        return Some(
            "a name ends with '.' or a space, which Windows drops, so it would name another \
             file; remove it",
        );
    }
    // The device names hold with any extension, and with spaces before it (`nul .txt`).
    let stem = name.split('.').next().unwrap_or(name).trim_end_matches(' ');
    let upper = stem.to_uppercase();
    let device = matches!(
        upper.as_str(),
        "CON" | "PRN" | "AUX" | "NUL" | "CONIN$" | "CONOUT$"
    ) || ["COM", "LPT"].iter().any(|prefix| {
        upper.strip_prefix(prefix).is_some_and(|n| {
            matches!(
                n,
                "0" | "1" | "2" | "3" | "4" | "5" | "6" | "7" | "8" | "9" | "¹" | "²" | "³"
            )
        })
    });
    if device {
        return Some(
            "a name is a Windows device name (CON, PRN, AUX, NUL, COM1, LPT1, ...; also with \
             an extension, like nul.txt), which opens the device, not a file",
        );
    }
    let short_name = name.chars().count() <= 12
        && name
            .split('~')
            .skip(1)
            .any(|after| after.starts_with(|c: char| c.is_ascii_digit()));
    if short_name {
        return Some(
            "a name looks like an 8.3 short name (PROGRA~1), which Windows resolves to a file \
             with another name; use the file's full name",
        );
    }
    None
}

fn parse_plain(raw: &str, path: &str, from_uri: bool) -> FsResult<Request> {
    check_text(raw, path)?;
    if path.contains('\\') {
        return Err(FsError::invalid_path(
            raw,
            "the path contains a backslash; separate directories with '/'",
        ));
    }
    let b = path.as_bytes();
    if b.len() >= 2 && b[0].is_ascii_alphabetic() && b[1] == b':' && (b.len() == 2 || b[2] == b'/')
    {
        return Err(FsError::invalid_path(
            raw,
            "a Windows drive path cannot be used on this host",
        ));
    }
    let absolute = path.starts_with('/');
    if from_uri && !absolute {
        return Err(FsError::invalid_path(
            raw,
            "a file URI must name an absolute path: file:///path/to/file",
        ));
    }
    let components = resolve(raw, path.split('/'), absolute, Vec::new(), |_| None)?;
    Ok(Request {
        absolute,
        trailing_slash: path.len() > 1 && path.ends_with('/'),
        components,
    })
}

/// The rules of the whole text, whatever the syntax: its length, and no NUL byte.
fn check_text(raw: &str, path: &str) -> FsResult<()> {
    if path.len() > MAX_PATH_BYTES {
        return Err(FsError::invalid_path(
            raw,
            format_args!("the path is longer than {MAX_PATH_BYTES} bytes"),
        ));
    }
    if path.contains('\0') {
        return Err(FsError::invalid_path(raw, "the path contains a NUL byte"));
    }
    Ok(())
}

/// Resolves the components after the root part (`prefix`: none, or a Windows drive), in
/// order: `.` and empty ones dropped, `..` removing the one before it (never `prefix`; above
/// the start of a relative path is refused), a leading `~` refused, and each name checked
/// for length and by `problem` (the syntax's own refusals).
fn resolve<'a>(
    raw: &str,
    parts: impl Iterator<Item = &'a str>,
    absolute: bool,
    prefix: Vec<String>,
    problem: impl Fn(&str) -> Option<&'static str>,
) -> FsResult<Vec<String>> {
    let floor = prefix.len();
    let mut components = prefix;
    for component in parts {
        match component {
            "" | "." => {}
            // Resolved lexically, as the reference server does (`path.resolve`), before the
            // kernel sees the path: `sub/dir/../../notes.txt` is `notes.txt`. Above the start
            // of a relative path is above its root: refused. Above the root of an absolute
            // path is that root (POSIX); the root check that follows refuses what is outside.
            ".." => {
                if components.len() > floor {
                    components.pop();
                } else if !absolute {
                    return Err(FsError::above_root(raw));
                }
            }
            "~" if !absolute && components.is_empty() => {
                return Err(FsError::invalid_path(
                    raw,
                    "'~' (home directory) is not expanded; use a path inside an allowed directory",
                ));
            }
            c if c.len() > MAX_NAME_BYTES => {
                return Err(FsError::invalid_path(
                    raw,
                    format_args!("a component is longer than {MAX_NAME_BYTES} bytes"),
                ));
            }
            c => {
                if let Some(why) = problem(c) {
                    return Err(FsError::invalid_path(raw, why));
                }
                components.push(c.to_owned());
            }
        }
    }
    Ok(components)
}

fn strip_prefix_ignore_case<'a>(s: &'a str, prefix: &str) -> Option<&'a str> {
    let head = s.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix)
        .then(|| &s[prefix.len()..])
}

/// `scheme://…` with an RFC 3986 scheme.
fn has_uri_scheme(s: &str) -> bool {
    let Some((scheme, _)) = s.split_once("://") else {
        return false;
    };
    let mut chars = scheme.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
}

/// `file://[localhost]/path`, percent-decoded once into a UTF-8 path.
fn decode_file_uri(raw: &str, after_scheme: &str) -> FsResult<String> {
    let Some(rest) = after_scheme.strip_prefix("//") else {
        return Err(FsError::invalid_path(
            raw,
            "a file URI must look like file:///path/to/file",
        ));
    };
    let (host, path) = match rest.find('/') {
        Some(i) => rest.split_at(i),
        None => (rest, ""),
    };
    if !host.is_empty() && !host.eq_ignore_ascii_case("localhost") {
        return Err(FsError::invalid_path(
            raw,
            "a file URI must name a local file (no host, or localhost)",
        ));
    }
    if path.is_empty() {
        return Err(FsError::invalid_path(raw, "the file URI has no path"));
    }
    if path.contains(['?', '#']) {
        return Err(FsError::invalid_path(
            raw,
            "a file URI must not have a query or fragment",
        ));
    }
    let mut out = Vec::with_capacity(path.len());
    let mut bytes = path.bytes();
    while let Some(b) = bytes.next() {
        if b != b'%' {
            out.push(b);
            continue;
        }
        let hi = bytes.next().and_then(hex);
        let lo = bytes.next().and_then(hex);
        match (hi, lo) {
            (Some(hi), Some(lo)) => out.push(hi << 4 | lo),
            _ => {
                return Err(FsError::invalid_path(
                    raw,
                    "the file URI has a malformed percent-escape",
                ));
            }
        }
    }
    String::from_utf8(out)
        .map_err(|_| FsError::invalid_path(raw, "the file URI decodes to invalid UTF-8"))
}

fn hex(b: u8) -> Option<u8> {
    (b as char).to_digit(16).map(|d| d as u8)
}

/// A path inside an allowed directory: the directory's path as the service shows it, and the
/// path below it.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct FsPath {
    root: Arc<Path>,
    relative: String,
}

impl FsPath {
    pub(crate) fn new(root: Arc<Path>, components: &[impl AsRef<str>]) -> Self {
        let relative = components
            .iter()
            .map(AsRef::as_ref)
            .collect::<Vec<_>>()
            .join("/");
        Self { root, relative }
    }

    pub(crate) fn child(&self, name: &str) -> Self {
        let relative = if self.relative.is_empty() {
            name.to_owned()
        } else {
            format!("{}/{name}", self.relative)
        };
        Self {
            root: self.root.clone(),
            relative,
        }
    }

    /// The allowed directory this path is in, as the service shows it.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The path below the allowed directory, `/`-separated; `""` for the directory itself.
    pub fn relative(&self) -> &str {
        &self.relative
    }

    /// The absolute path: the allowed directory's path joined with [`relative`](Self::relative).
    pub fn absolute(&self) -> PathBuf {
        if self.relative.is_empty() {
            self.root.to_path_buf()
        } else {
            self.root.join(&self.relative)
        }
    }

    /// A `file://` URI for the absolute path, percent-encoded.
    pub fn file_uri(&self) -> String {
        file_uri(&self.absolute())
    }
}

impl fmt::Debug for FsPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "FsPath({:?})", self.absolute())
    }
}

impl fmt::Display for FsPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.absolute().display())
    }
}

/// `file://` + the path, percent-encoded (see [`Root::file_uri`]).
pub(crate) fn file_uri(path: &Path) -> String {
    Root::file_uri(path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fs::FsErrorKind;

    fn ok(raw: &str) -> Request {
        parse_as(raw, Flavor::Unix).unwrap_or_else(|e| panic!("{raw:?}: {e}"))
    }

    fn refused(raw: &str) -> String {
        let e = parse_as(raw, Flavor::Unix).expect_err(raw);
        assert_eq!(e.kind(), FsErrorKind::InvalidPath, "{raw:?}");
        e.to_string()
    }

    fn win(raw: &str) -> Request {
        parse_as(raw, Flavor::Windows).unwrap_or_else(|e| panic!("{raw:?}: {e}"))
    }

    fn win_refused(raw: &str) -> String {
        let e = parse_as(raw, Flavor::Windows).expect_err(raw);
        assert_eq!(e.kind(), FsErrorKind::InvalidPath, "{raw:?}: {e}");
        e.to_string()
    }

    #[test]
    fn windows_paths() {
        let r = win(r"C:\Users\me/notes\a.md");
        assert!(r.absolute && !r.trailing_slash);
        assert_eq!(r.components, ["C:", "Users", "me", "notes", "a.md"]);
        assert_eq!(win("c:/x/").components, ["C:", "x"]);
        assert!(win("c:/x/").trailing_slash);
        assert_eq!(win(r"sub\dir\..\..\n.txt").components, ["n.txt"]);
        assert_eq!(win(r"C:\..\..\x").components, ["C:", "x"]);
        assert_eq!(
            win("file:///C:/a%20b/c.md").components,
            ["C:", "a b", "c.md"]
        );
        assert_eq!(win("a~b.txt").components, ["a~b.txt"]);
        assert_eq!(
            win("long-name~1-of-many.txt").components,
            ["long-name~1-of-many.txt"]
        );
        assert_eq!(win("console.txt").components, ["console.txt"]);
        assert_eq!(win("com10").components, ["com10"]);
        for above in [r"..\b", r"a\..\..\b", ".."] {
            let e = parse_as(above, Flavor::Windows).expect_err(above);
            assert_eq!(e.kind(), FsErrorKind::OutsideRoots, "{above:?}");
        }
    }

    #[test]
    fn windows_tricks_are_refused() {
        for (raw, why) in [
            ("C:foo", "current folder"),
            ("c:", "current folder"),
            (r"\\server\share\x", "UNC"),
            ("//server/share/x", "UNC"),
            (r"\\?\C:\x", "UNC"),
            (r"\\.\PhysicalDrive0", "UNC"),
            (r"//?/C:/x", "UNC"),
            (r"\Windows\win.ini", "current drive"),
            ("/etc/passwd", "current drive"),
            ("notes.md:secret", "data stream"),
            ("notes.md::$DATA", "data stream"),
            (r"dir\a.md:zone.identifier:$DATA", "data stream"),
            ("CON", "device"),
            ("nul.txt", "device"),
            ("sub/Aux.md", "device"),
            ("COM1", "device"),
            ("lpt9.log", "device"),
            ("COM¹", "device"),
            ("nul .txt", "device"),
            ("CONOUT$", "device"),
            ("a.md.", "drops"),
            ("a.md ", "drops"),
            (r"dir.\a.md", "drops"),
            ("PROGRA~1", "short name"),
            (r"NOTES~1.MAR", "short name"),
            ("a<b", "character"),
            ("a|b", "character"),
            ("a?b", "character"),
            ("a*", "character"),
            ("a\u{1}b", "character"),
            ("file:///etc/passwd", "drive path"),
            ("file://server/share/x", "local"),
        ] {
            let text = win_refused(raw);
            assert!(text.contains(why), "{raw:?}: {text}");
        }
    }

    #[test]
    fn plain_paths() {
        let r = ok("a/./b//c.txt");
        assert_eq!(r.components, ["a", "b", "c.txt"]);
        assert!(!r.absolute && !r.trailing_slash);
        let r = ok("/x/y/");
        assert!(r.absolute && r.trailing_slash);
        assert_eq!(r.components, ["x", "y"]);
        assert_eq!(ok(".").components, Vec::<String>::new());
        assert!(!ok("/").trailing_slash);
        // Taken literally: no trimming, no decoding, no Unicode folding.
        assert_eq!(ok(" a.txt ").components, [" a.txt "]);
        assert_eq!(ok("\"a.txt\"").components, ["\"a.txt\""]);
        assert_eq!(ok("%2e%2e/x").components, ["%2e%2e", "x"]);
        assert_eq!(ok("．．/x").components, ["．．", "x"]);
        assert_eq!(ok("~user/x").components, ["~user", "x"]);
        assert_eq!(ok("a/~").components, ["a", "~"]);
        assert_eq!(ok("...").components, ["..."]);
        // `..` is resolved lexically, beneath the start of a relative path.
        assert_eq!(ok("sub/dir/../../notes.txt").components, ["notes.txt"]);
        assert_eq!(ok("a/b/..").components, ["a"]);
        assert_eq!(ok("a/..").components, Vec::<String>::new());
        assert_eq!(ok("/root/../etc").components, ["etc"]);
        assert_eq!(ok("/../..").components, Vec::<String>::new());
    }

    #[test]
    fn refusals_say_why() {
        assert!(refused("").contains("empty"));
        assert!(refused("a\0b").contains("NUL"));
        assert!(refused("..\\..\\etc").contains("backslash"));
        assert!(refused("C:/Windows").contains("Windows"));
        assert!(refused("c:").contains("Windows"));
        for above in ["../b", "a/../../b", ".."] {
            let e = parse(above).expect_err(above);
            assert_eq!(e.kind(), FsErrorKind::OutsideRoots, "{above:?}");
            assert!(e.to_string().contains("climbs above"), "{e}");
        }
        assert!(refused("~").contains("home"));
        assert!(refused("~/x").contains("home"));
        assert!(refused(&"a/".repeat(2100)).contains("longer than 4096"));
        assert!(refused(&"n".repeat(256)).contains("255"));
        assert!(refused("http://example.com/x").contains("file://"));
        assert!(refused("HTTPS://x/y").contains("file://"));
    }

    #[test]
    fn file_uris_are_decoded_once_then_checked() {
        let r = ok("file:///srv/a%20b/c.txt");
        assert!(r.absolute);
        assert_eq!(r.components, ["srv", "a b", "c.txt"]);
        assert_eq!(ok("FILE://localhost/x").components, ["x"]);
        assert_eq!(ok("file:///x/%25252e").components, ["x", "%252e"]);
        // Decoded once, then resolved like any `..`.
        assert_eq!(ok("file:///x/%2e%2e/y").components, ["y"]);
        assert_eq!(ok("file:///x/..%2f..%2fetc").components, ["etc"]);
        assert!(refused("file:///x%00y").contains("NUL"));
        assert!(refused("file:///x%5cy").contains("backslash"));
        assert!(refused("file://evil.example/x").contains("local"));
        assert!(refused("file:relative").contains("file:///"));
        assert!(refused("file:///x?q").contains("query"));
        assert!(refused("file:///x%zz").contains("percent"));
        assert!(refused("file:///x%ff").contains("UTF-8"));
        assert!(refused("file://").contains("no path"));
    }

    #[test]
    fn uris_are_encoded() {
        assert_eq!(
            file_uri(Path::new("/a b/ü#?%.png")),
            "file:///a%20b/%C3%BC%23%3F%25.png"
        );
        let p = FsPath::new(Arc::from(Path::new("/r")), &["d", "f.txt"]);
        assert_eq!(p.absolute(), Path::new("/r/d/f.txt"));
        assert_eq!(p.relative(), "d/f.txt");
        assert_eq!(p.child("x").relative(), "d/f.txt/x");
        let root = FsPath::new(Arc::from(Path::new("/r")), &[] as &[&str]);
        assert_eq!(root.absolute(), Path::new("/r"));
        assert_eq!(root.child("x").relative(), "x");
    }
}
