//! The command line as a person meets it: help with examples and exit codes, both
//! invocation shapes, one-line errors with the documented exit codes, and the README's
//! quick start.

use crate::support::*;

#[test]
fn help_lists_every_command_with_examples_and_the_exit_codes() {
    let out = output(cargo_mcp().arg("--help"));
    assert!(out.status.success(), "{}", show(&out));
    let help = stdout(&out);
    for command in [
        "new",
        "init",
        "list",
        "call",
        "read",
        "prompt",
        "schema",
        "install",
        "uninstall",
        "package",
        "doctor",
        "completions",
        "dev",
    ] {
        assert!(
            help.contains(&format!("\n  {command} ")),
            "{command}: {help}"
        );
        let sub = output(cargo_mcp().args([command, "--help"]));
        assert!(sub.status.success(), "{command}");
        assert!(
            stdout(&sub).contains("Examples:\n  cargo mcp "),
            "{command}: {}",
            stdout(&sub)
        );
    }
    assert!(
        help.contains("Exit codes:\n  0  success\n  1  failure"),
        "{help}"
    );
}

#[test]
fn cargo_passes_mcp_first_and_both_shapes_work() {
    let direct = output(cargo_mcp().arg("--version"));
    let via_cargo = output(cargo_mcp().args(["mcp", "--version"]));
    assert!(direct.status.success() && via_cargo.status.success());
    assert_eq!(direct.stdout, via_cargo.stdout);
    assert!(
        stdout(&direct).starts_with("cargo-mcp "),
        "{}",
        stdout(&direct)
    );
}

#[test]
fn mistakes_are_one_line_with_the_documented_exit_code() {
    let tmp = outside_tempdir();

    let bad_flag = output(cargo_mcp().args(["new", "x", "--bogus"]));
    assert_eq!(bad_flag.status.code(), Some(2), "{}", show(&bad_flag));

    let keyword = output(
        cargo_mcp()
            .current_dir(tmp.path())
            .args(["new", "fn", "--vcs", "none"]),
    );
    assert_eq!(keyword.status.code(), Some(2), "{}", show(&keyword));
    assert_eq!(
        stderr(&keyword),
        "error: invalid package name (the folder's name): `fn` cannot be a package name: it is a Rust keyword; try `--name fn-server`\n"
    );
    assert!(!tmp.path().join("fn").exists(), "nothing is left behind");

    let named = output(cargo_mcp().current_dir(tmp.path()).args([
        "new",
        "ok-folder",
        "--name",
        "9lives",
        "--vcs",
        "none",
    ]));
    assert_eq!(named.status.code(), Some(2), "{}", show(&named));
    assert!(
        stderr(&named).contains("try `--name mcp-9lives`"),
        "{}",
        show(&named)
    );

    std::fs::create_dir(tmp.path().join("taken")).unwrap();
    std::fs::write(tmp.path().join("taken/notes.txt"), "mine").unwrap();
    let taken = output(
        cargo_mcp()
            .current_dir(tmp.path())
            .args(["new", "taken", "--vcs", "none"]),
    );
    assert_eq!(taken.status.code(), Some(4), "{}", show(&taken));
    assert_eq!(
        stderr(&taken),
        "error: `taken` already exists and is not empty; use `cargo mcp init taken` to add a server to it\n"
    );
    assert_eq!(
        std::fs::read_dir(tmp.path().join("taken")).unwrap().count(),
        1
    );

    let leftovers: Vec<_> = std::fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(leftovers, ["taken"], "no staging folders are left behind");
}

#[test]
fn new_prints_the_next_steps_and_init_refuses_to_overwrite() {
    let tmp = outside_tempdir();
    let git = std::process::Command::new("git")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    let out = output(cargo_mcp().current_dir(tmp.path()).args([
        "new",
        "weather",
        "--template",
        "files",
        "--description",
        "Weather notes",
        "--vcs",
        if git { "git" } else { "none" },
    ]));
    assert!(out.status.success(), "{}", show(&out));
    let text = stdout(&out);
    assert!(
        text.starts_with("Created `weather` (files template) in weather\n"),
        "{text}"
    );
    assert!(text.contains("  cd weather\n  cargo test"), "{text}");
    assert!(text.contains("cargo mcp install claude-desktop"), "{text}");
    let project = tmp.path().join("weather");
    assert_eq!(project.join(".git").is_dir(), git);
    assert!(project.join(".gitignore").is_file());
    let manifest = std::fs::read_to_string(project.join("Cargo.toml")).unwrap();
    assert!(
        manifest.contains("description = \"Weather notes\""),
        "{manifest}"
    );
    // Built from this checkout, the CLI points new projects at its runtime (with the
    // features the template asks for, the runtime's defaults off).
    let runtime = workspace_root().join("mcp-runtime").canonicalize().unwrap();
    assert!(
        manifest.contains(&format!(
            "mcp-runtime = {{ path = \"{}\", default-features = false, features = [\"launch\", \"skills\"] }}",
            runtime.display()
        )),
        "{manifest}"
    );
    assert!(
        manifest.contains(&format!(
            "[package.metadata.mcp]\ntemplate = \"files\"\ncli-version = \"{}\"",
            env!("CARGO_PKG_VERSION")
        )),
        "{manifest}"
    );
    assert!(
        std::fs::read_to_string(project.join("README.md"))
            .unwrap()
            .starts_with("# weather\n\nWeather notes\n")
    );

    let init = output(
        cargo_mcp()
            .current_dir(&project)
            .args(["init", "--vcs", "none"]),
    );
    assert_eq!(init.status.code(), Some(4), "{}", show(&init));
    let err = stderr(&init);
    assert!(
        err.starts_with("error: would overwrite 7 files in `.`: "),
        "{err}"
    );
    assert!(
        err.contains(".gitignore, Cargo.toml, README.md, src/lib.rs"),
        "{err}"
    );
    assert!(
        err.trim_end().ends_with("pass --force to overwrite them"),
        "{err}"
    );

    let forced = output(cargo_mcp().current_dir(&project).args([
        "init",
        "--vcs",
        "none",
        "--force",
        "--template",
        "stdio",
    ]));
    assert!(forced.status.success(), "{}", show(&forced));
    // It says where: the current folder, by its path (it used to print an empty one).
    let said = stdout(&forced);
    let expected = format!(
        "Created `weather` (stdio template) in the current folder ({})\n",
        project.display()
    );
    assert!(said.starts_with(&expected), "{said}");
    let manifest = std::fs::read_to_string(project.join("Cargo.toml")).unwrap();
    assert!(manifest.contains("template = \"stdio\""), "{manifest}");
    // Files the stdio template does not have are left alone.
    assert!(project.join("tests/server.rs").is_file());
}

