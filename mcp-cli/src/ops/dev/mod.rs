//! `cargo mcp dev`: build and serve the current project, and rebuild it on every saved
//! change while the client stays connected.
//!
//! The client talks to a stable endpoint (our stdio) in front of the real server, a child
//! process restarted after each successful build:
//!
//! ```text
//! client ⇄ stdin/stdout ⇄ [relay] ⇄ stdin/stdout ⇄ server (generation N)
//!                            ▲
//!          watcher ─▶ builder (cargo build, one at a time) ─▶ start generation N+1
//! ```
//!
//! - [`watch`] turns saved changes under the workspace root into build requests
//!   (debounced; the target folder, `.git` and editors' scratch files ignored).
//! - The builder runs one `cargo build --message-format=json-render-diagnostics` at a
//!   time; a save during a build queues exactly one more (a [`tokio::sync::Notify`] permit,
//!   which does not stack). Cargo's rendered diagnostics go to stderr.
//! - A successful build starts a new server process; [`relay::Relay`] replays the client's
//!   handshake to it, moves the client's traffic over, retires the old process (EOF on
//!   stdin, then a kill after [`DevOptions::grace`]) and tells the client its lists changed.
//!   A build that leaves the binary as it was (cargo reports it `fresh`: a README saved)
//!   does not restart anything. The protocol decisions are in [`relay`]'s documentation.
//! - A failed build keeps the last good server serving and says so after the compiler's
//!   errors.
//! - **stdout is the protocol channel**: every message of ours, cargo's output and the
//!   server's stderr go to stderr; our messages start with `cargo mcp dev:`.
//! - The session ends when the client closes our stdin; the server gets EOF in turn.
//! - [`inspector`] runs the official MCP Inspector in front of all this (`--inspector`).
//!
//! - With `--transport http` the client talks to [`http`]'s Streamable HTTP endpoint instead
//!   of our stdio; the relay behind it is the same. The session then lasts until Ctrl-C.
//!
//! The TypeScript client in `auto` or modern mode probes `server/discover` on a throwaway
//! sibling process, so it starts `cargo mcp dev` twice; the probe's copy builds (a no-op
//! when the other one built already) and exits with its stdin.

pub mod build;
pub mod child;
pub mod http;
pub mod inspector;
pub mod preview;
pub mod relay;
pub mod watch;

use crate::ops::project::{self, ProjectBinary};
use anyhow::{Context as _, Result};
use child::ServerProcess;
use relay::{Action, Generation, Relay};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _, BufReader};
use tokio::sync::{Notify, mpsc};

/// How long a rebuilt server has to answer the replayed `initialize`.
const START_TIMEOUT: Duration = Duration::from_secs(20);

/// What `cargo mcp dev` serves, and how.
#[derive(Debug, Clone)]
pub struct DevOptions {
    /// The project's `Cargo.toml` (default: the one for the current folder).
    pub manifest_path: Option<PathBuf>,
    /// The binary to run, when the package has several.
    pub bin: Option<String>,
    /// Arguments for the server.
    pub server_args: Vec<String>,
    /// How long the files must be quiet before a change is built.
    pub debounce: Duration,
    /// How long a replaced server may keep answering what it was asked before it is killed.
    pub grace: Duration,
}

/// Where the client reaches a dev session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Transport {
    /// Our stdin and stdout (the client started us).
    Stdio,
    /// A Streamable HTTP endpoint on this address (`http://<address>/mcp`).
    Http(std::net::SocketAddr),
    /// No outside client: the MCP Apps preview page on this address ([`preview`]) is the
    /// client, showing `tool` (the first tool with a view when `None`) called with
    /// `arguments`.
    Preview {
        /// Where the page is served (a loopback IPv4 address).
        address: std::net::SocketAddr,
        /// The tool whose view is shown.
        tool: Option<String>,
        /// The arguments it is called with.
        arguments: serde_json::Value,
    },
}

/// What happens in a session, as the event loop sees it.
#[derive(Debug)]
pub enum Event {
    /// A line from the client.
    Client(String),
    /// The client closed its side.
    ClientClosed,
    /// A line from a server's stdout.
    Server(Generation, String),
    /// A server process exited, and how.
    ServerExited(Generation, String),
    /// A build succeeded.
    Built(build::Build),
    /// A starting server's time to answer `initialize` is up.
    StartTimeout(Generation),
}

/// One line on stderr, marked as ours.
fn report(message: impl std::fmt::Display) {
    eprintln!("cargo mcp dev: {message}");
}

