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
        let Val::Str(text) = &node.value else {
            problems.push(LoadProblem::at(
                self.file,
                node.pos,
                format!("a template must be a string, not {}", node.kind()),
            ));
            return None;
        };
        let name = format!("{label}@{}:{}", node.pos.line, node.pos.column);
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

/// The environment every prompt's templates compile in.
pub(crate) fn environment() -> Environment<'static> {
    let mut env = Environment::new();
    // An undefined variable is an error, never an empty string: a typo must not silently
    // drop part of a prompt.
    env.set_undefined_behavior(UndefinedBehavior::Strict);
    // Prompts are text for a model, not HTML.
    env.set_auto_escape_callback(|_| AutoEscape::None);
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
