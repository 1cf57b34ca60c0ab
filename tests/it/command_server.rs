//! `command-server` end to end: the reference shell server's tool over the `CommandService`
//! (the service's own cases, grandchildren, limits and path tricks, are its unit tests).

use crate::fs_support::guarded;
use crate::fs_tools_support::connect;
use mcp_runtime::client::{Client, EraMode};
use mcp_runtime::protocol::CallToolResult;
use serde_json::{Value, json};

async fn command_server(root: &std::path::Path, env: &[(&str, &str)], args: &[&str]) -> Client {
    let mut cmd = tokio::process::Command::new(mcp_tests::example_bin("command-server"));
    cmd.arg("--root").arg(root).args(args);
    cmd.env_remove("ALLOW_COMMANDS")
        .env_remove("ALLOWED_COMMANDS");
    for (k, v) in env {
        cmd.env(k, v);
    }
    connect(cmd, EraMode::Modern).await
}

async fn execute(client: &Client, args: Value) -> CallToolResult {
    guarded(client.call_tool("shell_execute", args))
        .await
        .unwrap()
}

fn texts(r: &CallToolResult) -> String {
    r.content
        .iter()
        .filter_map(|c| c.as_text())
        .collect::<Vec<_>>()
        .join("\n")
}

#[tokio::test]
async fn the_reference_tool_runs_allowed_programs_without_a_shell() {
    let root = tempfile::tempdir().unwrap();
    std::fs::create_dir(root.path().join("sub")).unwrap();
    std::fs::write(root.path().join("sub/-R"), "").unwrap();
    let dir = root.path().to_str().unwrap().to_owned();
    let client = command_server(
        root.path(),
        &[("ALLOW_COMMANDS", "pwd, cat")],
        &[
            "--allow", "echo *", "--allow", "ls -a --", "--allow", "sleep",
        ],
    )
    .await;

    let tools = guarded(client.list_tools()).await.unwrap();
    let tool = tools.iter().find(|t| t.name == "shell_execute").unwrap();
    let schema = serde_json::to_value(&tool.input_schema).unwrap();
    let mut required: Vec<String> = serde_json::from_value(schema["required"].clone()).unwrap();
    required.sort();
    assert_eq!(required, ["command", "directory"], "{schema}");
    assert_eq!(schema["properties"]["command"]["type"], "array", "{schema}");

    let hostile = "a; touch pwned && $(id) | `id`";
    let r = execute(
        &client,
        json!({"command": ["echo", hostile], "directory": dir}),
    )
    .await;
    assert!(!r.is_error(), "{r:?}");
    assert_eq!(
        r.structured_content.as_ref().unwrap()["stdout"],
        format!("{hostile}\n")
    );
    assert_eq!(r.structured_content.as_ref().unwrap()["status"], 0);
    assert!(!root.path().join("pwned").exists());

    let r = execute(
        &client,
        json!({"command": ["ls", "-a", "-R"], "directory": format!("{dir}/sub")}),
    )
    .await;
    assert!(r.is_error() && texts(&r).contains("refused"), "{r:?}");
    let r = execute(
        &client,
        json!({"command": ["ls", "--", "-R"], "directory": format!("{dir}/sub")}),
    )
    .await;
    assert_eq!(
        r.structured_content.as_ref().unwrap()["stdout"],
        "-R\n",
        "{r:?}"
    );

    let r = execute(
        &client,
        json!({"command": ["pwd"], "directory": format!("{dir}/sub")}),
    )
    .await;
    let here = std::fs::canonicalize(root.path().join("sub")).unwrap();
    assert_eq!(
        r.structured_content.as_ref().unwrap()["stdout"],
        format!("{}\n", here.display()),
        "{r:?}"
    );
    let r = execute(
        &client,
        json!({"command": ["cat"], "directory": dir, "stdin": "piped"}),
    )
    .await;
    assert_eq!(r.structured_content.as_ref().unwrap()["stdout"], "piped");

    for (command, why) in [
        (json!(["sh", "-c", "id"]), "not allowed"),
        (json!(["/bin/echo", "x"]), "not allowed"),
        (json!([]), "No command"),
    ] {
        let r = execute(&client, json!({"command": command, "directory": dir})).await;
        assert!(r.is_error() && texts(&r).contains(why), "{command}: {r:?}");
    }
    let r = execute(&client, json!({"command": ["pwd"], "directory": "/etc"})).await;
    assert!(
        r.is_error() && texts(&r).contains("working directory"),
        "{r:?}"
    );

    let r = execute(
        &client,
        json!({"command": ["sleep", "30"], "directory": dir, "timeout": 1}),
    )
    .await;
    assert!(r.is_error() && texts(&r).contains("timed out"), "{r:?}");
    assert_eq!(r.structured_content.as_ref().unwrap()["timed_out"], true);

    let r = execute(
        &client,
        json!({"command": ["ls", "missing-file"], "directory": dir}),
    )
    .await;
    assert!(r.is_error() && texts(&r).contains("exit code"), "{r:?}");
}

#[test]
fn a_bad_allow_spec_is_a_usage_error() {
    let out = std::process::Command::new(mcp_tests::example_bin("command-server"))
        .args(["--allow", "ls notanoption"])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = std::process::Command::new(mcp_tests::example_bin("command-server"))
        .args(["--allow", "no-such-program-xyz"])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no-such-program-xyz"));
}

#[tokio::test]
async fn output_arrives_as_progress_while_the_program_runs() {
    let root = tempfile::tempdir().unwrap();
    let mut cmd = tokio::process::Command::new(mcp_tests::example_bin("command-server"));
    cmd.arg("--root")
        .arg(root.path())
        .args(["--allow", "echo *"])
        .env_remove("ALLOW_COMMANDS")
        .env_remove("ALLOWED_COMMANDS");
    let client = connect(cmd, EraMode::Legacy).await;
    let mut unrouted = client.take_unrouted().unwrap();
    let r = guarded(client.request(
        "tools/call",
        Some(json!({
            "name": "shell_execute",
            "arguments": {"command": ["echo", "hello"], "directory": root.path()},
            "_meta": {"progressToken": "run-1"},
        })),
    ))
    .await
    .unwrap();
    assert_eq!(r["structuredContent"]["stdout"], "hello\n", "{r}");
    let mut messages = Vec::new();
    while let Ok(n) = unrouted.try_recv() {
        if n["method"] == "notifications/progress" {
            assert_eq!(n["params"]["progressToken"], "run-1");
            messages.push(n["params"]["message"].as_str().unwrap_or("").to_owned());
        }
    }
    assert_eq!(messages, ["stdout: hello\n"]);
}
