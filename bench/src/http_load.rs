//! HTTP throughput: `C` keep-alive connections, each sending one `tools/call` after another,
//! every answer checked. The server is started with `--bind 127.0.0.1:0` and found by the
//! URL it prints on stderr (a server that is told its port instead, like the peers
//! `bench/gateway.sh` runs, is started by a wrapper that prints the URL first: the first
//! connection is retried until the server accepts it).
//!
//! In the modern era every request is a stateless 2026-07-28 one. In the legacy era each
//! connection opens a 2025 session (`initialize`, its `Mcp-Session-Id` if the server gives
//! one, `notifications/initialized`) and sends its calls in it: what the 2025-only peers
//! serve. Answers may be JSON or an SSE stream (the official SDKs' servers answer with a
//! stream), and either is checked.

use crate::load::Era;
use crate::procfs;
use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper::client::conn::http1;
use hyper_util::rt::TokioIo;
use mcp_runtime::protocol::jsonrpc::{Message, decode};
use std::io::{BufRead, BufReader};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

/// The 2025 version a legacy session asks for; the server's answer is the one used.
const LEGACY_VERSION: &str = "2025-11-25";
/// How long the first connection is retried while the server starts.
const START_WAIT: Duration = Duration::from_secs(60);

/// What one HTTP run measured.
#[derive(Debug, Clone, serde::Serialize)]
pub struct HttpReport {
    /// The server's label.
    pub server: String,
    /// The era the client spoke.
    pub era: Era,
    /// Connections used.
    pub connections: usize,
    /// Calls per second over all connections.
    pub calls_per_s: f64,
    /// Server CPU (all threads) per call, in µs.
    pub cpu_per_call_us: f64,
    /// The server's peak RSS, in KiB.
    pub peak_rss_kib: u64,
    /// Missing, malformed or wrong answers.
    pub errors: u64,
}

/// Starts `command` (which must print an `http://…` URL on stderr) and returns it with the
/// URL.
fn start(command: &[String]) -> Result<(Child, String), String> {
    let mut child = crate::command(command)?
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", command.join(" ")))?;
    let stderr = child.stderr.take().ok_or("no stderr")?;
    let mut stderr = BufReader::new(stderr);
    let mut line = String::new();
    let url = loop {
        line.clear();
        match stderr.read_line(&mut line) {
            Ok(0) => return Err("the server exited before printing its URL".into()),
            Ok(_) => {}
            Err(e) => return Err(e.to_string()),
        }
        if let Some(url) = line.split_whitespace().find(|w| w.starts_with("http://")) {
            break url.to_owned();
        }
    };
    // Keep draining stderr so the server never blocks on it: in blocks, not line by line (a
    // server's audit trail is one line per call, and splitting it into `String`s would
    // charge the load client a cost a log file does not have).
    std::thread::spawn(move || std::io::copy(&mut stderr, &mut std::io::sink()));
    Ok((child, url))
}

fn call_body(id: u64, era: Era) -> (String, String, String) {
    let (name, args, expected) = if id.is_multiple_of(2) {
        ("echo", format!(r#"{{"text":"m{id}"}}"#), format!("m{id}"))
    } else {
        (
            "add",
            format!(r#"{{"a":{id},"b":0.5}}"#),
            (id as f64 + 0.5).to_string(),
        )
    };
    let body = match era {
        Era::Modern => format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{name}","arguments":{args},"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}}}}}}}}"#
        ),
        Era::Legacy => format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{name}","arguments":{args}}}}}"#
        ),
    };
    (body, name.to_owned(), expected)
}

/// The JSON-RPC message an answer carries: the body itself, or the `data:` of the SSE event
/// that is the response (a stream may carry notifications before it).
fn answer(body: &[u8]) -> Option<Message<'_>> {
    let trimmed = body.trim_ascii_start();
    if trimmed.starts_with(b"{") {
        return decode(trimmed).ok();
    }
    // `data:` lines of one event are joined by newlines (WHATWG's SSE parsing); the servers
    // measured send each message on one line.
    body.split(|b| *b == b'\n')
        .filter_map(|line| line.strip_prefix(b"data:"))
        .filter_map(|data| decode(data.trim_ascii()).ok())
        .find(|m| matches!(m, Message::Response { .. }))
}

