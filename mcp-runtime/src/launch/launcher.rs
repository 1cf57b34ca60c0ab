//! [`Launcher`]: a server binary's `main` in one expression, around [`ServeArgs`].

use super::config::with_config;
use super::{RuntimeFlavor, ServeArgs, Settings, init_tracing};
use crate::server::Server;
#[cfg(feature = "http")]
use crate::transport::http::HttpOptions;
use clap::builder::Resettable;
use clap::{Args, Command, FromArgMatches};
use std::ffi::OsString;
use std::fmt::Display;
use std::process::ExitCode;

/// A server binary's `main` in one expression: the program's name, version and description
/// (for `--help`, `--version` and error lines), what code sets beside the flags, and
/// [`run`](Self::run). Made by [`launcher!`](crate::launcher) with the calling package's
/// metadata, or by [`new`](Self::new).
///
/// ```no_run
/// use mcp_runtime::transport::http::{HttpOptions, LegacyMode};
///
/// # fn server() -> Result<mcp_runtime::Server, mcp_runtime::server::BuildError> {
/// #     mcp_runtime::Server::builder("demo", "0.1.0").build()
/// # }
/// fn main() -> std::process::ExitCode {
///     mcp_runtime::launcher!()
///         .http_options(HttpOptions::default().legacy_mode(LegacyMode::Stateless))
///         .run(server)
/// }
/// ```
#[derive(Debug, Clone)]
pub struct Launcher {
    name: String,
    version: String,
    about: Option<String>,
    settings: Settings,
    runtime: RuntimeFlavor,
}

