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

/// What a cloned repository can plant, and a file it must never touch: a private key list
/// outside the project.
#[cfg(unix)]
struct Planted {
    _tmp: tempfile::TempDir,
    project: PathBuf,
    victim: PathBuf,
}

#[cfg(unix)]
const VICTIM: &str = "ssh-ed25519 AAAA the-user's-own-key\n";

#[cfg(unix)]
fn planted() -> Planted {
    use std::os::unix::fs::PermissionsExt;
    let tmp = outside_tempdir();
    let project = tmp.path().join("cloned");
    std::fs::create_dir_all(project.join(".vscode")).unwrap();
    let victim = tmp.path().join("authorized_keys");
    std::fs::write(&victim, VICTIM).unwrap();
    std::fs::set_permissions(&victim, std::fs::Permissions::from_mode(0o600)).unwrap();
    Planted {
        _tmp: tmp,
        project,
        victim,
    }
}

#[cfg(unix)]
fn assert_untouched(victim: &Path) {
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(std::fs::read_to_string(victim).unwrap(), VICTIM);
    let mode = std::fs::metadata(victim).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "the victim's mode changed");
}

/// `install vscode --url` (nothing built) in a cloned repository, as the review's attack ran it.
#[cfg(unix)]
fn install_url_in(project: &Path, verb: &str) -> Output {
    let mut cmd = cargo_mcp();
    cmd.current_dir(project).arg(verb).arg("vscode");
    if verb == "install" {
        cmd.args(["--url", "http://127.0.0.1:8080/mcp"]);
    }
    output(cmd.args(["--name", "remote"]))
}

#[cfg(unix)]
#[test]
fn a_planted_backup_link_is_replaced_never_written_through() {
    let Planted {
        _tmp,
        project,
        victim,
    } = planted();
    let config = project.join(".vscode/mcp.json");
    let shipped = "{\"servers\": {}}\n";
    std::fs::write(&config, shipped).unwrap();
    let backup = backup_of(&config);
    std::os::unix::fs::symlink(&victim, &backup).unwrap();

    let out = install_url_in(&project, "install");
    assert!(out.status.success(), "{}", show(&out));
    assert_untouched(&victim);
    // The link itself was replaced by a plain file holding the old configuration.
    let meta = std::fs::symlink_metadata(&backup).unwrap();
    assert!(meta.file_type().is_file(), "{meta:?}");
    assert_eq!(std::fs::read_to_string(&backup).unwrap(), shipped);
    let parsed = parse_jsonc(&std::fs::read_to_string(&config).unwrap());
    assert_eq!(
        parsed["servers"]["remote"]["url"],
        "http://127.0.0.1:8080/mcp"
    );

    // Uninstall writes a backup too: plant the link again.
    std::fs::remove_file(&backup).unwrap();
    std::os::unix::fs::symlink(&victim, &backup).unwrap();
    let out = install_url_in(&project, "uninstall");
    assert!(out.status.success(), "{}", show(&out));
    assert_untouched(&victim);
    assert!(std::fs::symlink_metadata(&backup).unwrap().is_file());

    // A dangling link is not created through either.
    let nowhere = project.parent().unwrap().join("created-by-the-link");
    std::fs::remove_file(&backup).unwrap();
    std::os::unix::fs::symlink(&nowhere, &backup).unwrap();
    let out = install_url_in(&project, "install");
    assert!(out.status.success(), "{}", show(&out));
    assert!(!nowhere.exists(), "the backup followed a dangling link");
}

