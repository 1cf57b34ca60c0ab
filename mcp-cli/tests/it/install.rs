//! `install` on temporary configuration files for every client: unrelated entries kept
//! byte for byte, a `.bak` of the old file, the refusal cases (a different entry of the
//! same name, a file it cannot parse), `--force`, `--dry-run` and the default locations.
//!
//! `--binary` installs the example server without a release build.

use crate::support::*;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::Output;

/// Every client, the key its file keeps servers under, and a file as a person might have
/// left it: odd spacing, other servers and settings (and comments where the client's
/// format allows them).
fn clients() -> Vec<(&'static str, &'static str, &'static str)> {
    vec![
        (
            "claude-desktop",
            "mcpServers",
            "{\n  \"mcpServers\": {\n    \"github\": { \"command\": \"npx\",\n      \"args\": [\"-y\", \"@modelcontextprotocol/server-github\"], \"env\": {\"GITHUB_TOKEN\":\"x\"} },\n    \"time\":{\"command\":\"uvx\",\"args\":[\"mcp-server-time\"]}\n  },\n  \"globalShortcut\": \"Ctrl+Space\"\n}\n",
        ),
        (
            "claude-code",
            "mcpServers",
            "{\n  \"numStartups\": 12,\n  \"projects\": {\"/home/u/p\": {\"mcpServers\": {\"weather\": {\"command\": \"/old\"}}}},\n  \"mcpServers\": {\n    \"sentry\": {\"type\": \"http\", \"url\": \"https://mcp.sentry.dev/mcp\"}\n  }\n}\n",
        ),
        (
            "cursor",
            "mcpServers",
            "{\n\t\"mcpServers\": {\n\t\t\"notion\": {\"url\": \"https://mcp.notion.com/mcp\"}\n\t}\n}\n",
        ),
        (
            "vscode",
            "servers",
            "{\n  // Shared with the team.\n  \"inputs\": [{\"type\": \"promptString\", \"id\": \"token\", \"password\": true}],\n  \"servers\": {\n    \"playwright\": {\"command\": \"npx\", \"args\": [\"@playwright/mcp@latest\"]}, // browser\n  },\n}\n",
        ),
        (
            "json",
            "mcpServers",
            "{\"mcpServers\": {\"fetch\": {\"command\": \"uvx\", \"args\": [\"mcp-server-fetch\"]}}}\n",
        ),
    ]
}

/// The unrelated parts of each file above, exactly as written.
fn unrelated_parts(client: &str) -> Vec<&'static str> {
    match client {
        "claude-desktop" => vec![
            "\"github\": { \"command\": \"npx\",\n      \"args\": [\"-y\", \"@modelcontextprotocol/server-github\"], \"env\": {\"GITHUB_TOKEN\":\"x\"} }",
            "\"time\":{\"command\":\"uvx\",\"args\":[\"mcp-server-time\"]}",
            "\"globalShortcut\": \"Ctrl+Space\"\n}\n",
        ],
        "claude-code" => vec![
            "{\n  \"numStartups\": 12,\n  \"projects\": {\"/home/u/p\": {\"mcpServers\": {\"weather\": {\"command\": \"/old\"}}}},\n",
            "\"sentry\": {\"type\": \"http\", \"url\": \"https://mcp.sentry.dev/mcp\"}",
        ],
        "cursor" => vec![
            "{\n\t\"mcpServers\": {\n\t\t\"notion\": {\"url\": \"https://mcp.notion.com/mcp\"}",
        ],
        "vscode" => vec![
            "{\n  // Shared with the team.\n  \"inputs\": [{\"type\": \"promptString\", \"id\": \"token\", \"password\": true}],\n",
            "\"playwright\": {\"command\": \"npx\", \"args\": [\"@playwright/mcp@latest\"]}, // browser\n",
        ],
        "json" => vec!["\"fetch\": {\"command\": \"uvx\", \"args\": [\"mcp-server-fetch\"]}"],
        _ => unreachable!(),
    }
}

fn echo_server() -> PathBuf {
    mcp_tests::example_bin("echo-server")
        .canonicalize()
        .unwrap()
}

fn install(client: &str, config: &Path, extra: &[&str]) -> Output {
    output(
        cargo_mcp()
            .args(["install", client, "--name", "weather", "--binary"])
            .arg(echo_server())
            .arg("--config-path")
            .arg(config)
            .args(extra),
    )
}

/// Parses JSON with comments and trailing commas (VS Code's format) for checking.
fn parse_jsonc(text: &str) -> Value {
    jsonc_parser::cst::CstRootNode::parse(text, &jsonc_parser::ParseOptions::default())
        .ok()
        .and_then(|root| root.value())
        .and_then(|v| v.to_serde_value())
        .unwrap_or_else(|| panic!("parses: {text}"))
}

