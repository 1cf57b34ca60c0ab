//! The toolkit's crates are layered: no module reaches back up, at any depth, and the
//! runtime's top-level modules use each other exactly as the table in its `lib.rs` says
//! (which is what the design says). The reader is [`mcp_tests::layering`]; the tests at the
//! end show that it catches what it must.

use mcp_tests::layering::{Graph, table};
use std::path::Path;

fn crate_src(folder: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the tests package sits in the workspace root")
        .join(folder)
        .join("src")
}

#[test]
fn the_runtime_keeps_its_table_and_has_no_cycle_at_any_depth() {
    let src = crate_src("mcp-runtime");
    let graph = Graph::read(&src, "mcp_runtime");
    let table = table(&std::fs::read_to_string(src.join("lib.rs")).unwrap());
    assert!(table.len() > 10, "the table parsed to {table:?}");
    let broken = graph.against(&table);
    assert!(
        broken.is_empty(),
        "{}\n\nWhat the code uses (modules that use nothing have no row):\n{}",
        broken.join("\n"),
        graph.rows()
    );
    let cycles = graph.cycles();
    assert!(cycles.is_empty(), "{}", cycles.join("\n"));
}

#[test]
fn the_cli_and_the_macros_have_no_cycle_at_any_depth() {
    for (folder, name) in [("mcp-cli", "mcp_cli"), ("mcp-macros", "mcp_runtime_macros")] {
        let cycles = Graph::read(&crate_src(folder), name).cycles();
        assert!(cycles.is_empty(), "{folder}:\n{}", cycles.join("\n"));
    }
}

// The reader, on small crates written for it.

fn graph(files: &[(&str, &str)]) -> Graph {
    let files: Vec<(String, String)> = files
        .iter()
        .map(|(p, t)| (p.to_string(), t.to_string()))
        .collect();
    Graph::from_files("mcp_runtime", &files)
}

/// A crate whose three top-level modules point down: `c` → `b` → `a`.
const LAYERED: [(&str, &str); 5] = [
    (
        "lib.rs",
        "pub mod a; pub mod b; pub mod c; pub use b::Thing;",
    ),
    ("a.rs", "pub struct Base;"),
    ("b/mod.rs", "mod inner; pub use inner::Thing;"),
    (
        "b/inner/mod.rs",
        "mod deep; pub struct Thing(crate::a::Base);",
    ),
    ("c.rs", "use crate::{Thing, b::Thing as Same};"),
];

fn with<'a>(replaced: (&'a str, &'a str)) -> Vec<(&'a str, &'a str)> {
    let mut files: Vec<_> = LAYERED
        .iter()
        .copied()
        .filter(|(path, _)| *path != replaced.0)
        .collect();
    files.push(replaced);
    files
}

#[test]
fn a_layered_crate_passes() {
    let mut files = LAYERED.to_vec();
    files.push(("b/inner/deep.rs", "use super::super::super::a::Base;"));
    let graph = graph(&files);
    assert_eq!(graph.cycles(), Vec::<String>::new());
    let table = table(
        "<!-- layering:start -->\n| `a` | |\n| `b` | `a` |\n| `c` | `b` |\n<!-- layering:end -->",
    );
    assert_eq!(graph.against(&table), Vec::<String>::new());
}

#[test]
fn a_super_super_import_that_makes_a_cycle_fails() {
    let mut files = LAYERED.to_vec();
    files.push(("b/inner/deep.rs", "use super::super::super::c;"));
    let cycles = graph(&files).cycles();
    assert_eq!(cycles.len(), 1, "{cycles:?}");
    assert!(cycles[0].contains("b → c (b/inner/deep.rs)"), "{cycles:?}");
    assert!(cycles[0].contains("c → b (c.rs)"), "{cycles:?}");
}

#[test]
fn a_path_through_the_crates_own_name_that_makes_a_cycle_fails() {
    let files = with((
        "a.rs",
        "pub struct Base; fn f() -> mcp_runtime::Thing { todo!() }",
    ));
    let cycles = graph(&files).cycles();
    assert_eq!(cycles.len(), 1, "{cycles:?}");
    assert!(cycles[0].starts_with("in the crate root: "), "{cycles:?}");
    assert!(cycles[0].contains("a → b (a.rs)"), "{cycles:?}");
}

