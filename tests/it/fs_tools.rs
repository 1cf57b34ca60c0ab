//! The file tools' contract, checked against `file-server` over stdio: the reference
//! `@modelcontextprotocol/server-filesystem` (v2026.8.31) tool names, titles, argument names
//! and types, required sets, annotations, output schemas and result texts, written down here
//! from its source; plus the server's own flags (`--read-only`, `--ext`, usage errors) and its
//! startup cleanup. `fs_tools_reference` runs the reference itself beside ours.

use crate::fs_support::{guarded, set_idle};
use crate::fs_tools_support::*;
use mcp_runtime::client::EraMode;
use serde_json::{Value, json};
use std::time::{Duration, Instant};

/// One tool of the reference: name, title, arguments with their JSON type, required
/// arguments, and hints `[readOnly, destructive, idempotent, openWorld]`.
struct Contract {
    name: &'static str,
    title: &'static str,
    args: &'static [(&'static str, &'static str)],
    required: &'static [&'static str],
    hints: [Option<bool>; 4],
}

const READ: [Option<bool>; 4] = [Some(true), None, None, Some(false)];
// `head`/`tail` are "number" in the reference; ours are integers (what clients send fits).
const LINES: &[(&str, &str)] = &[("path", "string"), ("head", "integer"), ("tail", "integer")];
const PATH: &[(&str, &str)] = &[("path", "string")];

const CONTRACT: &[Contract] = &[
    Contract {
        name: "read_file",
        title: "Read File (Deprecated)",
        args: LINES,
        required: &["path"],
        hints: READ,
    },
    Contract {
        name: "read_text_file",
        title: "Read Text File",
        args: LINES,
        required: &["path"],
        hints: READ,
    },
    Contract {
        name: "read_media_file",
        title: "Read Media File",
        args: PATH,
        required: &["path"],
        hints: READ,
    },
    Contract {
        name: "read_multiple_files",
        title: "Read Multiple Files",
        args: &[("paths", "array")],
        required: &["paths"],
        hints: READ,
    },
    Contract {
        name: "write_file",
        title: "Write File",
        args: &[("path", "string"), ("content", "string")],
        required: &["content", "path"],
        hints: [Some(false), Some(true), Some(true), Some(false)],
    },
    Contract {
        name: "edit_file",
        title: "Edit File",
        args: &[
            ("path", "string"),
            ("edits", "array"),
            ("dryRun", "boolean"),
        ],
        required: &["edits", "path"],
        hints: [Some(false), Some(true), Some(false), Some(false)],
    },
    Contract {
        name: "create_directory",
        title: "Create Directory",
        args: PATH,
        required: &["path"],
        hints: [Some(false), Some(false), Some(true), Some(false)],
    },
    Contract {
        name: "list_directory",
        title: "List Directory",
        args: PATH,
        required: &["path"],
        hints: READ,
    },
    Contract {
        name: "list_directory_with_sizes",
        title: "List Directory with Sizes",
        args: &[("path", "string"), ("sortBy", "string")],
        required: &["path"],
        hints: READ,
    },
    Contract {
        name: "directory_tree",
        title: "Directory Tree",
        args: &[("path", "string"), ("excludePatterns", "array")],
        required: &["path"],
        hints: READ,
    },
    Contract {
        name: "move_file",
        title: "Move File",
        args: &[("source", "string"), ("destination", "string")],
        required: &["destination", "source"],
        hints: [Some(false), Some(true), Some(false), Some(false)],
    },
    Contract {
        name: "search_files",
        title: "Search Files",
        args: &[
            ("path", "string"),
            ("pattern", "string"),
            ("excludePatterns", "array"),
        ],
        required: &["path", "pattern"],
        hints: READ,
    },
    Contract {
        name: "get_file_info",
        title: "Get File Info",
        args: PATH,
        required: &["path"],
        hints: READ,
    },
    Contract {
        name: "list_allowed_directories",
        title: "List Allowed Directories",
        args: &[],
        required: &[],
        hints: READ,
    },
];

