//! `list`, `call` and `schema` against `echo-server`: over stdio (`--command`) and over
//! Streamable HTTP (`--url`, both legacy modes), in both protocol eras.

use crate::support::*;
use mcp_tests::http::Spawned;
use serde_json::Value;
use std::process::Output;

const ERAS: [&str; 2] = ["legacy", "modern"];

/// How to reach a server: the flags that name it (they go last).
fn over_stdio() -> Vec<String> {
    let bin = mcp_tests::example_bin("echo-server");
    vec!["--command".into(), bin.to_string_lossy().into_owned()]
}

fn over_http(server: &Spawned) -> Vec<String> {
    vec!["--url".into(), server.url.clone()]
}

fn run(args: &[&str], era: &str, target: &[String]) -> Output {
    output(cargo_mcp().args(args).args(["--era", era]).args(target))
}

fn assert_list(target: &[String]) {
    for era in ERAS {
        let out = run(&["list"], era, target);
        assert!(out.status.success(), "{era}: {}", show(&out));
        let text = stdout(&out);
        assert!(text.contains(&format!("{era} era")), "{text}");
        assert!(text.starts_with("echo-server 0.1.0: 5 tools"), "{text}");
        assert!(
            text.contains("\nadd         a: number, b: number  Adds two numbers"),
            "{text}"
        );
        assert!(
            text.contains("\necho        text: string          Returns the given text"),
            "{text}"
        );

        let out = run(&["list", "--json"], era, target);
        let json: Value = serde_json::from_slice(&out.stdout).expect("--json prints JSON");
        assert_eq!(json["era"], era);
        assert_eq!(json["server"]["name"], "echo-server");
        let names: Vec<&str> = json["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap())
            .collect();
        assert_eq!(
            names,
            ["add", "ask_model", "ask_name", "echo", "list_roots"]
        );
    }
}

fn assert_call(target: &[String]) {
    for era in ERAS {
        let out = run(&["call", "add", "a=2", "b=3"], era, target);
        assert!(out.status.success(), "{era}: {}", show(&out));
        assert_eq!(stdout(&out), "5\n");

        // A string property keeps digits as text.
        let out = run(&["call", "echo", "text=42", "--json"], era, target);
        let json: Value = serde_json::from_slice(&out.stdout).expect("--json prints JSON");
        assert_eq!(json["content"][0]["text"], "42", "{era}");

        let out = run(
            &["call", "echo", "--args", r#"{"text": "from json"}"#],
            era,
            target,
        );
        assert_eq!(stdout(&out), "from json\n", "{era}: {}", show(&out));

        // Bad arguments: the tool's error is printed, exit 3.
        let out = run(&["call", "add", "a=two"], era, target);
        assert_eq!(out.status.code(), Some(3), "{era}: {}", show(&out));
        assert!(
            stdout(&out).contains("\"b\" is a required property"),
            "{}",
            show(&out)
        );
        assert!(
            stderr(&out).contains("error: the tool `add` reported an error"),
            "{}",
            show(&out)
        );

        // An unknown tool: a usage error with a suggestion, exit 2.
        let out = run(&["call", "ad"], era, target);
        assert_eq!(out.status.code(), Some(2), "{era}: {}", show(&out));
        assert!(
            stderr(&out).contains("has no tool `ad`; did you mean add?"),
            "{}",
            show(&out)
        );
    }
}

fn assert_schema(target: &[String]) {
    let tmp = outside_tempdir();
    let snapshot = tmp.path().join("tools.json");
    let snapshot_arg = snapshot.to_str().unwrap();
    let printed = run(&["schema"], "legacy", target);
    assert!(printed.status.success(), "{}", show(&printed));
    for era in ERAS {
        let out = run(&["schema", "--out", snapshot_arg], era, target);
        assert!(out.status.success(), "{era}: {}", show(&out));
        // Both eras list the same tools, printed the same way.
        assert_eq!(std::fs::read(&snapshot).unwrap(), printed.stdout, "{era}");
        let out = run(&["schema", "--check", snapshot_arg], era, target);
        assert!(out.status.success(), "{era}: {}", show(&out));
    }
    let json: Value = serde_json::from_slice(&printed.stdout).unwrap();
    assert_eq!(json["tools"][0]["name"], "add");

    // A changed description fails the check with a diff, exit 3.
    let edited = String::from_utf8(printed.stdout.clone())
        .unwrap()
        .replace("Adds two numbers and returns the sum.", "Adds numbers.");
    std::fs::write(&snapshot, edited).unwrap();
    for era in ERAS {
        let out = run(&["schema", "--check", snapshot_arg], era, target);
        assert_eq!(out.status.code(), Some(3), "{era}: {}", show(&out));
        let err = stderr(&out);
        assert!(
            err.contains("-      \"description\": \"Adds numbers.\","),
            "{err}"
        );
        assert!(
            err.contains("+      \"description\": \"Adds two numbers and returns the sum.\","),
            "{err}"
        );
        assert!(err.contains("run `cargo mcp schema --out"), "{err}");
    }
}

#[test]
fn list_over_stdio_in_both_eras() {
    assert_list(&over_stdio());
}

#[test]
fn call_over_stdio_in_both_eras() {
    assert_call(&over_stdio());
}

#[test]
fn schema_over_stdio_in_both_eras() {
    assert_schema(&over_stdio());
}

#[test]
fn list_call_and_schema_over_http_in_both_eras() {
    let server = Spawned::start("echo-server", &[]);
    let target = over_http(&server);
    assert_list(&target);
    assert_call(&target);
    assert_schema(&target);
}

#[test]
fn list_and_call_over_http_in_stateless_legacy_mode() {
    let server = Spawned::start("echo-server", &["--legacy-mode", "stateless"]);
    let target = over_http(&server);
    assert_list(&target);
    let out = run(&["call", "add", "a=1", "b=2"], "legacy", &target);
    assert_eq!(stdout(&out), "3\n", "{}", show(&out));
}

#[test]
fn list_and_call_over_https_with_the_root_from_ssl_cert_file() {
    let server = Spawned::start("echo-server", &[]);
    let proxy = mcp_tests::tls::TlsProxy::start(server.addr);
    let dir = crate::support::outside_tempdir();
    let root = dir.path().join("root.pem");
    std::fs::write(&root, &proxy.cert_pem).unwrap();
    let url = format!("https://localhost:{}/mcp", proxy.port);
    let out = output(
        cargo_mcp()
            .args(["call", "add", "a=1", "b=2", "--url", &url])
            .env("SSL_CERT_FILE", &root),
    );
    assert_eq!(stdout(&out), "3\n", "{}", show(&out));
    // Without the root, the certificate is not trusted.
    let out = output(
        cargo_mcp()
            .args(["list", "--url", &url])
            .env_remove("SSL_CERT_FILE"),
    );
    assert!(!out.status.success(), "{}", show(&out));
    assert!(stderr(&out).contains("certificate"), "{}", show(&out));
}

#[test]
fn an_unreachable_server_is_one_error_line() {
    let out = output(cargo_mcp().args(["list", "--url", "http://127.0.0.1:1/mcp"]));
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    let err = stderr(&out);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("error: cannot connect to http://127.0.0.1:1/mcp: "),
        "{err}"
    );

    let out = output(cargo_mcp().args(["list", "--command", "/nonexistent/server"]));
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    assert!(
        stderr(&out).starts_with("error: cannot start `/nonexistent/server`: "),
        "{}",
        show(&out)
    );
}

#[test]
fn a_server_that_prints_to_stdout_is_warned_about() {
    let bin = mcp_tests::example_bin("echo-server");
    let script = format!("echo 'Server started!'; exec {}", bin.display());
    for args in [&["list"][..], &["call", "add", "a=1", "b=2"][..]] {
        let out = output(cargo_mcp().args(args).args([
            "--era",
            "legacy",
            "--command",
            "sh",
            "-c",
            &script,
        ]));
        assert!(out.status.success(), "{}", show(&out));
        assert!(
            stderr(&out).contains(
                "warning: the server wrote non-protocol text to stdout: \"Server started!\"; MCP \
                 clients read stdout as JSON-RPC only, so write logs and messages to stderr"
            ),
            "{}",
            show(&out)
        );
    }
    // A clean server gets no warning.
    let out = output(
        cargo_mcp()
            .args(["list", "--era", "legacy"])
            .args(over_stdio()),
    );
    assert!(!stderr(&out).contains("warning"), "{}", show(&out));
}

#[test]
fn list_wraps_descriptions_to_the_width_it_is_given() {
    let out = output(
        cargo_mcp()
            .args(["list", "--era", "legacy"])
            .args(over_stdio())
            .env("COLUMNS", "60"),
    );
    assert!(out.status.success(), "{}", show(&out));
    let text = stdout(&out);
    let tools = text
        .split("\nTools:\n")
        .nth(1)
        .and_then(|rest| rest.split("\n\n").next())
        .expect("a tools table");
    for line in tools.lines() {
        assert!(
            line.chars().count() <= 60,
            "{line:?} is wider than 60 in\n{tools}"
        );
    }
    // A description longer than the width goes on below, under its column.
    assert!(
        tools.contains("\nask_model   question: string      Asks the client's language\n                                  model"),
        "{tools}"
    );
}
