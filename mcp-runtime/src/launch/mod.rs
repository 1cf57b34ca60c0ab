//! A server binary's command line: the flags every server takes, its logs, and serving until
//! the client goes away or the process is told to stop. Generated projects and the example
//! servers all start here, so an option added to [`ServeArgs`] reaches every server at once.
//! (This is the *server's* command line; `cargo mcp` is the `mcp-runtime-cli` package.)
//!
//! Two ways in:
//!
//! - **One line.** [`launcher!`](crate::launcher) takes the calling package's name, version
//!   and description for `--help` and `--version`; [`Launcher::run`] parses the command line,
//!   sets up logging, builds the server and serves it:
//!
//!   ```no_run
//!   # fn server() -> Result<mcp_runtime::Server, mcp_runtime::server::BuildError> {
//!   #     mcp_runtime::Server::builder("demo", "0.1.0").build()
//!   # }
//!   fn main() -> std::process::ExitCode {
//!       mcp_runtime::launcher!().run(server)
//!   }
//!   ```
//!
//!   A server with flags of its own declares them in a `#[derive(clap::Args)]` struct and
//!   uses [`Launcher::run_with`].
//!
//! - **Your own parser.** [`ServeArgs`] is a `#[derive(clap::Args)]` struct: flatten it into
//!   your `#[derive(clap::Parser)]` (the way cargo's and axum's users compose argument
//!   structs), call [`init_tracing`], then [`ServeArgs::serve`]. This is for a `main` that
//!   does more than build a server, or runs on a runtime of its choosing (see the
//!   `file-server` and `echo-server` examples).
//!
//! The decisions:
//!
//! - **stdout is the protocol.** Logs go to stderr ([`init_tracing`]); so do the stdio hint,
//!   the HTTP URL and every error. `--help` and `--version` print to stdout and exit before
//!   anything is served.
//! - **`--bind` defaults to `127.0.0.1:0`**: loopback only, on a free port, and the URL
//!   (`NAME: serving MCP over Streamable HTTP at http://127.0.0.1:PORT/mcp`, the URL last) is
//!   printed to stderr once it listens. Two servers on one machine never collide, and nothing
//!   is reachable from other machines by accident. Give a port (`--bind 127.0.0.1:8000`, or
//!   `MCP_BIND`) when a client's configuration names a fixed URL.
//! - **A non-loopback `--bind` needs bearer tokens** (`--token-file`, `MCP_BEARER_TOKEN`) or an
//!   explicit `--allow-unauthenticated`; tokens are never flags, where `ps` shows them (see
//!   [`Access`]), or OAuth (`--oauth-issuer` and `--oauth-audience`, feature `oauth`: tokens
//!   verified against the issuer's keys, see `oauth`).
//! - **Deployment by environment.** Every flag a container or service manager sets has an
//!   `MCP_*` variable (see [`ServeArgs`]); a flag on the command line wins over its variable.
//!   `--allow-unauthenticated` has none: turning authentication off stays visible in the
//!   command.
//! - **Code sets the base, flags adjust it.** A server's own HTTP options (say, stateless
//!   legacy mode) are given with [`Launcher::http_options`] or [`ServeArgs::with_http_options`];
//!   the flags apply on top, and a flag left out leaves the base as it is.
//! - **Without the `http` feature** the HTTP flags do not exist and `--transport http` is an
//!   invalid value (clap lists the possible ones), rather than a flag that fails at run time.
//! - **HTTP serves until Ctrl-C or SIGTERM**, then shuts down gracefully
//!   ([`HttpServer::run`](crate::transport::http::HttpServer::run)); stdio serves until the
//!   client closes stdin. Exit codes: 0 then, 1 when the server cannot be built or the
//!   transport fails, 2 on a usage error (clap's).
//!
//! This module sits above [`transport`](crate::transport) and [`server`](crate::server) and
//! uses them; nothing in the crate uses it.

use crate::server::Server;
#[cfg(feature = "http")]
use crate::transport::http::{Access, HttpOptions, HttpServer, LegacyMode};
#[cfg(feature = "http")]
use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use clap::{Args, ValueEnum};
use std::process::ExitCode;

