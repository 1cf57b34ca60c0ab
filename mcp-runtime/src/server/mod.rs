//! The server: its builder ([`ServerBuilder`]), the registry of everything it offers
//! (`registry/`: one catalog per primitive), and per-connection dispatch for both eras
//! (`connection/`). What runs around a call that reaches user code is in
//! [`pipeline`](crate::pipeline); how bytes reach the dispatcher is in
//! [`transport`](crate::transport).

mod builder;
pub(crate) mod contract;
mod dispatch;
mod mount;
mod problems;
pub(crate) mod projection;
#[cfg(feature = "prompt-watch")]
mod prompt_watch;
mod reader;
pub mod sharing;
pub mod visibility;
pub use problems::BuildError;
pub use sharing::AlreadyShared;
pub(crate) mod registry;

/// The `tracing` target of audit events, for a transport's own refusals (which the pipeline
/// below it never sees): part of the transport contract, so a transport outside this crate
/// audits where the built-in ones do.
pub use crate::pipeline::AUDIT_TARGET;
pub use builder::ServerBuilder;
pub use dispatch::Connection;
#[cfg(feature = "http")]
pub(crate) use dispatch::traced_name;
#[cfg(feature = "prompt-watch")]
pub use prompt_watch::{PromptWatcher, WatchError};
pub use registry::{
    Primitive, PromptRegistry, RegistrationError, ResourceRegistry, SkillRegistry, ToolRegistry,
};

use crate::context::Extensions;
use crate::context::input::RequestStateKeys;
use crate::pipeline::ServerPolicies;
use crate::protocol::{CachePolicy, Implementation, ServerCapabilities};
use registry::Registry;
use serde_json::value::RawValue;
use std::collections::HashSet;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

/// Default number of items on one page of a list (`tools/list`, `resources/list`,
/// `resources/templates/list`, `prompts/list`).
pub const DEFAULT_PAGE_SIZE: usize = 100;

/// How long a line transport waits, once its input has ended, for calls still running
/// before it drops them (see [`ServerBuilder::shutdown_grace`]).
pub const DEFAULT_SHUTDOWN_GRACE: Duration = Duration::from_secs(10);

/// The default response budget (see [`ServerBuilder::max_response_bytes`]): 32 MiB, room
/// for the largest file the file tools read by default (10 MiB), sent twice, with escapes.
pub const DEFAULT_MAX_RESPONSE_BYTES: usize = 32 * 1024 * 1024;

/// An MCP server definition: identity, capabilities, and its tools, resources and prompts.
/// Cheap to clone; every connection and transport shares one.
///
/// ```
/// use mcp_runtime::prelude::*;
///
/// let server = Server::builder("weather", "1.2.0")
///     .instructions("Ask for the weather by city name.")
///     .build()
///     .expect("a server with no tools is valid");
/// assert_eq!(server.info().name, "weather");
/// ```
#[derive(Clone)]
pub struct Server {
    inner: Arc<ServerInner>,
}

/// A server this handle does not keep alive ([`Server::downgrade`]).
#[derive(Clone)]
pub(crate) struct WeakServer(std::sync::Weak<ServerInner>);

impl WeakServer {
    /// The server, while something else keeps it.
    pub(crate) fn upgrade(&self) -> Option<Server> {
        self.0.upgrade().map(|inner| Server { inner })
    }
}

impl Server {
    /// A handle that does not keep the server alive (what a task serving it in the
    /// background holds, so the server ends with its last user).
    pub(crate) fn downgrade(&self) -> WeakServer {
        WeakServer(Arc::downgrade(&self.inner))
    }
}

pub(crate) struct ServerInner {
    info: Implementation,
    server_info_raw: Arc<RawValue>,
    instructions: Option<String>,
    capabilities: ServerCapabilities,
    registry: Registry,
    /// The servers mounted into this one (`ServerBuilder::mount`), kept in step.
    mounts: Vec<mount::Mounted>,
    extensions: Arc<Extensions>,
    /// `server/discover`'s result, serialized once.
    discover_json: Arc<str>,
    shutdown_grace: Duration,
    /// `ttlMs` and `cacheScope` of modern `resources/read` results.
    read_cache: CachePolicy,
    /// How long a legacy ask waits for the client.
    input_timeout: Duration,
    /// Signs and checks modern `requestState`.
    request_state: crate::context::input::StateCodec,
    /// What the server offers (the method table's gates; `logging` also decides whether
    /// log messages are sent at all).
    offer: dispatch::table::Offer,
    /// The longest a tool, read or prompt result may be, serialized.
    max_response_bytes: usize,
    /// Tasks (`crate::task`): the store, and the tasks running in this process.
    tasks: Arc<crate::task::TaskHub>,
    /// What this instance shares with the others, once attached (`Server::share_through`).
    sharing: std::sync::OnceLock<sharing::Sharing>,
    /// Whether the requestState keys were configured (otherwise instances sharing state
    /// take the sharing's).
    request_state_keys_configured: bool,
    /// Who sees what (`visibility`).
    visibility: visibility::Visibility,
}