impl Launcher {
    /// A launcher for the program `name` (the usage line and error messages) at `version`
    /// (`--version`). [`launcher!`](crate::launcher) fills both in from `Cargo.toml`.
    ///
    /// ```
    /// let launcher = mcp_runtime::launch::Launcher::new("weather", "1.2.0");
    /// assert!(launcher.command().render_version().contains("weather 1.2.0"));
    /// ```
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            version: version.into(),
            about: None,
            settings: Settings::default(),
            runtime: RuntimeFlavor::default(),
        }
    }

    /// What `--help` says the program is (an empty text says nothing).
    ///
    /// ```
    /// let launcher = mcp_runtime::launch::Launcher::new("weather", "1.2.0")
    ///     .about("Current weather for a city");
    /// assert!(launcher.command().render_help().to_string().contains("Current weather"));
    /// ```
    pub fn about(mut self, about: impl Into<String>) -> Self {
        let about = about.into();
        self.about = (!about.is_empty()).then_some(about);
        self
    }

    /// The base HTTP options the flags apply over; see [`ServeArgs::with_http_options`].
    ///
    /// ```
    /// use mcp_runtime::transport::http::{HttpOptions, LegacyMode};
    ///
    /// let launcher = mcp_runtime::launcher!()
    ///     .http_options(HttpOptions::default().legacy_mode(LegacyMode::Stateless));
    /// let args = launcher.try_parse_from(["demo"])?;
    /// assert!(format!("{:?}", args.http_options()).contains("Stateless"));
    /// # Ok::<(), clap::Error>(())
    /// ```
    #[cfg(feature = "http")]
    pub fn http_options(mut self, base: HttpOptions) -> Self {
        self.settings.http_options = base;
        self
    }

    /// The tokio runtime [`run`](Self::run) serves on: by default one thread for stdio and a
    /// pool for HTTP (see [`RuntimeFlavor`] for why, and when to choose otherwise).
    ///
    /// ```
    /// use mcp_runtime::launch::RuntimeFlavor;
    ///
    /// // Handlers that block: every transport on tokio's thread pool.
    /// let launcher = mcp_runtime::launcher!().runtime(RuntimeFlavor::MultiThread);
    /// # let _ = launcher;
    /// ```
    pub fn runtime(mut self, flavor: RuntimeFlavor) -> Self {
        self.runtime = flavor;
        self
    }

    /// The hint stdio shows when stdin is a terminal; see [`ServeArgs::with_stdio_hint`].
    ///
    /// ```
    /// let launcher = mcp_runtime::launcher!().stdio_hint("");
    /// # let _ = launcher;
    /// ```
    pub fn stdio_hint(mut self, hint: impl Into<String>) -> Self {
        self.settings.stdio_hint = Some(hint.into());
        self
    }

    /// The program's `clap` command: its name, version and about, with the [`ServeArgs`]
    /// options (for shell completions, or to check the help text in a test).
    ///
    /// ```
    /// let help = mcp_runtime::launcher!().command().render_long_help().to_string();
    /// assert!(help.contains("--transport"));
    /// ```
    pub fn command(&self) -> Command {
        self.finish(ServeArgs::augment_args(self.base_command()))
    }

    /// Parses `args` (the program's name first) into [`ServeArgs`] carrying this launcher's
    /// settings. `MCP_*` variables fill in what the arguments leave out, and `--config`'s
    /// file (or `MCP_CONFIG`'s) what both leave out ([`config`](super::config)).
    ///
    /// ```
    /// use mcp_runtime::launch::Transport;
    ///
    /// let args = mcp_runtime::launcher!().try_parse_from(["demo", "--transport", "stdio"])?;
    /// assert_eq!(args.transport, Transport::Stdio);
    /// assert!(mcp_runtime::launcher!().try_parse_from(["demo", "--transport", "pigeon"]).is_err());
    /// # Ok::<(), clap::Error>(())
    /// ```
    pub fn try_parse_from<I, T>(&self, args: I) -> Result<ServeArgs, clap::Error>
    where
        I: IntoIterator<Item = T>,
        T: Into<OsString> + Clone,
    {
        let args: Vec<OsString> = args.into_iter().map(Into::into).collect();
        let matches = with_config(self.command(), &args)?.try_get_matches_from(args)?;
        self.serve_args(&matches)
    }

    /// Runs the program: parses the command line (printing help, the version or a usage
    /// error and exiting, as clap does), sends logs to stderr ([`init_tracing`]), builds the
    /// server with `build` and serves it ([`ServeArgs::serve`]) on the tokio runtime
    /// [`runtime`](Self::runtime) chose (stdio on one thread, HTTP on a pool). If `build`
    /// fails, prints `NAME: error` to stderr and returns failure.
    ///
    /// `build` runs inside the runtime, so it may spawn tasks.
    ///
    /// ```no_run
    /// # fn server() -> Result<mcp_runtime::Server, mcp_runtime::server::BuildError> {
    /// #     mcp_runtime::Server::builder("demo", "0.1.0").build()
    /// # }
    /// fn main() -> std::process::ExitCode {
    ///     mcp_runtime::launcher!().run(server)
    /// }
    /// ```
    pub fn run<F, E>(self, build: F) -> ExitCode
    where
        F: FnOnce() -> Result<Server, E>,
        E: Display,
    {
        let matches = matches_of(self.command());
        let serve = self.serve_args(&matches).unwrap_or_else(|e| e.exit());
        self.launch(serve, build)
    }

    /// Like [`run`](Self::run), for a program with flags or arguments of its own: `A`'s
    /// arguments are parsed beside the [`ServeArgs`] options (they share one `--help`), and
    /// `build` gets them.
    ///
    /// ```no_run
    /// use std::path::PathBuf;
    ///
    /// /// The program's own arguments.
    /// #[derive(clap::Args)]
    /// struct Dirs {
    ///     /// The directories to serve.
    ///     #[arg(value_name = "DIR", required = true)]
    ///     dirs: Vec<PathBuf>,
    /// }
    ///
    /// # fn server(dirs: Vec<PathBuf>) -> Result<mcp_runtime::Server, mcp_runtime::server::BuildError> {
    /// #     mcp_runtime::Server::builder("demo", "0.1.0").build()
    /// # }
    /// fn main() -> std::process::ExitCode {
    ///     mcp_runtime::launcher!().run_with(|Dirs { dirs }| server(dirs))
    /// }
    /// ```
    pub fn run_with<A, F, E>(self, build: F) -> ExitCode
    where
        A: Args + FromArgMatches,
        F: FnOnce(A) -> Result<Server, E>,
        E: Display,
    {
        let matches = matches_of(self.command_with::<A>());
        let own = A::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
        let serve = self.serve_args(&matches).unwrap_or_else(|e| e.exit());
        self.launch(serve, || build(own))
    }

    /// The command without any arguments.
    fn base_command(&self) -> Command {
        Command::new(self.name.clone()).version(self.version.clone())
    }

    /// The command with `A`'s arguments first, then the [`ServeArgs`] options.
    pub(super) fn command_with<A: Args>(&self) -> Command {
        self.finish(ServeArgs::augment_args(A::augment_args(
            self.base_command(),
        )))
    }

    /// Sets the about text last: augmenting with an `Args` struct sets the command's about
    /// to that struct's doc comment, which describes the struct, not the program.
    fn finish(&self, command: Command) -> Command {
        let command = command.long_about(Resettable::Reset);
        match &self.about {
            Some(about) => command.about(about.clone()),
            None => command.about(Resettable::Reset),
        }
    }

    /// [`ServeArgs`] from parsed matches, with this launcher's settings.
    pub(super) fn serve_args(&self, matches: &clap::ArgMatches) -> Result<ServeArgs, clap::Error> {
        let mut serve = ServeArgs::from_arg_matches(matches)?;
        serve.settings = self.settings.clone();
        Ok(serve)
    }

    /// Logging, then [`serve_in_runtime`](Self::serve_in_runtime); the audit trail flushed at
    /// the end.
    fn launch<F, E>(self, serve: ServeArgs, build: F) -> ExitCode
    where
        F: FnOnce() -> Result<Server, E>,
        E: Display,
    {
        let _logs = init_tracing();
        self.serve_in_runtime(serve, build)
    }

    /// The runtime, the server, serving.
    #[allow(
        clippy::print_stderr,
        reason = "a server that cannot start says why on stderr"
    )]
    fn serve_in_runtime<F, E>(&self, serve: ServeArgs, build: F) -> ExitCode
    where
        F: FnOnce() -> Result<Server, E>,
        E: Display,
    {
        let runtime = match self.runtime.build(serve.transport) {
            Ok(runtime) => runtime,
            Err(e) => {
                eprintln!("{}: cannot start the async runtime: {e}", self.name);
                return ExitCode::FAILURE;
            }
        };
        runtime.block_on(async {
            match build() {
                Ok(server) => serve.serve(server).await,
                Err(e) => {
                    eprintln!("{}: {e}", self.name);
                    ExitCode::FAILURE
                }
            }
        })
    }
}

/// The program's arguments parsed by `command`, with `--config`'s file as the defaults;
/// help, the version or a usage error printed and the process ended, as clap does.
fn matches_of(command: Command) -> clap::ArgMatches {
    let args: Vec<OsString> = std::env::args_os().collect();
    with_config(command, &args)
        .and_then(|command| command.try_get_matches_from(args))
        .unwrap_or_else(|e| e.exit())
}
