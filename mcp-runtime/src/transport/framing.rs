//! Newline-delimited framing with a length cap that never buffers an oversized line whole.
//!
//! Hand-written rather than `tokio_util::codec::LinesCodec`: that codec needs UTF-8
//! `String`s, and its `FramedRead` ends the stream after the first error, so one oversized
//! line would end the connection. Here an oversized line is skipped up to its newline and
//! reported as [`Frame::Oversized`]; the stream goes on.

use bytes::{Bytes, BytesMut};

/// Default cap on one message: 16 MiB.
pub const DEFAULT_MAX_MESSAGE_BYTES: usize = 16 * 1024 * 1024;

/// One unit of input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Frame {
    /// A complete line, without its newline (and without a trailing `\r`).
    Line(Bytes),
    /// A line longer than the cap was discarded; `len` is how many bytes were seen.
    Oversized {
        /// Bytes of the discarded line.
        len: usize,
    },
}

/// Splits a byte stream into [`Frame`]s.
#[derive(Debug)]
pub struct LineFramer {
    buf: BytesMut,
    max: usize,
    /// Bytes discarded so far of an oversized line, while skipping to its end.
    skipping: Option<usize>,
    /// How far `buf` has been searched for a newline already.
    scanned: usize,
}

impl LineFramer {
    /// A framer that caps lines at `max` bytes.
    pub fn new(max: usize) -> Self {
        Self {
            buf: BytesMut::with_capacity(64 * 1024),
            max: max.max(1),
            skipping: None,
            scanned: 0,
        }
    }

    /// Feeds bytes; pushes every complete frame onto `out`.
    pub fn push(&mut self, mut data: &[u8], out: &mut Vec<Frame>) {
        while !data.is_empty() {
            if let Some(skipped) = self.skipping {
                match memchr::memchr(b'\n', data) {
                    Some(i) => {
                        out.push(Frame::Oversized { len: skipped + i });
                        self.skipping = None;
                        data = &data[i + 1..];
                    }
                    None => {
                        self.skipping = Some(skipped + data.len());
                        return;
                    }
                }
                continue;
            }
            // Take no more than what could still complete a line within the cap.
            let room = self.max + 1 - self.buf.len();
            let take = data.len().min(room.max(1));
            self.buf.extend_from_slice(&data[..take]);
            data = &data[take..];
            self.drain_lines(out);
            if self.buf.len() > self.max {
                // No newline within the cap: discard what we have and skip to the newline.
                let seen = self.buf.len();
                // Give the large allocation back rather than keeping it for the next line.
                self.buf = BytesMut::with_capacity(64 * 1024);
                self.scanned = 0;
                self.skipping = Some(seen);
            }
        }
    }

    /// Signals the end of input. A final unterminated line is still delivered.
    pub fn finish(&mut self, out: &mut Vec<Frame>) {
        if let Some(skipped) = self.skipping.take() {
            out.push(Frame::Oversized { len: skipped });
        } else if !self.buf.is_empty() {
            let line = self.buf.split().freeze();
            push_line(line, out);
        }
        self.scanned = 0;
    }

    fn drain_lines(&mut self, out: &mut Vec<Frame>) {
        while let Some(i) = memchr::memchr(b'\n', &self.buf[self.scanned..]) {
            let end = self.scanned + i;
            let mut line = self.buf.split_to(end + 1);
            line.truncate(end);
            self.scanned = 0;
            push_line(line.freeze(), out);
        }
        self.scanned = self.buf.len();
    }
}

fn push_line(mut line: Bytes, out: &mut Vec<Frame>) {
    if line.last() == Some(&b'\r') {
        line.truncate(line.len() - 1);
    }
    if line.iter().all(u8::is_ascii_whitespace) {
        return; // blank lines carry nothing
    }
    out.push(Frame::Line(line));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frames(max: usize, chunks: &[&[u8]]) -> Vec<Frame> {
        let mut f = LineFramer::new(max);
        let mut out = Vec::new();
        for c in chunks {
            f.push(c, &mut out);
        }
        f.finish(&mut out);
        out
    }

    #[test]
    fn splits_across_chunks() {
        let out = frames(100, &[b"ab", b"c\nde", b"f\r\n\n", b"tail"]);
        assert_eq!(
            out,
            vec![
                Frame::Line(Bytes::from_static(b"abc")),
                Frame::Line(Bytes::from_static(b"def")),
                Frame::Line(Bytes::from_static(b"tail")),
            ]
        );
    }

    #[test]
    fn oversized_lines_are_skipped_not_buffered() {
        let mut f = LineFramer::new(8);
        let mut out = Vec::new();
        f.push(b"12345678901234", &mut out);
        assert!(f.buf.is_empty(), "nothing of an oversized line is kept");
        f.push(&[b'x'; 1000], &mut out);
        assert!(f.buf.is_empty());
        f.push(b"yy\nok\n", &mut out);
        assert_eq!(
            out,
            vec![
                Frame::Oversized { len: 1016 },
                Frame::Line(Bytes::from_static(b"ok"))
            ]
        );
    }

    #[test]
    fn a_line_exactly_at_the_cap_passes() {
        let out = frames(3, &[b"abc\nabcd\n"]);
        assert_eq!(
            out,
            vec![
                Frame::Line(Bytes::from_static(b"abc")),
                Frame::Oversized { len: 4 }
            ]
        );
    }
}
