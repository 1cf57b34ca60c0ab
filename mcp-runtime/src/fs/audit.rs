//! Audit events: one per file operation, `tracing` target [`AUDIT_TARGET`].
//!
//! Fields: `operation`, `tool` (empty when none), `root` (the allowed directory), `path`
//! (relative to it; `.` for the directory itself), `destination` (moves), `outcome` (`ok`,
//! `denied` for a policy refusal, `error` for a failure), `error` (the error kind). A request
//! that could not be placed under a root (malformed, or outside every root) has no `root`
//! or `path`; its raw text is recorded as `requested`, escaped, for the operator's eyes only.
//! Successes log at `INFO`, denials at `WARN`, failures at `INFO`.

use super::error::FsError;
use super::resolve::{Core, Location};
use std::path::Path;
use std::sync::Arc;

/// The `tracing` target of file-service audit events: the one every audit event has.
pub use crate::pipeline::AUDIT_TARGET;

/// What one operation did, filled in as it runs.
#[derive(Debug, Clone)]
pub(crate) struct AuditRecord {
    operation: &'static str,
    tool: Option<Arc<str>>,
    requested: String,
    root: Option<Arc<Path>>,
    path: Option<String>,
    destination: Option<String>,
}

impl AuditRecord {
    pub(crate) fn new(operation: &'static str, tool: Option<Arc<str>>, requested: &str) -> Self {
        Self {
            operation,
            tool,
            requested: requested.to_owned(),
            root: None,
            path: None,
            destination: None,
        }
    }

    /// Records where the request landed.
    pub(crate) fn located(&mut self, core: &Core, loc: &Location) {
        self.root = Some(core.roots[loc.root].display.clone());
        self.path = Some(rel_text(loc));
    }

    /// Records where a move went.
    pub(crate) fn destination(&mut self, core: &Core, loc: &Location) {
        self.destination = Some(format!(
            "{}/{}",
            core.roots[loc.root].display.display(),
            rel_text(loc)
        ));
    }

    pub(crate) fn emit<T>(&self, result: &Result<T, FsError>) {
        let tool = self.tool.as_deref().unwrap_or("");
        let root = self.root.as_deref().map(|r| r.display().to_string());
        let root = root.as_deref().unwrap_or("");
        let path = self.path.as_deref().unwrap_or("");
        let destination = self.destination.as_deref().unwrap_or("");
        // The raw request only when it could not be placed; Debug escapes control characters.
        let requested = if self.path.is_none() {
            format!("{:?}", self.requested)
        } else {
            String::new()
        };
        let operation = self.operation;
        match result {
            Ok(_) => tracing::info!(
                target: AUDIT_TARGET,
                operation, tool, root, path, destination, outcome = "ok",
                "file operation"
            ),
            Err(e) if e.is_denial() => tracing::warn!(
                target: AUDIT_TARGET,
                operation, tool, root, path, destination, requested, outcome = "denied",
                error = e.kind_label(),
                "file operation denied"
            ),
            Err(e) => tracing::info!(
                target: AUDIT_TARGET,
                operation, tool, root, path, destination, requested, outcome = "error",
                error = e.kind_label(),
                "file operation failed"
            ),
        }
    }
}

fn rel_text(loc: &Location) -> String {
    if loc.rel.is_empty() {
        ".".to_owned()
    } else {
        loc.rel.join("/")
    }
}

#[cfg(test)]
mod tests {
    use crate::fs::{FileService, FsPolicy, LineRange};
    use crate::test_log::Captured;

    #[test]
    fn every_operation_is_audited_with_root_relative_paths() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("d")).unwrap();
        let (captured, _guard) = Captured::install();
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        rt.block_on(async {
            let files = FileService::new(FsPolicy::new().allow_dir(dir.path()))
                .unwrap()
                .for_tool("write_file");
            files.write_file("d/a.txt", "x").await.unwrap();
            let other = files.for_tool("read_text_file");
            other
                .read_text_file("/etc/passwd", LineRange::All)
                .await
                .unwrap_err();
            other
                .read_text_file("d/missing.txt", LineRange::All)
                .await
                .unwrap_err();
        });
        let text = captured.text();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3, "{text}");
        let root = format!("root={:?}", dir.path().display().to_string());
        assert!(lines[0].contains("mcp::audit"), "{}", lines[0]);
        for field in [
            "operation=\"write\"",
            "tool=\"write_file\"",
            "path=\"d/a.txt\"",
            "outcome=\"ok\"",
            &root,
        ] {
            assert!(lines[0].contains(field), "{field} in {}", lines[0]);
        }
        assert!(lines[0].contains("INFO"));
        for field in [
            "WARN",
            "outcome=\"denied\"",
            "error=\"outside_roots\"",
            "requested=\"\\\"/etc/passwd\\\"\"",
            "path=\"\"",
        ] {
            assert!(lines[1].contains(field), "{field} in {}", lines[1]);
        }
        for field in [
            "outcome=\"error\"",
            "error=\"not_found\"",
            "path=\"d/missing.txt\"",
            "tool=\"read_text_file\"",
        ] {
            assert!(lines[2].contains(field), "{field} in {}", lines[2]);
        }
    }
}
