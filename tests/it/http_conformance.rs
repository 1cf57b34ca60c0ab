//! The official MCP conformance suites against `conformance-server` over HTTP, in both
//! legacy modes (sessionful and stateless), installed pinned by `tests/conformance/setup.sh`
//! with Node 22 from the npm package `node`:
//!
//! - `@modelcontextprotocol/conformance` 0.1.16 (`tests/conformance/`), `--suite all`: every
//!   2025-era scenario, pending ones included;
//! - 0.2.0-alpha.12 (`tests/conformance-next/`), `--requirements 2026-07-28` (the scored
//!   2026-07-28 set, at its wire, plus the not-scored scenarios) and `--suite all` (65
//!   scenarios; the shared ones at the 2025 wire).
//!
//! The 2026 runs also execute the skills extension's three scenarios
//! (`sep-2640-skills-directory`, `-enumeration`, `-manifest`, against the skills
//! `conformance-server` serves from `examples/skills/`): their checks, read from the suite's
//! own `checks.json` (`-o DIR`), must all be executed and pass, none `SKIPPED` (the suite
//! skips every one of them when the extension is not declared, and says so only as a skip).
//!
//! Every check passes, the tasks extension's scenarios included, each with every one of its
//! checks executed (`tests/conformance/baseline.yml`, the suite's expected failures, is
//! empty; the suite fails the run if anything fails). A whole suite runs in seconds; a request the server
//! never answered would cost 60 s, so each run is bounded.

use mcp_tests::http::Spawned;
use std::io::Read as _;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A hung scenario costs the suite 60 s per request; this bounds a whole run.
const RUN_DEADLINE: Duration = Duration::from_secs(600);

/// Runs one suite (`folder`: `conformance` or `conformance-next`) against `url`.
fn run(folder: &str, url: &str, args: &[&str]) -> (bool, String) {
    let dir = mcp_tests::setup("conformance").join("..").join(folder);
    let bin = dir.join("node_modules").join(".bin");
    let path = std::env::join_paths(std::iter::once(bin.clone()).chain(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    )))
    .expect("PATH entries join");
    let mut child = Command::new(bin.join("node"))
        .arg(dir.join("node_modules/@modelcontextprotocol/conformance/dist/index.js"))
        .args(["server", "--url", url])
        .args(args)
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
        if started.elapsed() > RUN_DEADLINE {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let output = format!(
        "{}\n--- stderr ---\n{}",
        out.join().unwrap_or_default(),
        err.join().unwrap_or_default()
    );
    let Some(status) = status else {
        panic!("{folder} {args:?} did not finish within {RUN_DEADLINE:?}:\n{output}");
    };
    (status.success(), output)
}

fn baseline() -> String {
    mcp_tests::workspace_root()
        .join(Path::new("tests/conformance/baseline.yml"))
        .display()
        .to_string()
}

/// The `Total: P passed, F failed` line.
fn totals(output: &str) -> (usize, usize) {
    let line = output
        .lines()
        .rev()
        .find_map(|l| l.trim().strip_prefix("Total: "))
        .unwrap_or_else(|| panic!("no summary line:\n{output}"));
    let numbers: Vec<usize> = line
        .split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().expect("digits"))
        .collect();
    (numbers[0], numbers[1])
}

/// The scenarios the summary marks as failing (`✗ name: …`, before the `Total` line).
fn failing(output: &str) -> Vec<&str> {
    output
        .lines()
        .take_while(|l| !l.trim().starts_with("Total: "))
        .filter_map(|l| l.trim().strip_prefix("✗ "))
        .filter_map(|l| l.split(':').next())
        .collect()
}

/// The skills extension's scenarios and the fewest checks each runs against
/// `conformance-server` (its two skills; `wire-schema-valid` included).
const SKILLS_SCENARIOS: &[(&str, usize)] = &[
    ("sep-2640-skills-directory", 7),
    ("sep-2640-skills-enumeration", 32),
    ("sep-2640-skills-manifest", 6),
];

