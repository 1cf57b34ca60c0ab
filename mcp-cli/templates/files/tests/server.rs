//! The server end to end: an in-memory session in both protocol eras, the confinement of
//! every path to the served directory, the built binary over stdio, and a snapshot of
//! `tools/list`.

use mcp_runtime::client::Client;
use mcp_runtime::protocol::ErrorCode;
use mcp_runtime::testing::{self, ERAS, EraMode};
use serde_json::{Value, json};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

// The tools and the server, from src/lib.rs.
use {{crate_name}}::{DIRS_ENV, file_service, server};

/// What must never be read through the server.
const SECRET: &str = "the secret outside";

/// A temporary `served/` directory with `hello.txt`, beside an `outside/secret.txt`.
struct Fixture {
    _tmp: tempfile::TempDir,
    served: PathBuf,
    outside: PathBuf,
}

fn fixture() -> Fixture {
    let tmp = tempfile::tempdir().unwrap();
    let served = tmp.path().join("served");
    let outside = tmp.path().join("outside");
    std::fs::create_dir_all(served.join("sub")).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(served.join("hello.txt"), "hello, files").unwrap();
    std::fs::write(outside.join("secret.txt"), SECRET).unwrap();
    Fixture {
        _tmp: tmp,
        served,
        outside,
    }
}

async fn session(fixture: &Fixture, era: EraMode) -> Client {
    let files = file_service(std::slice::from_ref(&fixture.served)).unwrap();
    testing::connect(&server(files).expect("every tool is valid"), era).await
}

#[tokio::test]
async fn lists_the_tools() {
    let fixture = fixture();
    for era in ERAS {
        let tools = session(&fixture, era).await.list_tools().await.unwrap();
        let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["list_directory", "read_file"], "{era:?}");
    }
}

#[tokio::test]
async fn calls_the_tools() {
    let fixture = fixture();
    for era in ERAS {
        let client = session(&fixture, era).await;
        let text = client
            .call_tool("read_file", json!({"path": "hello.txt"}))
            .await
            .unwrap();
        assert_eq!(text.first_text(), Some("hello, files"), "{era:?}");
        let listing = client.call_tool("list_directory", json!({})).await.unwrap();
        assert_eq!(
            listing.first_text(),
            Some("[FILE] hello.txt (12 B)\n[DIR]  sub"),
            "{era:?}"
        );
    }
}

#[tokio::test]
async fn an_unknown_tool_is_a_protocol_error() {
    let fixture = fixture();
    for era in ERAS {
        let err = session(&fixture, era)
            .await
            .call_tool("no_such_tool", json!({}))
            .await
            .unwrap_err();
        let err = err.as_protocol().expect("a JSON-RPC error");
        assert_eq!(err.code, ErrorCode::INVALID_PARAMS, "{era:?}");
    }
}

#[tokio::test]
async fn bad_arguments_come_back_as_a_tool_error() {
    let fixture = fixture();
    for era in ERAS {
        let result = session(&fixture, era)
            .await
            .call_tool("read_file", json!({"file": "hello.txt"}))
            .await
            .unwrap();
        assert!(result.is_error(), "{era:?}");
        let text = result.first_text().unwrap_or_default();
        assert!(text.contains("\"path\""), "{era:?}: {text}");
    }
}

/// Asks `read_file` for `path` and checks that it was refused without a trace of the secret.
async fn assert_refused(client: &Client, path: &str) {
    let result = client
        .call_tool("read_file", json!({ "path": path }))
        .await
        .unwrap();
    let text = result.first_text().unwrap_or_default();
    assert!(result.is_error(), "{path} was read: {text}");
    assert!(!text.contains(SECRET), "{path}: {text}");
}

#[tokio::test]
async fn the_files_are_resources_too_and_reads_stay_inside() {
    let fixture = fixture();
    for era in ERAS {
        let client = session(&fixture, era).await;
        let uris: Vec<String> = client
            .list_resources()
            .await
            .unwrap()
            .into_iter()
            .map(|r| r.uri)
            .collect();
        let hello = uris
            .iter()
            .find(|u| u.ends_with("/hello.txt"))
            .unwrap_or_else(|| panic!("{era:?}: hello.txt is listed: {uris:?}"));
        let read = client.read_resource(hello).await.unwrap();
        let text = serde_json::to_value(&read.contents).unwrap()[0]["text"].clone();
        assert_eq!(text, "hello, files", "{era:?}");
        let secret = format!("file://{}", fixture.outside.join("secret.txt").display());
        for uri in [secret, format!("{hello}/../../outside/secret.txt")] {
            let err = client.read_resource(&uri).await.unwrap_err();
            assert!(err.as_protocol().is_some(), "{era:?}: {uri} was read");
            assert!(!err.to_string().contains(SECRET), "{era:?}: {err}");
        }
    }
}

#[tokio::test]
async fn serves_the_skills() {
    let fixture = fixture();
    for era in ERAS {
        let client = session(&fixture, era).await;
        let skills = client.list_skills().await.unwrap();
        let uris: Vec<&str> = skills.iter().map(|s| s.uri.as_str()).collect();
        assert_eq!(uris, ["skill://browse-files/SKILL.md"], "{era:?}");
        // Each file of a skill is a resource, read by the URI its manifest names.
        let read = client.read_resource(&skills[0].uri).await.unwrap();
        let text = serde_json::to_value(&read.contents).unwrap()[0]["text"].clone();
        assert!(
            text.as_str()
                .unwrap_or_default()
                .starts_with("---\nname: browse-files\n"),
            "{era:?}: {text}"
        );
    }
}

