//! Horizontal scaling on an existing load balancer: two `echo-server --transport http
//! --legacy-mode stateless` instances behind Debian's nginx (unpacked by
//! `tests/scale/setup.sh`, started here on a free loopback port with a config written to a
//! temp directory), driven by modern clients and stateless legacy clients at once.
//!
//! Proven: zero errors while both instances run, with both serving; then, with one instance
//! killed mid-run, only requests that were in flight on it fail, and every request started
//! after it is gone succeeds on the other instance. The nginx config is the one the README
//! shows for this mode (round robin, no sticky routing, POSTs passed to the next instance
//! only when the first could not be reached), and, with `--trust-proxy`, clients behind it
//! told apart by the address it forwards (each its own `--rate-limit` budget).

use http::{Method, StatusCode};
use mcp_tests::http::{ACCEPT_BOTH, LEGACY, MODERN, Reply, Spawned, envelope, try_send};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;
use tokio::time::Instant;

/// Concurrent clients.
const WORKERS: usize = 8;

/// The nginx binary: the unpacked Debian package, or (off Debian) the one on PATH.
fn nginx_binary() -> PathBuf {
    let local = mcp_tests::setup("scale").join(".nginx/usr/sbin/nginx");
    if local.is_file() {
        local
    } else {
        PathBuf::from("nginx")
    }
}

/// A running nginx with its temp directory; both go away on drop.
pub(crate) struct Nginx {
    child: Child,
    dir: PathBuf,
    /// The endpoint's URL through nginx.
    pub(crate) url: String,
}

