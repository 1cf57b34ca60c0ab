//! Serving another server's items as this server's own: an [`Upstream`] (a child process
//! over stdio, or a Streamable HTTP endpoint) becomes a [`Proxy`], whose
//! [`server`](Proxy::server) is mounted like any other (`ServerBuilder::mount`) and
//! so goes through the same pipeline on the way in (validation, timeouts, rate limits,
//! audit, telemetry).
//!
//! # Decisions
//!
//! - **A mirror server.** The proxy keeps a [`Server`] whose tools, prompts, resources and
//!   templates are the upstream's, each forwarding to it. Lists are the mirror's (served
//!   from memory, cached per page like any server's) and re-listed when the upstream says
//!   they changed, so a client of the proxy hears `list_changed` through the mount.
//! - **An upstream's items are data, never configuration.** An item that would not
//!   register on a server of ours (a bad name, a schema that is not a schema, a repeated
//!   name) is left out and logged, never failing the others; lists are read with a bound on
//!   pages and items; a message over [`Upstream::max_message_bytes`] closes a child's
//!   connection (the child is restarted) and fails an HTTP upstream's request at that
//!   length, so a greedy upstream cannot grow the proxy's memory. Names are rewritten only
//!   by the mount: an upstream cannot name an item into another mount's prefix, since
//!   every name it gives gets its own prefix in front.
//! - **Down is per upstream.** While an upstream is down (not started yet, crashed, being
//!   restarted) its items stay listed and a call gets an `isError` result (a read or a
//!   prompt a `-32603` error) naming the upstream and why, while every other source keeps
//!   serving. A child that exits is restarted with exponential backoff (0.5 s doubling to
//!   30 s, reset after a connection that lived a minute), its stderr logged line by line
//!   (target `mcp_runtime::proxy`, field `upstream`).
//! - **What passes through now**: calls with their arguments, progress (the client gives
//!   the upstream a progress token of its own and routes the upstream's notifications, in
//!   wire order, to the caller: every one before the answer), cancellation (a call dropped
//!   by its caller, its timeout or its cancellation sends `notifications/cancelled`
//!   upstream), completions (prompt arguments and template variables), the caller's trace
//!   context (`traceparent`, `tracestate`, `baggage` in `_meta`), list changes and
//!   resource updates (re-list; `updated` at the mounted URI: over stdio as they come, over
//!   HTTP on a 2025 session's standalone GET stream or a 2026-07-28 listen stream). The
//!   proxy speaks 2025-11-25 to its upstreams by default ([`Upstream::era`]); the proxy's
//!   own clients use either era.
//! - **Questions and log messages** of the upstream (elicitation, sampling, roots; its
//!   `notifications/message`) go to the caller of the requests waiting on that
//!   connection, as that caller's own asks (a request on a 2025 session, an
//!   `input_required` round on 2026-07-28, where the retried call is forwarded again and
//!   the upstream's repeated question is answered from the round) and log messages. A
//!   stdio server's wire says nothing of which request a question belongs to: with one
//!   request waiting, or several of one client (one legacy session: a stdio connection,
//!   as a gateway served over stdio has, or one Streamable HTTP session) the question goes
//!   to that client; with requests of several clients waiting it is refused (`-32603`,
//!   saying why) and the log message logged here only: a caller never sees another
//!   caller's. [`Upstream::connection_per_client`] gives each client a connection of its
//!   own, where every question is that client's.
//! - **Over a 2026-07-28 connection** ([`Upstream::era`] `Modern`, or `Auto` with an
//!   upstream that answers `server/discover`) the upstream is told the caller's client
//!   capabilities, so it asks only what the caller can answer, and its `input_required`
//!   round is asked of the caller under the upstream's own keys, all of the round at once
//!   (a modern caller gets one `input_required` round of the gateway with those keys; a
//!   2025 caller gets the requests on its session). When the caller retries, the request
//!   is forwarded again and the answers go upstream with the upstream's `requestState`,
//!   which never leaves the proxy (the gateway's own round state is what the caller
//!   echoes). An answer that is not one never goes upstream: it is asked again, as our
//!   own tools' asks are; the upstream's `-32021` is the caller's `-32021` (HTTP 400). At
//!   most 8 rounds per request.
//! - **Tasks** (the 2026-07-28 tasks extension): a call the upstream makes a task of
//!   becomes a task of the proxy's (the mirror's tools are
//!   [`TaskSupport::Explicit`](crate::task::TaskSupport::Explicit)), with the proxy's own
//!   id, store, owner checks and limits, and the proxy follows the upstream's task behind
//!   it: its status message, its questions (asked of the caller under the upstream's keys
//!   and sent on with `tasks/update`), its end (the result, or the error it failed with);
//!   cancelling the proxy's task cancels the upstream's. A call the upstream answers at
//!   once is answered at once. A proxy whose upstream may speak 2026-07-28 offers tasks,
//!   and a server it is mounted into offers them too.
//! - **Skills** (SEP-2640): the upstream's skills are served as the mirror's own
//!   (`skills/list`, `skills/get`, `resources/directory/read` from the mirror's catalog;
//!   their files read from the upstream when read, and checked against the manifest's size
//!   and digest). The mirror declares the extension as it advertises every primitive: for
//!   what the upstream may have.
//! - **An HTTP upstream's token endpoint is configured, not discovered**
//!   ([`Upstream::client_credentials`]): discovering it from the upstream's
//!   protected-resource metadata would let the upstream choose where the gateway sends its
//!   client secret.
//! - **`_meta`** passes through both ways: a caller's own keys (`com.example/…`,
//!   [`RequestContext::meta`]) go upstream with its request, and a result's `_meta` comes
//!   back as the upstream gave it. The protocol's keys (`io.modelcontextprotocol/…`,
//!   `progressToken`) are each hop's own: the proxy sets its own for the upstream.

