//! The request pipeline's policies and layers, over stdio (the `policy-server` binary) and
//! Streamable HTTP (the same server in-process): timeouts that stop the work, concurrency
//! caps, per-caller rate limits, result caching per caller, one audit event per request,
//! the caller's identity, a user's layer, and a hung tool that cannot keep a stdio server
//! alive.

use mcp_runtime::client::{Client, EraMode};
use mcp_runtime::prelude::{Server, ToolAnnotations, ToolDefinition, tool_fn};
use mcp_runtime::protocol::CallToolResult;
use mcp_runtime::tool::ToolPolicy;
use mcp_runtime::transport::http::{BearerTokens, HttpOptions};
use mcp_tests::http::{modern, post, serve};
use serde_json::{Value, json};
use std::io::Write as _;
use std::process::Stdio;
use std::time::{Duration, Instant};

const POLICY_SERVER: &str = env!("CARGO_BIN_EXE_policy-server");

async fn stdio(args: &[&str]) -> Client {
    let mut cmd = tokio::process::Command::new(POLICY_SERVER);
    cmd.args(args).stderr(Stdio::null());
    let client = Client::spawn(cmd).expect("policy-server starts");
    client.connect(EraMode::Legacy).await.expect("handshake");
    client
}

async fn call(client: &Client, name: &str, args: Value) -> CallToolResult {
    tokio::time::timeout(Duration::from_secs(60), client.call_tool(name, args))
        .await
        .expect("answered in time")
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn text(result: &CallToolResult) -> &str {
    result.first_text().unwrap_or_default()
}

/// An HTTP server with two bearer tokens (alice, bob) and a modern `tools/call` helper.
struct Http {
    server: mcp_tests::http::InProcess,
}

impl Http {
    async fn start() -> Self {
        let auth = BearerTokens::new([("alice", "token-a"), ("bob", "token-b")]);
        let server = serve(
            mcp_tests::policy::server(),
            HttpOptions::default().auth(auth),
        )
        .await;
        Self { server }
    }

    async fn call(&self, token: &str, name: &str, arguments: Value) -> Value {
        let (message, headers) = modern(
            1,
            "tools/call",
            json!({"name": name, "arguments": arguments}),
        );
        let bearer = format!("Bearer {token}");
        let mut headers: Vec<(&str, &str)> =
            headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
        headers.push(("authorization", &bearer));
        let reply = post(&self.server.url, &headers, &message).await;
        assert_eq!(reply.status, 200, "{}", reply.text());
        reply.answer()["result"].clone()
    }
}

#[tokio::test]
async fn a_tool_past_its_timeout_is_an_error_and_its_work_stops() {
    let dir = tempfile::tempdir().unwrap();
    let client = stdio(&[]).await;
    let http = Http::start().await;
    for (via, marker) in [("stdio", "stdio.marker"), ("http", "http.marker")] {
        let marker = dir.path().join(marker);
        // Far past the 300 ms deadline, so that an answer at the deadline and one at the
        // tool's end cannot be mistaken for each other on a loaded machine.
        let args = json!({"ms": 5000, "marker": marker.to_str().unwrap()});
        let started = Instant::now();
        let (is_error, message) = if via == "stdio" {
            let r = call(&client, "sleepy", args).await;
            (r.is_error(), text(&r).to_owned())
        } else {
            let r = http.call("token-a", "sleepy", args).await;
            (
                r["isError"] == true,
                r["content"][0]["text"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned(),
            )
        };
        assert!(is_error, "{via}: {message}");
        assert_eq!(
            message,
            "Tool `sleepy` timed out after 300ms and was stopped. Try again with a smaller request, or later.",
            "{via}"
        );
        assert!(
            started.elapsed() < Duration::from_secs(4),
            "{via}: answered at the deadline, not at the tool's end"
        );
        // Past the time the tool would have finished, its side effect never happened.
        tokio::time::sleep_until((started + Duration::from_millis(5500)).into()).await;
        assert!(
            !marker.exists(),
            "{via}: the tool's work went on after its deadline"
        );
    }
    // Within its deadline the same tool does its work.
    let marker = dir.path().join("quick.marker");
    let r = call(
        &client,
        "sleepy",
        json!({"ms": 10, "marker": marker.to_str().unwrap()}),
    )
    .await;
    assert_eq!(text(&r), "woke up");
    assert!(marker.exists());
}

#[tokio::test]
async fn a_hung_tool_does_not_keep_a_stdio_server_alive() {
    let mut child = std::process::Command::new(POLICY_SERVER)
        .args(["--grace-ms", "500"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    writeln!(
        stdin,
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"hang","arguments":{{}}}}}}"#
    )
    .unwrap();
    std::thread::sleep(Duration::from_millis(200));
    drop(stdin);
    let closed = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if closed.elapsed() > Duration::from_secs(20) {
            child.kill().unwrap();
            panic!("the server did not exit after stdin closed");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(status.success(), "{status:?}");
    assert!(
        closed.elapsed() >= Duration::from_millis(400),
        "the grace period was given"
    );
}

/// 10 × the cap in flight: at most 2 `slots` calls run at once, every call is answered.
#[tokio::test]
async fn calls_beyond_a_tools_concurrency_cap_wait_their_turn() {
    let client = stdio(&[]).await;
    let calls: Vec<_> = (0..20)
        .map(|_| {
            let client = client.clone();
            tokio::spawn(async move { call(&client, "slots", json!({"ms": 50})).await })
        })
        .collect();
    for c in calls {
        let r = c.await.unwrap();
        assert_eq!(text(&r), "slept", "{r:?}");
    }
    let stats = call(&client, "stats", json!({})).await;
    assert_eq!(stats.structured_content.unwrap()["peak"], 2);
}

/// A server-wide cap over stdio: the server stops reading while saturated, a flood of calls
/// is served in turn, and its memory stays bounded.
#[tokio::test]
async fn a_server_wide_cap_bounds_a_flood_over_stdio() {
    let mut cmd = tokio::process::Command::new(POLICY_SERVER);
    cmd.args(["--max-concurrent", "4"]).stderr(Stdio::null());
    let client = Client::spawn(cmd).unwrap();
    client.connect(EraMode::Legacy).await.unwrap();
    let pid = client.process_id().expect("a child process");
    let rss = || -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
        let line = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap();
        line.split_whitespace().nth(1).unwrap().parse().unwrap()
    };
    let before = rss();
    let padding = "x".repeat(64 * 1024);
    let calls: Vec<_> = (0..400)
        .map(|_| {
            let client = client.clone();
            let args = json!({"ms": 5, "pad": padding});
            tokio::spawn(async move { call(&client, "work", args).await })
        })
        .collect();
    let mut peak_rss = before;
    for c in calls {
        let r = c.await.unwrap();
        assert_eq!(text(&r), "worked", "{r:?}");
        peak_rss = peak_rss.max(rss());
    }
    let stats = call(&client, "stats", json!({})).await;
    assert_eq!(stats.structured_content.unwrap()["work_peak"], 4);
    // 400 × 64 KiB = 25 MiB was sent; unread input waits in the pipe, not in the server.
    assert!(
        peak_rss - before < 12 * 1024,
        "RSS grew from {before} KiB to {peak_rss} KiB"
    );
}

