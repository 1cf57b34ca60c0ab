//! Reading: regular files only, opened without following a final symlink and without
//! blocking, checked with `fstat` on the descriptor, and read up to the policy's limit.

use super::error::{FsError, FsErrorKind, FsResult, Quoted};
use super::path::FsPath;
use super::resolve::{Core, Location};
use base64::Engine as _;
use cap_fs_ext::{FileTypeExt as _, MetadataExt as _};
use cap_fs_ext::{FollowSymlinks, OpenOptionsFollowExt};
use cap_std::fs::{Dir, FileType, OpenOptions};
use std::ffi::OsString;
use std::io::Read;

/// Which lines of a text file to read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LineRange {
    /// The whole file (it must fit the read limit).
    #[default]
    All,
    /// The first N lines, joined with `\n` (no newline after the last).
    Head(usize),
    /// The last N lines, joined with `\n` (no newline after the last); a newline that ends
    /// the file ends its last line, as with `tail -n`.
    Tail(usize),
}

/// What kind of content block a media file becomes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MediaKind {
    /// An image (`image/*`).
    Image,
    /// Audio (`audio/*`).
    Audio,
    /// Anything else: an embedded resource with a `blob`.
    Other,
}

/// A file read for a media content block.
#[derive(Debug, Clone)]
pub struct MediaFile {
    /// The file, as asked for.
    pub path: FsPath,
    /// The MIME type, from the (resolved) name's extension; `application/octet-stream` when
    /// unknown.
    pub mime_type: &'static str,
    /// Image, audio or other, from the MIME type.
    pub kind: MediaKind,
    /// The content, base64-encoded (standard alphabet, padded).
    pub data_base64: String,
}

/// The reference server's table, extension (lower case) to MIME type.
const MEDIA_TYPES: &[(&str, &str)] = &[
    ("png", "image/png"),
    ("jpg", "image/jpeg"),
    ("jpeg", "image/jpeg"),
    ("gif", "image/gif"),
    ("webp", "image/webp"),
    ("bmp", "image/bmp"),
    ("svg", "image/svg+xml"),
    ("mp3", "audio/mpeg"),
    ("wav", "audio/wav"),
    ("ogg", "audio/ogg"),
    ("flac", "audio/flac"),
];

/// The MIME type for a file name, from the table above.
pub fn media_type(name: &str) -> &'static str {
    let ext = std::path::Path::new(name)
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    ext.and_then(|ext| {
        MEDIA_TYPES
            .iter()
            .find(|(e, _)| *e == ext)
            .map(|(_, mime)| *mime)
    })
    .unwrap_or("application/octet-stream")
}

/// A regular file opened for reading: the descriptor, the directory holding it and the
/// name it resolved to there, and what `fstat` said.
pub(crate) struct OpenFile {
    pub(crate) file: std::fs::File,
    pub(crate) dir: Dir,
    pub(crate) resolved: OsString,
    pub(crate) size: u64,
    pub(crate) mode: u32,
    pub(crate) dev_ino: (u64, u64),
}

/// Describes what a non-regular file is, for an error.
pub(crate) fn describe(ft: &FileType) -> &'static str {
    if ft.is_dir() {
        "a directory"
    } else if ft.is_symlink() {
        "a symbolic link"
    } else if ft.is_fifo() {
        "a FIFO (named pipe)"
    } else if ft.is_socket() {
        "a socket"
    } else if ft.is_block_device() || ft.is_char_device() {
        "a device"
    } else {
        "not a regular file"
    }
}

pub(crate) fn check_links(core: &Core, loc: &Location, nlink: u64) -> FsResult<()> {
    if nlink > 1 && !core.policy.allow_hard_links {
        return Err(FsError::hard_linked(&loc.raw));
    }
    Ok(())
}