#[test]
fn every_client_keeps_unrelated_entries_byte_for_byte_and_a_backup() {
    for (client, key, original) in clients() {
        let tmp = outside_tempdir();
        let config = tmp.path().join("config.json");
        std::fs::write(&config, original).unwrap();

        let out = install(
            client,
            &config,
            &["--env", "UNITS=metric", "--", "--verbose"],
        );
        assert!(out.status.success(), "{client}: {}", show(&out));
        let text = std::fs::read_to_string(&config).unwrap();
        for part in unrelated_parts(client) {
            assert!(text.contains(part), "{client}: lost {part:?} in\n{text}");
        }
        let backup = tmp.path().join("config.json.bak");
        assert_eq!(
            std::fs::read_to_string(&backup).unwrap(),
            original,
            "{client}: .bak"
        );

        let parsed = parse_jsonc(&text);
        let entry = &parsed[key]["weather"];
        assert_eq!(entry["command"], json!(echo_server()), "{client}: {text}");
        assert_eq!(entry["args"], json!(["--verbose"]), "{client}");
        assert_eq!(entry["env"], json!({"UNITS": "metric"}), "{client}");
        if client == "vscode" || client == "claude-code" {
            assert_eq!(entry["type"], "stdio", "{client}");
        }

        // The same entry again: nothing to do, nothing written.
        std::fs::remove_file(&backup).unwrap();
        let again = install(
            client,
            &config,
            &["--env", "UNITS=metric", "--", "--verbose"],
        );
        assert!(again.status.success(), "{client}: {}", show(&again));
        assert!(
            stdout(&again).contains("nothing to do"),
            "{client}: {}",
            show(&again)
        );
        assert_eq!(std::fs::read_to_string(&config).unwrap(), text);
        assert!(!backup.exists(), "{client}: nothing written, no backup");
    }
}

#[test]
fn a_different_entry_of_the_same_name_is_refused_then_replaced_with_force() {
    for (client, key, original) in clients() {
        let tmp = outside_tempdir();
        let config = tmp.path().join("config.json");
        std::fs::write(&config, original).unwrap();
        assert!(install(client, &config, &[]).status.success(), "{client}");
        let installed = std::fs::read_to_string(&config).unwrap();

        let refused = install(client, &config, &["--env", "UNITS=imperial"]);
        assert_eq!(
            refused.status.code(),
            Some(4),
            "{client}: {}",
            show(&refused)
        );
        let err = stderr(&refused);
        assert!(
            err.contains("+  \"env\": {"),
            "{client}: the difference is shown:\n{err}"
        );
        assert!(
            err.contains("+    \"UNITS\": \"imperial\""),
            "{client}:\n{err}"
        );
        let last = err.lines().last().unwrap();
        assert!(
            last.starts_with("error: ")
                && last.contains("already has a different server named `weather`")
                && last.contains("--force"),
            "{client}: {last}"
        );
        assert_eq!(
            std::fs::read_to_string(&config).unwrap(),
            installed,
            "{client}: untouched"
        );

        let forced = install(client, &config, &["--env", "UNITS=imperial", "--force"]);
        assert!(forced.status.success(), "{client}: {}", show(&forced));
        assert!(
            stdout(&forced).starts_with("replaced `weather`"),
            "{}",
            show(&forced)
        );
        let text = std::fs::read_to_string(&config).unwrap();
        assert_eq!(
            parse_jsonc(&text)[key]["weather"]["env"]["UNITS"],
            "imperial",
            "{client}"
        );
        for part in unrelated_parts(client) {
            assert!(text.contains(part), "{client}: lost {part:?}");
        }
        assert_eq!(
            std::fs::read_to_string(tmp.path().join("config.json.bak")).unwrap(),
            installed
        );
    }
}

#[test]
fn an_unparsable_config_gets_the_snippet_and_is_left_alone() {
    for (client, key, _) in clients() {
        let tmp = outside_tempdir();
        let config = tmp.path().join("config.json");
        let broken = "{\n  \"mcpServers\": {\n    \"github\": {\"command\": \"npx\",,}\n";
        std::fs::write(&config, broken).unwrap();
        let out = install(client, &config, &[]);
        assert_eq!(out.status.code(), Some(4), "{client}: {}", show(&out));
        let snippet: Value =
            serde_json::from_slice(&out.stdout).expect("the snippet is JSON on stdout");
        assert_eq!(
            snippet[key]["weather"]["command"],
            json!(echo_server()),
            "{client}"
        );
        let err = stderr(&out);
        assert!(
            err.starts_with("error: cannot parse ") && err.contains("nothing was written"),
            "{client}: {err}"
        );
        assert_eq!(
            std::fs::read_to_string(&config).unwrap(),
            broken,
            "{client}"
        );
        assert!(!tmp.path().join("config.json.bak").exists(), "{client}");
    }
}

