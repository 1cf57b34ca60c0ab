//! The Windows build, run for real under Wine (Debian's Wine 8), on this Linux machine.
//!
//! `tests/wine/setup.sh` installs Wine and the cross toolchain, builds `echo-server.exe`,
//! `file-server.exe` and `command-server.exe` for `x86_64-pc-windows-gnu`, and makes a Wine
//! prefix; `tests/wine/run.sh` starts one of them under Wine. Then:
//!
//! - the official clients (TypeScript 2.4.0, Python `mcp` 2.3.0, the same scripts as
//!   `interop`) drive `echo-server.exe` over stdio in both eras, and the server exits when
//!   its client closes stdin;
//! - `file-server.exe` is sent every Windows path trick (drive-relative, UNC and device
//!   paths, alternate data streams, reserved device names, trailing dots and spaces, 8.3
//!   short names, mixed slashes, case games with the extension, a link leading out), each
//!   through reads and writes: every one is refused, nothing outside its root is read or
//!   written, and plain paths still work;
//! - `command-server.exe` runs a program that starts a grandchild and waits forever: the
//!   call's timeout ends both (Wine runs each Windows process as a Linux process, so "no
//!   process behind" is checked in `/proc`).
//!
//! Where Wine differs from Windows: Wine 8 lacks `bcryptprimitives.dll`'s `ProcessPrng`
//! (a stand-in sits beside the programs, see `tests/wine/bcryptprimitives.c`); Wine's file
//! system is the Linux one seen through drive `Z:`, so 8.3 short names and alternate data
//! streams do not exist there (the refusals are lexical, before any I/O, which is what is
//! tested; on NTFS they are what stops the real trick), and a Unix symbolic link stands for
//! an NTFS link or junction. Job objects are Wine's own implementation.

use crate::interop::{LEGACY, MODERN, Sdk, assert_version, run_script_with};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// How long any one answer may take under Wine on a loaded machine: a bound for a wedged
/// process, not a speed check.
const ANSWER_DEADLINE: Duration = Duration::from_secs(120);

/// Builds the Windows programs and the Wine prefix once per test process.
fn wine() -> &'static Path {
    mcp_tests::setup("wine")
}

/// `tests/wine/run.sh`: the command that runs a Windows program under Wine.
fn run_sh() -> PathBuf {
    wine().join("run.sh")
}

/// A Linux path as the Windows programs see it under Wine: on drive `Z:`.
fn windows_path(path: &Path) -> String {
    format!("Z:{}", path.display()).replace('/', "\\")
}

fn client_against_echo(sdk: Sdk, mode: &str) -> Value {
    wine();
    let run = run_sh();
    // Each Windows process starts through Wine: the clients' limits, four times as long.
    run_script_with(
        sdk,
        mode,
        &[
            "--".as_ref(),
            "bash".as_ref(),
            run.as_os_str(),
            "echo-server.exe".as_ref(),
        ],
        &[("INTEROP_TIME_SCALE", "4")],
    )
}

#[test]
fn ts_legacy_against_echo_server_exe() {
    assert_version(&client_against_echo(Sdk::Ts, "legacy"), LEGACY);
}

#[test]
fn ts_modern_against_echo_server_exe() {
    assert_version(&client_against_echo(Sdk::Ts, "modern"), MODERN);
}

#[test]
fn python_legacy_against_echo_server_exe() {
    assert_version(&client_against_echo(Sdk::Python, "legacy"), LEGACY);
}

#[test]
fn python_modern_against_echo_server_exe() {
    assert_version(&client_against_echo(Sdk::Python, "2026-07-28"), MODERN);
}

/// A Windows server under Wine, spoken to line by line over its stdio.
struct WineServer {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<String>,
    next_id: i64,
}

