//! Which programs a [`CommandService`](super::CommandService) runs, with which arguments,
//! environment and bounds.

use super::CommandError;
use std::collections::BTreeSet;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// A custom rule on a program's arguments (after the option checks): `Err(why)` refuses.
pub type ArgumentCheck = Arc<dyn Fn(&[String]) -> Result<(), String> + Send + Sync>;

/// One allowed program and the arguments it takes.
///
/// Arguments are judged one by one. One that starts with `-` is an *option* and must be
/// allowed by name: [`options`](Self::options) (flags), [`options_with_value`](Self::options_with_value)
/// (`-e VALUE`, `--regexp=VALUE`). Anything else is an *operand* and passes. So `find -exec`,
/// `git -c core.pager=…`, `sort --output=/etc/passwd` and `tar --to-command=…` are refused
/// unless allowed. With [`end_of_options`](Self::end_of_options) (for programs that read
/// `--` as "operands follow", most do) `--` is inserted before the first operand, after
/// which nothing is an option, so a file named `-rf` is a file; without it, an operand that
/// starts with `-` is refused (GNU tools read options anywhere, even after operands).
///
/// ```
/// use mcp_runtime::command::Program;
///
/// let grep = Program::new("grep")
///     .options(["-i", "-n", "-c"])
///     .options_with_value(["-e", "-m"])
///     .end_of_options();
/// assert_eq!(
///     grep.check(&["-i".into(), "-e".into(), "TODO".into(), "notes.md".into()]).unwrap(),
///     ["-i", "-e", "TODO", "--", "notes.md"]
/// );
/// assert!(grep.check(&["--include=*.rs".into()]).is_err());
/// ```
#[derive(Clone)]
pub struct Program {
    pub(crate) name: String,
    flags: BTreeSet<String>,
    with_value: BTreeSet<String>,
    end_of_options: bool,
    any: bool,
    max_args: usize,
    check: Option<ArgumentCheck>,
    batch_file: bool,
    profile: Option<super::profile::Profile>,
}

impl std::fmt::Debug for Program {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Program")
            .field("name", &self.name)
            .field("flags", &self.flags)
            .field("with_value", &self.with_value)
            .field("end_of_options", &self.end_of_options)
            .field("any", &self.any)
            .finish_non_exhaustive()
    }
}

/// The default of [`Program::max_args`]: 256 arguments.
pub const DEFAULT_MAX_ARGS: usize = 256;

