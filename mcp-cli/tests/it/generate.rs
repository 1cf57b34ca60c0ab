//! Every template, generated with the default command (`cargo mcp new NAME`, which points a
//! CLI built from this checkout at the checkout's runtime) into a temporary folder outside
//! the workspace, builds and passes its own `cargo test` (and `cargo fmt --check`); `list`, `schema --check`, `doctor` and `install` then work on it as the
//! current project. One more project is generated inside a temporary cargo workspace, once
//! joining its members and once standing alone, and both build.
//!
//! All builds share one target folder (`target/cli-generated`), and every project is pinned
//! to the toolkit's `Cargo.lock`, so the dependencies compile once.

use crate::support::*;
use std::path::Path;

/// Generates `template` outside the workspace and runs its tests; returns the temporary
/// folder and the project folder.
fn generated_and_tested(template: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let tmp = outside_tempdir();
    let name = format!("demo-{template}");
    let project = generate_default(tmp.path(), &name, &["--template", template]);
    pin_dependencies(&project);
    let test = cargo_in(&project, &["test", "--quiet"]);
    assert!(
        test.status.success(),
        "cargo test of the {template} template failed:\n{}",
        show(&test)
    );
    let fmt = cargo_in(&project, &["fmt", "--check"]);
    assert!(
        fmt.status.success(),
        "the {template} template is not rustfmt-clean:\n{}",
        show(&fmt)
    );
    (tmp, project)
}

/// `cargo-mcp <args>` in `project`, building into the shared target folder.
fn cargo_mcp_in(project: &Path, args: &[&str]) -> std::process::Output {
    output(in_generated_target(cargo_mcp().current_dir(project)).args(args))
}

#[test]
fn the_stdio_template_passes_its_tests_and_works_as_the_current_project() {
    let (tmp, project) = generated_and_tested("stdio");

    let list = cargo_mcp_in(&project, &["list"]);
    assert!(list.status.success(), "{}", show(&list));
    let text = stdout(&list);
    assert!(text.contains("demo-stdio 0.1.0: 2 tools"), "{text}");
    assert!(
        text.contains("add ") && text.contains("text_stats "),
        "{text}"
    );

    let check = cargo_mcp_in(
        &project,
        &["schema", "--check", "tests/snapshots/tools.json"],
    );
    assert!(
        check.status.success(),
        "the committed snapshot matches:\n{}",
        show(&check)
    );

    let call = cargo_mcp_in(
        &project,
        &["call", "text_stats", "text=a b c", "--era", "legacy"],
    );
    assert!(call.status.success(), "{}", show(&call));
    assert!(stdout(&call).contains("\"words\":3"), "{}", show(&call));

    let doctor = cargo_mcp_in(&project, &["doctor"]);
    assert!(doctor.status.success(), "{}", show(&doctor));
    assert!(
        stdout(&doctor).contains("matches the project's toolkit"),
        "{}",
        show(&doctor)
    );
    assert!(
        stdout(&doctor).contains("answers `initialize` and writes only protocol messages"),
        "{}",
        show(&doctor)
    );

    // `install` builds the project (the dev profile here, to reuse the build) and writes
    // the absolute path of its binary.
    let config = tmp.path().join("claude_desktop_config.json");
    let install = cargo_mcp_in(
        &project,
        &[
            "install",
            "claude-desktop",
            "--profile",
            "dev",
            "--config-path",
            config.to_str().unwrap(),
        ],
    );
    assert!(install.status.success(), "{}", show(&install));
    let written: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&config).unwrap()).unwrap();
    let command = written["mcpServers"]["demo-stdio"]["command"]
        .as_str()
        .unwrap();
    let binary = generated_target_dir().join("debug/demo-stdio");
    assert!(Path::new(command).is_absolute(), "{command}");
    assert_eq!(
        Path::new(command).canonicalize().unwrap(),
        binary.canonicalize().unwrap()
    );

    // The template's own dev profile (line tables for the project, no debug info for the
    // dependencies) keeps a debug binary small; without it this one was 136 MB. Built here
    // without the tests' debug-info override, so the profile is the template's.
    let build = output(
        in_generated_target(
            std::process::Command::new(std::env::var("CARGO").unwrap_or("cargo".into()))
                .args(["build", "--quiet"])
                .current_dir(&project),
        )
        .env_remove("CARGO_PROFILE_DEV_DEBUG")
        .stdin(std::process::Stdio::null()),
    );
    assert!(build.status.success(), "{}", show(&build));
    let size = std::fs::metadata(&binary).unwrap().len();
    assert!(
        size < 64 << 20,
        "a debug binary of the stdio template takes {size} bytes"
    );

    // Built without the HTTP stack and OpenTelemetry, the server says which feature to add
    // when asked for them: `--transport http` stops (usage, 2) before serving anything, and
    // an OTLP endpoint gets a warning while the server serves on.
    let http = output(
        std::process::Command::new(&binary)
            .args(["--transport", "http"])
            .env_remove("OTEL_EXPORTER_OTLP_ENDPOINT")
            .stdin(std::process::Stdio::null()),
    );
    assert_eq!(http.status.code(), Some(2), "{}", show(&http));
    let said = String::from_utf8_lossy(&http.stderr);
    assert!(
        said.contains("--transport http needs mcp-runtime's `http` feature")
            && said.contains("Cargo.toml"),
        "{said}"
    );
    let request = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":2,"b":3}}}"#;
    let mut child = std::process::Command::new(&binary)
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:9")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write as _;
        let mut stdin = child.stdin.take().unwrap();
        writeln!(stdin, "{request}").unwrap();
    }
    let otel = child.wait_with_output().unwrap();
    assert!(otel.status.success(), "{}", show(&otel));
    assert!(
        String::from_utf8_lossy(&otel.stdout).contains(r#""text":"5""#),
        "{}",
        show(&otel)
    );
    let said = String::from_utf8_lossy(&otel.stderr);
    assert!(
        said.contains("OTEL_EXPORTER_OTLP_ENDPOINT asks for OpenTelemetry export")
            && said.contains("`otel` feature"),
        "{said}"
    );
}

