//! Parsing a prompt file into a tree that remembers where every key and value is.
//!
//! Every later check reports a file, line and column, like a compiler, so the parsers are
//! chosen for their positions rather than wrapped in serde:
//!
//! - **JSON** with `jsonc-parser` (already in the workspace for the CLI): it gives every
//!   node's byte range, and it accepts `//` and `/* */` comments and trailing commas, so the
//!   seed design's own example (which carries a `//` comment) loads as written. Nothing
//!   else beyond JSON is accepted (no single quotes, bare keys, hex numbers, missing commas).
//! - **YAML** with `saphyr` (the maintained, pure-Rust YAML 1.2 successor of `yaml-rust`):
//!   its `MarkedYaml` keeps a span on every node. `serde_yaml` is unmaintained, and its forks
//!   (`serde_yaml_ng`, `serde_norway`) wrap a C-to-Rust libyaml translation and give
//!   positions only for syntax errors, not for the key a later check complains about.
//! - **Markdown**: a `---` fenced YAML front matter, then the body. Splitting at the fence
//!   is three lines of code, so no front-matter crate; what matters is knowing on which line
//!   the body starts, so template errors in it point at the right line.
//!
//! Lines and columns are 1-based; columns count characters.

use serde_json::{Map, Number, Value};
use std::borrow::Cow;

/// A place in a file.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Pos {
    /// 1-based line.
    pub(crate) line: usize,
    /// 1-based column, in characters.
    pub(crate) column: usize,
}

impl Pos {
    pub(crate) const START: Pos = Pos { line: 1, column: 1 };
}

/// A value and where it starts.
#[derive(Debug, Clone)]
pub(crate) struct Node {
    pub(crate) pos: Pos,
    pub(crate) value: Val,
}

/// A JSON-shaped value whose children keep their positions.
#[derive(Debug, Clone)]
pub(crate) enum Val {
    Null,
    Bool(bool),
    Number(Number),
    Str(Str),
    Array(Vec<Node>),
    /// Entries in file order (the order of a prompt's arguments).
    Object(Vec<Entry>),
}

/// A string, and whether its lines are the file's lines.
#[derive(Debug, Clone)]
pub(crate) struct Str {
    pub(crate) text: String,
    /// The file line of the string's first line, when each line of the string is a line of
    /// the file (a YAML literal block, a Markdown body): a position inside the string then
    /// maps to the file exactly. `None` for strings with escapes or folding (JSON, quoted
    /// YAML), whose positions inside are reported relative to the string's start.
    pub(crate) first_line: Option<usize>,
    /// Columns of indentation removed from each line (a YAML block's indentation).
    pub(crate) indent: usize,
}

/// One key of an object.
#[derive(Debug, Clone)]
pub(crate) struct Entry {
    pub(crate) key: String,
    pub(crate) key_pos: Pos,
    pub(crate) value: Node,
}

impl Node {
    /// The entry `key` of an object.
    pub(crate) fn get(&self, key: &str) -> Option<&Entry> {
        match &self.value {
            Val::Object(entries) => entries.iter().find(|e| e.key == key),
            _ => None,
        }
    }

    /// The plain JSON value.
    pub(crate) fn to_json(&self) -> Value {
        match &self.value {
            Val::Null => Value::Null,
            Val::Bool(b) => Value::Bool(*b),
            Val::Number(n) => Value::Number(n.clone()),
            Val::Str(s) => Value::String(s.text.clone()),
            Val::Array(items) => Value::Array(items.iter().map(Node::to_json).collect()),
            Val::Object(entries) => Value::Object(
                entries
                    .iter()
                    .map(|e| (e.key.clone(), e.value.to_json()))
                    .collect::<Map<_, _>>(),
            ),
        }
    }