impl Program {
    /// A program by name (looked up in the server's `PATH` once, when the service is built)
    /// or by absolute path; operands allowed, no option.
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            flags: BTreeSet::new(),
            with_value: BTreeSet::new(),
            end_of_options: false,
            any: false,
            max_args: DEFAULT_MAX_ARGS,
            check: None,
            batch_file: false,
            profile: None,
        }
    }

    /// A well-known program with its built-in profile (see the table in the
    /// [module documentation](super#built-in-profiles)): its ordinary use allowed, any
    /// option included, and each form that runs another program or writes where the caller
    /// chooses refused (`find -exec`, `git -c`, `sed -i`, `awk` with `system`, `xargs`, ...).
    /// A program without a profile is [`Program::new`]'s: operands only.
    ///
    /// ```
    /// use mcp_runtime::command::Program;
    ///
    /// let find = Program::known("find");
    /// let args = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    /// assert!(find.check(&args(&[".", "-name", "*.txt"])).is_ok());
    /// assert!(find.check(&args(&[".", "-exec", "sh", "{}", ";"])).is_err());
    /// assert!(Program::known("xargs").check(&args(&["sh"])).is_err());
    /// ```
    pub fn known(name: impl Into<String>) -> Self {
        let mut program = Self::new(name);
        program.profile = super::profile::profile_of(&program.name);
        program
    }

    /// Windows: allows this program to be a batch file (`.bat`, `.cmd`), refused otherwise.
    /// Windows runs a batch file through `cmd.exe`, which parses its arguments again by its
    /// own rules (`%VAR%`, `^`, `&`); Rust's `Command` escapes them for that since 1.77.2,
    /// and refuses arguments it cannot escape, but a batch file's own use of `%1` can still
    /// run what an argument says. Allow one only if you wrote it. No effect elsewhere.
    pub fn allow_batch_file(mut self) -> Self {
        self.batch_file = true;
        self
    }

    /// Allows these options, which take no value (`-l`, `--count`). Combined short flags
    /// (`-la`) are one option: allow them as written.
    pub fn options<I, S>(mut self, options: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.flags.extend(options.into_iter().map(Into::into));
        self
    }

    /// Allows these options with a value: the next argument (`-m 5`), or `--name=value`.
    /// The value is not judged (it may start with `-`).
    pub fn options_with_value<I, S>(mut self, options: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.with_value.extend(options.into_iter().map(Into::into));
        self
    }

    /// The program reads `--` as the end of options: it is inserted before the first operand
    /// (a `--` from the caller marks where operands start and is not repeated).
    pub fn end_of_options(mut self) -> Self {
        self.end_of_options = true;
        self
    }

    /// Any arguments at all, options included. Still no shell: they reach the program as
    /// separate strings. For programs without dangerous options (`echo`, `date`).
    pub fn any_arguments(mut self) -> Self {
        self.any = true;
        self
    }

    /// The most arguments a call may pass.
    pub fn max_args(mut self, limit: usize) -> Self {
        self.max_args = limit;
        self
    }

    /// A rule of your own on the arguments, after the option checks (as they will be passed,
    /// `--` included).
    pub fn check_with(
        mut self,
        check: impl Fn(&[String]) -> Result<(), String> + Send + Sync + 'static,
    ) -> Self {
        self.check = Some(Arc::new(check));
        self
    }

    /// The name as configured.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The arguments as they will be passed, or why they are refused.
    pub fn check(&self, args: &[String]) -> Result<Vec<String>, CommandError> {
        self.check_paths(args).map(|(args, _)| args)
    }

    /// [`check`](Self::check), with the arguments that may name paths (operands, option
    /// values), which the service confines to its directories. None for
    /// [`any_arguments`](Self::any_arguments): those are not judged.
    pub(crate) fn check_paths(
        &self,
        args: &[String],
    ) -> Result<(Vec<String>, Vec<String>), CommandError> {
        let refuse = |arg: &str, why: &str| CommandError::ArgumentRefused {
            program: self.name.clone(),
            argument: arg.to_owned(),
            reason: why.to_owned(),
        };
        if args.len() > self.max_args {
            return Err(refuse(
                "",
                &format!("more than {} arguments", self.max_args),
            ));
        }
        if let Some(bad) = args.iter().find(|a| a.contains('\0')) {
            return Err(refuse(bad, "arguments cannot contain NUL"));
        }
        let mut out = Vec::with_capacity(args.len() + 1);
        let mut paths = Vec::new();
        if let Some(profile) = self.profile {
            let checked = profile
                .check(args)
                .map_err(|(arg, why)| refuse(&arg, &why))?;
            out = checked.args;
            paths = checked.paths;
        } else if self.any {
            out.extend(args.iter().cloned());
        } else {
            let mut operands = false;
            let mut i = 0;
            while i < args.len() {
                let arg = &args[i];
                i += 1;
                if operands || !is_option(arg) {
                    if !operands && self.end_of_options {
                        out.push("--".to_owned());
                    }
                    operands |= self.end_of_options;
                    out.push(arg.clone());
                    paths.push(arg.clone());
                    continue;
                }
                if arg == "--" {
                    if !self.end_of_options {
                        return Err(refuse(arg, "this program does not take `--`"));
                    }
                    out.push("--".to_owned());
                    operands = true;
                    continue;
                }
                if self.flags.contains(arg.as_str()) {
                    out.push(arg.clone());
                } else if self.with_value.contains(arg.as_str()) {
                    let value = args
                        .get(i)
                        .ok_or_else(|| refuse(arg, "this option needs a value"))?;
                    i += 1;
                    out.push(arg.clone());
                    out.push(value.clone());
                    paths.push(value.clone());
                } else if arg
                    .split_once('=')
                    .is_some_and(|(name, _)| self.with_value.contains(name))
                {
                    out.push(arg.clone());
                    paths.extend(arg.split_once('=').map(|(_, value)| value.to_owned()));
                } else {
                    return Err(refuse(
                        arg,
                        "this option is not allowed (operands that start with `-` count as options)",
                    ));
                }
            }
        }
        if let Some(check) = &self.check {
            check(&out).map_err(|why| refuse("", &why))?;
        }
        Ok((out, paths))
    }
}

