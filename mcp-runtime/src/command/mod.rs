//! Running programs for tools without a shell and without letting a caller choose what
//! runs: a [`CommandService`].
//!
//! The reference shell server (`mcp-server-shell`) checks the first word of a command
//! against an allowlist and then hands the rest to the program: `find . -exec sh -c …`,
//! `git -c core.sshCommand=…`, `sort -o ~/.bashrc` all pass, and the program that runs is
//! whatever `PATH` finds at call time. This service:
//!
//! - runs only programs of its [`CommandPolicy`], each **resolved once** when the service is
//!   built (a bare name through the server's `PATH`, or an absolute path; relative paths
//!   refused; set-user-ID and set-group-ID files refused), so neither the working directory
//!   nor `PATH` at call time changes which file runs, and a call names the program by its
//!   configured name only (`../../bin/sh` and `./ls` are not names on the list);
//! - passes arguments as separate strings, **never through a shell** (`;`, `|`, `$(…)` are
//!   bytes), and judges them by the program's [`Program`] rules: options allowed by name
//!   only, `--` inserted before operands where the program supports it;
//! - runs the child in a **working directory confined by the [`FileService`]**: opened
//!   through it (the same kernel-enforced rules as every file tool), entered by descriptor;
//! - gives it an environment **cleared** except `PATH` ([`DEFAULT_PATH`]) and the variables
//!   the policy names (never `LD_PRELOAD` and the other loader and interpreter hooks), stdin
//!   closed unless the call gives some, `no_new_privs` (Linux), and [`ResourceLimits`] set
//!   before `exec`;
//! - bounds it: a **timeout that kills the whole process group** (children and grandchildren;
//!   also when the call is cancelled, and after a normal exit, for stragglers), stdout and
//!   stderr each capped while they are read (the rest counted, not kept), a concurrency cap.
//!
//! - confines the **paths in its arguments**: every operand and option value that names a
//!   path (absolute, with `..`, or existing) is resolved by the [`FileService`], symlinks
//!   followed, and the run refused when one leads out of its directories (`cat
//!   /etc/hostname`, `ls ../../..`, a link to `/etc`); a pattern or a script that names
//!   nothing passes. Programs with [`Program::any_arguments`] are not judged.
//!
//! On Linux a grandchild that leaves the process group (`setsid`, a double fork) is killed
//! too: the program adopts its orphans (`PR_SET_CHILD_SUBREAPER`, so its whole tree is found
//! from it while it runs), and every process whose environment carries the run's
//! [`RUN_MARKER`] is killed at the end. One that both left the tree after the program
//! exited and cleared its environment escapes (as one that left the group does on macOS);
//! output reading stops one second after the kill, so it cannot hold a call open.
//! Containing that takes a cgroup or a container, which is the deployment's job.
//!
//! # On each system
//!
//! - **Linux**: all of the above.
//! - **macOS**: the same, without `no_new_privs` (Linux's). The resource limits are set the
//!   same way; how strictly each is enforced is the kernel's (macOS has been known not to
//!   enforce `RLIMIT_AS`), so bound memory with the deployment there.
//! - **Windows**: no shell, ever: the program is started directly (`CreateProcessW`, with
//!   the quoting Rust's `Command` gives each argument), never through `cmd /c`. A batch file
//!   (`.bat`, `.cmd`) is refused when the service is built unless its [`Program`] says
//!   [`Program::allow_batch_file`], since Windows runs it through `cmd.exe`, which parses the
//!   arguments again. A bare name is looked up in the server's `PATH` with `.exe`, then
//!   `.com` (never in the working directory). The child starts suspended, is put in its own
//!   **Job object** (kill-on-close), then resumed, so its whole tree, however it was
//!   started, ends at the timeout, on cancel and when the service drops it (there is no
//!   `setsid` escape; a job can only be left if it was created to allow that, and ours is
//!   not). A call lasts until every process of the job has ended or the timeout. The
//!   environment is cleared as elsewhere, `SystemRoot` added (Windows programs need it).
//!   The working directory is opened through the `FileService` and given to the child by
//!   the path Windows reports for that handle. [`ResourceLimits`] other than the CPU time
//!   derived from the timeout cannot be set before a Windows program runs, so a policy that
//!   sets them is refused by [`CommandService::new`], never silently weakened.
//!
//! ```no_run
//! use mcp_runtime::command::{CommandPolicy, CommandRequest, CommandService, Program};
//! use mcp_runtime::fs::{FileService, FsPolicy};
//! use mcp_runtime::prelude::*;
//!
//! /// Counts the lines of a file with `wc -l`.
//! #[mcp_tool]
//! async fn count_lines(#[mcp(inject)] run: CommandService, file: String) -> Result<String, String> {
//!     let out = run
//!         .run(CommandRequest::new("wc", ["-l", file.as_str()]))
//!         .await
//!         .map_err(|e| e.to_string())?;
//!     Ok(out.stdout_text())
//! }
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let files = FileService::new(FsPolicy::new().allow_dir("/srv/data"))?;
//! let run = CommandService::new(
//!     CommandPolicy::new().allow(Program::new("wc").options(["-l"]).end_of_options()),
//!     files,
//! )?;
//! let server = Server::builder("counter", "1.0.0")
//!     .state(run.for_tool("count_lines"))
//!     .tool(count_lines::tool())
//!     .build()?;
//! # let _ = server;
//! # Ok(())
//! # }
//! ```
//!
//! # Built-in profiles
//!
//! [`Program::known`] gives a well-known program a profile: its ordinary use allowed (any
//! option), the forms that run other programs or write where the caller chooses refused,
//! program by program (a program without a profile is [`Program::new`]'s: operands only):
//!
//! | program | refused |
//! | --- | --- |
//! | `find` | `-exec`, `-execdir`, `-ok`, `-okdir`, `-delete`, `-fprint`, `-fprint0`, `-fprintf`, `-fls` |
//! | `git` | global `-c`, `-C`, `--exec-path`, `--git-dir`, `--work-tree`, `--namespace`, `--config-env`, `--super-prefix`, `-p`/`--paginate`; every subcommand but the reading ones (`log`, `show`, `status`, `diff`, `blame`, `grep`, `ls-files`, `rev-parse`, ...); `--upload-pack`, `--receive-pack`, `--exec`, `--ext-diff`, `--textconv`, `-O`/`--open-files-in-pager`. Each run gets `--no-pager` and `-c` settings that turn off what a repository's or the user's configuration could make git run (fsmonitor, hooks, pager, editor, ssh, gpg, credential helpers, external diff, every transport protocol), and `diff`, `log`, `show` get `--no-ext-diff --no-textconv` |
//! | `sed` | `-i`/`--in-place` (also inside `-ni`); runs with `--sandbox` (GNU sed: the `e`, `w` and `r` commands refused by sed itself; a sed without it refuses to run) |
//! | `awk`, `gawk`, `mawk` | program text with `system`, `getline`, `|`, `>`, `@load` or `@include` (write comparisons with `<`); `-f`, `-E`, `-l`, `-i` and their long forms |
//! | `tar` | `--to-command`, `--checkpoint-action`, `--use-compress-program`/`-I`, `--rsh-command`, `--rmt-command`, `--info-script`, `--new-volume-script`/`-F`, `--absolute-names`/`-P` (also in an old-style first word such as `xPf`) |
//! | `sort` | `--compress-program` |
//! | `rg` | `--pre` |
//! | `xargs`, `env` (with arguments), `nice`, `timeout`, `nohup`, `setsid`, `stdbuf`, `sudo`, `doas`, `su`, `chroot`, `ionice`, `taskset`, `strace`, `ltrace`, `gdb`, `watch`, `time`, `flock`, `parallel`, `script`, `unbuffer`, `expect`, `busybox`, `ssh`, shells and interpreters (`sh`, `bash`, `python3`, `node`, ...) | every call: they exist to run another program |
//! | `grep`, `ls`, `cat`, `head`, `tail`, `wc`, `cut`, `uniq`, `diff`, `stat`, `du`, `file`, `jq`, `cp`, `mv`, `rm`, `mkdir`, `touch`, ... | nothing by name (any option) |
//!
//! Long options are also refused by any abbreviation GNU `getopt` would accept (`--to-com`).
//! Besides these rules, every operand and option value of a known program that names a path
//! is confined to the service's directories like any other program's (see above).
//!
//! # Audit
//!
//! Every run is an audit event on [`AUDIT_TARGET`]:
//! `operation = "run_command"`, `tool`, `program`, `args` (their count), `arguments` (only
//! with [`CommandPolicy::log_arguments`]), `exit` (-1 when killed by a signal), `signal`,
//! `timed_out`, `stdout_bytes`, `stderr_bytes`, `duration_ms`, `outcome` (`ok`, `denied`,
//! `error`) and `error` ([`CommandError::kind_label`]: never the message, which can quote an
//! argument).

