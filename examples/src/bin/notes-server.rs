//! `notes-server`: a shared notebook for many users over HTTP, behind OAuth. Each caller's
//! token says who they are and what they may do: `whoami` needs nothing but a valid token,
//! `list_notes` needs the scope `notes:read`, `add_note` needs `notes:write`. A client whose
//! token lacks a scope is answered 403 `insufficient_scope` naming it, and MCP clients then
//! ask the authorization server for it (step-up authorization:
//! `ServerBuilder::step_up_scopes`, where scoped tools are listed to every caller; without
//! it, a caller would not see the tools its token has no scope for).
//!
//! ```text
//! notes-server --transport http --bind 0.0.0.0:8000 \
//!     --oauth-issuer https://auth.example.com \
//!     --oauth-audience https://notes.example.com/mcp \
//!     --oauth-scope notes:read --oauth-scope notes:write
//! ```
//!
//! The server publishes its protected-resource metadata at
//! `https://notes.example.com/.well-known/oauth-protected-resource/mcp`, which is where a
//! client that got 401 learns the issuer; tokens must be issued for the audience (their `aud`
//! names it). Over stdio (the default transport) nobody logs in: the local user may do
//! everything. The flags are every server's (`mcp_runtime::launch::ServeArgs`, see `--help`).

use mcp_runtime::prelude::*;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};

/// The notes, each with its author.
#[derive(Default)]
struct Notebook(Mutex<Vec<(String, String)>>);

/// Says who the caller is, by their access token, and which scopes it grants.
#[mcp_tool(read_only, idempotent, open_world = false)]
async fn whoami(cx: RequestContext) -> String {
    let caller = cx.caller();
    match (caller.identity(), caller.scopes()) {
        (Some(who), Some(scopes)) => format!("{who} (scopes: {})", scopes.join(" ")),
        (Some(who), None) => who.to_owned(),
        (None, _) => "the local user".to_owned(),
    }
}

/// Lists every note with its author.
#[mcp_tool(read_only, open_world = false, scopes = ["notes:read"])]
async fn list_notes(#[mcp(inject)] notes: State<Arc<Notebook>>) -> String {
    let notes = notes.0.0.lock().unwrap_or_else(|e| e.into_inner());
    if notes.is_empty() {
        return "no notes yet".to_owned();
    }
    notes
        .iter()
        .map(|(author, text)| format!("{author}: {text}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Adds a note, signed with the caller's identity.
#[mcp_tool(open_world = false, scopes = ["notes:write"])]
async fn add_note(
    cx: RequestContext,
    #[mcp(inject)] notes: State<Arc<Notebook>>,
    /// The note's text
    text: String,
) -> String {
    let author = cx.caller().identity().unwrap_or("local").to_owned();
    let mut notes = notes.0.0.lock().unwrap_or_else(|e| e.into_inner());
    notes.push((author, text));
    format!("note {} added", notes.len())
}

fn server() -> Result<Server, mcp_runtime::server::BuildError> {
    Server::builder(env!("CARGO_BIN_NAME"), env!("CARGO_PKG_VERSION"))
        .instructions("A shared notebook: `list_notes` to read it, `add_note` to write in it.")
        .state(Arc::new(Notebook::default()))
        .tool(whoami::tool())
        .tool(list_notes::tool())
        .tool(add_note::tool())
        .step_up_scopes()
        .build()
}

fn main() -> ExitCode {
    mcp_runtime::launcher!().run(server)
}
