//! Matching a URI against a parsed template, in reverse of expansion: the template as
//! pieces (literals and expressions, each expression with the bytes that may start and
//! follow it), and the split of a URI into the spans each piece reads.

use super::encoding::{decode_value, push_encoded_literal};
use super::variables::{VarValue, Variables};
use super::{Expression, Operator, Part, VarSpec};
use std::collections::BTreeMap;

/// A set of ASCII bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub(super) struct AsciiSet(u128);

impl AsciiSet {
    pub(super) const fn of(bytes: &[u8]) -> Self {
        let mut set = 0u128;
        let mut i = 0;
        while i < bytes.len() {
            set |= 1 << bytes[i];
            i += 1;
        }
        Self(set)
    }

    pub(super) fn with(self, byte: u8) -> Self {
        Self(self.0 | 1 << byte)
    }

    pub(super) fn union(self, other: Self) -> Self {
        Self(self.0 | other.0)
    }

    pub(super) fn contains(self, byte: u8) -> bool {
        byte < 128 && self.0 & (1 << byte) != 0
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Piece {
    /// Literal text; `encoded` is its percent-encoded form when that differs (non-ASCII).
    Literal {
        raw: String,
        encoded: Option<String>,
    },
    Expression(Matcher),
}

impl Piece {
    pub(super) fn literal(raw: &str) -> Self {
        let mut encoded = String::with_capacity(raw.len());
        push_encoded_literal(&mut encoded, raw);
        let encoded = (encoded != raw).then_some(encoded);
        Self::Literal {
            raw: raw.to_owned(),
            encoded,
        }
    }

    /// A literal's forms: as written, then percent-encoded if that differs.
    pub(super) fn literal_forms(&self) -> Option<impl Iterator<Item = &[u8]>> {
        match self {
            Self::Literal { raw, encoded } => {
                Some(std::iter::once(raw).chain(encoded).map(String::as_bytes))
            }
            Self::Expression(_) => None,
        }
    }
}

/// How one expression (or one `{?a}{&b}` query) matches.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Matcher {
    operator: Operator,
    variables: Vec<VarSpec>,
    /// The characters that may start the expression's text (empty: none is written).
    prefix: AsciiSet,
    /// The characters its text never contains unencoded.
    stops: AsciiSet,
    /// The whole expression may be absent (all its variables undefined).
    optional: bool,
    /// The shortest text after the prefix.
    min_body: usize,
}

impl Matcher {
    pub(super) fn new(expression: &Expression) -> Self {
        let operator = expression.operator;
        let several = expression.variables.len() > 1 || expression.variables[0].explode;
        let (stops, optional, min_body) = match operator {
            Operator::Simple => (AsciiSet::of(b"/?#"), false, 1),
            Operator::Reserved => (AsciiSet::default(), false, 1),
            Operator::Fragment => (AsciiSet::default(), true, 1),
            Operator::Label => (AsciiSet::of(b"/?#"), true, 1),
            Operator::PathSegment if several => (AsciiSet::of(b"?#"), true, 1),
            Operator::PathSegment => (AsciiSet::of(b"/?#"), true, 1),
            Operator::Query | Operator::QueryContinuation => (AsciiSet::of(b"#"), true, 0),
        };
        Self {
            operator,
            variables: expression.variables.clone(),
            prefix: operator
                .prefix()
                .map_or(AsciiSet::default(), |p| AsciiSet::of(&[p])),
            stops,
            optional,
            min_body,
        }
    }

    /// Where the body starts if the expression's text starts at `r`.
    pub(super) fn body_start(&self, uri: &[u8], r: usize) -> Option<usize> {
        if self.prefix == AsciiSet::default() {
            Some(r)
        } else {
            uri.get(r)
                .filter(|&&b| self.prefix.contains(b))
                .map(|_| r + 1)
        }
    }

    /// Reads the expression's variables from its text (`text` without the prefix), or
    /// `None` when the text does not fit the expression or a value is unsafe.
    pub(super) fn capture(
        &self,
        text: &str,
        allow_dot_segments: bool,
        out: &mut Variables,
    ) -> Option<()> {
        let one_segment = self.operator.one_segment();
        let value = |raw: &str| decode_value(raw, one_segment, allow_dot_segments);
        if self.operator.named() {
            return self.capture_query(text, allow_dot_segments, out);
        }
        let single = self.variables.len() == 1 && !self.variables[0].explode;
        let pieces = if single { 1 } else { usize::MAX };
        let mut raw_values = text.splitn(pieces, char::from(self.operator.separator()));
        for spec in &self.variables {
            if spec.explode {
                // Only the last variable of a non-query expression explodes (parse checks).
                let items = raw_values
                    .by_ref()
                    .map(|raw| if raw.is_empty() { None } else { value(raw) })
                    .collect::<Option<Vec<_>>>()?;
                if !items.is_empty() {
                    out.bind(&spec.name, VarValue::List(items))?;
                }
            } else {
                match raw_values.next() {
                    Some("") => return None,
                    Some(raw) => out.bind(&spec.name, VarValue::String(value(raw)?))?,
                    None => break,
                }
            }
        }
        raw_values.next().is_none().then_some(())
    }