mod mirror;
mod per_client;
mod relay;
mod waiters;
use mirror::Resync;
use waiters::{Routed, Waiters, ask_or_refuse, log_hook};
#[cfg(feature = "skills")]
mod skills;
mod task;

use crate::client::{Client, ClientError, EraMode};
use crate::context::RequestContext;
use crate::protocol::methods;
use crate::server::{BuildError, Primitive, Server, ServerBuilder};
use serde_json::{Value, json};

use std::ffi::OsString;
use std::fmt;
use std::path::PathBuf;

use std::sync::{Arc, RwLock};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::sync::{mpsc, watch};
use tokio_util::sync::CancellationToken;

/// The default bound on one message from an upstream ([`Upstream::max_message_bytes`]).
pub const DEFAULT_MAX_MESSAGE_BYTES: usize = 16 * 1024 * 1024;

/// How many list pages, and items in all, a list of an upstream may have: past them the
/// rest is left out (and logged).
const MAX_LIST_PAGES: usize = 100;
const MAX_LIST_ITEMS: usize = 10_000;

/// Where an upstream server is and how to talk to it.
#[derive(Clone)]
pub struct Upstream {
    name: String,
    target: Target,
    era: EraMode,
    max_message_bytes: usize,
    /// At most this many clients get a connection of their own (`None`: one shared).
    per_client: Option<usize>,
}

#[derive(Clone)]
enum Target {
    Command {
        program: OsString,
        args: Vec<OsString>,
        env: Vec<(OsString, OsString)>,
        dir: Option<PathBuf>,
    },
    Http {
        url: String,
        token: Option<String>,
        #[cfg(feature = "client-http")]
        credentials: Option<crate::client::ClientCredentials>,
    },
    /// A server in this process, over the in-memory transport (the module's tests).
    #[cfg(test)]
    Memory(Server),
}

impl fmt::Debug for Upstream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = f.debug_struct("Upstream");
        s.field("name", &self.name);
        match &self.target {
            Target::Command { program, args, .. } => {
                s.field("program", program).field("args", args);
            }
            // The token is a secret: never in a debug print.
            Target::Http { url, token, .. } => {
                s.field("url", url)
                    .field("token", &token.as_ref().map(|_| "…"));
            }
            #[cfg(test)]
            Target::Memory(_) => {}
        }
        s.finish_non_exhaustive()
    }
}

