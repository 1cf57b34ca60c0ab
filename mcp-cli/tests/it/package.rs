//! `cargo mcp package` on a generated project: `server.json` validated against the MCP
//! Registry's published schema (vendored in `tests/fixtures/registry/`, checked with the
//! `jsonschema` crate), and the bundle checked by the pinned MCPB CLI
//! (`@anthropic-ai/mcpb`, installed by `tests/interop/setup.sh`): `mcpb validate` on its
//! manifest, `mcpb info` and `mcpb unpack` on the bundle, then the unpacked binary answers
//! `initialize`. The README `mcp-name:` line is added, kept, and refused when it names
//! another server; a project without a GitHub repository needs `--name`.
//!
//! One project is built (with `--profile dev`, into the shared generated target folder, so
//! it reuses what the other generated projects compiled); the other cases pass `--no-bundle`
//! and build nothing. The release profile, the default, is the same code path with another
//! cargo profile.

use crate::support::*;
use serde_json::{Value, json};
use std::io::{BufRead as _, BufReader, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const OWNER_REPO: &str = "https://github.com/ada-example/demo-pkg";
const SERVER_NAME: &str = "io.github.ada-example/demo-pkg";

/// Generates `name` outside the workspace, pinned to the toolkit's lock file; with
/// `repository` set in its Cargo.toml when given.
fn project(repository: Option<&str>) -> (tempfile::TempDir, PathBuf) {
    let tmp = outside_tempdir();
    let project = generate(
        tmp.path(),
        "demo-pkg",
        &["--description", "Adds numbers and counts words"],
    );
    pin_dependencies(&project);
    if let Some(url) = repository {
        let manifest = project.join("Cargo.toml");
        let text = std::fs::read_to_string(&manifest).unwrap();
        let text = text.replacen(
            "publish = false\n",
            &format!("publish = false\nrepository = \"{url}\"\n"),
            1,
        );
        std::fs::write(&manifest, text).unwrap();
    }
    (tmp, project)
}

fn package_in(project: &Path, args: &[&str]) -> std::process::Output {
    output(
        in_generated_target(cargo_mcp().current_dir(project))
            .arg("package")
            .args(args),
    )
}

fn read_json(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// Validates `doc` against the vendored registry schema; panics listing every violation.
fn assert_valid_server_json(doc: &Value) {
    let schema = read_json(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/registry/server.schema.json"),
    );
    assert_eq!(
        doc["$schema"], schema["$id"],
        "server.json names the vendored schema"
    );
    let validator = jsonschema::options()
        .should_validate_formats(true)
        .build(&schema)
        .expect("the registry schema compiles");
    let errors: Vec<String> = validator
        .iter_errors(doc)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "server.json breaks the registry schema:\n{}\n{doc:#}",
        errors.join("\n")
    );
}

/// The pinned MCPB CLI.
fn mcpb() -> Command {
    let dir = mcp_tests::setup("interop");
    let mut cmd = Command::new(dir.join("node_modules/.bin/mcpb"));
    cmd.stdin(Stdio::null());
    cmd
}

#[test]
fn package_writes_a_valid_server_json_and_a_bundle_the_mcpb_cli_accepts() {
    let (tmp, project) = project(Some(OWNER_REPO));
    let url =
        "https://github.com/ada-example/demo-pkg/releases/download/v0.1.0/demo-pkg-0.1.0.mcpb";
    let bundle = tmp.path().join("dist/demo-pkg.mcpb");
    let out = package_in(
        &project,
        &[
            "--profile",
            "dev",
            "--out",
            bundle.to_str().unwrap(),
            "--bundle-url",
            url,
        ],
    );
    assert!(out.status.success(), "{}", show(&out));
    assert!(stderr(&out).contains("publish = false"), "{}", show(&out));

    // server.json: the registry's schema, a cargo package and the bundle with its hash.
    let doc = read_json(&project.join("server.json"));
    assert_valid_server_json(&doc);
    assert_eq!(doc["name"], SERVER_NAME);
    assert_eq!(doc["version"], "0.1.0");
    assert_eq!(doc["description"], "Adds numbers and counts words");
    assert_eq!(
        doc["repository"],
        json!({"url": OWNER_REPO, "source": "github"})
    );
    assert_eq!(
        doc["packages"][0],
        json!({
            "registryType": "cargo", "registryBaseUrl": "https://crates.io",
            "identifier": "demo-pkg", "version": "0.1.0", "transport": {"type": "stdio"}
        })
    );
    let bytes = std::fs::read(&bundle).unwrap();
    let sha256 = {
        use sha2::Digest as _;
        sha2::Sha256::digest(&bytes)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect::<String>()
    };
    assert_eq!(
        doc["packages"][1],
        json!({
            "registryType": "mcpb", "identifier": url, "version": "0.1.0",
            "fileSha256": sha256, "transport": {"type": "stdio"}
        })
    );
    assert!(stdout(&out).contains(&sha256), "{}", show(&out));

    // README: the visible line, added once.
    let readme = std::fs::read_to_string(project.join("README.md")).unwrap();
    assert!(
        readme.ends_with(&format!("\nmcp-name: {SERVER_NAME}\n")),
        "{readme}"
    );

    // The bundle: the MCPB CLI's validator, info and unpack.
    let unpacked = tmp.path().join("unpacked");
    let unpack = output(mcpb().arg("unpack").arg(&bundle).arg(&unpacked));
    assert!(unpack.status.success(), "mcpb unpack:\n{}", show(&unpack));
    let validate = output(mcpb().arg("validate").arg(unpacked.join("manifest.json")));
    assert!(
        validate.status.success(),
        "mcpb validate:\n{}",
        show(&validate)
    );
    let info = output(mcpb().arg("info").arg(&bundle));
    assert!(info.status.success(), "mcpb info:\n{}", show(&info));

    let manifest = read_json(&unpacked.join("manifest.json"));
    assert_eq!(manifest["server"]["type"], "binary");
    assert_eq!(manifest["server"]["entry_point"], "server/demo-pkg");
    let tools: Vec<&str> = manifest["tools"]
        .as_array()
        .expect("the manifest lists the tools")
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert!(
        tools.contains(&"add") && tools.contains(&"text_stats"),
        "{manifest:#}"
    );
    assert!(manifest["prompts"].is_array(), "{manifest:#}");

    // The unpacked binary keeps its executable bit and speaks MCP.
    let server = unpacked.join("server/demo-pkg");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = std::fs::metadata(&server).unwrap().permissions().mode();
        assert_eq!(mode & 0o111, 0o111, "mode {mode:o}");
    }
    assert_answers_initialize(&server);

    // A second run (cargo has nothing to rebuild) changes nothing in the README, keeps
    // server.json valid, and without --out puts the bundle in <target-dir>/mcpb/.
    let target = generated_target_dir();
    let again = package_in(
        &project,
        &["--profile", "dev", "--target-dir", target.to_str().unwrap()],
    );
    assert!(again.status.success(), "{}", show(&again));
    assert!(stdout(&again).contains("already says"), "{}", show(&again));
    assert!(
        stderr(&again).contains("mcpb package that was left as it was"),
        "{}",
        show(&again)
    );
    assert!(
        target.join("mcpb/demo-pkg-0.1.0.mcpb").is_file(),
        "{}",
        show(&again)
    );
    assert_eq!(
        std::fs::read_to_string(project.join("README.md")).unwrap(),
        readme
    );
    assert_valid_server_json(&read_json(&project.join("server.json")));
}

