//! Interop over Streamable HTTP: the official clients (TypeScript `@modelcontextprotocol/client`
//! 2.4.0, Python `mcp` 2.3.0, pinned by `tests/interop/setup.sh`) against
//! `echo-server --transport http`, in each of their negotiation modes and in both legacy
//! modes of the server. The scripts are the stdio ones given `--url`: they list the tools,
//! call `echo` and `add` (including wrongly typed arguments, which must come back as an
//! `isError` result), answer `ask_name`, `ask_model` and `list_roots` with their own
//! handlers, and print a JSON summary (checked as in `interop`).
//!
//! What the clients do over HTTP (observed with these versions):
//! - legacy mode: `initialize` POST without `MCP-Protocol-Version`, then
//!   `notifications/initialized` (202), then a GET for the server's stream; later requests
//!   carry the negotiated version and the `Mcp-Session-Id` if one was minted;
//! - auto and pinned modes: an in-place `server/discover` POST carrying the envelope and the
//!   `MCP-Protocol-Version`/`Mcp-Method` headers; every later request is enveloped, with
//!   `Mcp-Name` on `tools/call`, and no session id.
//!
//! How the asks travel: on a legacy connection the tool's request to the client is an event on
//! the `tools/call` POST's own stream, and the client answers it with a POST of its own (with
//! the session id when there is one; on the stateless endpoint the answer finds its request by
//! id alone). On a modern one the `tools/call` is answered `input_required` and the client
//! retries it with `inputResponses` and the `requestState`.
//!
//! Last, both clients in both eras through `gateway --transport http` to the reference
//! `@modelcontextprotocol/server-everything` as its stdio upstream (`--target everything`:
//! that server's tools, progress, sampling and elicitation, resources and prompts).

use crate::interop::{Sdk, assert_version, run_script};
use mcp_tests::http::Spawned;
use serde_json::Value;

const LEGACY: &str = "2025-11-25";
const MODERN: &str = "2026-07-28";

/// Runs `sdk` in `mode` against a fresh `echo-server --transport http --legacy-mode
/// {legacy_mode}` and checks what does not depend on the negotiated era.
fn run(sdk: Sdk, mode: &str, legacy_mode: &str) -> Value {
    let server = Spawned::start("echo-server", &["--legacy-mode", legacy_mode]);
    let summary = run_script(sdk, mode, &["--url".as_ref(), server.url.as_ref()]);
    assert_eq!(summary["transport"], "http", "summary: {summary}");
    summary
}

/// The TypeScript summary says whether the server minted a session.
fn assert_session(summary: &Value, expected: bool) {
    assert_eq!(
        summary["sessionId"], expected,
        "Mcp-Session-Id minted? summary: {summary}"
    );
}

// ---- TypeScript client, sessionful legacy mode ------------------------------------------------

#[test]
fn ts_legacy_sessionful() {
    let summary = run(Sdk::Ts, "legacy", "sessionful");
    assert_version(&summary, LEGACY);
    assert_session(&summary, true);
}

#[test]
fn ts_auto_sessionful() {
    let summary = run(Sdk::Ts, "auto", "sessionful");
    assert_version(&summary, MODERN);
    assert_session(&summary, false);
}

#[test]
fn ts_modern_sessionful() {
    let summary = run(Sdk::Ts, "modern", "sessionful");
    assert_version(&summary, MODERN);
    assert_session(&summary, false);
}

// ---- TypeScript client, stateless legacy mode -------------------------------------------------

#[test]
fn ts_legacy_stateless() {
    let summary = run(Sdk::Ts, "legacy", "stateless");
    assert_version(&summary, LEGACY);
    assert_session(&summary, false);
}

#[test]
fn ts_auto_stateless() {
    let summary = run(Sdk::Ts, "auto", "stateless");
    assert_version(&summary, MODERN);
    assert_session(&summary, false);
}

#[test]
fn ts_modern_stateless() {
    let summary = run(Sdk::Ts, "modern", "stateless");
    assert_version(&summary, MODERN);
    assert_session(&summary, false);
}

// ---- Python client, both legacy modes ---------------------------------------------------------

#[test]
fn python_legacy_sessionful() {
    assert_version(&run(Sdk::Python, "legacy", "sessionful"), LEGACY);
}

#[test]
fn python_auto_sessionful() {
    assert_version(&run(Sdk::Python, "auto", "sessionful"), MODERN);
}

#[test]
fn python_2026_07_28_sessionful() {
    assert_version(&run(Sdk::Python, MODERN, "sessionful"), MODERN);
}

#[test]
fn python_legacy_stateless() {
    assert_version(&run(Sdk::Python, "legacy", "stateless"), LEGACY);
}

#[test]
fn python_auto_stateless() {
    assert_version(&run(Sdk::Python, "auto", "stateless"), MODERN);
}

#[test]
fn python_2026_07_28_stateless() {
    assert_version(&run(Sdk::Python, MODERN, "stateless"), MODERN);
}

// ---- Through the gateway, to the reference server-everything ---------------------------------

/// `gateway --transport http` fronting the reference `@modelcontextprotocol/server-everything`
/// (pinned in `tests/interop/package.json`) as a stdio child, mounted flat; `sdk` in its
/// legacy and its 2026-07-28 mode uses its tools (progress, and its sampling and elicitation
/// requests answered by the client's own handlers through the gateway), resources and
/// prompts.
fn through_the_gateway_to_server_everything(sdk: Sdk, modes: [&str; 2]) {
    let interop = crate::interop::ensure_clients();
    let everything = interop
        .join("node_modules/@modelcontextprotocol/server-everything/dist/index.js")
        .display()
        .to_string();
    let upstream = format!("=node '{everything}' stdio");
    let gateway = Spawned::start("gateway", &["--upstream", &upstream]);
    for (mode, version) in modes.into_iter().zip([LEGACY, MODERN]) {
        let target = ["--target", "everything", "--url", &gateway.url];
        let target = target.map(std::ffi::OsStr::new);
        let summary = crate::interop::summary_of(sdk, mode, &target, &[]);
        let context = format!("{mode}: {summary}\ngateway:\n{}", gateway.stderr());
        assert_eq!(summary["protocolVersion"], version, "{context}");
        assert_eq!(summary["target"], "everything", "{context}");
        assert_eq!(
            summary["progress"].as_array().map(Vec::len),
            Some(3),
            "{context}"
        );
        for asked in ["elicitation", "sampling"] {
            let ids = summary["answered"][asked].as_array().map(Vec::len);
            assert_eq!(ids, Some(1), "{asked}: {context}");
        }
    }
}

#[test]
fn ts_through_the_gateway_to_server_everything_in_both_eras() {
    through_the_gateway_to_server_everything(Sdk::Ts, ["legacy", "modern"]);
}

#[test]
fn python_through_the_gateway_to_server_everything_in_both_eras() {
    through_the_gateway_to_server_everything(Sdk::Python, ["legacy", "2026-07-28"]);
}