impl WineServer {
    fn start(program: &str, args: &[&str]) -> Self {
        wine();
        let mut child = Command::new("bash")
            .arg(run_sh())
            .arg(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {program} under Wine: {e}"));
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().expect("piped");
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut server = Self {
            child,
            stdin,
            lines,
            next_id: 0,
        };
        let answer = server.request(
            "initialize",
            json!({
                "protocolVersion": LEGACY,
                "capabilities": {},
                "clientInfo": {"name": "wine-test", "version": "1"}
            }),
        );
        assert_eq!(answer["result"]["protocolVersion"], LEGACY, "{answer}");
        server.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        server
    }

    fn send(&mut self, message: &Value) {
        let stdin = self.stdin.as_mut().expect("stdin is open");
        writeln!(stdin, "{message}").expect("the server reads its stdin");
        stdin.flush().expect("flushed");
    }

    /// Sends a request and returns its answer (notifications in between are skipped).
    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let deadline = Instant::now() + ANSWER_DEADLINE;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = self
                .lines
                .recv_timeout(left)
                .unwrap_or_else(|e| panic!("no answer to {method} #{id}: {e}"));
            let message: Value = serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("not JSON from the server ({e}): {line}"));
            if message["id"] == id {
                return message;
            }
        }
    }

    /// Calls a tool; returns whether it failed (`isError`) and its text.
    fn call(&mut self, tool: &str, arguments: Value) -> (bool, String) {
        let answer = self.request("tools/call", json!({"name": tool, "arguments": arguments}));
        let result = &answer["result"];
        assert!(
            result.is_object(),
            "tools/call {tool} answered no result: {answer}"
        );
        let text = result["content"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|c| c["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n");
        (result["isError"] == true, text)
    }

    /// Closes stdin and waits for the server to exit; panics if it does not.
    fn close(mut self) -> std::process::ExitStatus {
        drop(self.stdin.take());
        let deadline = Instant::now() + ANSWER_DEADLINE;
        loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                return status;
            }
            assert!(
                Instant::now() < deadline,
                "the server did not exit after its client closed stdin"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for WineServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn echo_server_exe_exits_when_its_client_closes_stdin() {
    let mut server = WineServer::start("echo-server.exe", &[]);
    let (failed, text) = server.call("add", json!({"a": 2, "b": 3}));
    assert!(!failed && text == "5", "{text}");
    let status = server.close();
    assert!(status.success(), "echo-server.exe exited with {status}");
}

/// Every Windows path trick, through reads and writes: refused, with nothing outside the root
/// read or written; plain paths, spelled the Windows ways, still work.
#[test]
fn file_server_exe_refuses_windows_path_tricks() {
    let base = tempfile::tempdir().unwrap();
    let root = base.path().join("allowed");
    let outside = base.path().join("outside");
    std::fs::create_dir_all(root.join("sub")).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(root.join("notes.md"), "inside notes\n").unwrap();
    std::fs::write(root.join("sub").join("inner.md"), "inner\n").unwrap();
    std::fs::write(root.join("plain.txt"), "not an allowed extension\n").unwrap();
    std::fs::write(outside.join("secret.md"), "SECRET\n").unwrap();
    // A link inside the root that leads out (on NTFS: a symbolic link or a junction).
    std::os::unix::fs::symlink(&outside, root.join("escape")).unwrap();
    std::os::unix::fs::symlink(outside.join("secret.md"), root.join("secret-link.md")).unwrap();
    let before = snapshot(base.path());

    let win_root = windows_path(&root);
    let win_outside = windows_path(&outside);
    let mut server = WineServer::start("file-server.exe", &["--ext", "md", &win_root]);

    // Controls: the server works, with `\`, `/`, both, a drive path and any drive-letter case.
    for (path, want) in [
        ("notes.md".to_owned(), "inside notes"),
        (r"sub\inner.md".to_owned(), "inner"),
        (format!(r"{win_root}\sub/inner.md"), "inner"),
        (
            format!("{}/notes.md", win_root.replace('\\', "/")),
            "inside notes",
        ),
        (format!(r"z{}\NOTES.md", &win_root[1..]), "inside notes"),
        (r"sub\..\notes.md".to_owned(), "inside notes"),
    ] {
        let (failed, text) = server.call("read_text_file", json!({"path": path}));
        assert!(!failed && text.contains(want), "{path}: {text}");
    }

    let tricks = [
        // Climbing out, every separator.
        r"..\outside\secret.md".to_owned(),
        r"sub\..\..\outside\secret.md".to_owned(),
        r"sub/..\../outside/secret.md".to_owned(),
        format!(r"{win_outside}\secret.md"),
        format!(r"{win_root}\..\outside\secret.md"),
        // Drive-relative, root-relative, UNC and device paths.
        "Z:secret.md".to_owned(),
        r"Z:..\outside\secret.md".to_owned(),
        format!(r"{}\secret.md", &win_outside[2..]),
        format!(r"\\?\{win_outside}\secret.md"),
        format!(r"\\.\{win_outside}\secret.md"),
        format!(r"//?/{}/secret.md", win_outside.replace('\\', "/")),
        r"\\localhost\c$\windows\win.ini".to_owned(),
        r"\\127.0.0.1\share\secret.md".to_owned(),
        // Alternate data streams.
        "notes.md:hidden".to_owned(),
        "notes.md::$DATA".to_owned(),
        "plain.txt::$DATA".to_owned(),
        r"sub\inner.md:Zone.Identifier:$DATA".to_owned(),
        // Reserved device names.
        "CON".to_owned(),
        "nul".to_owned(),
        "NUL.md".to_owned(),
        "COM1.md".to_owned(),
        r"sub\lpt1.md".to_owned(),
        "con .md".to_owned(),
        // Trailing dots and spaces (Win32 drops them: `plain.txt.` would be `plain.txt`).
        "plain.txt.".to_owned(),
        "plain.txt ".to_owned(),
        "notes.md.".to_owned(),
        r"sub.\inner.md".to_owned(),
        // 8.3 short names.
        r"OUTSID~1\secret.md".to_owned(),
        "NOTES~1.MD".to_owned(),
        // The extension, whatever its case or what follows it.
        "plain.TXT".to_owned(),
        "plain.txt::$DATA.md".to_owned(),
        // Links leading out.
        r"escape\secret.md".to_owned(),
        "secret-link.md".to_owned(),
        format!(r"{win_root}\escape\secret.md"),
    ];
    for path in &tricks {
        let (failed, text) = server.call("read_text_file", json!({"path": path}));
        assert!(failed, "read {path:?} was not refused: {text}");
        assert!(!text.contains("SECRET"), "read {path:?} leaked: {text}");
        let (failed, text) = server.call(
            "write_file",
            json!({"path": path, "content": "OVERWRITTEN"}),
        );
        assert!(failed, "write {path:?} was not refused: {text}");
    }
    for dir in [
        r"escape".to_owned(),
        format!(r"\\?\{win_outside}"),
        "Z:".to_owned(),
    ] {
        let (failed, text) = server.call("list_directory", json!({"path": dir}));
        assert!(failed, "listing {dir:?} was not refused: {text}");
        assert!(!text.contains("secret"), "listing {dir:?} leaked: {text}");
    }
    assert_eq!(
        snapshot(base.path()),
        before,
        "something changed under the test's folder"
    );

    // A write inside still works, in the Windows spelling.
    let (failed, text) = server.call(
        "write_file",
        json!({"path": format!(r"{win_root}\sub\new.md"), "content": "new\n"}),
    );
    assert!(!failed, "{text}");
    assert_eq!(
        std::fs::read_to_string(root.join("sub/new.md")).unwrap(),
        "new\n"
    );
    assert_eq!(
        std::fs::read_to_string(outside.join("secret.md")).unwrap(),
        "SECRET\n"
    );
    assert!(server.close().success());
}

/// Every file under `dir` (not through links) with its content: what must not change.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let entry = entry.unwrap();
            let kind = entry.file_type().unwrap();
            if kind.is_dir() {
                stack.push(entry.path());
            } else if kind.is_file() {
                out.push((entry.path(), std::fs::read(entry.path()).unwrap()));
            } else {
                out.push((entry.path(), b"(link)".to_vec()));
            }
        }
    }
    out.sort();
    out
}

