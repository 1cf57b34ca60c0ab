//! The relay between one client and the successive server processes of a `cargo mcp dev`
//! session: a state machine over JSON-RPC lines, with no I/O of its own.
//!
//! Each call takes one event (a line from the client, a line from a server, a server started
//! or exited) and returns the [`Action`]s for the driver to carry out (write a line to the
//! client or to a server, report to the user, retire a server). Keeping it free of pipes and
//! processes lets the unit tests below walk through restarts line by line.
//!
//! Decisions:
//!
//! - **Lines pass through unchanged**, ids included, in both directions. The relay only
//!   parses a line to learn where it goes and what it means for a restart. The one line it
//!   rewrites is the answer to the client's `initialize`: every primitive the server offers
//!   gets `listChanged: true`, because the relay sends those notifications after each rebuild
//!   whatever the server declares (and clients such as the TypeScript SDK only listen for
//!   what is declared).
//! - **What is replayed to a new server.** The client's `initialize` request (under the
//!   relay's own id, `cargo-mcp-dev/initialize/<generation>`, its answer swallowed), then
//!   `notifications/initialized` if the client sent it, then every open
//!   `subscriptions/listen` request, under the client's own id so the new server tags its
//!   notifications with the subscription id the client knows (the new server's
//!   acknowledgement is swallowed: the client has had one). A modern (2026-07-28) client that
//!   never sent `initialize` gets no handshake replayed, as its requests carry everything.
//! - **What the client is told after a restart.** Legacy (an initialized `initialize`
//!   session): unsolicited `notifications/{tools,resources,prompts}/list_changed` for each
//!   primitive the client was told about at `initialize`. Modern: those notifications only
//!   on open `subscriptions/listen` streams, for the kinds the server's acknowledgement
//!   honoured, tagged with the stream's `subscriptionId` (dual-era.md §4: list_changed).
//!   A primitive the rebuilt server offers but the client was not told about at
//!   `initialize` (the first prompt added, say) is reported on stderr: the client has to
//!   reconnect to learn it.
//! - **Messages during a restart wait.** From the moment a new server is started until it
//!   has answered the replayed `initialize`, client lines are queued, then delivered in
//!   order. Before the first good build, they wait too (a client can be started before the
//!   project compiles).
//! - **Requests in flight to a replaced server** are left to finish: the old server gets
//!   EOF on stdin and a grace period (the driver's), and its answers still reach the
//!   client. What it has not answered when it exits is answered with a JSON-RPC error
//!   ("replaced by a rebuild; send it again"), so no request hangs. An open listen stream
//!   is not answered: it moved to the new server.
//! - **A server that exits on its own** (a crash, a `process::exit`) is reported; each
//!   request it had not answered gets an error, and so does every request until the next
//!   good build starts a server again.
//! - **Server-to-client requests** (sampling, elicitation, roots on a legacy connection)
//!   keep their ids; the client's answer goes back to the server that asked, even one that
//!   is finishing its grace period.
//! - **Bad lines never stop the relay.** A client line that is not JSON goes to the server
//!   (which answers it with a parse error); a server line that is not JSON is reported on
//!   stderr and dropped (on stdout it would corrupt the client's stream).

use serde_json::{Map, Value, json};
use std::collections::{HashMap, VecDeque};

/// A server process's number in a session: 1 for the first one, one more per restart.
pub type Generation = u64;

/// The JSON-RPC error code of the relay's own errors: "internal error" (the server the
/// request was meant for is gone), from JSON-RPC's reserved range.
pub const RELAY_ERROR: i64 = -32603;

/// The `_meta` key that tags a notification with its `subscriptions/listen` stream.
const SUBSCRIPTION_ID_KEY: &str = "io.modelcontextprotocol/subscriptionId";

/// The primitives with list-change notifications: the `initialize` capability key, the
/// `subscriptions/listen` filter key, and the notification method.
const LISTS: [(&str, &str, &str); 3] = [
    (
        "tools",
        "toolsListChanged",
        "notifications/tools/list_changed",
    ),
    (
        "resources",
        "resourcesListChanged",
        "notifications/resources/list_changed",
    ),
    (
        "prompts",
        "promptsListChanged",
        "notifications/prompts/list_changed",
    ),
];

