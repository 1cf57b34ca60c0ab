//! Interop: the official MCP clients drive `echo-server` as a subprocess over stdio (the
//! HTTP runs are in `http_interop`, with the same scripts).
//!
//! The clients are the real SDKs, pinned and installed by `tests/interop/setup.sh`
//! (TypeScript `@modelcontextprotocol/client` 2.4.0 from `package-lock.json`, Python `mcp`
//! 2.3.0 from `python/requirements.txt`). Each client script connects in one negotiation
//! mode, lists the tools, calls `echo` and `add` (including a wrongly typed argument that must
//! come back as an `isError` result), and prints one JSON line naming the negotiated protocol
//! version. Nothing is skipped: a missing tool or a failed install fails the test.
//!
//! The clients also answer what a tool asks, with their own handlers (TypeScript
//! `setRequestHandler`, Python's callbacks): `ask_name` (an elicitation, accepted then
//! declined), `ask_model` (sampling) and `list_roots` (roots). Each script checks the results
//! carry its handlers' answers and reports the ids its handlers were called with: the
//! server's JSON-RPC ids on a 2025-11-25 connection (real server-to-client requests), the
//! `inputRequests` keys on a 2026-07-28 one (the SDK's input-required driver ran the same
//! handlers and retried). That tells the two paths apart, so each era is proven to use its own.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::Value;

/// The latest legacy revision: what both clients offer in `initialize`, and what a dual-era
/// server must answer (it never answers `initialize` with a modern version).
pub(crate) const LEGACY: &str = "2025-11-25";
/// The modern (stateless, `server/discover`) revision.
pub(crate) const MODERN: &str = "2026-07-28";

/// A client script enforces its own limit (30 s, times `INTEROP_TIME_SCALE`); this only
/// catches a wedged interpreter.
const CLIENT_DEADLINE: Duration = Duration::from_secs(600);

/// Installs the pinned clients (`tests/interop/setup.sh`) once per test process.
pub(crate) fn ensure_clients() -> &'static Path {
    mcp_tests::setup("interop")
}

#[derive(Clone, Copy, Debug)]
pub(crate) enum Sdk {
    Ts,
    Python,
}

/// Runs one client script against `echo-server` over stdio and returns its parsed JSON
/// summary line, after checking the parts of it that do not depend on the negotiation mode.
fn run_client(sdk: Sdk, mode: &str) -> Value {
    let server = mcp_tests::example_bin("echo-server");
    run_script(sdk, mode, &["--".as_ref(), server.as_os_str()])
}

/// Runs one client script with `target` (`-- <server command>` or `--url URL`); see
/// [`run_client`].
pub(crate) fn run_script(sdk: Sdk, mode: &str, target: &[&std::ffi::OsStr]) -> Value {
    run_script_with(sdk, mode, target, &[])
}

/// [`run_script`] with extra environment variables for the client (`INTEROP_TIME_SCALE`
/// stretches its time limits).
pub(crate) fn run_script_with(
    sdk: Sdk,
    mode: &str,
    target: &[&std::ffi::OsStr],
    env: &[(&str, &str)],
) -> Value {
    let summary = summary_of(sdk, mode, target, env);
    check_echo_server(&summary);
    summary
}

/// Runs one client script with `target` and returns its JSON summary line, after checking
/// that it ran, and as the client and mode asked for.
pub(crate) fn summary_of(
    sdk: Sdk,
    mode: &str,
    target: &[&std::ffi::OsStr],
    env: &[(&str, &str)],
) -> Value {
    let dir = ensure_clients();
    let (program, script, client_name) = match sdk {
        Sdk::Ts => (
            PathBuf::from("node"),
            dir.join("ts").join("client.mjs"),
            "ts",
        ),
        Sdk::Python => (
            dir.join(".venv").join("bin").join("python"),
            dir.join("python").join("client.py"),
            "python",
        ),
    };
    let mut cmd = Command::new(&program);
    cmd.arg(&script)
        .envs(env.iter().copied())
        .args(["--mode", mode])
        .args(target)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let described = format!(
        "{} {} --mode {mode} {}",
        program.display(),
        script.display(),
        target
            .iter()
            .map(|a| a.to_string_lossy())
            .collect::<Vec<_>>()
            .join(" ")
    );

    let mut child = cmd
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start `{described}`: {e}"));
    let mut stdout = child.stdout.take().expect("stdout is piped");
    let mut stderr = child.stderr.take().expect("stderr is piped");
    let out_reader = thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = stdout.read_to_end(&mut buf);
        buf
    });
    let err_reader = thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = stderr.read_to_end(&mut buf);
        buf
    });
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("waiting for the client works") {
            break Some(status);
        }
        if started.elapsed() > CLIENT_DEADLINE {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        thread::sleep(Duration::from_millis(20));
    };
    let stdout = String::from_utf8_lossy(&out_reader.join().expect("stdout reader")).into_owned();
    let stderr = String::from_utf8_lossy(&err_reader.join().expect("stderr reader")).into_owned();

    let Some(status) = status else {
        panic!(
            "`{described}` did not finish within {CLIENT_DEADLINE:?}\n--- stdout ---\n{stdout}\n--- stderr ---\n{stderr}"
        );
    };
    assert!(
        status.success(),
        "`{described}` failed ({status})\n--- stdout ---\n{stdout}\n--- stderr ---\n{stderr}"
    );

    let line = stdout
        .lines()
        .rev()
        .find(|line| !line.trim().is_empty())
        .unwrap_or_else(|| {
            panic!("`{described}` printed nothing on stdout\n--- stderr ---\n{stderr}")
        });
    let summary: Value = serde_json::from_str(line).unwrap_or_else(|e| {
        panic!(
            "`{described}` printed a line that is not JSON ({e}): {line}\n--- stderr ---\n{stderr}"
        )
    });
    assert_eq!(summary["client"], client_name, "summary: {summary}");
    assert_eq!(summary["mode"], mode, "summary: {summary}");
    summary
}

