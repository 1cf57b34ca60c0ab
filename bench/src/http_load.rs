//! HTTP throughput: `C` keep-alive connections, each sending one modern (2026-07-28,
//! stateless) `tools/call` after another, every answer checked. The server is started
//! with `--bind 127.0.0.1:0` and found by the URL it prints on stderr.

use crate::procfs;
use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper::client::conn::http1;
use hyper_util::rt::TokioIo;
use mcp_runtime::protocol::jsonrpc::{Message, decode};
use std::io::{BufRead, BufReader};
use std::process::{Child, Stdio};
use std::time::Instant;

/// What one HTTP run measured.
#[derive(Debug, Clone, serde::Serialize)]
pub struct HttpReport {
    /// The server's label.
    pub server: String,
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

fn call_body(id: u64) -> (String, String, String) {
    let (name, args, expected) = if id.is_multiple_of(2) {
        ("echo", format!(r#"{{"text":"m{id}"}}"#), format!("m{id}"))
    } else {
        (
            "add",
            format!(r#"{{"a":{id},"b":0.5}}"#),
            (id as f64 + 0.5).to_string(),
        )
    };
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{name}","arguments":{args},"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}}}}}}}}"#
    );
    (body, name.to_owned(), expected)
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
    match decode(body) {
        Ok(Message::Response {
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

async fn connection_loop(addr: String, path: String, ids: Vec<u64>) -> Result<u64, String> {
    let stream = tokio::net::TcpStream::connect(&addr)
        .await
        .map_err(|e| e.to_string())?;
    stream.set_nodelay(true).map_err(|e| e.to_string())?;
    let (mut sender, conn) = http1::handshake(TokioIo::new(stream))
        .await
        .map_err(|e| e.to_string())?;
    tokio::spawn(conn);
    let mut errors = 0;
    for id in ids {
        let (body, name, expected) = call_body(id);
        let request = hyper::Request::post(&path)
            .header("host", &addr)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", "tools/call")
            .header("mcp-name", name)
            .body(Full::new(Bytes::from(body)))
            .map_err(|e| e.to_string())?;
        let ok = match sender.send_request(request).await {
            Ok(response) => match response.into_body().collect().await {
                Ok(b) => correct(&b.to_bytes(), id, &expected),
                Err(_) => false,
            },
            Err(e) => return Err(format!("request failed: {e}")),
        };
        errors += u64::from(!ok);
    }
    Ok(errors)
}

/// Measures `command` with `connections` keep-alive connections and `calls` calls in all.
pub fn run(
    server: &str,
    command: &[String],
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
        connection_loop(addr.clone(), path.clone(), vec![0]).await?;
        let cpu_before = procfs::cpu_time(pid).unwrap_or_default();
        let started = Instant::now();
        let tasks: Vec<_> = (0..connections)
            .map(|c| {
                let ids: Vec<u64> = (1..=calls)
                    .filter(|i| (*i as usize) % connections == c)
                    .collect();
                tokio::spawn(connection_loop(addr.clone(), path.clone(), ids))
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
