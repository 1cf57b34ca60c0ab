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
        let dir = crate::setup("oauth");
        let mut child = Command::new(dir.join("node_modules/.bin/node"))
            .arg(dir.join("authorization-server.mjs"))
            .current_dir(dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("cannot start the authorization server");
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
            .expect("the authorization server printed no issuer within 60 s");
        let issuer = serde_json::from_str::<serde_json::Value>(&line)
            .ok()
            .and_then(|v| v["issuer"].as_str().map(str::to_owned))
            .unwrap_or_else(|| panic!("the authorization server printed {line:?}"));
        Self {
            child,
            _stdin: stdin,
            issuer,
        }
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
