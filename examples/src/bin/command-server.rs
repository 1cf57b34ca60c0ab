//! `command-server`: a drop-in for the reference shell server (`mcp-shell-server`): the tool
//! `shell_execute` (`command` as an array, `directory`, `stdin`, `timeout`), over a
//! [`CommandService`]: no shell, only allowed programs (resolved once at start), options
//! allowed by name, a cleared environment, working directories confined to `--root`, the
//! whole process group killed at the timeout, output capped.
//!
//! ```text
//! command-server [--allow SPEC]... [--root DIR]... [--timeout SECS] [--max-output BYTES]
//!                [--confirm] [--transport stdio|http] [--bind ADDR]
//! ```
//!
//! - `--allow SPEC` (repeatable; also `ALLOW_COMMANDS` / `ALLOWED_COMMANDS`, comma-separated
//!   program names, as the reference reads them): a program and the options it may take,
//!   as words: `"ls -l -a --"`. An option ending in `=` takes a value (`"grep -i -e= --"`:
//!   `-e PATTERN` or `-e=PATTERN`); `--` means the program reads `--` as the end of
//!   options, so it is inserted before operands and file names that start with `-` are
//!   files; `*` allows any arguments (for programs without dangerous options: `"echo *"`).
//!   A bare name (and every name in `ALLOW_COMMANDS`) is the program's built-in profile
//!   when it has one ([`Program::known`]: `find`, `git`, `grep`, `sed`, `awk`, `tar`, `ls`,
//!   `cat`, ...: ordinary options allowed, the forms that run other programs or write
//!   where the caller chooses refused, launchers such as `xargs`, `env`, `sudo`, shells and
//!   interpreters refused outright), else operands only.
//! - `--root DIR` (repeatable): the directories commands may run in (and below); the
//!   current directory when none is given. `directory` in a call must lie inside one, and
//!   so must every operand or option value that names a path (`cat /etc/hostname`,
//!   `ls ../..` and a symlink leading out are refused; resolved by the `FileService`).
//!   Children get `HOME` = the first root (never the server's: its dotfiles, such as
//!   `~/.gitconfig`, are not the caller's to use) and `LANG`.
//! - `--timeout SECS`: the most a command may run (30); a call's `timeout` can only be
//!   shorter.
//! - `--max-output BYTES`: the most bytes kept of stdout, and of stderr (1 MiB each).
//! - `--confirm`: ask the user before every command ("Run `ls -l` in `.`?"), and run it only
//!   on accept; a client that cannot elicit gets an `isError` refusal.
//!
//! Differences from the reference, on purpose: no shell operators (`;`, `&&`, `|` in the
//! array are arguments, not a pipeline), and options are refused unless allowed by name
//! (the reference allows any argument once the first word is on its list, so
//! `find . -exec sh …` runs).

use clap::Parser;
use mcp_runtime::command::{CommandPolicy, CommandRequest, CommandService, Program};
use mcp_runtime::fs::{FileService, FsPolicy};
use mcp_runtime::launch::{ServeArgs, init_tracing};
use mcp_runtime::prelude::*;
use mcp_runtime::protocol::{CallToolResult, Content};
use mcp_runtime::tool::Confirm;
use serde_json::json;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

/// Command-line options.
#[derive(Debug, Parser)]
#[command(
    version,
    about = "An MCP server that runs allowed programs without a shell: the reference shell server's tool"
)]
struct Args {
    /// Allow a program and the options it takes: "PROGRAM [OPTION|OPTION=|--|*]..."
    /// (repeatable).
    #[arg(long = "allow", value_name = "SPEC")]
    allow: Vec<String>,

    /// A directory commands may run in, with everything below it (repeatable; default: the
    /// current directory).
    #[arg(long = "root", value_name = "DIR")]
    roots: Vec<PathBuf>,

    /// The most seconds a command may run.
    #[arg(long, value_name = "SECS", default_value_t = 30)]
    timeout: u64,

    /// The most bytes kept of stdout, and of stderr.
    #[arg(long, value_name = "BYTES", default_value_t = 1 << 20)]
    max_output: usize,

    /// Ask the user (elicitation) before every command; refuse when the client cannot be
    /// asked.
    #[arg(long)]
    confirm: bool,

    #[command(flatten)]
    serve: ServeArgs,
}