pub mod config;
mod launcher;
mod logs;
#[cfg(feature = "oauth")]
mod oauth;
mod runtime;
#[cfg(feature = "oauth")]
pub use oauth::OAUTH_CLIENT_SECRET_ENV;
#[cfg(test)]
mod tests;

pub use crate::telemetry::AuditSink;
pub use launcher::Launcher;
pub use logs::{LogGuard, init_tracing};
pub use runtime::RuntimeFlavor;

/// The `tracing` filter [`init_tracing`] uses when `RUST_LOG` is not set: warnings, errors
/// and the audit trail (one [`AUDIT_TARGET`](crate::pipeline::AUDIT_TARGET) event per
/// request).
pub const DEFAULT_LOG_FILTER: &str = "warn,mcp::audit=info";

/// Where `--transport http` listens unless told otherwise: loopback, on a free port.
pub const DEFAULT_BIND: &str = "127.0.0.1:0";

/// The options every server binary takes; flatten it into your own `clap::Parser`.
///
/// | flag | variable | default |
/// | --- | --- | --- |
/// | `--transport stdio\|http` | `MCP_TRANSPORT` | `stdio` |
/// | `--bind ADDR` | `MCP_BIND` | [`DEFAULT_BIND`] (`127.0.0.1:0`) |
/// | `--legacy-mode sessionful\|stateless` | `MCP_LEGACY_MODE` | the server's [`HttpOptions`] (sessionful unless it says otherwise) |
/// | `--allowed-host HOST`... | `MCP_ALLOWED_HOSTS` (comma-separated) | none |
/// | `--allowed-origin ORIGIN`... | `MCP_ALLOWED_ORIGINS` (comma-separated) | none |
/// | `--token-file FILE` | `MCP_TOKEN_FILE` (and `MCP_BEARER_TOKEN`, one token) | none |
/// | `--allow-unauthenticated` | none | off |
/// | `--oauth-issuer URL` (feature `oauth`) | `MCP_OAUTH_ISSUER` | none |
/// | `--oauth-audience URL` (feature `oauth`) | `MCP_OAUTH_AUDIENCE` | none |
/// | `--oauth-scope SCOPE`... (feature `oauth`) | `MCP_OAUTH_SCOPES` (comma-separated) | none |
/// | `--oauth-client-id ID` (feature `oauth`) | `MCP_OAUTH_CLIENT_ID` (secret: `MCP_OAUTH_CLIENT_SECRET`) | none |
/// | `--redis URL` | `MCP_REDIS_URL` | none (state in this process) |
/// | `--config FILE` | `MCP_CONFIG` | none: every flag above (and the server's own) from a TOML file ([`config`]) |
///
/// All but `--transport` and `--redis` come with the `http` feature; `--redis` needs the
/// `redis` feature (without it, it is answered with a message naming the feature). The
/// fields are public to read; the struct gains fields as servers gain options, so it is built by clap, not by hand.
///
/// ```
/// use clap::Parser;
/// use mcp_runtime::launch::{ServeArgs, Transport};
///
/// /// A server with a flag of its own.
/// #[derive(Debug, Parser)]
/// #[command(version, about)]
/// struct Args {
///     /// Refuse every change.
///     #[arg(long)]
///     read_only: bool,
///     #[command(flatten)]
///     serve: ServeArgs,
/// }
///
/// let args = Args::try_parse_from(["demo", "--read-only", "--transport", "http"])?;
/// assert!(args.read_only);
/// assert_eq!(args.serve.transport, Transport::Http);
/// # Ok::<(), clap::Error>(())
/// ```
#[derive(Debug, Clone, Args)]
#[non_exhaustive]
pub struct ServeArgs {
    /// How to talk to the client: `stdio` (newline-delimited JSON on stdin and stdout, what
    /// desktop clients start) or `http` (Streamable HTTP at http://ADDR/mcp).
    #[arg(long, value_enum, env = "MCP_TRANSPORT", default_value_t = Transport::Stdio)]
    pub transport: Transport,

    /// Where `--transport http` listens (port 0 picks a free port). The endpoint's URL is
    /// printed to stderr once it listens. An address other than loopback needs
    /// `--token-file` (or `MCP_BEARER_TOKEN`) or `--allow-unauthenticated`.
    #[cfg(feature = "http")]
    #[arg(long, value_name = "ADDR", env = "MCP_BIND", default_value = DEFAULT_BIND)]
    pub bind: String,

