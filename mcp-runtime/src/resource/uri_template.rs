//! RFC 6570 URI templates for resource templates: parsing, expansion, and matching a
//! concrete URI back to the variables that would expand to it.
//!
//! **Subset.** The MCP spec says only "RFC 6570" and mandates no level. Accepted: Level 1–3
//! minus path-style parameters, plus explode: `{x}`, `{+x}`, `{#x}`, `{.x}`, `{/x}`,
//! `{?a,b}`, `{&a,b}`, several variables per expression, and `{x*}` on lists. Refused at
//! parse time, so that a resource template is never matched wrongly: the `;` operator, the
//! prefix modifier `{x:3}` (a prefix cannot be matched back to the whole value), the
//! operators RFC 6570 reserves (`=`, `,`, `!`, `@`, `|`), `*` on a variable that is not
//! the last of a non-query expression, and the adjacent expressions described below.
//! Associative-array values are not represented ([`Variables`] holds strings and lists).
//!
//! **Hand-written matcher.** RFC 6570 defines expansion only. At the time of writing the
//! maintained Rust crates (`iri-string`, `uritemplate-next`) expand but do not match;
//! `uri-template-ex` matches only Level 2 and `uri-template-system` is AGPL. Matching is the
//! core of resource routing, so it is written here, without a regular expression per call:
//! a table of "the rest of the template matches from byte `r`" built right to left, then
//! one left-to-right pass choosing the split. Time and memory are O(pieces × URI length);
//! URIs longer than [`MAX_MATCHED_URI_LEN`] match nothing, which bounds both.
//!
//! **Which split.** When several splits fit, an earlier expression takes the longest value
//! that still lets the rest match (what a greedy regular expression does, and what the
//! TypeScript SDK's regexes do): `{name}.{ext}` reads `a.tar.gz` as `a.tar` + `gz`, and
//! `{/dirs*}/{file}{/rev}` reads `/a/b/c` as dirs = [a, b], file = c, rev absent.
//! Literals compare byte for byte (no case folding, no normalization of `%`-escapes); a
//! literal with non-ASCII characters matches both as written and percent-encoded (as an
//! RFC 6570 expansion writes it).
//!
//! **Adjacent expressions.** `{a}{b}` is refused: nothing in the URI marks where `a` ends.
//! The same holds whenever the second expression has no operator character (`{x}`,
//! `{+x}`), or when its operator character is the separator of a list before it
//! (`{/a*}{/b}`, `{.a,b}{.c}`, also `{/a*}{?q}{/b}`: the list would swallow the later
//! expression). Otherwise the operator characters of the expressions that directly follow
//! a value end it, those after an absent one included: in `{+path}{?rev}{#line}` the path
//! stops at `?` or `#`, in `{x}{.ext}` `x` stops at `.`. `{?a}{&b}` is read as one query.
//!
//! **What a value may hold.** Extracted values are percent-decoded (no `+`-as-space) and
//! must be UTF-8 and free of NUL; otherwise the URI does not match. Every path-like value
//! must be non-empty (`users:///profile` does not match `users://{id}/profile`); query
//! values may be empty (`?q=`). A `{x}`, `{.x}` or `{/x}` value never holds `/`, not even
//! encoded as `%2F`: such a variable names one path segment and a handler must be able to
//! join it to a path as is (`{+x}` and `{#x}` are the operators for values with slashes).
//! By default a value that is `.` or `..`, or has such a segment between `/` or `\`
//! separators (`a/../b`, `..\x`, also after decoding `%2e%2e`), does not match:
//! [`UriTemplate::allow_dot_segments`] turns that off.
//!
//! **Queries.** `{?a,b}` matches its parameters in any order, each optional. A parameter
//! the template does not name makes the URI not match (nothing is dropped silently: the
//! next template, or "not found", gets a chance instead); so does a non-exploded parameter
//! given twice. A bare `name` without `=` reads as the empty string. An exploded
//! `{?tag*}` collects every `tag=` into a list.
//!
//! **Several variables in one expression.** Values fill the variables in order, split at
//! the operator's separator (`,` for `{a,b}`, `/` for `{/a,b}`); missing trailing values
//! leave their variables undefined; an exploded last variable takes the rest as a list.
//! `{+a,b}` and `{#a,b}` split at the first `,` (reserved expansion leaves commas as they
//! are, so a value with a comma cannot come back), and `{+x}` passes `%XX` through when
//! expanding while matching decodes it, so a value that literally contains `%41` cannot
//! come back either: both are RFC 6570's own ambiguities.
//!
//! **Each variable once; the query last.** A template names each variable once, and a
//! `{?…}`/`{&…}` expression is followed only by more query or a fragment. RFC 6570 allows
//! both, but matched in reverse they read URIs their own expansions are not (a variable
//! filled differently in two places, a query value swallowing the path after it): the
//! fuzz target `uri_template` (match, expand, match again) found each
//! ([`UriTemplateError::RepeatedVariable`], [`UriTemplateError::QueryNotLast`]).
//!
//! **Checked at compile time too.** [`validate`] holds every rule above but the last
//! paragraph's and is a `const fn` with no allocation; [`UriTemplate::parse`] calls it
//! before building, and `#[mcp_resource(template = "…")]` evaluates it in a `const`, so a
//! template the macro accepts is one registration accepts on syntax (the approach of the
//! tool-name rule); the last two rules are checked at registration.