    /// The node a JSON Pointer (`/properties/a/type`) names, or the deepest one on the way.
    pub(crate) fn locate(&self, pointer: &str) -> Pos {
        let mut node = self;
        let mut pos = self.pos;
        for raw in pointer.split('/').skip(1) {
            let segment = raw.replace("~1", "/").replace("~0", "~");
            let next = match &node.value {
                Val::Object(entries) => entries.iter().find(|e| e.key == segment).map(|e| {
                    pos = e.key_pos;
                    &e.value
                }),
                Val::Array(items) => segment.parse::<usize>().ok().and_then(|i| items.get(i)),
                _ => None,
            };
            match next {
                Some(n) => {
                    if !matches!(node.value, Val::Object(_)) {
                        pos = n.pos;
                    }
                    node = n;
                }
                None => break,
            }
        }
        pos
    }

    /// A short name of the value's kind, for messages.
    pub(crate) fn kind(&self) -> &'static str {
        match self.value {
            Val::Null => "null",
            Val::Bool(_) => "a boolean",
            Val::Number(_) => "a number",
            Val::Str(_) => "a string",
            Val::Array(_) => "an array",
            Val::Object(_) => "an object",
        }
    }
}

/// A syntax problem: where and what.
#[derive(Debug, Clone)]
pub(crate) struct SyntaxError {
    pub(crate) pos: Pos,
    pub(crate) message: String,
}

/// Byte offsets of line starts, to turn byte offsets into lines and columns.
pub(crate) struct LineIndex<'a> {
    text: &'a str,
    starts: Vec<usize>,
}

impl<'a> LineIndex<'a> {
    pub(crate) fn new(text: &'a str) -> Self {
        let starts = std::iter::once(0)
            .chain(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1))
            .collect();
        Self { text, starts }
    }

    /// The position of byte `offset`.
    pub(crate) fn pos(&self, offset: usize) -> Pos {
        let line = self.starts.partition_point(|&s| s <= offset).max(1);
        let start = self.starts[line - 1];
        let column = self
            .text
            .get(start..offset.min(self.text.len()))
            .map_or(1, |s| s.chars().count() + 1);
        Pos { line, column }
    }
}

/// Parses JSON (comments and trailing commas allowed).
pub(crate) fn parse_json(text: &str) -> Result<Node, Vec<SyntaxError>> {
    use jsonc_parser::{CollectOptions, CommentCollectionStrategy, ParseOptions};
    let lines = LineIndex::new(text);
    let options = ParseOptions {
        allow_comments: true,
        allow_trailing_commas: true,
        allow_loose_object_property_names: false,
        allow_missing_commas: false,
        allow_single_quoted_strings: false,
        allow_hexadecimal_numbers: false,
        allow_unary_plus_numbers: false,
        allow_bare_decimal_point_numbers: false,
        allow_non_finite_numbers: false,
        allow_extended_string_escapes: false,
    };
    let collect = CollectOptions {
        comments: CommentCollectionStrategy::Off,
        tokens: false,
    };
    let parsed = jsonc_parser::parse_to_ast(text, &collect, &options).map_err(|e| {
        vec![SyntaxError {
            pos: Pos {
                line: e.line_display(),
                column: e.column_display(),
            },
            message: format!("invalid JSON: {}", e.kind()),
        }]
    })?;
    let Some(value) = parsed.value else {
        return Err(vec![SyntaxError {
            pos: Pos::START,
            message: "the file is empty".into(),
        }]);
    };
    let mut errors = Vec::new();
    let node = json_node(&value, &lines, &mut errors);
    if errors.is_empty() {
        Ok(node)
    } else {
        Err(errors)
    }
}

