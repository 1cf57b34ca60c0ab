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

    let out = user.run(&["list", "--url", &server.url, "--login"]);
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
    let out = user.run(&["call", "whoami", "--url", &other.url, "--login"]);
    assert!(out.status.success(), "{}", show(&out));
    assert!(stderr(&out).contains("To log in to"), "{}", show(&out));
    assert_eq!(user.stored().len(), 2);
}

/// A server on 127.0.0.1 that asks for a login and publishes the metadata `metadata(port)`
/// gives: `(challenge's resource_metadata, protected-resource document, authorization-server
/// document)`, the hostile parts a server could choose. Every request is answered and
/// counted by path.
struct Hostile {
    url: String,
    paths: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
}

impl Hostile {
    fn start(metadata: impl Fn(u16) -> (Option<String>, Value, Value) + Send + 'static) -> Self {
        use std::io::{BufRead as _, BufReader, Read as _, Write as _};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let paths = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let seen = paths.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut line = String::new();
                let _ = reader.read_line(&mut line);
                // The origin form, also from a client that sends the absolute form.
                let target = line.split(' ').nth(1).unwrap_or("/");
                let path = match target.split_once("://") {
                    Some((_, rest)) => rest.find('/').map_or("/", |i| &rest[i..]),
                    None => target,
                }
                .to_owned();
                let mut length = 0;
                loop {
                    let mut header = String::new();
                    if reader.read_line(&mut header).unwrap_or(0) == 0 || header == "\r\n" {
                        break;
                    }
                    if let Some((name, value)) = header.split_once(':')
                        && name.eq_ignore_ascii_case("content-length")
                    {
                        length = value.trim().parse().unwrap_or(0);
                    }
                }
                let _ = reader.by_ref().take(length).read_to_end(&mut Vec::new());
                seen.lock().unwrap().push(path.clone());
                let (named, resource, issuer) = metadata(port);
                let (status, extra, body) = match path.as_str() {
                    "/mcp" => {
                        let named = named
                            .map_or(String::new(), |url| format!(" resource_metadata=\"{url}\""));
                        (
                            "401 Unauthorized",
                            format!("WWW-Authenticate: Bearer{named}\r\n"),
                            String::new(),
                        )
                    }
                    "/.well-known/oauth-protected-resource/mcp" => {
                        ("200 OK", String::new(), resource.to_string())
                    }
                    "/.well-known/oauth-authorization-server" => {
                        ("200 OK", String::new(), issuer.to_string())
                    }
                    "/register" => ("201 Created", String::new(), r#"{"client_id":"c"}"#.into()),
                    _ => ("404 Not Found", String::new(), String::new()),
                };
                let _ = write!(
                    stream,
                    "HTTP/1.1 {status}\r\n{extra}Content-Type: application/json\r\n\
                     Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                );
            }
        });
        Self {
            url: format!("http://127.0.0.1:{port}/mcp"),
            paths,
        }
    }

    fn paths(&self) -> Vec<String> {
        self.paths.lock().unwrap().clone()
    }
}

/// Well-formed metadata of a server on `port` whose authorization server is itself, with
/// `change` applied to the authorization server's document.
fn metadata(port: u16, change: impl Fn(&mut Value)) -> (Option<String>, Value, Value) {
    let base = format!("http://127.0.0.1:{port}");
    let resource = serde_json::json!({
        "resource": format!("{base}/mcp"),
        "authorization_servers": [base],
    });
    let mut issuer = serde_json::json!({
        "issuer": base,
        "authorization_endpoint": format!("{base}/authorize"),
        "token_endpoint": format!("{base}/token"),
        "registration_endpoint": format!("{base}/register"),
        "code_challenge_methods_supported": ["S256"],
    });
    change(&mut issuer);
    (None, resource, issuer)
}