#[tokio::test]
async fn a_caller_over_its_rate_limit_is_told_when_to_retry_and_others_are_not() {
    let http = Http::start().await;
    for _ in 0..2 {
        let r = http.call("token-a", "limited", json!({})).await;
        assert_eq!(r["content"][0]["text"], "ok", "{r}");
    }
    let r = http.call("token-a", "limited", json!({})).await;
    assert_eq!(r["isError"], true, "{r}");
    let message = r["content"][0]["text"].as_str().unwrap();
    assert!(
        message.starts_with(
            "Rate limit for tool `limited` exceeded (2 per 10s per caller). Retry in "
        ),
        "{message}"
    );
    // Another caller has a budget of its own.
    let r = http.call("token-b", "limited", json!({})).await;
    assert_eq!(r["content"][0]["text"], "ok", "{r}");
    // Past the hint's wait (a token comes every 5 s), the first caller may call again.
    tokio::time::sleep(Duration::from_millis(5200)).await;
    let r = http.call("token-a", "limited", json!({})).await;
    assert_eq!(r["content"][0]["text"], "ok", "{r}");

    // Over stdio the caller is the connection.
    let client = stdio(&[]).await;
    call(&client, "limited", json!({})).await;
    call(&client, "limited", json!({})).await;
    let r = call(&client, "limited", json!({})).await;
    assert!(r.is_error() && text(&r).contains("Retry in"), "{r:?}");
}