/// The ids of live (not zombie) Linux processes whose program (the first word of the command
/// line: under Wine, the Windows program's path) ends with `name`.
fn live_processes(name: &str) -> Vec<u32> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        let program = cmdline.split(|&b| b == 0).next().unwrap_or_default();
        if !String::from_utf8_lossy(program).ends_with(name) {
            continue;
        }
        let state = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
        // The state follows the command in parentheses: `pid (comm) S ...`.
        let live = state
            .rsplit_once(')')
            .is_some_and(|(_, rest)| !rest.trim_start().starts_with(['Z', 'X']));
        if live {
            out.push(pid);
        }
    }
    out
}

/// A program that starts a grandchild and waits forever is ended whole at the timeout: the
/// Job object takes the grandchild too.
#[test]
fn command_server_exe_timeout_leaves_no_process_behind() {
    let dir = tempfile::tempdir().unwrap();
    let tree = wine().join("../../target/cross/wine/bin/tree.exe");
    let tree = std::fs::canonicalize(tree).expect("tree.exe was built");
    let win_tree = windows_path(&tree);
    let mut server = WineServer::start(
        "command-server.exe",
        &[
            "--allow",
            &win_tree,
            "--root",
            &windows_path(dir.path()),
            "--timeout",
            "60",
        ],
    );
    assert!(
        live_processes("tree.exe").is_empty(),
        "tree.exe already running"
    );
    // Watches the tree while the call runs: both processes must have been seen alive, or
    // "none left" below would prove nothing.
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let watcher = {
        let stop = stop.clone();
        std::thread::spawn(move || {
            let mut most = 0;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                most = most.max(live_processes("tree.exe").len());
                std::thread::sleep(Duration::from_millis(50));
            }
            most
        })
    };
    let answer = server.request(
        "tools/call",
        json!({"name": "shell_execute", "arguments": {
            "command": [win_tree], "directory": ".", "timeout": 5
        }}),
    );
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let most = watcher.join().unwrap();
    assert!(
        most >= 2,
        "the child and its grandchild ran (seen at most {most})"
    );
    let text = answer["result"]["content"].to_string();
    assert!(
        text.contains("started"),
        "the grandchild was started: {answer}"
    );
    assert!(
        text.contains("timed out") || text.contains("timeout"),
        "the call reports its timeout: {answer}"
    );
    // The kill is asynchronous in Wine too: wait for the processes to be gone, or fail.
    let deadline = Instant::now() + ANSWER_DEADLINE;
    loop {
        let left = live_processes("tree.exe");
        if left.is_empty() {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "tree.exe processes outlived the timeout: {left:?}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(server.close().success());
}