fn correct(body: &[u8], id: u64, expected: &str) -> bool {
    #[derive(serde::Deserialize)]
    struct R {
        content: Vec<T>,
    }
    #[derive(serde::Deserialize)]
    struct T {
        text: String,
    }
    match answer(body) {
        Some(Message::Response {
            id: got,
            outcome: Ok(result),
        }) => {
            got == mcp_runtime::protocol::RequestId::Number(id as i64)
                && serde_json::from_str::<R>(result.get())
                    .is_ok_and(|r| r.content.first().is_some_and(|t| t.text == expected))
        }
        _ => false,
    }
}

/// Connects to `addr`, retrying for [`START_WAIT`] when `wait` (the server may still be
/// starting).
async fn connect(addr: &str, wait: bool) -> Result<tokio::net::TcpStream, String> {
    let deadline = Instant::now() + START_WAIT;
    loop {
        match tokio::net::TcpStream::connect(addr).await {
            Ok(stream) => return Ok(stream),
            Err(e) if !wait || Instant::now() >= deadline => {
                return Err(format!("cannot connect to {addr}: {e}"));
            }
            Err(_) => tokio::time::sleep(Duration::from_millis(50)).await,
        }
    }
}

/// One keep-alive connection and what its requests carry.
struct Connection {
    sender: http1::SendRequest<Full<Bytes>>,
    addr: String,
    path: String,
    /// `Mcp-Protocol-Version` of every request.
    version: String,
    /// The 2025 session, when the server gave one.
    session: Option<String>,
}

impl Connection {
    async fn open(addr: &str, path: &str, era: Era, wait: bool) -> Result<Self, String> {
        let stream = connect(addr, wait).await?;
        stream.set_nodelay(true).map_err(|e| e.to_string())?;
        let (sender, conn) = http1::handshake(TokioIo::new(stream))
            .await
            .map_err(|e| e.to_string())?;
        tokio::spawn(conn);
        let mut connection = Connection {
            sender,
            addr: addr.to_owned(),
            path: path.to_owned(),
            version: "2026-07-28".to_owned(),
            session: None,
        };
        if era == Era::Legacy {
            connection.version = LEGACY_VERSION.to_owned();
            connection.open_session().await?;
        }
        Ok(connection)
    }

    /// `initialize` and `notifications/initialized`: the session's id and version.
    async fn open_session(&mut self) -> Result<(), String> {
        let initialize = format!(
            r#"{{"jsonrpc":"2.0","id":0,"method":"initialize","params":{{"protocolVersion":"{LEGACY_VERSION}","capabilities":{{}},"clientInfo":{{"name":"mcp-bench","version":"0"}}}}}}"#
        );
        let response = self.send(initialize, "initialize", None).await?;
        self.session = response
            .headers()
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        let status = response.status();
        let body = response
            .into_body()
            .collect()
            .await
            .map_err(|e| e.to_string())?
            .to_bytes();
        #[derive(serde::Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct Initialized {
            protocol_version: String,
        }
        match answer(&body) {
            Some(Message::Response {
                outcome: Ok(result),
                ..
            }) => {
                let r: Initialized = serde_json::from_str(result.get())
                    .map_err(|e| format!("initialize answered without a version: {e}"))?;
                self.version = r.protocol_version;
            }
            _ => {
                return Err(format!(
                    "initialize failed ({status}): {}",
                    String::from_utf8_lossy(&body)
                ));
            }
        }
        let initialized = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_owned();
        let response = self
            .send(initialized, "notifications/initialized", None)
            .await?;
        if !response.status().is_success() {
            return Err(format!(
                "notifications/initialized answered {}",
                response.status()
            ));
        }
        response
            .into_body()
            .collect()
            .await
            .map_err(|e| e.to_string())?;
        Ok(())
    }

    async fn send(
        &mut self,
        body: String,
        method: &str,
        name: Option<&str>,
    ) -> Result<hyper::Response<hyper::body::Incoming>, String> {
        let mut request = hyper::Request::post(&self.path)
            .header("host", &self.addr)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", &self.version)
            .header("mcp-method", method);
        if let Some(name) = name {
            request = request.header("mcp-name", name);
        }
        if let Some(session) = &self.session {
            request = request.header("mcp-session-id", session);
        }
        let request = request
            .body(Full::new(Bytes::from(body)))
            .map_err(|e| e.to_string())?;
        self.sender
            .send_request(request)
            .await
            .map_err(|e| format!("request failed: {e}"))
    }
}