mod policy;
mod profile;
mod spawn;
// Unix programs and process groups (`sh`, signals): the Windows path runs under Wine, in
// `tests/it/wine.rs`.
#[cfg(all(test, unix))]
mod tests;

pub use policy::{
    ArgumentCheck, CommandPolicy, DEFAULT_MAX_ARGS, DEFAULT_MAX_CONCURRENT,
    DEFAULT_MAX_OUTPUT_BYTES, DEFAULT_PATH, DEFAULT_TIMEOUT, Program, ResourceLimits,
};

use crate::context::{Extensions, FromContext, MissingState, RequestContext, State};
use crate::fs::{FileService, FsError};
use crate::pipeline::AUDIT_TARGET;
use std::ffi::OsString;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::sync::{Semaphore, mpsc};

/// The variable every child gets, with a value of its run's own: the processes of a run
/// that left its process group (`setsid`, a double fork) are found by it and killed with
/// the rest (Linux; see `spawn`).
pub const RUN_MARKER: &str = "MCP_COMMAND_RUN";

/// A value of [`RUN_MARKER`] no other run of this machine has: this process's id and a count.
fn run_marker() -> String {
    static RUNS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    format!("{}-{n}", std::process::id())
}

/// Refuses the run when an argument that may name a path (`paths`, relative to `dir`, the
/// working directory) leads out of the service's directories once resolved: `/etc/hostname`,
/// `../../..`, a symlink inside pointing out. What does not exist inside, or is no path at
/// all (a pattern, a sed script), passes.
async fn confine_paths(
    files: &FileService,
    program: &str,
    dir: &std::path::Path,
    paths: Vec<String>,
) -> Result<(), CommandError> {
    let candidates: Vec<(String, String)> = paths
        .into_iter()
        .filter(|p| !p.is_empty())
        .map(|p| {
            let absolute = dir.join(&p).to_string_lossy().into_owned();
            (p, absolute)
        })
        .collect();
    if candidates.is_empty() {
        return Ok(());
    }
    let leaving = files
        .leaving(candidates.iter().map(|(_, a)| a.clone()).collect())
        .await?;
    match leaving.first() {
        None => Ok(()),
        Some((absolute, why)) => {
            let argument = candidates
                .iter()
                .find(|(_, a)| a == absolute)
                .map_or_else(|| absolute.clone(), |(p, _)| p.clone());
            Err(CommandError::ArgumentRefused {
                program: program.to_owned(),
                argument,
                reason: format!("it names a path outside the allowed directories ({why})"),
            })
        }
    }
}

