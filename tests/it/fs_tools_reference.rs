//! Differential tests: the real reference server (`@modelcontextprotocol/server-filesystem`
//! 2026.8.31, pinned in `tests/interop/package-lock.json` and installed by
//! `tests/interop/setup.sh`) and `file-server`, on identical trees, compared on their tool
//! lists and on the results of calls where we intend to match; and the official TypeScript
//! client driving `file-server`'s tools.
//!
//! Where we differ on purpose (see `mcp_runtime::fs::FileTools`), the comparison normalizes:
//! entry order (the reference returns directory order, we sort), `head`/`tail` typed
//! `integer` (the reference says `number`), error texts (ours never name what lies outside).
//! Both servers run with `TZ=UTC`, as ours always prints times in UTC.

use crate::fs_support::guarded;
use crate::fs_tools_support::*;
use mcp_runtime::client::{Client, EraMode};
use mcp_runtime::protocol::{CallToolResult, ToolDefinition};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const REFERENCE_VERSION: &str = "2026.8.31";

/// The reference server's entry point, installed by `tests/interop/setup.sh`.
fn reference_script() -> std::path::PathBuf {
    let package =
        mcp_tests::setup("interop").join("node_modules/@modelcontextprotocol/server-filesystem");
    let manifest: Value =
        serde_json::from_slice(&std::fs::read(package.join("package.json")).unwrap()).unwrap();
    assert_eq!(
        manifest["version"], REFERENCE_VERSION,
        "the pinned reference version"
    );
    package.join("dist/index.js")
}

async fn reference(root: &Path) -> Client {
    let mut cmd = tokio::process::Command::new("node");
    cmd.arg(reference_script()).arg(root).env("TZ", "UTC");
    connect(cmd, EraMode::Legacy).await
}

async fn ours(root: &Path) -> Client {
    file_server([root], EraMode::Legacy).await
}

/// A result as JSON with the root replaced by `<ROOT>`.
fn normalized(r: &CallToolResult, root: &Path) -> Value {
    let text = rooted(&serde_json::to_string(r).unwrap(), root);
    serde_json::from_str(&text).unwrap()
}

#[tokio::test]
async fn tool_lists_match_the_reference() {
    let t = tree();
    let (theirs, ours) = (reference(&t.root).await, ours(&t.root).await);
    let sorted = |mut v: Vec<ToolDefinition>| {
        v.sort_by(|a, b| a.name.cmp(&b.name));
        v
    };
    let theirs = sorted(guarded(theirs.list_tools()).await.unwrap());
    let ours = sorted(guarded(ours.list_tools()).await.unwrap());
    let names = |v: &[ToolDefinition]| v.iter().map(|t| t.name.clone()).collect::<Vec<_>>();
    assert_eq!(names(&ours), names(&theirs));
    for (a, b) in theirs.iter().zip(&ours) {
        let name = &a.name;
        assert_eq!(b.title, a.title, "{name}: title");
        assert_eq!(b.annotations, a.annotations, "{name}: annotations");
        assert_eq!(
            arguments(&b.input_schema),
            arguments(&a.input_schema),
            "{name}: argument names and required set"
        );
        let (a_in, b_in) = (
            Value::Object(a.input_schema.clone()),
            Value::Object(b.input_schema.clone()),
        );
        for (arg, a_prop) in a_in["properties"].as_object().unwrap() {
            let b_prop = &b_in["properties"][arg];
            let a_type = &a_prop["type"];
            if (arg == "head" || arg == "tail") && a_type == "number" {
                // Deliberate: whole numbers ≥ 0 (which is what the reference can use).
                assert_eq!(b_prop["type"], "integer", "{name}.{arg}");
            } else {
                assert_eq!(&b_prop["type"], a_type, "{name}.{arg}: type");
            }
            for key in ["default", "enum", "minItems", "items"] {
                if key == "items" && a_prop[key]["type"] == "object" {
                    // edit_file's edit objects: same fields, required set.
                    let (ai, bi) = (
                        a_prop[key].as_object().unwrap(),
                        b_prop[key].as_object().unwrap(),
                    );
                    assert_eq!(arguments(bi), arguments(ai), "{name}.{arg}.items");
                    continue;
                }
                assert_eq!(b_prop[key], a_prop[key], "{name}.{arg}: {key}");
            }
        }
        let mut a_out = a
            .output_schema
            .clone()
            .expect("the reference declares outputSchema");
        a_out.as_object_mut().unwrap().remove("$schema");
        assert_eq!(
            b.output_schema.as_ref(),
            Some(&a_out),
            "{name}: outputSchema"
        );
    }
}

