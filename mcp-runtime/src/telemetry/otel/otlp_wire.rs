//! The protobuf wire format, as much of it as OTLP's spans need: tags, varints, fixed-width
//! numbers, length-prefixed bytes and nested messages, each written once into one buffer
//! (a nested message's length goes in front of it once known). Proto3's rule that a scalar
//! at its default is left out is kept by the field writers. Nothing here knows OTLP's
//! messages: those are `otlp_proto`'s.

/// Wire types.
pub(super) const VARINT: u32 = 0;
pub(super) const FIXED64: u32 = 1;
pub(super) const LEN: u32 = 2;
pub(super) const FIXED32: u32 = 5;

/// A nested message as field `field`: its body written by `body`, its length in front.
pub(super) fn message(out: &mut Vec<u8>, field: u32, body: impl FnOnce(&mut Vec<u8>)) {
    tag(out, field, LEN);
    let at = out.len();
    out.push(0);
    body(out);
    let len = out.len() - at - 1;
    if len < 0x80 {
        out[at] = len as u8;
        return;
    }
    // The length takes more than the byte kept for it: move the body up.
    let mut prefix = [0u8; 10];
    let mut n = 0;
    let mut v = len as u64;
    while v >= 0x80 {
        prefix[n] = (v as u8) | 0x80;
        v >>= 7;
        n += 1;
    }
    prefix[n] = v as u8;
    n += 1;
    let end = out.len();
    out.resize(end + n - 1, 0);
    out.copy_within(at + 1..end, at + n);
    out[at..at + n].copy_from_slice(&prefix[..n]);
}

pub(super) fn tag(out: &mut Vec<u8>, field: u32, wire: u32) {
    varint(out, u64::from((field << 3) | wire));
}

/// How many bytes `v` takes as a varint.
pub(super) fn varint_len(v: usize) -> usize {
    (usize::BITS - (v | 1).leading_zeros()).div_ceil(7) as usize
}

pub(super) fn varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

pub(super) fn len_bytes(out: &mut Vec<u8>, data: &[u8]) {
    varint(out, data.len() as u64);
    out.extend_from_slice(data);
}

/// A `string` or `bytes` field; left out when empty, as proto3 does.
pub(super) fn bytes(out: &mut Vec<u8>, field: u32, data: &[u8]) {
    if !data.is_empty() {
        tag(out, field, LEN);
        len_bytes(out, data);
    }
}

pub(super) fn string(out: &mut Vec<u8>, field: u32, text: &str) {
    bytes(out, field, text.as_bytes());
}

/// A varint field (`uint32`, an enum); left out at zero.
pub(super) fn varint_field(out: &mut Vec<u8>, field: u32, v: u64) {
    if v != 0 {
        tag(out, field, VARINT);
        varint(out, v);
    }
}

pub(super) fn fixed64(out: &mut Vec<u8>, field: u32, v: u64) {
    if v != 0 {
        tag(out, field, FIXED64);
        out.extend_from_slice(&v.to_le_bytes());
    }
}

pub(super) fn fixed32(out: &mut Vec<u8>, field: u32, v: u32) {
    if v != 0 {
        tag(out, field, FIXED32);
        out.extend_from_slice(&v.to_le_bytes());
    }
}