#[test]
fn dry_run_shows_the_change_and_writes_nothing() {
    let tmp = outside_tempdir();
    let config = tmp.path().join("config.json");
    let original = clients()[0].2;
    std::fs::write(&config, original).unwrap();
    let out = install("claude-desktop", &config, &["--dry-run"]);
    assert!(out.status.success(), "{}", show(&out));
    let diff = stdout(&out);
    assert!(diff.contains("+    \"weather\": {"), "{diff}");
    assert!(stderr(&out).contains("nothing was written"));
    assert_eq!(std::fs::read_to_string(&config).unwrap(), original);
    assert!(!tmp.path().join("config.json.bak").exists());
}

#[test]
fn missing_files_are_created_in_the_clients_usual_places() {
    let home = outside_tempdir();
    let project = outside_tempdir();
    let with_home = |client: &str| {
        output(
            cargo_mcp()
                .args(["install", client, "--binary"])
                .arg(echo_server())
                .current_dir(project.path())
                .env("HOME", home.path())
                .env_remove("XDG_CONFIG_HOME")
                .env_remove("APPDATA"),
        )
    };
    let expected = [
        ("cursor", home.path().join(".cursor/mcp.json"), "mcpServers"),
        (
            "claude-code",
            home.path().join(".claude.json"),
            "mcpServers",
        ),
        ("vscode", project.path().join(".vscode/mcp.json"), "servers"),
    ];
    for (client, path, key) in expected {
        let out = with_home(client);
        assert!(out.status.success(), "{client}: {}", show(&out));
        let parsed: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(
            parsed[key]["echo-server"]["command"],
            json!(echo_server()),
            "{client}"
        );
        assert!(
            !crate::support::backup_of(&path).exists(),
            "{client}: no old file, no backup"
        );
    }
    #[cfg(target_os = "linux")]
    {
        let out = with_home("claude-desktop");
        assert!(out.status.success(), "{}", show(&out));
        assert!(
            home.path()
                .join(".config/Claude/claude_desktop_config.json")
                .is_file()
        );
    }
    // `json` without a file prints the snippet.
    let out = with_home("json");
    let snippet: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(snippet["mcpServers"]["echo-server"]["args"], json!([]));
}

#[test]
fn outside_a_project_install_suggests_only_flags_it_takes() {
    let tmp = outside_tempdir();
    let out = output(
        cargo_mcp()
            .current_dir(tmp.path())
            .args(["install", "json", "--dry-run"]),
    );
    assert!(!out.status.success(), "{}", show(&out));
    let err = stderr(&out);
    assert!(
        err.contains(
            "no cargo project here; run inside one, or pass --manifest-path, --binary or --url"
        ),
        "{err}"
    );
    // `install` has no --command; it used to suggest it.
    assert!(!err.contains("--command"), "{err}");
    // `list` has them, and still suggests them.
    let out = output(cargo_mcp().current_dir(tmp.path()).args(["list"]));
    assert!(
        stderr(&out).contains("--manifest-path, --command or --url"),
        "{}",
        show(&out)
    );
}

/// A tiny cargo project with one binary, never built: `install --dry-run` and `install json`
/// must not build it.
fn unbuilt_project(dir: &Path) -> PathBuf {
    let project = dir.join("tiny");
    std::fs::create_dir_all(project.join("src")).unwrap();
    std::fs::write(
        project.join("Cargo.toml"),
        "[package]\nname = \"tiny\"\nversion = \"0.1.0\"\nedition = \"2024\"\n\n[workspace]\n",
    )
    .unwrap();
    std::fs::write(project.join("src/main.rs"), "fn main() {}\n").unwrap();
    project
}

#[test]
fn dry_run_and_json_build_nothing_and_say_where_the_binary_will_be() {
    let tmp = outside_tempdir();
    let project = unbuilt_project(tmp.path());
    let config = tmp.path().join("cursor.json");
    let release = project.join("target/release/tiny");
    let out = output(
        cargo_mcp()
            .current_dir(&project)
            .args(["install", "cursor", "--dry-run", "--config-path"])
            .arg(&config)
            .env_remove("CARGO_TARGET_DIR"),
    );
    assert!(out.status.success(), "{}", show(&out));
    assert!(
        stdout(&out).contains(&format!("\"command\": \"{}\"", release.display())),
        "{}",
        show(&out)
    );
    assert!(stderr(&out).contains("is not built yet"), "{}", show(&out));
    assert!(!config.exists());

    let out = output(
        cargo_mcp()
            .current_dir(&project)
            .args(["install", "json"])
            .env_remove("CARGO_TARGET_DIR"),
    );
    assert!(out.status.success(), "{}", show(&out));
    let snippet: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(snippet["mcpServers"]["tiny"]["command"], json!(release));
    assert!(
        !project.join("target").exists(),
        "nothing was built:\n{}",
        show(&out)
    );
}