/// What the relay asks its driver to do, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// Write this line (without its newline) to the client.
    ToClient(String),
    /// Write this line (without its newline) to the server of this generation; dropped when
    /// that server is gone.
    ToServer(Generation, String),
    /// Tell the user (one line on stderr).
    Report(String),
    /// Retire this server: close its stdin, let it finish what it is doing for a grace
    /// period, then kill it. Its exit comes back as [`Relay::exited`].
    Retire(Generation),
}

/// Where the session stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// No server has run yet: client lines wait for the first good build.
    Waiting,
    /// This server was started and is answering the replayed `initialize`: lines wait.
    Starting(Generation),
    /// This server serves.
    Serving(Generation),
    /// The last server exited on its own: requests get an error until the next good build.
    Down,
}

/// The client's `initialize`, kept to replay.
#[derive(Debug, Clone)]
struct Handshake {
    /// The whole request, as the client sent it.
    request: Map<String, Value>,
    /// Its id (to spot the answer).
    id: String,
    /// The client sent `notifications/initialized`.
    initialized: bool,
    /// The capabilities the client was given (after the `listChanged` rewrite).
    capabilities: Option<Map<String, Value>>,
}

/// An open `subscriptions/listen` stream.
#[derive(Debug, Clone)]
struct Listen {
    /// The request line, replayed to each new server.
    line: String,
    /// The subscription id (the request's id) as JSON.
    id: Value,
    /// The filter keys the server's acknowledgement honoured (`toolsListChanged`, …).
    honoured: Vec<String>,
    /// Replayed to this server, whose acknowledgement is still to be swallowed.
    replaying: Option<Generation>,
}

/// A request of the client's that a server has not answered yet.
#[derive(Debug, Clone)]
struct Pending {
    server: Generation,
    id: Value,
}

/// The relay's state: see the module documentation.
#[derive(Debug)]
pub struct Relay {
    phase: Phase,
    queue: VecDeque<String>,
    handshake: Option<Handshake>,
    /// The client's unanswered requests, by id (its JSON text).
    pending: HashMap<String, Pending>,
    /// The servers' unanswered requests to the client, by id: who asked.
    asked_by: HashMap<String, Generation>,
    /// Open listen streams, by id.
    listens: HashMap<String, Listen>,
    /// The relay's own `initialize` id for a starting server.
    replay_ids: HashMap<Generation, String>,
    /// A server has served this client: the next one is a change to announce.
    served: bool,
}

impl Default for Relay {
    fn default() -> Self {
        Self::new()
    }
}

/// A JSON value as a map key (`1` and `"1"` stay different ids).
fn key(id: &Value) -> String {
    id.to_string()
}

/// What a JSON-RPC line is.
enum Kind<'a> {
    Request(&'a str, &'a Value),
    Notification(&'a str),
    Response(&'a Value),
    Other,
}

fn kind(message: &Map<String, Value>) -> Kind<'_> {
    let method = message.get("method").and_then(Value::as_str);
    let id = message.get("id").filter(|id| !id.is_null());
    match (method, id) {
        (Some(method), Some(id)) => Kind::Request(method, id),
        (Some(method), None) => Kind::Notification(method),
        (None, Some(id)) => Kind::Response(id),
        (None, None) => Kind::Other,
    }
}

fn parse(line: &str) -> Option<Map<String, Value>> {
    match serde_json::from_str(line) {
        Ok(Value::Object(map)) => Some(map),
        _ => None,
    }
}

/// A JSON-RPC error answer from the relay.
fn error_line(id: &Value, message: &str) -> String {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": RELAY_ERROR, "message": message}})
        .to_string()
}

fn notification(method: &str, params: Option<Value>) -> String {
    let mut message = json!({"jsonrpc": "2.0", "method": method});
    if let Some(params) = params {
        message["params"] = params;
    }
    message.to_string()
}

/// The start of a line, for reports.
fn excerpt(line: &str) -> String {
    const MAX: usize = 160;
    match line.char_indices().nth(MAX) {
        Some((cut, _)) => format!("{:?}…", &line[..cut]),
        None => format!("{line:?}"),
    }
}

impl Relay {
    /// A relay with no server yet.
    pub fn new() -> Self {
        Relay {
            phase: Phase::Waiting,
            queue: VecDeque::new(),
            handshake: None,
            pending: HashMap::new(),
            asked_by: HashMap::new(),
            listens: HashMap::new(),
            replay_ids: HashMap::new(),
            served: false,
        }
    }