#[tokio::test]
async fn the_summarize_prompt_embeds_a_served_file_and_nothing_else() {
    let fixture = fixture();
    for era in ERAS {
        let client = session(&fixture, era).await;
        let prompts = client.list_prompts().await.unwrap();
        assert!(
            prompts.iter().any(|p| p.name == "summarize_file"),
            "{era:?}: {prompts:?}"
        );
        let hello = format!("file://{}", fixture.served.join("hello.txt").display());
        let arguments = [("fileUri".to_owned(), hello)].into();
        let got = client
            .get_prompt("summarize_file", &arguments)
            .await
            .unwrap();
        let messages = serde_json::to_value(&got.messages).unwrap();
        // One message per content item: the text, then the file embedded.
        let embedded = messages
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["content"]["type"] == "resource")
            .unwrap_or_else(|| panic!("{era:?}: no embedded file in {messages}"));
        assert_eq!(
            embedded["content"]["resource"]["text"], "hello, files",
            "{era:?}"
        );
        // The default of `maxLength` fills the text.
        let text = messages.to_string();
        assert!(text.contains("about 100 words"), "{era:?}: {text}");
        // A file outside what the server serves is refused, naming the argument.
        let secret = format!("file://{}", fixture.outside.join("secret.txt").display());
        let arguments = [("fileUri".to_owned(), secret)].into();
        let err = client
            .get_prompt("summarize_file", &arguments)
            .await
            .unwrap_err();
        assert!(!err.to_string().contains(SECRET), "{era:?}: {err}");
        assert!(err.to_string().contains("fileUri"), "{era:?}: {err}");
    }
}

#[tokio::test]
async fn parent_directories_are_refused() {
    let fixture = fixture();
    let client = session(&fixture, EraMode::Legacy).await;
    assert_refused(&client, "../outside/secret.txt").await;
    assert_refused(&client, "sub/../../outside/secret.txt").await;
}

#[tokio::test]
async fn absolute_paths_outside_are_refused() {
    let fixture = fixture();
    let client = session(&fixture, EraMode::Legacy).await;
    let secret = fixture.outside.join("secret.txt");
    assert_refused(&client, secret.to_str().unwrap()).await;
    assert_refused(&client, "/etc/passwd").await;
    // Inside the served directory, absolute paths work.
    let inside = fixture.served.join("hello.txt");
    let ok = client
        .call_tool("read_file", json!({ "path": inside.to_str().unwrap() }))
        .await
        .unwrap();
    assert_eq!(ok.first_text(), Some("hello, files"));
}

#[cfg(unix)]
#[tokio::test]
async fn symlinks_that_lead_out_are_refused() {
    let fixture = fixture();
    let secret = fixture.outside.join("secret.txt");
    std::os::unix::fs::symlink(&secret, fixture.served.join("absolute-link")).unwrap();
    std::os::unix::fs::symlink(
        "../outside/secret.txt",
        fixture.served.join("relative-link"),
    )
    .unwrap();
    std::os::unix::fs::symlink(&fixture.outside, fixture.served.join("dir-link")).unwrap();
    let client = session(&fixture, EraMode::Legacy).await;
    assert_refused(&client, "absolute-link").await;
    assert_refused(&client, "relative-link").await;
    assert_refused(&client, "dir-link/secret.txt").await;
}

/// Runs the built binary with `envs`, sends `lines` on stdin, closes it and returns stdout.
/// Fails if the server does not exit by itself once its input is closed.
fn run_over_stdio(args: &[&str], envs: &[(&str, &Path)], lines: &[Value]) -> String {
    let mut child = Command::new(env!("CARGO_BIN_EXE_{{name}}"))
        .args(args)
        .envs(envs.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("the server starts");
    let mut stdin = child.stdin.take().unwrap();
    for line in lines {
        writeln!(stdin, "{line}").unwrap();
    }
    drop(stdin);
    let mut stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut out = String::new();
        stdout.read_to_string(&mut out).map(|_| out)
    });
    // A bound against a hang, not a timing assertion.
    let deadline = Instant::now() + Duration::from_secs(60);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("the server did not exit within 60 s of its stdin closing");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(status.success(), "the server exited with {status}");
    reader.join().unwrap().expect("stdout is UTF-8")
}

#[test]
fn the_binary_speaks_json_rpc_on_stdout_and_exits_when_stdin_closes() {
    let fixture = fixture();
    // The directory comes from the environment here; an argument works the same way.
    let out = run_over_stdio(
        &[],
        &[(DIRS_ENV, &fixture.served)],
        &[
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": "smoke-test", "version": "0"}}}),
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
            json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                   "params": {"name": "read_file", "arguments": {"path": "hello.txt"}}}),
        ],
    );
    let messages: Vec<Value> = out
        .lines()
        .map(|line| serde_json::from_str(line).expect("every stdout line is JSON"))
        .collect();
    assert!(messages.iter().all(|m| m["jsonrpc"] == "2.0"), "{out}");
    assert_eq!(messages.len(), 3, "one answer per request: {out}");
    let read = messages
        .iter()
        .find(|m| m["id"] == 3)
        .expect("an answer to the call");
    assert_eq!(read["result"]["content"][0]["text"], "hello, files");
}

/// `tools/list` as committed in `tests/snapshots/tools.json`. After changing a tool on
/// purpose, refresh it with `UPDATE_SNAPSHOTS=1 cargo test` (or `cargo mcp schema --out
/// tests/snapshots/tools.json -- DIR`) and review the diff: clients see exactly this.
#[tokio::test]
async fn tools_list_matches_the_snapshot() {
    let fixture = fixture();
    let files = file_service(std::slice::from_ref(&fixture.served)).unwrap();
    let server = server(files).expect("every tool is valid");
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots/tools.json");
    testing::assert_tools_snapshot(&server, path).await;
}