fn is_option(arg: &str) -> bool {
    arg.starts_with('-') && arg != "-"
}

/// Resource limits set on each child before it executes the program (`setrlimit`; `None`
/// leaves the server's own limit).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct ResourceLimits {
    /// CPU seconds (`RLIMIT_CPU`): the kernel kills a child that computes longer.
    pub cpu_seconds: Option<u64>,
    /// Address space in bytes (`RLIMIT_AS`).
    pub address_space: Option<u64>,
    /// Open files (`RLIMIT_NOFILE`).
    pub open_files: Option<u64>,
    /// Processes of the server's *user*, all of them counted (`RLIMIT_NPROC`): a bound on a
    /// fork bomb, but it also counts the user's other processes (and root ignores it). Off
    /// by default; the timeout's process-group kill ends a bomb that stays in its group.
    pub processes: Option<u64>,
}

/// 4 GiB of address space and 1,024 open files on Unix. None on Windows, where no limit can
/// be set before a program runs (one set there is refused by `CommandService::new`).
impl Default for ResourceLimits {
    fn default() -> Self {
        let unix = cfg!(unix);
        Self {
            cpu_seconds: None,
            address_space: unix.then_some(4 << 30),
            open_files: unix.then_some(1024),
            processes: None,
        }
    }
}

/// The rules of a [`CommandService`](super::CommandService): see the
/// [module documentation](super).
///
/// ```
/// use mcp_runtime::command::{CommandPolicy, Program};
/// use std::time::Duration;
///
/// let policy = CommandPolicy::new()
///     .allow(Program::new("ls").options(["-l", "-a"]).end_of_options())
///     .allow(Program::new("date").any_arguments())
///     .pass_env("LANG")
///     .timeout(Duration::from_secs(10))
///     .max_output_bytes(256 << 10);
/// # let _ = policy;
/// ```
#[derive(Debug, Clone)]
pub struct CommandPolicy {
    pub(crate) programs: Vec<Program>,
    pub(crate) env: Vec<(String, OsString)>,
    pub(crate) pass_env: Vec<String>,
    pub(crate) path: OsString,
    pub(crate) timeout: Duration,
    pub(crate) max_output_bytes: usize,
    pub(crate) max_stdin_bytes: usize,
    pub(crate) max_concurrent: usize,
    pub(crate) limits: ResourceLimits,
    pub(crate) log_arguments: bool,
}

/// The default of [`CommandPolicy::timeout`]: 30 seconds.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);
/// The default of [`CommandPolicy::max_output_bytes`]: 1 MiB for stdout, 1 MiB for stderr.
pub const DEFAULT_MAX_OUTPUT_BYTES: usize = 1 << 20;
/// The default of [`CommandPolicy::max_concurrent`]: 4 programs at once per service.
pub const DEFAULT_MAX_CONCURRENT: usize = 4;
/// The `PATH` children get by default (for the programs they start themselves; the allowed
/// programs are resolved once, from the server's own `PATH`).
#[cfg(not(windows))]
pub const DEFAULT_PATH: &str = "/usr/local/bin:/usr/bin:/bin";
/// The `PATH` children get by default (for the programs they start themselves; the allowed
/// programs are resolved once, from the server's own `PATH`): Windows' own folders.
#[cfg(windows)]
pub const DEFAULT_PATH: &str = r"C:\Windows\System32;C:\Windows";

impl Default for CommandPolicy {
    fn default() -> Self {
        Self {
            programs: Vec::new(),
            env: Vec::new(),
            pass_env: Vec::new(),
            path: DEFAULT_PATH.into(),
            timeout: DEFAULT_TIMEOUT,
            max_output_bytes: DEFAULT_MAX_OUTPUT_BYTES,
            max_stdin_bytes: DEFAULT_MAX_OUTPUT_BYTES,
            max_concurrent: DEFAULT_MAX_CONCURRENT,
            limits: ResourceLimits::default(),
            log_arguments: false,
        }
    }
}

/// Variables no child gets from the policy: they change what a program loads or runs.
fn forbidden_env(name: &str) -> bool {
    name.starts_with("LD_")
        || name.starts_with("DYLD_")
        || matches!(
            name,
            "PATH"
                | "BASH_ENV"
                | "ENV"
                | "SHELLOPTS"
                | "BASHOPTS"
                | "IFS"
                | "PS4"
                | "CDPATH"
                | "GCONV_PATH"
                | "PERL5OPT"
                | "PERL5LIB"
                | "PYTHONPATH"
                | "PYTHONSTARTUP"
                | "NODE_OPTIONS"
                | "RUBYOPT"
                | "GIT_CONFIG_PARAMETERS"
                | "GIT_SSH_COMMAND"
        )
}

