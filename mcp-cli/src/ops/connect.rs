//! Reaching a server: the current project (built, then started over stdio), any command
//! over stdio, or a Streamable HTTP URL; connected in the era asked for.

use super::project;
use anyhow::{Context as _, Result, anyhow, bail};
use mcp_runtime::client::{Client, ClientError, EraMode, InputHandler};
use mcp_runtime::protocol::Era;
use mcp_runtime::protocol::meta::SERVER_INFO_KEY;
use mcp_runtime::protocol::{Implementation, ServerCapabilities};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Which server to talk to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServerSpec {
    /// The cargo project in the current folder (or at `manifest_path`), built in the dev
    /// profile and started with `args`.
    Project {
        /// `--manifest-path`.
        manifest_path: Option<PathBuf>,
        /// `--bin`.
        bin: Option<String>,
        /// Arguments for the server.
        args: Vec<String>,
    },
    /// A command started over stdio: the program, then its arguments.
    Command(Vec<String>),
    /// A Streamable HTTP endpoint.
    Url {
        /// The endpoint.
        url: String,
        /// A bearer token to send (`--token`, `MCP_TOKEN`) instead of logging in.
        token: Option<String>,
        /// How to log in when the server answers 401 and no token was given.
        login: super::oauth::Options,
    },
}

impl ServerSpec {
    /// How the server is shown in messages.
    pub fn describe(&self) -> String {
        match self {
            ServerSpec::Project { .. } => "the current project".to_owned(),
            ServerSpec::Command(cmd) => format!("`{}`", cmd.join(" ")),
            ServerSpec::Url { url, .. } => url.clone(),
        }
    }
}

/// A connected client and what the server said about itself.
#[derive(Debug)]
pub struct Connection {
    /// The client.
    pub client: Client,
    /// The era in force.
    pub era: Era,
    /// The protocol version in force.
    pub protocol_version: String,
    /// The server's name and version, when it said.
    pub server_info: Option<Implementation>,
    /// What the server offers (`initialize` or `server/discover`); empty when it sent none
    /// that could be read.
    pub capabilities: ServerCapabilities,
    /// Messages that answered nothing, lines that were not JSON among them.
    unrouted: Option<tokio::sync::mpsc::UnboundedReceiver<Value>>,
}

impl Connection {
    /// Ends the session: closes stdin of a child (and waits, bounded, for it to exit). Warns
    /// first when the server wrote lines that are not JSON-RPC to stdout: real clients
    /// choke on them (a `println!` in a stdio server), so say so while it is cheap to fix.
    pub async fn close(mut self) {
        if let Some(warning) = self.stdout_noise() {
            eprintln!("{warning}");
        }
        let _ = tokio::time::timeout(Duration::from_secs(10), self.client.close()).await;
    }

    /// The warning about non-protocol output seen so far, if there was any (it is then not
    /// printed again by [`Connection::close`]).
    pub fn stdout_noise(&mut self) -> Option<String> {
        let unrouted = self.unrouted.as_mut()?;
        let mut noise = Vec::new();
        while let Ok(message) = unrouted.try_recv() {
            if let Some(line) = message.get("unparsable").and_then(Value::as_str) {
                noise.push(line.trim_end().to_owned());
            }
        }
        let first = noise.first()?;
        let more = match noise.len() {
            1 => String::new(),
            n => format!(" (and {} more lines)", n - 1),
        };
        Some(format!(
            "warning: the server wrote non-protocol text to stdout: {first:?}{more}; MCP clients \
             read stdout as JSON-RPC only, so write logs and messages to stderr"
        ))
    }

    /// `name version`, or `the server`.
    pub fn server_label(&self) -> String {
        match &self.server_info {
            Some(info) => format!("{} {}", info.name, info.version),
            None => "the server".to_owned(),
        }
    }
}