async fn connection_loop(
    addr: String,
    path: String,
    era: Era,
    wait: bool,
    ids: Vec<u64>,
) -> Result<u64, String> {
    let mut connection = Connection::open(&addr, &path, era, wait).await?;
    let mut errors = 0;
    for id in ids {
        let (body, name, expected) = call_body(id, era);
        let response = connection.send(body, "tools/call", Some(&name)).await?;
        let ok = match response.into_body().collect().await {
            Ok(b) => correct(&b.to_bytes(), id, &expected),
            Err(_) => false,
        };
        errors += u64::from(!ok);
    }
    Ok(errors)
}

/// Measures `command` with `connections` keep-alive connections and `calls` calls in all.
pub fn run(
    server: &str,
    command: &[String],
    era: Era,
    connections: usize,
    calls: u64,
) -> Result<HttpReport, String> {
    let (mut child, url) = start(command)?;
    let pid = child.id();
    let rest = url.strip_prefix("http://").ok_or("not an http:// URL")?;
    let (addr, path) = rest
        .split_once('/')
        .map_or((rest.to_owned(), "/".to_owned()), |(a, p)| {
            (a.to_owned(), format!("/{p}"))
        });
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let connections = connections.max(1);
    let outcome = runtime.block_on(async {
        // Warm up every connection path once, then measure.
        let warm_up = connection_loop(addr.clone(), path.clone(), era, true, vec![0]).await?;
        if warm_up > 0 {
            return Err("the warm-up call was answered wrongly".to_owned());
        }
        let cpu_before = procfs::cpu_time(pid).unwrap_or_default();
        let started = Instant::now();
        let tasks: Vec<_> = (0..connections)
            .map(|c| {
                let ids: Vec<u64> = (1..=calls)
                    .filter(|i| (*i as usize) % connections == c)
                    .collect();
                tokio::spawn(connection_loop(addr.clone(), path.clone(), era, false, ids))
            })
            .collect();
        let mut errors = 0;
        for t in tasks {
            errors += t.await.map_err(|e| e.to_string())??;
        }
        let elapsed = started.elapsed();
        let cpu = procfs::cpu_time(pid)
            .unwrap_or_default()
            .saturating_sub(cpu_before);
        Ok::<_, String>((errors, elapsed, cpu))
    });
    let peak_rss_kib = procfs::peak_rss_kib(pid).unwrap_or(0);
    // The client's connections close first, so a graceful stop has nothing to wait for.
    drop(runtime);
    stop(&mut child);
    let (errors, elapsed, cpu) = outcome?;
    Ok(HttpReport {
        server: server.to_owned(),
        era,
        connections,
        calls_per_s: calls as f64 / elapsed.as_secs_f64(),
        cpu_per_call_us: cpu.as_secs_f64() * 1e6 / calls.max(1) as f64,
        peak_rss_kib,
        errors,
    })
}

/// Stops the server as a service manager would: SIGTERM, then SIGKILL if it is still running
/// after 30 s. A graceful end lets a profiler the server runs under (`bench/callgrind.sh`
/// with `HTTP=1` runs it under callgrind) write its data.
fn stop(child: &mut Child) {
    let asked = std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .is_ok_and(|s| s.success());
    if asked {
        let deadline = Instant::now() + std::time::Duration::from_secs(30);
        while Instant::now() < deadline {
            if matches!(child.try_wait(), Ok(Some(_))) {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }
    let _ = child.kill();
    let _ = child.wait();
}
