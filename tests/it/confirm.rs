//! Confirmed tools (`mcp_runtime::tool::Confirm`): the official TypeScript client answers
//! `file-server --confirm`'s and `command-server --confirm`'s questions as a user would
//! (accept, decline, cancel, or a client that cannot be asked) in both eras, and only an
//! accept lets the tool act; in memory, the same for a task tool, a tool that runs when the
//! client cannot be asked, and arguments checked before anyone is asked.

use mcp_runtime::client::{Client, EraMode, InputHandler};
use mcp_runtime::prelude::*;
use mcp_runtime::protocol::ElicitResult;
use mcp_runtime::task::TaskOptions;
use mcp_runtime::tool::Confirm;
use serde_json::{Value, json};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Runs `tests/interop/ts/confirm.mjs`: the official client calls `tool` on the server that
/// `server` starts, answering the question with `answer`. Its summary, and the server's
/// stderr (the audit).
fn ts_call(
    mode: &str,
    answer: &str,
    tool: &str,
    arguments: Value,
    server: &[&str],
) -> (Value, String) {
    let dir = crate::interop::ensure_clients();
    let out = Command::new("node")
        .arg(dir.join("ts").join("confirm.mjs"))
        .args(["--mode", mode, "--answer", answer, "--tool", tool])
        .args(["--arguments", &arguments.to_string(), "--"])
        .args(server)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .expect("node runs");
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    );
    assert!(out.status.success(), "{mode} {answer}: {stdout}\n{stderr}");
    let summary = serde_json::from_str(stdout.trim())
        .unwrap_or_else(|e| panic!("not one JSON line ({e}): {stdout}\n{stderr}"));
    (summary, stderr)
}

#[test]
fn file_server_writes_only_when_the_official_client_accepts() {
    let bin = mcp_tests::example_bin("file-server");
    let bin = bin.to_str().unwrap();
    for mode in ["legacy", "modern"] {
        for answer in ["accept", "decline", "cancel", "none"] {
            let dir = tempfile::tempdir().unwrap();
            let root = dir.path().to_str().unwrap();
            let arguments = json!({"path": "notes.txt", "content": "from ts"});
            let (summary, log) = ts_call(
                mode,
                answer,
                "write_file",
                arguments,
                &[bin, "--confirm", root],
            );
            let label = format!("{mode} {answer}: {summary}");
            let written = dir.path().join("notes.txt");
            let expected_version = if mode == "legacy" {
                "2025-11-25"
            } else {
                "2026-07-28"
            };
            assert_eq!(summary["version"], expected_version, "{label}");
            if answer == "none" {
                assert_eq!(summary["asked"], json!([]), "{label}");
                assert!(
                    summary["text"]
                        .as_str()
                        .unwrap()
                        .contains("could not be asked"),
                    "{label}"
                );
                assert!(log.contains("decision=unconfirmable"), "{label}\n{log}");
            } else {
                let asked = summary["asked"].as_array().unwrap();
                assert_eq!(asked.len(), 1, "asked once: {label}");
                let question = asked[0].as_str().unwrap();
                assert!(
                    question.starts_with("Allow the tool `write_file` to run?")
                        && question.contains("path: notes.txt"),
                    "{label}"
                );
                assert_eq!(
                    summary["schema"],
                    json!({"type": "object", "properties": {}}),
                    "{label}"
                );
                let word = if answer == "accept" { "accept" } else { answer };
                let audited = format!(
                    "decision={}",
                    if word == "decline" {
                        "declined"
                    } else if word == "cancel" {
                        "cancelled"
                    } else {
                        word
                    }
                );
                assert!(log.contains(&audited), "{label}: {audited} in\n{log}");
            }
            if answer == "accept" {
                assert_eq!(summary["isError"], false, "{label}");
                assert_eq!(std::fs::read_to_string(&written).unwrap(), "from ts");
            } else {
                assert_eq!(summary["isError"], true, "{label}");
                assert!(!written.exists(), "nothing written: {label}");
            }
        }
    }
    // The tools that read are not asked about.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "one").unwrap();
    let root = dir.path().to_str().unwrap();
    let (read, _) = ts_call(
        "modern",
        "decline",
        "read_text_file",
        json!({"path": "a.txt"}),
        &[bin, "--confirm", root],
    );
    assert_eq!(read["asked"], json!([]), "{read}");
    assert_eq!(read["text"], "one", "{read}");
}

#[test]
fn command_server_runs_a_command_only_when_the_official_client_accepts() {
    let bin = mcp_tests::example_bin("command-server");
    let bin = bin.to_str().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_str().unwrap();
    let server = [bin, "--confirm", "--allow", "mkdir", "--root", root];
    for (mode, answer, made) in [
        ("legacy", "decline", false),
        ("modern", "cancel", false),
        ("legacy", "none", false),
        ("modern", "accept", true),
    ] {
        let arguments = json!({"command": ["mkdir", "made"], "directory": root});
        let (summary, _) = ts_call(mode, answer, "shell_execute", arguments, &server);
        let label = format!("{mode} {answer}: {summary}");
        if answer != "none" {
            assert_eq!(
                summary["asked"],
                json!([format!("Run the command [\"mkdir\",\"made\"] in {root}?")]),
                "{label}"
            );
        }
        assert_eq!(summary["isError"], !made, "{label}");
        assert_eq!(dir.path().join("made").is_dir(), made, "{label}");
    }
}