    /// How `--transport http` serves clients of the 2025 revisions (the `initialize`
    /// handshake); clients of 2026-07-28 are stateless either way. Default: the server's own
    /// choice, `sessionful` unless it says otherwise.
    #[cfg(feature = "http")]
    #[arg(long, value_name = "MODE", env = "MCP_LEGACY_MODE", value_parser = legacy_mode_parser())]
    pub legacy_mode: Option<LegacyMode>,

    /// Also accept this Host header (a DNS name the server is reached by, `name` or
    /// `name:port`); localhost and IP addresses are always accepted. Repeatable.
    #[cfg(feature = "http")]
    #[arg(
        long = "allowed-host",
        value_name = "HOST",
        env = "MCP_ALLOWED_HOSTS",
        value_delimiter = ','
    )]
    pub allowed_hosts: Vec<String>,

    /// Also accept requests from this browser Origin (`https://app.example.com`); loopback
    /// origins are always accepted. Repeatable.
    #[cfg(feature = "http")]
    #[arg(
        long = "allowed-origin",
        value_name = "ORIGIN",
        env = "MCP_ALLOWED_ORIGINS",
        value_delimiter = ','
    )]
    pub allowed_origins: Vec<String>,

    /// Trust this proxy in front of the server (an address or a CIDR network,
    /// `10.0.0.0/8`): for a request from it, the client's address (what per-caller limits,
    /// rate limits and the audit count by) is read from `Forwarded`/`X-Forwarded-For`.
    /// Without it those headers are ignored, so a client cannot claim another's address.
    /// Repeatable.
    #[cfg(feature = "http")]
    #[arg(
        long = "trust-proxy",
        value_name = "CIDR",
        env = "MCP_TRUST_PROXY",
        value_delimiter = ',',
        value_parser = proxy_network
    )]
    pub trusted_proxies: Vec<String>,

    /// At most this many requests per caller (an authenticated identity, else the client's
    /// address: see `--trust-proxy` behind a proxy), as `N/s`, `N/m` or `N/h`; over it, 429
    /// with `Retry-After`. None by default.
    #[cfg(feature = "http")]
    #[arg(long = "rate-limit", value_name = "RATE", env = "MCP_RATE_LIMIT")]
    pub rate_limit: Option<crate::tool::Rate>,

    /// Require `Authorization: Bearer <token>` with a token from this file (one per line:
    /// `token` or `name token`; 16 bytes or more). `MCP_BEARER_TOKEN` adds one more. Tokens
    /// are never taken on the command line, where `ps` shows them.
    #[cfg(feature = "http")]
    #[arg(long, value_name = "FILE", env = "MCP_TOKEN_FILE")]
    pub token_file: Option<std::path::PathBuf>,

    /// Serve a non-loopback `--bind` address without tokens (refused otherwise): only when a
    /// proxy in front authenticates. A warning is logged.
    #[cfg(feature = "http")]
    #[arg(long)]
    pub allow_unauthenticated: bool,

    /// Verify OAuth access tokens issued by the authorization server at this issuer URL
    /// (`https://auth.example.com`; `http://` only on loopback): JWTs against its published
    /// keys, bound to `--oauth-audience`. Serves the protected-resource metadata clients use
    /// to log in. Instead of `--token-file`; allows a non-loopback `--bind`.
    #[cfg(feature = "oauth")]
    #[arg(
        long,
        value_name = "URL",
        env = "MCP_OAUTH_ISSUER",
        requires = "oauth_audience"
    )]
    pub oauth_issuer: Option<String>,

    /// This server's canonical URL as clients reach it (`https://mcp.example.com/mcp`):
    /// tokens whose `aud` does not name it are refused.
    #[cfg(feature = "oauth")]
    #[arg(
        long,
        value_name = "URL",
        env = "MCP_OAUTH_AUDIENCE",
        requires = "oauth_issuer"
    )]
    pub oauth_audience: Option<String>,

    /// A scope this server uses, published in its metadata (`scopes_supported`). Repeatable.
    #[cfg(feature = "oauth")]
    #[arg(
        long = "oauth-scope",
        value_name = "SCOPE",
        env = "MCP_OAUTH_SCOPES",
        value_delimiter = ','
    )]
    pub oauth_scopes: Vec<String>,

    /// Introspect opaque (non-JWT) tokens at the issuer as this OAuth client; its secret is
    /// read from `MCP_OAUTH_CLIENT_SECRET`, never from the command line.
    #[cfg(feature = "oauth")]
    #[arg(
        long,
        value_name = "ID",
        env = "MCP_OAUTH_CLIENT_ID",
        requires = "oauth_issuer"
    )]
    pub oauth_client_id: Option<String>,

    /// Share tasks, spent requestState nonces and notifications with the other instances
    /// of this server through the Redis at this URL (`redis://[:password@]host[:port][/db]`),
    /// so that any request can land on any instance. The password is better given in the
    /// variable than on the command line, where `ps` shows it.
    /// Without the `redis` feature it is accepted and answered with a one-line message
    /// saying which feature to turn on (exit code 2), as `--transport http` is without
    /// `http`.
    #[arg(long, value_name = "URL", env = "MCP_REDIS_URL")]
    pub redis: Option<String>,

    /// Read flags from this TOML file, each under its long name (`bind = "0.0.0.0:8000"`,
    /// `trust-proxy = ["10.0.0.0/8"]`); a flag on the command line or its `MCP_*` variable
    /// overrides the file. Found before the rest is parsed: [`Launcher`] and [`parse`] read
    /// it (see [`config`]).
    #[arg(long, value_name = "FILE", env = config::CONFIG_ENV)]
    pub config: Option<std::path::PathBuf>,

    /// What code sets (not flags): the base HTTP options and the stdio hint.
    #[arg(skip)]
    settings: Settings,
}