async fn check_tool_list(era: EraMode) {
    let t = tree();
    let client = file_server([t.root_str()], era).await;
    let tools = guarded(client.list_tools()).await.unwrap();
    let mut names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    names.sort_unstable();
    let mut expected: Vec<&str> = CONTRACT.iter().map(|c| c.name).collect();
    expected.sort_unstable();
    assert_eq!(names, expected);
    let text_output = json!({
        "type": "object",
        "properties": {"content": {"type": "string"}},
        "required": ["content"],
        "additionalProperties": false
    });
    for c in CONTRACT {
        let tool = tools.iter().find(|t| t.name == c.name).unwrap();
        let name = c.name;
        assert_eq!(tool.title.as_deref(), Some(c.title), "{name}");
        let a = tool.annotations.clone().unwrap_or_default();
        assert_eq!(
            [
                a.read_only_hint,
                a.destructive_hint,
                a.idempotent_hint,
                a.open_world_hint
            ],
            c.hints,
            "{name}: annotations"
        );
        let description = tool.description.as_deref().unwrap_or_default();
        assert!(
            description.contains("allowed directories"),
            "{name}: the description must mention the confinement: {description}"
        );
        let input = Value::Object(tool.input_schema.clone());
        let (props, required) = arguments(&tool.input_schema);
        let mut want: Vec<String> = c.args.iter().map(|(n, _)| (*n).to_owned()).collect();
        want.sort();
        assert_eq!(props, want, "{name}: argument names");
        assert_eq!(required, c.required, "{name}: required arguments");
        for (arg, ty) in c.args {
            assert_eq!(input["properties"][arg]["type"], *ty, "{name}.{arg}: type");
        }
        assert_eq!(input["type"], "object", "{name}");
        if name == "read_media_file" {
            let schema = tool.output_schema.as_ref().expect("an output schema");
            let items = &schema["properties"]["content"]["items"]["anyOf"];
            assert_eq!(
                items[0]["properties"]["type"]["enum"],
                json!(["image", "audio"])
            );
            assert_eq!(items[1]["properties"]["type"]["const"], "resource");
        } else {
            assert_eq!(tool.output_schema.as_ref(), Some(&text_output), "{name}");
        }
    }
    // The argument details the reference spells out.
    let schema = |n: &str| {
        Value::Object(
            tools
                .iter()
                .find(|t| t.name == n)
                .unwrap()
                .input_schema
                .clone(),
        )
    };
    assert_eq!(
        schema("read_multiple_files")["properties"]["paths"]["minItems"],
        1
    );
    assert_eq!(
        schema("list_directory_with_sizes")["properties"]["sortBy"]["enum"],
        json!(["name", "size"])
    );
    assert_eq!(
        schema("list_directory_with_sizes")["properties"]["sortBy"]["default"],
        "name"
    );
    assert_eq!(
        schema("edit_file")["properties"]["dryRun"]["default"],
        false
    );
    let edit = &schema("edit_file")["properties"]["edits"]["items"];
    assert_eq!(
        arguments(edit.as_object().unwrap()),
        (
            vec!["newText".to_owned(), "oldText".to_owned()],
            vec!["newText".to_owned(), "oldText".to_owned()]
        )
    );
    for (tool, arg) in [
        ("directory_tree", "excludePatterns"),
        ("search_files", "excludePatterns"),
    ] {
        assert_eq!(
            schema(tool)["properties"][arg]["default"],
            json!([]),
            "{tool}.{arg}"
        );
        assert_eq!(schema(tool)["properties"][arg]["items"]["type"], "string");
    }
}

#[tokio::test]
async fn lists_the_reference_tools_legacy() {
    check_tool_list(EraMode::Legacy).await;
}

#[tokio::test]
async fn lists_the_reference_tools_modern() {
    check_tool_list(EraMode::Modern).await;
}

