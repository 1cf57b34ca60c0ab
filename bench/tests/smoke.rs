//! The harness in smoke mode (small counts, no thresholds), so it never rots: every phase runs
//! against the stdio floor, `echo-server` and `launched-echo` (and `gateway` in front of
//! `echo-server`), and every response checks out;
//! and `otlp-sink`, the discarding receiver `OTEL=1 bench/compare.sh` exports to, receives what
//! a server sends.

use mcp_bench::compare::{Candidate, compare, table};
use mcp_bench::load::{Era, Settings};

fn candidates() -> Vec<Candidate> {
    vec![
        Candidate {
            name: "floor".into(),
            command: vec![env!("CARGO_BIN_EXE_stdio-floor").into()],
        },
        Candidate {
            name: "validating-floor".into(),
            command: vec![env!("CARGO_BIN_EXE_validating-floor").into()],
        },
        Candidate {
            name: "echo-server".into(),
            command: vec![mcp_tests::example_bin("echo-server").display().to_string()],
        },
        Candidate {
            name: "launched-echo".into(),
            command: vec![env!("CARGO_BIN_EXE_launched-echo").into()],
        },
    ]
}

#[test]
fn smoke_run_in_both_eras() {
    for era in [Era::Legacy, Era::Modern] {
        let summaries = compare(&candidates(), Settings::smoke(era), 1).expect("the harness runs");
        let text = table(&summaries);
        for s in &summaries {
            assert_eq!(s.median.errors, 0, "{era:?}: {text}");
            assert!(s.median.pipelined_calls_per_s > 0.0, "{text}");
            assert!(s.median.peak_rss_kib > 0, "{text}");
        }
        assert!(text.contains("ratios to floor"), "{text}");
    }
}

#[test]
fn a_server_that_answers_wrongly_fails_the_run() {
    // `cat` echoes the requests back: every "response" is wrong.
    let cat = Candidate {
        name: "cat".into(),
        command: vec!["cat".into()],
    };
    let mut settings = Settings::smoke(Era::Legacy);
    settings.cold_starts = 0;
    let outcome = compare(&[cat], settings, 1);
    assert!(
        outcome.is_err(),
        "opening a session with cat cannot succeed: {outcome:?}"
    );
}

/// Both eras over HTTP: stateless 2026-07-28 requests (the floor answers only those), and a
/// 2025 session per connection.
#[test]
fn http_smoke_run() {
    let echo = mcp_tests::example_bin("echo-server").display().to_string();
    let http = |name: &str, program: &str| Candidate {
        name: name.into(),
        command: [
            program,
            "--transport",
            "http",
            "--legacy-mode",
            "stateless",
            "--bind",
            "127.0.0.1:0",
        ]
        .map(String::from)
        .to_vec(),
    };
    let candidates = [
        Candidate {
            name: "http-floor".into(),
            command: vec![
                env!("CARGO_BIN_EXE_http-floor").into(),
                "--bind".into(),
                "127.0.0.1:0".into(),
            ],
        },
        http("echo-server", &echo),
        http("launched-echo", env!("CARGO_BIN_EXE_launched-echo")),
    ];
    for (era, candidates) in [
        (Era::Modern, &candidates[..]),
        (Era::Legacy, &candidates[1..]),
    ] {
        let reports = mcp_bench::compare::compare_http(candidates, era, 4, 200, 1)
            .expect("the HTTP harness runs");
        let text = mcp_bench::compare::http_table(&reports);
        for r in &reports {
            assert_eq!(r.errors, 0, "{era:?}: {text}");
            assert!(r.calls_per_s > 0.0, "{era:?}: {text}");
        }
    }
}

/// A 2025 session's server that answers a call wrongly is counted, not taken for an answer:
/// `http-floor` answers every request, `initialize` included, with the same fixed result.
#[test]
fn a_wrong_http_answer_fails_the_legacy_run() {
    let floor = Candidate {
        name: "http-floor".into(),
        command: vec![
            env!("CARGO_BIN_EXE_http-floor").into(),
            "--bind".into(),
            "127.0.0.1:0".into(),
        ],
    };
    let outcome = mcp_bench::compare::compare_http(&[floor], Era::Legacy, 1, 10, 1);
    assert!(
        outcome
            .as_ref()
            .is_err_and(|e| e.contains("initialize answered without a version")),
        "initialize answered with a tool result cannot open a session: {outcome:?}"
    );
}