impl CommandPolicy {
    /// No program allowed yet; the `DEFAULT_*` bounds.
    pub fn new() -> Self {
        Self::default()
    }

    /// Allows a program, with its argument rules.
    pub fn allow(mut self, program: Program) -> Self {
        self.programs.push(program);
        self
    }

    /// Gives children `name=value`. Refused when the service is built: `PATH` (see
    /// [`path`](Self::path)), `LD_*`, `DYLD_*` and the variables that make interpreters
    /// load code (`BASH_ENV`, `PERL5OPT`, `PYTHONPATH`, `NODE_OPTIONS`, ...).
    pub fn env(mut self, name: impl Into<String>, value: impl Into<OsString>) -> Self {
        self.env.push((name.into(), value.into()));
        self
    }

    /// Gives children the server's own value of `name`, read when the service is built (the
    /// same refusals as [`env`](Self::env)). Every other variable is cleared.
    pub fn pass_env(mut self, name: impl Into<String>) -> Self {
        self.pass_env.push(name.into());
        self
    }

    /// The `PATH` children get ([`DEFAULT_PATH`]). It never decides which allowed program
    /// runs: those are resolved once, when the service is built.
    pub fn path(mut self, path: impl Into<OsString>) -> Self {
        self.path = path.into();
        self
    }

    /// How long a program may run (a call may ask for less, not more); then its whole
    /// process group is killed.
    pub fn timeout(mut self, limit: Duration) -> Self {
        self.timeout = limit;
        self
    }

    /// The most bytes kept of stdout, and of stderr, each; the rest is read and counted, not
    /// kept.
    pub fn max_output_bytes(mut self, limit: usize) -> Self {
        self.max_output_bytes = limit;
        self
    }

    /// The most bytes a call may give on stdin.
    pub fn max_stdin_bytes(mut self, limit: usize) -> Self {
        self.max_stdin_bytes = limit;
        self
    }

    /// How many programs run at once; more wait.
    pub fn max_concurrent(mut self, limit: usize) -> Self {
        self.max_concurrent = limit.max(1);
        self
    }

    /// The resource limits set on each child.
    pub fn limits(mut self, limits: ResourceLimits) -> Self {
        self.limits = limits;
        self
    }

    /// Records each run's arguments in its audit event (off: only their count). Arguments
    /// can carry secrets; turn this on knowingly.
    pub fn log_arguments(mut self, on: bool) -> Self {
        self.log_arguments = on;
        self
    }

    /// The environment children get, checked.
    pub(crate) fn environment(&self) -> Result<Vec<(String, OsString)>, CommandError> {
        let mut env = vec![("PATH".to_owned(), self.path.clone())];
        // Windows programs cannot start sockets, among much else, without `SystemRoot`: it
        // names Windows' folder, chosen by no caller.
        #[cfg(windows)]
        if let Some(root) = std::env::var_os("SystemRoot") {
            env.push(("SystemRoot".to_owned(), root));
        }
        for name in &self.pass_env {
            if forbidden_env(name) {
                return Err(CommandError::Config(format!(
                    "the variable {name} cannot be given to programs"
                )));
            }
            if let Some(value) = std::env::var_os(name) {
                env.push((name.clone(), value));
            }
        }
        for (name, value) in &self.env {
            if forbidden_env(name) || name.is_empty() || name.contains('=') {
                return Err(CommandError::Config(format!(
                    "the variable {name:?} cannot be given to programs"
                )));
            }
            env.push((name.clone(), value.clone()));
        }
        Ok(env)
    }
}

