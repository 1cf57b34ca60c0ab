//! `cargo mcp login` and `cargo mcp logout`: an OAuth login to a server over HTTP, kept for
//! the other commands' `--url`, and its end. `list`, `call`, ... log in by themselves when a
//! server answers 401; `login` does it ahead of time, or again with more scopes.

use super::block_on;
use crate::ops::oauth;
use anyhow::Result;

/// Log in to a server over HTTP (OAuth), for the other commands' --url.
#[derive(Debug, Clone, clap::Args)]
#[command(after_help = "\
Examples:
  cargo mcp login https://mcp.example.com/mcp
  cargo mcp login https://mcp.example.com/mcp --scope \"notes:read notes:write\"
  cargo mcp login https://mcp.example.com/mcp --client-id my-registered-client
  BROWSER=firefox cargo mcp login https://mcp.example.com/mcp

The server's protected-resource metadata names its authorization server; cargo mcp
registers itself there (unless --client-id), prints the login URL and opens it in a
browser ($BROWSER, else the desktop's), takes the redirect back on 127.0.0.1, and keeps
the tokens for this server in the user's configuration folder, readable by the user only
(cargo-mcp/oauth/). They are refreshed when they expire. `cargo mcp logout URL` forgets
them.")]
pub struct LoginArgs {
    /// The server's MCP endpoint.
    pub url: String,

    /// The scopes to ask for, space-separated (default: what the server asks for, else all
    /// it publishes).
    #[arg(long, value_name = "SCOPES")]
    pub scope: Option<String>,

    /// Log in as this OAuth client (registered beforehand) instead of registering.
    #[arg(long, value_name = "ID", env = "MCP_CLIENT_ID")]
    pub client_id: Option<String>,

    /// Print the login URL without opening a browser.
    #[arg(long)]
    pub no_browser: bool,

    /// Give up when the browser has not come back after this many seconds.
    #[arg(long, value_name = "SECONDS", default_value_t = 300)]
    pub wait: u64,
}

/// Logs in and stores the tokens.
pub fn exec(args: LoginArgs) -> Result<()> {
    let options = oauth::Options {
        client_id: args.client_id,
        client_secret: None,
        scope: args.scope,
        open_browser: !args.no_browser,
        login_without_asking: true,
        wait: std::time::Duration::from_secs(args.wait.max(1)),
    };
    let login = block_on(oauth::login_and_store(&args.url, &options))?;
    println!(
        "logged in to {} (scopes: {})",
        login.server,
        login.scope.as_deref().unwrap_or("none named")
    );
    Ok(())
}

/// Forget the login to a server (and revoke its tokens).
#[derive(Debug, Clone, clap::Args)]
#[command(after_help = "\
Examples:
  cargo mcp logout https://mcp.example.com/mcp

The tokens are revoked at the authorization server when it has a revocation endpoint,
then deleted.")]
pub struct LogoutArgs {
    /// The server's MCP endpoint.
    pub url: String,
}

/// Revokes and forgets the stored login.
pub fn exec_logout(args: LogoutArgs) -> Result<()> {
    if block_on(oauth::logout(&args.url))? {
        println!("logged out of {}", args.url);
    } else {
        println!("not logged in to {}", args.url);
    }
    Ok(())
}