/// The transports a server speaks (`--transport`). `Http` needs the `http` feature: a server
/// built without it accepts `--transport http` on the command line and answers it with a
/// one-line message saying which feature to turn on (exit code 2), rather than clap's list
/// of values without a word on why `http` is missing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
#[non_exhaustive]
pub enum Transport {
    /// Newline-delimited JSON-RPC on stdin and stdout.
    Stdio,
    /// Streamable HTTP at `http://ADDR/mcp`.
    Http,
}

/// `--legacy-mode`'s values, parsed straight into the transport's [`LegacyMode`].
#[cfg(feature = "http")]
fn legacy_mode_parser() -> impl TypedValueParser<Value = LegacyMode> {
    PossibleValuesParser::new([
        PossibleValue::new("sessionful").help(
            "a session per client: GET stream, DELETE, list-change notifications (behind a \
             load balancer: sticky routing on Mcp-Session-Id)",
        ),
        PossibleValue::new("stateless")
            .help("every request on its own, so any replica can serve it; GET and DELETE get 405"),
    ])
    .map(|mode| match mode.as_str() {
        "stateless" => LegacyMode::Stateless,
        _ => LegacyMode::Sessionful,
    })
}

/// What code sets beside the flags.
#[derive(Debug, Clone, Default)]
struct Settings {
    /// The options the HTTP flags apply over.
    #[cfg(feature = "http")]
    http_options: HttpOptions,
    /// Shown on stderr when stdio is served to a terminal: `None` for the generic hint,
    /// an empty string for none.
    stdio_hint: Option<String>,
}

impl ServeArgs {
    /// The base HTTP options: the server's own (a legacy mode, allowed origins, limits,
    /// authentication), which the flags then adjust. The default is
    /// [`HttpOptions::default()`].
    ///
    /// ```
    /// use clap::Parser;
    /// use mcp_runtime::launch::ServeArgs;
    /// use mcp_runtime::transport::http::{HttpOptions, LegacyMode};
    ///
    /// #[derive(Parser)]
    /// struct Args {
    ///     #[command(flatten)]
    ///     serve: ServeArgs,
    /// }
    ///
    /// let args = Args::try_parse_from(["demo"])?;
    /// let serve = args
    ///     .serve
    ///     .with_http_options(HttpOptions::default().legacy_mode(LegacyMode::Stateless));
    /// assert!(format!("{:?}", serve.http_options()).contains("Stateless"));
    /// # Ok::<(), clap::Error>(())
    /// ```
    #[cfg(feature = "http")]
    pub fn with_http_options(mut self, base: HttpOptions) -> Self {
        self.settings.http_options = base;
        self
    }