/// Applies `f` to a text result's text, in `content` and in `structuredContent`.
fn map_text(v: &mut Value, f: impl Fn(&str) -> String) {
    for pointer in ["/content/0/text", "/structuredContent/content"] {
        if let Some(text) = v.pointer_mut(pointer)
            && let Some(s) = text.as_str()
        {
            *text = f(s).into();
        }
    }
}

/// Sorts the lines of a text result (for outputs in directory order).
fn sort_lines(v: &mut Value) {
    map_text(v, |s| {
        let mut lines: Vec<&str> = s.split('\n').collect();
        lines.sort_unstable();
        lines.join("\n")
    });
}

/// Sorts a `directory_tree` result's entries by name at every level, and re-indents.
fn sort_tree(v: &mut Value) {
    fn sort(nodes: &mut Value) {
        if let Some(list) = nodes.as_array_mut() {
            list.sort_by(|a, b| a["name"].as_str().cmp(&b["name"].as_str()));
            for n in list {
                if let Some(children) = n.get_mut("children") {
                    sort(children);
                }
            }
        }
    }
    map_text(v, |s| {
        let mut tree: Value = serde_json::from_str(s).unwrap();
        sort(&mut tree);
        serde_json::to_string_pretty(&tree).unwrap()
    });
}

/// Calls both servers and compares the normalized results; returns ours.
async fn same(
    theirs: &Client,
    ours: &Client,
    roots: (&Path, &Path),
    tool: &str,
    args: Value,
    normalize: fn(&mut Value),
) -> Value {
    let mut a = normalized(&call(theirs, tool, args.clone()).await, roots.0);
    let mut b = normalized(&call(ours, tool, args.clone()).await, roots.1);
    normalize(&mut a);
    normalize(&mut b);
    assert_eq!(
        b, a,
        "{tool} {args}: ours (left) differs from the reference (right)"
    );
    b
}

fn as_is(_: &mut Value) {}