/// Sends `initialize` over stdio and expects a result naming the server.
fn assert_answers_initialize(server: &Path) {
    let mut child = Command::new(server)
        .env("RUST_LOG", "warn")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the unpacked server starts");
    let request = json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "package-test", "version": "0"}
        }
    });
    let mut stdin = child.stdin.take().unwrap();
    writeln!(stdin, "{request}").unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    drop(stdin);
    let _ = child.wait();
    let answer: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line:?}"));
    assert_eq!(answer["id"], 1, "{answer}");
    assert_eq!(
        answer["result"]["serverInfo"]["name"], "demo-pkg",
        "{answer}"
    );
}

#[test]
fn a_readme_naming_another_server_is_refused_unless_forced() {
    let (_tmp, project) = project(Some(OWNER_REPO));
    let readme = project.join("README.md");
    let mut text = std::fs::read_to_string(&readme).unwrap();
    text.push_str("\nmcp-name: io.github.someone-else/demo-pkg\n");
    std::fs::write(&readme, &text).unwrap();

    let refused = package_in(&project, &["--no-bundle"]);
    assert_eq!(refused.status.code(), Some(4), "{}", show(&refused));
    assert!(
        stderr(&refused).contains("io.github.someone-else/demo-pkg"),
        "{}",
        show(&refused)
    );
    assert!(!project.join("server.json").exists(), "nothing written");
    assert_eq!(std::fs::read_to_string(&readme).unwrap(), text);

    let forced = package_in(&project, &["--no-bundle", "--force"]);
    assert!(forced.status.success(), "{}", show(&forced));
    let after = std::fs::read_to_string(&readme).unwrap();
    assert!(
        after.contains(&format!("mcp-name: {SERVER_NAME}")),
        "{after}"
    );
    assert!(!after.contains("someone-else"), "{after}");
    assert_valid_server_json(&read_json(&project.join("server.json")));

    // A hidden comment (crates.io drops comments) becomes the visible line.
    std::fs::write(
        &readme,
        format!("# demo\n\n<!-- mcp-name: {SERVER_NAME} -->\n"),
    )
    .unwrap();
    let visible = package_in(&project, &["--no-bundle"]);
    assert!(visible.status.success(), "{}", show(&visible));
    assert_eq!(
        std::fs::read_to_string(&readme).unwrap(),
        format!("# demo\n\nmcp-name: {SERVER_NAME}\n")
    );
}