    /// What stdio shows on stderr when stdin is a terminal (a person, not a client, started
    /// the server): by default one line saying how to talk to it, with a `tools/list`
    /// request to paste. An empty hint shows nothing.
    ///
    /// ```
    /// use clap::Parser;
    /// use mcp_runtime::launch::ServeArgs;
    ///
    /// #[derive(Parser)]
    /// struct Args {
    ///     #[command(flatten)]
    ///     serve: ServeArgs,
    /// }
    ///
    /// let serve = Args::try_parse_from(["demo"])?.serve.with_stdio_hint("");
    /// # let _ = serve;
    /// # Ok::<(), clap::Error>(())
    /// ```
    pub fn with_stdio_hint(mut self, hint: impl Into<String>) -> Self {
        self.settings.stdio_hint = Some(hint.into());
        self
    }

    /// The HTTP options to serve with: the base ([`with_http_options`](Self::with_http_options))
    /// with the flags applied: `--legacy-mode` if given, and the `--allowed-host` and
    /// `--allowed-origin` values added.
    ///
    /// ```
    /// use clap::Parser;
    /// use mcp_runtime::launch::ServeArgs;
    ///
    /// #[derive(Parser)]
    /// struct Args {
    ///     #[command(flatten)]
    ///     serve: ServeArgs,
    /// }
    ///
    /// let args = Args::try_parse_from(["demo", "--allowed-origin", "https://app.example.com"])?;
    /// let options = args.serve.http_options();
    /// assert!(format!("{options:?}").contains("https://app.example.com"));
    /// # Ok::<(), clap::Error>(())
    /// ```
    #[cfg(feature = "http")]
    pub fn http_options(&self) -> HttpOptions {
        let mut options = self.settings.http_options.clone();
        if let Some(mode) = self.legacy_mode {
            options = options.legacy_mode(mode);
        }
        for host in &self.allowed_hosts {
            options = options.allow_host(host);
        }
        for origin in &self.allowed_origins {
            options = options.allow_origin(origin);
        }
        for network in &self.trusted_proxies {
            // Checked by the parser (`proxy_network`).
            options = options.trust_proxy(network);
        }
        if let Some(rate) = self.rate_limit {
            options = options.rate_limit_per_caller(rate);
        }
        options
    }

    /// Binds `--bind` for `server` with [`http_options`](Self::http_options) and the access
    /// the flags give: tokens from `--token-file` and `MCP_BEARER_TOKEN` required, and a
    /// non-loopback address without them refused unless `--allow-unauthenticated` (checked
    /// on the address really bound). Nothing is served until
    /// [`HttpServer::run`](crate::transport::http::HttpServer::run).
    ///
    /// ```no_run
    /// # async fn demo(serve: mcp_runtime::launch::ServeArgs, server: mcp_runtime::Server) -> std::io::Result<()> {
    /// let http = serve.bind_http(server).await?;
    /// eprintln!("listening at {}", http.url());
    /// http.run().await
    /// # }
    /// ```
    #[cfg(feature = "http")]
    pub async fn bind_http(&self, server: Server) -> std::io::Result<HttpServer> {
        let access = Access::load(self.token_file.as_deref(), self.allow_unauthenticated)
            .map_err(std::io::Error::other)?;
        #[cfg(feature = "oauth")]
        let oauth = self
            .oauth_builder()
            // DPoP proofs spent on one instance are spent on all (`--redis`).
            .and_then(|b| {
                b.map(|b| b.dpop_replays_or(server.shared_nonces()).build())
                    .transpose()
            })
            .map_err(std::io::Error::other)?;
        #[cfg(feature = "oauth")]
        if let Some(oauth) = oauth {
            if access.authenticated() {
                return Err(std::io::Error::other(
                    "--oauth-issuer and bearer tokens (--token-file, MCP_BEARER_TOKEN) cannot be combined: choose one",
                ));
            }
            // A wrong issuer shows in the log at startup, not at the first request; the
            // issuer may also come up later, so this does not stop the server.
            let probe = oauth.clone();
            tokio::spawn(async move {
                if let Err(e) = probe.prefetch().await {
                    tracing::warn!("OAuth: {e}");
                }
            });
            return HttpServer::bind(self.bind.as_str(), server, self.http_options().auth(oauth))
                .await;
        }
        HttpServer::bind_with_access(self.bind.as_str(), server, self.http_options(), &access).await
    }

