//! The service against real programs (`sh`, `echo`, `cat`, `ls`, `env`, `head`), in a
//! temporary directory.

use super::*;
use crate::fs::FsPolicy;
use std::os::unix::fs::PermissionsExt;

struct Fixture {
    dir: tempfile::TempDir,
    run: CommandService,
}

fn fixture(policy: CommandPolicy) -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    let files = FileService::new(FsPolicy::new().allow_dir(dir.path())).unwrap();
    let run = CommandService::new(policy, files).unwrap().for_tool("test");
    Fixture { dir, run }
}

fn any(name: &str) -> Program {
    Program::new(name).any_arguments()
}

fn text(out: &CommandOutput) -> String {
    out.stdout_text()
}

/// Whether a live (not zombie) process has `marker` in its command line.
fn alive_with(marker: &str) -> Vec<u32> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        if !String::from_utf8_lossy(&cmdline).contains(marker) {
            continue;
        }
        let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
        let state = stat
            .rsplit(')')
            .next()
            .unwrap_or("")
            .trim_start()
            .chars()
            .next();
        if !matches!(state, Some('Z') | Some('X') | None) {
            found.push(pid);
        }
    }
    found
}

/// Waits (bounded) for the processes with `marker` to be gone; they are killed by then, but
/// the kernel may take a moment to finish them.
async fn gone(marker: &str) -> Vec<u32> {
    for _ in 0..100 {
        if alive_with(marker).is_empty() {
            return Vec::new();
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    alive_with(marker)
}

#[tokio::test]
async fn shell_metacharacters_are_plain_arguments() {
    let f = fixture(CommandPolicy::new().allow(any("echo")));
    let marker = f.dir.path().join("pwned");
    let hostile = [
        "a; touch PWNED".replace("PWNED", &marker.to_string_lossy()),
        "$(touch PWNED)".replace("PWNED", &marker.to_string_lossy()),
        "`id`".to_owned(),
        "| cat /etc/passwd".to_owned(),
        "&& reboot".to_owned(),
        "*".to_owned(),
    ];
    let out = f
        .run
        .run(CommandRequest::new("echo", hostile.iter().cloned()))
        .await
        .unwrap();
    assert!(out.success(), "{out:?}");
    assert_eq!(text(&out), format!("{}\n", hostile.join(" ")));
    assert!(!marker.exists());
}

#[tokio::test]
async fn option_injection_into_allowed_programs_is_refused_before_running() {
    let f = fixture(
        CommandPolicy::new()
            .allow(Program::new("ls").options(["-l", "-a"]).end_of_options())
            .allow(Program::new("sort")),
    );
    let marker = f.dir.path().join("written");
    for (program, args) in [
        ("ls", vec!["--color=always"]),
        ("ls", vec!["-l", "-R"]),
        ("sort", vec![&*format!("--output={}", marker.display())]),
        ("sort", vec!["x", "-o", &*marker.to_string_lossy()]),
    ] {
        let err = f
            .run
            .run(CommandRequest::new(program, args.clone()))
            .await
            .unwrap_err();
        assert!(
            matches!(err, CommandError::ArgumentRefused { .. }) && err.is_refusal(),
            "{program} {args:?}: {err}"
        );
    }
    assert!(!marker.exists());
    // A file named like an option is an operand after the inserted `--`.
    std::fs::write(f.dir.path().join("-R"), "").unwrap();
    let out = f
        .run
        .run(CommandRequest::new("ls", ["-a", "-R"]))
        .await
        .unwrap_err();
    assert!(matches!(out, CommandError::ArgumentRefused { .. }));
    let out = f
        .run
        .run(CommandRequest::new("ls", ["--", "-R"]))
        .await
        .unwrap();
    assert_eq!(text(&out), "-R\n");
}

#[tokio::test]
async fn program_path_tricks_run_nothing_but_the_resolved_program() {
    let f = fixture(CommandPolicy::new().allow(Program::new("ls")).path("."));
    // A look-alike `ls` in the working directory, and `PATH=.` for the child.
    let fake = f.dir.path().join("ls");
    let marker = f.dir.path().join("fake-ran");
    std::fs::write(&fake, format!("#!/bin/sh\ntouch {}\n", marker.display())).unwrap();
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    for name in ["../../bin/sh", "./ls", "/bin/sh", "sh", "ls ", "LS"] {
        let err = f
            .run
            .run(CommandRequest::new(name, Vec::<String>::new()))
            .await
            .unwrap_err();
        assert!(
            matches!(err, CommandError::ProgramNotAllowed(_)),
            "{name}: {err}"
        );
    }
    let out = f
        .run
        .run(CommandRequest::new("ls", Vec::<String>::new()))
        .await
        .unwrap();
    assert!(out.success(), "{out:?}");
    assert!(text(&out).contains("ls\n") && text(&out).contains("sub\n"));
    assert!(!marker.exists(), "the look-alike ran");
    let (name, path) = &f.run.programs()[0];
    assert_eq!(name, "ls");
    assert!(path.is_absolute() && path != &fake);
}

#[tokio::test]
async fn the_environment_is_cleared_but_for_what_the_policy_gives() {
    let f = fixture(
        CommandPolicy::new()
            .allow(any("env"))
            .env("LANG", "C.UTF-8"),
    );
    let out = f
        .run
        .run(CommandRequest::new("env", Vec::<String>::new()))
        .await
        .unwrap();
    let env = text(&out);
    let mut lines: Vec<&str> = env.lines().collect();
    lines.sort();
    // The run's marker, its value this process's id and a count (see `RUN_MARKER`).
    let marker = format!("{RUN_MARKER}={}-", std::process::id());
    assert!(lines.iter().any(|l| l.starts_with(&marker)), "{lines:?}");
    lines.retain(|l| !l.starts_with(RUN_MARKER));
    assert_eq!(
        lines,
        ["LANG=C.UTF-8".to_owned(), format!("PATH={DEFAULT_PATH}")]
    );
    let dir = tempfile::tempdir().unwrap();
    let files = FileService::new(FsPolicy::new().allow_dir(dir.path())).unwrap();
    for policy in [
        CommandPolicy::new().env("LD_PRELOAD", "/tmp/x.so"),
        CommandPolicy::new().pass_env("LD_LIBRARY_PATH"),
        CommandPolicy::new().env("BASH_ENV", "/tmp/x"),
    ] {
        let err = CommandService::new(policy, files.clone()).unwrap_err();
        assert!(matches!(err, CommandError::Config(_)), "{err}");
    }
}

#[tokio::test]
async fn working_directories_are_confined_by_the_file_service() {
    let f = fixture(CommandPolicy::new().allow(Program::new("pwd")));
    let out = f
        .run
        .run(CommandRequest::new("pwd", Vec::<String>::new()).directory("sub"))
        .await
        .unwrap();
    let here = std::fs::canonicalize(f.dir.path().join("sub")).unwrap();
    assert_eq!(text(&out).trim_end(), here.to_string_lossy());
    for outside in ["..", "/etc", "sub/../..", "missing"] {
        let err = f
            .run
            .run(CommandRequest::new("pwd", Vec::<String>::new()).directory(outside))
            .await
            .unwrap_err();
        assert!(
            matches!(err, CommandError::Directory(_)),
            "{outside}: {err}"
        );
    }
    std::os::unix::fs::symlink("/etc", f.dir.path().join("out")).unwrap();
    let err = f
        .run
        .run(CommandRequest::new("pwd", Vec::<String>::new()).directory("out"))
        .await
        .unwrap_err();
    assert!(err.is_refusal(), "{err}");
}

/// Review #40 item 6: `--root` confined only the working directory; operands reached any
/// path. Every operand and option value that names a path is resolved by the file service.
#[tokio::test]
async fn operands_and_option_values_that_lead_out_of_the_directories_are_refused() {
    let f = fixture(
        CommandPolicy::new()
            .allow(Program::known("cat"))
            .allow(Program::known("ls"))
            .allow(Program::known("grep"))
            .allow(
                Program::new("head")
                    .options_with_value(["-n"])
                    .end_of_options(),
            ),
    );
    std::fs::write(f.dir.path().join("sub/notes.txt"), "TODO inside\n").unwrap();
    std::os::unix::fs::symlink("/etc", f.dir.path().join("out")).unwrap();
    let inside = f.dir.path().join("sub/notes.txt");
    let ok = [
        ("cat", vec!["notes.txt"]),
        ("cat", vec![inside.to_str().unwrap()]),
        ("cat", vec!["../sub/./notes.txt"]),
        ("grep", vec!["-n", "TODO", "notes.txt"]),
        // A `..` that stays inside is no refusal (a pattern is checked as a path, and passes).
        ("grep", vec!["-E", "TODO|a/../b", "notes.txt"]),
        ("head", vec!["-n", "1", "notes.txt"]),
    ];
    for (program, args) in ok {
        let out = f
            .run
            .run(CommandRequest::new(program, args.clone()).directory("sub"))
            .await
            .unwrap_or_else(|e| panic!("{program} {args:?}: {e}"));
        assert!(out.success(), "{program} {args:?}: {out:?}");
    }
    let refused = [
        ("cat", vec!["/etc/hostname"]),
        ("cat", vec!["../../../../../../etc/hostname"]),
        ("ls", vec!["../../.."]),
        ("ls", vec!["-la", "/"]),
        ("cat", vec!["../out/hostname"]),
        ("grep", vec!["-f", "/etc/hostname", "notes.txt"]),
        ("grep", vec!["--file=/etc/hostname", "notes.txt"]),
        ("grep", vec!["-r", "x", "../.."]),
        ("head", vec!["-n", "1", "/etc/hostname"]),
    ];
    for (program, args) in refused {
        let err = f
            .run
            .run(CommandRequest::new(program, args.clone()).directory("sub"))
            .await
            .expect_err(&format!("{program} {args:?}"));
        assert!(
            matches!(err, CommandError::ArgumentRefused { .. })
                && err.to_string().contains("outside the allowed directories"),
            "{program} {args:?}: {err}"
        );
    }
}

/// Review #40 item 6: a grandchild that calls `setsid()` or double-forks left the process
/// group and survived the timeout. The program adopts its orphans and the run's marker finds
/// what left its tree.
#[tokio::test]
async fn descendants_that_leave_the_group_die_at_the_timeout_and_after_exit() {
    let f = fixture(CommandPolicy::new().allow(any("sh")).allow(any("setsid")));
    let (timed, exited) = ("41.2718", "42.2718");
    let script = format!(
        "setsid sleep {timed} & (sleep {timed} &) ; sh -c 'sleep {timed} &' ; echo started; sleep 600"
    );
    let out = f
        .run
        .run(CommandRequest::new("sh", ["-c", script.as_str()]).timeout(Duration::from_secs(3)))
        .await
        .unwrap();
    assert!(out.timed_out, "{out:?}");
    assert_eq!(gone(timed).await, Vec::<u32>::new());
    let script = format!("setsid sleep {exited} & (sleep {exited} &) ; echo started");
    let out = f
        .run
        .run(CommandRequest::new("sh", ["-c", script.as_str()]))
        .await
        .unwrap();
    assert!(out.success(), "{out:?}");
    assert_eq!(gone(exited).await, Vec::<u32>::new());
}

#[tokio::test]
async fn stdin_is_closed_unless_given() {
    let f = fixture(
        CommandPolicy::new()
            .allow(Program::new("cat"))
            .max_stdin_bytes(16),
    );
    let out = f
        .run
        .run(CommandRequest::new("cat", Vec::<String>::new()))
        .await
        .unwrap();
    assert!(out.success() && out.stdout.is_empty(), "{out:?}");
    let out = f
        .run
        .run(CommandRequest::new("cat", Vec::<String>::new()).stdin("hello"))
        .await
        .unwrap();
    assert_eq!(text(&out), "hello");
    let err = f
        .run
        .run(CommandRequest::new("cat", Vec::<String>::new()).stdin(vec![b'x'; 17]))
        .await
        .unwrap_err();
    assert!(matches!(err, CommandError::StdinTooLarge(16)));
}

#[tokio::test]
async fn huge_output_is_capped_while_read_and_marked() {
    let f = fixture(
        CommandPolicy::new()
            .allow(any("head"))
            .max_output_bytes(64 << 10),
    );
    let out = f
        .run
        .run(CommandRequest::new("head", ["-c", "5000000", "/dev/zero"]))
        .await
        .unwrap();
    assert!(out.success(), "{out:?}");
    assert_eq!(out.stdout.len(), 64 << 10);
    assert_eq!(out.stdout_dropped, 5_000_000 - (64 << 10));
    assert!(out.stdout_text().ends_with(&format!(
        "[… {} more bytes of output cut]",
        out.stdout_dropped
    )));
}

#[tokio::test]
async fn a_grandchild_that_outlives_its_parent_is_killed() {
    let f = fixture(CommandPolicy::new().allow(any("sh")));
    let marker = "31.4159";
    let out = f
        .run
        .run(CommandRequest::new(
            "sh",
            ["-c", &format!("sleep {marker} & echo started")],
        ))
        .await
        .unwrap();
    assert!(out.success(), "{out:?}");
    assert_eq!(gone(marker).await, Vec::<u32>::new());
}

#[tokio::test]
async fn the_timeout_kills_the_whole_group() {
    let f = fixture(CommandPolicy::new().allow(any("sh")));
    let marker = "32.7182";
    // A bounded fork bomb: forty sleepers, and a parent that waits for them.
    let script = format!("for i in $(seq 40); do sleep {marker} & done; echo spawned; wait");
    let out = f
        .run
        // Room for forty forks before the deadline on a loaded machine.
        .run(CommandRequest::new("sh", ["-c", script.as_str()]).timeout(Duration::from_secs(3)))
        .await
        .unwrap();
    assert!(out.timed_out && !out.success(), "{out:?}");
    assert_eq!(out.signal, Some(9), "{out:?}");
    assert_eq!(text(&out), "spawned\n");
    assert_eq!(gone(marker).await, Vec::<u32>::new());
}

#[tokio::test]
async fn a_cancelled_run_kills_its_group() {
    let f = fixture(CommandPolicy::new().allow(any("sh")));
    let marker = "33.1415";
    let run = f.run.run(CommandRequest::new(
        "sh",
        ["-c", &format!("sleep {marker} & sleep {marker}")],
    ));
    assert!(
        tokio::time::timeout(Duration::from_millis(500), run)
            .await
            .is_err()
    );
    assert_eq!(gone(marker).await, Vec::<u32>::new());
}

#[tokio::test]
async fn limits_and_no_new_privs_are_set_before_exec() {
    let f = fixture(
        CommandPolicy::new()
            .allow(any("sh"))
            .limits(ResourceLimits {
                open_files: Some(64),
                address_space: Some(1 << 30),
                ..ResourceLimits::default()
            }),
    );
    let out = f
        .run
        .run(CommandRequest::new(
            "sh",
            [
                "-c",
                "ulimit -n; ulimit -v; ulimit -t; grep NoNewPrivs /proc/self/status",
            ],
        ))
        .await
        .unwrap();
    assert!(out.success(), "{out:?}");
    let cpu = DEFAULT_TIMEOUT.as_secs() + 1;
    assert_eq!(
        text(&out),
        format!("64\n{}\n{cpu}\nNoNewPrivs:\t1\n", (1u64 << 30) / 1024)
    );
}

#[tokio::test]
async fn setuid_programs_are_refused() {
    let Some(setuid) = [
        "/usr/bin/passwd",
        "/bin/su",
        "/usr/bin/su",
        "/usr/bin/mount",
    ]
    .into_iter()
    .find(|p| std::fs::metadata(p).is_ok_and(|m| m.permissions().mode() & 0o4000 != 0)) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let files = FileService::new(FsPolicy::new().allow_dir(dir.path())).unwrap();
    let err =
        CommandService::new(CommandPolicy::new().allow(Program::new(setuid)), files).unwrap_err();
    assert!(err.to_string().contains("set-user-ID"), "{err}");
}

#[tokio::test]
async fn output_is_reported_as_it_arrives() {
    let f = fixture(CommandPolicy::new().allow(any("sh")));
    let mut seen = Vec::new();
    let out = f
        .run
        .run_with(
            CommandRequest::new("sh", ["-c", "echo one; echo two >&2"]),
            |stream, chunk| seen.push((stream, String::from_utf8_lossy(chunk).into_owned())),
        )
        .await
        .unwrap();
    assert!(out.success());
    assert_eq!(out.stderr_text(), "two\n");
    seen.sort_by_key(|(s, _)| *s == Stream::Stderr);
    assert_eq!(
        seen,
        [
            (Stream::Stdout, "one\n".to_owned()),
            (Stream::Stderr, "two\n".to_owned())
        ]
    );
}

#[test]
fn every_run_is_audited_and_arguments_only_when_enabled() {
    let (captured, _guard) = crate::test_log::Captured::install();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let quiet = fixture(CommandPolicy::new().allow(any("echo")));
        quiet
            .run
            .run(CommandRequest::new("echo", ["sk-secret", "two"]))
            .await
            .unwrap();
        quiet
            .run
            .run(CommandRequest::new("rm", ["-rf", "sk-secret"]))
            .await
            .unwrap_err();
        let strict = fixture(CommandPolicy::new().allow(Program::new("ls")));
        strict
            .run
            .run(CommandRequest::new("ls", ["--sk-secret"]))
            .await
            .unwrap_err();
        let loud = fixture(CommandPolicy::new().allow(any("echo")).log_arguments(true));
        loud.run
            .run(CommandRequest::new("echo", ["visible"]))
            .await
            .unwrap();
    });
    let text = captured.text();
    let runs: Vec<&str> = text.lines().filter(|l| l.contains("run_command")).collect();
    assert_eq!(runs.len(), 4, "{text}");
    for field in [
        "program=\"echo\"",
        "args=2",
        "exit=0",
        "timed_out=false",
        "stdout_bytes=14",
        "tool=\"test\"",
        "outcome=\"ok\"",
    ] {
        assert!(runs[0].contains(field), "{field} in {}", runs[0]);
    }
    assert!(
        runs[1].contains("outcome=\"denied\"") && runs[1].contains("program=\"rm\""),
        "{}",
        runs[1]
    );
    assert!(
        !runs[0].contains("sk-secret") && !runs[1].contains("sk-secret"),
        "{text}"
    );
    assert!(
        runs[2].contains("error=\"argument_refused\""),
        "{}",
        runs[2]
    );
    assert!(!text.contains("sk-secret"), "{text}");
    assert!(runs[3].contains("visible"), "{}", runs[3]);
}
