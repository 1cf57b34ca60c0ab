//! Compiling a prompt's templates: every text and URI of a file goes into one minijinja
//! environment per prompt, strict about undefined values, without auto-escaping, with
//! `trim_blocks` and `lstrip_blocks`. A syntax error and a variable the schema does not
//! declare (minijinja's undeclared-variable analysis, globals such as `range` left out) are
//! load problems placed at their line and column in the file.

use super::checked::Compiled;
use super::error::LoadProblem;
use super::source::{Node, Pos, Str, Val};
use minijinja::{AutoEscape, Environment, UndefinedBehavior};
use std::collections::{BTreeSet, HashSet};
use std::path::Path;

/// Compiles a prompt's templates into its environment: strict about undefined values, no
/// auto-escaping, every variable a declared argument.
pub(crate) struct Compiler<'a> {
    file: &'a Path,
    pub(crate) env: Environment<'static>,
    /// The declared arguments; `None` when the schema is unusable (variables unchecked).
    declared: Option<BTreeSet<String>>,
    globals: HashSet<String>,
}

impl<'a> Compiler<'a> {
    pub(crate) fn new(file: &'a Path, declared: Option<BTreeSet<String>>) -> Self {
        let env = environment();
        let globals = env.globals().map(|(k, _)| k.to_owned()).collect();
        Self {
            file,
            env,
            declared,
            globals,
        }
    }

    /// Compiles the string `node` as a template named after `label`.
    pub(crate) fn compile(
        &mut self,
        problems: &mut Vec<LoadProblem>,
        node: &Node,
        label: &str,
    ) -> Option<Compiled> {
        self.compile_as(problems, node, label, "")
    }

    /// Compiles the string `node` as the template of a URI: the values it places into the
    /// URI are percent-encoded (every byte but RFC 3986's unreserved characters), so an
    /// argument cannot add path segments, a query or another scheme. A template that is one
    /// value and nothing else (`{{ fileUri }}`) takes the value as the whole URI, unencoded.
    pub(crate) fn compile_uri(
        &mut self,
        problems: &mut Vec<LoadProblem>,
        node: &Node,
        label: &str,
    ) -> Option<Compiled> {
        let whole = matches!(&node.value, Val::Str(text) if is_one_value(&text.text));
        self.compile_as(problems, node, label, if whole { "" } else { URI_SUFFIX })
    }

    fn compile_as(
        &mut self,
        problems: &mut Vec<LoadProblem>,
        node: &Node,
        label: &str,
        suffix: &str,
    ) -> Option<Compiled> {
        let Val::Str(text) = &node.value else {
            problems.push(LoadProblem::at(
                self.file,
                node.pos,
                format!("a template must be a string, not {}", node.kind()),
            ));
            return None;
        };
        let name = format!("{label}@{}:{}{suffix}", node.pos.line, node.pos.column);
        if let Err(e) = self.env.add_template_owned(name.clone(), text.text.clone()) {
            let line = e.line().unwrap_or(1);
            let offset = e.range().map(|r| r.start);
            let (pos, note) = position_in(node.pos, text, line, offset);
            let detail = e
                .detail()
                .map_or_else(|| e.kind().to_string(), str::to_owned);
            problems.push(LoadProblem::at(
                self.file,
                pos,
                format!("template syntax error: {detail}{note}"),
            ));
            return None;
        }
        let template = self.env.get_template(&name).ok()?;
        let mut found: Vec<String> = template
            .undeclared_variables(false)
            .into_iter()
            .filter(|v| !self.globals.contains(v))
            .collect();
        found.sort();
        let mut uses = Vec::new();
        for variable in found {
            match &self.declared {
                Some(declared) if !declared.contains(&variable) => {
                    let (pos, note) = match find_variable(&text.text, &variable) {
                        Some(offset) => {
                            let line = text.text[..offset].matches('\n').count() + 1;
                            position_in(node.pos, text, line, Some(offset))
                        }
                        None => (node.pos, String::new()),
                    };
                    problems.push(LoadProblem::at(
                        self.file,
                        pos,
                        format!(
                            "the template uses `{variable}`, which is not an argument{note}; declare it in {}",
                            if declared.is_empty() {
                                "the prompt's arguments (it declares none)".to_owned()
                            } else {
                                format!(
                                    "the prompt's arguments (it declares {})",
                                    declared
                                        .iter()
                                        .map(|d| format!("`{d}`"))
                                        .collect::<Vec<_>>()
                                        .join(", ")
                                )
                            }
                        ),
                    ));
                }
                _ => uses.push(variable),
            }
        }
        Some(Compiled {
            name,
            uses,
            at: format!(
                "{}:{}:{}",
                self.file.display(),
                node.pos.line,
                node.pos.column
            ),
        })
    }
}