    /// Serves `server` on the chosen transport until the client goes away (stdio: stdin
    /// closes) or the process is told to stop (HTTP: Ctrl-C or SIGTERM, then a graceful
    /// shutdown). Over HTTP the URL is printed to stderr once it listens; over stdio, the
    /// hint when stdin is a terminal. A transport failure (a refused or busy address, a
    /// token file that cannot be read) is printed to stderr as `NAME: error`, NAME the
    /// server's.
    ///
    /// Returns the exit code for `main`: success, or failure if the transport failed.
    ///
    /// ```no_run
    /// use clap::Parser;
    /// use mcp_runtime::launch::{ServeArgs, init_tracing};
    /// use std::process::ExitCode;
    ///
    /// #[derive(Parser)]
    /// #[command(version, about)]
    /// struct Args {
    ///     #[command(flatten)]
    ///     serve: ServeArgs,
    /// }
    ///
    /// #[tokio::main]
    /// async fn main() -> ExitCode {
    ///     let args = Args::parse();
    ///     let _logs = init_tracing();
    ///     match mcp_runtime::Server::builder("demo", "0.1.0").build() {
    ///         Ok(server) => args.serve.serve(server).await,
    ///         Err(e) => {
    ///             eprintln!("demo: {e}");
    ///             ExitCode::FAILURE
    ///         }
    ///     }
    /// }
    /// ```
    #[allow(
        clippy::print_stderr,
        reason = "the hint, the URL and errors go to stderr"
    )]
    pub async fn serve(self, server: Server) -> ExitCode {
        let name = server.info().name.clone();
        if let Err(e) = self.share(&server).await {
            eprintln!("{name}: {e}");
            return if crate::shared::AVAILABLE {
                ExitCode::FAILURE
            } else {
                ExitCode::from(2)
            };
        }
        let served = match self.transport {
            Transport::Stdio => {
                use std::io::IsTerminal;
                let hint = match &self.settings.stdio_hint {
                    Some(hint) => hint.clone(),
                    None => default_stdio_hint(&name),
                };
                if !hint.is_empty() && std::io::stdin().is_terminal() {
                    eprintln!("{hint}");
                }
                crate::transport::stdio::serve_stdio(server).await
            }
            #[cfg(not(feature = "http"))]
            Transport::Http => {
                eprintln!(
                    "{name}: --transport http needs mcp-runtime's `http` feature: add \"http\" \
                     to the features of the mcp-runtime dependency in Cargo.toml"
                );
                return ExitCode::from(2);
            }
            #[cfg(feature = "http")]
            Transport::Http => match self.bind_http(server).await {
                Ok(http) => {
                    // One line, the URL last: scripts and tests read it from here.
                    eprintln!("{name}: serving MCP over Streamable HTTP at {}", http.url());
                    http.run().await
                }
                Err(e) => Err(e),
            },
        };
        match served {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                // One line on stderr whatever `RUST_LOG` says, not a log event as well.
                eprintln!("{name}: {e}");
                ExitCode::FAILURE
            }
        }
    }
}

impl ServeArgs {
    /// Connects to `--redis` (if given) and shares the server's state through it; an
    /// unreachable Redis is an error naming its URL (the password masked).
    ///
    /// # Errors
    ///
    /// Redis cannot be reached, the server shares its state already, or (without the
    /// `redis` feature) a `--redis` was given.
    pub async fn share(
        &self,
        server: &Server,
    ) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
        let Some(url) = &self.redis else {
            return Ok(());
        };
        server.share_through(crate::shared::connect(url).await?)?;
        Ok(())
    }
}

