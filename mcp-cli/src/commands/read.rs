//! `cargo mcp read`: one resource's contents. A skill's files (`skill://<path>/<file>`, the
//! skills extension) are resources too, read with `resources/read` as the SEP defines.

use super::{ServerArgs, block_on};
use crate::error::{check_failed, refused, usage};
use crate::ops::ask;
use crate::ops::connect::describe;
use crate::ops::content::{self, ReadFailure};
use anyhow::{Context as _, Result, anyhow};
use mcp_runtime::client::ClientError;
use mcp_runtime::protocol::ErrorCode;
use std::path::PathBuf;

/// Read a resource of a server.
#[derive(Debug, Clone, clap::Args)]
#[command(after_help = "\
Examples:
  cargo mcp read echo://readme                      # text is printed as it is
  cargo mcp read echo://logo --output logo.png      # bytes (a blob) are saved
  cargo mcp read echo://greeting/Ada --json         # the whole result as JSON
  cargo mcp read skill://pdf-processing/SKILL.md    # a skill's files (see `cargo mcp list`)
  cargo mcp read file:///srv/notes/todo.md --command ./target/debug/file-server /srv/notes
  cargo mcp read config://app --url http://127.0.0.1:8000/mcp

Without --output, a blob is not printed: its size and MIME type are. Exits with 2 when
the server has no such resource or refuses the URI, and with 4 when --output names a file
that exists (pass --force to replace it).")]
pub struct Args {
    /// The resource's URI: a listed resource, one a resource template matches, or a file of
    /// a skill (`skill://…`, as `cargo mcp list` shows them).
    pub uri: String,

    /// Save the contents to FILE (a blob's bytes decoded, text as UTF-8) instead of
    /// printing them.
    #[arg(long, short, value_name = "FILE", conflicts_with = "json")]
    pub output: Option<PathBuf>,

    /// Replace the --output file if it exists.
    #[arg(long, requires = "output")]
    pub force: bool,

    /// Print the whole result as JSON.
    #[arg(long)]
    pub json: bool,

    /// Which server, and how to reach it.
    #[command(flatten)]
    pub server: ServerArgs,
}

/// Connects, reads the resource and prints or saves its contents.
pub fn exec(args: Args) -> Result<()> {
    if let Some(path) = &args.output
        && !args.force
        && path.exists()
    {
        return Err(refused(format!(
            "{} exists; pass --force to replace it",
            path.display()
        )));
    }
    let answering = ask::Answering::new(args.json)?;
    block_on(async {
        let connection = args.server.connect_answering(answering.handler()).await?;
        let server = args.server.spec().describe();
        if connection.capabilities.resources.is_none() {
            connection.close().await;
            return Err(usage(format!("{server} offers no resources")));
        }
        let timeout = args.server.timeout();
        let answer = answering
            .bounded(timeout, connection.client.read_resource(&args.uri))
            .await
            .ok_or(());
        connection.close().await;
        let uri = &args.uri;
        let result = match answer {
            Err(()) => {
                return Err(anyhow!(
                    "reading `{uri}` failed: no answer within {} s",
                    timeout.as_secs()
                ));
            }
            Ok(Err(ClientError::Protocol(e)))
                if e.code == ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY =>
            {
                let subject = format!("reading `{uri}`");
                return Err(check_failed(answering.needs_input(&subject, &e)));
            }
            Ok(Err(ClientError::Protocol(e))) => {
                return Err(match ReadFailure::of(&e) {
                    ReadFailure::NotFound => usage(format!(
                        "{server} has no resource `{uri}` (`cargo mcp list` shows its resources, \
                         templates and skills)"
                    )),
                    ReadFailure::Refused(why) => usage(format!("{server} refused `{uri}`: {why}")),
                    ReadFailure::Failed(why) => anyhow!("reading `{uri}` failed: {why}"),
                });
            }
            Ok(Err(e)) => return Err(describe(e).context(format!("reading `{uri}` failed"))),
            Ok(Ok(result)) => result,
        };
        if args.json {
            println!("{}", serde_json::to_string_pretty(&result)?);
        } else if let Some(path) = &args.output {
            let (bytes, mime) = content::single_item_bytes(&result)?;
            std::fs::write(path, &bytes)
                .with_context(|| format!("cannot write {}", path.display()))?;
            let mime = mime.map(|m| format!(" ({m})")).unwrap_or_default();
            println!("wrote {} bytes{mime} to {}", bytes.len(), path.display());
        } else {
            print!("{}", content::render_read(&result));
        }
        Ok(())
    })
}