/// Why a program did not run. A program that ran and failed (non-zero exit, killed at the
/// timeout) is a [`CommandOutput`], not an error.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CommandError {
    /// The policy cannot be used: a program not found or set-user-ID, a forbidden variable.
    #[error("command policy: {0}")]
    Config(String),
    /// The program is not one the policy allows.
    #[error("program {0:?} is not allowed")]
    ProgramNotAllowed(String),
    /// An argument is refused by the program's rules.
    #[error("{program}: argument {argument:?} refused: {reason}")]
    ArgumentRefused {
        /// The program.
        program: String,
        /// The argument (empty when the refusal is about all of them).
        argument: String,
        /// Why.
        reason: String,
    },
    /// More stdin than [`CommandPolicy::max_stdin_bytes`].
    #[error("stdin larger than {0} bytes")]
    StdinTooLarge(usize),
    /// The working directory is refused or missing.
    #[error("working directory: {0}")]
    Directory(#[from] FsError),
    /// The program could not be started.
    #[error("{program} could not be started: {error}")]
    Spawn {
        /// The program.
        program: String,
        /// The system's reason.
        error: std::io::Error,
    },
}

impl CommandError {
    /// A short label for audit events and metrics (the message can quote an argument, which
    /// the audit leaves out unless told otherwise): `config`, `program_not_allowed`,
    /// `argument_refused`, `stdin_too_large`, `directory`, `spawn`.
    pub fn kind_label(&self) -> &'static str {
        match self {
            Self::Config(_) => "config",
            Self::ProgramNotAllowed(_) => "program_not_allowed",
            Self::ArgumentRefused { .. } => "argument_refused",
            Self::StdinTooLarge(_) => "stdin_too_large",
            Self::Directory(_) => "directory",
            Self::Spawn { .. } => "spawn",
        }
    }

    /// Whether the policy refused the run (rather than the system failing it).
    pub fn is_refusal(&self) -> bool {
        matches!(
            self,
            Self::ProgramNotAllowed(_) | Self::ArgumentRefused { .. } | Self::StdinTooLarge(_)
        ) || matches!(self, Self::Directory(e) if e.is_denial())
    }
}

