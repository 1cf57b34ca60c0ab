//! Serves the tools of `src/lib.rs` on the directories given as arguments (or in
//! `MCP_FILES_DIR`): over stdio by default (what desktop clients start), or over
//! Streamable HTTP with `--transport http`.
//!
//! stdout carries only the protocol; write logs and messages to stderr.

use clap::{Parser, ValueEnum};
use mcp_runtime::transport::http::{Access, HttpOptions, HttpServer};
use std::path::PathBuf;
use std::process::ExitCode;

// The tools and the server, from src/lib.rs.
use {{crate_name}}::{DIRS_ENV, directories, file_service, server};

/// Command-line options.
#[derive(Debug, Parser)]
#[command(version, about)]
struct Args {
    /// The directories the tools may read (default: `MCP_FILES_DIR`).
    #[arg(value_name = "DIR")]
    dirs: Vec<PathBuf>,
    /// How to talk to the client.
    #[arg(long, value_enum, default_value_t = Transport::Stdio)]
    transport: Transport,
    /// Where `--transport http` listens (port 0 picks a free port).
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8000")]
    bind: String,
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
    let name = env!("CARGO_PKG_NAME");
    let dirs = match directories(args.dirs.clone(), std::env::var_os(DIRS_ENV)) {
        Ok(dirs) => dirs,
        Err(e) => {
            eprintln!("{name}: {e}");
            return ExitCode::from(2);
        }
    };
    let server = match file_service(&dirs)
        .map_err(|e| e.to_string())
        .and_then(|files| server(files).map_err(|e| e.to_string()))
    {
        Ok(server) => server,
        Err(e) => {
            eprintln!("{name}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let served = match args.transport {
        Transport::Stdio => mcp_runtime::serve_stdio(server).await,
        Transport::Http => match bind(&args, server, HttpOptions::default()).await {
            Ok(http) => {
                eprintln!("{name}: serving MCP at {}", http.url());
                http.run().await
            }
            Err(e) => Err(e),
        },
    };
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{name}: {e}");
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
