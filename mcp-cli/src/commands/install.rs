//! `cargo mcp install`: add the server to a client's configuration.

use crate::error::usage;
use crate::ops::install::{
    self, ClientKind, ConfigFile, Environment, Installed, Launch, ServerEntry,
};
use crate::ops::project;
use anyhow::{Context as _, Result};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Add the server to an MCP client's configuration.
#[derive(Debug, Clone, clap::Args)]
#[command(after_help = "\
Examples:
  cargo mcp install claude-desktop                     # build in release, add it, keep a .bak
  cargo mcp install claude-code --env API_KEY=secret   # user scope (~/.claude.json)
  cargo mcp install claude-code --config-path .mcp.json  # a project's shared file instead
  cargo mcp install vscode --name weather-dev          # .vscode/mcp.json of the project
  cargo mcp install cursor --dry-run                   # show the change, write nothing
  cargo mcp install json                               # print the mcpServers snippet
  cargo mcp install claude-desktop -- ~/notes          # arguments for the server
  cargo mcp install vscode --url http://127.0.0.1:8080/mcp --header 'Authorization=Bearer t'

`--dry-run` and `json` build nothing: they show the path the release build will have (and
say when it is not built yet). VS Code's project file names a binary inside the project as
`${workspaceFolder}/…`, so it can be committed. Only the server's own entry changes; everything else in the file is kept byte for byte, and
the old file is kept as <file>.bak (a link at either is replaced, never written through; a
project file that resolves outside the project is refused, exit 4). A different entry of the same name is replaced only
with --force (the difference is shown). A file that cannot be parsed is left alone and the
snippet is printed instead (exit 4).")]
pub struct Args {
    /// The client.
    #[arg(value_enum)]
    pub client: ClientKind,

    /// The server's name in the client (default: the binary's name).
    #[arg(long)]
    pub name: Option<String>,

    /// An environment variable for the server; repeatable.
    #[arg(long = "env", value_name = "KEY=VALUE")]
    pub env: Vec<String>,

    /// The configuration file to edit (default: the client's usual place).
    #[arg(long, value_name = "PATH")]
    pub config_path: Option<PathBuf>,

    /// Show what would change; write nothing.
    #[arg(long)]
    pub dry_run: bool,

    /// Replace a different entry of the same name.
    #[arg(long)]
    pub force: bool,

    /// The project's `Cargo.toml` (default: the one for the current folder).
    #[arg(long, value_name = "PATH")]
    pub manifest_path: Option<PathBuf>,

    /// The project's binary, when it has several.
    #[arg(long, value_name = "NAME")]
    pub bin: Option<String>,

    /// The cargo profile to build with.
    #[arg(long, value_name = "PROFILE", default_value = "release")]
    pub profile: String,

    /// Install this executable instead of building the project.
    #[arg(long, value_name = "PATH", conflicts_with_all = ["manifest_path", "bin"])]
    pub binary: Option<PathBuf>,

    /// A running server over Streamable HTTP, instead of a command (nothing is built).
    #[arg(
        long,
        value_name = "URL",
        conflicts_with_all = ["manifest_path", "bin", "binary", "env", "server_args"]
    )]
    pub url: Option<String>,

    /// A header sent with every request to `--url` (`Authorization=Bearer …`); repeatable.
    #[arg(long = "header", value_name = "NAME=VALUE", requires = "url")]
    pub headers: Vec<String>,

    /// Arguments the client passes to the server, after `--`.
    #[arg(last = true, value_name = "SERVER_ARGS")]
    pub server_args: Vec<String>,
}

/// Builds (unless `--binary`, `--url`, `--dry-run` or a printed `json` snippet), merges the
/// entry and reports what happened.
pub fn exec(args: Args) -> Result<()> {
    let cwd = std::env::current_dir().context("cannot read the current folder")?;
    let env: BTreeMap<String, String> = args
        .env
        .iter()
        .map(|pair| install::parse_env(pair))
        .collect::<Result<_>>()?;
    let headers: BTreeMap<String, String> = args
        .headers
        .iter()
        .map(|pair| install::parse_pair("--header", pair))
        .collect::<Result<_>>()?;
    let (launch, default_name, project_root) = launch(&args, &cwd, env, headers)?;
    let server = ServerEntry {
        name: args.name.clone().unwrap_or(default_name),
        launch,
    };
    if server.name.is_empty() {
        return Err(usage("--name cannot be empty"));
    }
    let environment = Environment::from_process(project_root.or(Some(cwd)));
    let Some(path) = config_path(&args, &environment)? else {
        print!("{}", install::snippet(args.client, &server));
        return Ok(());
    };
    let server = match (args.client, vscode_workspace(&path)) {
        (ClientKind::Vscode, Some(workspace)) => ServerEntry {
            launch: server.launch.relative_to_workspace(&workspace),
            ..server
        },
        _ => server,
    };
    let scope = environment.scope_of(args.client, &path, args.config_path.is_none());
    let file = ConfigFile::resolve(&path, scope)?;
    let installed = install::install_into(&file, args.client, &server, args.force, args.dry_run)?;
    report(&args, &path, &file, &server, installed);
    Ok(())
}