#[tokio::test]
async fn reading_results_match_the_reference() {
    // Both servers on one tree: the same files, the same times.
    let t = tree();
    let root = t.root.as_path();
    let (theirs, ours) = (reference(root).await, ours(root).await);
    let roots = (root, root);
    let abs = |rel: &str| format!("{}/{rel}", t.root_str());
    // Metadata first, before any read or listing touches access times.
    for path in ["b.md", "sub", "img.png"] {
        same(
            &theirs,
            &ours,
            roots,
            "get_file_info",
            json!({"path": path}),
            as_is,
        )
        .await;
    }
    for (tool, args) in [
        ("list_allowed_directories", json!({})),
        ("read_text_file", json!({"path": "a.txt"})),
        ("read_text_file", json!({"path": "a.txt", "head": 2})),
        ("read_text_file", json!({"path": "a.txt", "head": 0})),
        ("read_text_file", json!({"path": "notes.txt", "tail": 2})),
        (
            "read_text_file",
            json!({"path": "notes.txt", "head": 1, "tail": 1}),
        ),
        ("read_text_file", json!({"path": abs("sub/deep/d.txt")})),
        ("read_file", json!({"path": "sub/c.txt"})),
        (
            "read_multiple_files",
            json!({"paths": ["a.txt", "sub/c.txt", abs("notes.txt")]}),
        ),
        ("read_media_file", json!({"path": "img.png"})),
        ("read_media_file", json!({"path": "data.bin"})),
        ("list_directory_with_sizes", json!({"path": "."})),
        ("list_directory_with_sizes", json!({"path": "sized"})),
        (
            "list_directory_with_sizes",
            json!({"path": "sized", "sortBy": "size"}),
        ),
        ("search_files", json!({"path": ".", "pattern": "*.zzz"})),
    ] {
        same(&theirs, &ours, roots, tool, args, as_is).await;
    }
    for (tool, args) in [
        ("list_directory", json!({"path": "."})),
        ("list_directory", json!({"path": "sub"})),
        ("search_files", json!({"path": ".", "pattern": "**/*.txt"})),
        ("search_files", json!({"path": ".", "pattern": "*"})),
        (
            "search_files",
            json!({"path": ".", "pattern": "**/*", "excludePatterns": ["sized", "**/*.log"]}),
        ),
        ("search_files", json!({"path": "sub", "pattern": "**/d*"})),
    ] {
        same(&theirs, &ours, roots, tool, args, sort_lines).await;
    }
    for args in [
        json!({"path": "."}),
        json!({"path": "sub", "excludePatterns": ["*.log"]}),
        json!({"path": ".", "excludePatterns": ["deep", "sized"]}),
    ] {
        same(&theirs, &ours, roots, "directory_tree", args, sort_tree).await;
    }
    // Where the reference fails, so do we (with our own texts).
    for (tool, args) in [
        ("read_text_file", json!({"path": "/etc/passwd"})),
        ("read_text_file", json!({"path": "missing.txt"})),
        ("list_directory", json!({"path": "a.txt"})),
        (
            "move_file",
            json!({"source": "a.txt", "destination": "b.md"}),
        ),
    ] {
        let a = call(&theirs, tool, args.clone()).await;
        let b = call(&ours, tool, args.clone()).await;
        assert!(a.is_error() && b.is_error(), "{tool} {args}: {a:?} / {b:?}");
    }
}

/// Every file and directory below `root`, with file contents.
fn snapshot(root: &Path) -> BTreeMap<String, Option<Vec<u8>>> {
    crate::fs_support::snapshot(root)
        .into_iter()
        .map(|(p, c)| (p.strip_prefix(root).unwrap().display().to_string(), c))
        .collect()
}

#[tokio::test]
async fn changes_match_the_reference() {
    // Identical trees, one per server.
    let (ta, tb) = (tree(), tree());
    let (theirs, ours) = (reference(&ta.root).await, ours(&tb.root).await);
    let roots = (ta.root.as_path(), tb.root.as_path());
    for (tool, args) in [
        (
            "write_file",
            json!({"path": "new.txt", "content": "fresh\nlines\n"}),
        ),
        (
            "write_file",
            json!({"path": "a.txt", "content": "replaced"}),
        ),
        ("create_directory", json!({"path": "x/y/z"})),
        ("create_directory", json!({"path": "sub"})),
        (
            "move_file",
            json!({"source": "new.txt", "destination": "x/y/moved.txt"}),
        ),
        (
            "move_file",
            json!({"source": "sized", "destination": "x/sized"}),
        ),
        (
            "edit_file",
            json!({"path": "notes.txt", "edits": [{"oldText": "beta", "newText": "BETA"}], "dryRun": true}),
        ),
        (
            "edit_file",
            json!({"path": "notes.txt", "edits": [
                {"oldText": "alpha\nbeta", "newText": "first\nsecond"},
                {"oldText": "  gamma", "newText": "third"}
            ]}),
        ),
        (
            "edit_file",
            json!({"path": "sub/c.txt", "edits": [{"oldText": "nothing like it", "newText": "x"}]}),
        ),
    ] {
        same(&theirs, &ours, roots, tool, args, as_is).await;
    }
    assert_eq!(
        snapshot(&tb.root),
        snapshot(&ta.root),
        "the trees after the same changes"
    );
}