/// Checks a date as JavaScript's `Date.prototype.toString()` prints it in UTC.
fn assert_js_date(what: &str, s: &str) {
    let suffix = " GMT+0000 (Coordinated Universal Time)";
    let head = s
        .strip_suffix(suffix)
        .unwrap_or_else(|| panic!("{what}: {s}"));
    let parts: Vec<&str> = head.split(' ').collect();
    assert_eq!(parts.len(), 5, "{what}: {s}");
    assert!(
        ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"].contains(&parts[0]),
        "{s}"
    );
    assert_eq!(
        (parts[1].len(), parts[2].len(), parts[3].len()),
        (3, 2, 4),
        "{s}"
    );
    let time: Vec<&str> = parts[4].split(':').collect();
    assert!(time.len() == 3 && time.iter().all(|p| p.len() == 2), "{s}");
}

#[tokio::test]
async fn results_have_the_reference_texts() {
    let t = tree();
    let root = t.root_str();
    for era in [EraMode::Legacy, EraMode::Modern] {
        let client = file_server([root], era).await;
        let text = |name: &'static str, args: Value| {
            let client = client.clone();
            async move { ok_text(name, &call(&client, name, args).await) }
        };
        assert_eq!(
            text("list_allowed_directories", json!({})).await,
            format!("Allowed directories:\n{root}")
        );
        for tool in ["read_text_file", "read_file"] {
            let read = |args: Value| text(tool, args);
            assert_eq!(read(json!({"path": "a.txt"})).await, "one\ntwo\nthree\n");
            assert_eq!(read(json!({"path": "a.txt", "head": 2})).await, "one\ntwo");
            // 0 means "not given"; 2.0 is a whole number.
            assert_eq!(
                read(json!({"path": "notes.txt", "head": 0, "tail": 2.0})).await,
                "beta\ngamma"
            );
            assert_eq!(
                read(json!({"path": format!("{root}/sub/deep/d.txt")})).await,
                "deep\nfile"
            );
            let both = call(
                &client,
                tool,
                json!({"path": "a.txt", "head": 1, "tail": 1}),
            )
            .await;
            assert_eq!(
                err_text(tool, &both),
                "Cannot specify both head and tail parameters simultaneously"
            );
        }
        assert_eq!(
            text(
                "read_multiple_files",
                json!({"paths": ["a.txt", "sub/c.txt"]})
            )
            .await,
            "a.txt:\none\ntwo\nthree\n\n\n---\nsub/c.txt:\nhello\n"
        );
        let partial = text(
            "read_multiple_files",
            json!({"paths": ["nope.txt", "sub/c.txt"]}),
        )
        .await;
        let (first, second) = partial.split_once("\n---\n").unwrap();
        assert!(first.starts_with("nope.txt: Error - "), "{partial}");
        assert_eq!(second, "sub/c.txt:\nhello\n");

        assert_eq!(
            text("list_directory", json!({"path": "."})).await,
            "[FILE] a.txt\n[FILE] b.md\n[FILE] data.bin\n[FILE] img.png\n[FILE] notes.txt\n[DIR] sized\n[DIR] sub"
        );
        let line = |name: &str, size: &str| format!("[FILE] {name:<30} {size:>10}");
        assert_eq!(
            text("list_directory_with_sizes", json!({"path": "sized"})).await,
            [
                line("big.txt", "2.93 KB"),
                line("mid.txt", "1.46 KB"),
                line("small.txt", "10 B"),
                String::new(),
                "Total: 3 files, 0 directories".to_owned(),
                "Combined size: 4.40 KB".to_owned(),
            ]
            .join("\n")
        );
        // Largest first; directories have no size of their own here and come last.
        assert_eq!(
            text(
                "list_directory_with_sizes",
                json!({"path": ".", "sortBy": "size"})
            )
            .await,
            [
                line("b.md", "1.13 KB"),
                line("notes.txt", "16 B"),
                line("a.txt", "14 B"),
                line("img.png", "4 B"),
                line("data.bin", "3 B"),
                format!("[DIR] {:<30} ", "sized"),
                format!("[DIR] {:<30} ", "sub"),
                String::new(),
                "Total: 5 files, 2 directories".to_owned(),
                "Combined size: 1.16 KB".to_owned(),
            ]
            .join("\n")
        );
        let tree = text(
            "directory_tree",
            json!({"path": "sub", "excludePatterns": ["*.log"]}),
        )
        .await;
        assert_eq!(
            serde_json::from_str::<Value>(&tree).unwrap(),
            json!([
                {"name": "c.txt", "type": "file"},
                {"name": "deep", "type": "directory", "children": [{"name": "d.txt", "type": "file"}]}
            ])
        );
        assert!(
            tree.starts_with("[\n  {\n    \"name\": \"c.txt\""),
            "2-space indent: {tree}"
        );
        assert_eq!(
            text(
                "search_files",
                json!({"path": ".", "pattern": "**/*.txt", "excludePatterns": ["sized"]})
            )
            .await,
            format!("{root}/a.txt\n{root}/notes.txt\n{root}/sub/c.txt\n{root}/sub/deep/d.txt")
        );
        assert_eq!(
            text("search_files", json!({"path": "sub", "pattern": "*.zzz"})).await,
            "No matches found"
        );

        let info = text("get_file_info", json!({"path": "b.md"})).await;
        let lines: Vec<(&str, &str)> = info.lines().map(|l| l.split_once(": ").unwrap()).collect();
        let keys: Vec<&str> = lines.iter().map(|(k, _)| *k).collect();
        assert_eq!(
            keys,
            [
                "size",
                "created",
                "modified",
                "accessed",
                "isDirectory",
                "isFile",
                "permissions"
            ]
        );
        assert_eq!(lines[0].1, "1152");
        for (k, v) in &lines[1..4] {
            assert_js_date(k, v);
        }
        assert_eq!((lines[4].1, lines[5].1), ("false", "true"));
        let mode = std::os::unix::fs::PermissionsExt::mode(
            &std::fs::metadata(t.root.join("b.md"))
                .unwrap()
                .permissions(),
        );
        assert_eq!(lines[6].1, format!("{:03o}", mode & 0o777));
        let dir_info = text("get_file_info", json!({"path": "sub"})).await;
        assert!(
            dir_info.contains("\nisDirectory: true\nisFile: false\n"),
            "{dir_info}"
        );

        let media = call(&client, "read_media_file", json!({"path": "img.png"})).await;
        let image = json!({"type": "image", "data": "iVBORw==", "mimeType": "image/png"});
        assert_eq!(
            serde_json::to_value(&media.content).unwrap(),
            json!([image])
        );
        assert_eq!(media.structured_content, Some(json!({"content": [image]})));
        let media = call(&client, "read_media_file", json!({"path": "data.bin"})).await;
        let resource = json!({"type": "resource", "resource": {
            "uri": format!("file://{root}/data.bin"),
            "mimeType": "application/octet-stream",
            "blob": "AAEC"
        }});
        assert_eq!(
            serde_json::to_value(&media.content).unwrap(),
            json!([resource])
        );
        assert_eq!(
            media.structured_content,
            Some(json!({"content": [resource]}))
        );
        client.close().await.unwrap();
    }
}

