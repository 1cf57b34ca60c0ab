//! OAuth end to end: `notes-server` verifying tokens from a real authorization server
//! (`mcp_tests::oauth::AuthorizationServer`, oauth2-mock-server on loopback) through the
//! launch flags `--oauth-issuer`, `--oauth-audience` and `--oauth-scope`, and the official
//! TypeScript client completing its own OAuth flow against it (see
//! `tests/interop/ts/oauth-client.mjs` for each step it checks): protected-resource metadata
//! discovery from the 401, the authorization server's metadata (OpenID discovery, the
//! fallback), dynamic registration, PKCE, the `resource` parameter, the step-up to a scope a
//! tool needs, and a token for another resource refused.

use crate::interop::ensure_clients;
use mcp_tests::oauth::{AuthorizationServer, notes_server};
use serde_json::Value;
use std::process::Command;

#[test]
fn the_typescript_client_logs_in_by_its_own_flow_and_steps_up() {
    let dir = ensure_clients();
    let auth = AuthorizationServer::start();
    // The server publishes `notes:read` only, so the client steps up for `notes:write`.
    let server = notes_server(&auth.issuer, &["notes:read"]);
    let out = Command::new("node")
        .arg(dir.join("ts").join("oauth-client.mjs"))
        .args(["--url", &server.url, "--issuer", &auth.issuer])
        .current_dir(dir)
        .output()
        .expect("node runs");
    assert!(
        out.status.success(),
        "oauth-client.mjs failed:\n{}\nserver stderr:\n{}",
        String::from_utf8_lossy(&out.stderr),
        server.stderr()
    );
    let summary: Value = serde_json::from_slice(&out.stdout).expect("a JSON summary");
    assert_eq!(summary["registered"], 1, "{summary}");
    assert_eq!(summary["authorizations"], 2, "{summary}");
    assert_eq!(summary["resource"], server.url.as_str(), "{summary}");
    assert_eq!(summary["firstScope"], "notes:read", "{summary}");
    assert_eq!(
        summary["stepUpScope"], "notes:read notes:write",
        "{summary}"
    );
    assert_eq!(summary["whoami"], "alice (scopes: notes:read)", "{summary}");
    assert_eq!(summary["foreignStatus"], 401, "{summary}");
    // The audit names the subject, never a token.
    let log = server.stderr();
    assert!(log.contains("caller=identity:alice"), "{log}");
    assert!(!log.contains("eyJ"), "a token reached the log:\n{log}");
}