    /// The server serving now (or starting to), if any.
    pub fn current(&self) -> Option<Generation> {
        match self.phase {
            Phase::Starting(generation) | Phase::Serving(generation) => Some(generation),
            Phase::Waiting | Phase::Down => None,
        }
    }

    /// A line from the client (without its newline).
    pub fn from_client(&mut self, line: &str) -> Vec<Action> {
        let line = line.trim_end_matches(['\r', '\n']);
        if line.trim().is_empty() {
            return Vec::new();
        }
        match self.phase {
            Phase::Waiting | Phase::Starting(_) => {
                self.queue.push_back(line.to_owned());
                Vec::new()
            }
            Phase::Down => self.refuse(line),
            Phase::Serving(server) => self.forward_from_client(server, line),
        }
    }

    /// Answers a client line while no server runs: a request gets an error.
    fn refuse(&mut self, line: &str) -> Vec<Action> {
        let Some(message) = parse(line) else {
            return vec![Action::Report(format!(
                "the client sent a line that is not a JSON-RPC message, and no server runs to answer it: {}",
                excerpt(line)
            ))];
        };
        match kind(&message) {
            Kind::Request(method, id) => {
                if method == "initialize" {
                    self.remember_initialize(&message, id);
                }
                vec![Action::ToClient(error_line(
                    id,
                    "the server is not running (it exited; see the output of `cargo mcp dev`); \
                     it restarts after the next successful build",
                ))]
            }
            Kind::Notification("notifications/initialized") => {
                if let Some(handshake) = &mut self.handshake {
                    handshake.initialized = true;
                }
                Vec::new()
            }
            _ => Vec::new(),
        }
    }

    fn remember_initialize(&mut self, message: &Map<String, Value>, id: &Value) {
        self.handshake = Some(Handshake {
            request: message.clone(),
            id: key(id),
            initialized: false,
            capabilities: None,
        });
    }

    fn forward_from_client(&mut self, server: Generation, line: &str) -> Vec<Action> {
        let Some(message) = parse(line) else {
            // The server answers it (a parse error); the relay has nothing to learn from it.
            return vec![Action::ToServer(server, line.to_owned())];
        };
        let mut to = server;
        match kind(&message) {
            Kind::Request(method, id) => {
                if method == "initialize" {
                    self.remember_initialize(&message, id);
                }
                if method == "subscriptions/listen" {
                    let listen = Listen {
                        line: line.to_owned(),
                        id: id.clone(),
                        honoured: Vec::new(),
                        replaying: None,
                    };
                    self.listens.insert(key(id), listen);
                }
                let pending = Pending {
                    server,
                    id: id.clone(),
                };
                self.pending.insert(key(id), pending);
            }
            Kind::Notification("notifications/initialized") => {
                if let Some(handshake) = &mut self.handshake {
                    handshake.initialized = true;
                }
            }
            Kind::Notification("notifications/cancelled") => {
                let cancelled = message
                    .get("params")
                    .and_then(|p| p.get("requestId"))
                    .map(key);
                if let Some(cancelled) = cancelled {
                    // A cancelled listen stream is over; anything else may still answer.
                    if self.listens.remove(&cancelled).is_some() {
                        if let Some(pending) = self.pending.remove(&cancelled) {
                            to = pending.server;
                        }
                    } else if let Some(pending) = self.pending.get(&cancelled) {
                        to = pending.server;
                    }
                }
            }
            Kind::Response(id) => {
                // The answer goes to the server that asked, even one being retired.
                if let Some(asker) = self.asked_by.remove(&key(id)) {
                    to = asker;
                }
            }
            Kind::Notification(_) | Kind::Other => {}
        }
        vec![Action::ToServer(to, line.to_owned())]
    }