#[tokio::test]
async fn changes_have_the_reference_texts() {
    let t = tree();
    let root = t.root_str();
    let client = file_server([root], EraMode::Legacy).await;
    let text = |name: &'static str, args: Value| {
        let client = client.clone();
        async move { ok_text(name, &call(&client, name, args).await) }
    };
    assert_eq!(
        text(
            "write_file",
            json!({"path": "new.txt", "content": "fresh\n"})
        )
        .await,
        "Successfully wrote to new.txt"
    );
    assert_eq!(
        std::fs::read_to_string(t.root.join("new.txt")).unwrap(),
        "fresh\n"
    );
    assert_eq!(
        text("create_directory", json!({"path": "x/y"})).await,
        "Successfully created directory x/y"
    );
    assert!(t.root.join("x/y").is_dir());
    assert_eq!(
        text(
            "move_file",
            json!({"source": "new.txt", "destination": "x/y/new.txt"})
        )
        .await,
        "Successfully moved new.txt to x/y/new.txt"
    );
    assert!(t.root.join("x/y/new.txt").is_file());

    let edit =
        json!({"path": "a.txt", "edits": [{"oldText": "two", "newText": "TWO"}], "dryRun": true});
    let diff = text("edit_file", edit.clone()).await;
    assert_eq!(
        diff,
        format!(
            "```diff\nIndex: {root}/a.txt\n{}\n--- {root}/a.txt\toriginal\n+++ {root}/a.txt\tmodified\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n```\n\n",
            "=".repeat(67)
        )
    );
    assert_eq!(
        std::fs::read_to_string(t.root.join("a.txt")).unwrap(),
        "one\ntwo\nthree\n"
    );
    let mut real = edit;
    real.as_object_mut().unwrap().remove("dryRun");
    assert_eq!(text("edit_file", real).await, diff);
    assert_eq!(
        std::fs::read_to_string(t.root.join("a.txt")).unwrap(),
        "one\nTWO\nthree\n"
    );
    let missing = call(
        &client,
        "edit_file",
        json!({"path": "a.txt", "edits": [{"oldText": "zzz", "newText": "y"}]}),
    )
    .await;
    assert_eq!(
        err_text("edit_file", &missing),
        "Could not find exact match for edit:\nzzz"
    );
}