/// What a script's summary says of `echo-server`: its tools, resources, prompts, a
/// completion, and the asks its handlers answered.
fn check_echo_server(summary: &Value) {
    let tools: Vec<&str> = summary["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("summary has no tools array: {summary}"))
        .iter()
        .map(|t| {
            t.as_str()
                .unwrap_or_else(|| panic!("tool name is not a string: {summary}"))
        })
        .collect();
    assert_eq!(
        tools,
        ["add", "ask_model", "ask_name", "echo", "list_roots"],
        "echo-server's tools, sorted"
    );
    // The script listed, read and rendered the other primitives through the client's own
    // API (text, blob and templated reads, a missing URI, prompts with arguments, an
    // embedded resource and an image, a completion) and reports what it saw.
    assert_eq!(
        summary["resources"],
        serde_json::json!(["echo://logo", "echo://readme"]),
        "summary: {summary}"
    );
    assert_eq!(
        summary["prompts"],
        serde_json::json!(["greet", "logo", "readme"]),
        "summary: {summary}"
    );
    assert!(
        summary["completed"]
            .as_array()
            .is_some_and(|v| !v.is_empty()),
        "summary: {summary}"
    );
    assert_answered(summary);
}

/// The keys echo-server gives its asks (`.key(…)`): what a modern client's handlers see as
/// the request id.
const ASK_KEYS: [(&str, &[&str]); 3] = [
    ("elicitation", &["name", "name"]),
    ("sampling", &["answer"]),
    ("roots", &["roots"]),
];

/// Checks which path the client's handlers were driven by (see the module docs): on a
/// modern connection the ids are the `inputRequests` keys; on a legacy one they are the
/// server's own request ids, one per ask, none reused.
fn assert_answered(summary: &Value) {
    let answered = &summary["answered"];
    let modern = summary["protocolVersion"] == MODERN;
    let mut legacy_ids = Vec::new();
    for (kind, keys) in ASK_KEYS {
        let ids: Vec<&str> = answered[kind]
            .as_array()
            .unwrap_or_else(|| panic!("no answered.{kind} array: {summary}"))
            .iter()
            .map(|id| id.as_str().expect("ids are reported as strings"))
            .collect();
        if modern {
            assert_eq!(
                ids, keys,
                "{kind}: the driver calls handlers by key: {summary}"
            );
        } else {
            assert_eq!(
                ids.len(),
                keys.len(),
                "{kind}: one request per ask: {summary}"
            );
            legacy_ids.extend(ids);
        }
    }
    if !modern {
        let distinct: std::collections::BTreeSet<_> = legacy_ids.iter().collect();
        assert_eq!(
            distinct.len(),
            legacy_ids.len(),
            "request ids reused: {summary}"
        );
        assert!(
            legacy_ids
                .iter()
                .all(|id| ASK_KEYS.iter().all(|(_, keys)| !keys.contains(id))),
            "a legacy connection got input_required keys instead of requests: {summary}"
        );
    }
}

pub(crate) fn assert_version(summary: &Value, expected: &str) {
    assert_eq!(
        summary["protocolVersion"], expected,
        "negotiated protocol version, summary: {summary}"
    );
}

// ---- TypeScript client (@modelcontextprotocol/client 2.4.0) ----------------------------------

#[test]
fn ts_legacy() {
    // `mode: 'legacy'`: plain `initialize` offering 2025-11-25, then `notifications/initialized`.
    assert_version(&run_client(Sdk::Ts, "legacy"), LEGACY);
}

#[test]
fn ts_auto() {
    // `mode: 'auto'`: the client spawns a throwaway sibling server that gets only a
    // `server/discover` probe (enveloped at 2026-07-28), then spawns the session server and
    // sends enveloped requests to it with no discover/initialize first. The client goes modern
    // only when the discover result passes its 2026-07-28 schema and its `supportedVersions`
    // includes 2026-07-28 (classifyResult in the client's probe classifier); an error reply,
    // a timeout, a closed pipe or a malformed result all fall back to `initialize` silently.
    // So a dual-era server must come out as 2026-07-28 here: 2025-11-25 means its discover
    // answer was rejected.
    assert_version(&run_client(Sdk::Ts, "auto"), MODERN);
}

#[test]
fn ts_modern() {
    // `mode: { pin: '2026-07-28' }`: same sibling probe as 'auto', but no fallback.
    assert_version(&run_client(Sdk::Ts, "modern"), MODERN);
}

// ---- Python client (mcp 2.3.0) ---------------------------------------------------------------

#[test]
fn python_legacy() {
    // `mode="legacy"`: plain `initialize` offering 2025-11-25, then `notifications/initialized`.
    assert_version(&run_client(Sdk::Python, "legacy"), LEGACY);
}

#[test]
fn python_auto() {
    // `mode="auto"`: `server/discover` on the session process itself (one spawn); the client
    // adopts the result when it validates as a DiscoverResult listing 2026-07-28 (negotiate_auto
    // in mcp/client/_probe.py) and otherwise falls back to `initialize` on the same pipe. A
    // dual-era server must therefore come out as 2026-07-28.
    assert_version(&run_client(Sdk::Python, "auto"), MODERN);
}

#[test]
fn python_2026_07_28() {
    // `mode="2026-07-28"`: no probe at all; the first message is an enveloped `tools/list`.
    assert_version(&run_client(Sdk::Python, MODERN), MODERN);
}
