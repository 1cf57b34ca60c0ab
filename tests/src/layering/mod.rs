//! The module graph of a crate, read from its sources as text, and the rules the toolkit
//! keeps on it: no module reaches back up, at any depth; the runtime's top-level modules
//! use each other exactly as the table in its `lib.rs` allows, and the table grants nothing
//! unused.
//!
//! Read as text, the way cargo-deny reads manifests (no compiler internals, so it runs in a
//! blink and names the file that breaks a rule), but with paths resolved the way the
//! compiler resolves them:
//!
//! - `crate::`, `$crate::` and the crate's own name (`mcp_runtime::`) start at the root;
//!   `super::` (repeated) and `self::` start where the reference is, inline modules
//!   (`mod name { … }`) included;
//! - `use` trees with groups, nesting, `self` and `as`; a name a module imports (`pub use`
//!   or not) resolves to what it imports, so `crate::Server` is a reference to `server` and
//!   `super::Thing`, re-exported by the parent from a sibling, is a reference to that
//!   sibling;
//! - comments, string and character literals, and test code (`#[cfg(test)]` items, `mod
//!   tests;` files) are not read.
//!
//! An edge runs from the module a reference is written in to the module its path resolves
//! to. Between two modules of one folder (siblings, at any depth), the edge counts for the
//! folder's children that contain them: `transport::http::post::x` using
//! `transport::http::session::y` is `post → session` in `transport::http`. A module using
//! its own descendants, or an item of an ancestor's own file, is no edge between siblings.
//!
//! What this does not see: glob imports (`use a::*`) and bare paths that start with a child
//! module's name outside a `use` (`child::f()`): a child is below, never a sibling.

mod source;

use source::{Event, Tok, Walk, tokens};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::Path;

/// A module's path from the crate root (`["transport", "http"]`; the root is empty).
type ModPath = Vec<String>;

/// The modules of one crate and the references between them.
#[derive(Debug, Default)]
pub struct Graph {
    /// Every module: files and inline `mod name { … }`, test modules left out.
    modules: BTreeSet<ModPath>,
    /// What each module imports: name → absolute path (inside the crate only).
    imports: BTreeMap<ModPath, BTreeMap<String, ModPath>>,
    /// (from module, absolute path) for every reference, with the file it is in.
    references: Vec<(ModPath, ModPath, String)>,
}

/// One edge between siblings: in `folder`, child `from` uses child `to`, in these files.
type Edges = BTreeMap<ModPath, BTreeMap<String, BTreeMap<String, BTreeSet<String>>>>;

impl Graph {
    /// Reads every `.rs` file under `src` (a crate's source folder; its root is `lib.rs`,
    /// and `main.rs` and `bin/` are other crates, left out when `lib.rs` exists).
    pub fn read(src: &Path, crate_name: &str) -> Graph {
        let mut files = Vec::new();
        collect(src, src, &mut files);
        let has_lib = files.iter().any(|(path, _)| path == "lib.rs");
        files.retain(|(path, _)| !(has_lib && (path == "main.rs" || path.starts_with("bin/"))));
        Graph::from_files(crate_name, &files)
    }