/// Finds `program` once: an absolute path as given, a bare name in the server's `PATH`;
/// refuses relative paths (`./x`, `../../bin/sh`) and set-user-ID or set-group-ID files.
#[cfg(unix)]
pub(crate) fn resolve_program(program: &Program) -> Result<PathBuf, CommandError> {
    use std::os::unix::fs::PermissionsExt;
    let name = program.name.as_str();
    let not_found = |why: String| CommandError::Config(format!("program {name:?}: {why}"));
    for path in candidates(name, &['/'], &[""]).map_err(not_found)? {
        let Ok(meta) = std::fs::metadata(&path) else {
            continue;
        };
        let mode = meta.permissions().mode();
        if !meta.is_file() || mode & 0o111 == 0 {
            continue;
        }
        if mode & 0o6000 != 0 {
            return Err(not_found(format!(
                "{} is set-user-ID or set-group-ID: refused",
                path.display()
            )));
        }
        return Ok(path);
    }
    Err(not_found("no executable file found".to_owned()))
}

/// Finds `program` once, as Windows would but never in the working directory: an absolute
/// path (`C:\tools\x.exe`) as given; a bare name in the server's `PATH`, as given when it
/// has an extension, else with `.exe` then `.com`. Refuses relative paths (`.\x`,
/// `..\x`, `C:x`, `\x`), and batch files (`.bat`, `.cmd`) unless
/// [`Program::allow_batch_file`].
#[cfg(windows)]
pub(crate) fn resolve_program(program: &Program) -> Result<PathBuf, CommandError> {
    let name = program.name.as_str();
    let not_found = |why: String| CommandError::Config(format!("program {name:?}: {why}"));
    let has_extension = Path::new(name).extension().is_some();
    let extensions: &[&str] = if has_extension {
        &[""]
    } else {
        &[".exe", ".com"]
    };
    for path in candidates(name, &['/', '\\', ':'], extensions).map_err(not_found)? {
        let Ok(meta) = std::fs::metadata(&path) else {
            continue;
        };
        if !meta.is_file() {
            continue;
        }
        if is_batch_file(&path) && !program.batch_file {
            return Err(not_found(format!(
                "{} is a batch file, which cmd.exe runs with its own parsing of the \
                 arguments: refused (Program::allow_batch_file allows it)",
                path.display()
            )));
        }
        return Ok(path);
    }
    Err(not_found("no executable file found".to_owned()))
}

/// Whether Windows would run `path` through `cmd.exe`.
#[cfg_attr(not(windows), allow(dead_code))]
pub(crate) fn is_batch_file(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("bat") || e.eq_ignore_ascii_case("cmd"))
}