/// One run: the program's configured name, its arguments, and optionally a working directory
/// (inside the [`FileService`]'s directories; its first directory when not given), stdin and
/// a shorter timeout.
#[derive(Debug, Clone)]
pub struct CommandRequest {
    program: String,
    args: Vec<String>,
    directory: Option<String>,
    stdin: Option<Vec<u8>>,
    timeout: Option<Duration>,
}

impl CommandRequest {
    /// `program` (its name as allowed) with `args`.
    pub fn new<I, S>(program: impl Into<String>, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Self {
            program: program.into(),
            args: args.into_iter().map(Into::into).collect(),
            directory: None,
            stdin: None,
            timeout: None,
        }
    }

    /// Runs in `dir` (a path the `FileService` accepts).
    pub fn directory(mut self, dir: impl Into<String>) -> Self {
        self.directory = Some(dir.into());
        self
    }

    /// Gives the program these bytes on stdin (closed otherwise).
    pub fn stdin(mut self, input: impl Into<Vec<u8>>) -> Self {
        self.stdin = Some(input.into());
        self
    }

    /// A timeout shorter than the policy's (a longer one is cut to the policy's).
    pub fn timeout(mut self, limit: Duration) -> Self {
        self.timeout = Some(limit);
        self
    }
}

/// What a run produced.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct CommandOutput {
    /// The exit code; `None` when a signal ended the program.
    pub exit_code: Option<i32>,
    /// The signal that ended the program, if one did.
    pub signal: Option<i32>,
    /// Whether the timeout ended it (its process group was killed).
    pub timed_out: bool,
    /// Stdout, up to the cap.
    pub stdout: Vec<u8>,
    /// Stderr, up to the cap.
    pub stderr: Vec<u8>,
    /// Bytes of stdout read past the cap and dropped.
    pub stdout_dropped: u64,
    /// Bytes of stderr read past the cap and dropped.
    pub stderr_dropped: u64,
    /// How long it ran.
    pub duration: Duration,
}

impl CommandOutput {
    /// Whether it exited with 0 in time.
    pub fn success(&self) -> bool {
        self.exit_code == Some(0) && !self.timed_out
    }

    /// Stdout as text (invalid UTF-8 replaced), with a `[… N more bytes of output cut]` line
    /// when the cap cut it.
    pub fn stdout_text(&self) -> String {
        marked(&self.stdout, self.stdout_dropped)
    }

    /// Stderr as text, marked like [`stdout_text`](Self::stdout_text).
    pub fn stderr_text(&self) -> String {
        marked(&self.stderr, self.stderr_dropped)
    }
}