    /// The graph of a crate given as (path relative to its source folder, text) pairs.
    pub fn from_files(crate_name: &str, files: &[(String, String)]) -> Graph {
        let mut graph = Graph::default();
        let parsed: Vec<(ModPath, &str, Vec<Tok>)> = files
            .iter()
            .map(|(path, text)| (file_module(path), path.as_str(), tokens(text)))
            .collect();
        for (module, _, _) in &parsed {
            graph.modules.insert(module.clone());
        }
        // Inline modules and test modules first: imports and references need them.
        let mut tests = BTreeSet::new();
        for (module, _, toks) in &parsed {
            let mut walk = Walk::new(module.clone(), crate_name);
            walk.run(toks, &mut |event| match event {
                Event::Inline(path) => {
                    graph.modules.insert(path);
                }
                Event::TestModule(path) => {
                    tests.insert(path);
                }
                _ => {}
            });
        }
        graph
            .modules
            .retain(|m| !tests.iter().any(|t| m.starts_with(t)));
        for (module, path, toks) in &parsed {
            if tests.iter().any(|t| module.starts_with(t)) {
                continue;
            }
            let mut walk = Walk::new(module.clone(), crate_name);
            let modules = &graph.modules;
            let mut imports = Vec::new();
            let mut references = Vec::new();
            walk.run(toks, &mut |event| match event {
                Event::Use(at, raw, alias) => {
                    if let Some(absolute) = absolute(&at, &raw, crate_name, modules, true) {
                        if let Some(alias) = alias {
                            imports.push((at.clone(), alias, absolute.clone()));
                        }
                        references.push((at, absolute, path.to_string()));
                    }
                }
                Event::Path(at, raw) => {
                    if let Some(absolute) = absolute(&at, &raw, crate_name, modules, false) {
                        references.push((at, absolute, path.to_string()));
                    }
                }
                _ => {}
            });
            for (at, alias, absolute) in imports {
                graph.imports.entry(at).or_default().insert(alias, absolute);
            }
            graph.references.extend(references);
        }
        graph
    }

    /// The module `path` names: its longest prefix that is a module, followed through
    /// that module's imports.
    fn target(&self, path: &[String]) -> ModPath {
        let mut path = path.to_vec();
        // Bounded: a name imported in a circle (which rustc refuses anyway) ends at the root.
        for _ in 0..16 {
            let known = (0..=path.len())
                .rev()
                .find(|n| self.modules.contains(&path[..*n]))
                .unwrap_or(0);
            let module = path[..known].to_vec();
            let Some(next) = path
                .get(known)
                .and_then(|name| self.imports.get(&module)?.get(name))
            else {
                return module;
            };
            let mut followed = next.clone();
            followed.extend_from_slice(&path[known + 1..]);
            path = followed;
        }
        ModPath::new()
    }

    /// Every edge between siblings, by folder.
    fn edges(&self) -> Edges {
        let mut edges = Edges::new();
        for (from, path, file) in &self.references {
            let to = self.target(path);
            let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
            if common == from.len() || common == to.len() {
                continue; // one contains the other
            }
            edges
                .entry(from[..common].to_vec())
                .or_default()
                .entry(from[common].clone())
                .or_default()
                .entry(to[common].clone())
                .or_default()
                .insert(file.clone());
        }
        edges
    }

    /// The cycles among siblings, one line each, with the files that make every edge.
    pub fn cycles(&self) -> Vec<String> {
        let mut found = Vec::new();
        for (folder, edges) in self.edges() {
            for cycle in strongly_connected(&edges) {
                let mut line = format!("in {}: ", display(&folder));
                for from in &cycle {
                    for (to, files) in &edges[from] {
                        if cycle.contains(to) {
                            let files: Vec<&str> = files.iter().map(String::as_str).collect();
                            let _ = write!(line, "{from} → {to} ({}); ", files.join(", "));
                        }
                    }
                }
                found.push(line.trim_end_matches("; ").to_owned());
            }
        }
        found
    }

    /// The top-level modules each top-level module uses, as table rows (`| \`a\` | \`b\` |`):
    /// what a table that allows exactly the code's uses says.
    pub fn rows(&self) -> String {
        let edges = self.edges().remove(&ModPath::new()).unwrap_or_default();
        let mut rows = String::new();
        for (from, tos) in edges {
            let tos: Vec<String> = tos.keys().map(|t| format!("`{t}`")).collect();
            let _ = writeln!(rows, "| `{from}` | {} |", tos.join(" "));
        }
        rows
    }

