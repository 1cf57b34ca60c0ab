//! The template's syntax: the compile-time rules ([`validate`](super::validate) runs
//! them) and parsing a valid template into its parts.

use super::*;

/// The `}` that closes the expression opened at `open`, when it comes before any other `{`.
pub(super) const fn expression_end(bytes: &[u8], open: usize) -> Option<usize> {
    let mut k = open + 1;
    while k < bytes.len() {
        match bytes[k] {
            b'}' => return Some(k),
            b'{' => return None,
            _ => k += 1,
        }
    }
    None
}

/// What the rules about neighbours need to know of one expression.
#[derive(Clone, Copy)]
pub(super) struct Shape {
    pub(super) operator: Operator,
    /// More than one value: several variables, or an exploded one.
    pub(super) several: bool,
}

/// The expressions directly before the next one (no literal between), summarized for
/// [`Chain::refuses`]: the separators of the lists among them, split at the nearest
/// expression that is not a query (`{?a}{&b}` is one query, whose `&` ends nothing).
#[derive(Clone, Copy)]
pub(super) struct Chain {
    pub(super) any: bool,
    /// Separators of the lists in the run of query expressions nearest the next one.
    queries: u8,
    /// Separators of the lists before that run.
    before: u8,
}

impl Chain {
    pub(super) const EMPTY: Self = Self {
        any: false,
        queries: 0,
        before: 0,
    };

    /// Whether an expression of `next`'s operator may not follow: nothing in a URI would
    /// mark where the value before it ends. That is when `next` has no operator character
    /// (`{a}{b}`), or when its character separates the values of a list before it
    /// (`{/list*}{/b}`, also across optional expressions between: `{/list*}{?q}{/b}`).
    pub(super) const fn refuses(self, next: Operator) -> bool {
        if !self.any {
            return false;
        }
        let Some(prefix) = next.prefix() else {
            return true;
        };
        let lists = if matches!(next, Operator::QueryContinuation) {
            self.before
        } else {
            self.before | self.queries
        };
        lists & separator_bit(prefix) != 0
    }

    /// The chain with `shape` appended.
    pub(super) const fn then(self, shape: Shape) -> Self {
        let bit = if shape.several {
            separator_bit(shape.operator.separator())
        } else {
            0
        };
        if shape.operator.named() {
            Self {
                any: true,
                queries: self.queries | bit,
                before: self.before,
            }
        } else {
            Self {
                any: true,
                queries: 0,
                before: self.before | self.queries | bit,
            }
        }
    }
}

/// A bit per separator character (`,` `.` `/` `&`); 0 for any other byte.
pub(super) const fn separator_bit(b: u8) -> u8 {
    match b {
        b',' => 1,
        b'.' => 2,
        b'/' => 4,
        b'&' => 8,
        _ => 0,
    }
}

/// Checks `template[open..=close]`, from `{` to `}`.
pub(super) const fn check_expression(
    bytes: &[u8],
    open: usize,
    close: usize,
) -> Result<Shape, UriTemplateError> {
    let mut pos = open + 1;
    let operator = match bytes[pos] {
        b';' | b'=' | b',' | b'!' | b'@' | b'|' => {
            return Err(UriTemplateError::UnsupportedOperator {
                offset: pos,
                operator: bytes[pos] as char,
            });
        }
        b => Operator::of(b),
    };
    if !matches!(operator, Operator::Simple) {
        pos += 1;
    }
    let mut variables = 0;
    let mut explodes = 0;
    let mut first_explode = 0;
    loop {
        let start = pos;
        pos = match scan_variable_name(bytes, pos) {
            Ok(end) => end,
            Err(e) => return Err(e),
        };
        if pos == start {
            return Err(match bytes[pos] {
                b',' | b'}' | b'*' | b':' => UriTemplateError::EmptyVariableName { offset: pos },
                _ => invalid_name(bytes, pos),
            });
        }
        variables += 1;
        let explode = match bytes[pos] {
            b'*' => {
                if explodes == 0 {
                    first_explode = pos;
                }
                explodes += 1;
                pos += 1;
                true
            }
            b':' => return Err(UriTemplateError::PrefixModifier { offset: pos }),
            _ => false,
        };
        match bytes[pos] {
            b',' => pos += 1,
            b'}' if pos == close => {
                // Outside queries (where names tell the values apart) only the last
                // variable can be a list: one before it would have no end.
                if !operator.named() && explodes > explode as usize {
                    return Err(UriTemplateError::ExplodeNotLast {
                        offset: first_explode,
                    });
                }
                return Ok(Shape {
                    operator,
                    several: variables > 1 || explodes > 0,
                });
            }
            _ => return Err(invalid_name(bytes, pos)),
        }
    }
}

