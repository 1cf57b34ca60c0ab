//! `list`, `read` and `prompt` against servers with resources and prompts: `echo-server`
//! (two resources, a template, three prompts) over stdio and Streamable HTTP in both eras,
//! and `file-server` (file resources, no prompts) for refusals.

use crate::support::*;
use mcp_tests::http::Spawned;
use serde_json::Value;
use std::process::Output;

const ERAS: [&str; 2] = ["legacy", "modern"];

fn over_stdio(bin: &str, args: &[&str]) -> Vec<String> {
    let bin = mcp_tests::example_bin(bin);
    let mut target = vec!["--command".into(), bin.to_string_lossy().into_owned()];
    target.extend(args.iter().map(|a| (*a).to_owned()));
    target
}

fn run(args: &[&str], era: &str, target: &[String]) -> Output {
    output(cargo_mcp().args(args).args(["--era", era]).args(target))
}

/// Asserts a usage error (exit 2) whose error line contains `message` (a server over stdio
/// shares stderr, and warns there when its policy denies something).
fn assert_usage(out: &Output, message: &str) {
    assert_eq!(out.status.code(), Some(2), "{}", show(out));
    let err = stderr(out);
    let last = err.lines().last().unwrap_or_default();
    assert!(last.starts_with("error: "), "{}", show(out));
    assert!(last.contains(message), "{}", show(out));
}

const README: &str = "# echo-server\n\nRepeats text (`echo`) and adds numbers (`add`). \
Asks you your name (`ask_name`), asks your model (`ask_model`) and lists your roots \
(`list_roots`).\n";

fn assert_list(target: &[String]) {
    for era in ERAS {
        let out = run(&["list"], era, target);
        assert!(out.status.success(), "{era}: {}", show(&out));
        let text = stdout(&out);
        assert!(
            text.starts_with(&format!(
                "echo-server 0.1.0: 5 tools, 2 resources, 1 resource template, 3 prompts \
                 (protocol {}, {era} era)\n\nTools:\nNAME ",
                if era == "modern" {
                    "2026-07-28"
                } else {
                    "2025-11-25"
                }
            )),
            "{text}"
        );
        for expected in [
            "\nResources:\nURI            NAME    MIME TYPE      DESCRIPTION\n",
            "\necho://readme  readme  text/markdown  What this server does.\n",
            "\nResource templates:\nURI TEMPLATE            NAME      DESCRIPTION\n",
            "\necho://greeting/{name}  greeting  A greeting for `name`.\n",
            "\nPrompts:\nNAME    ARGUMENTS     DESCRIPTION\n",
            "\ngreet   name, style?  Asks the model to greet someone.\n",
        ] {
            assert!(text.contains(expected), "{era}: no {expected:?} in\n{text}");
        }

        let out = run(&["list", "--json"], era, target);
        let json: Value = serde_json::from_slice(&out.stdout).expect("--json prints JSON");
        let names = |key: &str, field: &str| -> Vec<String> {
            json[key]
                .as_array()
                .unwrap_or_else(|| panic!("{era}: no {key} in {json}"))
                .iter()
                .map(|i| i[field].as_str().unwrap().to_owned())
                .collect()
        };
        assert_eq!(
            names("tools", "name"),
            ["add", "ask_model", "ask_name", "echo", "list_roots"]
        );
        assert_eq!(names("resources", "uri"), ["echo://logo", "echo://readme"]);
        assert_eq!(
            names("resourceTemplates", "uriTemplate"),
            ["echo://greeting/{name}"]
        );
        assert_eq!(names("prompts", "name"), ["greet", "logo", "readme"]);
        assert!(json["capabilities"]["resources"].is_object(), "{json}");
    }
}

fn assert_read(target: &[String]) {
    let tmp = outside_tempdir();
    let saved = tmp.path().join("logo.png");
    let saved_arg = saved.to_str().unwrap();
    for era in ERAS {
        let out = run(&["read", "echo://readme"], era, target);
        assert!(out.status.success(), "{era}: {}", show(&out));
        assert_eq!(stdout(&out), README);

        let out = run(&["read", "echo://greeting/Ada"], era, target);
        assert_eq!(stdout(&out), "Hello, Ada!\n", "{era}: {}", show(&out));

        // A blob is described, not printed; --output saves its bytes.
        let out = run(&["read", "echo://logo"], era, target);
        assert_eq!(
            stdout(&out),
            "[blob image/png, 68 bytes; save them with --output FILE]\n",
            "{era}: {}",
            show(&out)
        );
        let _ = std::fs::remove_file(&saved);
        let out = run(&["read", "echo://logo", "--output", saved_arg], era, target);
        assert!(out.status.success(), "{era}: {}", show(&out));
        assert_eq!(
            stdout(&out),
            format!("wrote 68 bytes (image/png) to {saved_arg}\n")
        );
        let png = std::fs::read(&saved).unwrap();
        assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"), "{png:?}");
        // An existing file is kept unless --force.
        let out = run(&["read", "echo://readme", "-o", saved_arg], era, target);
        assert_eq!(out.status.code(), Some(4), "{era}: {}", show(&out));
        assert_eq!(std::fs::read(&saved).unwrap(), png);
        let out = run(
            &["read", "echo://readme", "-o", saved_arg, "--force"],
            era,
            target,
        );
        assert!(out.status.success(), "{era}: {}", show(&out));
        assert_eq!(std::fs::read_to_string(&saved).unwrap(), README);

        let out = run(&["read", "echo://readme", "--json"], era, target);
        let json: Value = serde_json::from_slice(&out.stdout).expect("--json prints JSON");
        assert_eq!(json["contents"][0]["mimeType"], "text/markdown", "{era}");
        assert_eq!(json["contents"][0]["text"], README, "{era}");

        let out = run(&["read", "echo://nope"], era, target);
        assert_usage(&out, "has no resource `echo://nope`");
    }
}