/// What the names of URI templates end with: their values are percent-encoded.
const URI_SUFFIX: &str = "#uri";

/// The work one render may do, in minijinja's fuel (about one unit per instruction): far
/// more than any prompt needs, far less than a loop that would hold a thread for long.
pub(crate) const RENDER_FUEL: u64 = 1_000_000;

/// Whether a template is one `{{ name }}` and nothing else.
fn is_one_value(text: &str) -> bool {
    text.trim()
        .strip_prefix("{{")
        .and_then(|rest| rest.strip_suffix("}}"))
        .map(str::trim)
        .is_some_and(|name| {
            name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        })
}

/// Percent-encodes `text` but for RFC 3986's unreserved characters. Hand-written: eight
/// lines, where the `percent-encoding` crate would be one more dependency of every server
/// with prompt files for one call.
fn percent_encode(text: &str, out: &mut String) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(b));
        } else {
            out.extend([
                '%',
                char::from(HEX[usize::from(b >> 4)]),
                char::from(HEX[usize::from(b & 15)]),
            ]);
        }
    }
}

/// The environment every prompt's templates compile in.
pub(crate) fn environment() -> Environment<'static> {
    let mut env = Environment::new();
    // An undefined variable is an error, never an empty string: a typo must not silently
    // drop part of a prompt.
    env.set_undefined_behavior(UndefinedBehavior::Strict);
    // Prompts are text for a model, not HTML; what goes into a URI is percent-encoded.
    env.set_auto_escape_callback(|name| {
        if name.ends_with(URI_SUFFIX) {
            AutoEscape::Custom("uri".into())
        } else {
            AutoEscape::None
        }
    });
    env.set_formatter(|out, state, value| {
        if matches!(state.auto_escape(), AutoEscape::Custom(kind) if kind == "uri")
            && !value.is_safe()
        {
            let mut encoded = String::new();
            percent_encode(&value.to_string(), &mut encoded);
            out.write_str(&encoded).map_err(|e| {
                minijinja::Error::new(minijinja::ErrorKind::WriteFailure, e.to_string())
            })
        } else {
            minijinja::escape_formatter(out, state, value)
        }
    });
    // A render stops when its fuel runs out (a loop over a huge range).
    env.set_fuel(Some(RENDER_FUEL));
    // A `{% … %}` line leaves no blank line or indentation behind (Ansible's choice too):
    // prompts are read as text, where stray blank lines show.
    let syntax = minijinja::syntax::SyntaxConfig::builder()
        .trim_blocks(true)
        .lstrip_blocks(true)
        .build();
    if let Ok(syntax) = syntax {
        env.set_syntax(syntax);
    }
    env
}

/// Where line `line` (1-based), at byte `offset`, of the template `text` is in the file,
/// and a note for messages when that can only be told relative to the string's start.
fn position_in(start: Pos, text: &Str, line: usize, offset: Option<usize>) -> (Pos, String) {
    let column_in_line = offset.map(|o| {
        let o = o.min(text.text.len());
        let line_start = text.text[..o].rfind('\n').map_or(0, |i| i + 1);
        text.text[line_start..o].chars().count() + 1
    });
    match text.first_line {
        Some(first) => (
            Pos {
                line: first + line - 1,
                column: column_in_line.map_or(1, |c| c + text.indent),
            },
            String::new(),
        ),
        None if line <= 1 => (start, String::new()),
        None => (start, format!(" (line {line} of the string)")),
    }
}

/// The byte offset of the first use of `variable` inside a `{{ }}` or `{% %}` block.
fn find_variable(text: &str, variable: &str) -> Option<usize> {
    let is_ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut rest = 0;
    while let Some(open) = text[rest..].find(['{']).map(|i| i + rest) {
        let close = match text.get(open + 1..open + 2) {
            Some("{") => "}}",
            Some("%") => "%}",
            _ => {
                rest = open + 1;
                continue;
            }
        };
        let body_start = open + 2;
        let body_end = text[body_start..]
            .find(close)
            .map_or(text.len(), |i| i + body_start);
        let body = &text[body_start..body_end];
        let mut from = 0;
        while let Some(i) = body[from..].find(variable).map(|i| i + from) {
            let before = body[..i].chars().next_back();
            let after = body[i + variable.len()..].chars().next();
            if !before.is_some_and(|c| is_ident(c) || c == '.') && !after.is_some_and(is_ident) {
                return Some(body_start + i);
            }
            from = i + variable.len();
        }
        rest = body_end;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_variables_in_blocks_only() {
        let text = "name is {{ name }} and {% if surname %}x{% endif %}";
        assert_eq!(find_variable(text, "name"), Some(11));
        assert_eq!(find_variable(text, "surname"), Some(29));
        assert_eq!(find_variable("{{ x.name }}", "name"), None);
        assert_eq!(find_variable("{{ names }}", "name"), None);
    }
}
