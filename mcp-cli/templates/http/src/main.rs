//! Serves the tools of `src/lib.rs`: over stdio by default (what desktop clients start),
//! or over Streamable HTTP with `--transport http`.
//!
//! stdout carries only the protocol; write logs and messages to stderr.

use clap::{Parser, ValueEnum};
use mcp_runtime::transport::http::{Access, HttpOptions, HttpServer};
use std::path::PathBuf;
use std::process::ExitCode;

// The tools and the server, from src/lib.rs.
use {{crate_name}}::{http_options, server};

/// Command-line options.
#[derive(Debug, Parser)]
#[command(version, about)]
struct Args {
    /// How to talk to the client.
    #[arg(long, value_enum, default_value_t = Transport::Stdio)]
    transport: Transport,
    /// Where `--transport http` listens (port 0 picks a free port).
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8000")]
    bind: String,
    /// Also accept requests from this browser origin (`https://app.example.com`);
    /// loopback origins are always accepted. Repeatable.
    #[arg(long = "allowed-origin", value_name = "ORIGIN")]
    allowed_origins: Vec<String>,
    /// Require `Authorization: Bearer <token>` with a token from this file (one per line:
    /// `token` or `name token`, 16 bytes or more); `MCP_BEARER_TOKEN` adds one. Never pass
    /// a token on the command line, where `ps` shows it.
    #[arg(long, value_name = "FILE")]
    token_file: Option<PathBuf>,
    /// Serve a non-loopback `--bind` address without tokens (refused otherwise): only behind
    /// a proxy that authenticates.
    #[arg(long)]
    allow_unauthenticated: bool,
}

/// The transports this server speaks.
#[derive(Debug, Clone, Copy, ValueEnum)]
enum Transport {
    /// Newline-delimited JSON-RPC on stdin and stdout.
    Stdio,
    /// Streamable HTTP at `http://ADDR/mcp`.
    Http,
}

#[tokio::main]
async fn main() -> ExitCode {
    let args = Args::parse();
    // Logs to stderr: warnings, errors and the audit trail (one `mcp::audit` event per tool
    // call). RUST_LOG overrides it (`RUST_LOG=warn` leaves the audit out).
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn,mcp::audit=info")),
        )
        .init();
    let server = match server() {
        Ok(server) => server,
        Err(e) => {
            eprintln!("{}: {e}", env!("CARGO_PKG_NAME"));
            return ExitCode::FAILURE;
        }
    };
    let served = match args.transport {
        Transport::Stdio => mcp_runtime::serve_stdio(server).await,
        Transport::Http => {
            let options = http_options(&args.allowed_origins);
            match bind(&args, server, options).await {
                Ok(http) => {
                    eprintln!("{}: serving MCP at {}", env!("CARGO_PKG_NAME"), http.url());
                    http.run().await
                }
                Err(e) => Err(e),
            }
        }
    };
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{}: {e}", env!("CARGO_PKG_NAME"));
            ExitCode::FAILURE
        }
    }
}

/// Binds `--bind` with the access the flags give: tokens from `--token-file` and
/// `MCP_BEARER_TOKEN` required; a non-loopback address without them refused unless
/// `--allow-unauthenticated`.
async fn bind(
    args: &Args,
    server: mcp_runtime::Server,
    options: HttpOptions,
) -> std::io::Result<HttpServer> {
    let access = Access::load(args.token_file.as_deref(), args.allow_unauthenticated)
        .map_err(std::io::Error::other)?;
    HttpServer::bind_with_access(args.bind.as_str(), server, options, &access).await
}