/// Resolves and opens a regular file for reading.
///
/// The type is checked twice: with `lstat` before opening, so a FIFO or device is never even
/// opened in the ordinary case, and with `fstat` on the descriptor, which is what counts if
/// the name was swapped in between. The open itself uses `O_NOFOLLOW` (a symlink swapped in
/// fails), `O_NONBLOCK` (a FIFO swapped in does not block) and `O_NOCTTY`.
pub(crate) fn open_regular(core: &Core, loc: &Location) -> FsResult<OpenFile> {
    let io = |e| FsError::io(&loc.raw, e);
    loc.require_file_syntax()?;
    let target = core.open_target(loc, true)?;
    let Some(name) = target.name else {
        return Err(FsError::not_a_file(&loc.raw, "a directory"));
    };
    core.check_extension(loc, &name)?;
    let before = target.dir.symlink_metadata(&name).map_err(io)?;
    if !before.is_file() {
        return Err(FsError::not_a_file(&loc.raw, describe(&before.file_type())));
    }
    let mut options = OpenOptions::new();
    options.read(true).follow(FollowSymlinks::No);
    #[cfg(unix)]
    cap_std::fs::OpenOptionsExt::custom_flags(
        &mut options,
        (rustix::fs::OFlags::NONBLOCK | rustix::fs::OFlags::NOCTTY).bits() as i32,
    );
    let file = target.dir.open_with(&name, &options).map_err(io)?;
    core.confirm_beneath(loc, &file)?;
    let meta = file.metadata().map_err(io)?;
    if !meta.is_file() {
        return Err(FsError::not_a_file(&loc.raw, describe(&meta.file_type())));
    }
    check_links(core, loc, meta.nlink())?;
    Ok(OpenFile {
        file: file.into_std(),
        dir: target.dir,
        resolved: name,
        size: meta.len(),
        mode: super::atomic::mode_of(&meta),
        dev_ino: (meta.dev(), meta.ino()),
    })
}