const TERMINAL_HINT: &str = "command-server: serving MCP on stdio; paste one JSON-RPC message per line, e.g.
{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"shell_execute\",\"arguments\":{\"command\":[\"ls\"],\"directory\":\".\"}}}
(Ctrl-D to quit)";

/// A program's rules from its `--allow` words.
fn program(spec: &str) -> Result<Program, String> {
    let mut words = spec.split_whitespace();
    let name = words.next().ok_or_else(|| "an empty --allow".to_owned())?;
    if spec.split_whitespace().count() == 1 {
        return Ok(Program::known(name));
    }
    let mut program = Program::new(name);
    for word in words {
        program = match word {
            "*" => program.any_arguments(),
            "--" => program.end_of_options(),
            w if w.starts_with('-') && w.len() > 2 && w.ends_with('=') => {
                program.options_with_value([&w[..w.len() - 1]])
            }
            w if w.starts_with('-') && w != "-" => program.options([w]),
            w => return Err(format!("--allow {spec:?}: {w:?} is not an option")),
        };
    }
    Ok(program)
}

/// Runs a command without a shell: `command` is the program (one of the allowed ones) and
/// its arguments, each a separate string.
#[mcp_tool(name = "shell_execute", destructive, open_world = false)]
async fn shell_execute(
    cx: RequestContext,
    #[mcp(inject)] run: CommandService,
    /// Command and its arguments as array
    command: Vec<String>,
    /// Working directory where the command will be executed
    directory: String,
    /// Input to be passed to the command via stdin
    stdin: Option<String>,
    /// Maximum execution time in seconds
    timeout: Option<u64>,
) -> CallToolResult {
    let Some((program, args)) = command.split_first() else {
        return CallToolResult::error("No command provided");
    };
    let mut request =
        CommandRequest::new(program.as_str(), args.iter().cloned()).directory(directory);
    if let Some(input) = stdin {
        request = request.stdin(input);
    }
    if let Some(secs) = timeout {
        request = request.timeout(Duration::from_secs(secs));
    }
    let allowed = run.programs();
    let out = match run.run_reporting(request, &cx).await {
        Ok(out) => out,
        Err(e) => {
            let names: Vec<&str> = allowed.iter().map(|(n, _)| n.as_str()).collect();
            return CallToolResult::error(format!("{e} (allowed programs: {})", names.join(", ")));
        }
    };
    let (stdout, stderr) = (out.stdout_text(), out.stderr_text());
    let status = out.exit_code.map_or(-1, i64::from);
    let mut content = vec![Content::text(stdout.clone())];
    if !stderr.is_empty() {
        content.push(Content::text(stderr.clone()));
    }
    let mut result = CallToolResult::success(content);
    result.structured_content = Some(json!({
        "stdout": stdout,
        "stderr": stderr,
        "status": status,
        "execution_time": out.duration.as_secs_f64(),
        "timed_out": out.timed_out,
    }));
    if out.timed_out {
        result.content.insert(
            0,
            Content::text(format!(
                "Command timed out after {:.1} seconds; its processes were killed.",
                out.duration.as_secs_f64()
            )),
        );
        result.is_error = Some(true);
    } else if status != 0 {
        result.content.insert(
            0,
            Content::text(match out.signal {
                Some(signal) => format!("Command was killed by signal {signal}"),
                None => format!("Command failed with exit code {status}"),
            }),
        );
        result.is_error = Some(true);
    }
    result
}

#[tokio::main]
async fn main() -> ExitCode {
    let args: Args = mcp_runtime::launch::parse();
    let _logs = init_tracing();
    let mut specs = args.allow.clone();
    for var in ["ALLOW_COMMANDS", "ALLOWED_COMMANDS"] {
        if let Ok(list) = std::env::var(var) {
            specs.extend(
                list.split(',')
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .map(str::to_owned),
            );
        }
    }
    let roots = if args.roots.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        args.roots.clone()
    };
    let home = std::path::absolute(&roots[0]).unwrap_or_else(|_| roots[0].clone());
    let mut policy = CommandPolicy::new()
        .timeout(Duration::from_secs(args.timeout))
        .max_output_bytes(args.max_output)
        .pass_env("LANG")
        .env("HOME", home);
    for spec in &specs {
        match program(spec) {
            Ok(p) => policy = policy.allow(p),
            Err(e) => {
                eprintln!("command-server: {e}");
                return ExitCode::from(2);
            }
        }
    }
    let files = match FileService::new(FsPolicy::new().allow_dirs(roots)) {
        Ok(files) => files,
        Err(e) => {
            eprintln!("command-server: {e}");
            return ExitCode::FAILURE;
        }
    };
    let run = match CommandService::new(policy, files) {
        Ok(run) => run.for_tool("shell_execute"),
        Err(e) => {
            eprintln!("command-server: {e}");
            return ExitCode::FAILURE;
        }
    };
    let names: Vec<String> = run.programs().into_iter().map(|(n, _)| n).collect();
    let mut builder = Server::builder(env!("CARGO_BIN_NAME"), env!("CARGO_PKG_VERSION"))
        .instructions(format!(
            "Runs programs without a shell. Allowed programs: {}. Pass the program and its \
             arguments as separate strings; shell syntax (pipes, ;, $(...)) is not interpreted.",
            if names.is_empty() {
                "none".to_owned()
            } else {
                names.join(", ")
            }
        ))
        .state(run)
        .tool(shell_execute::tool());
    if args.confirm {
        builder = builder.confirm_destructive(
            Confirm::new().message("Run the command {command} in {directory}?"),
        );
    }
    let server = builder.build();
    match server {
        Ok(server) => {
            args.serve
                .with_stdio_hint(TERMINAL_HINT)
                .serve(server)
                .await
        }
        Err(e) => {
            eprintln!("command-server: {e}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::program;

    #[test]
    fn allow_specs() {
        let grep = program("grep -i -e= --").unwrap();
        assert_eq!(
            grep.check(&["-i".into(), "-e".into(), "x".into(), "f".into()])
                .unwrap(),
            ["-i", "-e", "x", "--", "f"]
        );
        assert!(grep.check(&["-r".into()]).is_err());
        // A bare name: the program's profile.
        let find = program("find").unwrap();
        assert!(
            find.check(&[".".into(), "-name".into(), "*.txt".into()])
                .is_ok()
        );
        assert!(find.check(&[".".into(), "-delete".into()]).is_err());
        let echo = program("echo *").unwrap();
        assert!(echo.check(&["-n".into()]).is_ok());
        assert!(program("ls x").is_err());
        assert!(program("  ").is_err());
    }
}
