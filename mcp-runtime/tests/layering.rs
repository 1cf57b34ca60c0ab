//! The runtime's modules form the layers `lib.rs` describes: every `crate::<module>`
//! reference outside test code is one the table between `layering:start` and `layering:end`
//! in `lib.rs` allows, and the references form no cycle.
//!
//! Read from the sources as text, as cargo-deny reads manifests: no compiler internals, so
//! it runs in a blink and says exactly which file breaks which rule.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The table in `lib.rs`: module → the modules it may use.
fn allowed() -> BTreeMap<String, BTreeSet<String>> {
    let lib = std::fs::read_to_string(src().join("lib.rs")).unwrap();
    let start = lib
        .find("<!-- layering:start -->")
        .expect("lib.rs has the table");
    let end = lib
        .find("<!-- layering:end -->")
        .expect("lib.rs ends the table");
    let mut table = BTreeMap::new();
    for line in lib[start..end].lines() {
        let cells: Vec<&str> = line.trim_start_matches("//!").split('|').collect();
        if cells.len() < 4 || !cells[1].contains('`') {
            continue;
        }
        let module = cells[1].trim().trim_matches('`').to_owned();
        let uses = cells[2]
            .split_whitespace()
            .map(|m| m.trim_matches('`').to_owned())
            .collect();
        table.insert(module, uses);
    }
    assert!(table.len() > 10, "the table parsed to {table:?}");
    table
}

/// Names the crate root re-exports (`pub use server::{Server, ServerBuilder};`), with the
/// module each comes from: `crate::Server` is a reference to `server`.
fn root_names() -> BTreeMap<String, String> {
    let lib = code(&std::fs::read_to_string(src().join("lib.rs")).unwrap());
    let mut names = BTreeMap::new();
    for statement in lib.split(';') {
        let statement = statement.trim();
        let Some(rest) = statement
            .rsplit("pub use ")
            .next()
            .filter(|_| statement.contains("pub use "))
        else {
            continue;
        };
        let Some((module, items)) = rest.split_once("::") else {
            continue;
        };
        let items = items.trim_matches(|c| c == '{' || c == '}');
        for item in items.split(',') {
            let name = item.trim().rsplit("::").next().unwrap_or("").trim();
            if !name.is_empty() {
                names.insert(name.to_owned(), module.trim().to_owned());
            }
        }
    }
    // Modules written inline in lib.rs (`pub mod prelude { … }`) are lib.rs's own.
    for (i, _) in lib.match_indices("mod ") {
        let name: String = lib[i + 4..]
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if lib[i + 4 + name.len()..].trim_start().starts_with('{') {
            names.insert(name, "lib".to_owned());
        }
    }
    names
}

/// `text` without comments and without `#[cfg(test)]` modules.
fn code(text: &str) -> String {
    let mut out = String::new();
    for line in text.lines() {
        // Comments, doc comments included (an intra-doc link is no dependency).
        let line = match line.find("//") {
            Some(i) if !line[..i].contains('"') => &line[..i],
            _ => line,
        };
        out.push_str(line);
        out.push('\n');
    }
    // Inline test modules: `#[cfg(test)] mod name { … }`, braces balanced.
    while let Some(at) = out.find("#[cfg(test)]") {
        let after = &out[at..];
        let Some(open) = after.find(['{', ';']) else {
            break;
        };
        let end = if after.as_bytes()[open] == b';' {
            at + open + 1
        } else {
            let mut depth = 0;
            let mut end = out.len();
            for (i, c) in after[open..].char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' => {
                        depth -= 1;
                        if depth == 0 {
                            end = at + open + i + 1;
                            break;
                        }
                    }
                    _ => {}
                }
            }
            end
        };
        out.replace_range(at..end, "");
    }
    out
}

/// Every `crate::<name>` in `code`, groups (`crate::{a, b::c}`) included.
fn references(code: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut rest = code;
    while let Some(i) = rest.find("crate::") {
        let preceded = rest[..i].chars().next_back();
        rest = &rest[i + "crate::".len()..];
        if preceded.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue; // `mcp_runtime::crate::` cannot occur; `my_crate::` is not ours
        }
        if let Some(group) = rest.strip_prefix('{') {
            let close = group.find('}').unwrap_or(group.len());
            for item in group[..close].split(',') {
                let name: String = item
                    .trim()
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if !name.is_empty() {
                    names.push(name);
                }
            }
        } else {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            names.push(name);
        }
    }
    names
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs")
            // Test modules in their own files (`#[cfg(test)] mod tests;`).
            && path.file_name().is_some_and(|n| n != "tests.rs")
        {
            out.push(path);
        }
    }
}

/// module → module → the files that make the edge.
fn edges() -> BTreeMap<String, BTreeMap<String, BTreeSet<String>>> {
    let root = src();
    let names = root_names();
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    let mut edges: BTreeMap<String, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    for file in files {
        let relative = file.strip_prefix(&root).unwrap();
        let first = relative.components().next().unwrap().as_os_str();
        let from = Path::new(first)
            .file_stem()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let text = code(&std::fs::read_to_string(&file).unwrap());
        for name in references(&text) {
            let to = names.get(&name).cloned().unwrap_or(name);
            // The macros are another crate, re-exported; `self` names the crate itself.
            if to == from || to == "mcp_runtime_macros" {
                continue;
            }
            edges
                .entry(from.clone())
                .or_default()
                .entry(to)
                .or_default()
                .insert(relative.display().to_string());
        }
    }
    edges
}

#[test]
fn every_reference_between_modules_is_one_the_table_allows() {
    let allowed = allowed();
    let mut broken = Vec::new();
    for (from, tos) in edges() {
        let Some(may) = allowed.get(&from) else {
            broken.push(format!("`{from}` is not in lib.rs's table"));
            continue;
        };
        for (to, files) in tos {
            if !may.contains(&to) {
                broken.push(format!(
                    "`{from}` uses `{to}`, which the table does not allow, in {}",
                    files.into_iter().collect::<Vec<_>>().join(", ")
                ));
            }
        }
    }
    assert!(broken.is_empty(), "{}", broken.join("\n"));
}

#[test]
fn the_modules_form_no_cycle() {
    // Kahn's algorithm on the real edges: whatever cannot be ordered is on a cycle.
    let edges = edges();
    let mut nodes: BTreeSet<String> = edges.keys().cloned().collect();
    for tos in edges.values() {
        nodes.extend(tos.keys().cloned());
    }
    let mut remaining = nodes.clone();
    loop {
        let leaf = remaining.iter().find(|n| {
            edges
                .get(*n)
                .is_none_or(|tos| tos.keys().all(|t| !remaining.contains(t)))
        });
        match leaf.cloned() {
            Some(leaf) => {
                remaining.remove(&leaf);
            }
            None => break,
        }
    }
    assert!(
        remaining.is_empty(),
        "these modules reference each other in a cycle: {remaining:?}"
    );
}

#[test]
fn the_reader_sees_what_it_should() {
    // The scanner itself: groups, comments and test modules.
    let text = code(
        "use crate::{server::X, tool};\n/// [`a`](crate::pipeline)\nuse crate::context::Y; // crate::fs\n#[cfg(test)]\nmod tests {\n    use crate::transport::Z;\n}\nfn f() { crate::resource::g() }\n",
    );
    assert_eq!(references(&text), ["server", "tool", "context", "resource"]);
    let names = root_names();
    assert_eq!(names.get("Server").map(String::as_str), Some("server"));
    assert_eq!(names.get("input").map(String::as_str), Some("context"));
    assert_eq!(names.get("prelude").map(String::as_str), Some("lib"));
}