#[test]
fn url_installs_an_http_entry_where_the_client_takes_one() {
    let tmp = outside_tempdir();
    let config = tmp.path().join("mcp.json");
    let out = output(
        cargo_mcp()
            .args([
                "install",
                "vscode",
                "--url",
                "http://127.0.0.1:8080/mcp",
                "--name",
                "remote",
                "--header",
                "Authorization=Bearer t0ken",
                "--config-path",
            ])
            .arg(&config),
    );
    assert!(out.status.success(), "{}", show(&out));
    let parsed = parse_jsonc(&std::fs::read_to_string(&config).unwrap());
    assert_eq!(
        parsed["servers"]["remote"],
        json!({"type": "http", "url": "http://127.0.0.1:8080/mcp", "headers": {"Authorization": "Bearer t0ken"}})
    );

    // Claude Desktop's file takes no URLs: a usage error that says where they go.
    let out = output(cargo_mcp().args([
        "install",
        "claude-desktop",
        "--url",
        "http://127.0.0.1:8080/mcp",
        "--name",
        "remote",
        "--dry-run",
    ]));
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    assert!(stderr(&out).contains("Connectors"), "{}", show(&out));
}

#[test]
fn vscode_names_a_binary_inside_the_workspace_by_workspace_folder() {
    let tmp = outside_tempdir();
    let workspace = tmp.path().join("proj");
    std::fs::create_dir_all(workspace.join("bin")).unwrap();
    let binary = workspace.join("bin/echo-server");
    std::fs::copy(echo_server(), &binary).unwrap();
    let config = workspace.join(".vscode/mcp.json");
    let out = install("vscode", &config, &[]);
    assert!(out.status.success(), "{}", show(&out));
    // `install` above names the example server outside the workspace: absolute.
    let parsed = parse_jsonc(&std::fs::read_to_string(&config).unwrap());
    assert_eq!(
        parsed["servers"]["weather"]["command"],
        json!(echo_server())
    );

    let out = output(
        cargo_mcp()
            .args(["install", "vscode", "--name", "inside", "--binary"])
            .arg(&binary)
            .arg("--config-path")
            .arg(&config),
    );
    assert!(out.status.success(), "{}", show(&out));
    let parsed = parse_jsonc(&std::fs::read_to_string(&config).unwrap());
    assert_eq!(
        parsed["servers"]["inside"]["command"],
        json!("${workspaceFolder}/bin/echo-server")
    );
}

#[test]
fn uninstall_removes_only_the_entry_and_keeps_a_backup() {
    for (client, key, original) in clients() {
        let tmp = outside_tempdir();
        let config = tmp.path().join("config.json");
        std::fs::write(&config, original).unwrap();
        let out = install(client, &config, &[]);
        assert!(out.status.success(), "{client}: {}", show(&out));

        let uninstall = |extra: &[&str]| {
            output(
                cargo_mcp()
                    .args(["uninstall", client, "--name", "weather", "--config-path"])
                    .arg(&config)
                    .args(extra),
            )
        };
        let out = uninstall(&["--dry-run"]);
        assert!(out.status.success(), "{client}: {}", show(&out));
        assert!(
            stdout(&out)
                .lines()
                .any(|l| l.starts_with('-') && l.contains("\"weather\"")),
            "{}",
            show(&out)
        );
        assert!(
            parse_jsonc(&std::fs::read_to_string(&config).unwrap())[key]["weather"].is_object()
        );

        let out = uninstall(&[]);
        assert!(out.status.success(), "{client}: {}", show(&out));
        let after = std::fs::read_to_string(&config).unwrap();
        assert!(
            parse_jsonc(&after)[key].get("weather").is_none(),
            "{client}: {after}"
        );
        for part in unrelated_parts(client) {
            assert!(after.contains(part), "{client}: lost {part:?} in\n{after}");
        }
        assert!(backup_of(&config).is_file(), "{client}");

        let out = uninstall(&[]);
        assert!(out.status.success(), "{client}: {}", show(&out));
        assert!(stdout(&out).contains("nothing to do"), "{}", show(&out));
    }
}
