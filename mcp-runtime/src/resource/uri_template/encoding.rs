//! Percent-encoding for expansion and percent-decoding of matched values.

pub(super) const fn is_percent_triplet(bytes: &[u8], i: usize) -> bool {
    bytes.len() > i + 2 && bytes[i + 1].is_ascii_hexdigit() && bytes[i + 2].is_ascii_hexdigit()
}

pub(super) fn hex_value(b: u8) -> u8 {
    match b {
        b'0'..=b'9' => b - b'0',
        b'a'..=b'f' => b - b'a' + 10,
        _ => b - b'A' + 10,
    }
}

pub(super) fn push_percent(out: &mut String, b: u8) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    out.push('%');
    out.push(char::from(HEX[usize::from(b >> 4)]));
    out.push(char::from(HEX[usize::from(b & 0xF)]));
}

/// Percent-encodes a value: everything but unreserved characters, and with
/// `allow_reserved` (`{+x}`, `{#x}`) also passing reserved characters and `%XX` triplets.
pub(super) fn push_encoded(out: &mut String, value: &str, allow_reserved: bool) {
    let bytes = value.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        let unreserved = b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~');
        let reserved = matches!(
            b,
            b':' | b'/'
                | b'?'
                | b'#'
                | b'['
                | b']'
                | b'@'
                | b'!'
                | b'$'
                | b'&'
                | b'\''
                | b'('
                | b')'
                | b'*'
                | b'+'
                | b','
                | b';'
                | b'='
        );
        if unreserved || allow_reserved && (reserved || b == b'%' && is_percent_triplet(bytes, i)) {
            out.push(char::from(b));
        } else {
            push_percent(out, b);
        }
    }
}

/// Copies a literal, percent-encoding its non-ASCII characters (RFC 6570 §3.1).
pub(super) fn push_encoded_literal(out: &mut String, text: &str) {
    for c in text.chars() {
        if c.is_ascii() {
            out.push(c);
        } else {
            for &b in c.encode_utf8(&mut [0; 4]).as_bytes() {
                push_percent(out, b);
            }
        }
    }
}

/// Percent-decodes a matched value and checks it is safe (module docs).
pub(super) fn decode_value(
    raw: &str,
    one_segment: bool,
    allow_dot_segments: bool,
) -> Option<String> {
    let bytes = raw.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            if !is_percent_triplet(bytes, i) {
                return None;
            }
            decoded.push(hex_value(bytes[i + 1]) << 4 | hex_value(bytes[i + 2]));
            i += 3;
        } else {
            decoded.push(bytes[i]);
            i += 1;
        }
    }
    let value = String::from_utf8(decoded).ok()?;
    let unsafe_value = value.contains('\0')
        || one_segment && value.contains('/')
        || !allow_dot_segments
            && value
                .split(['/', '\\'])
                .any(|segment| segment == "." || segment == "..");
    (!unsafe_value).then_some(value)
}
