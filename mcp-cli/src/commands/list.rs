//! `cargo mcp list`: the tools of a server.

use super::{ServerArgs, block_on};
use crate::ops::connect::bounded;
use crate::ops::inspect;
use anyhow::Result;
use serde_json::json;

/// List the tools of a server.
#[derive(Debug, Clone, clap::Args)]
#[command(after_help = "\
Examples:
  cargo mcp list                                          # build and run the current project
  cargo mcp list --json                                   # for scripts
  cargo mcp list --era legacy                             # speak the 2025 handshake
  cargo mcp list -- ~/notes                               # arguments for the project's server
  cargo mcp list --url http://127.0.0.1:8000/mcp          # a running server over HTTP
  cargo mcp list --command npx -y @modelcontextprotocol/server-everything")]
pub struct Args {
    /// Print JSON: `{server, era, protocolVersion, tools}`.
    #[arg(long)]
    pub json: bool,

    /// Which server, and how to reach it.
    #[command(flatten)]
    pub server: ServerArgs,
}

/// Connects, lists every tool (all pages) and prints them.
pub fn exec(args: Args) -> Result<()> {
    block_on(async {
        let connection = args.server.connect().await?;
        let tools = bounded(
            args.server.timeout(),
            "tools/list failed",
            connection.client.list_tools(),
        )
        .await?;
        if args.json {
            let out = json!({
                "server": connection.server_info,
                "era": connection.era.to_string(),
                "protocolVersion": connection.protocol_version,
                "tools": tools,
            });
            println!("{}", serde_json::to_string_pretty(&out)?);
        } else {
            println!(
                "{}: {} tool{} (protocol {}, {} era)\n",
                connection.server_label(),
                tools.len(),
                if tools.len() == 1 { "" } else { "s" },
                connection.protocol_version,
                connection.era
            );
            print!("{}", inspect::tools_table(&tools));
        }
        connection.close().await;
        Ok(())
    })
}
