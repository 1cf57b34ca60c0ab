//! Snapshots of each generated tree: the files a template produces and the `Cargo.toml` it
//! writes, compared with `mcp-cli/tests/snapshots/<template>.txt`. A change to a template
//! shows up here as a diff to review; re-bless deliberately with `UPDATE_SNAPSHOTS=1`.

use mcp_cli::ops::scaffold::{self, ProjectOptions, Vcs};
use mcp_cli::ops::template::{RuntimeSource, Template};
use std::fmt::Write as _;
use std::path::Path;

/// The tree of a project generated from `template` as `demo`, as text.
fn tree(template: Template) -> String {
    let tmp = tempfile::tempdir().unwrap();
    let created = scaffold::new_project(&ProjectOptions {
        path: tmp.path().join("demo"),
        name: None,
        template,
        description: None,
        runtime: RuntimeSource::Version("0.1.0".into()),
        vcs: Some(Vcs::None),
        standalone: false,
    })
    .unwrap();
    let mut out = format!("# cargo mcp new demo --template {template}\n\n## files\n\n");
    let mut paths: Vec<String> = walk(&created.dir)
        .iter()
        .map(|p| {
            p.strip_prefix(&created.dir)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/")
        })
        .collect();
    paths.sort();
    assert_eq!(
        paths.len(),
        created.files.len(),
        "only the template's files are written"
    );
    for path in &paths {
        let bytes = std::fs::read(created.dir.join(path)).unwrap();
        let lines = bytes.iter().filter(|b| **b == b'\n').count();
        writeln!(out, "{path} ({lines} lines)").unwrap();
    }
    let manifest = std::fs::read_to_string(created.dir.join("Cargo.toml")).unwrap();
    write!(out, "\n## Cargo.toml\n\n{manifest}").unwrap();
    out
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(walk(&path));
        } else {
            files.push(path);
        }
    }
    files
}

#[test]
fn generated_trees_match_their_snapshots() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots");
    let mut stale = Vec::new();
    for template in Template::ALL {
        let actual = tree(template);
        let path = dir.join(format!("{template}.txt"));
        if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(&path, &actual).unwrap();
            continue;
        }
        let expected = std::fs::read_to_string(&path).unwrap_or_default();
        if expected != actual {
            let diff = similar::TextDiff::from_lines(&expected, &actual)
                .unified_diff()
                .header(&path.display().to_string(), "generated")
                .to_string();
            stale.push(diff);
        }
    }
    assert!(
        stale.is_empty(),
        "generated trees changed; review, then re-bless with UPDATE_SNAPSHOTS=1:\n{}",
        stale.join("\n")
    );
}