/// Fills `buf` from `file` at `offset`, without moving a cursor others share.
fn read_exact_at(file: &std::fs::File, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
    #[cfg(unix)]
    return std::os::unix::fs::FileExt::read_exact_at(file, buf, offset);
    #[cfg(windows)]
    {
        // `seek_read` moves the file's cursor; nothing else reads this descriptor.
        let (mut buf, mut offset) = (buf, offset);
        while !buf.is_empty() {
            match std::os::windows::fs::FileExt::seek_read(file, buf, offset) {
                Ok(0) => return Err(std::io::ErrorKind::UnexpectedEof.into()),
                Ok(n) => {
                    buf = &mut buf[n..];
                    offset += n as u64;
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }
}

fn too_large(loc: &Location, size: u64, limit: u64) -> FsError {
    FsError::new(
        FsErrorKind::TooLarge,
        format!(
            "{} is {size} bytes, over the read limit of {limit} bytes; read part of it (head or tail)",
            Quoted(&loc.raw)
        ),
    )
}

/// The whole file, up to the read limit (a file that grows past it while being read, or a
/// file whose size the kernel reports as 0, is still cut at the limit).
pub(crate) fn read_all(core: &Core, loc: &Location, open: &OpenFile) -> FsResult<Vec<u8>> {
    let limit = core.policy.max_read_bytes;
    if open.size > limit {
        return Err(too_large(loc, open.size, limit));
    }
    let mut buf = Vec::with_capacity(open.size as usize);
    (&open.file)
        .take(limit.saturating_add(1))
        .read_to_end(&mut buf)
        .map_err(|e| FsError::io(&loc.raw, e))?;
    if buf.len() as u64 > limit {
        return Err(too_large(loc, buf.len() as u64, limit));
    }
    Ok(buf)
}

/// Reads a text file (invalid UTF-8 is replaced with U+FFFD, as the reference server does).
pub(crate) fn read_text(core: &Core, loc: &Location, range: LineRange) -> FsResult<String> {
    let open = open_regular(core, loc)?;
    let limit = core.policy.max_read_bytes;
    match range {
        LineRange::All => Ok(lossy(read_all(core, loc, &open)?)),
        LineRange::Head(n) => head(loc, open, n, limit),
        LineRange::Tail(n) => tail(loc, open, n, limit),
    }
}

fn lossy(bytes: Vec<u8>) -> String {
    String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

const CHUNK: usize = 8 * 1024;

fn head(loc: &Location, mut open: OpenFile, n: usize, limit: u64) -> FsResult<String> {
    if n == 0 {
        return Ok(String::new());
    }
    let mut data = Vec::new();
    let mut newlines = 0;
    let mut chunk = vec![0u8; CHUNK];
    loop {
        let got = open
            .file
            .read(&mut chunk)
            .map_err(|e| FsError::io(&loc.raw, e))?;
        if got == 0 {
            break;
        }
        newlines += memchr::memchr_iter(b'\n', &chunk[..got]).count();
        data.extend_from_slice(&chunk[..got]);
        if newlines >= n {
            break;
        }
        if data.len() as u64 > limit {
            return Err(lines_too_long(loc, "first", n, limit));
        }
    }
    let text = lossy(data);
    let mut lines: Vec<&str> = text.split('\n').collect();
    if text.is_empty() || text.ends_with('\n') {
        lines.pop();
    }
    lines.truncate(n);
    Ok(lines.join("\n"))
}

fn tail(loc: &Location, open: OpenFile, n: usize, limit: u64) -> FsResult<String> {
    if n == 0 || open.size == 0 {
        return Ok(String::new());
    }
    let mut pos = open.size;
    // Chunks from the end backwards; joined once at the end.
    let mut chunks: Vec<Vec<u8>> = Vec::new();
    let mut total = 0u64;
    let mut newlines = 0;
    while pos > 0 {
        let len = (CHUNK as u64).min(pos) as usize;
        pos -= len as u64;
        let mut chunk = vec![0u8; len];
        read_exact_at(&open.file, &mut chunk, pos).map_err(|e| match e.kind() {
            std::io::ErrorKind::UnexpectedEof => FsError::new(
                FsErrorKind::Conflict,
                format!("{} shrank while being read; try again", Quoted(&loc.raw)),
            ),
            _ => FsError::io(&loc.raw, e),
        })?;
        // A newline that ends the file ends the last line; it does not start another.
        if chunks.is_empty() && chunk.last() == Some(&b'\n') {
            chunk.pop();
        }
        newlines += memchr::memchr_iter(b'\n', &chunk).count();
        total += chunk.len() as u64;
        chunks.push(chunk);
        if newlines >= n {
            break;
        }
        if total > limit {
            return Err(lines_too_long(loc, "last", n, limit));
        }
    }
    let data: Vec<u8> = chunks.into_iter().rev().flatten().collect();
    let text = lossy(data);
    let lines: Vec<&str> = text.split('\n').collect();
    Ok(lines[lines.len().saturating_sub(n)..].join("\n"))
}

fn lines_too_long(loc: &Location, which: &str, n: usize, limit: u64) -> FsError {
    FsError::new(
        FsErrorKind::TooLarge,
        format!(
            "the {which} {n} lines of {} are longer than the read limit of {limit} bytes",
            Quoted(&loc.raw)
        ),
    )
}

/// Reads a file for a media content block.
pub(crate) fn read_media(core: &Core, loc: &Location) -> FsResult<MediaFile> {
    let open = open_regular(core, loc)?;
    let mime_type = media_type(&open.resolved.to_string_lossy());
    let bytes = read_all(core, loc, &open)?;
    let kind = if mime_type.starts_with("image/") {
        MediaKind::Image
    } else if mime_type.starts_with("audio/") {
        MediaKind::Audio
    } else {
        MediaKind::Other
    };
    Ok(MediaFile {
        path: core.fs_path(loc),
        mime_type,
        kind,
        data_base64: base64::engine::general_purpose::STANDARD.encode(bytes),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fs::FsPolicy;
    use crate::fs::resolve::Root;

    fn fixture(content: &[u8], limit: u64) -> (tempfile::TempDir, Core) {
        let t = tempfile::tempdir().unwrap();
        std::fs::write(t.path().join("f.txt"), content).unwrap();
        let core = Core {
            roots: vec![Root::open(t.path()).unwrap()],
            policy: FsPolicy::new().max_read_bytes(limit),
        };
        (t, core)
    }

    fn text(content: &str, range: LineRange) -> String {
        let (_t, core) = fixture(content.as_bytes(), 1 << 20);
        read_text(&core, &core.locate("f.txt").unwrap(), range).unwrap()
    }

    #[test]
    fn head_and_tail() {
        let f = "a\nb\nc\n";
        assert_eq!(text(f, LineRange::All), f);
        assert_eq!(text(f, LineRange::Head(2)), "a\nb");
        assert_eq!(text(f, LineRange::Head(9)), "a\nb\nc");
        assert_eq!(text(f, LineRange::Head(0)), "");
        assert_eq!(text(f, LineRange::Tail(1)), "c");
        assert_eq!(text(f, LineRange::Tail(2)), "b\nc");
        assert_eq!(text(f, LineRange::Tail(9)), "a\nb\nc");
        assert_eq!(text("a\nb", LineRange::Tail(1)), "b");
        assert_eq!(text("a\nb", LineRange::Head(5)), "a\nb");
        assert_eq!(text("a\n\n", LineRange::Tail(1)), "");
        assert_eq!(text("a\n\n", LineRange::Tail(2)), "a\n");
        assert_eq!(text("", LineRange::Tail(3)), "");
        assert_eq!(text("", LineRange::Head(3)), "");
        assert_eq!(text("x\r\ny\r\n", LineRange::Tail(1)), "y\r");
    }

    #[test]
    fn long_files_across_chunks() {
        let lines: Vec<String> = (0..5000).map(|i| format!("line {i} é")).collect();
        let f = lines.join("\n") + "\n";
        assert_eq!(text(&f, LineRange::Head(3)), lines[..3].join("\n"));
        assert_eq!(text(&f, LineRange::Tail(1500)), lines[3500..].join("\n"));
        assert_eq!(text(&f, LineRange::Tail(5000)), lines.join("\n"));
    }

    #[test]
    fn limits() {
        let (_t, core) = fixture(&[b'x'; 100], 10);
        let loc = core.locate("f.txt").unwrap();
        let e = read_text(&core, &loc, LineRange::All).unwrap_err();
        assert_eq!(e.kind(), FsErrorKind::TooLarge);
        assert!(e.to_string().contains("100 bytes"), "{e}");
        for r in [LineRange::Head(1), LineRange::Tail(1)] {
            assert_eq!(
                read_text(&core, &loc, r).unwrap_err().kind(),
                FsErrorKind::TooLarge
            );
        }
        let (_t, core) = fixture(b"short\nline\n", 1 << 20);
        let loc = core.locate("f.txt").unwrap();
        assert_eq!(read_text(&core, &loc, LineRange::Head(1)).unwrap(), "short");
    }

    #[test]
    fn invalid_utf8_is_replaced() {
        let (_t, core) = fixture(b"ok \xff\n", 1 << 20);
        let loc = core.locate("f.txt").unwrap();
        assert_eq!(
            read_text(&core, &loc, LineRange::All).unwrap(),
            "ok \u{fffd}\n"
        );
    }

    #[test]
    fn media_types() {
        assert_eq!(media_type("a.PNG"), "image/png");
        assert_eq!(media_type("a.flac"), "audio/flac");
        assert_eq!(media_type("a.pdf"), "application/octet-stream");
        assert_eq!(media_type("png"), "application/octet-stream");
        let (t, core) = fixture(b"", 1 << 20);
        std::fs::write(t.path().join("i.png"), [1u8, 2, 3]).unwrap();
        let m = read_media(&core, &core.locate("i.png").unwrap()).unwrap();
        assert_eq!((m.kind, m.data_base64.as_str()), (MediaKind::Image, "AQID"));
    }
}