#[test]
fn a_cycle_between_files_of_one_folder_fails() {
    let mut files = LAYERED.to_vec();
    files.retain(|(path, _)| *path != "b/mod.rs");
    files.push((
        "b/mod.rs",
        "mod inner; mod ledger; mod state; pub use inner::Thing;",
    ));
    files.push(("b/ledger.rs", "pub struct Ledger; use super::state::State;"));
    files.push(("b/state.rs", "pub struct State(super::ledger::Ledger);"));
    let cycles = graph(&files).cycles();
    assert_eq!(
        cycles,
        ["in `b`: ledger → state (b/ledger.rs); state → ledger (b/state.rs)"]
    );
}

#[test]
fn a_permission_nothing_uses_fails() {
    let table = table(
        "<!-- layering:start -->\n| `a` | |\n| `b` | `a` |\n| `c` | `b` `a` |\n<!-- layering:end -->",
    );
    assert_eq!(
        graph(&LAYERED).against(&table),
        ["the table lets `c` use `a`, and nothing does: remove it"]
    );
}

#[test]
fn a_use_the_table_does_not_allow_fails() {
    let table = table(
        "<!-- layering:start -->\n| `a` | |\n| `b` | `a` |\n| `c` | |\n<!-- layering:end -->",
    );
    let broken = graph(&LAYERED).against(&table);
    assert_eq!(
        broken,
        ["`c` uses `b`, which the table does not allow, in c.rs"]
    );
}

#[test]
fn comments_strings_and_test_code_are_no_references() {
    let files = with((
        "a.rs",
        r##"pub struct Base;
// use crate::c;
/* crate::c */
const S: &str = "crate::c::X";
const R: &str = r#"super::c"#;
const C: char = '"';
#[cfg(test)]
mod tests { use crate::c; }
#[cfg(test)]
mod more;
#[cfg(all(test, unix))]
mod unix_only;
fn f<'a>(x: &'a str) -> &'a str { x }
"##,
    ));
    let mut files = files;
    files.push(("a/more.rs", "use crate::c::Anything;"));
    files.push(("a/unix_only.rs", "use crate::c::Anything;"));
    let graph = graph(&files);
    assert_eq!(graph.cycles(), Vec::<String>::new());
}

/// A method's name is written once, in `protocol/methods.rs` (and the server's own requests
/// to the client in `protocol/input.rs`); everything else reads the constants and their
/// columns, so a new method is a row, never a hunt for string comparisons.
#[test]
fn method_names_are_written_only_where_the_protocol_defines_them() {
    use mcp_runtime::protocol::input::{ELICIT_METHOD, ROOTS_METHOD, SAMPLE_METHOD};
    use mcp_runtime::protocol::methods;
    let names: Vec<&str> = methods::ALL
        .iter()
        .map(|m| m.name)
        .chain([ELICIT_METHOD, SAMPLE_METHOD, ROOTS_METHOD])
        .collect();
    let written: Vec<String> = mcp_tests::layering::string_literals(&crate_src("mcp-runtime"))
        .into_iter()
        .filter(|(file, literal)| {
            names.contains(&literal.as_str())
                && file != "protocol/methods.rs"
                && file != "protocol/input.rs"
        })
        .map(|(file, literal)| format!("{file}: \"{literal}\""))
        .collect();
    assert!(
        written.is_empty(),
        "method names written outside the protocol's constants:\n{}",
        written.join("\n")
    );
}

#[test]
fn the_literal_reader_skips_test_code() {
    let dir = std::env::temp_dir().join(format!("layering-literals-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("lib.rs"),
        "const A: &str = \"tools/call\";\n// \"in a comment\"\n#[cfg(test)]\nmod tests { const B: &str = \"tools/list\"; }\nconst C: &str = r\"raw\";\n",
    )
    .unwrap();
    let found = mcp_tests::layering::string_literals(&dir);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(found, [("lib.rs".to_owned(), "tools/call".to_owned())]);
}