/// The project's binary, located from `cwd` like the other commands do.
async fn locate(options: &DevOptions, cwd: &Path) -> Result<ProjectBinary> {
    let (manifest_path, bin, cwd) = (
        options.manifest_path.clone(),
        options.bin.clone(),
        cwd.to_path_buf(),
    );
    tokio::task::spawn_blocking(move || {
        project::locate(
            manifest_path.as_deref(),
            bin.as_deref(),
            &cwd,
            "--manifest-path",
        )
    })
    .await
    .context("the project lookup failed")?
}

/// Serves the project over our stdio until the client closes stdin.
pub async fn serve_stdio(options: DevOptions) -> Result<()> {
    serve(options, Transport::Stdio).await
}

/// Serves the project over `transport`: until the client closes our stdin, or for HTTP
/// until Ctrl-C.
pub async fn serve(options: DevOptions, transport: Transport) -> Result<()> {
    let cwd = std::env::current_dir().context("cannot read the current folder")?;
    let binary = locate(&options, &cwd).await?;
    let root = binary.workspace_root.clone();
    let (events, inbox) = mpsc::unbounded_channel();
    let (client, outbox) = mpsc::unbounded_channel();
    // The preview's page server, stopped when the session ends.
    let mut page = None;
    let writer = match transport {
        Transport::Stdio => {
            report(format_args!(
                "serving `{}` over stdio, rebuilt on every change under {}",
                binary.bin,
                root.display()
            ));
            tokio::spawn(read_client(events.clone()));
            tokio::spawn(write_client(outbox))
        }
        Transport::Http(address) => {
            let token_file = binary
                .target_directory
                .join("cargo-mcp")
                .join(format!("dev-token-{}", binary.package));
            let front = http::Front::bind(address, events.clone(), &token_file).await?;
            report(format_args!(
                "serving `{}` at {} (Streamable HTTP), rebuilt on every change under {}; Ctrl-C stops",
                binary.bin,
                front.url()?,
                root.display()
            ));
            let stop = events.clone();
            tokio::spawn(async move {
                if tokio::signal::ctrl_c().await.is_ok() {
                    let _ = stop.send(Event::ClientClosed);
                }
            });
            tokio::spawn(front.run(outbox))
        }
        Transport::Preview {
            address,
            tool,
            arguments,
        } => {
            let preview = preview::Preview::bind(address, events.clone(), outbox).await?;
            report(format_args!(
                "previewing `{}`'s app at {} (open it in a browser), rebuilt on every change under {}; Ctrl-C stops",
                binary.bin,
                preview.url(tool.as_deref(), &arguments),
                root.display()
            ));
            let stop = events.clone();
            tokio::spawn(async move {
                if tokio::signal::ctrl_c().await.is_ok() {
                    let _ = stop.send(Event::ClientClosed);
                }
            });
            page = Some(tokio::spawn(preview.run()));
            // Nothing is written for a client of ours when the session ends.
            tokio::spawn(async {})
        }
    };

    let wanted = Arc::new(Notify::new());
    let on_change = Arc::clone(&wanted);
    let _watcher = watch::watch(
        watch::Ignore::new(&root, &binary.target_directory),
        options.debounce,
        move |paths| {
            let first = paths[0]
                .strip_prefix(&root)
                .unwrap_or(&paths[0])
                .display()
                .to_string();
            let more = match paths.len() {
                1 => String::new(),
                n => format!(" and {} more", n - 1),
            };
            report(format_args!("{first}{more} changed; rebuilding"));
            on_change.notify_one();
        },
        |problem| report(format_args!("watching: {problem}")),
    )
    .context("cannot watch the project for changes")?;
    tokio::spawn(builder(binary, cwd, Arc::clone(&wanted), events.clone()));
    wanted.notify_one();

    let session = Session {
        relay: Relay::new(),
        servers: HashMap::new(),
        last: 0,
        executable: None,
        client,
        events,
        options,
    };
    session.run(inbox).await;
    if let Some(page) = page {
        page.abort();
    }
    // Everything for the client is written before we return.
    let _ = writer.await;
    Ok(())
}

/// Builds whenever asked, one build at a time.
async fn builder(
    binary: ProjectBinary,
    cwd: PathBuf,
    wanted: Arc<Notify>,
    events: mpsc::UnboundedSender<Event>,
) {
    loop {
        wanted.notified().await;
        match build::build(&binary, &cwd).await {
            Ok(built) => {
                if events.send(Event::Built(built)).is_err() {
                    return;
                }
            }
            Err(e) => report(format_args!(
                "{e:#}; the last good server (if any) keeps serving"
            )),
        }
    }
}