/// The files `name` may be: itself when it is a path (one of `separators` in it), which must
/// be absolute; else `name` plus each of `extensions` in each absolute `PATH` folder.
fn candidates(
    name: &str,
    separators: &[char],
    extensions: &[&str],
) -> Result<Vec<PathBuf>, String> {
    if name.contains(separators) {
        let path = Path::new(name);
        if !path.is_absolute() {
            return Err("give a bare name (looked up in PATH) or an absolute path".to_owned());
        }
        return Ok(vec![path.to_path_buf()]);
    }
    if name.is_empty() || name == "." || name == ".." {
        return Err("not a program name".to_owned());
    }
    Ok(std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .unwrap_or_default()
        .into_iter()
        // An empty or relative PATH entry is the working directory: never searched.
        .filter(|dir| dir.is_absolute())
        .flat_map(|dir| {
            extensions
                .iter()
                .map(move |ext| dir.join(format!("{name}{ext}")))
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn options_must_be_allowed_by_name() {
        let find = Program::new("find").options(["-type"]);
        let err = find.check(&args(&[".", "-exec", "sh", "-c", "id", ";"]));
        assert!(
            matches!(err, Err(CommandError::ArgumentRefused { ref argument, .. }) if argument == "-exec"),
            "{err:?}"
        );
        let git = Program::new("git").options(["status"]);
        assert!(git.check(&args(&["-c", "core.pager=id", "log"])).is_err());
        let sort = Program::new("sort");
        assert!(sort.check(&args(&["--output=/etc/passwd", "x"])).is_err());
        assert!(
            sort.check(&args(&["x", "-o", "y"])).is_err(),
            "GNU reads options after operands"
        );
        assert_eq!(sort.check(&args(&["a.txt", "-"])).unwrap(), ["a.txt", "-"]);
    }

    #[test]
    fn end_of_options_makes_dash_names_operands() {
        let ls = Program::new("ls").options(["-l"]).end_of_options();
        assert_eq!(ls.check(&args(&["-l", "a"])).unwrap(), ["-l", "--", "a"]);
        assert_eq!(ls.check(&args(&["--", "-rf"])).unwrap(), ["--", "-rf"]);
        assert_eq!(ls.check(&args(&["a", "-rf"])).unwrap(), ["--", "a", "-rf"]);
        assert!(ls.check(&args(&["-rf"])).is_err());
        assert_eq!(ls.check(&args(&[])).unwrap(), Vec::<String>::new());
        assert!(Program::new("echo").check(&args(&["--"])).is_err());
    }

    #[test]
    fn values_and_metacharacters() {
        let grep = Program::new("grep").options_with_value(["-e", "--regexp"]);
        assert_eq!(
            grep.check(&args(&["-e", "-v", "f; rm -rf / $(id) `id` | x"]))
                .unwrap(),
            ["-e", "-v", "f; rm -rf / $(id) `id` | x"]
        );
        assert!(grep.check(&args(&["--regexp=x"])).is_ok());
        assert!(grep.check(&args(&["--regexp-other=x"])).is_err());
        assert!(grep.check(&args(&["-e"])).is_err());
        assert!(grep.check(&args(&["a\0b"])).is_err());
        let few = Program::new("echo").any_arguments().max_args(2);
        assert!(few.check(&args(&["a", "b", "c"])).is_err());
        assert_eq!(few.check(&args(&["-n", "x"])).unwrap(), ["-n", "x"]);
        let custom = Program::new("cat").check_with(|a| {
            if a.iter().any(|x| x.ends_with(".key")) {
                Err("no keys".into())
            } else {
                Ok(())
            }
        });
        assert!(custom.check(&args(&["id.key"])).is_err());
    }

    /// The lookup rules Windows uses, tested on every host: batch files are told apart by
    /// their extension in any case, and a name with any separator Windows reads (`\\`, `/`,
    /// a drive's `:`) must be an absolute path, never one relative to the working directory.
    #[test]
    fn windows_lookup_rules() {
        for batch in ["x.bat", "X.BAT", "run.Cmd", r"C:\tools\a.cmd"] {
            assert!(is_batch_file(Path::new(batch)), "{batch}");
        }
        for program in ["x.exe", "x.com", "x", "x.bat.exe", "bat"] {
            assert!(!is_batch_file(Path::new(program)), "{program}");
        }
        let windows = ['/', '\\', ':'];
        for relative in [
            r".\x.exe",
            r"..\x.exe",
            "C:x.exe",
            r"tools\x.exe",
            "a/b.exe",
        ] {
            let refused = candidates(relative, &windows, &[""]).unwrap_err();
            assert!(refused.contains("absolute path"), "{relative}: {refused}");
        }
        for name in ["", ".", ".."] {
            assert!(candidates(name, &windows, &[".exe"]).is_err(), "{name:?}");
        }
        // A bare name is tried with each extension in each absolute PATH folder, in order.
        let found = candidates("git", &windows, &[".exe", ".com"]).unwrap();
        for pair in found.chunks(2) {
            assert!(pair[0].to_string_lossy().ends_with("git.exe"), "{pair:?}");
            assert!(pair[1].to_string_lossy().ends_with("git.com"), "{pair:?}");
        }
    }

    #[test]
    #[cfg(unix)]
    fn programs_resolve_once_and_never_relatively() {
        assert!(resolve_program(&Program::new("sh")).unwrap().is_absolute());
        for bad in ["../../bin/sh", "./sh", "bin/sh", "", ".."] {
            assert!(resolve_program(&Program::new(bad)).is_err(), "{bad:?}");
        }
        assert!(resolve_program(&Program::new("/bin/sh")).is_ok());
        assert!(resolve_program(&Program::new("no-such-program-xyz")).is_err());
    }

    #[test]
    fn the_environment_refuses_loader_variables() {
        for name in [
            "LD_PRELOAD",
            "LD_LIBRARY_PATH",
            "DYLD_INSERT_LIBRARIES",
            "PATH",
            "BASH_ENV",
        ] {
            assert!(
                CommandPolicy::new().env(name, "x").environment().is_err(),
                "{name}"
            );
            assert!(
                CommandPolicy::new().pass_env(name).environment().is_err(),
                "{name}"
            );
        }
        let env = CommandPolicy::new().env("LANG", "C").environment().unwrap();
        assert_eq!(env[0].0, "PATH");
        assert_eq!(env[1], ("LANG".to_owned(), "C".into()));
    }
}
