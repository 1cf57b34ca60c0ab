//! The official MCP conformance suite (`@modelcontextprotocol/conformance` 0.1.16, run on
//! Node 22 from the pinned npm package `node`; both installed by
//! `tests/conformance/setup.sh`) against `echo-server --transport http`, for the scenarios
//! that need no special tools. Every check must pass.
//!
//! Facts about the suite (0.1.16): it speaks only Streamable HTTP, opens one session per
//! scenario and never deletes it, prints one line per check and `Passed: P/T, F failed,
//! W warnings`, and exits 1 on any failure. `server-sse-multiple-streams` checks something
//! only when the server mints a session id (otherwise it reports a warning and no check),
//! so it is run against the sessionful mode, where it exercises three concurrent POSTs on
//! one session with `MCP-Protocol-Version: 2025-03-26`.

use mcp_tests::http::Spawned;
use std::io::Read as _;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A scenario that hangs costs the suite 60 s per request; this bounds the whole run.
const SCENARIO_DEADLINE: Duration = Duration::from_secs(180);

/// What one scenario run printed.
struct Outcome {
    passed: usize,
    total: usize,
    failed: usize,
    warnings: usize,
    output: String,
}

fn run_scenario(url: &str, scenario: &str) -> Outcome {
    let dir = mcp_tests::setup("conformance");
    let bin = dir.join("node_modules").join(".bin");
    let path = std::env::join_paths(std::iter::once(bin.clone()).chain(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    )))
    .expect("PATH entries join");
    let mut child = Command::new(bin.join("node"))
        .arg(dir.join("node_modules/@modelcontextprotocol/conformance/dist/index.js"))
        .args(["server", "--url", url, "--scenario", scenario])
        .current_dir(std::env::temp_dir())
        .env("PATH", path)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the suite starts");
    let mut stdout = child.stdout.take().expect("piped");
    let mut stderr = child.stderr.take().expect("piped");
    let out = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stdout.read_to_string(&mut s);
        s
    });
    let err = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stderr.read_to_string(&mut s);
        s
    });
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("waiting works") {
            break Some(status);
        }
        if started.elapsed() > SCENARIO_DEADLINE {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let output = format!(
        "{}\n--- stderr ---\n{}",
        out.join().unwrap_or_default(),
        err.join().unwrap_or_default()
    );
    let Some(status) = status else {
        panic!("scenario {scenario} did not finish within {SCENARIO_DEADLINE:?}:\n{output}");
    };
    // "Passed: 2/2, 0 failed, 0 warnings"
    let summary = output
        .lines()
        .find_map(|l| l.trim().strip_prefix("Passed: "))
        .unwrap_or_else(|| panic!("scenario {scenario}: no summary line:\n{output}"))
        .to_owned();
    let numbers: Vec<usize> = summary
        .split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().expect("digits"))
        .collect();
    let [passed, total, failed, warnings] = numbers[..] else {
        panic!("scenario {scenario}: unexpected summary {summary:?}:\n{output}");
    };
    assert_eq!(
        status.success(),
        failed == 0,
        "scenario {scenario}: exit status {status} disagrees with the summary:\n{output}"
    );
    Outcome {
        passed,
        total,
        failed,
        warnings,
        output,
    }
}

/// Each scenario with the number of checks it makes against a sessionful server.
const SCENARIOS: &[(&str, usize)] = &[
    ("server-initialize", 1),
    ("ping", 1),
    ("tools-list", 1),
    ("server-sse-multiple-streams", 1),
    ("dns-rebinding-protection", 2),
];

#[test]
fn conformance_suite_passes_against_the_sessionful_endpoint() {
    let server = Spawned::start("echo-server", &["--legacy-mode", "sessionful"]);
    for (scenario, checks) in SCENARIOS {
        let outcome = run_scenario(&server.url, scenario);
        assert_eq!(
            (
                outcome.passed,
                outcome.total,
                outcome.failed,
                outcome.warnings
            ),
            (*checks, *checks, 0, 0),
            "scenario {scenario}: every check passes, nothing is skipped:\n{}",
            outcome.output
        );
        assert!(!outcome.output.contains("FAILURE"), "{}", outcome.output);
    }
}

#[test]
fn conformance_suite_passes_against_the_stateless_endpoint() {
    let server = Spawned::start("echo-server", &["--legacy-mode", "stateless"]);
    for (scenario, checks) in SCENARIOS {
        let outcome = run_scenario(&server.url, scenario);
        assert_eq!(
            outcome.failed, 0,
            "scenario {scenario}:\n{}",
            outcome.output
        );
        if *scenario == "server-sse-multiple-streams" {
            // No session id, by design of the mode: the suite warns and checks nothing.
            assert_eq!(
                (outcome.total, outcome.warnings),
                (0, 1),
                "{}",
                outcome.output
            );
        } else {
            assert_eq!(
                (outcome.passed, outcome.total),
                (*checks, *checks),
                "scenario {scenario}:\n{}",
                outcome.output
            );
        }
    }
}
