//! `call` on a tool the server runs as a task (status on stderr, cancellation on timeout and
//! Ctrl-C) and `task get|cancel`, against `conformance-server` over Streamable HTTP.
// Some tests here signal processes the Unix way; elsewhere their helpers go unused.
#![cfg_attr(not(unix), allow(unused_imports, dead_code))]

use crate::support::*;
use mcp_tests::http::Spawned;
use serde_json::Value;
use std::io::{BufRead as _, BufReader};
use std::process::{Output, Stdio};
use std::time::Duration;

fn run(args: &[&str], server: &Spawned) -> Output {
    output(cargo_mcp().args(args).args(["--url", &server.url]))
}

/// The task id in `task <id>: …` lines of stderr.
fn task_id(stderr: &str) -> String {
    stderr
        .lines()
        .find_map(|l| l.strip_prefix("task ")?.split(':').next())
        .unwrap_or_else(|| panic!("no task line in:\n{stderr}"))
        .to_owned()
}

fn status_of(id: &str, server: &Spawned) -> String {
    let out = run(&["task", "get", id, "--json"], server);
    let task: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|_| panic!("--json prints the task:\n{}", show(&out)));
    task["status"].as_str().unwrap().to_owned()
}

#[test]
fn call_shows_a_tasks_status_and_task_get_shows_its_result() {
    let server = Spawned::start("conformance-server", &[]);
    let out = run(
        &["call", "slow_compute", "seconds=0.3", "label=pi"],
        &server,
    );
    assert!(out.status.success(), "{}", show(&out));
    assert_eq!(stdout(&out), "Computed pi after 0.3 second(s)\n");
    let err = stderr(&out);
    let id = task_id(&err);
    assert!(err.contains(&format!("task {id}: working")), "{err}");
    assert!(err.contains(&format!("task {id}: completed")), "{err}");

    let out = run(&["task", "get", &id], &server);
    assert!(out.status.success(), "{}", show(&out));
    let text = stdout(&out);
    assert!(
        text.starts_with(&format!("task {id}: completed\n")),
        "{text}"
    );
    assert!(text.contains("Computed pi after 0.3 second(s)"), "{text}");

    // A tool error: the call and `task get` both exit 3.
    let out = run(&["call", "failing_job"], &server);
    assert_eq!(out.status.code(), Some(3), "{}", show(&out));
    let id = task_id(&stderr(&out));
    let out = run(&["task", "get", &id], &server);
    assert_eq!(out.status.code(), Some(3), "{}", show(&out));

    // An id the server does not know: exit 2.
    let out = run(
        &["task", "get", "0123456789abcdef0123456789abcdef"],
        &server,
    );
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    assert!(stderr(&out).contains("knows no task"), "{}", show(&out));
}

#[test]
fn a_timeout_and_task_cancel_cancel_the_task() {
    let server = Spawned::start("conformance-server", &[]);
    let out = run(
        &["call", "slow_compute", "seconds=600", "--timeout", "2"],
        &server,
    );
    assert!(!out.status.success(), "{}", show(&out));
    let err = stderr(&out);
    let id = task_id(&err);
    assert!(err.contains(&format!("task {id}: cancelled")), "{err}");
    assert_eq!(status_of(&id, &server), "cancelled");

    // `task cancel` on a task started elsewhere (by another client, over raw HTTP).
    let id = start_elsewhere(&server);
    assert_eq!(status_of(&id, &server), "working");
    let out = run(&["task", "cancel", &id], &server);
    assert!(out.status.success(), "{}", show(&out));
    assert_eq!(status_of(&id, &server), "cancelled");
}

/// Starts a long `slow_compute` task as another client would; its id.
fn start_elsewhere(server: &Spawned) -> String {
    let message = serde_json::json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {
            "name": "slow_compute", "arguments": {"seconds": 600},
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {
                    "extensions": {"io.modelcontextprotocol/tasks": {}}
                }
            }
        }
    });
    let headers = [
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "tools/call"),
        ("mcp-name", "slow_compute"),
    ];
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let reply = runtime.block_on(mcp_tests::http::post(&server.url, &headers, &message));
    reply.answer()["result"]["taskId"]
        .as_str()
        .unwrap_or_else(|| panic!("a task handle: {}", reply.text()))
        .to_owned()
}

// Sends SIGINT.
#[cfg(unix)]
#[test]
fn ctrl_c_cancels_the_task_before_exiting() {
    let server = Spawned::start("conformance-server", &[]);
    let mut child = cargo_mcp()
        .args(["call", "slow_compute", "seconds=600", "--url", &server.url])
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let id = loop {
        let line = lines
            .next()
            .expect("the call reports its task before ending")
            .unwrap();
        if line.ends_with(": working") {
            break task_id(&line);
        }
    };
    let pid = rustix::process::Pid::from_raw(i32::try_from(child.id()).unwrap()).unwrap();
    rustix::process::kill_process(pid, rustix::process::Signal::INT).unwrap();
    let rest: Vec<String> = lines.map_while(Result::ok).collect();
    let status = child.wait().unwrap();
    assert!(!status.success());
    assert!(
        rest.iter().any(|l| l == &format!("task {id}: cancelled")),
        "{rest:?}"
    );
    // Cancelled in the server, not just abandoned by the client.
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while status_of(&id, &server) != "cancelled" {
        assert!(std::time::Instant::now() < deadline, "still not cancelled");
        std::thread::sleep(Duration::from_millis(100));
    }
}