/// An edit whose whitespace-tolerant match copies a 3 MiB indentation onto 100,000 new lines
/// would ask for about 300 GB: it is refused before anything is built, dry run or not, and the
/// server keeps serving.
#[tokio::test]
async fn an_edit_that_would_explode_is_refused_and_the_server_survives() {
    let t = tree();
    let lines = 100_000;
    let indented = format!("{}a\n{}", " ".repeat(3 << 20), "b\n".repeat(lines));
    std::fs::write(t.root.join("wide.txt"), &indented).unwrap();
    let client = file_server([t.root_str()], EraMode::Legacy).await;
    let old = format!("\ta{}", "\n\tb".repeat(lines));
    let new = format!("x{}", "\n\t\ty".repeat(lines));
    for dry_run in [true, false] {
        let args = json!({
            "path": "wide.txt",
            "edits": [{"oldText": old, "newText": new}],
            "dryRun": dry_run,
        });
        let refused = guarded(call(&client, "edit_file", args)).await;
        let text = err_text("edit_file", &refused);
        assert!(text.contains("over the write limit"), "{text}");
    }
    assert_eq!(
        std::fs::read_to_string(t.root.join("wide.txt")).unwrap(),
        indented
    );
    let fine = call(
        &client,
        "edit_file",
        json!({"path": "a.txt", "edits": [{"oldText": "two", "newText": "2"}]}),
    )
    .await;
    ok_text("edit_file", &fine);
}

