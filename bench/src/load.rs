//! The load generator: drives a server over stdio and measures it.
//!
//! Requests are framed and responses decoded with the toolkit's own protocol module
//! (`mcp_runtime::protocol::jsonrpc`), and every response is checked: its id, and the text
//! of the result (`echo` returns its text, `add` the sum). The pipelined phase keeps `K`
//! requests in flight with a writer thread and a reader thread; plain blocking I/O keeps the
//! client's own cost low and steady, so the server is what is measured.

use crate::procfs;
use mcp_runtime::protocol::jsonrpc::{Message, decode};
use serde::Deserialize;
use std::borrow::Cow;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::process::{Child, ChildStdin, ChildStdout, Stdio};
use std::sync::mpsc::sync_channel;
use std::time::{Duration, Instant};

/// How the client talks to the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Era {
    /// `initialize` handshake, then plain requests.
    Legacy,
    /// The 2026-07-28 envelope on every request.
    Modern,
}

/// How much work one run does.
#[derive(Debug, Clone, Copy)]
pub struct Settings {
    /// The era.
    pub era: Era,
    /// Spawns measured for the cold start.
    pub cold_starts: usize,
    /// Calls made one at a time (latency).
    pub sequential_calls: usize,
    /// `tools/list` requests made one at a time.
    pub list_calls: usize,
    /// Calls in the pipelined phase (throughput, CPU per call).
    pub pipelined_calls: usize,
    /// Requests in flight in the pipelined phase.
    pub in_flight: usize,
}

impl Settings {
    /// The default measurement.
    pub fn full(era: Era) -> Self {
        Self {
            era,
            cold_starts: 5,
            sequential_calls: 5_000,
            list_calls: 1_000,
            pipelined_calls: 200_000,
            in_flight: 64,
        }
    }

    /// A quick run that only proves the harness works (CI).
    pub fn smoke(era: Era) -> Self {
        Self {
            era,
            cold_starts: 1,
            sequential_calls: 50,
            list_calls: 10,
            pipelined_calls: 500,
            in_flight: 16,
        }
    }
}

/// What one run measured.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Report {
    /// The server's label.
    pub server: String,
    /// The era used.
    pub era: Era,
    /// Spawn to the first answer (`initialize` or `server/discover`), median, in ms.
    pub cold_start_ms: f64,
    /// Sequential call latency, median, in µs.
    pub seq_p50_us: f64,
    /// Sequential call latency, 99th percentile, in µs.
    pub seq_p99_us: f64,
    /// `tools/list` latency, median, in µs.
    pub list_p50_us: f64,
    /// Pipelined throughput, calls per second.
    pub pipelined_calls_per_s: f64,
    /// Server CPU (all threads) per pipelined call, in µs.
    pub cpu_per_call_us: f64,
    /// The server's peak RSS at the end, in KiB.
    pub peak_rss_kib: u64,
    /// Responses that were missing, malformed or wrong.
    pub errors: u64,
    /// Calls made in total.
    pub calls: u64,
}

const ENVELOPE: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"mcp-bench","version":"0"}}"#;

fn params(era: Era, body: &str) -> String {
    match (era, body.is_empty()) {
        (Era::Legacy, true) => "{}".to_owned(),
        (Era::Legacy, false) => format!("{{{body}}}"),
        (Era::Modern, true) => format!("{{{ENVELOPE}}}"),
        (Era::Modern, false) => format!("{{{body},{ENVELOPE}}}"),
    }
}

/// The `i`th call: even ids echo a text, odd ids add two numbers.
fn call_line(era: Era, id: u64) -> Vec<u8> {
    let body = if id.is_multiple_of(2) {
        format!(r#""name":"echo","arguments":{{"text":"m{id}"}}"#)
    } else {
        format!(r#""name":"add","arguments":{{"a":{id},"b":0.5}}"#)
    };
    format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"tools/call\",\"params\":{}}}\n",
        params(era, &body)
    )
    .into_bytes()
}

fn expected_text(id: u64) -> String {
    if id.is_multiple_of(2) {
        format!("m{id}")
    } else {
        (id as f64 + 0.5).to_string()
    }
}

fn request_line(era: Era, id: u64, method: &str) -> Vec<u8> {
    format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"{method}\",\"params\":{}}}\n",
        params(era, "")
    )
    .into_bytes()
}