/// Starts or reaches the server and connects in `era`, within `timeout` (the build of the
/// current project is not counted).
pub async fn connect(
    spec: &ServerSpec,
    era: EraMode,
    timeout: Duration,
    cwd: &Path,
    input: InputHandler,
) -> Result<Connection> {
    let client = match spec {
        ServerSpec::Project {
            manifest_path,
            bin,
            args,
        } => {
            let (manifest_path, bin, cwd) = (manifest_path.clone(), bin.clone(), cwd.to_path_buf());
            // Blocking cargo runs stay off the async threads.
            let built = tokio::task::spawn_blocking(move || {
                let binary = project::locate(
                    manifest_path.as_deref(),
                    bin.as_deref(),
                    &cwd,
                    "--manifest-path, --command or --url",
                )?;
                project::build(&binary, "dev", &cwd)
            })
            .await
            .context("the build task failed")??;
            let mut command = tokio::process::Command::new(&built.executable);
            command.args(args);
            quiet_audit(&mut command);
            Client::spawn(command)
                .with_context(|| format!("cannot start {}", built.executable.display()))?
        }
        ServerSpec::Command(cmd) => {
            let (program, args) = cmd
                .split_first()
                .ok_or_else(|| crate::error::usage("--command needs a program to run"))?;
            let mut command = tokio::process::Command::new(program);
            command.args(args);
            quiet_audit(&mut command);
            Client::spawn(command).with_context(|| format!("cannot start `{program}`"))?
        }
        ServerSpec::Url { url, token, login } => {
            return connect_url(spec, url, token.as_deref(), login, era, timeout, input).await;
        }
    };
    finish(spec, client.with_input_handler(input), era, timeout).await
}

/// Connects to an HTTP endpoint with the token given, else the stored login's (refreshed
/// when it expired); when the server answers 401 without a given token, logs in (see
/// [`oauth`](super::oauth)) and connects again, once the user agreed ([`may_log_in`]).
async fn connect_url(
    spec: &ServerSpec,
    url: &str,
    given: Option<&str>,
    login: &super::oauth::Options,
    era: EraMode,
    timeout: Duration,
    input: InputHandler,
) -> Result<Connection> {
    use super::oauth;
    let open = |credential: Option<&oauth::Credential>| {
        match credential {
            Some(oauth::Credential {
                access_token,
                dpop: Some(key),
            }) => Client::http_with_dpop(url, access_token, key.clone()),
            Some(credential) => Client::http_with_token(url, &credential.access_token),
            None => Client::http(url),
        }
        .map(|c| c.with_input_handler(input.clone()))
        .map_err(|e| anyhow!("{e}"))
    };
    let stored = match given {
        Some(token) => Some(oauth::Credential::bearer(token)),
        None => oauth::stored_credential(url).await?,
    };
    let first = finish(spec, open(stored.as_ref())?, era, timeout).await;
    match first {
        Err(e) if given.is_none() && format!("{e:#}").contains("HTTP 401") => {
            if stored.is_some() {
                eprintln!("the stored login for {url} is no longer accepted");
            }
            may_log_in(url, login)?;
            if stored.is_some() {
                oauth::forget(url)?;
            }
            // The whole login (discovery, registration, the browser, the token) within the
            // login's wait: `--timeout` when given, else the browser's 300 s.
            let fresh = tokio::time::timeout(login.wait, oauth::login_and_store(url, login))
                .await
                .map_err(|_| {
                    anyhow!(
                        "the login to {url} did not finish within {} s",
                        login.wait.as_secs()
                    )
                })??;
            let fresh = oauth::Credential::of(&fresh)?;
            finish(spec, open(Some(&fresh))?, era, timeout).await
        }
        other => other,
    }
}

/// Whether a command that met a 401 from `url` may start a login (a browser window, a
/// client registered at the authorization server): with `--login`, yes; on a terminal,
/// when the user says so; otherwise it stops with what to run instead. A login is never
/// started behind the user's back by `list`, `call` or `read`.
fn may_log_in(url: &str, login: &super::oauth::Options) -> Result<()> {
    use std::io::{BufRead as _, IsTerminal as _, Write as _};
    if login.login_without_asking {
        return Ok(());
    }
    let hint = format!(
        "{url} asks for a login (HTTP 401): run `cargo mcp login {url}` first, or pass \
         --login to log in from this command (--token to send a token instead)"
    );
    if !(std::io::stdin().is_terminal() && std::io::stderr().is_terminal()) {
        bail!(hint);
    }
    eprint!("{url} asks for a login. Log in now (opens a browser)? [y/N] ");
    let _ = std::io::stderr().flush();
    let mut answer = String::new();
    std::io::stdin().lock().read_line(&mut answer)?;
    match answer.trim() {
        "y" | "Y" | "yes" | "Yes" => Ok(()),
        _ => bail!(hint),
    }
}