/// Parses the program's command line into `P`, a `clap::Parser` that flattens [`ServeArgs`],
/// with `--config`'s file (or `MCP_CONFIG`'s) giving the flags' defaults ([`config`]): what
/// `P::parse()` does, plus the file. Prints help, the version or a usage error and exits as
/// clap does.
///
/// ```no_run
/// #[derive(clap::Parser)]
/// struct Args {
///     /// Refuse every change.
///     #[arg(long)]
///     read_only: bool,
///     #[command(flatten)]
///     serve: mcp_runtime::launch::ServeArgs,
/// }
///
/// let args: Args = mcp_runtime::launch::parse();
/// # let _ = args.read_only;
/// ```
pub fn parse<P: clap::Parser>() -> P {
    try_parse_from(std::env::args_os()).unwrap_or_else(|e| e.exit())
}

/// [`parse`] over `args` (the program's name first), returning the usage error.
///
/// ```
/// use mcp_runtime::launch::{ServeArgs, Transport};
///
/// #[derive(clap::Parser)]
/// struct Args {
///     #[command(flatten)]
///     serve: ServeArgs,
/// }
///
/// let dir = tempfile::tempdir()?;
/// let file = dir.path().join("server.toml");
/// std::fs::write(&file, "transport = \"http\"\nallowed-origin = [\"https://app.example.com\"]\n")?;
/// let file = file.to_str().unwrap();
/// let args: Args = mcp_runtime::launch::try_parse_from(["demo", "--config", file])?;
/// assert_eq!(args.serve.transport, Transport::Http);
/// // A flag overrides the file.
/// let args: Args =
///     mcp_runtime::launch::try_parse_from(["demo", "--config", file, "--transport", "stdio"])?;
/// assert_eq!(args.serve.transport, Transport::Stdio);
/// // A key that is no flag is a usage error.
/// std::fs::write(file, "bnd = \"0.0.0.0:80\"\n")?;
/// let error = mcp_runtime::launch::try_parse_from::<Args, _, _>(["demo", "--config", file]);
/// assert!(error.err().unwrap().to_string().contains("unknown key `bnd`"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn try_parse_from<P, I, T>(args: I) -> Result<P, clap::Error>
where
    P: clap::Parser,
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let args: Vec<std::ffi::OsString> = args.into_iter().map(Into::into).collect();
    let matches = config::with_config(P::command(), &args)?.try_get_matches_from(args)?;
    P::from_arg_matches(&matches)
}

/// The stdio hint unless the server gives its own.
fn default_stdio_hint(name: &str) -> String {
    format!(
        "{name}: serving MCP on stdio; paste one JSON-RPC message per line, e.g.\n\
         {{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}}\n(Ctrl-D to quit)"
    )
}

/// A [`Launcher`] for the calling package: its binary's name (the package's, outside a
/// binary), version and description from `Cargo.toml`, for `--help`, `--version` and error
/// lines.
///
/// ```no_run
/// # fn server() -> Result<mcp_runtime::Server, mcp_runtime::server::BuildError> {
/// #     mcp_runtime::Server::builder("demo", "0.1.0").build()
/// # }
/// fn main() -> std::process::ExitCode {
///     mcp_runtime::launcher!().run(server)
/// }
/// ```
#[macro_export]
macro_rules! launcher {
    () => {
        $crate::launch::Launcher::new(
            match ::core::option_env!("CARGO_BIN_NAME") {
                ::core::option::Option::Some(name) => name,
                ::core::option::Option::None => ::core::env!("CARGO_PKG_NAME"),
            },
            ::core::env!("CARGO_PKG_VERSION"),
        )
        .about(::core::env!("CARGO_PKG_DESCRIPTION"))
    };
}

/// `--trust-proxy`'s value: an IP address or a CIDR network, refused at parse time with a
/// usage error rather than at bind time.
#[cfg(feature = "http")]
fn proxy_network(value: &str) -> Result<String, String> {
    let value = value.trim();
    let parses = value.parse::<ipnet::IpNet>().is_ok() || value.parse::<std::net::IpAddr>().is_ok();
    match parses {
        true => Ok(value.to_owned()),
        false => Err(format!(
            "{value:?} is neither an IP address nor a CIDR network (write `10.0.0.0/8` or `192.0.2.7`)"
        )),
    }
}