impl Upstream {
    /// A server run as `program` with `args` (no shell), spoken to over its stdin and
    /// stdout. Its environment is the proxy's plus [`env`](Self::env); its stderr goes to
    /// the proxy's log.
    pub fn command<I, S>(program: impl Into<OsString>, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<OsString>,
    {
        let program = program.into();
        Self {
            name: program.to_string_lossy().into_owned(),
            target: Target::Command {
                program,
                args: args.into_iter().map(Into::into).collect(),
                env: Vec::new(),
                dir: None,
            },
            era: EraMode::Legacy,
            max_message_bytes: DEFAULT_MAX_MESSAGE_BYTES,
            per_client: None,
        }
    }

    /// A server at a Streamable HTTP endpoint (`http://`, or `https://` with the
    /// `client-https` feature).
    pub fn http(url: impl Into<String>) -> Self {
        let url = url.into();
        Self {
            name: url.clone(),
            target: Target::Http {
                url,
                token: None,
                #[cfg(feature = "client-http")]
                credentials: None,
            },
            era: EraMode::Legacy,
            max_message_bytes: DEFAULT_MAX_MESSAGE_BYTES,
            per_client: None,
        }
    }

    /// The name the proxy's log and errors call it (by default the program or the URL).
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// Sets an environment variable of the child (a command upstream; ignored otherwise).
    pub fn env(mut self, key: impl Into<OsString>, value: impl Into<OsString>) -> Self {
        if let Target::Command { env, .. } = &mut self.target {
            env.push((key.into(), value.into()));
        }
        self
    }

    /// The child's working directory (a command upstream; ignored otherwise).
    pub fn current_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        if let Target::Command { dir: d, .. } = &mut self.target {
            *d = Some(dir.into());
        }
        self
    }

    /// Sends `Authorization: Bearer {token}` to an HTTP upstream. This is the upstream's
    /// own credential: a caller's token is never forwarded (the MCP authorization spec
    /// forbids passing tokens through).
    pub fn bearer_token(mut self, token: impl Into<String>) -> Self {
        if let Target::Http {
            token: t,
            #[cfg(feature = "client-http")]
            credentials,
            ..
        } = &mut self.target
        {
            *t = Some(token.into());
            #[cfg(feature = "client-http")]
            {
                *credentials = None;
            }
        }
        self
    }

    /// Authenticates the proxy to an HTTP upstream with OAuth client credentials: access
    /// tokens for the upstream's URL (RFC 8707 `resource`), asked for at the token endpoint
    /// and renewed as they expire ([`Client::http_with_credentials`]). Like
    /// [`bearer_token`](Self::bearer_token), the proxy's own credential; it replaces a
    /// bearer token. Ignored for a command upstream.
    #[cfg(feature = "client-http")]
    pub fn client_credentials(mut self, credentials: crate::client::ClientCredentials) -> Self {
        if let Target::Http {
            token,
            credentials: c,
            ..
        } = &mut self.target
        {
            *token = None;
            *c = Some(credentials);
        }
        self
    }

    /// Which era the proxy speaks to the upstream: `Legacy` (2025-11-25, the default),
    /// `Modern` or `Auto`.
    pub fn era(mut self, era: EraMode) -> Self {
        self.era = era;
        self
    }

    /// Gives each client of the proxy (each 2025 session: a Streamable HTTP session) a
    /// connection of its own to a 2025 upstream, up to `max` at once: a child process of
    /// its own (an HTTP session of its own for an HTTP upstream), opened at the client's
    /// first request. Then every question the upstream asks on it (elicitation, sampling,
    /// roots) and every log message is that client's, even while several clients' requests
    /// wait (on one shared connection nothing on the wire says whose a question is, and it
    /// is refused while requests of several clients wait). It also keeps a stdio server's
    /// per-connection state (log level, roots) per client. A connection idle for 5 minutes
    /// gives its place to a new client; with every place taken by a busy client the shared
    /// connection serves the new one. Costs a process per client: size `max` to the
    /// machine. Not needed for a 2026-07-28 upstream, whose questions come in the answer of
    /// the request they are for (then ignored).
    pub fn connection_per_client(mut self, max: usize) -> Self {
        self.per_client = Some(max.max(1));
        self
    }