#[derive(Deserialize)]
struct CallResult<'a> {
    #[serde(borrow)]
    content: Vec<TextItem<'a>>,
}

#[derive(Deserialize)]
struct TextItem<'a> {
    #[serde(borrow)]
    text: Cow<'a, str>,
}

/// The id of the call `line` answers, if it is a correct answer (the text `echo` or `add`
/// must return for that id).
fn correct_call(line: &[u8]) -> Option<u64> {
    let Ok(Message::Response {
        id: mcp_runtime::protocol::RequestId::Number(id),
        outcome: Ok(result),
    }) = decode(line)
    else {
        return None;
    };
    let id = u64::try_from(id).ok()?;
    let r = serde_json::from_str::<CallResult<'_>>(result.get()).ok()?;
    (r.content.first()?.text == expected_text(id)).then_some(id)
}

/// Whether `line` is the correct answer to call `id`.
fn check_call(line: &[u8], id: u64) -> bool {
    correct_call(line) == Some(id)
}

/// Whether `line` is a notification (a message with a method and no id). Only lines that
/// name a `"method"` are decoded: the answers measured never do.
fn is_notification(line: &[u8]) -> bool {
    memchr::memmem::find(line, b"\"method\"").is_some()
        && matches!(
            mcp_runtime::protocol::jsonrpc::decode(line),
            Ok(mcp_runtime::protocol::jsonrpc::Message::Notification { .. })
        )
}

fn check_response(line: &[u8], id: u64) -> bool {
    matches!(decode(line), Ok(Message::Response { id: got, outcome: Ok(_) })
        if got == mcp_runtime::protocol::RequestId::Number(id as i64))
}

/// A running server and its pipes.
struct Session {
    child: Child,
    stdin: BufWriter<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    line: Vec<u8>,
}

impl Session {
    fn spawn(command: &[String]) -> Result<Self, String> {
        let mut child = crate::command(command)?
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", command.join(" ")))?;
        let stdin = BufWriter::new(child.stdin.take().ok_or("no stdin")?);
        let stdout = BufReader::new(child.stdout.take().ok_or("no stdout")?);
        Ok(Self {
            child,
            stdin,
            stdout,
            line: Vec::new(),
        })
    }

    fn send(&mut self, bytes: &[u8]) -> Result<(), String> {
        self.stdin
            .write_all(bytes)
            .and_then(|()| self.stdin.flush())
            .map_err(|e| format!("write: {e}"))
    }

    /// The next line that is not a notification: a server may send notifications at any
    /// time (a proxy's `list_changed` once its upstream's lists are in, log messages), and
    /// a client reads past them, as this one does.
    fn recv(&mut self) -> Result<&[u8], String> {
        loop {
            self.line.clear();
            match self.stdout.read_until(b'\n', &mut self.line) {
                Ok(0) => return Err("the server closed its stdout".into()),
                Ok(_) if is_notification(&self.line) => continue,
                Ok(_) => return Ok(&self.line),
                Err(e) => return Err(format!("read: {e}")),
            }
        }
    }

    /// Opens the session in `era`; returns when the first answer arrives.
    fn open(&mut self, era: Era) -> Result<(), String> {
        match era {
            Era::Legacy => {
                self.send(br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"mcp-bench","version":"0"}}}
"#)?;
                let ok = check_response(self.recv()?, 0);
                self.send(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n")?;
                ok.then_some(()).ok_or_else(|| "initialize failed".into())
            }
            Era::Modern => {
                self.send(&request_line(era, 0, "server/discover"))?;
                let ok = check_response(self.recv()?, 0);
                ok.then_some(())
                    .ok_or_else(|| "server/discover failed".into())
            }
        }
    }

    fn close(mut self) -> Result<(), String> {
        drop(self.stdin);
        self.child
            .wait()
            .map(|_| ())
            .map_err(|e| format!("wait: {e}"))
    }
}

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let i = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[i].as_secs_f64() * 1e6
}

