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

/// Runs `git` in `dir` for the test's setup (never through the server).
fn git(dir: &std::path::Path, args: &[&str]) {
    let status = std::process::Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", dir)
        .stdout(std::process::Stdio::null())
        .status()
        .expect("git runs");
    assert!(status.success(), "git {args:?}");
}

/// Review #40 item 6, with the reference server's configuration (`ALLOW_COMMANDS` names
/// only): ordinary `find`, `git` and `grep` calls inside the root run (they were refused),
/// and each form that runs another program, writes elsewhere or reads outside the root is
/// refused; children get `HOME` = the root.
#[tokio::test]
async fn the_reference_configuration_runs_ordinary_calls_and_refuses_executing_forms() {
    let root = tempfile::tempdir().unwrap();
    let dir = std::fs::canonicalize(root.path()).unwrap();
    std::fs::write(dir.join("notes.txt"), "TODO: ship\nline two\n").unwrap();
    std::fs::write(dir.join("data.csv"), "a,1\nb,7\n").unwrap();
    git(&dir, &["init", "-q"]);
    git(&dir, &["add", "."]);
    git(&dir, &["commit", "-q", "-m", "first commit"]);
    let outside = tempfile::tempdir().unwrap();
    let witness = outside.path().join("written");
    let w = witness.to_str().unwrap().to_owned();
    let d = dir.to_str().unwrap().to_owned();
    let client = command_server(
        &dir,
        &[(
            "ALLOW_COMMANDS",
            "ls,cat,pwd,grep,wc,touch,find,git,sed,awk,xargs,env,tar,nice",
        )],
        &[],
    )
    .await;
    let run = |command: Value| {
        let client = &client;
        let d = d.clone();
        async move { execute(client, json!({"command": command, "directory": d})).await }
    };
    for (command, expected) in [
        (json!(["find", ".", "-name", "*.txt"]), "./notes.txt"),
        (json!(["git", "log", "--oneline", "-1"]), "first commit"),
        (json!(["git", "status", "--short"]), ""),
        (
            json!(["grep", "-rn", "TODO", "."]),
            "notes.txt:1:TODO: ship",
        ),
        (json!(["sed", "-n", "2p", "notes.txt"]), "line two"),
        (
            json!(["awk", "-F", ",", "$2 < 5 { print $1 }", "data.csv"]),
            "a",
        ),
        (json!(["wc", "-l", "notes.txt"]), "2 notes.txt"),
        (json!(["env"]), &format!("HOME={d}")),
    ] {
        let r = run(command.clone()).await;
        assert!(!r.is_error(), "{command}: {r:?}");
        let stdout = r.structured_content.as_ref().unwrap()["stdout"]
            .as_str()
            .unwrap()
            .to_owned();
        assert!(stdout.contains(expected), "{command}: {stdout}");
    }
    let refused = [
        json!(["find", ".", "-exec", "touch", w, ";"]),
        json!(["find", ".", "-execdir", "sh", "-c", "id", ";"]),
        json!(["find", ".", "-ok", "rm", "{}", ";"]),
        json!(["find", ".", "-delete"]),
        json!(["find", ".", "-fprint", w]),
        json!(["git", "-c", "core.pager=touch /tmp/x", "log"]),
        json!(["git", "--exec-path=/tmp", "log"]),
        json!(["git", "-C", "/", "log"]),
        json!(["git", "--git-dir=/tmp/x", "log"]),
        json!(["git", "clone", "--upload-pack=touch x", "."]),
        json!(["git", "config", "core.fsmonitor", "touch x"]),
        json!(["sed", "-i", "s/a/b/", "notes.txt"]),
        json!(["awk", "BEGIN { system(\"touch x\") }"]),
        json!(["awk", "{ print | \"sh\" }", "notes.txt"]),
        json!(["xargs", "sh"]),
        json!(["env", "sh", "-c", "id"]),
        json!(["nice", "sh"]),
        json!(["tar", "-cf", "a.tar", "--to-command=sh", "notes.txt"]),
        json!([
            "tar",
            "-cf",
            "a.tar",
            "--checkpoint-action=exec=sh",
            "notes.txt"
        ]),
        json!(["cat", "/etc/hostname"]),
        json!(["ls", "../../.."]),
        json!(["grep", "-r", "root", "/etc"]),
    ];
    for command in refused {
        let r = run(command.clone()).await;
        assert!(
            r.is_error() && texts(&r).contains("refused"),
            "{command}: {r:?}"
        );
    }
    // sed's own commands that run or write are refused by sed itself (`--sandbox`).
    for script in ["1e touch x", &format!("w {w}")] {
        let r = run(json!(["sed", script, "notes.txt"])).await;
        assert!(r.is_error(), "{script}: {r:?}");
    }
    assert!(!witness.exists());
    assert!(!dir.join("x").exists());
}