    /// The longest message the upstream may send (16 MiB by default): a longer one closes
    /// the connection, as a broken upstream.
    pub fn max_message_bytes(mut self, bytes: usize) -> Self {
        self.max_message_bytes = bytes;
        self
    }
}

/// Why an upstream cannot be used right now.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ProxyError {
    /// It is not connected: starting, restarting, or unreachable; the text says why.
    #[error("the upstream server `{upstream}` is unavailable: {reason}")]
    Unavailable {
        /// The upstream's name.
        upstream: String,
        /// What happened last.
        reason: String,
    },
}

/// A connected (or connecting) upstream, and the server that mirrors its items.
#[derive(Clone)]
pub struct Proxy {
    link: Arc<Link>,
    mirror: Server,
}

impl fmt::Debug for Proxy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Proxy")
            .field("upstream", &self.link.upstream)
            .field("connected", &self.connected())
            .finish_non_exhaustive()
    }
}

/// What the mirror's items share: the current connection, and the progress routes.
pub(crate) struct Link {
    upstream: Upstream,
    /// The connection, or why there is none.
    client: RwLock<Result<Client, String>>,
    /// The forwarded requests waiting on the shared connection: see [`Waiters::route`].
    waiting: Waiters,
    /// The clients' own connections ([`Upstream::connection_per_client`]).
    own: per_client::Connections,
    /// Ends the supervisor when the last `Proxy` is dropped.
    stop: CancellationToken,
    /// How many connections have been made (0: none yet).
    connections: watch::Sender<u64>,
    /// How many attempts to connect have ended, connected or not.
    attempts: watch::Sender<u64>,
    /// What the upstream listed at the last sync of each kind (see `mirror::sync`).
    listed: std::sync::Mutex<mirror::Listed>,
}

impl Link {
    /// The current connection, or the error a caller gets.
    fn client(&self) -> Result<Client, ProxyError> {
        match &*self.client.read().unwrap_or_else(|p| p.into_inner()) {
            Ok(client) => Ok(client.clone()),
            Err(reason) => Err(ProxyError::Unavailable {
                upstream: self.upstream.name.clone(),
                reason: reason.clone(),
            }),
        }
    }
}

impl Drop for Link {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

impl Proxy {
    /// Starts proxying `upstream`: connects in the background (and reconnects whenever the
    /// connection ends), mirroring its items on a server built from
    /// `Server::builder("proxy", version)`. Must be called inside a Tokio runtime.
    pub fn start(upstream: Upstream) -> Self {
        Self::start_with(
            upstream,
            Server::builder("proxy", env!("CARGO_PKG_VERSION")),
        )
        .expect("a server with no items builds")
    }

    /// Like [`start`](Self::start), on a server built from `builder`: its policies, layers
    /// and audit apply to every forwarded item (items of its own would be replaced by the
    /// upstream's). Fails as `builder.build()` would.
    ///
    /// The proxy runs as long as a `Proxy` handle or its [`server`](Self::server) (a mount
    /// of it, a transport serving it) is kept: then the child is stopped.
    pub fn start_with(upstream: Upstream, builder: ServerBuilder) -> Result<Self, BuildError> {
        // An upstream spoken to in 2026-07-28 may make tasks of calls, which the mirror's
        // tools then run as tasks of the proxy's: offered, with the default settings unless
        // `builder` has its own.
        let builder = if upstream.era != EraMode::Legacy && !builder.configures_tasks() {
            builder.tasks(crate::task::TaskOptions::default())
        } else {
            builder
        };
        // The skills extension is declared as every primitive is advertised: for what the
        // upstream may have.
        #[cfg(feature = "skills")]
        let builder = builder.served_skills(Vec::new(), []);
        let mirror = builder
            .advertise(Primitive::Tools)
            .advertise(Primitive::Prompts)
            .advertise(Primitive::Resources)
            .build()?;
        let link = Arc::new(Link {
            client: RwLock::new(Err("not connected yet".into())),
            upstream,
            waiting: Waiters::default(),
            own: per_client::Connections::default(),
            stop: CancellationToken::new(),
            connections: watch::channel(0).0,
            attempts: watch::channel(0).0,
            listed: std::sync::Mutex::default(),
        });
        // Weakly: the mirror's items hold the link, and the supervisor holds neither, so the
        // proxy ends (its child killed) with its last user.
        let weak = Arc::downgrade(&link);
        let stop = link.stop.clone();
        let mirror_for_supervisor = mirror.downgrade();
        tokio::spawn(async move {
            tokio::select! {
                () = supervise(weak, mirror_for_supervisor) => {}
                () = stop.cancelled() => {}
            }
        });
        Ok(Self { link, mirror })
    }