#[test]
fn without_a_github_repository_the_name_must_be_given_and_valid() {
    let (_tmp, project) = project(None);
    let missing = package_in(&project, &["--no-bundle"]);
    assert_eq!(missing.status.code(), Some(2), "{}", show(&missing));
    assert!(stderr(&missing).contains("--name"), "{}", show(&missing));

    let invalid = package_in(&project, &["--no-bundle", "--name", "not a name"]);
    assert_eq!(invalid.status.code(), Some(2), "{}", show(&invalid));
    assert!(
        stderr(&invalid).contains("not a valid registry server name"),
        "{}",
        show(&invalid)
    );

    let long = "x".repeat(101);
    let too_long = package_in(
        &project,
        &[
            "--no-bundle",
            "--name",
            "com.example/demo",
            "--description",
            &long,
        ],
    );
    assert_eq!(too_long.status.code(), Some(2), "{}", show(&too_long));
    assert!(stderr(&too_long).contains("100"), "{}", show(&too_long));

    let named = package_in(&project, &["--no-bundle", "--name", "com.example/demo"]);
    assert!(named.status.success(), "{}", show(&named));
    let doc = read_json(&project.join("server.json"));
    assert_valid_server_json(&doc);
    assert_eq!(doc["name"], "com.example/demo");
    assert!(doc.get("repository").is_none(), "{doc:#}");
}

/// A fresh `cargo mcp new` project has neither a GitHub `repository` nor `authors`: one run
/// names everything to supply, each with its flag; git's configured user is taken as the
/// bundle's author when there is one.
#[test]
fn everything_missing_is_reported_at_once_and_git_supplies_the_author() {
    let (tmp, project) = project(None);
    let git_config = tmp.path().join("gitconfig");
    let package = |extra: &[&str]| {
        output(
            in_generated_target(cargo_mcp().current_dir(&project))
                .env("GIT_CONFIG_GLOBAL", &git_config)
                .env("GIT_CONFIG_NOSYSTEM", "1")
                .arg("package")
                .args(extra),
        )
    };
    std::fs::write(&git_config, "").unwrap();
    let out = package(&[]);
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    let err = stderr(&out);
    assert!(err.contains("2 things to supply"), "{err}");
    assert!(err.contains("--name") && err.contains("--author"), "{err}");

    std::fs::write(
        &git_config,
        "[user]\n\tname = Ada Lovelace\n\temail = ada@example.com\n",
    )
    .unwrap();
    let out = package(&[]);
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    let err = stderr(&out);
    assert!(err.contains("--name") && !err.contains("--author"), "{err}");
    assert!(
        !err.contains("things to supply"),
        "one problem, said plainly: {err}"
    );
}

/// Files package reads and writes must resolve inside the project: a `readme` outside it,
/// a `server.json` that is a dangling link, an `icon.png` linked to a file outside: each is
/// refused (exit code 4) before anything is built or written, and what lies outside is
/// untouched.
// Plants Unix symbolic links (Windows needs a privilege for them).
#[cfg(unix)]
#[test]
fn package_never_reads_or_writes_outside_the_project() {
    let (tmp, project) = project(Some(OWNER_REPO));
    let outside = tmp.path().join("outside.md");
    std::fs::write(&outside, "# not the project's\n").unwrap();
    let manifest = project.join("Cargo.toml");
    let original = std::fs::read_to_string(&manifest).unwrap();

    // readme = "../outside.md"
    std::fs::write(
        &manifest,
        original.replacen(
            "publish = false\n",
            "publish = false\nreadme = \"../outside.md\"\n",
            1,
        ),
    )
    .unwrap();
    let refused = package_in(&project, &["--no-bundle"]);
    assert_eq!(refused.status.code(), Some(4), "{}", show(&refused));
    assert!(stderr(&refused).contains("outside"), "{}", show(&refused));
    assert_eq!(
        std::fs::read_to_string(&outside).unwrap(),
        "# not the project's\n"
    );
    assert!(!project.join("server.json").exists());
    std::fs::write(&manifest, &original).unwrap();

    // server.json -> a file that does not exist (yet) outside the project.
    let planted = tmp.path().join("planted.json");
    std::os::unix::fs::symlink(&planted, project.join("server.json")).unwrap();
    let refused = package_in(&project, &["--no-bundle"]);
    assert_eq!(refused.status.code(), Some(4), "{}", show(&refused));
    assert!(!planted.exists(), "nothing written through the link");
    std::fs::remove_file(project.join("server.json")).unwrap();

    // icon.png -> a file outside the project.
    let secret = tmp.path().join("secret.png");
    std::fs::write(&secret, b"\x89PNG private").unwrap();
    std::os::unix::fs::symlink(&secret, project.join("icon.png")).unwrap();
    let refused = package_in(&project, &["--no-bundle"]);
    assert_eq!(refused.status.code(), Some(4), "{}", show(&refused));
    assert!(stderr(&refused).contains("icon.png"), "{}", show(&refused));
    std::fs::remove_file(project.join("icon.png")).unwrap();

    // With all three gone, it packages.
    let fine = package_in(&project, &["--no-bundle"]);
    assert!(fine.status.success(), "{}", show(&fine));
}
