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
        "new", "init", "list", "call", "read", "prompt", "schema", "install", "doctor", "dev",
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
    assert!(
        manifest.contains(&format!("mcp-runtime = \"{}\"", env!("CARGO_PKG_VERSION"))),
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
    assert!(
        command.contains("--runtime-path ."),
        "a fresh clone has no published crates: {command}"
    );
}