fn json_node(
    value: &jsonc_parser::ast::Value<'_>,
    lines: &LineIndex<'_>,
    errors: &mut Vec<SyntaxError>,
) -> Node {
    use jsonc_parser::ast::{ObjectPropName, Value as J};
    let at = |start: usize| lines.pos(start);
    match value {
        J::NullKeyword(n) => Node {
            pos: at(n.range.start),
            value: Val::Null,
        },
        J::BooleanLit(b) => Node {
            pos: at(b.range.start),
            value: Val::Bool(b.value),
        },
        J::NumberLit(n) => {
            let pos = at(n.range.start);
            let value = match serde_json::from_str::<Number>(n.value) {
                Ok(number) => Val::Number(number),
                Err(_) => {
                    errors.push(SyntaxError {
                        pos,
                        message: format!("invalid JSON number `{}`", n.value),
                    });
                    Val::Null
                }
            };
            Node { pos, value }
        }
        J::StringLit(s) => Node {
            pos: at(s.range.start),
            value: Val::Str(Str {
                text: s.value.to_string(),
                first_line: None,
                indent: 0,
            }),
        },
        J::Array(a) => Node {
            pos: at(a.range.start),
            value: Val::Array(
                a.elements
                    .iter()
                    .map(|e| json_node(e, lines, errors))
                    .collect(),
            ),
        },
        J::Object(o) => {
            let mut entries: Vec<Entry> = Vec::with_capacity(o.properties.len());
            for prop in &o.properties {
                let (key, start) = match &prop.name {
                    ObjectPropName::String(s) => (s.value.to_string(), s.range.start),
                    ObjectPropName::Word(w) => (w.value.to_owned(), w.range.start),
                };
                let key_pos = at(start);
                if entries.iter().any(|e| e.key == key) {
                    errors.push(SyntaxError {
                        pos: key_pos,
                        message: format!("the key `{key}` appears twice in this object"),
                    });
                    continue;
                }
                entries.push(Entry {
                    key,
                    key_pos,
                    value: json_node(&prop.value, lines, errors),
                });
            }
            Node {
                pos: at(o.range.start),
                value: Val::Object(entries),
            }
        }
    }
}

/// Parses one YAML document. `line_offset` is added to every line (front matter starts
/// after the `---` fence).
pub(crate) fn parse_yaml(text: &str, line_offset: usize) -> Result<Node, Vec<SyntaxError>> {
    use saphyr::{LoadableYamlNode, MarkedYaml};
    let shift = |m: &saphyr::Marker| Pos {
        line: m.line() + line_offset,
        column: m.col() + 1,
    };
    let docs = MarkedYaml::load_from_str(text).map_err(|e| {
        vec![SyntaxError {
            pos: shift(e.marker()),
            message: format!("invalid YAML: {}", e.info()),
        }]
    })?;
    let mut docs = docs.into_iter();
    let Some(doc) = docs.next() else {
        return Err(vec![SyntaxError {
            pos: Pos {
                line: 1 + line_offset,
                column: 1,
            },
            message: "the YAML is empty".into(),
        }]);
    };
    if let Some(second) = docs.next() {
        return Err(vec![SyntaxError {
            pos: shift(&second.span.start),
            message: "a prompt file holds one YAML document; this is a second one".into(),
        }]);
    }
    let chars: Vec<char> = text.chars().collect();
    let mut errors = Vec::new();
    let node = yaml_node(&doc, &chars, line_offset, &mut errors);
    if errors.is_empty() {
        Ok(node)
    } else {
        Err(errors)
    }
}