/// The handshake over a client, within `timeout`.
async fn finish(
    spec: &ServerSpec,
    client: Client,
    era: EraMode,
    timeout: Duration,
) -> Result<Connection> {
    let connected = tokio::time::timeout(timeout, handshake(&client, era))
        .await
        .map_err(|_| anyhow!("no answer within {} s", timeout.as_secs()))
        .and_then(|r| r);
    let handshake = connected.with_context(|| format!("cannot connect to {}", spec.describe()))?;
    let unrouted = client.take_unrouted();
    Ok(Connection {
        unrouted,
        client,
        era: handshake.era,
        protocol_version: handshake.protocol_version,
        server_info: handshake.server_info,
        capabilities: handshake.capabilities,
    })
}

/// What the handshake told.
struct Handshake {
    era: Era,
    protocol_version: String,
    server_info: Option<Implementation>,
    capabilities: ServerCapabilities,
}

async fn handshake(client: &Client, mode: EraMode) -> Result<Handshake> {
    let modern = |discovered: Value| {
        let info = discovered
            .get("_meta")
            .and_then(|m| m.get(SERVER_INFO_KEY))
            .and_then(|i| serde_json::from_value(i.clone()).ok());
        let capabilities = discovered
            .get("capabilities")
            .and_then(|c| serde_json::from_value(c.clone()).ok())
            .unwrap_or_default();
        Handshake {
            era: Era::Modern,
            protocol_version: mcp_runtime::protocol::version::MODERN_VERSION.to_owned(),
            server_info: info,
            capabilities,
        }
    };
    let legacy = |client: Client| async move {
        let result = client.initialize().await.map_err(describe)?;
        Ok::<_, anyhow::Error>(Handshake {
            era: Era::Legacy,
            protocol_version: result.protocol_version,
            server_info: Some(result.server_info),
            capabilities: result.capabilities,
        })
    };
    match mode {
        EraMode::Legacy => legacy(client.clone()).await,
        EraMode::Modern => Ok(modern(client.discover().await.map_err(describe)?)),
        EraMode::Auto => match client.discover().await {
            Ok(found) => Ok(modern(found)),
            Err(ClientError::Protocol(_)) => legacy(client.clone()).await,
            Err(e) => Err(describe(e)),
        },
    }
}

/// A client error as one line.
pub fn describe(error: ClientError) -> anyhow::Error {
    match error {
        ClientError::Closed => {
            anyhow!("the server closed the connection (did it exit? its stderr is above)")
        }
        // Made by the HTTP client when no JSON-RPC answer came (see `Client::http`).
        ClientError::Protocol(e)
            if e.data
                .as_ref()
                .is_some_and(|d| d.get("transport").is_some()) =>
        {
            anyhow!("{}", e.message)
        }
        ClientError::Protocol(e) => {
            anyhow!("the server answered with error {}: {}", e.code, e.message)
        }
        other => anyhow!("{other}"),
    }
}

/// Runs `f` with `timeout`, as one line on failure.
pub async fn bounded<T>(
    timeout: Duration,
    what: &str,
    f: impl std::future::Future<Output = Result<T, ClientError>>,
) -> Result<T> {
    match tokio::time::timeout(timeout, f).await {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(e)) => Err(describe(e).context(what.to_owned())),
        Err(_) => bail!("{what}: no answer within {} s", timeout.as_secs()),
    }
}

/// Servers made with the toolkit write an audit line per call to stderr by default, which
/// would only clutter a command's output here: unless the user set `RUST_LOG`, the server
/// gets `RUST_LOG=warn` (warnings and errors still show).
fn quiet_audit(command: &mut tokio::process::Command) {
    if std::env::var_os("RUST_LOG").is_none() {
        command.env("RUST_LOG", "warn");
    }
}
