//! What the example servers share: their command line (`--transport`, …) and the code
//! that serves a [`Server`] on the chosen transport.

use clap::{Args, ValueEnum};
use mcp_runtime::Server;
use std::process::ExitCode;

/// Transport options every example server takes.
#[derive(Debug, Clone, Args)]
pub struct TransportArgs {
    /// How to talk to the client.
    #[arg(long, value_enum, default_value_t = Transport::Stdio)]
    pub transport: Transport,
}

/// Transports the examples serve.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Transport {
    /// Newline-delimited JSON-RPC on stdin/stdout.
    Stdio,
}

/// Sends `tracing` output to stderr (stdout belongs to the protocol), filtered by
/// `RUST_LOG` (default: warnings and errors).
pub fn init_logging() {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .init();
}

/// Serves `server` on the transport `args` name until the client goes away.
pub async fn serve(server: Server, args: &TransportArgs, hint: &str) -> ExitCode {
    let served = match args.transport {
        Transport::Stdio => {
            use std::io::IsTerminal;
            if std::io::stdin().is_terminal() && !hint.is_empty() {
                eprintln!("{hint}");
            }
            mcp_runtime::serve_stdio(server).await
        }
    };
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            tracing::error!("the transport failed: {e}");
            ExitCode::FAILURE
        }
    }
}