/// Runs every phase against `command` and returns the measurements.
pub fn run(server: &str, command: &[String], settings: Settings) -> Result<Report, String> {
    let era = settings.era;
    // Cold start: spawn to the first answer.
    let mut cold = Vec::new();
    for _ in 0..settings.cold_starts {
        let started = Instant::now();
        let mut s = Session::spawn(command)?;
        s.open(era)?;
        cold.push(started.elapsed());
        s.close()?;
    }
    cold.sort();

    let mut s = Session::spawn(command)?;
    s.open(era)?;
    let pid = s.child.id();
    let mut errors = 0u64;
    let mut next_id = 1u64;

    let mut seq = Vec::with_capacity(settings.sequential_calls);
    for _ in 0..settings.sequential_calls {
        let id = next_id;
        next_id += 1;
        let line = call_line(era, id);
        let started = Instant::now();
        s.send(&line)?;
        let ok = check_call(s.recv()?, id);
        seq.push(started.elapsed());
        errors += u64::from(!ok);
    }
    seq.sort();

    let mut lists = Vec::with_capacity(settings.list_calls);
    for _ in 0..settings.list_calls {
        let id = next_id;
        next_id += 1;
        let line = request_line(era, id, "tools/list");
        let started = Instant::now();
        s.send(&line)?;
        let ok = check_response(s.recv()?, id);
        lists.push(started.elapsed());
        errors += u64::from(!ok);
    }
    lists.sort();

    // Pipelined: a writer thread keeps `in_flight` requests outstanding.
    let n = settings.pipelined_calls as u64;
    let first = next_id;
    let cpu_before = procfs::cpu_time(pid).unwrap_or_default();
    let (permits, slots) = sync_channel::<()>(settings.in_flight.max(1));
    let mut stdin = s.stdin;
    let started = Instant::now();
    let writer = std::thread::spawn(move || -> Result<BufWriter<ChildStdin>, String> {
        for id in first..first + n {
            // Before waiting for a slot, hand over what is buffered: the answers that free
            // the slot may depend on it.
            match permits.try_send(()) {
                Ok(()) => {}
                Err(std::sync::mpsc::TrySendError::Full(())) => {
                    stdin.flush().map_err(|e| format!("flush: {e}"))?;
                    permits.send(()).map_err(|_| "reader stopped")?;
                }
                Err(std::sync::mpsc::TrySendError::Disconnected(())) => {
                    return Err("reader stopped".into());
                }
            }
            stdin
                .write_all(&call_line(era, id))
                .map_err(|e| format!("write: {e}"))?;
        }
        stdin.flush().map_err(|e| format!("flush: {e}"))?;
        Ok(stdin)
    });
    // Responses may come out of order: check each against its own id.
    let mut seen = 0u64;
    while seen < n {
        s.line.clear();
        match s.stdout.read_until(b'\n', &mut s.line) {
            Ok(0) | Err(_) => break,
            Ok(_) if is_notification(&s.line) => continue,
            Ok(_) => {}
        }
        errors += u64::from(correct_call(&s.line).is_none());
        seen += 1;
        let _ = slots.recv();
    }
    let elapsed = started.elapsed();
    errors += n - seen;
    let cpu_after = procfs::cpu_time(pid).unwrap_or_default();
    drop(slots);
    s.stdin = writer.join().map_err(|_| "writer panicked")??;
    let peak_rss_kib = procfs::peak_rss_kib(pid).unwrap_or(0);
    s.close()?;

    Ok(Report {
        server: server.to_owned(),
        era,
        cold_start_ms: cold
            .get(cold.len() / 2)
            .map_or(0.0, |d| d.as_secs_f64() * 1e3),
        seq_p50_us: percentile(&seq, 0.5),
        seq_p99_us: percentile(&seq, 0.99),
        list_p50_us: percentile(&lists, 0.5),
        pipelined_calls_per_s: n as f64 / elapsed.as_secs_f64(),
        cpu_per_call_us: (cpu_after.saturating_sub(cpu_before)).as_secs_f64() * 1e6
            / n.max(1) as f64,
        peak_rss_kib,
        errors,
        calls: settings.sequential_calls as u64 + n,
    })
}
