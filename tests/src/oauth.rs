//! The OAuth authorization server the OAuth tests log in at: `tests/oauth/authorization-server.mjs`
//! (oauth2-mock-server on Node 22, pinned and installed by `tests/oauth/setup.sh`), started
//! per test on a free loopback port and stopped when dropped.

use std::io::{BufRead, BufReader};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// A running authorization server.
#[derive(Debug)]
pub struct AuthorizationServer {
    child: Child,
    /// Held open: the server exits when it closes.
    _stdin: Option<ChildStdin>,
    /// Its issuer URL, `http://127.0.0.1:PORT`.
    pub issuer: String,
}

impl AuthorizationServer {
    /// Installs (once per process) and starts the authorization server; waits, bounded, for
    /// the issuer URL it prints.
    pub fn start() -> Self {
        Self::start_with(&[])
    }

    /// [`start`](Self::start) with arguments to the script: `dpop` to bind tokens to the
    /// DPoP key a token request proves (and `dpop-nonce` to ask for a nonce first).
    pub fn start_with(args: &[&str]) -> Self {
        let (child, stdin, first) = start_script("authorization-server.mjs", args);
        let issuer = first["issuer"]
            .as_str()
            .unwrap_or_else(|| panic!("the authorization server printed {first}"))
            .to_owned();
        Self {
            child,
            _stdin: stdin,
            issuer,
        }
    }
}

/// Starts `node <script> <args>` in `tests/oauth` (installed once per process) and waits,
/// bounded, for the JSON line it prints first.
fn start_script(script: &str, args: &[&str]) -> (Child, Option<ChildStdin>, serde_json::Value) {
    let dir = crate::setup("oauth");
    let mut child = Command::new(dir.join("node_modules/.bin/node"))
        .arg(dir.join(script))
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {script}: {e}"));
    let stdin = child.stdin.take();
    let stdout = child.stdout.take().expect("stdout is piped");
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        let _ = BufReader::new(stdout).read_line(&mut line);
        let _ = tx.send(line);
    });
    let line = rx
        .recv_timeout(Duration::from_secs(60))
        .unwrap_or_else(|_| panic!("{script} printed nothing within 60 s"));
    let first = serde_json::from_str(&line).unwrap_or_else(|_| panic!("{script} printed {line:?}"));
    (child, stdin, first)
}

/// An identity provider played by oauth2-mock-server (`tests/oauth/provider.mjs`): its
/// discovery document where that provider serves it, and tokens shaped as it issues them.
#[derive(Debug)]
pub struct Provider {
    child: Child,
    _stdin: Option<ChildStdin>,
    /// Its URL, `http://127.0.0.1:PORT`: the provider's host(s).
    pub base: String,
    tokens: serde_json::Value,
}

impl Provider {
    /// Starts the provider `name` (`entra`, `auth0`, `okta`, `keycloak`, `google`).
    pub fn start(name: &str) -> Self {
        Self::start_with(name, &[])
    }

    /// Starts the provider `name` with more arguments (`dpop` takes the server's URL).
    pub fn start_with(name: &str, args: &[&str]) -> Self {
        let all: Vec<&str> = std::iter::once(name).chain(args.iter().copied()).collect();
        let (child, stdin, first) = start_script("provider.mjs", &all);
        let base = first["base"]
            .as_str()
            .unwrap_or_else(|| panic!("provider.mjs printed {first}"))
            .to_owned();
        Self {
            child,
            _stdin: stdin,
            base,
            tokens: first["tokens"].clone(),
        }
    }

    /// The token of the case `name` (see `provider.mjs`).
    pub fn token(&self, name: &str) -> &str {
        self.tokens[name]
            .as_str()
            .unwrap_or_else(|| panic!("provider.mjs made no {name:?} token: {}", self.tokens))
    }
}

impl Drop for Provider {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for AuthorizationServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A loopback port free at the time of asking: for a server whose own URL must be known
/// before it starts (its OAuth audience names it).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free loopback port")
        .port()
}

/// `notes-server` over HTTP on a free port verifying tokens from `issuer` for its own URL
/// (`http://127.0.0.1:PORT/mcp`), publishing `scopes` as the ones it uses.
pub fn notes_server(issuer: &str, scopes: &[&str]) -> crate::http::Spawned {
    let port = free_port();
    let audience = format!("http://127.0.0.1:{port}/mcp");
    let mut args = vec!["--oauth-issuer", issuer, "--oauth-audience", &audience];
    for scope in scopes {
        args.extend(["--oauth-scope", scope]);
    }
    crate::http::Spawned::start_at("notes-server", &format!("127.0.0.1:{port}"), &args)
}
