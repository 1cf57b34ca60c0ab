//! `cargo mcp preview` in a real browser: Debian's Chromium, driven headless through
//! ChromeDriver (WebDriver; both installed pinned by `tests/browser/setup.sh`, nothing
//! downloaded here), opens the preview of a project generated from the `app` template. The
//! page hosts the template's view (written with the official ext-apps `App` class) through
//! the official `AppBridge`; the test reads the rendered result in the view's DOM, has the
//! view call the tool again through the bridge, checks that the view's CSP lets a fetch
//! reach the origin it declares and blocks another before it connects, and that an edit of
//! the view reloads the page.
//!
//! Every server here listens on loopback: the preview, ChromeDriver and the two probe
//! servers the view's fetches aim at.

use crate::support::*;
use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::json;
use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::TcpListener;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// A first build of the generated project (npm, Vite, the crate) and a rebuild after an
/// edit, on a slow shared machine.
const DEADLINE: Duration = Duration::from_secs(240);

/// A child process killed (and reaped) when the test ends, passing or not.
struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A loopback HTTP server that answers every request `ok` (with CORS headers, so a page of
/// another origin may read it) and counts the connections it accepted.
fn probe_server() -> (u16, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let hits = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&hits);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            counted.fetch_add(1, Ordering::SeqCst);
            let mut head = [0u8; 4096];
            let _ = stream.read(&mut head);
            let _ = stream.write_all(
                b"HTTP/1.1 200 OK\r\nAccess-Control-Allow-Origin: *\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok",
            );
        }
    });
    (port, hits)
}

/// The status code the preview answers a raw HTTP/1.1 request with.
fn status_of(port: u16, request: &str) -> u16 {
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream.write_all(request.as_bytes()).unwrap();
    let mut answer = String::new();
    let _ = BufReader::new(stream).read_line(&mut answer);
    answer
        .split(' ')
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or_else(|| panic!("not an HTTP answer: {answer:?}"))
}

/// What the preview refuses: the wrong host name for each page, requests to the server from
/// anywhere but the host page, methods other than listing, calling and reading.
fn assert_refusals(port: u16, path: &str) {
    let get = |host: &str, target: &str| {
        format!("GET {target} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n")
    };
    let rpc = |origin: Option<&str>, body: &str| {
        let origin = origin
            .map(|o| format!("Origin: {o}\r\n"))
            .unwrap_or_default();
        format!(
            "POST {path}rpc HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n{origin}Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
    };
    let host = format!("127.0.0.1:{port}");
    let sandbox_host = format!("localhost:{port}");
    let page_origin = format!("http://127.0.0.1:{port}");
    assert_eq!(status_of(port, &get(&host, path)), 200);
    assert_eq!(status_of(port, &get(&host, "/not-the-token/")), 404);
    assert_eq!(
        status_of(port, &get("evil.example", path)),
        403,
        "DNS rebinding"
    );
    // Each page on its own origin only: the sandbox must not share the host page's.
    assert_eq!(status_of(port, &get(&sandbox_host, path)), 403);
    assert_eq!(status_of(port, &get(&host, &format!("{path}sandbox"))), 403);
    assert_eq!(
        status_of(port, &get(&sandbox_host, &format!("{path}sandbox"))),
        200
    );
    let bad_csp =
        format!("{path}sandbox?csp=%7B%22connectDomains%22%3A%5B%22*%3B%20script-src%20*%22%5D%7D");
    assert_eq!(
        status_of(port, &get(&sandbox_host, &bad_csp)),
        400,
        "a CSP injection"
    );
    let list = r#"{"method": "tools/list"}"#;
    assert_eq!(status_of(port, &rpc(Some(&page_origin), list)), 200);
    assert_eq!(status_of(port, &rpc(None, list)), 403, "no Origin");
    let sandbox_origin = format!("http://localhost:{port}");
    assert_eq!(
        status_of(port, &rpc(Some(&sandbox_origin), list)),
        403,
        "the view's origin"
    );
    assert_eq!(
        status_of(port, &rpc(Some("http://evil.example"), list)),
        403
    );
    let ping = r#"{"method": "logging/setLevel", "params": {"level": "debug"}}"#;
    assert_eq!(
        status_of(port, &rpc(Some(&page_origin), ping)),
        403,
        "not a listed method"
    );
}

/// Replaces `from` with `to` in the project's file `path`, which must contain it.
fn edit(project: &Path, path: &str, from: &str, to: &str) {
    let path = project.join(path);
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains(from), "{} holds {from:?}", path.display());
    std::fs::write(&path, text.replace(from, to)).unwrap();
}