fn assert_prompt(target: &[String]) {
    for era in ERAS {
        let out = run(
            &["prompt", "greet", "name=Ada", "style=formal"],
            era,
            target,
        );
        assert!(out.status.success(), "{era}: {}", show(&out));
        assert_eq!(stdout(&out), "[user]\nGreet Ada in a formal way.\n");

        let out = run(&["prompt", "readme"], era, target);
        assert_eq!(
            stdout(&out),
            format!(
                "[user]\nSummarize this readme:\n\n[user]\n[resource echo://readme \
                 (text/markdown)]\n{README}"
            ),
            "{era}: {}",
            show(&out)
        );

        let out = run(&["prompt", "logo"], era, target);
        assert!(
            stdout(&out).starts_with("[user]\n[image image/png, 68 bytes]\n"),
            "{era}: {}",
            show(&out)
        );

        let out = run(&["prompt", "greet", "name=Ada", "--json"], era, target);
        let json: Value = serde_json::from_slice(&out.stdout).expect("--json prints JSON");
        assert_eq!(json["messages"][0]["role"], "user", "{era}");
        assert_eq!(
            json["messages"][0]["content"]["text"], "Greet Ada in a casual way.",
            "{era}"
        );

        assert_usage(
            &run(&["prompt", "greet"], era, target),
            "the prompt `greet` needs name=…; it takes: name, style?",
        );
        assert_usage(
            &run(&["prompt", "greet", "name=a", "mood=b"], era, target),
            "has no argument `mood`",
        );
        assert_usage(
            &run(&["prompt", "gret"], era, target),
            "has no prompt `gret`; did you mean greet?",
        );
    }
}

#[test]
fn list_read_and_prompt_over_stdio_in_both_eras() {
    let target = over_stdio("echo-server", &[]);
    assert_list(&target);
    assert_read(&target);
    assert_prompt(&target);
}

#[test]
fn list_read_and_prompt_over_http_in_both_eras() {
    let server = Spawned::start("echo-server", &[]);
    let target = vec!["--url".to_owned(), server.url.clone()];
    assert_list(&target);
    assert_read(&target);
    assert_prompt(&target);
}

#[test]
fn file_resources_are_read_and_refused_with_reasons() {
    let tmp = outside_tempdir();
    let dir = tmp.path().canonicalize().unwrap();
    std::fs::write(dir.join("notes.md"), "# Notes\n").unwrap();
    let dir_arg = dir.to_str().unwrap();
    let stdio = over_stdio("file-server", &[dir_arg]);
    let server = Spawned::start("file-server", &[dir_arg]);
    let http = vec!["--url".to_owned(), server.url.clone()];
    for target in [&stdio, &http] {
        for era in ERAS {
            let out = run(&["list"], era, target);
            let text = stdout(&out);
            assert!(
                text.contains("14 tools, 1 resource, 1 resource template ("),
                "{text}"
            );
            assert!(!text.contains("Prompts:"), "{text}");

            let uri = format!("file://{dir_arg}/notes.md");
            let out = run(&["read", &uri], era, target);
            assert_eq!(stdout(&out), "# Notes\n", "{era}: {}", show(&out));

            assert_usage(
                &run(&["read", "file:///etc/passwd"], era, target),
                "refused `file:///etc/passwd`: Invalid URI: access denied",
            );
            let traversal = format!("file://{dir_arg}/%2e%2e/etc/passwd");
            assert_usage(
                &run(&["read", &traversal], era, target),
                "is outside the allowed directories",
            );
            assert_usage(
                &run(
                    &["read", &format!("file://{dir_arg}/missing.md")],
                    era,
                    target,
                ),
                "has no resource",
            );
            assert_usage(&run(&["prompt", "any"], era, target), "offers no prompts");
        }
    }
}
