//! Testing a server in `cargo test`: a client connected in memory in either protocol era, and
//! snapshots of what clients see (`tools/list` above all) checked against committed files.
//!
//! ```
//! use mcp_runtime::prelude::*;
//! use mcp_runtime::testing::{self, ERAS, EraMode};
//!
//! /// Adds two numbers.
//! #[mcp_tool]
//! async fn add(a: f64, b: f64) -> f64 {
//!     a + b
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! let server = Server::builder("calc", "1.0.0").tool(add::tool()).build().unwrap();
//! for era in ERAS {
//!     let client = testing::connect(&server, era).await;
//!     let sum = client.call_tool("add", serde_json::json!({"a": 2, "b": 3})).await.unwrap();
//!     assert_eq!(sum.first_text(), Some("5"), "{era:?}");
//! }
//! # let dir = tempfile::tempdir().unwrap();
//! # let path = dir.path().join("tools.json");
//! # let tools = testing::connect(&server, EraMode::Legacy).await.list_tools().await.unwrap();
//! # std::fs::write(&path, serde_json::json!({"tools": tools}).to_string()).unwrap();
//! // Fails with a diff when the tools changed (`UPDATE_SNAPSHOTS=1` writes the file instead).
//! testing::assert_tools_snapshot(&server, &path).await;
//! # }
//! ```

use crate::client::Client;
pub use crate::client::EraMode;
use crate::server::Server;
use serde_json::{Value, json};
use std::path::Path;

/// Both eras, to run a test in each: the 2025 `initialize` handshake and stateless
/// 2026-07-28.
pub const ERAS: [EraMode; 2] = [EraMode::Legacy, EraMode::Modern];

/// The environment variable that makes the snapshot assertions write instead of compare.
pub const UPDATE_SNAPSHOTS: &str = "UPDATE_SNAPSHOTS";

/// A client connected in memory to `server` in `era`. Panics (this is for tests) with the
/// reason when the server refuses the handshake.
pub async fn connect(server: &Server, era: EraMode) -> Client {
    let client = Client::memory(server);
    if let Err(e) = client.connect(era).await {
        panic!("the server refused the {era:?} handshake: {e}");
    }
    client
}

/// Checks `tools/list` (every page, as a 2025 client sees it, `{"tools": [...]}`) against
/// the JSON file at `path`; see [`assert_json_snapshot`].
pub async fn assert_tools_snapshot(server: &Server, path: impl AsRef<Path>) {
    let client = connect(server, EraMode::Legacy).await;
    let tools = client
        .list_tools()
        .await
        .unwrap_or_else(|e| panic!("tools/list failed: {e}"));
    assert_json_snapshot(&json!({ "tools": tools }), path);
}

/// Checks `actual` against the JSON file at `path`. With `UPDATE_SNAPSHOTS` set in the
/// environment, writes it there instead (pretty-printed, a final newline), so an intended
/// change is one command and a diff to review. Panics with the lines that differ, and how
/// to bless the change, when they differ or the file is missing.
pub fn assert_json_snapshot(actual: &Value, path: impl AsRef<Path>) {
    let path = path.as_ref();
    let text = serde_json::to_string_pretty(actual).unwrap_or_default() + "\n";
    if std::env::var_os(UPDATE_SNAPSHOTS).is_some() {
        if let Some(dir) = path.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        if let Err(e) = std::fs::write(path, &text) {
            panic!("cannot write the snapshot {}: {e}", path.display());
        }
        return;
    }
    let bless = format!(
        "if the change is intended, run `{UPDATE_SNAPSHOTS}=1 cargo test` and review the diff"
    );
    let committed = match std::fs::read_to_string(path) {
        Ok(committed) => committed,
        Err(e) => panic!("no snapshot at {} ({e}); {bless}", path.display()),
    };
    let expected: Value = match serde_json::from_str(&committed) {
        Ok(expected) => expected,
        Err(e) => panic!("the snapshot {} is not JSON ({e}); {bless}", path.display()),
    };
    if &expected != actual {
        let expected_text = serde_json::to_string_pretty(&expected).unwrap_or_default() + "\n";
        panic!(
            "{} differs from what the server says now ({bless}):\n{}",
            path.display(),
            line_diff(&expected_text, &text)
        );
    }
}

/// The lines that differ, `-` committed and `+` now, from the first difference on (at most
/// 40 lines). Hand-written rather than a diff crate: the snapshots are pretty-printed JSON
/// that mostly grows or changes in place, and this keeps the testing module free of
/// dependencies.
fn line_diff(expected: &str, actual: &str) -> String {
    let old: Vec<&str> = expected.lines().collect();
    let new: Vec<&str> = actual.lines().collect();
    let start = old.iter().zip(&new).take_while(|(a, b)| a == b).count();
    let old_end = old.len()
        - old[start..]
            .iter()
            .rev()
            .zip(new[start..].iter().rev())
            .take_while(|(a, b)| a == b)
            .count();
    let new_end = new.len() - (old.len() - old_end);
    let mut out = format!("at line {}:\n", start + 1);
    let removed = old[start..old_end].iter().map(|l| format!("-{l}"));
    let added = new[start..new_end].iter().map(|l| format!("+{l}"));
    let lines: Vec<String> = removed.chain(added).collect();
    for line in lines.iter().take(40) {
        out.push_str(line);
        out.push('\n');
    }
    if lines.len() > 40 {
        out.push_str(&format!("… and {} more lines\n", lines.len() - 40));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_diff_shows_the_changed_lines_only() {
        let diff = line_diff("a\nb\nc\nd\n", "a\nB\nC\nd\n");
        assert_eq!(diff, "at line 2:\n-b\n-c\n+B\n+C\n");
        let grown = line_diff("a\nz\n", "a\nb\nz\n");
        assert_eq!(grown, "at line 2:\n+b\n");
    }
}