    /// What breaks `table` (top-level module → the top-level modules it may use): a use it
    /// does not allow, a module it has no row for, a permission nothing uses.
    pub fn against(&self, table: &BTreeMap<String, BTreeSet<String>>) -> Vec<String> {
        let mut broken = Vec::new();
        let edges = self.edges().remove(&ModPath::new()).unwrap_or_default();
        for (from, tos) in &edges {
            let Some(may) = table.get(from) else {
                broken.push(format!("`{from}` is not in the table"));
                continue;
            };
            for (to, files) in tos {
                if !may.contains(to) {
                    let files: Vec<&str> = files.iter().map(String::as_str).collect();
                    broken.push(format!(
                        "`{from}` uses `{to}`, which the table does not allow, in {}",
                        files.join(", ")
                    ));
                }
            }
        }
        for (from, may) in table {
            for to in may {
                if !edges.get(from).is_some_and(|tos| tos.contains_key(to)) {
                    broken.push(format!(
                        "the table lets `{from}` use `{to}`, and nothing does: remove it"
                    ));
                }
            }
        }
        broken
    }
}

/// Every plain string literal outside test code in the `.rs` files under `src` (a crate's
/// source folder), with the file (relative to `src`) it is in.
pub fn string_literals(src: &Path) -> Vec<(String, String)> {
    let mut files = Vec::new();
    collect(src, src, &mut files);
    let mut tests = BTreeSet::new();
    for (path, text) in &files {
        Walk::new(file_module(path), "").run(&tokens(text), &mut |event| {
            if let Event::TestModule(m) = event {
                tests.insert(m);
            }
        });
    }
    let mut found = Vec::new();
    for (path, text) in &files {
        let module = file_module(path);
        if tests.iter().any(|t| module.starts_with(t)) {
            continue;
        }
        Walk::new(module, "").run(&tokens(text), &mut |event| {
            if let Event::Str(literal) = event {
                found.push((path.clone(), literal));
            }
        });
    }
    found
}

/// The layering table between `<!-- layering:start -->` and `<!-- layering:end -->` in a
/// crate root's docs: `| \`module\` | \`may\` \`use\` |` rows, with more columns of
/// modules it may use if the table has them.
pub fn table(lib_rs: &str) -> BTreeMap<String, BTreeSet<String>> {
    let start = lib_rs
        .find("<!-- layering:start -->")
        .expect("the crate root has the table");
    let end = lib_rs
        .find("<!-- layering:end -->")
        .expect("the crate root ends the table");
    let mut table = BTreeMap::new();
    for line in lib_rs[start..end].lines() {
        let cells: Vec<&str> = line.trim_start_matches("//!").split('|').collect();
        if cells.len() < 4 || !cells[1].contains('`') {
            continue;
        }
        let module = cells[1].trim().trim_matches('`').to_owned();
        // Every cell after the module's name lists modules it may use (the runtime's
        // third column is the debt it means to pay).
        let uses = cells[2..cells.len() - 1]
            .iter()
            .flat_map(|cell| cell.split_whitespace())
            .map(|m| m.trim_matches('`').to_owned())
            .collect();
        table.insert(module, uses);
    }
    table
}

fn display(module: &[String]) -> String {
    if module.is_empty() {
        "the crate root".to_owned()
    } else {
        format!("`{}`", module.join("::"))
    }
}

fn collect(root: &Path, dir: &Path, out: &mut Vec<(String, String)>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            collect(root, &path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let relative = path.strip_prefix(root).unwrap();
            let relative = relative
                .components()
                .map(|c| c.as_os_str().to_string_lossy())
                .collect::<Vec<_>>()
                .join("/");
            out.push((relative, std::fs::read_to_string(&path).unwrap()));
        }
    }
}

/// `server/dispatch/mod.rs` → `server::dispatch`; `lib.rs` → the root.
fn file_module(path: &str) -> ModPath {
    let mut parts: Vec<String> = path.split('/').map(str::to_owned).collect();
    let last = parts.pop().unwrap_or_default();
    let stem = last.trim_end_matches(".rs");
    if !(stem == "mod" || (parts.is_empty() && (stem == "lib" || stem == "main"))) {
        parts.push(stem.to_owned());
    }
    parts
}