    pub(super) fn capture_query(
        &self,
        text: &str,
        allow_dot_segments: bool,
        out: &mut Variables,
    ) -> Option<()> {
        let mut found: BTreeMap<&str, VarValue> = BTreeMap::new();
        if !text.is_empty() {
            for param in text.split('&') {
                let (name, raw) = param.split_once('=').unwrap_or((param, ""));
                let spec = self.variables.iter().find(|spec| spec.name == name)?;
                let value = decode_value(raw, false, allow_dot_segments)?;
                match found.get_mut(name) {
                    None if spec.explode => {
                        found.insert(name, VarValue::List(vec![value]));
                    }
                    None => {
                        found.insert(name, VarValue::String(value));
                    }
                    Some(VarValue::List(items)) => items.push(value),
                    // A non-exploded parameter given twice: which one was meant?
                    Some(VarValue::String(_)) => return None,
                }
            }
        }
        for (name, value) in found {
            out.bind(name, value)?;
        }
        Some(())
    }
}

/// The matching pieces of a parsed template.
pub(super) fn pieces(parts: &[Part]) -> Vec<Piece> {
    let mut pieces: Vec<Piece> = Vec::with_capacity(parts.len());
    for part in parts {
        let expression = match part {
            Part::Literal(text) => {
                pieces.push(Piece::literal(text));
                continue;
            }
            Part::Expression(expression) => expression,
        };
        if let Some(Piece::Expression(previous)) = pieces.last_mut()
            && previous.operator.named()
            && expression.operator == Operator::QueryContinuation
        {
            // `{?a}{&b}`: one query, in any order. When every variable of `{?a}` is
            // undefined, RFC 6570 writes the query as `&b=…`.
            previous
                .variables
                .extend(expression.variables.iter().cloned());
            previous.prefix = previous.prefix.with(b'&');
            continue;
        }
        pieces.push(Piece::Expression(Matcher::new(expression)));
    }
    // The operator characters of the expressions right after one end its value (all of
    // them: those in between may be absent). Parse refused the adjacent expressions without
    // an operator character, and those whose character separates the values of a list
    // before them, so no list loses its separator here.
    for i in 0..pieces.len() {
        let ends = pieces[i + 1..]
            .iter()
            .map_while(|piece| match piece {
                Piece::Expression(next) => Some(next.prefix),
                Piece::Literal { .. } => None,
            })
            .fold(AsciiSet::default(), AsciiSet::union);
        if let Piece::Expression(matcher) = &mut pieces[i] {
            matcher.stops = matcher.stops.union(ends);
        }
    }
    pieces
}

/// Splits `uri` among the pieces: the span of each, or `None` if no split fits.
///
/// `reach[i][r]` says whether pieces `i..` match `uri[r..]` exactly; it is filled from the
/// last piece to the first, each row in one right-to-left sweep. The spans are then chosen
/// left to right, each expression taking the longest text after which the rest still fits.
pub(super) fn split(pieces: &[Piece], uri: &[u8]) -> Option<Vec<(usize, usize)>> {
    let n = uri.len();
    let width = n + 1;
    let mut reach = vec![false; (pieces.len() + 1) * width];
    reach[pieces.len() * width + n] = true;
    for (i, piece) in pieces.iter().enumerate().rev() {
        let (rows, after) = reach.split_at_mut((i + 1) * width);
        let row = &mut rows[i * width..];
        let after = &after[..width];
        match piece {
            Piece::Literal { .. } => {
                // Only the start matters for the first piece (most templates begin with
                // their scheme's literal): one comparison instead of one per position.
                let starts = if i == 0 { 1 } else { width };
                for form in piece.literal_forms().into_iter().flatten() {
                    for r in 0..width.saturating_sub(form.len()).min(starts) {
                        if after[r + form.len()] && &uri[r..r + form.len()] == form {
                            row[r] = true;
                        }
                    }
                }
            }
            Piece::Expression(matcher) => {
                let has_prefix = usize::from(matcher.prefix != AsciiSet::default());
                // For the start `r`, the body is `uri[b..]` with `b = r + has_prefix`; it
                // ends somewhere in `lo..=hi`, `lo = b + min_body`, `hi = b + run(b)`, where
                // `run(p)` counts the bytes from `p` that are not stops.
                let offset = has_prefix + matcher.min_body;
                let mut run_after = 0; // run(r + 1)
                let mut run_here; // run(r)
                let mut nearest = usize::MAX; // the first `q >= r + offset` with `after[q]`
                for r in (0..width).rev() {
                    run_here = if r < n && !matcher.stops.contains(uri[r]) {
                        run_after + 1
                    } else {
                        0
                    };
                    if r + offset < width && after[r + offset] {
                        nearest = r + offset;
                    }
                    let run_body = if has_prefix == 1 { run_after } else { run_here };
                    let body = matcher.body_start(uri, r);
                    row[r] = (matcher.optional && after[r])
                        || body.is_some_and(|b| nearest <= b + run_body);
                    run_after = run_here;
                }
            }
        }
    }
    if !reach[0] {
        return None;
    }
    let mut spans = Vec::with_capacity(pieces.len());
    let mut r = 0;
    for (i, piece) in pieces.iter().enumerate() {
        let after = &reach[(i + 1) * width..(i + 2) * width];
        let end = match piece {
            Piece::Literal { .. } => (piece.literal_forms().into_iter().flatten())
                .find(|form| uri[r..].starts_with(form) && after[r + form.len()])
                .map(|form| r + form.len()),
            Piece::Expression(matcher) => matcher
                .body_start(uri, r)
                .and_then(|b| {
                    let run = uri[b..]
                        .iter()
                        .take_while(|&&c| !matcher.stops.contains(c))
                        .count();
                    (b + matcher.min_body..=b + run)
                        .rev()
                        .find(|&end| after[end])
                })
                .or_else(|| (matcher.optional && after[r]).then_some(r)),
        }?;
        spans.push((r, end));
        r = end;
    }
    Some(spans)
}