/// A repeated call of a `cache` tool is answered without running it again, costs no
/// rate-limit quota, and never comes from another caller's answer; an `isError` result is
/// not kept.
#[tokio::test]
async fn a_cached_tool_answers_a_repeated_call_without_running_again() {
    let client = stdio(&[]).await;
    let ask = |q: &str| call(&client, "cached", json!({ "q": q }));
    assert_eq!(text(&ask("a").await), "a #1");
    // More hits than the tool's rate limit (4/m) allows calls: hits cost no quota.
    for _ in 0..5 {
        assert_eq!(text(&ask("a").await), "a #1");
    }
    assert_eq!(text(&ask("b").await), "b #2");
    for n in [3, 4] {
        let r = ask("fail").await;
        assert!(r.is_error(), "{r:?}");
        assert_eq!(text(&r), format!("fail #{n}"), "an error is not cached");
    }
    // The fifth run is over the limit; a cached answer is still served.
    let r = ask("c").await;
    assert!(
        r.is_error() && text(&r).starts_with("Rate limit for tool `cached` exceeded"),
        "{r:?}"
    );
    assert_eq!(text(&ask("a").await), "a #1");

    // Over HTTP the caller is the authenticated identity.
    let http = Http::start().await;
    let ask = |token: &'static str| http.call(token, "cached", json!({"q": "x"}));
    for (token, expected) in [
        ("token-a", "x #1"),
        ("token-a", "x #1"),
        ("token-b", "x #2"),
        ("token-b", "x #2"),
        ("token-a", "x #1"),
    ] {
        let r = ask(token).await;
        assert_eq!(r["content"][0]["text"], expected, "{token}: {r}");
    }
}

/// `cache` on a tool whose annotations do not say read-only and idempotent is a `build()`
/// error naming the tool and what it lacks.
/// Lifetimes that cannot be honoured (centuries) are `build()` errors naming the limit,
/// never a panic later.
#[test]
fn lifetimes_that_cannot_be_honoured_are_build_errors() {
    let centuries = Duration::from_secs(2_000 * 365 * 86_400);
    let mut hints = ToolAnnotations::default();
    hints.read_only_hint = Some(true);
    hints.idempotent_hint = Some(true);
    let lookup = tool_fn(
        ToolDefinition::new("lookup", "Looks a key up.", json!({"type": "object"}))
            .with_annotations(hints),
        |_, _| async { "value" },
    )
    .with_policy(ToolPolicy::new().cache(centuries));
    let error = Server::builder("cache-test", "1.0.0")
        .tool(lookup)
        .build()
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("a cache lifetime of") && error.contains("the longest is 365 days"),
        "{error}"
    );

    let keys = mcp_runtime::input::RequestStateKeys::generate().ttl(centuries);
    let error = Server::builder("state-test", "1.0.0")
        .request_state_keys(keys)
        .build()
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("request_state_keys") && error.contains("the longest is 24 hours"),
        "{error}"
    );
}

#[test]
fn cache_without_read_only_and_idempotent_annotations_is_refused() {
    let lookup = tool_fn(
        ToolDefinition::new("lookup", "Looks a key up.", json!({"type": "object"}))
            .with_annotations({
                let mut hints = ToolAnnotations::default();
                hints.read_only_hint = Some(true);
                hints
            }),
        |_, _| async { "value" },
    )
    .with_policy(ToolPolicy::new().cache(Duration::from_secs(60)));
    let error = Server::builder("cache-test", "1.0.0")
        .tool(lookup)
        .build()
        .unwrap_err()
        .to_string();
    assert!(
        error.contains(
            "tool `lookup` has an invalid policy: `cache` is only for tools annotated read-only \
             and idempotent, and this tool is not idempotent (`idempotentHint: true`)"
        ),
        "{error}"
    );
}

#[tokio::test]
async fn a_tool_sees_the_http_callers_identity() {
    let http = Http::start().await;
    let r = http.call("token-b", "whoami", json!({})).await;
    assert_eq!(
        r["structuredContent"],
        json!({"key": "identity:bob", "identity": "bob"})
    );
    let client = stdio(&[]).await;
    let r = call(&client, "whoami", json!({})).await;
    assert_eq!(
        r.structured_content.unwrap(),
        json!({"key": "connection", "identity": null})
    );
}