#[test]
fn the_readme_quick_start_uses_the_cli() {
    let readme = std::fs::read_to_string(workspace_root().join("README.md")).unwrap();
    let quick_start = &readme[readme.find("## Quick start").expect("a quick start")..];
    let line = quick_start
        .lines()
        .find(|l| l.contains("cargo mcp new"))
        .expect("the quick start scaffolds with `cargo mcp new`");
    assert!(
        line.starts_with("cargo install --path mcp-cli && "),
        "{line}"
    );
    // The `cargo mcp new …` part parses as this CLI's command line.
    let command = line
        .split("&&")
        .find(|p| p.contains("cargo mcp new"))
        .unwrap();
    let words: Vec<&str> = command.split_whitespace().collect();
    let parsed = mcp_cli::cli::parse(words[1..].iter().map(std::ffi::OsString::from));
    assert!(parsed.is_ok(), "{command}: {parsed:?}");
    // A CLI installed from a checkout points new projects at that checkout's runtime, so
    // the quick start needs no `--runtime-path`.
    assert!(!command.contains("--runtime-path"), "{command}");
}

#[test]
fn doctor_exits_3_on_a_toolkit_version_mismatch_and_names_the_cli_crate() {
    let tmp = outside_tempdir();
    let project = tmp.path().join("old");
    std::fs::create_dir_all(project.join("src")).unwrap();
    std::fs::write(
        project.join("Cargo.toml"),
        "[package]\nname = \"old\"\nversion = \"0.1.0\"\nedition = \"2024\"\n\n[dependencies]\nmcp-runtime = \"0.0.9\"\n",
    )
    .unwrap();
    std::fs::write(
        project.join("Cargo.lock"),
        "version = 4\n\n[[package]]\nname = \"mcp-runtime\"\nversion = \"0.0.9\"\n",
    )
    .unwrap();
    let out = output(cargo_mcp().current_dir(&project).arg("doctor"));
    assert_eq!(out.status.code(), Some(3), "{}", show(&out));
    let text = stdout(&out);
    assert!(
        text.contains("the project uses mcp-runtime 0.0.9, older than this cargo-mcp"),
        "{text}"
    );
    assert!(
        text.contains("cargo install mcp-runtime-cli --version 0.0.9"),
        "{text}"
    );
    assert!(!text.contains("cargo install mcp-cli"), "{text}");
}

#[test]
fn completions_complete_commands_in_bash() {
    let out = output(cargo_mcp().args(["completions", "bash"]));
    assert!(out.status.success(), "{}", show(&out));
    let script = stdout(&out);
    assert!(script.contains("stdio http files"), "templates are offered");
    let function = script
        .lines()
        .find_map(|l| l.trim().strip_prefix("complete -F "))
        .and_then(|rest| rest.split_whitespace().next())
        .expect("the script registers a completion function")
        .to_owned();
    let bash_available = std::process::Command::new("bash")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !bash_available {
        eprintln!("bash is not installed; the script's completion is not exercised");
        return;
    }
    let tmp = outside_tempdir();
    let path = tmp.path().join("cargo-mcp.bash");
    std::fs::write(&path, &script).unwrap();
    let run = output(std::process::Command::new("bash").arg("-c").arg(format!(
        "source '{}' && COMP_WORDS=(cargo-mcp unin) && COMP_CWORD=1 && {function} cargo-mcp unin cargo-mcp && printf '%s\\n' \"${{COMPREPLY[@]}}\"",
        path.display()
    )));
    assert!(run.status.success(), "{}", show(&run));
    assert_eq!(stdout(&run).trim(), "uninstall", "{}", show(&run));

    for shell in ["zsh", "fish"] {
        let out = output(cargo_mcp().args(["completions", shell]));
        assert!(out.status.success(), "{shell}: {}", show(&out));
        assert!(stdout(&out).contains("cargo-mcp"), "{shell}");
    }
}