#[tokio::test]
async fn failures_are_tool_errors_that_reveal_nothing_outside() {
    let t = tree();
    let outside = tempfile::tempdir().unwrap();
    let secret = outside.path().join("secret.txt");
    std::fs::write(&secret, "TOP-SECRET").unwrap();
    std::os::unix::fs::symlink(&secret, t.root.join("link.txt")).unwrap();
    let client = file_server([t.root_str()], EraMode::Legacy).await;
    let outside_str = outside.path().to_str().unwrap();
    for (tool, args) in [
        ("read_text_file", json!({"path": "/etc/passwd"})),
        ("read_text_file", json!({"path": "link.txt"})),
        ("read_text_file", json!({"path": "../secret.txt"})),
        ("read_media_file", json!({"path": secret.to_str().unwrap()})),
        ("get_file_info", json!({"path": "link.txt"})),
        ("list_directory", json!({"path": outside_str})),
        (
            "write_file",
            json!({"path": "link.txt", "content": "PWNED"}),
        ),
        (
            "move_file",
            json!({"source": "a.txt", "destination": format!("{outside_str}/a.txt")}),
        ),
    ] {
        let r = call(&client, tool, args.clone()).await;
        let message = err_text(tool, &r);
        assert!(!message.contains("TOP-SECRET"), "{tool} {args}: {message}");
        if !args.to_string().contains(outside_str) {
            assert!(
                !message.contains(outside_str),
                "{tool} {args} named the outside: {message}"
            );
        }
    }
    assert_eq!(std::fs::read_to_string(&secret).unwrap(), "TOP-SECRET");
    // Arguments are validated first; every violation is listed.
    for args in [
        json!({"path": "a.txt", "head": -1}),
        json!({"path": "a.txt", "head": 1.5}),
        json!({"path": "a.txt", "lines": 3}),
        json!({}),
    ] {
        let r = call(&client, "read_text_file", args.clone()).await;
        assert!(r.is_error(), "{args}: {r:?}");
    }
    let empty = call(&client, "read_multiple_files", json!({"paths": []})).await;
    assert!(empty.is_error(), "minItems 1: {empty:?}");
    let r = call(
        &client,
        "list_directory_with_sizes",
        json!({"path": ".", "sortBy": "date"}),
    )
    .await;
    assert!(r.is_error(), "{r:?}");
}

#[tokio::test]
async fn read_only_server_offers_only_the_reading_tools() {
    let t = tree();
    let client = file_server(["--read-only", t.root_str()], EraMode::Legacy).await;
    let tools = guarded(client.list_tools()).await.unwrap();
    let mut names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    names.sort_unstable();
    let mut reading: Vec<&str> = CONTRACT
        .iter()
        .filter(|c| c.hints[0] == Some(true))
        .map(|c| c.name)
        .collect();
    reading.sort_unstable();
    assert_eq!(names, reading);
    let write =
        guarded(client.call_tool("write_file", json!({"path": "a.txt", "content": "x"}))).await;
    assert!(
        write.is_err(),
        "an unlisted tool is an unknown tool: {write:?}"
    );
    assert_eq!(
        std::fs::read_to_string(t.root.join("a.txt")).unwrap(),
        "one\ntwo\nthree\n"
    );
    let read = call(&client, "read_text_file", json!({"path": "a.txt"})).await;
    assert_eq!(ok_text("read", &read), "one\ntwo\nthree\n");
}

#[tokio::test]
async fn extensions_limit_the_files() {
    let t = tree();
    let client = file_server(
        ["--ext", "TXT", "--ext", ".png", t.root_str()],
        EraMode::Legacy,
    )
    .await;
    let listing = ok_text(
        "list",
        &call(&client, "list_directory", json!({"path": "."})).await,
    );
    assert_eq!(
        listing,
        "[FILE] a.txt\n[FILE] img.png\n[FILE] notes.txt\n[DIR] sized\n[DIR] sub"
    );
    let md = call(&client, "read_text_file", json!({"path": "b.md"})).await;
    assert!(
        err_text("md", &md).contains("allowed: .txt, .png"),
        "{md:?}"
    );
    let write = call(
        &client,
        "write_file",
        json!({"path": "evil.sh", "content": "x"}),
    )
    .await;
    err_text("write .sh", &write);
    assert!(!t.root.join("evil.sh").exists());
    let ok = call(
        &client,
        "write_file",
        json!({"path": "sub/NEW.Txt", "content": "x"}),
    )
    .await;
    assert_eq!(
        ok_text("write .Txt", &ok),
        "Successfully wrote to sub/NEW.Txt"
    );
}

/// Runs `file-server` to completion with `args` and stdin closed.
fn run_to_exit(args: &[&str]) -> std::process::Output {
    std::process::Command::new(mcp_tests::example_bin("file-server"))
        .args(args)
        .stdin(std::process::Stdio::null())
        .output()
        .expect("file-server runs")
}

