//! `launch::init_tracing` as a server binary runs it: a tool's own log lines reach stderr
//! beside the audit trail. The test runs itself again as a child process (the subscriber is
//! process-wide and writes to stderr) and reads what the child wrote.
#![cfg(feature = "launch")]

use mcp_runtime::prelude::*;
use mcp_runtime::protocol::ToolDefinition;
use serde_json::json;
use std::process::Command;

/// Set in the child: it serves the calls and logs; the parent only reads.
const CHILD: &str = "MCP_LOGS_TEST_CHILD";

/// In the child: `init_tracing`, then two `tools/call`s of a tool that logs a warning first
/// thing, through the same request pipeline (audit included) every server runs.
fn serve_two_calls() {
    let logs = mcp_runtime::launch::init_tracing();
    let server = Server::builder("logs", "1.0.0")
        .tool(tool_fn(
            ToolDefinition::new("warns", "Logs a warning.", json!({"type": "object"})),
            |_args, _cx| async move {
                tracing::warn!("the tool's own warning");
                "done".to_owned()
            },
        ))
        .build()
        .expect("a valid server");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(async {
        let (tx, mut rx) = tokio::sync::mpsc::channel(16);
        let connection = server.connect(mcp_runtime::transport::Peer::new(tx));
        for id in 1..=2 {
            let call = format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"warns","arguments":{{}},"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}}}}}}}}"#
            );
            connection.handle_line(call.as_bytes()).await;
            let answer = rx.recv().await.expect("an answer");
            assert!(String::from_utf8_lossy(&answer).contains("done"));
        }
    });
    drop(logs);
}

#[test]
fn a_tools_warning_reaches_stderr_beside_its_audit_line() {
    if std::env::var_os(CHILD).is_some() {
        serve_two_calls();
        return;
    }
    let output = Command::new(std::env::current_exe().expect("this test's binary"))
        .args([
            "--exact",
            "a_tools_warning_reaches_stderr_beside_its_audit_line",
            "--nocapture",
        ])
        .env(CHILD, "1")
        .env_remove("RUST_LOG")
        .env_remove("OTEL_EXPORTER_OTLP_ENDPOINT")
        .env_remove("OTEL_TRACES_EXPORTER")
        .env_remove("OTEL_METRICS_EXPORTER")
        .output()
        .expect("the child runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert_eq!(
        stderr.matches("the tool's own warning").count(),
        2,
        "one warning per call: {stderr}"
    );
    assert_eq!(
        stderr.matches("mcp::audit: request").count(),
        2,
        "one audit line per call: {stderr}"
    );
}