/// Every check of the skills scenarios in the results folder `out` (`-o`) was executed and
/// passed: none `SKIPPED`, none failed or warned, and each scenario ran all its checks.
fn skills_checks_all_executed(out: &Path, context: &str) {
    let folders: Vec<std::path::PathBuf> = std::fs::read_dir(out)
        .unwrap_or_else(|e| panic!("{context}: no results folder {}: {e}", out.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    for (scenario, fewest) in SKILLS_SCENARIOS {
        let folder = folders
            .iter()
            .find(|f| {
                f.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.contains(scenario))
            })
            .unwrap_or_else(|| panic!("{context}: {scenario} did not run: {folders:?}"));
        let text = std::fs::read_to_string(folder.join("checks.json"))
            .unwrap_or_else(|e| panic!("{context}: {scenario}: no checks.json: {e}"));
        let checks: Vec<serde_json::Value> =
            serde_json::from_str(&text).expect("checks.json is a list of checks");
        let not_passed: Vec<String> = checks
            .iter()
            .filter(|c| c["status"] != "SUCCESS")
            .map(|c| format!("{} {}: {}", c["id"], c["status"], c["errorMessage"]))
            .collect();
        assert!(
            not_passed.is_empty(),
            "{context}: {scenario}: every check must be executed and pass (no SKIPPED):\n{}",
            not_passed.join("\n")
        );
        assert!(
            checks.len() >= *fewest,
            "{context}: {scenario} ran {} checks, fewer than {fewest}:\n{text}",
            checks.len()
        );
    }
}

/// 0.1.16 `--suite all`: every scenario passes, and every check counted in the summary.
fn legacy_suite(mode: &str) {
    let server = Spawned::start("conformance-server", &["--legacy-mode", mode]);
    legacy_suite_at(mode, &server.url);
}

/// [`legacy_suite`] against the endpoint at `url` (`mode` names it in messages).
pub(crate) fn legacy_suite_at(mode: &str, url: &str) {
    let (ok, output) = run("conformance", url, &["--suite", "all"]);
    let (passed, failed) = totals(&output);
    assert!(ok && failed == 0, "{mode}: failures:\n{output}");
    assert!(failing(&output).is_empty(), "{mode}:\n{output}");
    // 32 scenarios; `server-sse-polling` has only warnings and informational checks.
    assert!(
        passed >= 42,
        "{mode}: only {passed} checks passed:\n{output}"
    );
    assert!(!output.contains("WARNING"), "{mode}: warnings:\n{output}");
}

/// The checks the suite's baseline verdict lists as unexpected (`✗ name` after "Unexpected
/// failures"): failures, and warnings it does not tell apart from them.
fn unexpected(output: &str) -> Vec<&str> {
    output
        .lines()
        .skip_while(|l| !l.contains("Unexpected failures (not in baseline)"))
        .skip(1)
        .map_while(|l| l.trim().strip_prefix("✗ "))
        .collect()
}

/// The tasks extension's scenarios and how many checks each runs in 0.2.0-alpha.12 (a check
/// the suite skipped is not counted as passed, so a lower count is a skipped check).
/// `tasks-status-notifications` is left out: this suite version always skips it.
const TASK_SCENARIOS: &[(&str, usize)] = &[
    ("tasks-lifecycle", 9),
    ("tasks-capability-negotiation", 5),
    ("tasks-wire-fields", 4),
    ("tasks-request-state-removal", 3),
    ("tasks-mrtr-input", 4),
    ("tasks-request-headers", 5),
    ("tasks-dispatch-and-envelope", 9),
    ("tasks-required-task-error", 3),
    ("tasks-mrtr-composition", 2),
];

/// Every tasks scenario passed with all of its checks.
fn every_task_check_ran(mode: &str, args: &[&str], output: &str) {
    for (scenario, checks) in TASK_SCENARIOS {
        assert!(
            output.contains(&format!("✓ {scenario}: {checks} passed, 0 failed")),
            "{mode} {args:?}: {scenario} did not pass all {checks} checks:\n{output}"
        );
    }
}

/// 0.2.0-alpha.12: every scenario passes (the baseline of expected failures is empty).
///
/// `warned` are scenarios that may end with a warning instead of a pass: on the stateless
/// endpoint, `server-sse-multiple-streams` and `server-sse-polling` find no session id and
/// say so with one warning each (the suite's own "no session, nothing to check" verdict: by
/// design of the mode, they check nothing there; the sessionful run checks them). Their
/// summary must still show no failed check.
fn next_suite(mode: &str, args: &[&str], warned: &[&str]) {
    let server = Spawned::start("conformance-server", &["--legacy-mode", mode]);
    next_suite_at(mode, &server.url, args, warned);
}

/// [`next_suite`] against the endpoint at `url` (`mode` names it in messages).
pub(crate) fn next_suite_at(mode: &str, url: &str, args: &[&str], warned: &[&str]) {
    let baseline = baseline();
    let results = tempfile::tempdir().expect("a results folder");
    let results_path = results.path().display().to_string();
    let mut all = args.to_vec();
    all.extend(["--expected-failures", &baseline, "-o", &results_path]);
    let (ok, output) = run("conformance-next", url, &all);
    // `--suite all` runs the extensions' scenarios; the skills ones must run every check.
    if args.contains(&"all") {
        skills_checks_all_executed(results.path(), &format!("{mode} {args:?}"));
    }
    let failing = failing(&output);
    assert!(
        failing.is_empty(),
        "{mode} {args:?}: failing scenarios {failing:?}:\n{output}"
    );
    every_task_check_ran(mode, args, &output);
    let unexpected = unexpected(&output);
    for scenario in &unexpected {
        assert!(
            warned.contains(scenario),
            "{mode} {args:?}: unexpected {scenario}:\n{output}"
        );
        assert!(
            output.contains(&format!("✓ {scenario}: 0 passed, 0 failed")),
            "{mode} {args:?}: {scenario} may only warn:\n{output}"
        );
    }
    if unexpected.is_empty() {
        assert!(
            ok && output.contains("Baseline check passed"),
            "{mode} {args:?}:\n{output}"
        );
    }
    let (passed, _) = totals(&output);
    assert!(
        passed >= 160,
        "{mode} {args:?}: only {passed} checks passed:\n{output}"
    );
}

#[test]
fn suite_0_1_16_all_passes_against_the_sessionful_endpoint() {
    legacy_suite("sessionful");
}

#[test]
fn suite_0_1_16_all_passes_against_the_stateless_endpoint() {
    legacy_suite("stateless");
}

#[test]
fn suite_alpha_12_requirements_2026_07_28_pass() {
    next_suite("sessionful", &["--requirements", "2026-07-28"], &[]);
}

#[test]
fn suite_alpha_12_all_passes_against_the_sessionful_endpoint() {
    next_suite("sessionful", &["--suite", "all"], &[]);
}

#[test]
fn suite_alpha_12_all_passes_against_the_stateless_endpoint() {
    next_suite(
        "stateless",
        &["--suite", "all"],
        &["server-sse-multiple-streams", "server-sse-polling"],
    );
}

/// The 0.1.16 suite through `gateway` fronting `conformance-server` as a stdio child,
/// mounted flat: the same verdict as against `conformance-server` directly (the upstream's
/// elicitation, sampling and log messages relayed to the suite's client).
#[test]
fn the_legacy_suite_passes_through_the_gateway_with_a_stdio_upstream() {
    let upstream = mcp_tests::example_bin("conformance-server");
    let target = format!("='{}'", upstream.display());
    let gateway = Spawned::start("gateway", &["--upstream", &target]);
    legacy_suite_at("gateway, stdio upstream", &gateway.url);
}

/// The same with `conformance-server` as a Streamable HTTP upstream.
#[test]
fn the_legacy_suite_passes_through_the_gateway_with_an_http_upstream() {
    let upstream = Spawned::start("conformance-server", &["--legacy-mode", "sessionful"]);
    let target = format!("={}", upstream.url);
    let gateway = Spawned::start("gateway", &["--upstream", &target]);
    legacy_suite_at("gateway, HTTP upstream", &gateway.url);
}

/// The 2026-07-28 suite with its extensions (`--suite all`: the tasks and skills scenarios
/// included) through `gateway --upstream-era modern` fronting `conformance-server` as a
/// stdio child, then as a Streamable HTTP upstream: the same verdict as against
/// `conformance-server` directly (the caller's capabilities and its `input_required` rounds
/// pass through under the upstream's keys; the upstream's `-32021` reaches the caller as
/// HTTP 400; the upstream's tasks are the gateway's; its skills are served as its own).
#[test]
fn the_2026_suite_passes_through_the_gateway_with_a_modern_upstream() {
    let upstream = mcp_tests::example_bin("conformance-server");
    let target = format!("='{}'", upstream.display());
    let gateway = Spawned::start(
        "gateway",
        &["--upstream-era", "modern", "--upstream", &target],
    );
    next_suite_at(
        "gateway, stdio upstream",
        &gateway.url,
        &["--suite", "all"],
        &[],
    );
    drop(gateway);
    let upstream = Spawned::start("conformance-server", &["--legacy-mode", "sessionful"]);
    let target = format!("={}", upstream.url);
    let gateway = Spawned::start(
        "gateway",
        &["--upstream-era", "modern", "--upstream", &target],
    );
    next_suite_at(
        "gateway, HTTP upstream",
        &gateway.url,
        &["--suite", "all"],
        &[],
    );
}
