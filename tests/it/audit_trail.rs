//! The default audit trail under load: `echo-server` as users run it (no `RUST_LOG`, so the
//! audit sink is on) answers many calls, exits normally, and its stderr holds exactly one
//! audit line per call: none lost in the sink's batching, none written twice.

use std::collections::HashSet;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Command, Stdio};

/// The ids of the `tools/call` audit lines in `log`, checking each appears once.
fn audited_calls(log: &str) -> HashSet<i64> {
    let mut ids = HashSet::new();
    for line in log
        .lines()
        .filter(|l| l.contains(" mcp::audit: request ") && l.contains(" method=tools/call "))
    {
        assert!(line.contains(" outcome=ok"), "{line}");
        let id = line
            .split_whitespace()
            .find_map(|w| w.strip_prefix("id="))
            .and_then(|id| id.parse().ok())
            .unwrap_or_else(|| panic!("no id in {line}"));
        assert!(ids.insert(id), "audited twice: {line}");
    }
    ids
}

#[test]
fn stdio_every_call_is_audited_once() {
    const CALLS: i64 = 20_000;
    let mut child = Command::new(mcp_tests::example_bin("echo-server"))
        .env_remove("RUST_LOG")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("echo-server starts");
    let mut stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let log = std::thread::spawn(move || {
        let mut log = String::new();
        stderr.read_to_string(&mut log).unwrap();
        log
    });
    let answers = std::thread::spawn(move || BufReader::new(stdout).lines().count());
    let mut lines = String::new();
    for id in 1..=CALLS {
        lines.push_str(&format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"m{id}"}},"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}}}}}}}}"#
        ));
        lines.push('\n');
    }
    stdin.write_all(lines.as_bytes()).unwrap();
    drop(stdin);
    assert_eq!(answers.join().unwrap(), CALLS as usize);
    assert!(child.wait().unwrap().success());
    let log = log.join().unwrap();
    assert_all_audited(&log, CALLS);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_every_call_is_audited_once_through_a_graceful_stop() {
    const CALLS: i64 = 2_000;
    const CONNECTIONS: i64 = 8;
    let mut child = std::process::Command::new(mcp_tests::example_bin("echo-server"))
        .args(["--transport", "http", "--bind", "127.0.0.1:0"])
        .env_remove("RUST_LOG")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("echo-server starts");
    let stderr = child.stderr.take().unwrap();
    let (url_tx, url_rx) = std::sync::mpsc::channel();
    let log = std::thread::spawn(move || {
        let mut log = String::new();
        let mut url_tx = Some(url_tx);
        for line in BufReader::new(stderr).lines() {
            let line = line.unwrap();
            if let Some(url) = line.split_whitespace().find(|w| w.starts_with("http://"))
                && let Some(tx) = url_tx.take()
            {
                tx.send(url.to_owned()).unwrap();
            }
            log.push_str(&line);
            log.push('\n');
        }
        log
    });
    let url = url_rx
        .recv_timeout(std::time::Duration::from_secs(60))
        .expect("the server prints its URL");
    let clients: Vec<_> = (0..CONNECTIONS)
        .map(|c| {
            let url = url.clone();
            tokio::spawn(async move {
                for id in (1..=CALLS).filter(|id| id % CONNECTIONS == c) {
                    let args = serde_json::json!({"name": "echo", "arguments": {"text": "hi"}});
                    let response = mcp_tests::http::open_modern(&url, id, "tools/call", args).await;
                    assert_eq!(response.status(), 200);
                    http_body_util::BodyExt::collect(response.into_body())
                        .await
                        .unwrap();
                }
            })
        })
        .collect();
    for client in clients {
        client.await.unwrap();
    }
    let stopped = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(stopped.success());
    assert!(child.wait().unwrap().success());
    let log = log.join().unwrap();
    assert_all_audited(&log, CALLS);
}

/// Checks that calls `1..=calls`, and only they, have one audit line each in `log`.
fn assert_all_audited(log: &str, calls: i64) {
    let audited = audited_calls(log);
    let missing: Vec<i64> = (1..=calls).filter(|id| !audited.contains(id)).collect();
    assert!(
        missing.is_empty() && audited.len() == calls as usize,
        "{} of {calls} calls audited; missing {} (first {:?}); the log ends:\n{}",
        audited.len(),
        missing.len(),
        &missing[..missing.len().min(10)],
        tail(log)
    );
}

/// The last lines of a log, for a failure message.
fn tail(log: &str) -> String {
    let lines: Vec<&str> = log.lines().collect();
    lines[lines.len().saturating_sub(20)..].join("\n")
}