#[test]
fn the_http_template_passes_its_tests() {
    let (_tmp, project) = generated_and_tested("http");
    let manifest = std::fs::read_to_string(project.join("Cargo.toml")).unwrap();
    assert!(manifest.contains("template = \"http\""), "{manifest}");
    // Replicas share state through Redis: the flag and its variable are there.
    let help = cargo_in(&project, &["run", "--quiet", "--", "--help"]);
    assert!(help.status.success(), "{}", show(&help));
    let help = stdout(&help);
    assert!(
        help.contains("--redis <URL>") && help.contains("MCP_REDIS_URL"),
        "{help}"
    );
}

#[test]
fn the_files_template_passes_its_tests_and_serves_the_directory_given() {
    let (tmp, project) = generated_and_tested("files");
    let served = tmp.path().join("served");
    std::fs::create_dir(&served).unwrap();
    std::fs::write(served.join("note.txt"), "from the CLI").unwrap();
    let call = cargo_mcp_in(
        &project,
        &[
            "call",
            "read_file",
            "path=note.txt",
            "--",
            served.to_str().unwrap(),
        ],
    );
    assert!(call.status.success(), "{}", show(&call));
    assert_eq!(stdout(&call), "from the CLI\n");
    let escape = cargo_mcp_in(
        &project,
        &[
            "call",
            "read_file",
            "path=../served/../../etc/passwd",
            "--",
            served.to_str().unwrap(),
        ],
    );
    assert_eq!(
        escape.status.code(),
        Some(3),
        "refused as a tool error:\n{}",
        show(&escape)
    );
}

