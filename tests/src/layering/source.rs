//! Reading Rust source as far as module paths need: tokens without comments and literals
//! (plain strings kept), and one walk over a file that follows inline modules, skips test
//! code and reports `use` trees, paths and string literals.

use super::ModPath;

/// A token of Rust source, as much as paths need.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Tok {
    Ident(String),
    /// A plain string literal's text, escapes as written (raw and byte strings are dropped).
    Str(String),
    /// `::`
    Sep,
    Punct(char),
}

/// The tokens of `text`: comments, raw strings and other literals dropped, plain strings
/// kept as [`Tok::Str`].
pub(super) fn tokens(text: &str) -> Vec<Tok> {
    let c: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let quoted = |mut i: usize, hashes: usize| -> usize {
        // `i` is just past the opening quote; returns the index past the closing one.
        while i < c.len() {
            if c[i] == '\\' && hashes == 0 {
                i += 2;
                continue;
            }
            if c[i] == '"' && (0..hashes).all(|k| c.get(i + 1 + k) == Some(&'#')) {
                return i + 1 + hashes;
            }
            i += 1;
        }
        i
    };
    while i < c.len() {
        let ch = c[i];
        if ch.is_whitespace() {
            i += 1;
        } else if ch == '/' && c.get(i + 1) == Some(&'/') {
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
        } else if ch == '/' && c.get(i + 1) == Some(&'*') {
            let mut depth = 0;
            while i < c.len() {
                if c[i] == '/' && c.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if c[i] == '*' && c.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if ch == '"' {
            let end = quoted(i + 1, 0);
            out.push(Tok::Str(
                c[i + 1..end.saturating_sub(1).max(i + 1)].iter().collect(),
            ));
            i = end;
        } else if ch == '\'' {
            if c.get(i + 1) == Some(&'\\') {
                i += 2;
                while i < c.len() && c[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if c.get(i + 2) == Some(&'\'') {
                i += 3;
            } else {
                i += 1; // a lifetime: its name follows as an identifier
            }
        } else if ch.is_alphabetic() || ch == '_' {
            let start = i;
            while i < c.len() && (c[i].is_alphanumeric() || c[i] == '_') {
                i += 1;
            }
            let word: String = c[start..i].iter().collect();
            // Raw and byte strings: r"…", r#"…"#, b"…", br#"…"#.
            if matches!(word.as_str(), "r" | "br" | "b" | "c" | "cr") {
                let hashes = c[i..].iter().take_while(|h| **h == '#').count();
                if c.get(i + hashes) == Some(&'"') && (hashes == 0 || word.ends_with('r')) {
                    i = quoted(i + hashes + 1, if word.ends_with('r') { hashes } else { 0 });
                    continue;
                }
            }
            out.push(Tok::Ident(word));
        } else if ch.is_ascii_digit() {
            while i < c.len() && (c[i].is_alphanumeric() || c[i] == '_') {
                i += 1;
            }
        } else if ch == ':' && c.get(i + 1) == Some(&':') {
            out.push(Tok::Sep);
            i += 2;
        } else {
            out.push(Tok::Punct(ch));
            i += 1;
        }
    }
    out
}

/// What a walk over one file's tokens finds.
pub(super) enum Event {
    /// An inline module (`mod name { … }`), outside test code.
    Inline(ModPath),
    /// A module that exists only for tests (`#[cfg(test)] mod name;` or `{ … }`).
    TestModule(ModPath),
    /// A `use` leaf, written in module `.0`: its path as written and the name it binds
    /// (none for a glob).
    Use(ModPath, Vec<String>, Option<String>),
    /// A path outside a `use` that starts with `crate`, `self`, `super` or the crate's name.
    Path(ModPath, Vec<String>),
    /// A plain string literal outside test code.
    Str(String),
}

/// One pass over a file's tokens, keeping track of inline modules and test code.
pub(super) struct Walk<'a> {
    file: ModPath,
    crate_name: &'a str,
}

impl<'a> Walk<'a> {
    pub(super) fn new(file: ModPath, crate_name: &'a str) -> Self {
        Walk { file, crate_name }
    }

    pub(super) fn run(&mut self, t: &[Tok], emit: &mut dyn FnMut(Event)) {
        let ident = |i: usize, word: &str| matches!(t.get(i), Some(Tok::Ident(w)) if w == word);
        let punct = |i: usize, p: char| t.get(i) == Some(&Tok::Punct(p));
        // Inline modules open: (name, brace depth inside them).
        let mut inline: Vec<(String, usize)> = Vec::new();
        let mut depth = 0usize;
        let mut i = 0;
        let here = |inline: &Vec<(String, usize)>| {
            let mut m = self.file.clone();
            m.extend(inline.iter().map(|(n, _)| n.clone()));
            m
        };
        while i < t.len() {
            // `#[cfg(test)]` or `#[cfg(all(test, …))]`: the item it marks is skipped whole.
            if let Some(end) = test_only(t, i) {
                i = end;
                // Other attributes and the visibility before the item.
                while punct(i, '#') {
                    i = skip_group(t, i + 1);
                }
                let mut j = i;
                while matches!(t.get(j), Some(Tok::Ident(w)) if w == "pub") {
                    j += 1;
                    if punct(j, '(') {
                        j = skip_group(t, j);
                    }
                }
                if ident(j, "mod")
                    && let Some(Tok::Ident(name)) = t.get(j + 1)
                {
                    let mut m = here(&inline);
                    m.push(name.clone());
                    emit(Event::TestModule(m));
                }
                // To the end of the item: a `;` or a balanced `{ … }`, whichever comes first.
                while i < t.len() && !punct(i, ';') && !punct(i, '{') {
                    i += 1;
                }
                i = if punct(i, '{') {
                    skip_group(t, i)
                } else {
                    i + 1
                };
                continue;
            }
            match &t[i] {
                Tok::Ident(w) if w == "mod" => {
                    if let (Some(Tok::Ident(name)), true) = (t.get(i + 1), punct(i + 2, '{')) {
                        let mut m = here(&inline);
                        m.push(name.clone());
                        emit(Event::Inline(m));
                        depth += 1;
                        inline.push((name.clone(), depth));
                        i += 3;
                        continue;
                    }
                    i += 1;
                }
                Tok::Ident(w)
                    if w == "use" && !matches!(t.get(i.wrapping_sub(1)), Some(Tok::Sep)) =>
                {
                    let at = here(&inline);
                    let mut leaves = Vec::new();
                    let end = use_tree(t, i + 1, Vec::new(), &mut leaves);
                    for (path, alias) in leaves {
                        emit(Event::Use(at.clone(), path, alias));
                    }
                    i = end;
                }
                Tok::Ident(w)
                    if (w == "crate" || w == "self" || w == "super" || w == self.crate_name)
                        && t.get(i + 1) == Some(&Tok::Sep)
                        && !matches!(t.get(i.wrapping_sub(1)), Some(Tok::Sep)) =>
                {
                    let at = here(&inline);
                    let mut leaves = Vec::new();
                    let end = use_tree(t, i, Vec::new(), &mut leaves);
                    for (path, _) in leaves {
                        emit(Event::Path(at.clone(), path));
                    }
                    i = end.max(i + 1);
                }
                Tok::Str(text) => {
                    emit(Event::Str(text.clone()));
                    i += 1;
                }
                Tok::Punct('{') => {
                    depth += 1;
                    i += 1;
                }
                Tok::Punct('}') => {
                    if inline.last().is_some_and(|(_, d)| *d == depth) {
                        inline.pop();
                    }
                    depth = depth.saturating_sub(1);
                    i += 1;
                }
                _ => i += 1,
            }
        }
    }
}

/// Past the attribute at `t[i]` if it is `#[cfg(test)]` or `#[cfg(all(…, test, …))]`.
fn test_only(t: &[Tok], i: usize) -> Option<usize> {
    let is = |i: usize, tok: Tok| t.get(i) == Some(&tok);
    let word = |w: &str| Tok::Ident(w.to_owned());
    if !(is(i, Tok::Punct('#'))
        && is(i + 1, Tok::Punct('['))
        && is(i + 2, word("cfg"))
        && is(i + 3, Tok::Punct('(')))
    {
        return None;
    }
    let end = skip_group(t, i + 1);
    let test = if is(i + 4, word("test")) {
        is(i + 5, Tok::Punct(')'))
    } else if is(i + 4, word("all")) && is(i + 5, Tok::Punct('(')) {
        let close = skip_group(t, i + 5);
        let mut j = i + 6;
        let mut found = false;
        while j < close {
            if is(j, word("test")) && !is(j + 1, Tok::Punct('(')) {
                found = true;
            }
            j = if is(j + 1, Tok::Punct('(')) {
                skip_group(t, j + 1)
            } else {
                j + 1
            };
        }
        found
    } else {
        false
    };
    test.then_some(end)
}

/// Past the balanced group that opens at `t[i]` (`[`, `(` or `{`), or past one token.
fn skip_group(t: &[Tok], i: usize) -> usize {
    let (open, close) = match t.get(i) {
        Some(Tok::Punct('[')) => ('[', ']'),
        Some(Tok::Punct('(')) => ('(', ')'),
        Some(Tok::Punct('{')) => ('{', '}'),
        _ => return i + 1,
    };
    let mut depth = 0;
    let mut j = i;
    while j < t.len() {
        if t[j] == Tok::Punct(open) {
            depth += 1;
        } else if t[j] == Tok::Punct(close) {
            depth -= 1;
            if depth == 0 {
                return j + 1;
            }
        }
        j += 1;
    }
    j
}

/// Reads a use tree (or a plain path) from `t[i]`, appending its leaves (full path as
/// written, bound name) to `leaves`; returns the index past it.
fn use_tree(
    t: &[Tok],
    mut i: usize,
    mut prefix: Vec<String>,
    leaves: &mut Vec<(Vec<String>, Option<String>)>,
) -> usize {
    if t.get(i) == Some(&Tok::Sep) {
        i += 1; // `::std::…`
    }
    loop {
        match t.get(i) {
            Some(Tok::Ident(w)) => {
                prefix.push(w.clone());
                i += 1;
                if t.get(i) == Some(&Tok::Sep) {
                    i += 1;
                    continue;
                }
                // The leaf: `self` in a group binds the prefix's last name.
                let mut name = if w == "self" {
                    prefix.pop();
                    prefix.last().cloned()
                } else {
                    Some(w.clone())
                };
                if matches!(t.get(i), Some(Tok::Ident(a)) if a == "as") {
                    if let Some(Tok::Ident(alias)) = t.get(i + 1) {
                        name = (alias != "_").then(|| alias.clone());
                    }
                    i += 2;
                }
                leaves.push((prefix, name));
                return i;
            }
            Some(Tok::Punct('{')) => {
                i += 1;
                loop {
                    match t.get(i) {
                        None => return i,
                        Some(Tok::Punct('}')) => return i + 1,
                        Some(Tok::Punct(',')) => i += 1,
                        Some(_) => {
                            let next = use_tree(t, i, prefix.clone(), leaves);
                            i = next.max(i + 1);
                        }
                    }
                }
            }
            Some(Tok::Punct('*')) => {
                leaves.push((prefix, None));
                return i + 1;
            }
            _ => {
                if !prefix.is_empty() {
                    leaves.push((prefix, None));
                }
                return i;
            }
        }
    }
}
