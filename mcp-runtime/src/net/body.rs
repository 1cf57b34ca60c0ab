//! Reading a response body within the cap, inflating `gzip` and `deflate` as it arrives.

use super::NetError;
use bytes::Bytes;
use http_body_util::BodyExt;
use std::io::{self, Write};

/// The body, decompressed when its `Content-Encoding` is `gzip` or `deflate`, and whether it
/// was cut at `limit` (only when `truncate`; otherwise a longer body is
/// [`NetError::TooLarge`]). Reading stops at the limit: neither the wire bytes nor the
/// inflated ones are buffered past it.
pub(crate) async fn read(
    mut body: hyper::body::Incoming,
    headers: &http::HeaderMap,
    limit: usize,
    truncate: bool,
) -> Result<(Bytes, bool), NetError> {
    let encoding = headers
        .get(http::header::CONTENT_ENCODING)
        .and_then(|v| v.to_str().ok())
        .map(|v| v.trim().to_ascii_lowercase());
    let sink = Capped {
        buf: Vec::new(),
        limit,
        over: false,
    };
    let mut out = match encoding.as_deref() {
        Some("gzip" | "x-gzip") => Out::Gzip(flate2::write::GzDecoder::new(sink)),
        Some("deflate") => Out::Deflate(flate2::write::ZlibDecoder::new(sink)),
        _ => Out::Plain(sink),
    };
    let mut wire = 0usize;
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|e| NetError::Transport(format!("reading the body: {e}")))?;
        let Ok(data) = frame.into_data() else {
            continue;
        };
        wire += data.len();
        let written = out.write_all(&data);
        if out.sink().over || wire > limit {
            return cut(out, limit, truncate);
        }
        written.map_err(|e| NetError::Transport(format!("decompressing the body: {e}")))?;
    }
    let sink = out
        .finish()
        .map_err(|e| NetError::Transport(format!("decompressing the body: {e}")))?;
    if sink.over {
        return cut(Out::Plain(sink), limit, truncate);
    }
    Ok((sink.buf.into(), false))
}

fn cut(mut out: Out, limit: usize, truncate: bool) -> Result<(Bytes, bool), NetError> {
    if !truncate {
        return Err(NetError::TooLarge { limit });
    }
    let mut buf = out.take();
    buf.truncate(limit);
    Ok((buf.into(), true))
}

enum Out {
    Plain(Capped),
    Gzip(flate2::write::GzDecoder<Capped>),
    Deflate(flate2::write::ZlibDecoder<Capped>),
}

impl Out {
    fn write_all(&mut self, data: &[u8]) -> io::Result<()> {
        match self {
            Self::Plain(w) => w.write_all(data),
            Self::Gzip(w) => w.write_all(data),
            Self::Deflate(w) => w.write_all(data),
        }
    }

    fn sink(&self) -> &Capped {
        match self {
            Self::Plain(w) => w,
            Self::Gzip(w) => w.get_ref(),
            Self::Deflate(w) => w.get_ref(),
        }
    }

    /// What the sink holds (the decoder, stopped by the cap, is dropped).
    fn take(&mut self) -> Vec<u8> {
        let sink = match self {
            Self::Plain(w) => w,
            Self::Gzip(w) => w.get_mut(),
            Self::Deflate(w) => w.get_mut(),
        };
        std::mem::take(&mut sink.buf)
    }

    fn finish(self) -> io::Result<Capped> {
        match self {
            Self::Plain(w) => Ok(w),
            Self::Gzip(w) => w.finish(),
            Self::Deflate(w) => w.finish(),
        }
    }
}

/// A buffer that refuses to grow past its limit: the decoder writing into it stops there.
struct Capped {
    buf: Vec<u8>,
    limit: usize,
    over: bool,
}

impl Write for Capped {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        let room = self.limit - self.buf.len();
        if data.len() > room {
            // Keep what fits (a truncating caller returns it), then stop the writer.
            self.buf.extend_from_slice(&data[..room]);
            self.over = true;
            return Err(io::Error::other("response body over the limit"));
        }
        self.buf.extend_from_slice(data);
        Ok(data.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}