fn yaml_node(
    node: &saphyr::MarkedYaml<'_>,
    chars: &[char],
    line_offset: usize,
    errors: &mut Vec<SyntaxError>,
) -> Node {
    use saphyr::{Scalar, YamlData};
    let start = &node.span.start;
    let pos = Pos {
        line: start.line() + line_offset,
        column: start.col() + 1,
    };
    let value = match &node.data {
        YamlData::Value(scalar) => match scalar {
            Scalar::Null => Val::Null,
            Scalar::Boolean(b) => Val::Bool(*b),
            Scalar::Integer(i) => Val::Number((*i).into()),
            Scalar::FloatingPoint(f) => match Number::from_f64(f.into_inner()) {
                Some(n) => Val::Number(n),
                None => {
                    errors.push(SyntaxError {
                        pos,
                        message: "infinite and NaN numbers have no JSON form".into(),
                    });
                    Val::Null
                }
            },
            Scalar::String(s) => {
                // A literal block (`|`) keeps every line as written, less its indentation;
                // its span starts at its content, on the line after the indicator.
                let literal = is_literal_block(chars, start.index());
                Val::Str(Str {
                    text: s.to_string(),
                    first_line: literal.then_some(pos.line),
                    indent: if literal { start.col() } else { 0 },
                })
            }
        },
        YamlData::Representation(text, _, _) => Val::Str(Str {
            text: text.to_string(),
            first_line: None,
            indent: 0,
        }),
        YamlData::Sequence(items) => Val::Array(
            items
                .iter()
                .map(|i| yaml_node(i, chars, line_offset, errors))
                .collect(),
        ),
        YamlData::Mapping(map) => {
            let mut entries = Vec::with_capacity(map.len());
            for (k, v) in map {
                let key = yaml_node(k, chars, line_offset, errors);
                let name: Cow<'_, str> = match &key.value {
                    Val::Str(s) => Cow::Owned(s.text.clone()),
                    Val::Number(n) => Cow::Owned(n.to_string()),
                    Val::Bool(b) => Cow::Owned(b.to_string()),
                    Val::Null => Cow::Borrowed("null"),
                    _ => {
                        errors.push(SyntaxError {
                            pos: key.pos,
                            message: "a key must be a string, not a collection".into(),
                        });
                        continue;
                    }
                };
                entries.push(Entry {
                    key: name.into_owned(),
                    key_pos: key.pos,
                    value: yaml_node(v, chars, line_offset, errors),
                });
            }
            Val::Object(entries)
        }
        YamlData::Tagged(_, inner) => return yaml_node(inner, chars, line_offset, errors),
        YamlData::Alias(_) => {
            errors.push(SyntaxError {
                pos,
                message: "YAML aliases (`*name`) are not supported in prompt files".into(),
            });
            Val::Null
        }
        YamlData::BadValue => {
            errors.push(SyntaxError {
                pos,
                message: "this value does not match its tag".into(),
            });
            Val::Null
        }
    };
    Node { pos, value }
}

/// Whether the scalar whose content starts at char `start` is a literal block: the line
/// before its first line ends with a `|` indicator (`|`, `|-`, `|+`, `|2`).
fn is_literal_block(chars: &[char], start: usize) -> bool {
    let start = start.min(chars.len());
    let Some(line_start) = chars[..start].iter().rposition(|c| *c == '\n') else {
        return false;
    };
    let previous_start = chars[..line_start]
        .iter()
        .rposition(|c| *c == '\n')
        .map_or(0, |i| i + 1);
    let previous: String = chars[previous_start..line_start].iter().collect();
    let code = previous.split(" #").next().unwrap_or_default();
    code.split_whitespace()
        .next_back()
        .is_some_and(|t| t.starts_with('|'))
}

/// A Markdown file split at its front matter.
pub(crate) struct Markdown<'a> {
    /// The YAML between the fences, and the file line it starts on minus one.
    pub(crate) front_matter: Option<(&'a str, usize)>,
    /// The body, trimmed, and the file line of its first line.
    pub(crate) body: Str,
}

/// Splits `text` into front matter (between a first line `---` and the next `---` or `...`
/// line) and body. Without a first `---` line, it is all body.
pub(crate) fn split_markdown(text: &str) -> Result<Markdown<'_>, SyntaxError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.split_inclusive('\n');
    let first = lines.next().unwrap_or("");
    if first.trim_end() != "---" {
        return Ok(Markdown {
            front_matter: None,
            body: body(text, 1),
        });
    }
    let fm_start = first.len();
    let mut offset = fm_start;
    for (i, line) in lines.enumerate() {
        if matches!(line.trim_end(), "---" | "...") {
            let front = &text[fm_start..offset];
            let rest = &text[offset + line.len()..];
            // Front matter starts on line 2; the closing fence is on line i + 2.
            return Ok(Markdown {
                front_matter: Some((front, 1)),
                body: body(rest, i + 3),
            });
        }
        offset += line.len();
    }
    Err(SyntaxError {
        pos: Pos::START,
        message: "the front matter opened by `---` on line 1 is never closed by a `---` line"
            .into(),
    })
}