    /// The server mirroring the upstream's items: mount it (`ServerBuilder::mount`) or
    /// serve it as it is.
    pub fn server(&self) -> &Server {
        &self.mirror
    }

    /// Whether the upstream is connected now.
    pub fn connected(&self) -> bool {
        self.link
            .client
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .is_ok()
    }

    /// Waits until the first attempt to connect has ended: connected (and its items
    /// listed), or failed (then [`connected`](Self::connected) is false, and its callers
    /// are told why). A server that mounts proxies can wait for this before serving, so
    /// its first lists are complete without waiting on an upstream that is down.
    pub async fn first_attempt(&self) {
        let mut attempts = self.link.attempts.subscribe();
        let _ = attempts.wait_for(|a| *a >= 1).await;
    }

    /// Waits until the upstream has been connected (and its items listed) `n` times in
    /// all: `1` for the first connection, `2` for the first restart, …
    pub async fn connected_times(&self, n: u64) {
        let mut connections = self.link.connections.subscribe();
        let _ = connections.wait_for(|c| *c >= n).await;
    }
}

/// Connects, mirrors, follows the upstream's notifications, and starts again when the
/// connection ends, until the proxy is gone.
async fn supervise(link: std::sync::Weak<Link>, mirror: crate::server::WeakServer) {
    let mut delay = Duration::from_millis(500);
    loop {
        let Some(strong) = link.upgrade() else { return };
        let upstream = strong.upstream.clone();
        drop(strong);
        let began = std::time::Instant::now();
        let outcome = match connect(&upstream).await {
            Ok((client, notes, process)) => {
                let (Some(strong), Some(server)) = (link.upgrade(), mirror.upgrade()) else {
                    return;
                };
                // Log messages go to the caller in wire order, before the answer of the
                // request they came during (through `follow`, one could come after it).
                client.intercept_notifications(log_hook(
                    link.clone(),
                    |link: &Link| &link.waiting,
                    upstream.name.clone(),
                ));
                mirror::sync(&strong, &client, &server, Resync::Check, &Primitive::ALL).await;
                drop(server);
                *strong.client.write().unwrap_or_else(|p| p.into_inner()) = Ok(client.clone());
                strong.connections.send_modify(|c| *c += 1);
                strong.attempts.send_modify(|a| *a += 1);
                drop(strong);
                // Over 2026-07-28 the list changes come on a listen stream, kept open for
                // the connection's life; `follow` reads them as over a 2025 session.
                let listen = (client.era() == Some(crate::protocol::Era::Modern)).then(|| {
                    let client = client.clone();
                    tokio::spawn(async move {
                        let params = json!({"notifications": {
                            "toolsListChanged": true,
                            "promptsListChanged": true,
                            "resourcesListChanged": true,
                        }});
                        let method = methods::SUBSCRIPTIONS_LISTEN.name;
                        let _ = client.request_cancellable(method, Some(params), None).await;
                    })
                });
                let why = follow(&link, &client, notes, &mirror).await;
                if let Some(listen) = listen {
                    listen.abort();
                }
                drop(process);
                why
            }
            Err(e) => {
                if let Some(strong) = link.upgrade() {
                    *strong.client.write().unwrap_or_else(|p| p.into_inner()) = Err(e.clone());
                    strong.attempts.send_modify(|a| *a += 1);
                }
                e
            }
        };
        let Some(strong) = link.upgrade() else { return };
        tracing::warn!(
            upstream = %upstream.name,
            "upstream unavailable: {outcome}; reconnecting in {delay:?}"
        );
        *strong.client.write().unwrap_or_else(|p| p.into_inner()) = Err(outcome);
        drop(strong);
        if began.elapsed() > Duration::from_secs(60) {
            delay = Duration::from_millis(500);
        }
        tokio::time::sleep(delay).await;
        delay = (delay * 2).min(Duration::from_secs(30));
    }
}

/// Handles the upstream's notifications and requests until the connection ends; returns
/// why it ended.
async fn follow(
    link: &std::sync::Weak<Link>,
    client: &Client,
    mut notes: mpsc::UnboundedReceiver<Value>,
    mirror: &crate::server::WeakServer,
) -> String {
    while let Some(note) = notes.recv().await {
        let (Some(link), Some(mirror)) = (link.upgrade(), mirror.upgrade()) else {
            return "the proxy stopped".into();
        };
        let mirror = &mirror;
        let method = note.get("method").and_then(Value::as_str).unwrap_or("");
        let params = note.get("params").cloned().unwrap_or(Value::Null);
        if let Some(id) = note.get("id").filter(|_| !method.is_empty()) {
            ask_or_refuse(&link.waiting, client, id, method, params).await;
            continue;
        }
        match method {
            m if m == methods::TOOLS_LIST_CHANGED.name => {
                mirror::sync(&link, client, mirror, Resync::Told, &[Primitive::Tools]).await;
            }
            m if m == methods::PROMPTS_LIST_CHANGED.name => {
                mirror::sync(&link, client, mirror, Resync::Told, &[Primitive::Prompts]).await;
            }
            m if m == methods::RESOURCES_LIST_CHANGED.name => {
                mirror::sync(&link, client, mirror, Resync::Told, &[Primitive::Resources]).await;
            }
            // The listen stream is open: what changed between the listing and now is
            // listed again (a change told before the stream opened reached nobody).
            m if m == methods::SUBSCRIPTIONS_ACKNOWLEDGED.name => {
                mirror::sync(&link, client, mirror, Resync::Check, &Primitive::ALL).await;
            }
            m if m == methods::RESOURCES_UPDATED.name => {
                if let Some(uri) = params.get("uri").and_then(Value::as_str) {
                    mirror.resources().updated(uri);
                }
            }
            _ if note.get("unparsable").is_some() => {
                tracing::warn!(upstream = %link.upstream.name, "upstream sent a line that is not JSON");
            }
            _ => {}
        }
    }
    "the connection closed".into()
}

/// A running child process; killed when dropped.
struct Process(Option<tokio::process::Child>);

impl Drop for Process {
    fn drop(&mut self) {
        if let Some(child) = &mut self.0 {
            let _ = child.start_kill();
        }
    }
}

/// Connects to `upstream` and makes the handshake of its era.
async fn connect(
    upstream: &Upstream,
) -> Result<(Client, mpsc::UnboundedReceiver<Value>, Process), String> {
    let (client, process) = match &upstream.target {
        Target::Command {
            program,
            args,
            env,
            dir,
        } => {
            let mut command = tokio::process::Command::new(program);
            command.args(args).envs(env.iter().map(|(k, v)| (k, v)));
            if let Some(dir) = dir {
                command.current_dir(dir);
            }
            let (client, child) = spawn(command, upstream)
                .map_err(|e| format!("cannot start {:?}: {e}", program.to_string_lossy()))?;
            (client, Process(Some(child)))
        }
        #[cfg(feature = "client-http")]
        Target::Http {
            url,
            token,
            credentials,
        } => {
            let client = match credentials {
                Some(credentials) => Client::http_bounded_with_credentials(
                    url,
                    credentials.clone(),
                    upstream.max_message_bytes,
                ),
                None => Client::http_bounded(url, token.as_deref(), upstream.max_message_bytes),
            }
            .map_err(|e| e.to_string())?;
            (client, Process(None))
        }
        #[cfg(not(feature = "client-http"))]
        Target::Http { .. } => {
            return Err("an HTTP upstream needs mcp-runtime's `client-http` feature".into());
        }
        #[cfg(test)]
        Target::Memory(server) => (Client::memory(server), Process(None)),
    };
    let notes = client
        .take_unrouted()
        .expect("a new client's notifications are untaken");
    // Every kind of question can be relayed to a caller who can answer it; one who cannot
    // is refused by its own ask, and the upstream gets that error.
    // MCP Apps too: the upstream's views and app-only tools pass through, and this server
    // lists an app-only tool (and lets it be called) only to its callers that render apps.
    client.declare_capabilities(json!({
        "elicitation": {"form": {}, "url": {}},
        "sampling": {},
        "roots": {"listChanged": false},
        "extensions": {
            crate::protocol::apps::UI_EXTENSION: {"mimeTypes": [crate::protocol::apps::APP_MIME_TYPE]},
        },
    }));
    client
        .connect(upstream.era)
        .await
        .map_err(|e| format!("the handshake failed: {e}"))?;
    Ok((client, notes, process))
}

/// Starts the child with piped stdio: its stdout read as bounded lines, its stderr logged.
fn spawn(
    mut command: tokio::process::Command,
    upstream: &Upstream,
) -> std::io::Result<(Client, tokio::process::Child)> {
    command
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true);
    let mut child = command.spawn()?;
    let to_server = crate::client::lines_to(child.stdin.take().expect("piped"));
    let (stdout, stderr) = (
        child.stdout.take().expect("piped"),
        child.stderr.take().expect("piped"),
    );
    let (lines, from_server) = mpsc::channel::<Vec<u8>>(256);
    let (name, max) = (upstream.name.clone(), upstream.max_message_bytes);
    tokio::spawn(async move {
        let mut reader = BufReader::new(stdout);
        loop {
            match read_line(&mut reader, max).await {
                Ok(Some(line)) => {
                    if lines.send(line).await.is_err() {
                        return;
                    }
                }
                Ok(None) => return,
                Err(e) => {
                    tracing::warn!(upstream = %name, "closing the upstream: {e}");
                    return;
                }
            }
        }
    });
    let name = upstream.name.clone();
    tokio::spawn(async move {
        let mut reader = BufReader::new(stderr);
        // Stderr lines are bounded too, at 64 KiB each: a log line longer is cut.
        while let Ok(Some(line)) = read_line(&mut reader, 64 * 1024).await {
            let line = String::from_utf8_lossy(&line);
            tracing::info!(upstream = %name, "{}", line.trim_end());
        }
    });
    Ok((Client::from_channels(to_server, from_server), child))
}

/// One line of at most `max` bytes (without its newline); `None` at the end. A longer line
/// is an error: its bytes are never all held.
async fn read_line<R: tokio::io::AsyncBufRead + Unpin>(
    reader: &mut R,
    max: usize,
) -> std::io::Result<Option<Vec<u8>>> {
    let mut line = Vec::new();
    loop {
        let available = reader.fill_buf().await?;
        if available.is_empty() {
            return Ok((!line.is_empty()).then_some(line));
        }
        let (taken, done) = match memchr::memchr(b'\n', available) {
            Some(at) => (at + 1, true),
            None => (available.len(), false),
        };
        if line.len() + taken > max.saturating_add(1) {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!("a message longer than {max} bytes"),
            ));
        }
        line.extend_from_slice(&available[..taken]);
        reader.consume(taken);
        if done {
            return Ok(Some(line));
        }
    }
}

/// The error text of a failed forwarded request.
fn failed(link: &Link, error: &ClientError) -> String {
    match error {
        ClientError::Protocol(e) => e.message.to_string(),
        other => format!(
            "the upstream server `{}` failed: {other}",
            link.upstream.name
        ),
    }
}

#[cfg(test)]
mod tests;