fn marked(bytes: &[u8], dropped: u64) -> String {
    let mut text = String::from_utf8_lossy(bytes).into_owned();
    if dropped > 0 {
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str(&format!("[… {dropped} more bytes of output cut]"));
    }
    text
}

/// Which stream a chunk of output came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stream {
    /// Standard output.
    Stdout,
    /// Standard error.
    Stderr,
}

/// Runs allowed programs for tools: see the [module documentation](self). Cheap to clone;
/// injected into tools from the server's state.
#[derive(Clone)]
pub struct CommandService {
    inner: Arc<Inner>,
    tool: Option<Arc<str>>,
}

struct Inner {
    policy: CommandPolicy,
    programs: Vec<(Program, PathBuf)>,
    env: Vec<(String, OsString)>,
    files: FileService,
    permits: Semaphore,
}

impl std::fmt::Debug for CommandService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CommandService")
            .field("programs", &self.inner.programs)
            .field("tool", &self.tool)
            .finish_non_exhaustive()
    }
}

impl CommandService {
    /// Resolves every allowed program and checks the environment, once. Working
    /// directories are opened through `files`.
    pub fn new(policy: CommandPolicy, files: FileService) -> Result<Self, CommandError> {
        let programs = policy
            .programs
            .iter()
            .map(|p| Ok((p.clone(), policy::resolve_program(p)?)))
            .collect::<Result<Vec<_>, CommandError>>()?;
        // Windows cannot set these before a program runs: refused, not dropped.
        #[cfg(windows)]
        if let ResourceLimits {
            address_space: Some(_),
            ..
        }
        | ResourceLimits {
            open_files: Some(_),
            ..
        }
        | ResourceLimits {
            processes: Some(_), ..
        } = policy.limits
        {
            return Err(CommandError::Config(
                "resource limits (address space, open files, processes) are not available \
                 on Windows; the timeout and the Job object bound a program there"
                    .to_owned(),
            ));
        }
        let env = policy.environment()?;
        Ok(Self {
            inner: Arc::new(Inner {
                permits: Semaphore::new(policy.max_concurrent),
                policy,
                programs,
                env,
                files,
            }),
            tool: None,
        })
    }

    /// The same service, with audit events naming `tool`.
    pub fn for_tool(&self, tool: impl Into<Arc<str>>) -> Self {
        Self {
            inner: self.inner.clone(),
            tool: Some(tool.into()),
        }
    }

    /// The allowed programs: each configured name and the file it runs.
    pub fn programs(&self) -> Vec<(String, PathBuf)> {
        self.inner
            .programs
            .iter()
            .map(|(p, path)| (p.name.clone(), path.clone()))
            .collect()
    }

    /// Runs `request` to its end (or its timeout).
    pub async fn run(&self, request: CommandRequest) -> Result<CommandOutput, CommandError> {
        self.run_with(request, |_, _| {}).await
    }

    /// Runs `request`, telling the caller about the request's output as it arrives: each
    /// chunk becomes a progress notification (when the client asked for progress) whose
    /// message is the chunk's text, `stdout: ` or `stderr: ` first, at most 1,000 characters.
    pub async fn run_reporting(
        &self,
        request: CommandRequest,
        cx: &RequestContext,
    ) -> Result<CommandOutput, CommandError> {
        let (tx, mut rx) = mpsc::unbounded_channel::<String>();
        let run = self.run_with(request, move |stream, chunk| {
            let name = match stream {
                Stream::Stdout => "stdout: ",
                Stream::Stderr => "stderr: ",
            };
            let text: String = String::from_utf8_lossy(chunk).chars().take(1000).collect();
            let _ = tx.send(format!("{name}{text}"));
        });
        tokio::pin!(run);
        let mut sent = 0.0;
        loop {
            tokio::select! {
                result = &mut run => {
                    while let Ok(message) = rx.try_recv() {
                        sent += 1.0;
                        cx.progress(sent, None, Some(&message)).await;
                    }
                    return result;
                }
                Some(message) = rx.recv() => {
                    sent += 1.0;
                    cx.progress(sent, None, Some(&message)).await;
                }
            }
        }
    }