/// The error for the character at `pos`, which cannot be part of a variable name.
pub(super) const fn invalid_name(bytes: &[u8], pos: usize) -> UriTemplateError {
    UriTemplateError::InvalidVariableName {
        offset: pos,
        character: char_at(bytes, pos),
    }
}

/// The character whose UTF-8 encoding starts at `i` (`str::chars` is not `const`).
pub(super) const fn char_at(bytes: &[u8], i: usize) -> char {
    let lead = bytes[i] as u32;
    let (len, mut code) = match lead {
        0x00..=0x7F => (1, lead),
        0xC0..=0xDF => (2, lead & 0x1F),
        0xE0..=0xEF => (3, lead & 0x0F),
        _ => (4, lead & 0x07),
    };
    let mut k = 1;
    while k < len && i + k < bytes.len() {
        code = code << 6 | (bytes[i + k] as u32 & 0x3F);
        k += 1;
    }
    match char::from_u32(code) {
        Some(c) => c,
        None => char::REPLACEMENT_CHARACTER,
    }
}

/// The ASCII characters RFC 6570 allows in literals (`literals`, §2.1, with `'` as
/// erratum 6937 corrects it), `%` aside. Non-ASCII characters (`ucschar`) are allowed too.
pub(super) const fn is_literal_byte(b: u8) -> bool {
    matches!(b, 0x21 | 0x23..=0x24 | 0x26..=0x3B | 0x3D | 0x3F..=0x5B | 0x5D | 0x5F | 0x61..=0x7A | 0x7E)
}

/// A character of a variable name (`varchar`, RFC 6570 §2.3), `%` starting an escape.
pub(super) const fn is_varchar(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'%'
}

/// The end of the variable name starting at `start` (`varname`, RFC 6570 §2.3).
pub(super) const fn scan_variable_name(
    bytes: &[u8],
    start: usize,
) -> Result<usize, UriTemplateError> {
    let mut pos = start;
    loop {
        let b = bytes[pos];
        if b == b'%' {
            if !is_percent_triplet(bytes, pos) {
                return Err(UriTemplateError::InvalidPercentEncoding { offset: pos });
            }
            pos += 3;
        } else if is_varchar(b)
            || b == b'.' && pos > start && bytes[pos - 1] != b'.' && is_varchar(bytes[pos + 1])
        {
            pos += 1;
        } else {
            return Ok(pos);
        }
    }
}

/// Splits a template [`validate`] accepted into literals and expressions.
pub(super) fn parse_parts(template: &str) -> Vec<Part> {
    let mut parts = Vec::new();
    let mut rest = 0;
    while let Some(open) = template[rest..].find('{').map(|k| rest + k) {
        if rest < open {
            parts.push(Part::Literal(template[rest..open].to_owned()));
        }
        let close = open
            + template[open..]
                .find('}')
                .expect("validated: `{` is closed");
        parts.push(Part::Expression(parse_expression(
            &template[open + 1..close],
        )));
        rest = close + 1;
    }
    if rest < template.len() {
        parts.push(Part::Literal(template[rest..].to_owned()));
    }
    parts
}

/// The expression between `{` and `}` of a validated template.
pub(super) fn parse_expression(body: &str) -> Expression {
    let operator = Operator::of(body.as_bytes()[0]);
    let list = match operator {
        Operator::Simple => body,
        _ => &body[1..],
    };
    let variables = list
        .split(',')
        .map(|spec| match spec.strip_suffix('*') {
            Some(name) => VarSpec {
                name: name.to_owned(),
                explode: true,
            },
            None => VarSpec {
                name: spec.to_owned(),
                explode: false,
            },
        })
        .collect();
    Expression {
        operator,
        variables,
    }
}