mod encoding;
pub(crate) mod error;
mod matching;
mod syntax;
mod variables;

pub use error::UriTemplateError;
pub use variables::{VarValue, Variables};

use encoding::*;
use matching::{Piece, pieces, split};
use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;
use syntax::*;

/// URIs longer than this (64 KiB) match no template: the matcher's table grows with the
/// URI, and a resource identifier that long is not an identifier.
pub const MAX_MATCHED_URI_LEN: usize = 64 * 1024;

/// A parsed RFC 6570 URI template (the supported subset: see the module docs).
///
/// ```
/// use mcp_runtime::resource::uri_template::{UriTemplate, Variables};
///
/// let template = UriTemplate::parse("file:///{+path}{?rev}")?;
/// let vars = template.matches("file:///src/main.rs?rev=v1").expect("matches");
/// assert_eq!(vars.get("path"), Some("src/main.rs"));
/// assert_eq!(vars.get("rev"), Some("v1"));
/// assert!(template.matches("file:///src/../../etc/passwd").is_none());
///
/// let mut vars = Variables::new();
/// vars.insert("path", "docs/read me.md");
/// assert_eq!(template.expand(&vars), "file:///docs/read%20me.md");
/// # Ok::<(), mcp_runtime::resource::uri_template::UriTemplateError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UriTemplate {
    source: String,
    /// The template as written: what expansion walks.
    parts: Vec<Part>,
    /// The template as matched: `{?a}{&b}` merged into one query, and each expression's
    /// rules for where its text ends.
    pieces: Vec<Piece>,
    /// Every variable name once, in order of first appearance.
    names: Vec<String>,
    allow_dot_segments: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Part {
    Literal(String),
    Expression(Expression),
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct Expression {
    operator: Operator,
    variables: Vec<VarSpec>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct VarSpec {
    name: String,
    explode: bool,
}

/// The RFC 6570 operators this module supports (table in RFC 6570 Appendix A).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Operator {
    /// `{x}`
    Simple,
    /// `{+x}`
    Reserved,
    /// `{#x}`
    Fragment,
    /// `{.x}`
    Label,
    /// `{/x}`
    PathSegment,
    /// `{?x}`
    Query,
    /// `{&x}`
    QueryContinuation,
}

impl Operator {
    /// The operator an expression's first character names: [`Operator::Simple`] when it
    /// names none (it then starts the first variable name).
    const fn of(b: u8) -> Self {
        match b {
            b'+' => Self::Reserved,
            b'#' => Self::Fragment,
            b'.' => Self::Label,
            b'/' => Self::PathSegment,
            b'?' => Self::Query,
            b'&' => Self::QueryContinuation,
            _ => Self::Simple,
        }
    }

    /// The character that starts the expression's text, if any.
    const fn prefix(self) -> Option<u8> {
        match self {
            Self::Simple | Self::Reserved => None,
            Self::Fragment => Some(b'#'),
            Self::Label => Some(b'.'),
            Self::PathSegment => Some(b'/'),
            Self::Query => Some(b'?'),
            Self::QueryContinuation => Some(b'&'),
        }
    }

    /// What separates values inside the expression.
    const fn separator(self) -> u8 {
        match self {
            Self::Simple | Self::Reserved | Self::Fragment => b',',
            Self::Label => b'.',
            Self::PathSegment => b'/',
            Self::Query | Self::QueryContinuation => b'&',
        }
    }

    /// `name=value` pairs rather than bare values.
    const fn named(self) -> bool {
        matches!(self, Self::Query | Self::QueryContinuation)
    }

    /// Reserved characters pass through expansion unencoded.
    fn allows_reserved(self) -> bool {
        matches!(self, Self::Reserved | Self::Fragment)
    }

    /// Values name one path segment: no `/`, even encoded.
    fn one_segment(self) -> bool {
        matches!(self, Self::Simple | Self::Label | Self::PathSegment)
    }
}

/// Refuses what makes a template match URIs its own expansions are not (each found by
/// fuzzing): a variable named more than once (a URI can fill the places differently, one
/// place can swallow the other's text, or read a list where the other reads a string), and
/// a query expression followed by anything but more query or a fragment (a query value may
/// hold `/`, so it would swallow the path after it). RFC 6570 allows both; a template
/// matched in reverse cannot promise what they would read. Runs after [`validate`], so
/// every `{` has its `}`.
fn round_trips(template: &str) -> Result<(), UriTemplateError> {
    let mut seen: Vec<&str> = Vec::new();
    let mut rest = template;
    let mut base = 0;
    while let Some(open) = rest.find('{') {
        let close = open + rest[open..].find('}').unwrap_or(rest.len() - open);
        let body = &rest[open + 1..close];
        for name in body
            .trim_start_matches(['+', '#', '.', '/', '?', '&'])
            .split(',')
            .map(|n| n.trim_end_matches('*'))
        {
            if seen.contains(&name) {
                return Err(UriTemplateError::RepeatedVariable {
                    offset: base + open,
                });
            }
            seen.push(name);
        }
        let after = &rest[(close + 1).min(rest.len())..];
        let ends_query = after.is_empty()
            || after.starts_with(['#'])
            || after.starts_with("{&")
            || after.starts_with("{#");
        if body.starts_with(['?', '&']) && !ends_query {
            return Err(UriTemplateError::QueryNotLast {
                offset: base + open,
            });
        }
        base += (close + 1).min(rest.len());
        rest = after;
    }
    Ok(())
}

impl UriTemplate {
    /// Parses a template; the error says what is wrong and at which byte. The rules are
    /// [`validate`]'s, which `#[mcp_resource]` also evaluates at compile time.
    pub fn parse(template: &str) -> Result<Self, UriTemplateError> {
        validate(template)?;
        round_trips(template)?;
        let parts = parse_parts(template);
        let mut names: Vec<String> = Vec::new();
        for part in &parts {
            if let Part::Expression(expression) = part {
                for spec in &expression.variables {
                    if !names.contains(&spec.name) {
                        names.push(spec.name.clone());
                    }
                }
            }
        }
        Ok(Self {
            source: template.to_owned(),
            pieces: pieces(&parts),
            parts,
            names,
            allow_dot_segments: false,
        })
    }

    /// The template as written.
    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// The variable names, in order of first appearance, each once.
    pub fn variable_names(&self) -> impl Iterator<Item = &str> {
        self.names.iter().map(String::as_str)
    }

    /// Whether matched values may be or contain the dot segments `.` and `..` (default:
    /// no, such a URI does not match; see the module docs).
    pub fn allow_dot_segments(mut self, allow: bool) -> Self {
        self.allow_dot_segments = allow;
        self
    }

    /// Whether the template has no expressions at all (it names one fixed URI).
    pub fn is_literal(&self) -> bool {
        self.parts
            .iter()
            .all(|part| matches!(part, Part::Literal(_)))
    }

    /// The variables of `uri` if it matches the template; `None` when it does not, or when
    /// an extracted value is unsafe (module docs: not UTF-8, NUL, `/` in a one-segment
    /// value, dot segments).
    pub fn matches(&self, uri: &str) -> Option<Variables> {
        let bytes = uri.as_bytes();
        if bytes.len() > MAX_MATCHED_URI_LEN || !self.could_match(bytes) {
            return None;
        }
        let spans = split(&self.pieces, bytes)?;
        let mut variables = Variables::new();
        for (piece, &(start, end)) in self.pieces.iter().zip(&spans) {
            if let Piece::Expression(matcher) = piece {
                if start == end {
                    continue; // absent: its variables stay undefined
                }
                let body = matcher.body_start(bytes, start)?;
                let text = uri.get(body..end)?;
                matcher.capture(text, self.allow_dot_segments, &mut variables)?;
            }
        }
        Some(variables)
    }

    /// Expands the template (RFC 6570 §3.2): undefined variables and empty lists are
    /// skipped, values are percent-encoded as their operator requires, and non-ASCII
    /// characters of literals are percent-encoded, so the result is a URI.
    pub fn expand(&self, variables: &Variables) -> String {
        let mut out = String::with_capacity(self.source.len() * 2);
        for part in &self.parts {
            match part {
                Part::Literal(text) => push_encoded_literal(&mut out, text),
                Part::Expression(expression) => expression.expand(variables, &mut out),
            }
        }
        out
    }

    /// A cheap look at the literals that start and end the template, before the full match
    /// (most templates a router tries fail here, on their scheme).
    fn could_match(&self, uri: &[u8]) -> bool {
        let starts = (self.pieces.first().and_then(Piece::literal_forms))
            .is_none_or(|mut forms| forms.any(|form| uri.starts_with(form)));
        let ends = (self.pieces.last().and_then(Piece::literal_forms))
            .is_none_or(|mut forms| forms.any(|form| uri.ends_with(form)));
        starts && ends
    }
}

impl fmt::Display for UriTemplate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.source)
    }
}