/// The body without its leading blank lines and trailing white space.
fn body(text: &str, first_line: usize) -> Str {
    let mut first_line = first_line;
    let mut rest = text;
    while let Some(line_end) = rest.find('\n') {
        if rest[..line_end].trim().is_empty() {
            rest = &rest[line_end + 1..];
            first_line += 1;
        } else {
            break;
        }
    }
    Str {
        text: rest.trim_end().to_owned(),
        first_line: Some(first_line),
        indent: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_positions_and_comments() {
        let text = "{\n  // a comment\n  \"a\": [1, \"x\"],\n  \"b\": {\"c\": true,},\n}\n";
        let node = parse_json(text).unwrap();
        let a = node.get("a").unwrap();
        assert_eq!(a.key_pos, Pos { line: 3, column: 3 });
        assert_eq!(node.locate("/b/c"), Pos { line: 4, column: 9 });
        assert_eq!(
            node.locate("/a/1"),
            Pos {
                line: 3,
                column: 12
            }
        );
        assert_eq!(
            node.to_json(),
            serde_json::json!({"a": [1, "x"], "b": {"c": true}})
        );
    }

    #[test]
    fn json_errors_have_positions() {
        // Where the comma was expected.
        let errors = parse_json("{\n  \"a\": 1\n  \"b\": 2\n}").unwrap_err();
        assert_eq!(errors[0].pos, Pos { line: 2, column: 9 }, "{errors:?}");
        let errors = parse_json("{\"a\": 1, \"a\": 2}").unwrap_err();
        assert!(errors[0].message.contains("twice"), "{errors:?}");
    }

    #[test]
    fn yaml_positions_and_literal_blocks() {
        let text = "name: x\ntext: |\n  line one\n  line two\nn: 3\nf: 1.5\n";
        let node = parse_yaml(text, 0).unwrap();
        let t = node.get("text").unwrap();
        assert_eq!(t.key_pos, Pos { line: 2, column: 1 });
        let Val::Str(s) = &t.value.value else {
            panic!()
        };
        assert_eq!((s.first_line, s.indent), (Some(3), 2));
        let plain = parse_yaml("text:\n  not a block\nother: >\n  folded\n", 0).unwrap();
        for key in ["text", "other"] {
            let Val::Str(s) = &plain.get(key).unwrap().value.value else {
                panic!()
            };
            assert_eq!(s.first_line, None, "{key}");
        }
        assert_eq!(s.text, "line one\nline two\n");
        assert_eq!(node.get("n").unwrap().value.to_json(), serde_json::json!(3));
        assert_eq!(node.locate("/f"), Pos { line: 6, column: 1 });
        let shifted = parse_yaml("a: 1\n", 4).unwrap();
        assert_eq!(shifted.get("a").unwrap().key_pos.line, 5);
    }

    #[test]
    fn yaml_errors_have_positions() {
        let errors = parse_yaml("a: 1\nb: [1, 2\nc: 3\n", 0).unwrap_err();
        assert!(errors[0].pos.line >= 2, "{errors:?}");
        assert!(errors[0].message.starts_with("invalid YAML"), "{errors:?}");
    }

    #[test]
    fn markdown_front_matter_and_body_lines() {
        let md = split_markdown("---\nname: x\n---\n\nHello {{ who }}\n\n").unwrap();
        assert_eq!(md.front_matter.unwrap().0, "name: x\n");
        assert_eq!(md.body.text, "Hello {{ who }}");
        assert_eq!(md.body.first_line, Some(5));
        let plain = split_markdown("Just text\n").unwrap();
        assert!(plain.front_matter.is_none());
        assert_eq!(plain.body.first_line, Some(1));
        assert!(split_markdown("---\nname: x\n").is_err());
    }
}