#[cfg(unix)]
#[test]
fn project_config_links_that_lead_out_of_the_project_are_refused() {
    // `.vscode` itself a link out of the project.
    let Planted {
        _tmp,
        project,
        victim,
    } = planted();
    let outside = project.parent().unwrap().join("elsewhere");
    std::fs::create_dir(&outside).unwrap();
    std::fs::remove_dir(project.join(".vscode")).unwrap();
    std::os::unix::fs::symlink(&outside, project.join(".vscode")).unwrap();
    let out = install_url_in(&project, "install");
    assert_eq!(out.status.code(), Some(4), "{}", show(&out));
    assert!(stderr(&out).contains("outside it"), "{}", show(&out));
    assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 0);

    // The file a link out of the project: a JSON file the merge could parse and edit.
    std::fs::remove_file(project.join(".vscode")).unwrap();
    std::fs::create_dir(project.join(".vscode")).unwrap();
    let other = outside.join("settings.json");
    std::fs::write(&other, "{}\n").unwrap();
    std::os::unix::fs::symlink(&other, project.join(".vscode/mcp.json")).unwrap();
    for verb in ["install", "uninstall"] {
        let out = install_url_in(&project, verb);
        assert_eq!(out.status.code(), Some(4), "{verb}: {}", show(&out));
    }
    assert_eq!(std::fs::read_to_string(&other).unwrap(), "{}\n");
    assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 1);

    // A link to nothing is refused with what it points to.
    std::fs::remove_file(project.join(".vscode/mcp.json")).unwrap();
    std::os::unix::fs::symlink(outside.join("missing"), project.join(".vscode/mcp.json")).unwrap();
    let out = install_url_in(&project, "install");
    assert_eq!(out.status.code(), Some(4), "{}", show(&out));
    assert!(stderr(&out).contains("does not resolve"), "{}", show(&out));
    assert!(!outside.join("missing").exists());
    assert_untouched(&victim);

    // A link that stays inside the project is followed, and stays a link.
    std::fs::remove_file(project.join(".vscode/mcp.json")).unwrap();
    std::fs::write(project.join("shared-mcp.json"), "{}\n").unwrap();
    std::os::unix::fs::symlink("../shared-mcp.json", project.join(".vscode/mcp.json")).unwrap();
    let out = install_url_in(&project, "install");
    assert!(out.status.success(), "{}", show(&out));
    assert!(
        std::fs::symlink_metadata(project.join(".vscode/mcp.json"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
    let parsed = parse_jsonc(&std::fs::read_to_string(project.join("shared-mcp.json")).unwrap());
    assert!(parsed["servers"]["remote"].is_object(), "{parsed}");
}

/// A dotfile manager links `~/.cursor/mcp.json` into its repository: the edit lands in the
/// linked file, the link stays a link, the backup sits beside the file it copies.
#[cfg(unix)]
#[test]
fn a_users_linked_config_is_edited_in_place_and_stays_a_link() {
    let home = outside_tempdir();
    let cwd = outside_tempdir();
    let dotfiles = home.path().join("dotfiles");
    std::fs::create_dir_all(&dotfiles).unwrap();
    std::fs::create_dir_all(home.path().join(".cursor")).unwrap();
    let real = dotfiles.join("cursor-mcp.json");
    std::fs::write(&real, "{\"mcpServers\": {}}\n").unwrap();
    let link = home.path().join(".cursor/mcp.json");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let out = output(
        cargo_mcp()
            .current_dir(cwd.path())
            .env("HOME", home.path())
            .args(["install", "cursor", "--name", "weather", "--binary"])
            .arg(echo_server()),
    );
    assert!(out.status.success(), "{}", show(&out));
    assert!(stdout(&out).contains("through a link"), "{}", show(&out));
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    let parsed: Value = serde_json::from_str(&std::fs::read_to_string(&real).unwrap()).unwrap();
    assert!(parsed["mcpServers"]["weather"].is_object(), "{parsed}");
    assert_eq!(
        std::fs::read_to_string(backup_of(&real)).unwrap(),
        "{\"mcpServers\": {}}\n"
    );
    assert!(!backup_of(&link).exists());
}

/// `init --force` in a cloned folder: a planted `Cargo.toml.bak` link and a `README.md` link
/// are replaced by files, their targets untouched; a `src` link out of the folder is refused.
#[cfg(unix)]
#[test]
fn init_force_never_writes_through_planted_links() {
    let Planted {
        _tmp,
        project,
        victim,
    } = planted();
    std::fs::write(
        project.join("Cargo.toml"),
        "[package]\nname = \"cloned\"\nversion = \"0.1.0\"\nedition = \"2024\"\n",
    )
    .unwrap();
    std::os::unix::fs::symlink(&victim, project.join("Cargo.toml.bak")).unwrap();
    std::os::unix::fs::symlink(&victim, project.join("README.md")).unwrap();
    let init = || {
        output(
            cargo_mcp()
                .current_dir(&project)
                .args(["init", "--vcs", "none", "--force"]),
        )
    };
    let out = init();
    assert!(out.status.success(), "{}", show(&out));
    assert_untouched(&victim);
    for name in ["Cargo.toml.bak", "README.md"] {
        assert!(
            std::fs::symlink_metadata(project.join(name))
                .unwrap()
                .is_file(),
            "{name}"
        );
    }

    let outside = project.parent().unwrap().join("elsewhere");
    std::fs::create_dir(&outside).unwrap();
    std::fs::remove_dir_all(project.join("src")).unwrap();
    std::os::unix::fs::symlink(&outside, project.join("src")).unwrap();
    let out = init();
    assert_eq!(out.status.code(), Some(4), "{}", show(&out));
    assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 0);
}