    /// A line from the server of `server` (without its newline).
    pub fn from_server(&mut self, server: Generation, line: &str) -> Vec<Action> {
        let line = line.trim_end_matches(['\r', '\n']);
        if line.trim().is_empty() {
            return Vec::new();
        }
        let Some(message) = parse(line) else {
            return vec![Action::Report(format!(
                "the server wrote a line to stdout that is not a JSON-RPC message (dropped; MCP \
                 clients read stdout as protocol only, so write logs to stderr): {}",
                excerpt(line)
            ))];
        };
        match kind(&message) {
            Kind::Response(id) => {
                let id_key = key(id);
                if self.replay_ids.get(&server) == Some(&id_key) {
                    self.replay_ids.remove(&server);
                    return self.reinitialized(server, &message);
                }
                match self.pending.get(&id_key) {
                    Some(pending) if pending.server == server => {
                        self.pending.remove(&id_key);
                        // A listen result ends the stream (the server closed it).
                        self.listens.remove(&id_key);
                        if self.handshake.as_ref().is_some_and(|h| h.id == id_key) {
                            return vec![Action::ToClient(self.initialize_answer(message, line))];
                        }
                        vec![Action::ToClient(line.to_owned())]
                    }
                    // An answer from a replaced server to something now served elsewhere
                    // (the end of a listen stream that moved), or to nothing asked.
                    _ => Vec::new(),
                }
            }
            Kind::Request(_, id) => {
                self.asked_by.insert(key(id), server);
                vec![Action::ToClient(line.to_owned())]
            }
            Kind::Notification("notifications/subscriptions/acknowledged") => {
                let params = message.get("params");
                let subscription = params
                    .and_then(|p| p.get("_meta"))
                    .and_then(|m| m.get(SUBSCRIPTION_ID_KEY))
                    .map(key);
                if let Some(listen) = subscription.and_then(|s| self.listens.get_mut(&s)) {
                    if listen.replaying == Some(server) {
                        listen.replaying = None;
                        return Vec::new();
                    }
                    listen.honoured = params
                        .and_then(|p| p.get("notifications"))
                        .and_then(Value::as_object)
                        .map(|honoured| {
                            honoured
                                .iter()
                                .filter(|(_, on)| **on == Value::Bool(true))
                                .map(|(filter, _)| filter.clone())
                                .collect()
                        })
                        .unwrap_or_default();
                }
                vec![Action::ToClient(line.to_owned())]
            }
            Kind::Notification(_) | Kind::Other => vec![Action::ToClient(line.to_owned())],
        }
    }

    /// The client's `initialize` answer, with `listChanged: true` on each primitive offered;
    /// remembers the capabilities the client was given.
    fn initialize_answer(&mut self, mut message: Map<String, Value>, line: &str) -> String {
        let Some(capabilities) = message
            .get_mut("result")
            .and_then(|r| r.get_mut("capabilities"))
            .and_then(Value::as_object_mut)
        else {
            return line.to_owned();
        };
        for (capability, _, _) in LISTS {
            if let Some(Value::Object(offer)) = capabilities.get_mut(capability) {
                offer.insert("listChanged".into(), Value::Bool(true));
            }
        }
        let given = capabilities.clone();
        if let Some(handshake) = &mut self.handshake {
            handshake.capabilities = Some(given);
        }
        Value::Object(message).to_string()
    }

    /// A new server process was started (after a successful build).
    pub fn started(&mut self, server: Generation) -> Vec<Action> {
        let mut actions = Vec::new();
        if let Some(previous) = self.current() {
            actions.push(Action::Retire(previous));
            self.replay_ids.remove(&previous);
        }
        if let Some(handshake) = &self.handshake {
            let id = format!("cargo-mcp-dev/initialize/{server}");
            let mut request = handshake.request.clone();
            request.insert("id".into(), Value::String(id.clone()));
            self.replay_ids.insert(server, key(&Value::String(id)));
            actions.push(Action::ToServer(server, Value::Object(request).to_string()));
            self.phase = Phase::Starting(server);
        } else {
            self.phase = Phase::Serving(server);
            actions.extend(self.resume(server));
        }
        actions
    }

    /// The answer of a starting server to the replayed `initialize`.
    fn reinitialized(&mut self, server: Generation, answer: &Map<String, Value>) -> Vec<Action> {
        if self.phase != Phase::Starting(server) {
            return Vec::new();
        }
        if let Some(error) = answer.get("error") {
            let mut actions = vec![
                Action::Report(format!(
                    "the rebuilt server refused the client's initialize ({error}); it is stopped \
                     until the next successful build"
                )),
                Action::Retire(server),
            ];
            actions.extend(self.go_down());
            return actions;
        }
        let mut actions = Vec::new();
        let offered = answer
            .get("result")
            .and_then(|r| r.get("capabilities"))
            .and_then(Value::as_object);
        let given = self
            .handshake
            .as_ref()
            .and_then(|h| h.capabilities.as_ref());
        if let (Some(offered), Some(given)) = (offered, given) {
            for (capability, _, _) in LISTS {
                match (
                    offered.contains_key(capability),
                    given.contains_key(capability),
                ) {
                    (true, false) => actions.push(Action::Report(format!(
                        "the server now offers {capability}, which the client was not told at \
                         initialize; reconnect the client to use them"
                    ))),
                    (false, true) => actions.push(Action::Report(format!(
                        "the server no longer offers {capability}; the client may still ask for \
                         them until it reconnects"
                    ))),
                    _ => {}
                }
            }
        }
        self.phase = Phase::Serving(server);
        actions.extend(self.resume(server));
        actions
    }