/// `bench/gateway.sh`'s stdio comparison: `echo-server` directly, through the relay floor
/// and through `gateway` (its one upstream, mounted flat), every answer checked, in both
/// eras.
#[test]
fn gateway_smoke_run_in_both_eras() {
    let echo = mcp_tests::example_bin("echo-server").display().to_string();
    let candidates = [
        Candidate {
            name: "direct".into(),
            command: vec![echo.clone()],
        },
        Candidate {
            name: "relay-floor".into(),
            command: vec![env!("CARGO_BIN_EXE_relay-floor").into(), echo.clone()],
        },
        Candidate {
            name: "gateway".into(),
            command: vec![
                mcp_tests::example_bin("gateway").display().to_string(),
                "--upstream".into(),
                format!("='{echo}'"),
            ],
        },
    ];
    for era in [Era::Legacy, Era::Modern] {
        let summaries = compare(&candidates, Settings::smoke(era), 1).expect("the harness runs");
        let text = table(&summaries);
        for s in &summaries {
            assert_eq!(s.median.errors, 0, "{era:?}: {text}");
            assert!(s.median.pipelined_calls_per_s > 0.0, "{text}");
        }
        assert!(text.contains("ratios to direct"), "{text}");
    }
}

#[test]
fn the_validating_floor_rejects_arguments_its_schemas_forbid() {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_validating-floor"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("the validating floor starts");
    let calls = [
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":5}}}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2,"c":3}}}"#,
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}"#,
    ];
    let mut stdin = child.stdin.take().expect("piped stdin");
    for call in calls {
        writeln!(stdin, "{call}").expect("the floor reads its stdin");
    }
    drop(stdin);
    let out = child
        .wait_with_output()
        .expect("the floor exits at end of input");
    let answers: Vec<serde_json::Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON answer a line"))
        .collect();
    assert_eq!(answers.len(), 3, "{answers:?}");
    for bad in &answers[..2] {
        assert_eq!(bad["result"]["isError"], true, "{bad}");
    }
    let text = |a: &serde_json::Value| {
        a["result"]["content"][0]["text"]
            .as_str()
            .map(str::to_owned)
    };
    assert!(
        text(&answers[0]).is_some_and(|t| t.contains("string")),
        "{answers:?}"
    );
    assert!(
        text(&answers[1]).is_some_and(|t| t.contains('c')),
        "{answers:?}"
    );
    assert_eq!(answers[2]["result"].get("isError"), None, "{answers:?}");
    assert_eq!(text(&answers[2]).as_deref(), Some("3"), "{answers:?}");
}

/// `otlp-sink`, as `OTEL=1 bench/compare.sh` runs it: `echo-server` exports its spans and
/// metrics to it (flushed when its stdin ends), and the sink counts what it received.
#[test]
fn echo_server_exports_to_the_otlp_sink() {
    use std::io::{BufRead, BufReader, Write};
    use std::process::{Command, Stdio};
    let mut sink = Command::new(env!("CARGO_BIN_EXE_otlp-sink"))
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("otlp-sink starts");
    let mut lines = BufReader::new(sink.stderr.take().unwrap()).lines();
    let first = lines.next().expect("a line").expect("text");
    let url = first
        .split_whitespace()
        .find(|w| w.starts_with("http://"))
        .expect("the sink prints its URL")
        .to_owned();
    let mut server = Command::new(mcp_tests::example_bin("echo-server"))
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", &url)
        .env("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf")
        .env_remove("OTEL_TRACES_EXPORTER")
        .env_remove("OTEL_METRICS_EXPORTER")
        .env_remove("OTEL_SDK_DISABLED")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("echo-server starts");
    let call = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    let mut stdin = server.stdin.take().unwrap();
    writeln!(stdin, "{call}").unwrap();
    drop(stdin);
    let answered = server.wait_with_output().expect("echo-server ends");
    assert!(String::from_utf8_lossy(&answered.stdout).contains("\"hi\""));
    // The server flushed its exports before exiting; closing the sink's stdin ends it.
    drop(sink.stdin.take());
    let rest: Vec<String> = lines.map_while(Result::ok).collect();
    let _ = sink.wait();
    let received: u64 = rest
        .iter()
        .find_map(|l| {
            l.strip_prefix("otlp-sink: ")?
                .strip_suffix(" bytes received")
        })
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("the sink reports what it received: {rest:?}"));
    assert!(received > 0, "nothing was exported: {rest:?}");
}
