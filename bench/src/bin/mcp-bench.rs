//! `mcp-bench`: the load client.
//!
//! ```text
//! mcp-bench run [--era legacy|modern] [--smoke] [--json] -- SERVER_COMMAND…
//! mcp-bench compare [--rounds N] [--era …] [--smoke] --server floor=… --server echo=… [--server peer=…]
//! mcp-bench http [--era modern|legacy] [--rounds N] [--connections C] [--calls N] --server floor=… --server echo=…
//! ```
//!
//! HTTP servers must take `--bind 127.0.0.1:0` in their command and print their
//! `http://…` URL on stderr.
//!
//! `compare` takes the first `--server` as the baseline for its ratios.

use clap::{Parser, Subcommand};
use mcp_bench::compare::{Candidate, compare, table};
use mcp_bench::load::{Era, Settings, run};
use std::process::ExitCode;

#[derive(Debug, Parser)]
#[command(version, about = "Load client for MCP servers over stdio")]
struct Cli {
    #[command(subcommand)]
    command: Cmd,
}

#[derive(Debug, Subcommand)]
enum Cmd {
    /// Measures one server.
    Run {
        #[command(flatten)]
        load: LoadArgs,
        /// Print only the JSON line.
        #[arg(long)]
        json: bool,
        /// The server command and its arguments.
        #[arg(last = true, required = true)]
        command: Vec<String>,
    },
    /// Measures several servers, interleaved, and prints medians and ratios to the first.
    Compare {
        #[command(flatten)]
        load: LoadArgs,
        /// Rounds (each measures every server once).
        #[arg(long, default_value_t = 5)]
        rounds: usize,
        /// `NAME=COMMAND ARGS…`; the first is the baseline.
        #[arg(long = "server", required = true)]
        servers: Vec<Candidate>,
    },
    /// Measures HTTP servers with keep-alive connections (stateless 2026-07-28 requests, or
    /// a 2025 session per connection).
    Http {
        /// The protocol era the client speaks: `modern` sends stateless requests, `legacy`
        /// opens a 2025 session on each connection.
        #[arg(long, value_enum, default_value_t = Era::Modern)]
        era: Era,
        /// Rounds (each measures every server once).
        #[arg(long, default_value_t = 5)]
        rounds: usize,
        /// Keep-alive connections.
        #[arg(long, default_value_t = 16)]
        connections: usize,
        /// Calls per round.
        #[arg(long, default_value_t = 50_000)]
        calls: u64,
        /// `NAME=COMMAND ARGS…` (the command prints its URL on stderr); the first is the
        /// baseline.
        #[arg(long = "server", required = true)]
        servers: Vec<Candidate>,
    },
}

#[derive(Debug, clap::Args)]
struct LoadArgs {
    /// The protocol era the client speaks.
    #[arg(long, value_enum, default_value_t = Era::Legacy)]
    era: Era,
    /// Small counts: proves the harness works, measures nothing.
    #[arg(long)]
    smoke: bool,
    /// Calls in the pipelined phase (default 200000; smoke 500).
    #[arg(long)]
    calls: Option<usize>,
    /// Requests in flight in the pipelined phase (default 64).
    #[arg(long)]
    in_flight: Option<usize>,
    /// Spawns measured for the cold start (default 5; 0 skips the phase).
    #[arg(long)]
    cold_starts: Option<usize>,
    /// Sequential calls (default 5000; 0 skips the phase).
    #[arg(long)]
    sequential: Option<usize>,
    /// Sequential `tools/list` requests (default 1000; 0 skips the phase).
    #[arg(long)]
    lists: Option<usize>,
}

impl LoadArgs {
    fn settings(&self) -> Settings {
        let mut s = if self.smoke {
            Settings::smoke(self.era)
        } else {
            Settings::full(self.era)
        };
        if let Some(n) = self.calls {
            s.pipelined_calls = n;
        }
        if let Some(k) = self.in_flight {
            s.in_flight = k;
        }
        if let Some(n) = self.cold_starts {
            s.cold_starts = n;
        }
        if let Some(n) = self.sequential {
            s.sequential_calls = n;
        }
        if let Some(n) = self.lists {
            s.list_calls = n;
        }
        s
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let outcome = match cli.command {
        Cmd::Run {
            load,
            json,
            command,
        } => run("server", &command, load.settings()).map(|report| {
            let line = serde_json::to_string(&report).unwrap_or_default();
            if json {
                println!("{line}");
            } else {
                let summary = mcp_bench::compare::Summary {
                    median: report,
                    rounds: 1,
                };
                print!("{}", table(std::slice::from_ref(&summary)));
                println!("{line}");
            }
        }),
        Cmd::Compare {
            load,
            rounds,
            servers,
        } => compare(&servers, load.settings(), rounds).map(|summaries| {
            print!("{}", table(&summaries));
            for s in &summaries {
                println!("{}", serde_json::to_string(s).unwrap_or_default());
            }
        }),
        Cmd::Http {
            era,
            rounds,
            connections,
            calls,
            servers,
        } => mcp_bench::compare::compare_http(&servers, era, connections, calls, rounds).map(
            |reports| {
                print!("{}", mcp_bench::compare::http_table(&reports));
                for r in &reports {
                    println!("{}", serde_json::to_string(r).unwrap_or_default());
                }
            },
        ),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("mcp-bench: {e}");
            ExitCode::FAILURE
        }
    }
}