    /// A server is ready for the client: finish the replay, announce the change, deliver
    /// what waited.
    fn resume(&mut self, server: Generation) -> Vec<Action> {
        let mut actions = Vec::new();
        if self.handshake.as_ref().is_some_and(|h| h.initialized) {
            let initialized = notification("notifications/initialized", None);
            actions.push(Action::ToServer(server, initialized));
        }
        let mut listens: Vec<(&String, &mut Listen)> = self.listens.iter_mut().collect();
        listens.sort_by(|a, b| a.0.cmp(b.0));
        for (id, listen) in listens {
            listen.replaying = Some(server);
            let pending = Pending {
                server,
                id: listen.id.clone(),
            };
            self.pending.insert(id.clone(), pending);
            actions.push(Action::ToServer(server, listen.line.clone()));
        }
        if self.served {
            actions.extend(self.announce());
        }
        self.served = true;
        while let Some(line) = self.queue.pop_front() {
            actions.extend(self.forward_from_client(server, &line));
        }
        actions
    }

    /// The list-change notifications the client gets after a restart.
    fn announce(&self) -> Vec<Action> {
        let mut actions = Vec::new();
        if let Some(handshake) = &self.handshake
            && handshake.initialized
        {
            let given = handshake.capabilities.as_ref();
            for (capability, _, method) in LISTS {
                if given.is_some_and(|c| c.contains_key(capability)) {
                    actions.push(Action::ToClient(notification(method, None)));
                }
            }
        }
        let mut listens: Vec<&Listen> = self.listens.values().collect();
        listens.sort_by_key(|l| key(&l.id));
        for listen in listens {
            for (_, filter, method) in LISTS {
                if listen.honoured.iter().any(|h| h == filter) {
                    let params = json!({"_meta": {SUBSCRIPTION_ID_KEY: listen.id}});
                    actions.push(Action::ToClient(notification(method, Some(params))));
                }
            }
        }
        actions
    }

    /// No server: every waiting request gets an error.
    fn go_down(&mut self) -> Vec<Action> {
        self.phase = Phase::Down;
        let mut actions = Vec::new();
        while let Some(line) = self.queue.pop_front() {
            actions.extend(self.refuse(&line));
        }
        actions
    }

    /// A starting server did not answer the replayed `initialize` in time.
    pub fn start_timed_out(&mut self, server: Generation) -> Vec<Action> {
        if self.phase != Phase::Starting(server) {
            return Vec::new();
        }
        let mut actions = vec![
            Action::Report(
                "the rebuilt server did not answer the client's initialize in time; it is \
                 stopped until the next successful build"
                    .to_owned(),
            ),
            Action::Retire(server),
        ];
        actions.extend(self.go_down());
        actions
    }

    /// The server process of `server` exited; `status` says how.
    pub fn exited(&mut self, server: Generation, status: &str) -> Vec<Action> {
        let mut actions = Vec::new();
        let was_current = self.current() == Some(server);
        if was_current {
            actions.push(Action::Report(format!(
                "the server exited ({status}); it restarts after the next successful build"
            )));
        }
        let message = if was_current {
            "the server exited before answering (see the output of `cargo mcp dev`)"
        } else {
            "the server was replaced by a rebuild before it answered; send the request again"
        };
        let mut unanswered: Vec<(String, Value)> = self
            .pending
            .iter()
            .filter(|(_, p)| p.server == server)
            .map(|(k, p)| (k.clone(), p.id.clone()))
            .collect();
        unanswered.sort_by(|a, b| a.0.cmp(&b.0));
        for (id_key, id) in unanswered {
            self.pending.remove(&id_key);
            self.listens.remove(&id_key);
            actions.push(Action::ToClient(error_line(&id, message)));
        }
        self.asked_by.retain(|_, asker| *asker != server);
        self.replay_ids.remove(&server);
        if was_current {
            actions.extend(self.go_down());
        }
        actions
    }
}

#[cfg(test)]
mod tests;
