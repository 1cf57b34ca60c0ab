//! Shared support for the file-tool tests (`fs_tools*`): a fixture tree, and `file-server` (or
//! the reference server) driven over stdio by `mcp_runtime::client::Client`.

use crate::fs_support::guarded;
use mcp_runtime::client::{Client, EraMode};
use mcp_runtime::protocol::CallToolResult;
use serde_json::{Value, json};
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Stdio;

/// A fixture tree in a fresh temporary directory, its path canonical (so the paths results
/// show are the same whichever server produced them):
///
/// ```text
/// a.txt            "one\ntwo\nthree\n"
/// b.md             1152 × "x"   (1.13 KB: a tie JavaScript's toFixed rounds up)
/// notes.txt        "alpha\nbeta\ngamma"   (no final newline)
/// img.png          4 bytes
/// data.bin         3 bytes
/// sub/c.txt        "hello"
/// sub/skip.log     "log"
/// sub/deep/d.txt   "deep\nfile"
/// sized/big.txt    3000 bytes, sized/mid.txt 1500, sized/small.txt 10
/// ```
pub(crate) struct Tree {
    _tmp: tempfile::TempDir,
    pub(crate) root: PathBuf,
}

pub(crate) fn tree() -> Tree {
    let tmp = tempfile::tempdir().expect("tempdir");
    let root = tmp.path().canonicalize().expect("canonical tempdir");
    let files: &[(&str, &[u8])] = &[
        ("a.txt", b"one\ntwo\nthree\n"),
        ("b.md", &[b'x'; 1152]),
        ("notes.txt", b"alpha\nbeta\ngamma"),
        ("img.png", b"\x89PNG"),
        ("data.bin", b"\x00\x01\x02"),
        ("sub/c.txt", b"hello"),
        ("sub/skip.log", b"log"),
        ("sub/deep/d.txt", b"deep\nfile"),
        ("sized/big.txt", &[b'b'; 3000]),
        ("sized/mid.txt", &[b'm'; 1500]),
        ("sized/small.txt", &[b's'; 10]),
    ];
    for (rel, content) in files {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, content).unwrap();
    }
    Tree { _tmp: tmp, root }
}

impl Tree {
    /// The root as a string (test paths are UTF-8).
    pub(crate) fn root_str(&self) -> &str {
        self.root.to_str().expect("UTF-8 temp path")
    }
}

/// Starts `file-server` with `args` (stderr discarded) and connects in `era`.
pub(crate) async fn file_server<I, S>(args: I, era: EraMode) -> Client
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    let mut cmd = tokio::process::Command::new(mcp_tests::example_bin("file-server"));
    cmd.args(args).stderr(Stdio::null());
    connect(cmd, era).await
}

/// Spawns a server command and connects to it.
pub(crate) async fn connect(mut cmd: tokio::process::Command, era: EraMode) -> Client {
    cmd.stderr(Stdio::null());
    let client = Client::spawn(cmd).expect("the server starts");
    guarded(client.connect(era))
        .await
        .expect("the server answers the handshake");
    client
}

/// Calls a tool; a JSON-RPC error fails the test.
pub(crate) async fn call(client: &Client, name: &str, args: Value) -> CallToolResult {
    guarded(client.call_tool(name, args))
        .await
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// The text of a successful result in the reference's shape: one text block `T` and
/// `structuredContent: {content: T}` (a second text block, a truncation note, is allowed).
pub(crate) fn ok_text(what: &str, r: &CallToolResult) -> String {
    assert!(!r.is_error(), "{what}: unexpected error: {r:?}");
    let text = r
        .first_text()
        .unwrap_or_else(|| panic!("{what}: no text: {r:?}"));
    assert_eq!(
        r.structured_content,
        Some(json!({ "content": text })),
        "{what}: structuredContent"
    );
    text.to_owned()
}

/// The text of a failed result in the reference's shape: `isError` and one text block.
pub(crate) fn err_text(what: &str, r: &CallToolResult) -> String {
    assert!(r.is_error(), "{what}: expected an error: {r:?}");
    assert_eq!(r.content.len(), 1, "{what}: {r:?}");
    r.first_text()
        .unwrap_or_else(|| panic!("{what}: no text: {r:?}"))
        .to_owned()
}

/// A tool's input property names and required names, sorted.
pub(crate) fn arguments(schema: &serde_json::Map<String, Value>) -> (Vec<String>, Vec<String>) {
    let mut props: Vec<String> = schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|p| p.keys().cloned().collect())
        .unwrap_or_default();
    let mut required: Vec<String> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| {
            r.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default();
    props.sort();
    required.sort();
    (props, required)
}

/// `text` with every occurrence of `root` replaced by `<ROOT>`.
pub(crate) fn rooted(text: &str, root: &Path) -> String {
    text.replace(root.to_str().expect("UTF-8 temp path"), "<ROOT>")
}