#[test]
fn usage_and_startup_errors() {
    let out = run_to_exit(&[]);
    assert_eq!(out.status.code(), Some(2), "no DIR is a usage error");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("DIR") && stderr.contains("Usage"),
        "{stderr}"
    );
    let out = run_to_exit(&["--bogus", "."]);
    assert_eq!(out.status.code(), Some(2));
    let missing = tempfile::tempdir().unwrap().path().join("missing");
    let out = run_to_exit(&[missing.to_str().unwrap()]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "a missing directory is a startup error"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("does not exist"), "{stderr}");
    let out = run_to_exit(&["--help"]);
    assert!(out.status.success());
    let help = String::from_utf8_lossy(&out.stdout);
    for flag in ["--ext", "--read-only", "--transport", "--bind", "<DIR>..."] {
        assert!(help.contains(flag), "--help lacks {flag}:\n{help}");
    }
}

#[tokio::test]
async fn startup_removes_stale_temporary_files() {
    let t = tree();
    // pid_max is at most 2^22, so no process has this id.
    let stale = mcp_runtime::fuzzing::temp_file_name(99_999_999);
    let live = mcp_runtime::fuzzing::temp_file_name(std::process::id());
    let idle = mcp_runtime::fs::STALE_AFTER * 2;
    for dir in [&t.root, &t.root.join("sub/deep")] {
        std::fs::write(dir.join(&stale), "complete but stale").unwrap();
        std::fs::write(dir.join(&live), "a running writer's").unwrap();
        set_idle(&dir.join(&stale), idle);
        set_idle(&dir.join(&live), idle);
    }
    // The sweep never follows a symlink out of the root ("out" is walked before "sub").
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join(&stale), "not ours to delete").unwrap();
    set_idle(&outside.path().join(&stale), idle);
    std::os::unix::fs::symlink(outside.path(), t.root.join("out")).unwrap();
    let client = file_server(["--ext", "txt", t.root_str()], EraMode::Legacy).await;
    // The root is cleaned before the server answers.
    assert!(!t.root.join(&stale).exists());
    // Directories below are cleaned in the background: wait for it (bounded).
    let deep = t.root.join("sub/deep").join(&stale);
    let deadline = Instant::now() + Duration::from_secs(60);
    while deep.exists() && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(
        !deep.exists(),
        "the background sweep did not remove {}",
        deep.display()
    );
    assert!(
        outside.path().join(&stale).exists(),
        "the sweep followed a symlink out"
    );
    // Files of a process that is alive are not touched.
    assert!(t.root.join(&live).exists() && t.root.join("sub/deep").join(&live).exists());
    client.close().await.unwrap();

    // A read-only server changes nothing, not even stale files.
    std::fs::write(t.root.join(&stale), "stale").unwrap();
    set_idle(&t.root.join(&stale), idle);
    let client = file_server(["--read-only", t.root_str()], EraMode::Legacy).await;
    guarded(client.list_tools()).await.unwrap();
    assert!(t.root.join(&stale).exists());
    client.close().await.unwrap();
}

#[tokio::test]
async fn serves_the_tools_over_http() {
    let t = tree();
    let mut server =
        mcp_tests::http::Spawned::start("file-server", &["--ext", "txt", t.root_str()]);
    let list = mcp_tests::http::post_modern(&server.url, 1, "tools/list", json!({})).await;
    assert_eq!(
        list.answer()["result"]["tools"].as_array().map(Vec::len),
        Some(14),
        "{}",
        list.text()
    );
    let read = mcp_tests::http::post_modern(
        &server.url,
        2,
        "tools/call",
        json!({"name": "read_text_file", "arguments": {"path": "a.txt", "tail": 1}}),
    )
    .await;
    let answer = read.answer();
    assert_eq!(answer["result"]["content"][0]["text"], "three", "{answer}");
    assert_eq!(
        answer["result"]["structuredContent"],
        json!({"content": "three"})
    );
    assert!(server.terminate(), "a graceful stop: {}", server.stderr());
}
