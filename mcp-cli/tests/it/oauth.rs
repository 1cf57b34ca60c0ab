//! `cargo mcp` as an OAuth client of a server that answers 401: `notes-server` verifying
//! tokens from a real authorization server (oauth2-mock-server on loopback, see
//! `mcp_tests::oauth`). The browser is `$BROWSER`, here curl following the authorization
//! server's redirect back to `cargo mcp`'s loopback callback, as a browser does once the
//! user consents. Each test has its own configuration folder (`XDG_CONFIG_HOME`).

use crate::support::{cargo_mcp, output, outside_tempdir, show, stderr, stdout};
use mcp_tests::oauth::{AuthorizationServer, notes_server};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Output;

/// A `$BROWSER` that opens the URL it is given and follows the redirects.
fn browser(dir: &Path) -> PathBuf {
    let path = dir.join("browser.sh");
    std::fs::write(&path, "#!/bin/sh\nexec curl -sS -L -o /dev/null \"$1\"\n").unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    path
}

struct User {
    home: tempfile::TempDir,
    browser: PathBuf,
}

impl User {
    fn new() -> Self {
        let home = outside_tempdir();
        let browser = browser(home.path());
        Self { home, browser }
    }

    fn run(&self, args: &[&str]) -> Output {
        output(
            cargo_mcp()
                .args(args)
                .env("HOME", self.home.path())
                .env("XDG_CONFIG_HOME", self.home.path().join("config"))
                .env("BROWSER", &self.browser)
                .env_remove("MCP_TOKEN")
                .env_remove("MCP_CLIENT_ID"),
        )
    }

    /// The stored logins.
    fn stored(&self) -> Vec<(PathBuf, Value)> {
        let folder = self
            .home
            .path()
            .join("config")
            .join("cargo-mcp")
            .join("oauth");
        let Ok(entries) = std::fs::read_dir(folder) else {
            return Vec::new();
        };
        entries
            .map(|e| e.unwrap().path())
            .map(|p| {
                let json = serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
                (p, json)
            })
            .collect()
    }
}

#[test]
fn list_logs_in_keeps_the_tokens_refreshes_them_and_logout_forgets_them() {
    let auth = AuthorizationServer::start();
    let server = notes_server(&auth.issuer, &["notes:read", "notes:write"]);
    let user = User::new();

    let out = user.run(&["list", "--url", &server.url]);
    assert!(out.status.success(), "{}", show(&out));
    assert!(stdout(&out).contains("add_note"), "{}", show(&out));
    assert!(stderr(&out).contains("To log in to"), "{}", show(&out));
    let stored = user.stored();
    assert_eq!(stored.len(), 1, "{stored:?}");
    let (file, login) = &stored[0];
    assert_eq!(login["server"], server.url.as_str());
    assert_eq!(login["resource"], server.url.as_str());
    assert_eq!(login["issuer"], auth.issuer.as_str());
    assert_eq!(login["scope"], "notes:read notes:write");
    let token = login["access_token"].as_str().unwrap().to_owned();
    assert!(!stdout(&out).contains(&token) && !stderr(&out).contains(&token));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = std::fs::metadata(file).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
    }

    // The stored token is used: no second login.
    let out = user.run(&["call", "add_note", "text=hello", "--url", &server.url]);
    assert_eq!(stdout(&out), "note 1 added\n", "{}", show(&out));
    assert!(!stderr(&out).contains("To log in"), "{}", show(&out));

    // Expired: refreshed with the refresh token, still no login.
    let mut expired = login.clone();
    expired["expires_at"] = 1.into();
    std::fs::write(file, expired.to_string()).unwrap();
    let out = user.run(&["call", "whoami", "--url", &server.url]);
    assert_eq!(
        stdout(&out),
        "alice (scopes: notes:read notes:write)\n",
        "{}",
        show(&out)
    );
    assert!(!stderr(&out).contains("To log in"), "{}", show(&out));
    // The token answer was stored (the token itself may be identical: same claims, same second).
    let refreshed = &user.stored()[0].1;
    assert!(refreshed["expires_at"].as_u64().unwrap() > 1);

    // `--token` is sent as it is: a wrong one is refused, and no login is tried.
    let out = user.run(&["list", "--url", &server.url, "--token", "not-a-token"]);
    assert!(!out.status.success(), "{}", show(&out));
    assert!(stderr(&out).contains("401"), "{}", show(&out));
    assert!(!stderr(&out).contains("To log in"), "{}", show(&out));

    let out = user.run(&["logout", &server.url]);
    assert!(out.status.success(), "{}", show(&out));
    assert!(stdout(&out).contains("logged out"), "{}", show(&out));
    assert!(user.stored().is_empty());
    let out = user.run(&["logout", &server.url]);
    assert!(stdout(&out).contains("not logged in"), "{}", show(&out));
}

#[test]
fn login_asks_for_the_scopes_given_and_a_token_for_another_server_is_not_reused() {
    let auth = AuthorizationServer::start();
    let notes = notes_server(&auth.issuer, &["notes:read", "notes:write"]);
    let other = notes_server(&auth.issuer, &["notes:read"]);
    let user = User::new();

    let out = user.run(&["login", &notes.url, "--scope", "notes:read"]);
    assert!(out.status.success(), "{}", show(&out));
    assert!(
        stdout(&out).contains("scopes: notes:read"),
        "{}",
        show(&out)
    );
    // Reading works; writing needs a scope this login lacks, named in the error.
    let out = user.run(&["call", "list_notes", "--url", &notes.url]);
    assert_eq!(stdout(&out), "no notes yet\n", "{}", show(&out));
    let out = user.run(&["call", "add_note", "text=x", "--url", &notes.url]);
    assert!(!out.status.success(), "{}", show(&out));
    assert!(
        stderr(&out).contains(r#"requires the scopes "notes:write""#),
        "{}",
        show(&out)
    );

    // The other server (another audience) gets its own login, not this token.
    let out = user.run(&["call", "whoami", "--url", &other.url]);
    assert!(out.status.success(), "{}", show(&out));
    assert!(stderr(&out).contains("To log in to"), "{}", show(&out));
    assert_eq!(user.stored().len(), 2);
}
