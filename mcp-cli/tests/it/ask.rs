//! `cargo mcp call` on a tool that asks something while it runs (`echo-server`'s
//! `ask_name`, `ask_model`, `list_roots`): answered on a real pseudo-terminal (through
//! `script`, from util-linux), refused clearly under `--json` or without a terminal, in both
//! eras, over stdio and Streamable HTTP.

use crate::support::*;
use mcp_tests::http::Spawned;
use std::io::Write as _;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

const ERAS: [&str; 2] = ["legacy", "modern"];

fn echo_server() -> String {
    mcp_tests::example_bin("echo-server")
        .to_string_lossy()
        .into_owned()
}

/// Runs `cargo mcp <args>` with a pseudo-terminal as stdin, stdout and stderr, typing
/// `typed` (each chunk after `pause`) and returning everything the terminal showed.
fn on_terminal(args: &[&str], typed: &[&str], pause: Duration) -> Output {
    let quote = |s: &str| format!("'{}'", s.replace('\'', r"'\''"));
    let mut line = vec![quote(env!("CARGO_BIN_EXE_cargo-mcp")), "mcp".to_owned()];
    line.extend(args.iter().map(|a| quote(a)));
    let mut child = Command::new("script")
        .args(["-qec", &line.join(" "), "/dev/null"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("`script` (util-linux) runs; these tests need it for a pseudo-terminal");
    let mut stdin = child.stdin.take().unwrap();
    let typed: Vec<String> = typed.iter().map(|s| s.to_string()).collect();
    let typist = std::thread::spawn(move || {
        for chunk in typed {
            std::thread::sleep(pause);
            if stdin.write_all(chunk.as_bytes()).is_err() {
                return;
            }
            let _ = stdin.flush();
        }
        // Keep stdin open until the child is done; `script` ends the session at EOF.
        std::thread::sleep(Duration::from_secs(20));
    });
    let out = child.wait_with_output().unwrap();
    drop(typist);
    out
}

#[test]
fn a_form_and_the_model_are_asked_on_the_terminal_in_both_eras() {
    let server = echo_server();
    for era in ERAS {
        let out = on_terminal(
            &["call", "ask_name", "--era", era, "--command", &server],
            &["y\n", "Ada\n"],
            Duration::from_millis(200),
        );
        let shown = stdout(&out);
        assert!(out.status.success(), "{era}: {}", show(&out));
        assert!(shown.contains("The server asks: Who are you?"), "{shown}");
        assert!(
            shown.contains("name (string): What should I call you?"),
            "{shown}"
        );
        assert!(shown.contains("Hello, Ada!"), "{era}: {shown}");

        let out = on_terminal(
            &[
                "call",
                "ask_model",
                "question=Capital of France?",
                "--era",
                era,
                "--command",
                &server,
            ],
            &["Paris.\n"],
            Duration::from_millis(200),
        );
        let shown = stdout(&out);
        assert!(out.status.success(), "{era}: {}", show(&out));
        assert!(shown.contains("user: Capital of France?"), "{shown}");
        assert!(shown.contains("Answer as the model"), "{shown}");
        // Echoed as typed, then printed as the tool's result.
        assert_eq!(shown.matches("Paris.").count(), 2, "{era}: {shown}");
    }
}

#[test]
fn the_timeout_does_not_count_the_time_spent_answering() {
    let server = echo_server();
    for era in ERAS {
        // A 3 s timeout (room for a loaded machine to start the server and answer the rest
        // of the call), and 4.5 s before each keystroke group.
        let out = on_terminal(
            &[
                "call",
                "ask_name",
                "--timeout",
                "3",
                "--era",
                era,
                "--command",
                &server,
            ],
            &["y\n", "Grace\n"],
            Duration::from_millis(4500),
        );
        assert!(out.status.success(), "{era}: {}", show(&out));
        assert!(
            stdout(&out).contains("Hello, Grace!"),
            "{era}: {}",
            show(&out)
        );
    }
}

#[test]
fn over_http_a_legacy_session_asks_on_the_terminal_too() {
    let server = Spawned::start("echo-server", &["--legacy-mode", "sessionful"]);
    for era in ERAS {
        let out = on_terminal(
            &["call", "ask_name", "--era", era, "--url", &server.url],
            &["y\n", "Linus\n"],
            Duration::from_millis(200),
        );
        assert!(out.status.success(), "{era}: {}", show(&out));
        assert!(
            stdout(&out).contains("Hello, Linus!"),
            "{era}: {}",
            show(&out)
        );
    }
}

#[test]
fn without_a_terminal_or_with_json_a_question_fails_clearly_and_roots_still_work() {
    let server = echo_server();
    let folder = outside_tempdir();
    let cwd = folder.path().join("my project");
    std::fs::create_dir(&cwd).unwrap();
    for era in ERAS {
        let run = |args: &[&str]| {
            output(cargo_mcp().current_dir(&cwd).args(args).args([
                "--era",
                era,
                "--command",
                &server,
            ]))
        };
        let out = run(&["call", "ask_name", "--json"]);
        assert_eq!(out.status.code(), Some(3), "{era}: {}", show(&out));
        assert!(out.stdout.is_empty(), "{era}: {}", show(&out));
        assert!(
            stderr(&out).contains(
                "error: the tool `ask_name` needs you to fill in a form (elicitation), which \
                 `cargo mcp` answers only by asking you on a terminal, and not with --json"
            ),
            "{era}: {}",
            show(&out)
        );

        // stdin is /dev/null here.
        let out = run(&["call", "ask_model", "question=hi"]);
        assert_eq!(out.status.code(), Some(3), "{era}: {}", show(&out));
        assert!(
            stderr(&out).contains(
                "the tool `ask_model` needs the client's model (sampling), which `cargo mcp` \
                 answers only by asking you on a terminal, and stdin is not one"
            ),
            "{era}: {}",
            show(&out)
        );

        // Roots need no one to answer: the current folder, percent-encoded.
        let out = run(&["call", "list_roots", "--json"]);
        assert!(out.status.success(), "{era}: {}", show(&out));
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let uri = json["content"][0]["text"].as_str().unwrap();
        assert!(uri.starts_with("file:///"), "{uri}");
        assert!(uri.ends_with("/my%20project"), "{uri}");
    }
}

#[test]
fn a_prompt_that_asks_is_answered_on_the_terminal_too() {
    let server = mcp_tests::example_bin("conformance-server")
        .to_string_lossy()
        .into_owned();
    for era in ERAS {
        let out = on_terminal(
            &[
                "prompt",
                "test_input_required_result_prompt",
                "--era",
                era,
                "--command",
                &server,
            ],
            &["y\n", "rainy days\n"],
            Duration::from_millis(200),
        );
        assert!(out.status.success(), "{era}: {}", show(&out));
        let shown = stdout(&out);
        assert!(
            shown.contains("Please provide context for the prompt"),
            "{shown}"
        );
        assert!(
            shown.contains("Use this context: rainy days"),
            "{era}: {shown}"
        );
    }
}

/// `file-server --confirm`: `cargo mcp call` shows the confirmation question on the
/// terminal, and the file is written only when the user says yes, in both eras.
#[test]
fn a_confirmation_is_asked_on_the_terminal_and_only_yes_writes() {
    let server = mcp_tests::example_bin("file-server")
        .to_string_lossy()
        .into_owned();
    for era in ERAS {
        for (typed, written) in [("n\n", false), ("y\n", true)] {
            let dir = tempfile::tempdir().unwrap();
            let root = dir.path().to_string_lossy().into_owned();
            let out = on_terminal(
                &[
                    "call",
                    "write_file",
                    "path=confirmed.txt",
                    "content=hello",
                    "--era",
                    era,
                    "--command",
                    &server,
                    "--confirm",
                    &root,
                ],
                &[typed],
                Duration::from_millis(200),
            );
            let shown = stdout(&out);
            assert!(
                shown.contains("The server asks: Allow the tool `write_file` to run?"),
                "{era}: {shown}"
            );
            assert!(shown.contains("path: confirmed.txt"), "{era}: {shown}");
            assert_eq!(
                dir.path().join("confirmed.txt").exists(),
                written,
                "{era} {typed:?}: {shown}"
            );
            if written {
                assert!(out.status.success(), "{era}: {}", show(&out));
                assert!(
                    shown.contains("Successfully wrote to confirmed.txt"),
                    "{shown}"
                );
            } else {
                assert!(
                    shown.contains("The user declined this call"),
                    "{era}: {shown}"
                );
            }
        }
    }
}
