//! What is counted while it lasts: 2025 sessions, tasks and HTTP event streams, each an
//! up-down counter raised when it starts and lowered when its guard goes.

use super::INSTRUMENTS;
use opentelemetry::KeyValue;
use std::time::Instant;

/// A 2025 session's telemetry: counted as active from its `initialize` until it goes, then
/// its duration recorded.
#[derive(Debug)]
pub(crate) struct Session {
    start: Instant,
    version: &'static str,
}

impl Session {
    /// Starts counting a session negotiated at `version`, when telemetry is on.
    pub(crate) fn start(version: &'static str) -> Option<Self> {
        let instruments = INSTRUMENTS.get()?;
        instruments
            .active_sessions
            .add(1, &[KeyValue::new("mcp.protocol.version", version)]);
        Some(Self {
            start: Instant::now(),
            version,
        })
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        if let Some(instruments) = INSTRUMENTS.get() {
            let attributes = [KeyValue::new("mcp.protocol.version", self.version)];
            instruments.active_sessions.add(-1, &attributes);
            instruments
                .session_duration
                .record(self.start.elapsed().as_secs_f64(), &attributes);
        }
    }
}

/// A task's telemetry: counted `created` and active from when it is stored, then counted
/// by how it ended (`end`), or `cancelled` when dropped without an end.
#[derive(Debug)]
pub(crate) struct Task {
    tool: std::sync::Arc<str>,
    ended: bool,
}

impl Task {
    /// Counts a task of `tool` stored, when telemetry is on.
    pub(crate) fn start(tool: &std::sync::Arc<str>) -> Option<Self> {
        let instruments = INSTRUMENTS.get()?;
        let tool_name = KeyValue::new("gen_ai.tool.name", tool.to_string());
        instruments.tasks.add(
            1,
            &[
                KeyValue::new("mcp.task.status", "created"),
                tool_name.clone(),
            ],
        );
        instruments.active_tasks.add(1, &[tool_name]);
        Some(Self {
            tool: tool.clone(),
            ended: false,
        })
    }

    /// Counts the task's end: `completed` or `failed`.
    pub(crate) fn end(mut self, failed: bool) {
        self.count(if failed { "failed" } else { "completed" });
    }

    fn count(&mut self, status: &'static str) {
        if std::mem::replace(&mut self.ended, true) {
            return;
        }
        if let Some(instruments) = INSTRUMENTS.get() {
            let tool_name = KeyValue::new("gen_ai.tool.name", self.tool.to_string());
            instruments.tasks.add(
                1,
                &[KeyValue::new("mcp.task.status", status), tool_name.clone()],
            );
            instruments.active_tasks.add(-1, &[tool_name]);
        }
    }
}

impl Drop for Task {
    fn drop(&mut self) {
        self.count("cancelled");
    }
}

/// An open event stream, counted in `mcp.server.active_streams` until dropped.
#[cfg(feature = "http")]
#[derive(Debug)]
pub(crate) struct OpenStream(());

#[cfg(feature = "http")]
impl OpenStream {
    /// Counts a stream opened, when telemetry is on.
    pub(crate) fn start() -> Option<Self> {
        INSTRUMENTS.get()?.active_streams.add(1, &[]);
        Some(Self(()))
    }
}

#[cfg(feature = "http")]
impl Drop for OpenStream {
    fn drop(&mut self) {
        if let Some(instruments) = INSTRUMENTS.get() {
            instruments.active_streams.add(-1, &[]);
        }
    }
}