    /// Runs `request`, calling `on_output` with each chunk of output as it is read (before
    /// the cap: the callback sees what is dropped too).
    pub async fn run_with(
        &self,
        request: CommandRequest,
        on_output: impl FnMut(Stream, &[u8]) + Send,
    ) -> Result<CommandOutput, CommandError> {
        let started = Instant::now();
        let result = self.execute(&request, on_output).await;
        self.audit(&request, &result, started.elapsed());
        result
    }

    async fn execute(
        &self,
        request: &CommandRequest,
        mut on_output: impl FnMut(Stream, &[u8]) + Send,
    ) -> Result<CommandOutput, CommandError> {
        let inner = &*self.inner;
        let policy = &inner.policy;
        let (program, path) = inner
            .programs
            .iter()
            .find(|(p, _)| p.name == request.program)
            .ok_or_else(|| CommandError::ProgramNotAllowed(request.program.clone()))?;
        let (args, paths) = program.check_paths(&request.args)?;
        if let Some(input) = &request.stdin
            && input.len() > policy.max_stdin_bytes
        {
            return Err(CommandError::StdinTooLarge(policy.max_stdin_bytes));
        }
        let files = match &self.tool {
            Some(tool) => inner.files.for_tool(tool.clone()),
            None => inner.files.clone(),
        };
        let (dir, dir_path) = files
            .open_directory(request.directory.as_deref().unwrap_or("."))
            .await?;
        confine_paths(&files, &program.name, &dir_path.absolute(), paths).await?;
        let _permit = inner
            .permits
            .acquire()
            .await
            .map_err(|_| CommandError::Spawn {
                program: program.name.clone(),
                error: std::io::Error::other("service closed"),
            })?;
        let timeout = request
            .timeout
            .map_or(policy.timeout, |t| t.min(policy.timeout));
        let mut limits = policy.limits;
        if limits.cpu_seconds.is_none() {
            // The CPU a timeout can use, rounded up: a bound the kernel keeps even if this
            // process is too busy to.
            limits.cpu_seconds = Some(timeout.as_secs() + 1);
        }

        let marker = run_marker();
        let mut command = tokio::process::Command::new(path);
        #[cfg(unix)]
        command.arg0(&program.name);
        command
            .args(&args)
            .env_clear()
            .envs(inner.env.iter().map(|(k, v)| (k, v)))
            .env(RUN_MARKER, &marker)
            .stdin(if request.stdin.is_some() {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let spawn_error = |error| CommandError::Spawn {
            program: program.name.clone(),
            error,
        };
        spawn::confine(&mut command, &dir, limits).map_err(spawn_error)?;
        let started = Instant::now();
        // From here on, the whole tree dies with this future, however it ends.
        let mut child = spawn::Child::spawn(command, marker).map_err(spawn_error)?;
        drop(dir);
        let (stdin, stdout, stderr) = child.take_pipes();

        if let (Some(input), Some(mut stdin)) = (request.stdin.clone(), stdin) {
            tokio::spawn(async move {
                // A program that does not read its input closes the pipe: not an error.
                let _ = stdin.write_all(&input).await;
            });
        }
        let (tx, mut rx) = mpsc::channel::<(Stream, Vec<u8>)>(16);
        if let Some(out) = stdout {
            tokio::spawn(read_into(out, Stream::Stdout, tx.clone()));
        }
        if let Some(err) = stderr {
            tokio::spawn(read_into(err, Stream::Stderr, tx.clone()));
        }
        drop(tx);

        let cap = policy.max_output_bytes;
        let mut out = CommandOutput {
            exit_code: None,
            signal: None,
            timed_out: false,
            stdout: Vec::new(),
            stderr: Vec::new(),
            stdout_dropped: 0,
            stderr_dropped: 0,
            duration: Duration::ZERO,
        };
        let mut keep = |out: &mut CommandOutput, stream: Stream, chunk: &[u8]| {
            on_output(stream, chunk);
            let (buf, dropped) = match stream {
                Stream::Stdout => (&mut out.stdout, &mut out.stdout_dropped),
                Stream::Stderr => (&mut out.stderr, &mut out.stderr_dropped),
            };
            let room = cap.saturating_sub(buf.len()).min(chunk.len());
            buf.extend_from_slice(&chunk[..room]);
            *dropped += (chunk.len() - room) as u64;
        };

        let deadline = tokio::time::Instant::now() + timeout;
        let mut open = true;
        let status = loop {
            tokio::select! {
                status = child.wait() => break status,
                chunk = rx.recv(), if open => match chunk {
                    Some((stream, chunk)) => keep(&mut out, stream, &chunk),
                    None => open = false,
                },
                () = tokio::time::sleep_until(deadline) => {
                    out.timed_out = true;
                    child.kill_tree();
                    break child.wait().await;
                }
            }
        };
        // Stragglers (grandchildren still in the group) go now; then what they wrote is
        // read, for at most a second (a process that left the group may hold a pipe).
        child.kill_tree();
        let drain = tokio::time::Instant::now() + Duration::from_secs(1);
        while open {
            tokio::select! {
                chunk = rx.recv() => match chunk {
                    Some((stream, chunk)) => keep(&mut out, stream, &chunk),
                    None => open = false,
                },
                () = tokio::time::sleep_until(drain) => break,
            }
        }
        if let Some(status) = status {
            (out.exit_code, out.signal) = spawn::exit_of(status);
        }
        out.duration = started.elapsed();
        Ok(out)
    }

    fn audit(
        &self,
        request: &CommandRequest,
        result: &Result<CommandOutput, CommandError>,
        elapsed: Duration,
    ) {
        let tool = self.tool.as_deref().unwrap_or("");
        let program = request.program.as_str();
        let args = request.args.len() as u64;
        let arguments = if self.inner.policy.log_arguments {
            format!("{:?}", request.args)
        } else {
            String::new()
        };
        let duration_ms = elapsed.as_millis() as u64;
        match result {
            Ok(out) => tracing::info!(
                target: AUDIT_TARGET,
                operation = "run_command", tool, program, args, arguments,
                exit = out.exit_code.unwrap_or(-1) as i64,
                signal = out.signal.unwrap_or(0) as i64,
                timed_out = out.timed_out,
                stdout_bytes = out.stdout.len() as u64 + out.stdout_dropped,
                stderr_bytes = out.stderr.len() as u64 + out.stderr_dropped,
                duration_ms, outcome = "ok",
                "command run"
            ),
            Err(e) if e.is_refusal() => tracing::warn!(
                target: AUDIT_TARGET,
                operation = "run_command", tool, program, args, arguments, duration_ms,
                outcome = "denied", error = e.kind_label(),
                "command denied"
            ),
            Err(e) => tracing::info!(
                target: AUDIT_TARGET,
                operation = "run_command", tool, program, args, arguments, duration_ms,
                outcome = "error", error = e.kind_label(),
                "command failed"
            ),
        }
    }
}

/// Reads a pipe to its end in chunks, handing them on; stops when nobody listens.
async fn read_into(
    mut pipe: impl AsyncRead + Unpin,
    stream: Stream,
    tx: mpsc::Sender<(Stream, Vec<u8>)>,
) {
    let mut buf = vec![0u8; 16 << 10];
    loop {
        match pipe.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => {
                if tx.send((stream, buf[..n].to_vec())).await.is_err() {
                    return;
                }
            }
        }
    }
}

/// A parameter of type `CommandService` is the server's [`State<CommandService>`]: give it
/// with `ServerBuilder::state(run.for_tool("name"))`.
impl FromContext for CommandService {
    type Rejection = MissingState;

    fn from_context(cx: &RequestContext) -> Result<Self, MissingState> {
        State::<CommandService>::from_context(cx).map(|State(run)| run)
    }

    fn missing_state(extensions: &Extensions) -> Vec<MissingState> {
        State::<CommandService>::missing_state(extensions)
    }
}