/// A path as written (`["super", "super", "x", "Y"]`) made absolute from module `at`;
/// `None` for paths outside the crate. In a `use`, a bare first segment may name a child
/// module of `at` (2018 paths).
fn absolute(
    at: &[String],
    raw: &[String],
    crate_name: &str,
    modules: &BTreeSet<ModPath>,
    in_use: bool,
) -> Option<ModPath> {
    let first = raw.first()?;
    let mut base: ModPath;
    let mut rest = &raw[1..];
    if first == "crate" || first == crate_name {
        base = ModPath::new();
    } else if first == "self" {
        base = at.to_vec();
    } else if first == "super" {
        base = at.to_vec();
        base.pop();
        while rest.first().is_some_and(|s| s == "super") {
            base.pop();
            rest = &rest[1..];
        }
    } else if in_use {
        let mut child = at.to_vec();
        child.push(first.clone());
        if !modules.contains(&child) {
            return None;
        }
        base = at.to_vec();
        rest = raw;
    } else {
        return None;
    }
    base.extend(rest.iter().filter(|s| *s != "self").cloned());
    Some(base)
}

/// Tarjan's strongly connected components with more than one member.
fn strongly_connected(
    edges: &BTreeMap<String, BTreeMap<String, BTreeSet<String>>>,
) -> Vec<Vec<String>> {
    struct State<'a> {
        edges: &'a BTreeMap<String, BTreeMap<String, BTreeSet<String>>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        found: Vec<Vec<String>>,
    }
    fn visit<'a>(s: &mut State<'a>, node: &'a str) {
        let n = s.index.len();
        s.index.insert(node, n);
        s.low.insert(node, n);
        s.stack.push(node);
        s.on_stack.insert(node);
        if let Some(tos) = s.edges.get(node) {
            for to in tos.keys() {
                if !s.index.contains_key(to.as_str()) {
                    visit(s, to);
                    let low = s.low[node].min(s.low[to.as_str()]);
                    s.low.insert(node, low);
                } else if s.on_stack.contains(to.as_str()) {
                    let low = s.low[node].min(s.index[to.as_str()]);
                    s.low.insert(node, low);
                }
            }
        }
        if s.low[node] == s.index[node] {
            let mut component = Vec::new();
            while let Some(top) = s.stack.pop() {
                s.on_stack.remove(top);
                component.push(top.to_owned());
                if top == node {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort();
                s.found.push(component);
            }
        }
    }
    let mut state = State {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    for node in edges.keys() {
        if !state.index.contains_key(node.as_str()) {
            visit(&mut state, node);
        }
    }
    state.found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(p, t)| (p.to_string(), t.to_string()))
            .collect()
    }

    #[test]
    fn paths_resolve_through_groups_super_self_and_imports() {
        let graph = Graph::from_files(
            "demo",
            &files(&[
                ("lib.rs", "pub mod a; pub mod b; pub use a::Thing;"),
                ("a/mod.rs", "mod x; mod y; pub use x::Thing;"),
                (
                    "a/x.rs",
                    "pub struct Thing; use super::{y::{self, Other as O}};",
                ),
                (
                    "a/y.rs",
                    "pub struct Other; // use super::x::Thing;\nfn f() { let _ = \"super::x\"; }",
                ),
                ("b.rs", "fn f() -> crate::Thing { demo::a::Thing }"),
            ]),
        );
        assert_eq!(graph.target(&["Thing".into()]), vec!["a", "x"]);
        let edges = graph.edges();
        let a = &edges[&vec!["a".to_owned()]];
        assert!(a["x"].contains_key("y"), "{edges:?}");
        assert!(
            !a.contains_key("y"),
            "comments and strings are no references: {edges:?}"
        );
        assert!(edges[&ModPath::new()]["b"].contains_key("a"), "{edges:?}");
    }
}