#[test]
fn the_app_template_builds_its_view_and_passes_its_tests() {
    // `cargo test` ran `build.rs`: `npm ci` from the pinned lock, then Vite.
    let (_tmp, project) = generated_and_tested("app");
    let built = std::fs::read_to_string(project.join("ui/dist/index.html")).unwrap();
    assert!(
        built.contains("callServerTool") && !built.contains("src=\"./src/app.js\""),
        "one self-contained document with the ext-apps App class"
    );
    let list = cargo_mcp_in(&project, &["list"]);
    assert!(list.status.success(), "{}", show(&list));
    assert!(
        stdout(&list).contains("[view ui://demo-app/stats]"),
        "{}",
        show(&list)
    );
    let read = cargo_mcp_in(&project, &["read", "ui://demo-app/stats"]);
    assert!(read.status.success(), "{}", show(&read));
    assert!(stdout(&read).contains("<!doctype html>"), "{}", show(&read));
    let call = cargo_mcp_in(&project, &["call", "text_stats", "text=one two"]);
    assert!(call.status.success(), "{}", show(&call));
    assert!(stdout(&call).contains("\"words\":2"), "{}", show(&call));
}

#[test]
fn a_project_inside_a_workspace_joins_it_or_stands_alone_and_both_build() {
    let tmp = outside_tempdir();
    let root = tmp.path();
    std::fs::write(
        root.join("Cargo.toml"),
        "[workspace]\nresolver = \"3\"\nmembers = []\n",
    )
    .unwrap();
    pin_dependencies(root);
    std::fs::create_dir(root.join("servers")).unwrap();

    let joined = generate(&root.join("servers"), "joined", &[]);
    let workspace = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    assert!(
        workspace.contains("members = [\"servers/joined\"]"),
        "{workspace}"
    );
    let build = cargo_in(&joined, &["build", "--quiet"]);
    assert!(
        build.status.success(),
        "the member builds:\n{}",
        show(&build)
    );

    let alone = generate(&root.join("servers"), "alone", &["--standalone"]);
    let manifest = std::fs::read_to_string(alone.join("Cargo.toml")).unwrap();
    assert!(manifest.contains("\n[workspace]\n"), "{manifest}");
    let workspace_after = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    assert_eq!(
        workspace_after, workspace,
        "a standalone project leaves the workspace alone"
    );
    pin_dependencies(&alone);
    let build = cargo_in(&alone, &["build", "--quiet"]);
    assert!(
        build.status.success(),
        "the standalone project builds:\n{}",
        show(&build)
    );
}

/// A stdio project serves Streamable HTTP once the one documented word is added (`"http"`
/// in the runtime dependency's features, as its Cargo.toml and README say), and a client
/// calls its tool there.
#[test]
fn a_stdio_project_serves_http_once_its_http_feature_is_on() {
    use std::io::BufRead as _;
    let tmp = outside_tempdir();
    let project = generate_default(tmp.path(), "demo-with-http", &[]);
    pin_dependencies(&project);
    let manifest = project.join("Cargo.toml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    let edited = text.replace(
        r#"features = ["launch", "skills"]"#,
        r#"features = ["launch", "skills", "http"]"#,
    );
    assert_ne!(
        edited, text,
        "the manifest names the runtime's features:\n{text}"
    );
    std::fs::write(&manifest, edited).unwrap();
    let build = cargo_in(&project, &["build", "--quiet"]);
    assert!(build.status.success(), "{}", show(&build));

    let mut server =
        std::process::Command::new(generated_target_dir().join("debug/demo-with-http"))
            .args(["--transport", "http", "--bind", "127.0.0.1:0"])
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
    // The URL is the last word of the line the launcher prints once it listens; the rest
    // of stderr (the audit trail) is read on, so the server never writes into a closed pipe.
    let stderr = std::io::BufReader::new(server.stderr.take().unwrap());
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in stderr.lines().map_while(Result::ok) {
            if line.contains("serving MCP over Streamable HTTP at") {
                let _ = tx.send(
                    line.split_whitespace()
                        .last()
                        .unwrap_or_default()
                        .to_owned(),
                );
            }
        }
    });
    let url = rx
        .recv_timeout(std::time::Duration::from_secs(120))
        .expect("the server prints its URL");
    let call = output(cargo_mcp().args(["call", "add", "a=2", "b=3", "--url", &url]));
    let _ = server.kill();
    let _ = server.wait();
    assert_eq!(stdout(&call), "5\n", "{}", show(&call));
}