/// Counts its runs.
#[derive(Clone, Default)]
struct Runs(Arc<AtomicUsize>);

/// Deletes a record, as a task, after the user confirms.
#[mcp_tool(destructive, task = "required", confirm = "Delete record {id}?")]
async fn delete_record(cx: RequestContext, State(runs): State<Runs>, id: u32) -> String {
    runs.0.fetch_add(1, Ordering::SeqCst);
    // Long enough to become a task.
    tokio::time::sleep(Duration::from_millis(100)).await;
    format!("deleted {id} (task: {})", cx.task_id().is_some())
}

/// Archives a record; asking is a courtesy, so it runs for a client that cannot be asked.
#[mcp_tool(confirm, unconfirmable = "run")]
async fn archive_record(State(runs): State<Runs>, id: u32) -> String {
    runs.0.fetch_add(1, Ordering::SeqCst);
    format!("archived {id}")
}

/// Renames a record, after asking the user for the new name itself.
#[mcp_tool(confirm)]
async fn rename_record(
    cx: RequestContext,
    State(runs): State<Runs>,
    id: u32,
) -> Result<String, mcp_runtime::input::InputError> {
    runs.0.fetch_add(1, Ordering::SeqCst);
    let answer = cx
        .elicit_schema(
            "New name?",
            json!({"type": "object", "properties": {"name": {"type": "string"}}}),
        )
        .await?;
    let name = answer
        .accepted()
        .and_then(|c| c.get("name").and_then(Value::as_str).map(str::to_owned))
        .unwrap_or_default();
    Ok(format!("renamed {id} to {name}"))
}

fn records() -> (Server, Runs) {
    let runs = Runs::default();
    let server = Server::builder("records", "1.0.0")
        .state(runs.clone())
        .tool(delete_record::tool())
        .tool(archive_record::tool())
        .tool(rename_record::tool())
        .tasks(TaskOptions::new())
        .build()
        .unwrap();
    (server, runs)
}

/// A modern in-memory client whose user answers every question with `action` (and `name`
/// when a field is asked), recording the messages.
async fn client(server: &Server, action: &'static str, asked: Arc<Mutex<Vec<String>>>) -> Client {
    let handler = InputHandler::new().on_elicit(move |params| {
        let asked = asked.clone();
        async move {
            asked.lock().unwrap().push(params.message.clone());
            Ok(match action {
                "accept" => ElicitResult::accept(json!({"name": "Ada"}).as_object().cloned()),
                "decline" => ElicitResult::decline(),
                _ => ElicitResult::cancel(),
            })
        }
    });
    let client = Client::memory(server).with_input_handler(handler);
    client.connect(EraMode::Modern).await.unwrap();
    client
}

async fn bounded<T>(f: impl std::future::Future<Output = T>) -> T {
    tokio::time::timeout(Duration::from_secs(60), f)
        .await
        .expect("answered within 60 s")
}

#[tokio::test]
async fn a_task_tool_runs_as_a_task_only_on_accept() {
    for (action, runs_expected) in [("accept", 1), ("decline", 0), ("cancel", 0)] {
        let (server, runs) = records();
        let asked = Arc::default();
        let client = client(&server, action, Arc::clone(&asked)).await;
        let seen: Arc<Mutex<Vec<String>>> = Arc::default();
        let record = seen.clone();
        let result = bounded(client.call_tool_watching(
            "delete_record",
            json!({"id": 7}),
            move |task| record.lock().unwrap().push(task.task.task_id.clone()),
        ))
        .await
        .unwrap();
        let seen = seen.lock().unwrap().clone();
        // The question comes in the call's first round, before the task exists; a required
        // task tool answers with a task either way, and an accepted call runs in it.
        assert!(!seen.is_empty(), "{action}: {seen:?}");
        assert_eq!(*asked.lock().unwrap(), ["Delete record 7?"], "{action}");
        assert_eq!(runs.0.load(Ordering::SeqCst), runs_expected, "{action}");
        if action == "accept" {
            assert_eq!(result.first_text(), Some("deleted 7 (task: true)"));
        } else {
            assert!(result.is_error(), "{action}: {result:?}");
        }
    }
}

