use super::*;
use crate::fs::FsPolicy;
use crate::protocol::CallToolResult;
use serde_json::{Value, json};

fn tools(policy: impl FnOnce(FsPolicy) -> FsPolicy) -> (tempfile::TempDir, Arc<FileTools>) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "one\ntwo\nthree\n").unwrap();
    let files = FileService::new(policy(FsPolicy::new().allow_dir(dir.path()))).unwrap();
    (dir, Arc::new(FileTools::new(files)))
}

async fn call(tools: &Arc<FileTools>, name: &str, args: Value) -> CallToolResult {
    let tool = tools.tools_named(&[name]).unwrap().remove(0);
    let Value::Object(args) = args else {
        panic!("arguments are an object")
    };
    tool.call(args, RequestContext::detached()).await
}

/// Titles and annotations (readOnly, destructive, idempotent, openWorld) of the reference.
const REFERENCE: &[(&str, &str, [Option<bool>; 4])] = &[
    (
        "read_file",
        "Read File (Deprecated)",
        [Some(true), None, None, Some(false)],
    ),
    (
        "read_text_file",
        "Read Text File",
        [Some(true), None, None, Some(false)],
    ),
    (
        "read_media_file",
        "Read Media File",
        [Some(true), None, None, Some(false)],
    ),
    (
        "read_multiple_files",
        "Read Multiple Files",
        [Some(true), None, None, Some(false)],
    ),
    (
        "write_file",
        "Write File",
        [Some(false), Some(true), Some(true), Some(false)],
    ),
    (
        "edit_file",
        "Edit File",
        [Some(false), Some(true), Some(false), Some(false)],
    ),
    (
        "create_directory",
        "Create Directory",
        [Some(false), Some(false), Some(true), Some(false)],
    ),
    (
        "list_directory",
        "List Directory",
        [Some(true), None, None, Some(false)],
    ),
    (
        "list_directory_with_sizes",
        "List Directory with Sizes",
        [Some(true), None, None, Some(false)],
    ),
    (
        "directory_tree",
        "Directory Tree",
        [Some(true), None, None, Some(false)],
    ),
    (
        "move_file",
        "Move File",
        [Some(false), Some(true), Some(false), Some(false)],
    ),
    (
        "search_files",
        "Search Files",
        [Some(true), None, None, Some(false)],
    ),
    (
        "get_file_info",
        "Get File Info",
        [Some(true), None, None, Some(false)],
    ),
    (
        "list_allowed_directories",
        "List Allowed Directories",
        [Some(true), None, None, Some(false)],
    ),
];

#[test]
fn titles_and_annotations_are_the_references() {
    let (_dir, tools) = tools(|p| p);
    let defs: Vec<_> = tools.mcp_tools().iter().map(|t| t.definition()).collect();
    assert_eq!(defs.len(), REFERENCE.len());
    for (name, title, [read_only, destructive, idempotent, open_world]) in REFERENCE {
        let d = defs.iter().find(|d| d.name == *name).expect(name);
        assert_eq!(d.title.as_deref(), Some(*title), "{name}");
        let a = d.annotations.clone().expect(name);
        assert_eq!(
            [
                a.read_only_hint,
                a.destructive_hint,
                a.idempotent_hint,
                a.open_world_hint
            ],
            [*read_only, *destructive, *idempotent, *open_world],
            "{name}"
        );
        let description = d.description.as_deref().unwrap_or_default();
        assert!(description.contains("allowed directories"), "{name}");
        assert!(!description.contains('\n'), "{name}");
        assert!(d.output_schema.is_some(), "{name}");
    }
    let read_only: Vec<String> = tools
        .read_only_tools()
        .iter()
        .map(|t| t.definition().name)
        .collect();
    assert_eq!(read_only.len(), 10);
    assert!(!read_only.contains(&"write_file".to_owned()));
    let Err(e) = tools.tools_named(&["read_text_file", "rm"]) else {
        panic!("an unknown name is an error")
    };
    assert_eq!(e.kind(), FsErrorKind::Config);
    assert!(
        e.to_string().contains("\"rm\"") && e.to_string().contains("move_file"),
        "{e}"
    );
}

#[test]
fn a_read_only_policy_offers_only_the_reading_tools() {
    let (_dir, read_only) = tools(|p| p.read_only(true));
    assert_eq!(read_only.tools_for_policy().len(), 10);
    let (_dir, writable) = tools(|p| p);
    assert_eq!(writable.tools_for_policy().len(), 14);
}

#[tokio::test]
async fn head_and_tail_follow_the_reference() {
    let (_dir, tools) = tools(|p| p);
    let text = |r: CallToolResult| {
        assert!(!r.is_error(), "{r:?}");
        let t = r.first_text().unwrap().to_owned();
        assert_eq!(r.structured_content, Some(json!({ "content": t })));
        t
    };
    let r = call(
        &tools,
        "read_text_file",
        json!({"path": "a.txt", "head": 2}),
    )
    .await;
    assert_eq!(text(r), "one\ntwo");
    // 0 means "not given"; 2.0 is a whole number.
    let r = call(
        &tools,
        "read_file",
        json!({"path": "a.txt", "head": 0, "tail": 2.0}),
    )
    .await;
    assert_eq!(text(r), "two\nthree");
    let r = call(
        &tools,
        "read_text_file",
        json!({"path": "a.txt", "head": 1, "tail": 1}),
    )
    .await;
    assert!(r.is_error());
    assert_eq!(
        r.first_text(),
        Some("Cannot specify both head and tail parameters simultaneously")
    );
    assert!(serde_json::from_value::<LineCount>(json!(1.5)).is_err());
    assert!(serde_json::from_value::<LineCount>(json!(-1)).is_err());
}

#[tokio::test]
async fn read_multiple_files_stops_at_the_read_limit() {
    let (dir, tools) = tools(|p| p.max_read_bytes(10));
    std::fs::write(dir.path().join("b.txt"), "0123456789").unwrap();
    let r = call(
        &tools,
        "read_multiple_files",
        json!({"paths": ["b.txt", "missing.txt", "b.txt", "b.txt"]}),
    )
    .await;
    let text = r.first_text().unwrap();
    let parts: Vec<&str> = text.split("\n---\n").collect();
    assert_eq!(parts.len(), 4, "{text}");
    assert_eq!(parts[0], "b.txt:\n0123456789\n");
    assert!(parts[1].starts_with("missing.txt: Error - \"missing.txt\" does not exist"));
    assert_eq!(parts[2], "b.txt:\n0123456789\n");
    assert!(
        parts[3].starts_with("b.txt: Error - not read: "),
        "{}",
        parts[3]
    );
}