#[tokio::test]
async fn a_users_layer_runs_around_every_call_and_can_refuse_one() {
    let client = stdio(&[]).await;
    let r = call(&client, "whoami", json!({"note": "forbidden"})).await;
    assert!(r.is_error());
    assert_eq!(
        text(&r),
        "`whoami` refused: the arguments contain a forbidden word"
    );
    call(&client, "whoami", json!({})).await;
    let stats = call(&client, "stats", json!({})).await;
    // whoami twice, and this stats call itself.
    assert_eq!(stats.structured_content.unwrap()["layered"], 3);
}

/// One audit event per request, with its fields; arguments are not recorded.
#[tokio::test]
async fn every_call_is_audited_once() {
    let mut child = tokio::process::Command::new(POLICY_SERVER)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let requests = [
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"whoami","arguments":{}}}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"whoami","arguments":{"secret":"hunter2","note":"forbidden"}}}"#,
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"sleepy","arguments":{"ms":"soon"}}}"#,
        r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"sleepy","arguments":{"ms":2000}}}"#,
        r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"cached","arguments":{"q":"a"}}}"#,
        r#"{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"cached","arguments":{"q":"a"}}}"#,
    ];
    use tokio::io::AsyncWriteExt as _;
    for r in requests {
        stdin.write_all(format!("{r}\n").as_bytes()).await.unwrap();
    }
    stdin.flush().await.unwrap();
    tokio::time::sleep(Duration::from_millis(800)).await;
    drop(stdin);
    let out = tokio::time::timeout(Duration::from_secs(30), child.wait_with_output())
        .await
        .unwrap()
        .unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    let events: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("mcp::audit"))
        .collect();
    assert_eq!(events.len(), 6, "{stderr}");
    for (id, outcome) in [
        (1, "ok"),
        (2, "refused"),
        (3, "invalid_arguments"),
        (4, "timeout"),
        (5, "ok"),
        (6, "ok"),
    ] {
        let event = events
            .iter()
            .find(|e| e.contains(&format!(" id={id} ")))
            .unwrap_or_else(|| panic!("no event for request {id}: {stderr}"));
        for field in [
            format!("id={id} "),
            // `fmt` quotes every text field.
            "era=\"legacy\"".to_owned(),
            "method=\"tools/call\"".to_owned(),
            "caller=\"connection\"".to_owned(),
            "duration_ms=".to_owned(),
            format!("outcome=\"{outcome}\""),
        ] {
            assert!(event.contains(&field), "{field} missing in {event}");
        }
        // Only the repeated call was answered from the cache, and says so.
        assert_eq!(event.contains("cached=true"), id == 6, "{event}");
    }
    assert!(
        !stderr.contains("hunter2"),
        "arguments are not audited: {stderr}"
    );
}

/// Counts nothing: answers at once.
#[mcp_runtime::mcp_tool]
async fn plain_answer() -> &'static str {
    "answered"
}

/// Declares its own rate.
#[mcp_runtime::mcp_tool(rate_limit = "3/m")]
async fn own_rate() -> &'static str {
    "answered"
}

#[tokio::test]
async fn a_default_rate_limit_applies_to_tools_that_declare_none() {
    let server = Server::builder("rates", "1.0.0")
        .tool(plain_answer::tool())
        .tool(own_rate::tool())
        .default_rate_limit(mcp_runtime::tool::Rate::per_minute(1))
        .build()
        .unwrap();
    let client = Client::memory(&server);
    client.connect(EraMode::Modern).await.unwrap();
    let call = async |name: &str| client.call_tool(name, json!({})).await.unwrap();
    assert_eq!(call("plain_answer").await.first_text(), Some("answered"));
    let limited = call("plain_answer").await;
    assert!(limited.is_error(), "{limited:?}");
    assert!(
        limited.first_text().unwrap().contains("Rate limit"),
        "{limited:?}"
    );
    // Its own rate wins: three calls a minute.
    for _ in 0..3 {
        assert_eq!(call("own_rate").await.first_text(), Some("answered"));
    }
    assert!(call("own_rate").await.is_error());
}