/// The text of the element `css` once it equals `expected` (polled), or a failure naming
/// what it was.
async fn wait_text(client: &Client, css: &str, expected: &str) {
    let deadline = Instant::now() + DEADLINE;
    let mut last = String::from("(absent)");
    while Instant::now() < deadline {
        if let Ok(element) = client.find(Locator::Css(css)).await
            && let Ok(text) = element.text().await
        {
            if text == expected {
                return;
            }
            last = text;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    panic!("`{css}` did not become {expected:?}; it was {last:?}");
}

/// Moves into the view: the sandbox proxy's frame, then the view's own inside it.
async fn enter_view(client: &Client) {
    let deadline = Instant::now() + DEADLINE;
    loop {
        // Back to the page (the parent of the page is the page itself).
        for _ in 0..2 {
            client.enter_parent_frame().await.unwrap();
        }
        let entered = async {
            client
                .find(Locator::Css("#view"))
                .await?
                .enter_frame()
                .await?;
            client
                .find(Locator::Css("iframe"))
                .await?
                .enter_frame()
                .await
        }
        .await;
        match entered {
            Ok(()) => return,
            Err(e) if Instant::now() > deadline => panic!("the view's frames never appeared: {e}"),
            Err(_) => tokio::time::sleep(Duration::from_millis(200)).await,
        }
    }
}

#[test]
fn the_preview_hosts_the_app_template_in_chromium() {
    mcp_tests::setup("browser");
    let tmp = outside_tempdir();
    // Its own name: the generated projects share one target folder, and a binary of the same
    // name built by another test at the same time would replace this one.
    let project = generate_default(tmp.path(), "preview-app", &["--template", "app"]);
    pin_dependencies(&project);

    // The view declares one origin it may reach, and tries that one and another.
    let (allowed, allowed_hits) = probe_server();
    let (forbidden, forbidden_hits) = probe_server();
    edit(
        &project,
        "src/lib.rs",
        ".with_prefers_border(true)",
        &format!(
            ".with_prefers_border(true).with_csp(mcp_runtime::protocol::apps::Csp::default().connect([\"http://127.0.0.1:{allowed}\"]))"
        ),
    );
    let probe = format!(
        r#"
for (const [name, port] of [["allowed", {allowed}], ["forbidden", {forbidden}]]) {{
  const mark = (text) => {{
    const p = document.createElement("p");
    p.id = `probe-${{name}}`;
    p.textContent = text;
    document.body.append(p);
  }};
  fetch(`http://127.0.0.1:${{port}}/probe`).then(() => mark("reached"), () => mark("blocked"));
}}
"#
    );
    let script = project.join("ui/src/app.js");
    let mut source = std::fs::read_to_string(&script).unwrap();
    source.push_str(&probe);
    std::fs::write(&script, source).unwrap();

    // Built first (npm ci, Vite, the crate), so the preview's own first build is a no-op.
    let build = cargo_in(&project, &["build", "--quiet"]);
    assert!(build.status.success(), "{}", show(&build));

    let port = free_port();
    let mut preview = Command::new(env!("CARGO_BIN_EXE_cargo-mcp"));
    preview
        .args([
            "preview",
            "text_stats",
            "text=one two three",
            "--debounce-ms",
            "100",
        ])
        .args(["--bind", &format!("127.0.0.1:{port}")])
        .current_dir(&project)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    in_generated_target(&mut preview);
    let mut preview = Killed(preview.spawn().expect("cargo-mcp starts"));
    let (found, url) = std::sync::mpsc::channel();
    let stderr = preview.0.stderr.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            eprintln!("{line}");
            if let Some(at) = line.find(" at http://") {
                let url = line[at + 4..].split(' ').next().unwrap_or_default();
                let _ = found.send(url.to_owned());
            }
        }
    });
    let url = url
        .recv_timeout(DEADLINE)
        .expect("cargo mcp preview prints its URL");
    assert!(
        url.starts_with(&format!("http://127.0.0.1:{port}/")),
        "{url}"
    );
    let path = url[format!("http://127.0.0.1:{port}").len()..]
        .split('?')
        .next()
        .unwrap()
        .to_owned();
    assert_refusals(port, &path);

    let driver_port = free_port();
    let _driver = Killed(
        Command::new("chromedriver")
            .arg(format!("--port={driver_port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver starts (tests/browser/setup.sh installed it)"),
    );
    let profile = tempfile::tempdir().unwrap();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let capabilities = json!({
            "goog:chromeOptions": {
                "binary": "/usr/bin/chromium",
                "args": [
                    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                    "--no-first-run", "--disable-background-networking",
                    "--disable-component-update", "--disable-sync",
                    format!("--user-data-dir={}", profile.path().display()),
                ],
            },
        });
        let capabilities = capabilities.as_object().unwrap().clone();
        let deadline = Instant::now() + Duration::from_secs(60);
        let client = loop {
            let connector = hyper_util::client::legacy::connect::HttpConnector::new();
            match ClientBuilder::new(connector)
                .capabilities(capabilities.clone())
                .connect(&format!("http://127.0.0.1:{driver_port}"))
                .await
            {
                Ok(client) => break client,
                Err(e) if Instant::now() > deadline => panic!("chromedriver: {e}"),
                Err(_) => tokio::time::sleep(Duration::from_millis(200)).await,
            }
        };

        client.goto(&url).await.unwrap();
        wait_text(&client, "#status", "The view has the tool's result.").await;

        // The view rendered the result the host passed it.
        enter_view(&client).await;
        wait_text(&client, "#words", "3").await;
        wait_text(&client, "#status", "Measured.").await;

        // The view calls the tool through the host's bridge, and renders that answer.
        client
            .find(Locator::Css("#text"))
            .await
            .unwrap()
            .send_keys("four words right here")
            .await
            .unwrap();
        client
            .find(Locator::Css("button[type=submit]"))
            .await
            .unwrap()
            .click()
            .await
            .unwrap();
        wait_text(&client, "#words", "4").await;

        // The CSP lets the declared origin through and blocks the other before it connects.
        wait_text(&client, "#probe-allowed", "reached").await;
        wait_text(&client, "#probe-forbidden", "blocked").await;
        assert!(allowed_hits.load(Ordering::SeqCst) >= 1);
        assert_eq!(
            forbidden_hits.load(Ordering::SeqCst),
            0,
            "no connection reached the origin the CSP forbids"
        );

        // An edit of the view rebuilds it, and the page reloads with it.
        edit(
            &project,
            "ui/index.html",
            r#"<button type="submit">Measure</button>"#,
            r#"<button type="submit">Count</button>"#,
        );
        let deadline = Instant::now() + DEADLINE;
        loop {
            enter_view(&client).await;
            let button = match client.find(Locator::Css("button[type=submit]")).await {
                Ok(button) => button.text().await.unwrap_or_default(),
                Err(_) => String::new(),
            };
            if button == "Count" {
                break;
            }
            assert!(
                Instant::now() < deadline,
                "the page did not reload with the edited view (the button says {button:?})"
            );
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
        client.close().await.unwrap();
    });
}

/// `preview/dist/host.js` (committed, embedded in the CLI so the preview works offline) is
/// exactly what `npm ci && npm run build` makes from `preview/package-lock.json`: the host
/// bridge the preview ships is the pinned official one, and nothing else.
#[test]
fn the_committed_host_bundle_is_rebuilt_byte_for_byte_from_its_lock() {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("preview");
    let tmp = outside_tempdir();
    for file in ["package.json", "package-lock.json", "host.js"] {
        std::fs::copy(source.join(file), tmp.path().join(file)).unwrap();
    }
    let npm = |args: &[&str]| {
        let out = Command::new("npm")
            .args(args)
            .current_dir(tmp.path())
            .stdin(Stdio::null())
            .output()
            .expect("npm runs");
        assert!(out.status.success(), "npm {args:?}: {}", show(&out));
    };
    npm(&["ci", "--no-audit", "--no-fund", "--loglevel=error"]);
    npm(&["run", "build", "--silent"]);
    let built = std::fs::read(tmp.path().join("dist/host.js")).unwrap();
    let committed = std::fs::read(source.join("dist/host.js")).unwrap();
    assert!(
        built == committed,
        "preview/dist/host.js is stale: run `npm ci && npm run build` in mcp-cli/preview and commit it"
    );
}