#[test]
fn urls_a_server_chooses_are_refused_before_they_are_printed_fetched_or_opened() {
    type Case = (
        &'static str,
        fn(u16) -> (Option<String>, Value, Value),
        &'static str,
    );
    let cases: [Case; 9] = [
        (
            "a file: authorization endpoint",
            |p| {
                metadata(p, |m| {
                    m["authorization_endpoint"] = "file:///etc/hostname".into()
                })
            },
            "the authorization_endpoint given by the server is a file: URL",
        ),
        (
            // The pattern of CVE-2025-6514: what follows `&` would run under `cmd /C start`.
            "a plain-http authorization endpoint off this machine, with a command in its query",
            |p| {
                metadata(p, |m| {
                    m["authorization_endpoint"] = "http://auth.example/a?x=1&calc.exe".into();
                })
            },
            "the authorization_endpoint given by the server is a plain http:// URL to auth.example",
        ),
        (
            "a javascript: token endpoint",
            |p| metadata(p, |m| m["token_endpoint"] = "javascript:alert(1)".into()),
            "the token_endpoint given by the server is a javascript: URL",
        ),
        (
            "a registration endpoint with a user name",
            |p| {
                metadata(p, |m| {
                    m["registration_endpoint"] = "https://127.0.0.1@evil.example/r".into();
                })
            },
            "the registration_endpoint given by the server has a user name in it",
        ),
        (
            "a plain-http revocation endpoint",
            |p| {
                metadata(p, |m| {
                    m["revocation_endpoint"] = "http://198.51.100.1/revoke".into();
                })
            },
            "the revocation_endpoint given by the server is a plain http:// URL",
        ),
        (
            // Never fetched: refused before connecting (198.51.100.0/24 is TEST-NET-2).
            "resource metadata named off this machine over plain http",
            |p| {
                let (_, resource, issuer) = metadata(p, |_| {});
                let named = "http://198.51.100.1/.well-known/oauth-protected-resource";
                (Some(named.to_owned()), resource, issuer)
            },
            "the resource_metadata given by the server is a plain http:// URL to 198.51.100.1",
        ),
        (
            // Another origin, even on this machine: never fetched.
            "resource metadata named on another origin",
            |p| {
                let (_, resource, issuer) = metadata(p, |_| {});
                let named = format!("http://127.0.0.2:{p}/.well-known/oauth-protected-resource");
                (Some(named), resource, issuer)
            },
            "the server's resource_metadata is on another origin than the server",
        ),
        (
            "an authorization server off this machine over plain http",
            |p| {
                let (named, mut resource, issuer) = metadata(p, |_| {});
                resource["authorization_servers"] = serde_json::json!(["http://198.51.100.1"]);
                (named, resource, issuer)
            },
            "the authorization server given by the server is a plain http:// URL",
        ),
        (
            // `/mc` is no parent of `/mcp`: a segment boundary, not a string prefix.
            "a resource that is a string prefix of the endpoint's path",
            |p| {
                let (named, mut resource, issuer) = metadata(p, |_| {});
                resource["resource"] = format!("http://127.0.0.1:{p}/mc").into();
                (named, resource, issuer)
            },
            "which is not",
        ),
    ];
    for (what, metadata, expected) in cases {
        let server = Hostile::start(metadata);
        let user = User::new();
        let opened = user.home.path().join("browser-opened");
        let browser = user.home.path().join("record.sh");
        std::fs::write(
            &browser,
            format!("#!/bin/sh\necho \"$1\" > '{}'\n", opened.display()),
        )
        .unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            std::fs::set_permissions(&browser, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        let out = output(
            cargo_mcp()
                .args(["login", &server.url, "--wait", "5"])
                .env("HOME", user.home.path())
                .env("XDG_CONFIG_HOME", user.home.path().join("config"))
                .env("BROWSER", &browser),
        );
        assert!(!out.status.success(), "{what}: {}", show(&out));
        let err = stderr(&out);
        assert!(err.contains(expected), "{what}: {}", show(&out));
        assert!(
            !err.contains("To log in"),
            "{what}: printed: {}",
            show(&out)
        );
        for hostile in [
            "/etc/hostname",
            "calc.exe",
            "alert(1)",
            "evil.example",
            "/revoke",
        ] {
            assert!(!err.contains(hostile), "{what}: printed {hostile}: {err}");
        }
        assert!(!opened.exists(), "{what}: a browser was opened");
        assert!(
            !server.paths().contains(&"/register".to_owned()),
            "{what}: registered before every endpoint was checked: {:?}",
            server.paths()
        );
        assert!(user.stored().is_empty(), "{what}");
    }
}

/// Review #40 item 10: `list --timeout` did not bound the login it started (the browser's
/// 300 s). Here the browser never comes back.
#[test]
fn a_login_started_by_list_ends_within_its_timeout() {
    let server = Hostile::start(|p| metadata(p, |_| {}));
    let user = User::new();
    let idle = user.home.path().join("idle.sh");
    std::fs::write(&idle, "#!/bin/sh\nexit 0\n").unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(&idle, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let out = output(
        cargo_mcp()
            .args(["list", "--url", &server.url, "--login", "--timeout", "3"])
            .env("HOME", user.home.path())
            .env("XDG_CONFIG_HOME", user.home.path().join("config"))
            .env("BROWSER", &idle)
            .env_remove("MCP_TOKEN")
            .env_remove("MCP_CLIENT_ID"),
    );
    assert!(!out.status.success(), "{}", show(&out));
    assert!(stderr(&out).contains("within 3 s"), "{}", show(&out));
    assert!(user.stored().is_empty());
}

#[test]
fn list_call_and_read_do_not_start_a_login_unasked() {
    let server = Hostile::start(|p| metadata(p, |_| {}));
    let user = User::new();
    for args in [
        vec!["list", "--url", &server.url],
        vec!["call", "whoami", "--url", &server.url],
        vec!["read", "notes://all", "--url", &server.url],
    ] {
        let out = user.run(&args);
        assert!(!out.status.success(), "{args:?}: {}", show(&out));
        let err = stderr(&out);
        assert!(
            err.contains("asks for a login")
                && err.contains(&format!("cargo mcp login {}", server.url))
                && err.contains("--login"),
            "{args:?}: {err} {:?}",
            server.paths()
        );
        assert!(!err.contains("To log in"), "{args:?}: {err}");
    }
    // Nothing beyond the endpoint itself was asked: no metadata, no registration.
    assert!(
        server.paths().iter().all(|p| p == "/mcp"),
        "{:?}",
        server.paths()
    );
}

/// The claims of a JWT, unverified.
fn claims_of(jwt: &str) -> Value {
    use base64::Engine as _;
    let payload = jwt.split('.').nth(1).expect("a JWT");
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(payload)
        .expect("base64url");
    serde_json::from_slice(&bytes).expect("JSON claims")
}

/// DPoP (RFC 9449): `notes-server` says it verifies proofs, and the authorization server
/// (asking for a nonce first, as Okta does) binds tokens to the key a token request proves;
/// the login's tokens are bound to a key of its own, every request carries a proof, the
/// refresh proves the same key, and the token alone is refused.
#[test]
fn a_login_binds_its_tokens_to_a_dpop_key_when_both_sides_take_dpop() {
    let auth = AuthorizationServer::start_with(&["dpop", "dpop-nonce"]);
    let server = notes_server(&auth.issuer, &["notes:read", "notes:write"]);
    let user = User::new();

    let out = user.run(&["login", &server.url]);
    assert!(out.status.success(), "{}", show(&out));
    assert!(stderr(&out).contains("DPoP"), "{}", show(&out));
    let (file, login) = user.stored().remove(0);
    let key = login["dpop_key"]
        .as_str()
        .expect("the key is kept")
        .to_owned();
    let token = login["access_token"].as_str().unwrap().to_owned();
    let jkt = claims_of(&token)["cnf"]["jkt"].clone();
    assert!(jkt.is_string(), "the token is bound: {}", claims_of(&token));

    // Every request proves the key: both eras, a legacy session's stream and end included.
    for era in ["legacy", "modern"] {
        let text = format!("text=in {era}");
        let out = user.run(&[
            "call",
            "add_note",
            &text,
            "--url",
            &server.url,
            "--era",
            era,
        ]);
        assert!(stdout(&out).ends_with("added\n"), "{era}: {}", show(&out));
    }
    // The token without the key is refused, and no login is tried.
    let out = user.run(&["list", "--url", &server.url, "--token", &token]);
    assert!(!out.status.success(), "{}", show(&out));
    assert!(stderr(&out).contains("401"), "{}", show(&out));

    // Expired: the refresh proves the same key (the authorization server refuses a bound
    // refresh token otherwise) and the new token is bound to it too.
    let mut expired = login.clone();
    expired["expires_at"] = 1.into();
    std::fs::write(&file, expired.to_string()).unwrap();
    let out = user.run(&["call", "list_notes", "--url", &server.url]);
    assert!(stdout(&out).contains("in legacy"), "{}", show(&out));
    assert!(!stderr(&out).contains("To log in"), "{}", show(&out));
    let refreshed = user.stored().remove(0).1;
    assert!(refreshed["expires_at"].as_u64().unwrap() > 1);
    assert_eq!(refreshed["dpop_key"], key.as_str());
    let refreshed_token = refreshed["access_token"].as_str().unwrap();
    assert_eq!(claims_of(refreshed_token)["cnf"]["jkt"], jkt);

    // Another key in the store: the server refuses its proofs (the token is bound to the
    // first), so the command asks for a login instead of passing.
    let mut other = refreshed.clone();
    let another = mcp_runtime::client::DpopKey::generate().unwrap();
    other["dpop_key"] = {
        use base64::Engine as _;
        base64::engine::general_purpose::URL_SAFE_NO_PAD
            .encode(another.to_pkcs8())
            .into()
    };
    std::fs::write(&file, other.to_string()).unwrap();
    let out = user.run(&["list", "--url", &server.url]);
    assert!(!out.status.success(), "{}", show(&out));
    assert!(stderr(&out).contains("asks for a login"), "{}", show(&out));
}

/// Without DPoP at the authorization server, the same server gets bearer tokens: a client
/// does not bind tokens where nothing would issue bound ones.
#[test]
fn without_dpop_at_the_authorization_server_tokens_stay_bearer_tokens() {
    let auth = AuthorizationServer::start();
    let server = notes_server(&auth.issuer, &["notes:read"]);
    let user = User::new();
    let out = user.run(&["login", &server.url]);
    assert!(out.status.success(), "{}", show(&out));
    assert!(!stderr(&out).contains("DPoP"), "{}", show(&out));
    let login = user.stored().remove(0).1;
    assert!(login.get("dpop_key").is_none(), "{login}");
    assert!(
        claims_of(login["access_token"].as_str().unwrap())
            .get("cnf")
            .is_none()
    );
    let out = user.run(&["call", "list_notes", "--url", &server.url]);
    assert_eq!(stdout(&out), "no notes yet\n", "{}", show(&out));
}