impl FromStr for UriTemplate {
    type Err = UriTemplateError;

    fn from_str(template: &str) -> Result<Self, Self::Err> {
        Self::parse(template)
    }
}

impl Expression {
    /// RFC 6570 Appendix A, for string and list values.
    fn expand(&self, variables: &Variables, out: &mut String) {
        let operator = self.operator;
        let separator = char::from(operator.separator());
        let mut first = true;
        for spec in &self.variables {
            let value = match variables.get_value(&spec.name) {
                None => continue,
                Some(VarValue::List(items)) if items.is_empty() => continue,
                Some(value) => value,
            };
            if first {
                if let Some(prefix) = operator.prefix() {
                    out.push(char::from(prefix));
                }
                first = false;
            } else {
                out.push(separator);
            }
            // `name=`; for the query operators even an empty value keeps its `=` (their
            // "ifemp"; only the unsupported `;` would drop it).
            let named = |out: &mut String| {
                out.push_str(&spec.name);
                out.push('=');
            };
            match value {
                VarValue::String(text) => {
                    if operator.named() {
                        named(out);
                    }
                    push_encoded(out, text, operator.allows_reserved());
                }
                VarValue::List(items) if spec.explode => {
                    for (i, item) in items.iter().enumerate() {
                        if i > 0 {
                            out.push(separator);
                        }
                        if operator.named() {
                            named(out);
                        }
                        push_encoded(out, item, operator.allows_reserved());
                    }
                }
                VarValue::List(items) => {
                    if operator.named() {
                        named(out);
                    }
                    for (i, item) in items.iter().enumerate() {
                        if i > 0 {
                            out.push(',');
                        }
                        push_encoded(out, item, operator.allows_reserved());
                    }
                }
            }
        }
    }
}