/// Client lines from our stdin.
async fn read_client(events: mpsc::UnboundedSender<Event>) {
    let mut stdin = BufReader::new(tokio::io::stdin());
    let mut buffer = Vec::new();
    loop {
        buffer.clear();
        match stdin.read_until(b'\n', &mut buffer).await {
            Ok(0) | Err(_) => break,
            Ok(_) => {
                let line = String::from_utf8_lossy(&buffer).into_owned();
                if events.send(Event::Client(line)).is_err() {
                    return;
                }
            }
        }
    }
    let _ = events.send(Event::ClientClosed);
}

/// Lines for the client, to our stdout, each flushed.
async fn write_client(mut outbox: mpsc::UnboundedReceiver<String>) {
    let mut stdout = tokio::io::stdout();
    while let Some(mut line) = outbox.recv().await {
        line.push('\n');
        if stdout.write_all(line.as_bytes()).await.is_err() || stdout.flush().await.is_err() {
            return;
        }
    }
}

/// The event loop's state: the relay and the server processes it drives.
struct Session {
    relay: Relay,
    servers: HashMap<Generation, ServerProcess>,
    last: Generation,
    /// The executable the current server runs.
    executable: Option<PathBuf>,
    client: mpsc::UnboundedSender<String>,
    events: mpsc::UnboundedSender<Event>,
    options: DevOptions,
}

impl Session {
    async fn run(mut self, mut inbox: mpsc::UnboundedReceiver<Event>) {
        while let Some(event) = inbox.recv().await {
            let actions = match event {
                Event::Client(line) => self.relay.from_client(&line),
                Event::ClientClosed => break,
                Event::Server(server, line) => self.relay.from_server(server, &line),
                Event::ServerExited(server, status) => {
                    self.servers.remove(&server);
                    self.relay.exited(server, &status)
                }
                Event::Built(built) => self.start(built),
                Event::StartTimeout(server) => self.relay.start_timed_out(server),
            };
            self.perform(actions);
        }
        // The client left: let the servers finish (bounded) and wait for them.
        let grace = self.options.grace;
        for server in self.servers.values_mut() {
            server.retire(grace);
        }
        let deadline = tokio::time::Instant::now() + grace + Duration::from_secs(3);
        while !self.servers.is_empty() {
            match tokio::time::timeout_at(deadline, inbox.recv()).await {
                Ok(Some(Event::ServerExited(server, _))) => {
                    self.servers.remove(&server);
                }
                Ok(Some(_)) => {}
                Ok(None) | Err(_) => break,
            }
        }
    }

    /// Starts a server from a successful build (unless the binary did not change).
    fn start(&mut self, built: build::Build) -> Vec<Action> {
        let unchanged = built.fresh && self.executable.as_ref() == Some(&built.executable);
        if unchanged && self.relay.current().is_some() {
            report("the build left the server unchanged; it keeps serving");
            return Vec::new();
        }
        self.last += 1;
        let generation = self.last;
        let args = &self.options.server_args;
        match ServerProcess::spawn(generation, &built.executable, args, self.events.clone()) {
            Ok(process) => {
                self.servers.insert(generation, process);
                let restarted = self.executable.is_some();
                self.executable = Some(built.executable.clone());
                report(format_args!(
                    "{} {}",
                    if restarted {
                        "restarted the server:"
                    } else {
                        "started the server:"
                    },
                    built.executable.display()
                ));
                let events = self.events.clone();
                tokio::spawn(async move {
                    tokio::time::sleep(START_TIMEOUT).await;
                    let _ = events.send(Event::StartTimeout(generation));
                });
                self.relay.started(generation)
            }
            Err(e) => vec![Action::Report(format!(
                "cannot start {}: {e}",
                built.executable.display()
            ))],
        }
    }

    fn perform(&mut self, actions: Vec<Action>) {
        for action in actions {
            match action {
                Action::ToClient(line) => {
                    let _ = self.client.send(line);
                }
                Action::ToServer(server, line) => {
                    if let Some(process) = self.servers.get(&server) {
                        process.send(line);
                    }
                }
                Action::Report(message) => report(message),
                Action::Retire(server) => {
                    if let Some(process) = self.servers.get_mut(&server) {
                        process.retire(self.options.grace);
                    }
                }
            }
        }
    }
}