/// Runs `tests/interop/ts/file-tools.mjs` against `file-server` serving `root`.
fn run_ts(mode: &str, root: &Path) -> Value {
    let dir = mcp_tests::setup("interop");
    let mut child = Command::new("node")
        .arg(dir.join("ts/file-tools.mjs"))
        .args(["--mode", mode, "--"])
        .arg(mcp_tests::example_bin("file-server"))
        .arg(root)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("node runs");
    // The script enforces its own 30 s limit; this only catches a wedged interpreter.
    let deadline = Instant::now() + Duration::from_secs(120);
    while child.try_wait().unwrap().is_none() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    if child.try_wait().unwrap().is_none() {
        let _ = child.kill();
    }
    let out = child.wait_with_output().unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(
        out.status.success(),
        "file-tools.mjs failed ({}):\n{stdout}\n{stderr}",
        out.status
    );
    serde_json::from_str(stdout.lines().last().unwrap_or_default())
        .unwrap_or_else(|e| panic!("not a JSON summary ({e}): {stdout}\n{stderr}"))
}

#[test]
fn the_typescript_client_uses_the_file_tools() {
    for mode in ["legacy", "auto"] {
        let t = tree();
        let summary = run_ts(mode, &t.root);
        assert_eq!(summary["tools"].as_array().unwrap().len(), 14, "{summary}");
        let r = &summary["results"];
        assert_eq!(r["write"], "Successfully wrote to from-ts.txt");
        assert_eq!(r["read"], "written by ts\n");
        assert_eq!(r["head"], "one\ntwo");
        assert!(
            r["list"].as_str().unwrap().contains("[FILE] from-ts.txt\n"),
            "{summary}"
        );
        assert!(
            r["edit"]
                .as_str()
                .unwrap()
                .contains("-written by ts\n+written by TS\n"),
            "{summary}"
        );
        assert_eq!(r["media"], "image/png");
        assert!(
            r["denied"]
                .as_str()
                .unwrap()
                .contains("outside the allowed directories"),
            "{summary}"
        );
        assert_eq!(
            std::fs::read_to_string(t.root.join("from-ts.txt")).unwrap(),
            "written by ts\n"
        );
    }
}

/// Where we differ on purpose, pinned so a change on either side is noticed.
#[tokio::test]
async fn deliberate_differences_from_the_reference() {
    let t = tree();
    let outside = tempfile::tempdir().unwrap();
    let secret = outside.path().canonicalize().unwrap().join("big.bin");
    std::fs::write(&secret, vec![0u8; 5000]).unwrap();
    std::os::unix::fs::symlink(&secret, t.root.join("sized/link.bin")).unwrap();
    let (theirs, ours) = (reference(&t.root).await, ours(&t.root).await);
    let both = |tool: &'static str, args: Value| {
        let (theirs, ours) = (theirs.clone(), ours.clone());
        async move {
            (
                call(&theirs, tool, args.clone()).await,
                call(&ours, tool, args).await,
            )
        }
    };

    // `tail`: a final newline ends the last line, as with `tail -n`; the reference counts an
    // empty line after it.
    let (a, b) = both("read_text_file", json!({"path": "a.txt", "tail": 1})).await;
    assert_eq!(
        (ok_text("ref", &a), ok_text("ours", &b)),
        (String::new(), "three".to_owned())
    );

    // Sized listings show a symlink's own size (as 0 B), never its target's: the reference's
    // tells the size of a file outside the allowed directories.
    let (a, b) = both("list_directory_with_sizes", json!({"path": "sized"})).await;
    let link_line = |text: String| {
        text.lines()
            .find(|l| l.contains("link.bin"))
            .unwrap()
            .to_owned()
    };
    assert!(link_line(ok_text("ref", &a)).ends_with("4.88 KB"));
    assert!(link_line(ok_text("ours", &b)).ends_with(" 0 B"));

    // Error texts: the reference's name the symlink's target outside; ours only what was asked.
    let (a, b) = both("read_text_file", json!({"path": "sized/link.bin"})).await;
    let outside_path = secret.to_str().unwrap();
    assert!(
        a.is_error() && a.first_text().unwrap().contains(outside_path),
        "{a:?}"
    );
    assert!(!err_text("ours", &b).contains(outside_path), "{b:?}");
}