/// Checks `template` against every rule of the supported subset (module docs), without
/// building anything: the first problem, with its byte offset.
///
/// A `const fn`, so it also runs at compile time: `#[mcp_resource(template = "…")]` checks its
/// template by evaluating this very function in a `const` (as `#[mcp_tool]` does for tool
/// names), and [`UriTemplate::parse`] calls it before building, so what compiles is exactly
/// what registers.
///
/// ```
/// use mcp_runtime::resource::uri_template::{UriTemplateError, validate};
///
/// assert_eq!(validate("users://{id}/profile{?fields}"), Ok(()));
/// assert_eq!(validate("x://{a}{b}"), Err(UriTemplateError::AdjacentExpressions { offset: 7 }));
/// const CHECKED: () = assert!(validate("file:///{+path}").is_ok());
/// ```
pub const fn validate(template: &str) -> Result<(), UriTemplateError> {
    let bytes = template.as_bytes();
    let mut chain = Chain::EMPTY;
    // `Iterator` and `?` are not usable in a `const fn`; hence the index loops and matches.
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'{' => {
                let Some(close) = expression_end(bytes, i) else {
                    return Err(UriTemplateError::Unclosed { offset: i });
                };
                let shape = match check_expression(bytes, i, close) {
                    Ok(shape) => shape,
                    Err(e) => return Err(e),
                };
                if chain.refuses(shape.operator) {
                    return Err(UriTemplateError::AdjacentExpressions { offset: i });
                }
                chain = chain.then(shape);
                i = close + 1;
            }
            b'}' => return Err(UriTemplateError::UnmatchedClose { offset: i }),
            b'%' if is_percent_triplet(bytes, i) => {
                chain = Chain::EMPTY;
                i += 3;
            }
            b'%' => return Err(UriTemplateError::InvalidPercentEncoding { offset: i }),
            b if b >= 0x80 || is_literal_byte(b) => {
                chain = Chain::EMPTY;
                i += 1;
            }
            b => {
                return Err(UriTemplateError::InvalidLiteral {
                    offset: i,
                    character: b as char,
                });
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod properties;
