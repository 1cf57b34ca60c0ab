//! `cargo mcp schema`: the `tools/list` snapshot.

use super::{ServerArgs, block_on};
use crate::error::{Details, check_failed_with};
use crate::ops::connect::bounded;
use crate::ops::inspect;
use anyhow::{Context as _, Result};
use std::path::PathBuf;

/// Print, save or check the server's tools/list snapshot.
#[derive(Debug, Clone, clap::Args)]
#[command(after_help = "\
Examples:
  cargo mcp schema                                      # print {\"tools\": [...]} (sorted keys)
  cargo mcp schema --out tests/snapshots/tools.json     # save it
  cargo mcp schema --check tests/snapshots/tools.json   # CI: exit 3 with a diff when it changed
  cargo mcp schema --url http://127.0.0.1:8000/mcp --era modern

The format is the one the generated projects' snapshot test reads. The comparison is of
JSON values, so formatting and key order in the file do not matter.")]
pub struct Args {
    /// Write the snapshot to this file instead of printing it.
    #[arg(long, value_name = "FILE", conflicts_with = "check")]
    pub out: Option<PathBuf>,

    /// Compare the server's tools with this snapshot; exit 3 with a diff when they differ.
    #[arg(long, value_name = "FILE")]
    pub check: Option<PathBuf>,

    /// Which server, and how to reach it.
    #[command(flatten)]
    pub server: ServerArgs,
}

/// Connects, lists the tools, and prints, writes or checks the snapshot.
pub fn exec(args: Args) -> Result<()> {
    // Read the committed file first: a missing one fails before any build.
    let committed = match &args.check {
        Some(path) => Some(
            std::fs::read_to_string(path)
                .with_context(|| format!("cannot read {}", path.display()))?,
        ),
        None => None,
    };
    let tools = block_on(async {
        let connection = args.server.connect().await?;
        let tools = bounded(
            args.server.timeout(),
            "tools/list failed",
            connection.client.list_tools(),
        )
        .await?;
        connection.close().await;
        Ok(tools)
    })?;
    match (&args.out, &args.check, committed) {
        (Some(path), _, _) => {
            std::fs::write(path, inspect::snapshot(&tools))
                .with_context(|| format!("cannot write {}", path.display()))?;
            eprintln!(
                "wrote {} tool{} to {}",
                tools.len(),
                if tools.len() == 1 { "" } else { "s" },
                path.display()
            );
        }
        (None, Some(path), Some(committed)) => {
            let name = path.display().to_string();
            match inspect::compare_snapshot(&committed, &tools, &name)? {
                None => eprintln!("{name}: up to date ({} tools)", tools.len()),
                Some(diff) => {
                    return Err(check_failed_with(
                        format!(
                            "the server's tools differ from {name} (diff above); if that is intended, run `cargo mcp schema --out {name}` and commit it"
                        ),
                        Details {
                            text: diff,
                            to_stdout: false,
                        },
                    ));
                }
            }
        }
        _ => print!("{}", inspect::snapshot(&tools)),
    }
    Ok(())
}