impl fmt::Debug for Server {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.fmt(f)
    }
}

impl fmt::Debug for ServerInner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Server")
            .field("info", &self.info)
            .field("tools", &self.registry.tools)
            .finish_non_exhaustive()
    }
}

impl Server {
    /// Starts a server definition. `name` and `version` are what clients see as
    /// `serverInfo`: give your own crate's (`env!("CARGO_PKG_NAME")`,
    /// `env!("CARGO_PKG_VERSION")`), not the toolkit's.
    pub fn builder(name: impl Into<String>, version: impl Into<String>) -> ServerBuilder {
        ServerBuilder {
            info: Implementation::new(name, version),
            instructions: None,
            tools: Vec::new(),
            resources: Vec::new(),
            templates: Vec::new(),
            prompts: Vec::new(),
            read_cache: CachePolicy::default(),
            page_size: DEFAULT_PAGE_SIZE,
            list_cache: CachePolicy::default(),
            list_cache_for: Vec::new(),
            discover_cache: CachePolicy::default(),
            extensions: Extensions::default(),
            policies: ServerPolicies::default(),
            problems: Vec::new(),
            shutdown_grace: DEFAULT_SHUTDOWN_GRACE,
            advertised: HashSet::new(),
            input_timeout: crate::context::input::DEFAULT_INPUT_TIMEOUT,
            request_state_keys: None,
            logging: true,
            max_response_bytes: DEFAULT_MAX_RESPONSE_BYTES,
            visibility: visibility::Visibility::default(),
            tasks: None,
            sharing: None,
            skills: Vec::new(),
            skills_configured: false,
            mounts: Vec::new(),
        }
    }

    /// The server's identity.
    pub fn info(&self) -> &Implementation {
        &self.inner.info
    }

    /// Tells every connected client that what it may see may have changed, so it lists
    /// again (`notifications/{tools,resources,prompts}/list_changed` on 2025 sessions, the
    /// `subscriptions/listen` streams on 2026-07-28): for a
    /// [`visible_if`](crate::ServerBuilder::visible_if) rule whose answers changed for a
    /// reason the server cannot see (a role granted, a working day that ended).
    pub fn views_changed(&self) {
        let feed = self.inner.registry.feed();
        for primitive in registry::Primitive::ALL {
            feed.changed(primitive);
        }
    }

    /// The spent-nonce store this instance shares with the others (`share_through`), if it
    /// shares one: where DPoP proofs' `jti`s go too, so a fleet refuses a replay anywhere.
    #[cfg_attr(not(all(feature = "oauth", feature = "launch")), allow(dead_code))]
    pub(crate) fn shared_nonces(&self) -> Option<Arc<dyn crate::context::SpentNonces>> {
        self.inner.sharing.get().map(|s| s.spent_nonces())
    }

    /// The visibility rules (`visibility`).
    pub(crate) fn visibility(&self) -> &visibility::Visibility {
        &self.inner.visibility
    }

    /// The server's tools; register or remove tools at run time through it.
    pub fn tools(&self) -> &ToolRegistry {
        &self.inner.registry.tools
    }

    /// Replaces the keys modern `requestState` is signed with, at run time: put the new key
    /// first and keep the previous one after it for at least one state lifetime, so
    /// requests between two rounds survive the rotation (see [`RequestStateKeys`]).
    pub fn rotate_request_state_keys(&self, keys: RequestStateKeys) {
        self.inner.request_state.set_keys(keys);
    }

    /// The server's resources and resource templates; register, remove, or announce
    /// updates through it.
    pub fn resources(&self) -> &ResourceRegistry {
        &self.inner.registry.resources
    }

    /// The server's prompts; register or remove prompts at run time through it.
    pub fn prompts(&self) -> &PromptRegistry {
        &self.inner.registry.prompts
    }

    /// The skills the server serves (the skills extension; see `ServerBuilder::skills_dir`).
    pub fn skills(&self) -> &SkillRegistry {
        &self.inner.registry.skills
    }

    /// Every primitive's catalog.
    pub(crate) fn registry(&self) -> &Registry {
        &self.inner.registry
    }

    /// The capabilities this server declares.
    pub fn capabilities(&self) -> &ServerCapabilities {
        &self.inner.capabilities
    }

    /// A new connection's dispatcher, writing its outgoing lines to `peer` (see
    /// [`transport`](crate::transport) for what a transport does with it).
    pub fn connect(&self, peer: crate::context::Peer) -> Connection {
        Connection::new(self.clone(), peer)
    }

    /// A dispatcher for requests that belong to no session, shared by every such client of a
    /// transport that frames each request on its own: `initialize` is answered but not
    /// kept, nothing is remembered between requests, and everything a request produces goes
    /// to its own [`Exchange`](crate::transport::Exchange).
    pub fn connect_stateless(&self) -> Connection {
        Connection::stateless(self.clone())
    }

    /// Whether the server shares state with other instances.
    pub(crate) fn shares_state(&self) -> bool {
        self.inner.sharing.get().is_some()
    }
}
