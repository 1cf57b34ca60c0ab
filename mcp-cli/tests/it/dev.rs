//! `cargo mcp dev` under a real client: the official TypeScript client
//! (`tests/interop/ts/dev-client.mjs`, installed by `tests/interop/setup.sh` like the other
//! interop tests; nothing is skipped) starts `cargo-mcp dev` as its stdio server in a
//! generated project, or connects to `cargo-mcp dev --transport http`, and stays connected
//! while the test edits the project's source.
//!
//! One project, built into the shared generated target folder first (so `dev`'s own first
//! build is a no-op and each edit rebuilds only the project's crate).
// Some tests here signal processes the Unix way; elsewhere their helpers go unused.
#![cfg_attr(not(unix), allow(unused_imports, dead_code))]

use crate::support::*;
use serde_json::Value;
use std::io::{BufRead as _, BufReader, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A rebuild after an edit is incremental (the project's crate alone), but CI machines are
/// slow and shared.
const REBUILD_DEADLINE: Duration = Duration::from_secs(240);

/// The dev client script, its JSON lines, and everything written to its stderr (its own
/// messages, `cargo mcp dev`'s, cargo's and the server's: the server's stderr is inherited
/// all the way down).
struct DevClient {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<Value>,
    stderr: Arc<Mutex<String>>,
}

impl DevClient {
    /// Starts the client in `mode` (`legacy` or `modern`) on `cargo-mcp dev` in `project`.
    fn start(project: &Path, mode: &str) -> DevClient {
        let interop = mcp_tests::setup("interop");
        let mut cmd = Command::new("node");
        cmd.arg(interop.join("ts").join("dev-client.mjs"))
            .args(["--mode", mode])
            .arg("--cwd")
            .arg(project)
            .arg("--")
            .arg(env!("CARGO_BIN_EXE_cargo-mcp"))
            .args(["dev", "--debounce-ms", "100", "--grace", "2"])
            .current_dir(interop);
        Self::spawn(cmd)
    }

    /// Starts the client in `mode` on a dev server's Streamable HTTP endpoint.
    fn start_http(url: &str, mode: &str) -> DevClient {
        let interop = mcp_tests::setup("interop");
        let mut cmd = Command::new("node");
        cmd.arg(interop.join("ts").join("dev-client.mjs"))
            .args(["--mode", mode, "--url", url])
            .current_dir(interop);
        Self::spawn(cmd)
    }

    fn spawn(mut cmd: Command) -> DevClient {
        cmd.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        in_generated_target(&mut cmd);
        let mut child = cmd
            .spawn()
            .expect("node starts (tests/interop/setup.sh checked it)");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let stderr = collect(child.stderr.take().unwrap());
        let (send, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                let value = serde_json::from_str(&line)
                    .unwrap_or_else(|e| Value::String(format!("not JSON ({e}): {line}")));
                if send.send(value).is_err() {
                    break;
                }
            }
        });
        DevClient {
            child,
            stdin,
            lines,
            stderr,
        }
    }

    fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    /// The next line that is not a list_changed event (those are checked through
    /// `wait-list-changed`).
    fn next(&mut self, what: &str, within: Duration) -> Value {
        let deadline = Instant::now() + within;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) if line["event"] == "list_changed" => continue,
                Ok(line) => return line,
                Err(_) => panic!(
                    "no answer to {what} within {within:?}\n--- stderr ---\n{}",
                    self.stderr()
                ),
            }
        }
    }

    /// Sends a command and returns its answer, which must be `ok`.
    fn ask(&mut self, command: &str, within: Duration) -> Value {
        writeln!(self.stdin, "{command}").unwrap();
        self.stdin.flush().unwrap();
        let answer = self.next(command, within);
        assert_eq!(
            answer["ok"],
            true,
            "`{command}` failed: {answer}\n--- stderr ---\n{}",
            self.stderr()
        );
        answer
    }

    fn tools(&mut self) -> Vec<String> {
        let answer = self.ask("list", Duration::from_secs(60));
        serde_json::from_value(answer["tools"].clone()).unwrap()
    }

    fn call_text(&mut self, call: &str) -> String {
        let answer = self.ask(call, Duration::from_secs(60));
        let result = &answer["result"];
        assert_ne!(result["isError"], true, "`{call}`: {result}");
        result["content"][0]["text"]
            .as_str()
            .unwrap_or_else(|| panic!("`{call}`: no text in {result}"))
            .to_owned()
    }

    /// Waits for stderr to contain `needle`.
    fn wait_stderr(&self, needle: &str, within: Duration) {
        let deadline = Instant::now() + within;
        while !self.stderr().contains(needle) {
            assert!(
                Instant::now() < deadline,
                "stderr never said {needle:?} within {within:?}\n--- stderr ---\n{}",
                self.stderr()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    fn quit(mut self) {
        let _ = writeln!(self.stdin, "quit");
        let _ = self.stdin.flush();
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                assert!(
                    status.success(),
                    "the client ended with {status}\n{}",
                    self.stderr()
                );
                return;
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                panic!(
                    "the client did not end after quit\n--- stderr ---\n{}",
                    self.stderr()
                );
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

/// Everything `pipe` says, collected by a thread as it comes.
fn collect(mut pipe: impl std::io::Read + Send + 'static) -> Arc<Mutex<String>> {
    let text = Arc::new(Mutex::new(String::new()));
    let collected = Arc::clone(&text);
    std::thread::spawn(move || {
        let mut buffer = [0u8; 4096];
        while let Ok(n) = pipe.read(&mut buffer) {
            if n == 0 {
                break;
            }
            let text = String::from_utf8_lossy(&buffer[..n]);
            collected.lock().unwrap().push_str(&text);
        }
    });
    text
}

/// `cargo-mcp dev --transport http` on a free port in `project`, killed when dropped; its
/// stderr collected.
struct HttpDev {
    child: Child,
    stderr: Arc<Mutex<String>>,
}

impl HttpDev {
    /// Starts it and waits for the URL it serves at.
    fn start(project: &Path) -> (HttpDev, String) {
        let mut cmd = cargo_mcp();
        cmd.args(["dev", "--transport", "http", "--bind", "127.0.0.1:0"])
            .args(["--debounce-ms", "100", "--grace", "2"])
            .current_dir(project)
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        in_generated_target(&mut cmd);
        let mut child = cmd.spawn().expect("cargo-mcp starts");
        let stderr = collect(child.stderr.take().unwrap());
        let dev = HttpDev { child, stderr };
        let deadline = Instant::now() + Duration::from_secs(120);
        loop {
            let text = dev.stderr.lock().unwrap().clone();
            if let Some(url) = text
                .split_whitespace()
                .find(|w| w.starts_with("http://127.0.0.1:") && w.ends_with("/mcp"))
            {
                return (dev, url.to_owned());
            }
            assert!(Instant::now() < deadline, "no URL on stderr:\n{text}");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for HttpDev {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A tool for the edit to add, and its registration.
const SHOUT: &str = "
/// Shouts the text back.
#[mcp_tool(read_only)]
pub async fn shout(
    /// The text to shout
    text: String,
) -> String {
    text.to_uppercase()
}
";

/// A generated project (`name`), built into the shared target folder so `dev` starts
/// serving at once; returns the temporary folder and the project.
fn built_project(name: &str) -> (tempfile::TempDir, PathBuf) {
    let tmp = outside_tempdir();
    let project = generate(tmp.path(), name, &[]);
    pin_dependencies(&project);
    let build = cargo_in(&project, &["build", "--quiet"]);
    assert!(build.status.success(), "{}", show(&build));
    (tmp, project)
}

/// Adds the `shout` tool to the project's `src/lib.rs` (the function and its
/// registration), as a user would; returns the new source.
fn add_shout(project: &Path) -> String {
    let lib = project.join("src/lib.rs");
    let source = std::fs::read_to_string(&lib).unwrap();
    let registered = ".tool(text_stats::tool())";
    assert!(
        source.contains(registered),
        "the template changed:\n{source}"
    );
    let edited = source.replace(
        registered,
        &format!("{registered}\n        .tool(shout::tool())"),
    ) + SHOUT;
    std::fs::write(&lib, &edited).unwrap();
    edited
}

/// Starts the client and waits for its connection.
fn connected(project: &Path, mode: &str) -> (DevClient, Value) {
    let mut client = DevClient::start(project, mode);
    let connected = client.next("the connection", Duration::from_secs(300));
    assert_eq!(
        connected["event"],
        "connected",
        "{connected}\n{}",
        client.stderr()
    );
    (client, connected)
}

#[test]
fn a_connected_client_sees_a_new_tool_after_a_rebuild_and_a_broken_edit_keeps_the_old_server() {
    let started = Instant::now();
    let (_tmp, project) = built_project("dev-demo");
    let warmed = started.elapsed();

    let (mut client, connected) = connected(&project, "legacy");
    assert_eq!(connected["protocolVersion"], "2025-11-25");
    assert_eq!(
        connected["capabilities"]["tools"]["listChanged"], true,
        "dev declares the list changes it sends: {connected}"
    );
    assert_eq!(client.tools(), ["add", "text_stats"]);
    assert_eq!(client.call_text(r#"call add {"a":2,"b":3}"#), "5");

    let edited = add_shout(&project);

    client.ask("wait-list-changed 240000", REBUILD_DEADLINE);
    assert_eq!(client.tools(), ["add", "shout", "text_stats"]);
    assert_eq!(client.call_text(r#"call shout {"text":"hi"}"#), "HI");
    let rebuilt = started.elapsed();

    // A broken edit: the compiler's error is printed, the last good server keeps serving.
    std::fs::write(
        project.join("src/lib.rs"),
        edited + "\npub fn broken() -> u32 {\n    \"not a number\"\n}\n",
    )
    .unwrap();
    client.wait_stderr("error[E0308]", REBUILD_DEADLINE);
    client.wait_stderr(
        "the last good server (if any) keeps serving",
        Duration::from_secs(30),
    );
    assert_eq!(client.tools(), ["add", "shout", "text_stats"]);
    assert_eq!(client.call_text(r#"call shout {"text":"still"}"#), "STILL");
    let stderr = client.stderr();
    assert_eq!(
        stderr.matches("restarted the server").count(),
        1,
        "only the good build restarted the server:\n{stderr}"
    );
    client.quit();
    eprintln!(
        "dev test: warm build {warmed:?}, first rebuild seen at {rebuilt:?}, total {:?}",
        started.elapsed()
    );
}

#[test]
fn a_modern_client_gets_the_change_on_its_listen_stream() {
    let (_tmp, project) = built_project("dev-modern");
    // Pinned to 2026-07-28: the SDK probes `server/discover` on a sibling `cargo-mcp dev`,
    // then opens a `subscriptions/listen` stream for tool list changes.
    let (mut client, connected) = connected(&project, "modern");
    assert_eq!(connected["protocolVersion"], "2026-07-28");
    assert_eq!(client.tools(), ["add", "text_stats"]);
    add_shout(&project);
    client.ask("wait-list-changed 240000", REBUILD_DEADLINE);
    assert_eq!(client.tools(), ["add", "shout", "text_stats"]);
    assert_eq!(client.call_text(r#"call shout {"text":"now"}"#), "NOW");
    client.quit();
}

#[test]
fn an_http_client_stays_connected_across_a_rebuild() {
    let (_tmp, project) = built_project("dev-http");
    let (dev, url) = HttpDev::start(&project);
    let mut client = DevClient::start_http(&url, "legacy");
    let connected = client.next("the connection", Duration::from_secs(300));
    assert_eq!(
        connected["event"],
        "connected",
        "{connected}\n{}\n--- dev ---\n{}",
        client.stderr(),
        dev.stderr.lock().unwrap()
    );
    assert_eq!(client.tools(), ["add", "text_stats"]);
    add_shout(&project);
    // The notification comes on the client's GET stream.
    client.ask("wait-list-changed 240000", REBUILD_DEADLINE);
    assert_eq!(client.tools(), ["add", "shout", "text_stats"]);
    assert_eq!(client.call_text(r#"call shout {"text":"web"}"#), "WEB");
    client.quit();
    let log = dev.stderr.lock().unwrap().clone();
    assert_eq!(
        log.matches("restarted the server").count(),
        1,
        "one rebuild, one restart:\n{log}"
    );
}

#[test]
fn a_modern_http_client_gets_the_change_on_its_listen_stream() {
    let (_tmp, project) = built_project("dev-http-modern");
    let (dev, url) = HttpDev::start(&project);
    // 2026-07-28 over HTTP: `server/discover`, then a `subscriptions/listen` POST whose
    // answer is the event stream the list change comes on.
    let mut client = DevClient::start_http(&url, "modern");
    let connected = client.next("the connection", Duration::from_secs(300));
    assert_eq!(
        connected["protocolVersion"],
        "2026-07-28",
        "{connected}\n{}\n--- dev ---\n{}",
        client.stderr(),
        dev.stderr.lock().unwrap()
    );
    add_shout(&project);
    client.ask("wait-list-changed 240000", REBUILD_DEADLINE);
    assert_eq!(client.call_text(r#"call shout {"text":"new"}"#), "NEW");
    client.quit();
}

/// A free TCP port on the loopback interface (bound, then released).
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

// Signals the dev loop by Unix signal.
#[cfg(unix)]
#[test]
fn the_inspector_is_installed_pinned_and_talks_to_dev() {
    // The Inspector needs Node 22; the conformance tools bring one (tests/conformance/setup.sh).
    let node22 = mcp_tests::setup("conformance").join("node_modules/.bin");
    let path = std::env::join_paths(std::iter::once(node22.clone()).chain(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    )))
    .unwrap();
    let (tmp, project) = built_project("dev-inspector");
    let cache = tmp.path().join("cache");

    // `--inspector`: installs the pinned Inspector into the user's cache on first use, and
    // starts it (its web UI) on this project's dev server.
    let mut cmd = cargo_mcp();
    cmd.args(["dev", "--inspector"])
        .current_dir(&project)
        .env("PATH", &path)
        .env("XDG_CACHE_HOME", &cache)
        .env("MCP_AUTO_OPEN_ENABLED", "false")
        .env("CLIENT_PORT", free_port().to_string())
        .env("MCP_SANDBOX_PORT", free_port().to_string())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
    in_generated_target(&mut cmd);
    let mut inspector = cmd.spawn().expect("cargo-mcp starts");
    let stdout = collect(inspector.stdout.take().unwrap());
    let stderr = collect(inspector.stderr.take().unwrap());
    let deadline = Instant::now() + Duration::from_secs(300);
    let up = loop {
        let out = stdout.lock().unwrap().clone();
        if out.contains("MCP Inspector Web is up and running") {
            break true;
        }
        if Instant::now() > deadline || inspector.try_wait().unwrap().is_some() {
            break false;
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    // The whole group: cargo-mcp and the Inspector's node processes (the group's id is the
    // leader's pid, set by `process_group(0)` above).
    let group = rustix::process::Pid::from_raw(inspector.id() as i32).expect("a real pid");
    let _ = rustix::process::kill_process_group(group, rustix::process::Signal::TERM);
    let _ = inspector.wait();
    assert!(
        up,
        "the Inspector did not come up\n--- stdout ---\n{}\n--- stderr ---\n{}",
        stdout.lock().unwrap(),
        stderr.lock().unwrap()
    );
    let package = cache.join(
        "cargo-mcp/inspector-2.12.0/node_modules/@modelcontextprotocol/inspector/package.json",
    );
    let manifest: Value =
        serde_json::from_str(&std::fs::read_to_string(&package).unwrap()).unwrap();
    assert_eq!(manifest["version"], "2.12.0", "the pinned version");

    // The installed Inspector, in its CLI mode, lists the dev server's tools.
    let launcher = package.with_file_name("clients/launcher/build/index.js");
    let target = generated_target_dir();
    // The Inspector gives `initialize` 60 s whatever `--connect-timeout` says, and `cargo mcp
    // dev` checks the build before it serves: no other test may hold the target folder's
    // lock meanwhile.
    let _alone = generated_target_to_myself();
    let listed = output(
        Command::new(node22.join("node"))
            .arg(&launcher)
            // `cargo mcp dev` checks the build before it serves: the CLI's default 15 s to
            // connect is no bound for that on a busy machine.
            .args(["--cli", "--connect-timeout", "600000"])
            .args(["--method", "tools/list", "-e"])
            .arg(format!("CARGO_TARGET_DIR={}", target.display()))
            .args(["-e", "CARGO_PROFILE_DEV_DEBUG=false", "--cwd"])
            .arg(&project)
            .arg("--")
            .arg(env!("CARGO_BIN_EXE_cargo-mcp"))
            .arg("dev")
            .env("PATH", &path),
    );
    assert!(listed.status.success(), "{}", show(&listed));
    let tools: Value =
        serde_json::from_slice(&listed.stdout).unwrap_or_else(|e| panic!("{e}: {}", show(&listed)));
    let mut names: Vec<&str> = tools["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("{tools}"))
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    names.sort();
    assert_eq!(names, ["add", "text_stats"]);
}

/// The HTTP front answers only a client that knows its URL, from this machine: no token,
/// a foreign `Host` (DNS rebinding), a foreign `Origin`, a body that is not declared JSON
/// (a browser's "simple request"), a second GET stream and a non-loopback `--bind` are all
/// refused; two clients using the same request id each get their own answer.
#[test]
fn the_http_front_answers_only_its_url_from_this_machine() {
    use http::Method;
    use mcp_tests::http::send;
    use serde_json::json;

    let (_tmp, project) = built_project("dev-http-guard");
    let (dev, url) = HttpDev::start(&project);
    let port = url
        .trim_start_matches("http://127.0.0.1:")
        .split('/')
        .next()
        .unwrap()
        .to_owned();
    let bare = format!("http://127.0.0.1:{port}/mcp");
    assert_ne!(url, bare, "the URL carries a token: {url}");
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let json_headers = [
        ("content-type", "application/json"),
        ("accept", "application/json, text/event-stream"),
    ];
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "guard", "version": "0"}}})
    .to_string();
    runtime.block_on(async {
        // Without the token: nothing.
        let status = send(Method::POST, &bare, &json_headers, initialize.clone())
            .await
            .status;
        assert_eq!(status.as_u16(), 404);
        // A rebinding page's Host.
        let mut headers = json_headers.to_vec();
        headers.push(("host", "evil.example"));
        let status = send(Method::POST, &url, &headers, initialize.clone())
            .await
            .status;
        assert_eq!(status.as_u16(), 403);
        // A foreign page's Origin.
        let mut headers = json_headers.to_vec();
        headers.push(("origin", "http://evil.example"));
        let status = send(Method::POST, &url, &headers, initialize.clone())
            .await
            .status;
        assert_eq!(status.as_u16(), 403);
        // A form or text/plain "simple request".
        let status = send(
            Method::POST,
            &url,
            &[("content-type", "text/plain")],
            initialize.clone(),
        )
        .await
        .status;
        assert_eq!(status.as_u16(), 415);

        // The client that knows the URL: served.
        let reply = send(Method::POST, &url, &json_headers, initialize.clone()).await;
        assert_eq!(reply.status.as_u16(), 200, "{}", reply.text());
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        send(Method::POST, &url, &json_headers, initialized.to_string()).await;

        // Two clients, one request id: each gets its own answer.
        let call = |a: u32| {
            let url = url.clone();
            let body = json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call",
                "params": {"name": "add", "arguments": {"a": a, "b": a}}})
            .to_string();
            async move {
                send(
                    Method::POST,
                    &url,
                    &[
                        ("content-type", "application/json"),
                        ("accept", "application/json, text/event-stream"),
                    ],
                    body,
                )
                .await
                .json()
            }
        };
        let (one, two) = tokio::join!(call(1), call(2));
        assert_eq!(one["id"], 5);
        assert_eq!(two["id"], 5);
        assert_eq!(one["result"]["content"][0]["text"], "2", "{one}");
        assert_eq!(two["result"]["content"][0]["text"], "4", "{two}");

        // One GET stream at a time.
        let stream_headers = [("accept", "text/event-stream")];
        let first = mcp_tests::http::open(Method::GET, &url, &stream_headers, "").await;
        assert_eq!(first.status().as_u16(), 200);
        let second = send(Method::GET, &url, &stream_headers, "").await;
        assert_eq!(second.status.as_u16(), 409);
        drop(first);
    });
    drop(dev);

    // The token is kept: a client configured with the URL reaches the next run too.
    // `http://127.0.0.1:PORT/<token>/mcp`: the token is the next-to-last segment.
    let path = |url: &str| url.rsplit('/').nth(1).map(str::to_owned);
    let (again, url_again) = HttpDev::start(&project);
    assert_eq!(path(&url_again), path(&url), "{url} then {url_again}");
    drop(again);

    // Only loopback addresses are bound.
    let mut cmd = cargo_mcp();
    cmd.args(["dev", "--transport", "http", "--bind", "0.0.0.0:0"])
        .current_dir(&project)
        .stdin(Stdio::null());
    in_generated_target(&mut cmd);
    let refused = output(&mut cmd);
    assert!(!refused.status.success(), "{}", show(&refused));
    assert!(
        stderr(&refused).contains("not a loopback address"),
        "{}",
        show(&refused)
    );
}
