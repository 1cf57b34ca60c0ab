//! One module per subcommand: its `Args` (clap derive, with examples in the help) and an
//! `exec` that calls into [`crate::ops`] and prints.

pub mod call;
pub mod completions;
pub mod dev;
pub mod doctor;
pub mod init;
pub mod install;
pub mod list;
pub mod login;
pub mod new;
pub mod package;
pub mod preview;
pub mod prompt;
pub mod read;
pub mod schema;
pub mod task;
pub mod uninstall;

use crate::ops::connect::{self, Connection, ServerSpec};
use crate::ops::scaffold::{ProjectOptions, Vcs};
use crate::ops::template::{RuntimeSource, Template};
use anyhow::{Context as _, Result};
use mcp_runtime::client::{EraMode, InputHandler};
use std::path::PathBuf;
use std::time::Duration;

/// How the client picks a protocol era.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum EraArg {
    /// The 2025 `initialize` handshake.
    Legacy,
    /// 2026-07-28: `server/discover`, then the per-request envelope.
    Modern,
    /// Modern if the server answers `server/discover`, else legacy.
    Auto,
}

impl From<EraArg> for EraMode {
    fn from(era: EraArg) -> Self {
        match era {
            EraArg::Legacy => EraMode::Legacy,
            EraArg::Modern => EraMode::Modern,
            EraArg::Auto => EraMode::Auto,
        }
    }
}

/// Which server `list`, `call`, `read`, `prompt` and `schema` talk to, and how.
#[derive(Debug, Clone, clap::Args)]
pub struct ServerArgs {
    /// Start this command over stdio instead of building the current project. It takes the
    /// rest of the command line, so put it last: `--command ./server --flag`.
    #[arg(
        long,
        num_args = 1..,
        allow_hyphen_values = true,
        value_name = "CMD",
        conflicts_with_all = ["url", "manifest_path", "bin", "server_args"]
    )]
    pub command: Option<Vec<String>>,

    /// Talk to a running server over Streamable HTTP (`http://127.0.0.1:8000/mcp`).
    #[arg(long, value_name = "URL", conflicts_with_all = ["manifest_path", "bin", "server_args"])]
    pub url: Option<String>,

    /// With --url: send this bearer token instead of logging in (for scripts; `MCP_TOKEN`
    /// keeps it out of `ps` and the shell history). Ignored without --url (not an error, so
    /// an exported `MCP_TOKEN` does not break stdio servers).
    #[arg(long, value_name = "TOKEN", env = "MCP_TOKEN", hide_env_values = true)]
    pub token: Option<String>,

    /// With --url: log in as this OAuth client (registered beforehand at the authorization
    /// server) instead of registering dynamically.
    #[arg(long, value_name = "ID", env = "MCP_CLIENT_ID")]
    pub client_id: Option<String>,

    /// With --url: when the server asks for a login (HTTP 401), log in (opening a browser)
    /// without asking first. Without it the command asks on a terminal, and elsewhere stops
    /// with the hint to run `cargo mcp login URL`.
    #[arg(long)]
    pub login: bool,

    /// The project's `Cargo.toml` (default: the one for the current folder).
    #[arg(long, value_name = "PATH")]
    pub manifest_path: Option<PathBuf>,

    /// The project's binary to run, when it has several.
    #[arg(long, value_name = "NAME")]
    pub bin: Option<String>,

    /// The protocol era to speak.
    #[arg(long, value_enum, default_value_t = EraArg::Auto)]
    pub era: EraArg,

    /// Give up on an answer after this many seconds [default: 30]. Given, it also bounds a
    /// login this command starts (which otherwise waits up to 300 s for the browser).
    #[arg(long, value_name = "SECONDS")]
    pub timeout: Option<u64>,

    /// Arguments for the project's server, after `--` (e.g. the directory of a `files`
    /// server).
    #[arg(last = true, value_name = "SERVER_ARGS")]
    pub server_args: Vec<String>,
}

impl ServerArgs {
    /// The server these flags name.
    pub fn spec(&self) -> ServerSpec {
        if let Some(command) = &self.command {
            ServerSpec::Command(command.clone())
        } else if let Some(url) = &self.url {
            ServerSpec::Url {
                url: url.clone(),
                token: self.token.clone(),
                login: {
                    let defaults = crate::ops::oauth::Options::default();
                    crate::ops::oauth::Options {
                        client_id: self.client_id.clone(),
                        login_without_asking: self.login,
                        wait: self.timeout.map_or(defaults.wait, |_| self.timeout()),
                        ..defaults
                    }
                },
            }
        } else {
            ServerSpec::Project {
                manifest_path: self.manifest_path.clone(),
                bin: self.bin.clone(),
                args: self.server_args.clone(),
            }
        }
    }

    /// The answer timeout.
    pub fn timeout(&self) -> Duration {
        Duration::from_secs(self.timeout.unwrap_or(30).max(1))
    }

    /// Connects (building the project first when that is the server).
    pub async fn connect(&self) -> Result<Connection> {
        self.connect_answering(InputHandler::new()).await
    }

    /// Connects with a client that answers the server's questions with `input` (and
    /// declares what it answers).
    pub async fn connect_answering(&self, input: InputHandler) -> Result<Connection> {
        let cwd = std::env::current_dir().context("cannot read the current folder")?;
        connect::connect(&self.spec(), self.era.into(), self.timeout(), &cwd, input).await
    }
}

/// Runs an async command body on a runtime of its own.
pub fn block_on<T>(future: impl std::future::Future<Output = Result<T>>) -> Result<T> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("cannot start the async runtime")?
        .block_on(future)
}

/// What `new` and `init` share.
#[derive(Debug, Clone, clap::Args)]
pub struct ProjectArgs {
    /// The template.
    #[arg(long, short, value_enum, default_value_t = Template::Stdio)]
    pub template: Template,

    /// The package name (default: the folder's name).
    #[arg(long)]
    pub name: Option<String>,

    /// A one-line description, for Cargo.toml and the README.
    #[arg(long)]
    pub description: Option<String>,

    /// Depend on mcp-runtime by path: a toolkit checkout, or its `mcp-runtime` folder.
    #[arg(long, value_name = "DIR", conflicts_with = "runtime_version")]
    pub runtime_path: Option<PathBuf>,

    /// Depend on this mcp-runtime version from crates.io (default: the checkout this
    /// cargo-mcp was installed from, else its own version from crates.io).
    #[arg(long, value_name = "VERSION")]
    pub runtime_version: Option<String>,

    /// Initialize a git repository (default: git, unless already inside a repository).
    #[arg(long, value_enum)]
    pub vcs: Option<Vcs>,

    /// Inside a cargo workspace, stand alone (an empty `[workspace]`) instead of joining
    /// its `members`.
    #[arg(long)]
    pub standalone: bool,
}

impl ProjectArgs {
    /// The generation options for the folder `path`.
    pub fn options(&self, path: PathBuf) -> Result<ProjectOptions> {
        let runtime = match (&self.runtime_path, &self.runtime_version) {
            (Some(dir), _) => RuntimeSource::from_path(dir)?,
            (None, Some(version)) => RuntimeSource::Version(version.clone()),
            (None, None) => RuntimeSource::default_source(),
        };
        Ok(ProjectOptions {
            path,
            name: self.name.clone(),
            template: self.template,
            description: self.description.clone(),
            runtime,
            vcs: self.vcs,
            standalone: self.standalone,
        })
    }
}