#[test]
fn init_force_merges_into_an_existing_manifest_and_keeps_a_backup() {
    let tmp = outside_tempdir();
    let dir = tmp.path().join("folder-name");
    std::fs::create_dir_all(dir.join("src")).unwrap();
    let original = "[package]\nname = \"legacy-tool\"\nversion = \"2.3.0\"\nedition = \"2024\"\n\n[dependencies]\nregex = \"1\"\n";
    std::fs::write(dir.join("Cargo.toml"), original).unwrap();
    std::fs::write(dir.join("src/main.rs"), "fn main() {}\n").unwrap();

    // Without --force: refused, nothing written.
    let out = output(
        cargo_mcp()
            .current_dir(&dir)
            .args(["init", "--vcs", "none"]),
    );
    assert_eq!(out.status.code(), Some(4), "{}", show(&out));
    assert_eq!(
        std::fs::read_to_string(dir.join("Cargo.toml")).unwrap(),
        original
    );

    let out = output(
        cargo_mcp()
            .current_dir(&dir)
            .args(["init", "--force", "--vcs", "none"]),
    );
    assert!(out.status.success(), "{}", show(&out));
    assert!(
        stderr(&out).contains("merged the template into Cargo.toml"),
        "{}",
        show(&out)
    );
    let merged: toml_edit::DocumentMut = std::fs::read_to_string(dir.join("Cargo.toml"))
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(merged["package"]["name"].as_str(), Some("legacy-tool"));
    assert_eq!(merged["package"]["version"].as_str(), Some("2.3.0"));
    assert_eq!(merged["dependencies"]["regex"].as_str(), Some("1"));
    assert!(merged["dependencies"]["mcp-runtime"].is_inline_table());
    assert_eq!(
        std::fs::read_to_string(dir.join("Cargo.toml.bak")).unwrap(),
        original
    );
    // The generated code names the existing crate, not the folder.
    let main = std::fs::read_to_string(dir.join("src/main.rs")).unwrap();
    assert!(main.contains("legacy_tool::"), "{main}");
    let metadata = output(
        std::process::Command::new(std::env::var("CARGO").unwrap_or("cargo".into()))
            .args(["metadata", "--no-deps", "--format-version", "1"])
            .current_dir(&dir),
    );
    assert!(metadata.status.success(), "{}", show(&metadata));
}

#[test]
fn doctor_starts_the_built_server_and_warns_about_stdout_noise() {
    let tmp = outside_tempdir();
    let project = tmp.path().join("noisy");
    std::fs::create_dir_all(project.join("src")).unwrap();
    std::fs::write(
        project.join("Cargo.toml"),
        "[package]\nname = \"noisy\"\nversion = \"0.1.0\"\nedition = \"2024\"\n\n[workspace]\n",
    )
    .unwrap();
    // A stdio server that greets on stdout before speaking the protocol (the mistake), and
    // answers `initialize` well enough for a client to connect.
    std::fs::write(
        project.join("src/main.rs"),
        r##"use std::io::{BufRead, Write};
fn main() {
    println!("hello from main");
    let stdin = std::io::stdin();
    for line in stdin.lock().lines() {
        let line = line.unwrap();
        if !line.contains("\"initialize\"") {
            continue;
        }
        let at = line.find("\"id\":").unwrap() + 5;
        let id: String = line[at..].chars().take_while(|c| *c != ',' && *c != '}').collect();
        let mut out = std::io::stdout();
        writeln!(out, r#"{{"jsonrpc":"2.0","id":{id},"result":{{"protocolVersion":"2025-11-25","capabilities":{{}},"serverInfo":{{"name":"noisy","version":"0.1.0"}}}}}}"#).unwrap();
        out.flush().unwrap();
    }
}
"##,
    )
    .unwrap();
    // Not built yet: said, nothing started or built.
    let out = output(cargo_mcp().current_dir(&project).arg("doctor"));
    assert!(
        stdout(&out).contains("`noisy` is not built yet"),
        "{}",
        show(&out)
    );
    assert!(!project.join("target").exists(), "doctor builds nothing");

    let cargo = std::env::var("CARGO").unwrap_or("cargo".into());
    let build = output(
        std::process::Command::new(cargo)
            .args(["build", "--quiet"])
            .current_dir(&project)
            .env_remove("CARGO_TARGET_DIR"),
    );
    assert!(build.status.success(), "{}", show(&build));
    let out = output(
        cargo_mcp()
            .current_dir(&project)
            .arg("doctor")
            .env_remove("CARGO_TARGET_DIR"),
    );
    let text = stdout(&out);
    assert!(
        text.contains("warn  the server wrote non-protocol text to stdout: \"hello from main\""),
        "{}",
        show(&out)
    );
    assert!(text.contains("→ print with `eprintln!`"), "{text}");
}
