//! What the example servers share: their command line (`--transport`, `--bind`, …) and the
//! code that serves a [`Server`] on the chosen transport.

pub mod conformance_input;

use clap::{Args, ValueEnum};
use mcp_runtime::Server;
use mcp_runtime::transport::http::{Access, HttpOptions, HttpServer, LegacyMode};
use std::process::ExitCode;

/// Transport options every example server takes.
#[derive(Debug, Clone, Args)]
pub struct TransportArgs {
    /// How to talk to the client.
    #[arg(long, value_enum, default_value_t = Transport::Stdio)]
    pub transport: Transport,

    /// Where `--transport http` listens (port 0 picks a free port). The endpoint's URL is
    /// printed to stderr once it listens.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:0")]
    pub bind: String,

    /// How `--transport http` serves clients of the 2025 revisions (the `initialize`
    /// handshake): `sessionful` keeps a session per client (behind a load balancer it needs
    /// sticky routing on Mcp-Session-Id); `stateless` treats every request on its own, so
    /// any replica can serve it. Clients of 2026-07-28 are stateless either way.
    #[arg(long, value_enum, default_value_t = LegacyModeArg::Sessionful)]
    pub legacy_mode: LegacyModeArg,

    /// Also accept this Host header (a DNS name the server is reached by, `name` or
    /// `name:port`); localhost and IP addresses are always accepted. Repeatable.
    #[arg(long = "allowed-host", value_name = "HOST")]
    pub allowed_hosts: Vec<String>,

    /// Also accept requests from this browser Origin (`https://app.example.com`); loopback
    /// origins are always accepted. Repeatable.
    #[arg(long = "allowed-origin", value_name = "ORIGIN")]
    pub allowed_origins: Vec<String>,

    /// Require `Authorization: Bearer <token>` with a token from this file (one per line:
    /// `token` or `name token`; at least 16 bytes each). `MCP_BEARER_TOKEN` adds one more.
    /// Tokens are never taken on the command line, where `ps` shows them.
    #[arg(long, value_name = "FILE")]
    pub token_file: Option<std::path::PathBuf>,

    /// Serve a non-loopback `--bind` address without tokens (refused otherwise): only when a
    /// proxy in front authenticates. A warning is logged.
    #[arg(long)]
    pub allow_unauthenticated: bool,
}

/// Transports the examples serve.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Transport {
    /// Newline-delimited JSON-RPC on stdin/stdout.
    Stdio,
    /// Streamable HTTP at `http://ADDR/mcp`.
    Http,
}

/// `--legacy-mode` values (see [`LegacyMode`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LegacyModeArg {
    /// One session per 2025 client: GET stream, DELETE, list-change notifications.
    Sessionful,
    /// Every request on its own; GET and DELETE answer 405.
    Stateless,
}

impl From<LegacyModeArg> for LegacyMode {
    fn from(mode: LegacyModeArg) -> Self {
        match mode {
            LegacyModeArg::Sessionful => LegacyMode::Sessionful,
            LegacyModeArg::Stateless => LegacyMode::Stateless,
        }
    }
}

impl TransportArgs {
    /// The HTTP options these flags describe.
    pub fn http_options(&self) -> HttpOptions {
        let mut options = HttpOptions::default().legacy_mode(self.legacy_mode.into());
        for host in &self.allowed_hosts {
            options = options.allow_host(host);
        }
        for origin in &self.allowed_origins {
            options = options.allow_origin(origin);
        }
        options
    }
}

/// Sends `tracing` output to stderr (stdout belongs to the protocol), filtered by
/// `RUST_LOG`. The default is warnings and errors plus the audit trail: one `mcp::audit`
/// event per tool call (`RUST_LOG=warn` leaves the audit out).
pub fn init_logging() {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn,mcp::audit=info")),
        )
        .init();
}

/// Serves `server` on the transport `args` name until the client goes away (stdio) or the
/// process is told to stop (HTTP: Ctrl-C or SIGTERM, then a graceful shutdown).
pub async fn serve(server: Server, args: &TransportArgs, hint: &str) -> ExitCode {
    let served = match args.transport {
        Transport::Stdio => {
            use std::io::IsTerminal;
            if std::io::stdin().is_terminal() && !hint.is_empty() {
                eprintln!("{hint}");
            }
            mcp_runtime::serve_stdio(server).await
        }
        Transport::Http => serve_http(server, args).await,
    };
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            tracing::error!("the transport failed: {e}");
            ExitCode::FAILURE
        }
    }
}

async fn serve_http(server: Server, args: &TransportArgs) -> std::io::Result<()> {
    let name = server.info().name.clone();
    let access = Access::load(args.token_file.as_deref(), args.allow_unauthenticated)
        .map_err(std::io::Error::other)?;
    let http =
        HttpServer::bind_with_access(args.bind.as_str(), server, args.http_options(), &access)
            .await?;
    // One line, the URL last: scripts and tests read it from here.
    eprintln!("{name}: serving MCP over Streamable HTTP at {}", http.url());
    http.run().await
}
