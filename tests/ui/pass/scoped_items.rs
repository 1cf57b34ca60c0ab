use mcp_runtime::prelude::*;

/// The audit log.
#[mcp_resource(uri = "notes://audit", scopes = ["notes:admin"])]
async fn audit_log() -> String {
    String::new()
}

/// One user's notes.
#[mcp_resource(template = "notes://{user}", scopes = ["notes:read", "notes:admin"])]
async fn user_notes(user: String) -> String {
    user
}

/// Writes an incident report.
#[mcp_prompt(scopes = ["reports:write"])]
async fn incident_report() -> String {
    String::new()
}

/// Open to everyone.
#[mcp_prompt]
async fn summary() -> String {
    String::new()
}

fn main() {
    assert_eq!(audit_log::resource().scopes(), ["notes:admin"]);
    assert_eq!(user_notes::template().scopes(), ["notes:read", "notes:admin"]);
    assert_eq!(incident_report::prompt().scopes(), ["reports:write"]);
    assert!(summary::prompt().scopes().is_empty());
}