#[tokio::test]
async fn a_tool_may_run_when_the_client_cannot_be_asked_and_refuses_otherwise() {
    for era in [EraMode::Legacy, EraMode::Modern] {
        let (server, runs) = records();
        // Declares no elicitation.
        let client = Client::memory(&server);
        client.connect(era).await.unwrap();
        let archived = client
            .call_tool("archive_record", json!({"id": 1}))
            .await
            .unwrap();
        assert_eq!(archived.first_text(), Some("archived 1"), "{era:?}");
        let renamed = client
            .call_tool("rename_record", json!({"id": 1}))
            .await
            .unwrap();
        assert!(renamed.is_error(), "{era:?}: {renamed:?}");
        assert!(
            renamed.first_text().unwrap().contains("could not be asked"),
            "{era:?}: {renamed:?}"
        );
        assert_eq!(
            runs.0.load(Ordering::SeqCst),
            1,
            "{era:?}: only archive ran"
        );
    }
}

#[tokio::test]
async fn the_tools_own_questions_follow_the_confirmation_and_bad_arguments_ask_nothing() {
    let (server, runs) = records();
    let asked: Arc<Mutex<Vec<String>>> = Arc::default();
    let client = client(&server, "accept", Arc::clone(&asked)).await;
    let renamed = bounded(client.call_tool("rename_record", json!({"id": 3})))
        .await
        .unwrap();
    assert_eq!(renamed.first_text(), Some("renamed 3 to Ada"));
    let asked_now = asked.lock().unwrap().clone();
    assert_eq!(asked_now.len(), 2, "{asked_now:?}");
    assert!(asked_now[0].starts_with("Allow the tool `rename_record` to run?"));
    assert_eq!(asked_now[1], "New name?");
    // The tool's body runs once per round after the confirmation: two rounds.
    assert!(runs.0.load(Ordering::SeqCst) >= 1);

    asked.lock().unwrap().clear();
    let refused = client
        .call_tool("archive_record", json!({"id": "not a number"}))
        .await
        .unwrap();
    assert!(refused.is_error(), "{refused:?}");
    assert!(refused.first_text().unwrap().contains("Invalid arguments"));
    assert!(
        asked.lock().unwrap().is_empty(),
        "nobody is asked about a refused call"
    );
}

/// Replaces the notes.
#[mcp_tool(destructive)]
async fn replace_notes(State(runs): State<Runs>) -> &'static str {
    runs.0.fetch_add(1, Ordering::SeqCst);
    "replaced"
}

/// Reads the notes.
#[mcp_tool(read_only)]
async fn read_notes() -> &'static str {
    "notes"
}

#[tokio::test]
async fn the_server_wide_switch_asks_before_every_destructive_tool() {
    let runs = Runs::default();
    let server = Server::builder("notes", "1.0.0")
        .state(runs.clone())
        .tool(replace_notes::tool())
        .tool(read_notes::tool())
        .confirm_destructive(Confirm::new())
        .build()
        .unwrap();
    for era in [EraMode::Legacy, EraMode::Modern] {
        let asked: Arc<Mutex<Vec<String>>> = Arc::default();
        let handler_asked = asked.clone();
        let client = Client::memory(&server).with_input_handler(InputHandler::new().on_elicit(
            move |params| {
                handler_asked.lock().unwrap().push(params.message.clone());
                async { Ok(ElicitResult::decline()) }
            },
        ));
        client.connect(era).await.unwrap();
        let refused = client.call_tool("replace_notes", json!({})).await.unwrap();
        assert!(refused.is_error(), "{era:?}: {refused:?}");
        let read = client.call_tool("read_notes", json!({})).await.unwrap();
        assert_eq!(read.first_text(), Some("notes"));
        assert_eq!(
            *asked.lock().unwrap(),
            ["Allow the tool `replace_notes` to run?"],
            "{era:?}"
        );
    }
    assert_eq!(runs.0.load(Ordering::SeqCst), 0);
    // A template naming no argument is refused at registration.
    let bad = Server::builder("notes", "1.0.0")
        .state(runs)
        .tool(tool_fn_with_bad_template())
        .build();
    let Err(error) = bad else {
        panic!("a template naming no argument is refused")
    };
    let error = error.to_string();
    assert!(error.contains("has no argument `file`"), "{error}");
}

/// A hand-written tool whose confirmation names an argument it does not have.
fn tool_fn_with_bad_template() -> impl mcp_runtime::tool::Tool {
    struct Bad;
    impl mcp_runtime::tool::Tool for Bad {
        fn definition(&self) -> mcp_runtime::protocol::ToolDefinition {
            mcp_runtime::protocol::ToolDefinition::new(
                "bad",
                "Deletes.",
                json!({"type": "object", "properties": {"path": {"type": "string"}}}),
            )
        }
        fn policy(&self) -> mcp_runtime::tool::ToolPolicy {
            mcp_runtime::tool::ToolPolicy::new().confirm(Confirm::new().message("Delete {file}?"))
        }
        fn call(
            &self,
            _: mcp_runtime::protocol::JsonObject,
            _: RequestContext,
        ) -> futures::future::BoxFuture<'static, mcp_runtime::protocol::CallToolResult> {
            Box::pin(async { mcp_runtime::protocol::CallToolResult::text("never") })
        }
    }
    Bad
}