/// How the client starts or reaches the server (`--url`, `--binary`, else the project's
/// binary, built unless this is a preview), the name it has unless `--name` says otherwise,
/// and the project's folder (for a project's own configuration file).
fn launch(
    args: &Args,
    cwd: &Path,
    env: BTreeMap<String, String>,
    headers: BTreeMap<String, String>,
) -> Result<(Launch, String, Option<PathBuf>)> {
    match (&args.url, &args.binary) {
        (Some(url), _) => {
            if !args.client.takes_urls() {
                return Err(usage(format!(
                    "{} does not take servers by URL in its configuration file; add {url} in its \
                     settings (Connectors), or install a local build of the server instead",
                    args.client
                )));
            }
            let name = args
                .name
                .clone()
                .ok_or_else(|| usage("--url needs --name: the server's name in the client"))?;
            let launch = Launch::Url {
                url: url.clone(),
                headers,
            };
            Ok((launch, name, None))
        }
        (None, Some(path)) => {
            let absolute = path
                .canonicalize()
                .with_context(|| format!("--binary {}", path.display()))?;
            let name = absolute
                .file_stem()
                .and_then(|s| s.to_str())
                .unwrap_or("server")
                .to_owned();
            Ok((command_launch(&absolute, args, env), name, None))
        }
        (None, None) => project_launch(args, cwd, env),
    }
}

/// The project's binary: built, or for a preview (`--dry-run`, a printed `json` snippet)
/// only where the build will put it, since only a write needs the binary itself.
fn project_launch(
    args: &Args,
    cwd: &Path,
    env: BTreeMap<String, String>,
) -> Result<(Launch, String, Option<PathBuf>)> {
    let prints_snippet = args.client == ClientKind::Json && args.config_path.is_none();
    let preview = args.dry_run || prints_snippet;
    let binary = project::locate(
        args.manifest_path.as_deref(),
        args.bin.as_deref(),
        cwd,
        "--manifest-path, --binary or --url",
    )?;
    let executable = if preview {
        let path = project::expected_executable(&binary, &args.profile);
        if !path.is_file() {
            eprintln!(
                "note: {} is not built yet; `cargo mcp install {}` (without --dry-run) \
                 builds it, or `cargo build --profile {} --bin {}`",
                path.display(),
                cli_name(args.client),
                args.profile,
                binary.bin
            );
        }
        path
    } else {
        eprintln!("building `{}` ({} profile)…", binary.bin, args.profile);
        project::build(&binary, &args.profile, cwd)?.executable
    };
    let root = binary.manifest_path.parent().map(PathBuf::from);
    Ok((command_launch(&executable, args, env), binary.bin, root))
}

/// The configuration file to edit: `--config-path`, else the client's usual place; `None`
/// for `json` without `--config-path`, whose snippet is printed instead.
fn config_path(args: &Args, environment: &Environment) -> Result<Option<PathBuf>> {
    match (&args.config_path, args.client) {
        (Some(path), _) => Ok(Some(path.clone())),
        (None, ClientKind::Json) => Ok(None),
        (None, client) => client
            .default_config_path(environment)
            .map(Some)
            .ok_or_else(|| {
                usage(format!(
                    "cannot tell where {client} keeps its configuration here (no home folder?); pass --config-path"
                ))
            }),
    }
}

/// Says what the install did (or would do, for `--dry-run`).
fn report(args: &Args, path: &Path, file: &ConfigFile, server: &ServerEntry, installed: Installed) {
    match installed {
        Installed::Unchanged => {
            println!(
                "{} already has `{}` as configured; nothing to do",
                path.display(),
                server.name
            );
        }
        Installed::WouldWrite(text) => install::print_dry_run(path, &text, "after install"),
        Installed::Written { backup, replaced } => {
            let verb = if replaced { "replaced" } else { "added" };
            println!(
                "{verb} `{}` in {}{} ({})",
                server.name,
                path.display(),
                install::through_link(file),
                args.client
            );
            match &server.launch {
                Launch::Command { command, .. } => println!("  command: {command}"),
                Launch::Url { url, .. } => println!("  url: {url}"),
            }
            if let Some(backup) = backup {
                println!("  the previous file is in {}", backup.display());
            }
            if args.client == ClientKind::ClaudeDesktop {
                println!("Restart Claude Desktop to load it.");
            }
        }
    }
}

fn command_launch(executable: &Path, args: &Args, env: BTreeMap<String, String>) -> Launch {
    Launch::Command {
        command: executable.to_string_lossy().into_owned(),
        args: args.server_args.clone(),
        env,
    }
}

/// The client's name on the command line (`claude-desktop`).
fn cli_name(client: ClientKind) -> String {
    clap::ValueEnum::to_possible_value(&client)
        .map(|v| v.get_name().to_owned())
        .unwrap_or_default()
}

/// The folder VS Code opens for a `<folder>/.vscode/mcp.json` (what `${workspaceFolder}`
/// means in it), canonical; `None` for any other file.
fn vscode_workspace(config: &Path) -> Option<PathBuf> {
    let absolute = std::path::absolute(config).ok()?;
    let dot_vscode = absolute.parent()?;
    if dot_vscode.file_name()? != ".vscode" {
        return None;
    }
    let folder = dot_vscode.parent()?;
    Some(
        folder
            .canonicalize()
            .unwrap_or_else(|_| folder.to_path_buf()),
    )
}