impl Drop for Nginx {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn config(dir: &Path, port: u16, upstreams: &[String]) -> String {
    let dir = dir.display();
    let servers: String = upstreams
        .iter()
        .map(|u| format!("        server {u} max_fails=1 fail_timeout=30s;\n"))
        .collect();
    format!(
        r#"daemon off;
master_process off;
worker_processes 1;
pid {dir}/nginx.pid;
error_log {dir}/error.log warn;
events {{ worker_connections 1024; }}
http {{
    access_log off;
    client_body_temp_path {dir}/client_body;
    proxy_temp_path {dir}/proxy;
    fastcgi_temp_path {dir}/fastcgi;
    uwsgi_temp_path {dir}/uwsgi;
    scgi_temp_path {dir}/scgi;
    upstream mcp_servers {{
{servers}    }}
    server {{
        listen 127.0.0.1:{port};
        client_max_body_size 4m;
        location /mcp {{
            proxy_pass http://mcp_servers;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host $host;
            proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
            proxy_buffering off;
            proxy_read_timeout 1h;
            proxy_next_upstream error timeout;
            add_header X-Upstream $upstream_addr always;
        }}
    }}
}}
"#
    )
}

/// Starts nginx in front of `upstreams` on a free loopback port (retrying if another
/// process takes the port between choosing and binding it).
pub(crate) async fn start_nginx(upstreams: &[String]) -> Nginx {
    let binary = nginx_binary();
    let mut last_error = String::new();
    for attempt in 0..5 {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let dir = std::env::temp_dir().join(format!(
            "mcp-scale-{}-{attempt}-{nanos}",
            std::process::id()
        ));
        std::fs::create_dir_all(&dir).expect("a temp directory");
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        std::fs::write(dir.join("nginx.conf"), config(&dir, port, upstreams)).unwrap();
        let child = Command::new(&binary)
            .arg("-p")
            .arg(&dir)
            .arg("-c")
            .arg(dir.join("nginx.conf"))
            .arg("-e")
            .arg(dir.join("error.log"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", binary.display()));
        let mut nginx = Nginx {
            child,
            dir,
            url: format!("http://127.0.0.1:{port}/mcp"),
        };
        let deadline = Instant::now() + Duration::from_secs(20);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = nginx.child.try_wait() {
                break;
            }
            if tokio::net::TcpStream::connect(("127.0.0.1", port))
                .await
                .is_ok()
            {
                return nginx;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        last_error = std::fs::read_to_string(nginx.dir.join("error.log")).unwrap_or_default();
    }
    panic!("nginx did not start:\n{last_error}");
}

/// One request of the mix, as a client of either era sends it; checks the answer.
async fn one_request(url: &str, n: usize) -> Result<Reply, String> {
    let (body, headers): (serde_json::Value, Vec<(&str, String)>) = match n % 3 {
        // A modern call, with the standard headers.
        0 => (
            json!({"jsonrpc": "2.0", "id": n, "method": "tools/call",
                   "params": {"name": "add", "arguments": {"a": n, "b": 1}, "_meta": envelope()}}),
            vec![
                ("mcp-protocol-version", MODERN.into()),
                ("mcp-method", "tools/call".into()),
                ("mcp-name", "add".into()),
            ],
        ),
        // A stateless legacy client: initialize (answered, nothing kept)...
        1 => (
            json!({"jsonrpc": "2.0", "id": n, "method": "initialize",
                   "params": {"protocolVersion": LEGACY, "capabilities": {}, "clientInfo": {"name": "scale", "version": "0"}}}),
            vec![],
        ),
        // ...and its calls, each on its own.
        _ => (
            json!({"jsonrpc": "2.0", "id": n, "method": "tools/call",
                   "params": {"name": "echo", "arguments": {"text": format!("call {n}")}}}),
            vec![("mcp-protocol-version", LEGACY.into())],
        ),
    };
    let mut all: Vec<(&str, &str)> = vec![
        ("content-type", "application/json"),
        ("accept", ACCEPT_BOTH),
    ];
    all.extend(headers.iter().map(|(k, v)| (*k, v.as_str())));
    let reply = try_send(Method::POST, url, &all, body.to_string()).await?;
    if reply.status != StatusCode::OK {
        return Err(format!("HTTP {}: {}", reply.status, reply.text()));
    }
    let answer: serde_json::Value =
        serde_json::from_slice(&reply.body).map_err(|e| format!("{e}: {}", reply.text()))?;
    let ok = match n % 3 {
        0 => {
            answer["result"]["content"][0]["text"].as_str() == Some(&(n + 1).to_string())
                && answer["result"]["resultType"] == "complete"
        }
        1 => {
            answer["result"]["protocolVersion"] == LEGACY
                && reply.header("mcp-session-id").is_none()
        }
        _ => {
            answer["result"]["content"][0]["text"] == format!("call {n}")
                && answer["result"].get("resultType").is_none()
        }
    };
    if ok {
        Ok(reply)
    } else {
        Err(format!("wrong answer to request {n}: {answer}"))
    }
}

/// The instance that finally answered (nginx lists every one it tried).
fn upstream(reply: &Reply) -> String {
    reply
        .header("x-upstream")
        .unwrap_or_default()
        .rsplit(", ")
        .next()
        .unwrap_or_default()
        .to_owned()
}

/// One finished request of the kill phase.
struct Record {
    started: Instant,
    ended: Instant,
    outcome: Result<String, String>,
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stateless_instances_scale_behind_nginx() {
    let mut a = Spawned::start("echo-server", &["--legacy-mode", "stateless"]);
    let b = Spawned::start("echo-server", &["--legacy-mode", "stateless"]);
    let (addr_a, addr_b) = (a.authority(), b.authority());
    let nginx = start_nginx(&[addr_a.clone(), addr_b.clone()]).await;
    let url = Arc::new(nginx.url.clone());

    // Phase 1: both instances up. Every request succeeds, and both instances serve.
    let next = Arc::new(AtomicUsize::new(0));
    let mut workers = Vec::new();
    for _ in 0..WORKERS {
        let (url, next) = (url.clone(), next.clone());
        workers.push(tokio::spawn(async move {
            let mut served = Vec::new();
            loop {
                let n = next.fetch_add(1, Ordering::SeqCst);
                if n >= 600 {
                    return served;
                }
                match one_request(&url, n).await {
                    Ok(reply) => served.push(Ok(upstream(&reply))),
                    Err(e) => served.push(Err(format!("request {n}: {e}"))),
                }
            }
        }));
    }
    let mut by_upstream = std::collections::HashMap::<String, usize>::new();
    let mut errors = Vec::new();
    for w in workers {
        for outcome in w.await.unwrap() {
            match outcome {
                Ok(u) => *by_upstream.entry(u).or_default() += 1,
                Err(e) => errors.push(e),
            }
        }
    }
    assert!(
        errors.is_empty(),
        "{} errors, e.g. {:?}",
        errors.len(),
        &errors[..errors.len().min(5)]
    );
    assert_eq!(by_upstream.values().sum::<usize>(), 600);
    assert!(
        by_upstream.get(&addr_a).is_some_and(|n| *n > 0)
            && by_upstream.get(&addr_b).is_some_and(|n| *n > 0),
        "both instances serve: {by_upstream:?}"
    );

    // Phase 2: kill instance A mid-run.
    let stop = Arc::new(AtomicBool::new(false));
    let done = Arc::new(AtomicUsize::new(0));
    let mut workers = Vec::new();
    for w in 0..WORKERS {
        let (url, stop, done) = (url.clone(), stop.clone(), done.clone());
        workers.push(tokio::spawn(async move {
            let mut records = Vec::new();
            let mut n = 1_000_000 + w;
            while !stop.load(Ordering::SeqCst) {
                let started = Instant::now();
                let outcome = one_request(&url, n).await.map(|r| upstream(&r));
                records.push(Record {
                    started,
                    ended: Instant::now(),
                    outcome,
                });
                done.fetch_add(1, Ordering::SeqCst);
                n += WORKERS;
            }
            records
        }));
    }
    let wait_for = |count: usize| {
        let done = done.clone();
        async move {
            let deadline = Instant::now() + Duration::from_secs(60);
            while done.load(Ordering::SeqCst) < count {
                assert!(Instant::now() < deadline, "the load stalled");
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        }
    };
    wait_for(200).await;
    let kill_started = Instant::now();
    let pid_a = a.pid();
    tokio::task::spawn_blocking(move || a.kill()).await.unwrap();
    let killed = Instant::now();
    let before = done.load(Ordering::SeqCst);
    wait_for(before + 300).await;
    stop.store(true, Ordering::SeqCst);
    let mut records = Vec::new();
    for w in workers {
        records.extend(w.await.unwrap());
    }

    let failures: Vec<&Record> = records.iter().filter(|r| r.outcome.is_err()).collect();
    for f in &failures {
        assert!(
            f.started < killed && f.ended >= kill_started,
            "a request failed that was not in flight while instance {pid_a} was killed: {:?}",
            f.outcome
        );
    }
    assert!(
        failures.len() <= WORKERS,
        "at most one request per client was in flight: {}",
        failures.len()
    );
    let after: Vec<&Record> = records.iter().filter(|r| r.started >= killed).collect();
    assert!(
        after.len() >= 250,
        "the load went on after the kill: {}",
        after.len()
    );
    for r in &after {
        assert_eq!(
            r.outcome.as_deref(),
            Ok(addr_b.as_str()),
            "after the kill, instance B serves everything"
        );
    }
    eprintln!(
        "scale: phase 1 served {by_upstream:?}; phase 2: {} requests, {} failed (in flight at the kill), {} started after it",
        records.len(),
        failures.len(),
        after.len()
    );
    drop(b);
    drop(nginx);
}

/// A modern `tools/list` through `url` from a client that came through an outer proxy as
/// `client` (its `X-Forwarded-For`, to which nginx appends its own peer); the status.
async fn list_as(url: &str, client: &str) -> StatusCode {
    let (message, headers) = mcp_tests::http::modern(1, "tools/list", json!({}));
    let mut headers: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
    headers.push(("x-forwarded-for", client));
    mcp_tests::http::post(url, &headers, &message).await.status
}

/// The README's nginx configuration forwards the client's address: with `--trust-proxy`
/// (nginx is on loopback) two clients behind it get a budget each from `--rate-limit`;
/// without it the forwarded headers are ignored and every request is nginx's.
#[tokio::test]
async fn behind_nginx_trust_proxy_gives_each_client_its_own_budget() {
    for (trusting, separate) in [(true, true), (false, false)] {
        let mut args = vec!["--rate-limit", "2/m"];
        if trusting {
            args.extend(["--trust-proxy", "127.0.0.0/8"]);
        }
        let instance = Spawned::start("echo-server", &args);
        let nginx = start_nginx(&[instance.authority()]).await;
        let url = nginx.url.clone();
        for _ in 0..2 {
            assert_eq!(list_as(&url, "198.51.100.7").await, StatusCode::OK);
        }
        // The first client's budget is spent.
        assert_eq!(
            list_as(&url, "198.51.100.7").await,
            StatusCode::TOO_MANY_REQUESTS
        );
        let other = list_as(&url, "203.0.113.9").await;
        let expected = if separate {
            StatusCode::OK
        } else {
            StatusCode::TOO_MANY_REQUESTS
        };
        assert_eq!(other, expected, "trusting the proxy: {trusting}");
        drop(nginx);
    }
}
