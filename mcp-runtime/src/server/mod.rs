//! The server: its builder ([`ServerBuilder`]), the registry of everything it offers
//! (`registry/`: one catalog per primitive), and per-connection dispatch for both eras
//! (`connection/`). What runs around a call that reaches user code is in
//! [`pipeline`](crate::pipeline); how bytes reach the dispatcher is in
//! [`transport`](crate::transport).

pub(crate) mod contract;
mod dispatch;
mod problems;
pub(crate) mod projection;
#[cfg(feature = "prompt-watch")]
mod prompt_watch;
mod reader;
#[cfg(feature = "redis")]
mod sharing;
pub use problems::BuildError;
use problems::{task_problem, unknown_tool_layers};
#[cfg(feature = "redis")]
pub use sharing::AlreadyShared;
pub(crate) mod registry;

/// The `tracing` target of audit events, for a transport's own refusals (which the pipeline
/// below it never sees): part of the transport contract, so a transport outside this crate
/// audits where the built-in ones do.
pub use crate::pipeline::AUDIT_TARGET;
pub use dispatch::Connection;
#[cfg(feature = "otel")]
pub(crate) use dispatch::traced_name;
#[cfg(feature = "prompt-watch")]
pub use prompt_watch::{PromptWatcher, WatchError};
pub use registry::{
    Primitive, PromptRegistry, RegistrationError, ResourceRegistry, SkillRegistry, ToolRegistry,
};

use crate::context::input::RequestStateKeys;
use crate::context::{Extensions, FromRef};
use crate::pipeline::{
    AuditLayer, AuditOptions, BoxError, ConcurrencyLimitLayer, LazyStore, McpRequest, McpService,
    Outcome, ServerPolicies,
};
use crate::prompt::Prompt;
use crate::protocol::version::MODERN_VERSIONS;
use crate::protocol::{CachePolicy, DiscoverResult, Implementation, ServerCapabilities};
use crate::resource::{Resource, ResourceTemplate};
use crate::tool::Tool;
use projection::{Modern, to_raw};
use registry::catalog::PageSettings;
use registry::{ChangeFeed, Registry};
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

pub(crate) struct ServerInner {
    info: Implementation,
    server_info_raw: Arc<RawValue>,
    instructions: Option<String>,
    capabilities: ServerCapabilities,
    registry: Registry,
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
    /// The Redis this instance shares state through, once attached.
    #[cfg(feature = "redis")]
    redis: std::sync::OnceLock<crate::shared::RedisState>,
    /// Whether the requestState keys were configured (otherwise instances sharing a Redis
    /// take the key kept there).
    #[cfg(feature = "redis")]
    request_state_keys_configured: bool,
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
            tasks: None,
            #[cfg(feature = "redis")]
            redis: None,
            skills: Vec::new(),
            skills_configured: false,
        }
    }

    /// The server's identity.
    pub fn info(&self) -> &Implementation {
        &self.inner.info
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
        #[cfg(feature = "redis")]
        return self.inner.redis.get().is_some();
        #[cfg(not(feature = "redis"))]
        false
    }
}

/// Builds a [`Server`]. Every registration problem is collected and reported by
/// [`build`](Self::build), not panicked on.
pub struct ServerBuilder {
    info: Implementation,
    instructions: Option<String>,
    tools: Vec<Arc<dyn Tool>>,
    resources: Vec<Arc<dyn Resource>>,
    templates: Vec<Arc<dyn ResourceTemplate>>,
    prompts: Vec<Arc<dyn Prompt>>,
    read_cache: CachePolicy,
    page_size: usize,
    list_cache: CachePolicy,
    /// Per-primitive overrides of `list_cache`.
    list_cache_for: Vec<(Primitive, CachePolicy)>,
    discover_cache: CachePolicy,
    extensions: Extensions,
    policies: ServerPolicies,
    /// Problems found while building up (reported by `build`).
    problems: Vec<RegistrationError>,
    shutdown_grace: Duration,
    /// Primitives advertised even with nothing registered at build.
    advertised: HashSet<Primitive>,
    input_timeout: Duration,
    request_state_keys: Option<RequestStateKeys>,
    logging: bool,
    max_response_bytes: usize,
    tasks: Option<crate::task::TaskOptions>,
    #[cfg(feature = "redis")]
    redis: Option<crate::shared::RedisState>,
    /// Skills to serve (the skills extension), loaded or declared before `build`.
    skills: Vec<registry::skills::ServedSkill>,
    /// Whether skills were configured at all (then the extension is declared, even with
    /// none loaded).
    skills_configured: bool,
}

impl fmt::Debug for ServerBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ServerBuilder")
            .field("info", &self.info)
            .finish_non_exhaustive()
    }
}

impl ServerBuilder {
    /// Usage hints for the model (`instructions` in `initialize` and `server/discover`).
    pub fn instructions(mut self, text: impl Into<String>) -> Self {
        self.instructions = Some(text.into());
        self
    }

    /// A display title for the server.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.info.title = Some(title.into());
        self
    }

    /// Adds a tool.
    pub fn tool(mut self, tool: impl Tool) -> Self {
        self.tools.push(Arc::new(tool));
        self
    }

    /// Adds several tools, e.g. [`tool::collected()`](crate::tool::collected) or the tools
    /// of an `#[mcp_tools]` impl block.
    pub fn tools(mut self, tools: impl IntoIterator<Item = Arc<dyn Tool>>) -> Self {
        self.tools.extend(tools);
        self
    }

    /// Adds every `#[mcp_tool]` function in the program
    /// ([`tool::collected()`](crate::tool::collected)).
    pub fn collected_tools(self) -> Self {
        self.tools(crate::tool::collected())
    }

    /// Adds a resource with a fixed URI (see [`resource`](crate::resource)).
    pub fn resource(mut self, resource: impl Resource) -> Self {
        self.resources.push(Arc::new(resource));
        self
    }

    /// Adds several resources.
    pub fn resources(mut self, resources: impl IntoIterator<Item = Arc<dyn Resource>>) -> Self {
        self.resources.extend(resources);
        self
    }

    /// Adds a resource template: the resources whose URIs match its RFC 6570 template (see
    /// [`resource::uri_template`](crate::resource::uri_template)).
    pub fn resource_template(mut self, template: impl ResourceTemplate) -> Self {
        self.templates.push(Arc::new(template));
        self
    }

    /// Adds several resource templates.
    pub fn resource_templates(
        mut self,
        templates: impl IntoIterator<Item = Arc<dyn ResourceTemplate>>,
    ) -> Self {
        self.templates.extend(templates);
        self
    }

    /// Adds a prompt (see [`prompt`](crate::prompt)).
    pub fn prompt(mut self, prompt: impl Prompt) -> Self {
        self.prompts.push(Arc::new(prompt));
        self
    }

    /// Adds several prompts, e.g. the templates of a
    /// [`PromptTemplates`](crate::prompt::PromptTemplates) directory.
    pub fn prompts(mut self, prompts: impl IntoIterator<Item = Arc<dyn Prompt>>) -> Self {
        self.prompts.extend(prompts);
        self
    }

    /// Adds the prompts of a directory of template files (JSON, YAML or Markdown; see
    /// [`prompt::templates`](crate::prompt::templates)). Every problem in every file is
    /// reported by [`build`](Self::build) ([`RegistrationError::PromptFiles`]), each with its
    /// file and line.
    ///
    /// ```
    /// use mcp_runtime::prelude::*;
    ///
    /// # fn main() -> std::io::Result<()> {
    /// # let dir = tempfile::tempdir()?;
    /// # let prompts = dir.path();
    /// std::fs::write(prompts.join("hello.md"), "---\ndescription: Says hello.\n---\nHello!\n")?;
    /// std::fs::write(prompts.join("broken.yaml"), "description: [unclosed\n")?;
    /// let error = Server::builder("demo", "1.0.0").prompt_dir(prompts).build().unwrap_err();
    /// assert!(error.to_string().contains("broken.yaml:2:1: invalid YAML"), "{error}");
    /// # Ok(())
    /// # }
    /// ```
    #[cfg(feature = "prompt-files")]
    pub fn prompt_dir(mut self, dir: impl AsRef<std::path::Path>) -> Self {
        match crate::prompt::PromptTemplates::from_dir(dir) {
            Ok(templates) => self.prompts.extend(templates),
            Err(e) => self.problems.push(RegistrationError::PromptFiles(e)),
        }
        self
    }

    /// Skills to serve, and the problems found while loading them (reported by `build`).
    /// Declares the skills extension, even when `skills` is empty.
    #[cfg_attr(not(feature = "skills"), allow(dead_code))]
    pub(crate) fn served_skills(
        mut self,
        skills: Vec<registry::skills::ServedSkill>,
        problems: impl IntoIterator<Item = RegistrationError>,
    ) -> Self {
        self.skills_configured = true;
        self.skills.extend(skills);
        self.problems.extend(problems);
        self
    }

    /// `ttlMs` and `cacheScope` of modern `resources/read` results (default `0`, `private`).
    pub fn read_cache(mut self, policy: CachePolicy) -> Self {
        self.read_cache = policy;
        self
    }

    /// Shares `value` with every tool: a parameter `State<T>` receives a clone of it.
    /// One value per type; a second of the same type replaces the first. A tool that takes
    /// state no value was given for is refused by [`build`](Self::build)
    /// ([`RegistrationError::MissingToolState`]), whatever the order of the calls.
    pub fn state<T: Clone + Send + Sync + 'static>(mut self, value: T) -> Self {
        self.extensions.insert(value);
        self
    }

    /// Makes `State<Sub>` available, derived from the state `App` given earlier with
    /// [`state`](Self::state) (axum's `FromRef`, evaluated once here). Without an `App`,
    /// [`build`](Self::build) reports the mistake.
    pub fn substate<App, Sub>(mut self) -> Self
    where
        App: Send + Sync + 'static,
        Sub: FromRef<App> + Clone + Send + Sync + 'static,
    {
        match self.extensions.get::<App>() {
            Some(app) => {
                let sub = Sub::from_ref(app);
                self.extensions.insert(sub);
            }
            None => self.problems.push(RegistrationError::MissingState {
                app: std::any::type_name::<App>(),
                sub: std::any::type_name::<Sub>(),
            }),
        }
        self
    }

    /// Wraps every tool call in `layer` (a [`tower::Layer`] over the pipeline's
    /// [`McpService`]; see [`pipeline`](crate::pipeline)). Layers added first run
    /// outermost; all of them run inside the audit and panic isolation and outside the
    /// declared policies and argument validation.
    pub fn layer<L>(mut self, layer: L) -> Self
    where
        L: tower::Layer<McpService> + Send + Sync + 'static,
        L::Service: tower::Service<McpRequest, Response = Outcome> + Clone + Send + Sync + 'static,
        <L::Service as tower::Service<McpRequest>>::Error: Into<BoxError> + 'static,
        <L::Service as tower::Service<McpRequest>>::Future: Send + 'static,
    {
        self.policies.layers.push(crate::pipeline::boxed(layer));
        self
    }

    /// Wraps the calls of the tool named `tool` in `layer`, inside the server-wide layers.
    /// A name that no registered tool has is reported by [`build`](Self::build).
    pub fn layer_for<L>(mut self, tool: impl Into<String>, layer: L) -> Self
    where
        L: tower::Layer<McpService> + Send + Sync + 'static,
        L::Service: tower::Service<McpRequest, Response = Outcome> + Clone + Send + Sync + 'static,
        <L::Service as tower::Service<McpRequest>>::Error: Into<BoxError> + 'static,
        <L::Service as tower::Service<McpRequest>>::Future: Send + 'static,
    {
        self.policies
            .tool_layers
            .entry(tool.into())
            .or_default()
            .push(crate::pipeline::boxed(layer));
        self
    }

    /// The timeout of every tool that declares none (`#[mcp_tool(timeout = "…")]` wins).
    /// None by default.
    pub fn default_timeout(mut self, timeout: Duration) -> Self {
        self.policies.default_timeout = Some(timeout);
        self
    }

    /// At most `limit` tool calls run at once across the whole server (at least 1). A call
    /// beyond it waits up to `wait` for a slot, then gets an `isError` "busy" result; a line
    /// transport (stdio) stops reading input while every slot is taken, so memory stays
    /// bounded however fast a client sends. No limit by default.
    ///
    /// A call waiting for the client's answer to one of the server's own requests (a legacy
    /// elicitation, sampling or roots request) keeps the line transport reading, so the
    /// answer can arrive while every slot is taken.
    pub fn concurrency_limit(mut self, limit: usize, wait: Duration) -> Self {
        self.policies.concurrency =
            Some(ConcurrencyLimitLayer::new(limit).wait(wait).server_wide());
        self
    }

    /// Bounds of the store that keeps the results of tools declaring `cache`: at most
    /// `max_entries` results weighing at most `max_bytes` together (serialized size; each
    /// at least 1). Default [`DEFAULT_CACHE_ENTRIES`](crate::pipeline::DEFAULT_CACHE_ENTRIES)
    /// and [`DEFAULT_CACHE_BYTES`](crate::pipeline::DEFAULT_CACHE_BYTES). The store is
    /// shared by every such tool and only made if one is registered; see
    /// [`ResultStore`](crate::pipeline::ResultStore).
    ///
    /// ```
    /// use mcp_runtime::prelude::*;
    ///
    /// let server = Server::builder("weather", "1.0.0")
    ///     .result_cache(1_000, 16 * 1024 * 1024)
    ///     .build()
    ///     .unwrap();
    /// # let _ = server;
    /// ```
    pub fn result_cache(mut self, max_entries: u64, max_bytes: u64) -> Self {
        self.policies.results = LazyStore::new(max_entries, max_bytes);
        self
    }

    /// What audit events record beyond the standard fields (arguments, redaction). Every
    /// request is audited either way, on target [`pipeline::AUDIT_TARGET`](crate::pipeline::AUDIT_TARGET).
    pub fn audit(mut self, options: AuditOptions) -> Self {
        self.policies.audit = AuditLayer::new(options);
        self
    }

    /// How long a line transport (stdio, in-memory) waits, after its input ends, for calls
    /// still running; then they are dropped and the transport returns. Default
    /// [`DEFAULT_SHUTDOWN_GRACE`].
    pub fn shutdown_grace(mut self, grace: Duration) -> Self {
        self.shutdown_grace = grace;
        self
    }

    /// The response budget: the longest a `tools/call`, `resources/read` or `prompts/get`
    /// result may be once serialized. Serializing stops at the budget, so a request never
    /// holds more than this for its answer, whatever a tool returns (a file's text is sent
    /// twice for structured output, and a control byte takes six bytes as JSON). A tool
    /// result over it becomes an `isError` result telling the model to ask for less; a read
    /// or a prompt over it, a `-32603` error. Default [`DEFAULT_MAX_RESPONSE_BYTES`].
    pub fn max_response_bytes(mut self, bytes: usize) -> Self {
        self.max_response_bytes = bytes;
        self
    }

    /// How long an ask of a legacy client (`cx.elicit`, `cx.sample`, `cx.roots`; see
    /// [`crate::input`]) waits for the answer before it fails. Default
    /// [`DEFAULT_INPUT_TIMEOUT`](crate::context::input::DEFAULT_INPUT_TIMEOUT) (10 minutes: a person
    /// may be filling in a form).
    pub fn input_timeout(mut self, timeout: Duration) -> Self {
        self.input_timeout = timeout;
        self
    }

    /// The keys modern `requestState` is signed with (see [`RequestStateKeys`]). Default: a
    /// random key generated at [`build`](Self::build), right for one process; instances
    /// behind a load balancer configure the same keys
    /// ([`RequestStateKeys::from_env`]), so any of them continues any request.
    pub fn request_state_keys(mut self, keys: RequestStateKeys) -> Self {
        self.request_state_keys = Some(keys);
        self
    }

    /// Whether the server declares `logging` and sends log messages
    /// ([`RequestContext::log`](crate::context::RequestContext::log), the `tracing` bridge
    /// [`ClientLogLayer`](crate::context::input::ClientLogLayer)). Default `true`.
    pub fn logging(mut self, enabled: bool) -> Self {
        self.logging = enabled;
        self
    }

    /// Adds a tool that is already shared.
    pub fn tool_arc(mut self, tool: Arc<dyn Tool>) -> Self {
        self.tools.push(tool);
        self
    }

    /// Advertises `primitive` in the capabilities even if nothing of it is registered when
    /// the server is built, so items can be added at run time (and the list method answers
    /// an empty list meanwhile). Without it, a primitive is advertised only when the server
    /// has items of it at [`build`](Self::build), and run-time registration of one that
    /// isn't advertised is refused with [`RegistrationError::NotAdvertised`].
    ///
    /// ```
    /// use mcp_runtime::prelude::*;
    /// use mcp_runtime::server::Primitive;
    ///
    /// let server = Server::builder("plugins", "0.1.0")
    ///     .advertise(Primitive::Tools)
    ///     .build()
    ///     .unwrap();
    /// assert!(server.capabilities().tools.is_some());
    /// assert!(server.tools().is_empty());
    ///
    /// let bare = Server::builder("bare", "0.1.0").build().unwrap();
    /// assert!(bare.capabilities().tools.is_none());
    /// ```
    pub fn advertise(mut self, primitive: Primitive) -> Self {
        self.advertised.insert(primitive);
        self
    }

    /// Items per page of every list (default [`DEFAULT_PAGE_SIZE`]; at least 1).
    pub fn page_size(mut self, size: usize) -> Self {
        self.page_size = size.max(1);
        self
    }

    /// `ttlMs` and `cacheScope` of modern list results (default `0`, `private`).
    ///
    /// Choose `public` only when the lists do not depend on who is asking.
    pub fn list_cache(mut self, policy: CachePolicy) -> Self {
        self.list_cache = policy;
        self
    }

    /// `ttlMs` and `cacheScope` of one primitive's modern list results, overriding
    /// [`list_cache`](Self::list_cache) for it (`Primitive::Resources` covers
    /// `resources/list` and `resources/templates/list`).
    ///
    /// ```
    /// use mcp_runtime::Server;
    /// use mcp_runtime::protocol::{CachePolicy, CacheScope};
    /// use mcp_runtime::server::Primitive;
    ///
    /// let server = Server::builder("demo", "1.0.0")
    ///     .list_cache(CachePolicy::new(0, CacheScope::Private))
    ///     .list_cache_for(Primitive::Prompts, CachePolicy::new(60_000, CacheScope::Public))
    ///     .build()
    ///     .unwrap();
    /// # let _ = server;
    /// ```
    pub fn list_cache_for(mut self, primitive: Primitive, policy: CachePolicy) -> Self {
        self.list_cache_for.retain(|(p, _)| *p != primitive);
        self.list_cache_for.push((primitive, policy));
        self
    }

    /// `ttlMs` and `cacheScope` of the `server/discover` result (default `0`, `private`).
    pub fn discover_cache(mut self, policy: CachePolicy) -> Self {
        self.discover_cache = policy;
        self
    }

    /// How tasks run (`crate::task`): their TTL, the polling interval clients are told, and
    /// the [`TaskStore`](crate::task::TaskStore) they live in (default: in memory, bounded).
    /// The tasks extension is declared when a tool may run as a task
    /// (`#[mcp_tool(task = "optional")]`), or when this is called.
    pub fn tasks(mut self, options: crate::task::TaskOptions) -> Self {
        self.tasks = Some(options);
        self
    }

    /// Shares what outlives one request with the other instances connected to the same
    /// Redis (see [`shared`](crate::shared)): tasks (unless [`tasks`](Self::tasks) names
    /// a shared store of its own), spent `requestState` nonces, and list-change, resource
    /// update and task notifications.
    ///
    /// ```no_run
    /// # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
    /// use mcp_runtime::shared::RedisState;
    ///
    /// let redis = RedisState::connect("redis://127.0.0.1:6379/").await?;
    /// let server = mcp_runtime::Server::builder("demo", "1.0.0").redis(redis).build()?;
    /// # let _ = server; Ok(()) }
    /// ```
    #[cfg(feature = "redis")]
    pub fn redis(mut self, redis: crate::shared::RedisState) -> Self {
        self.redis = Some(redis);
        self
    }

    /// Validates every registration and builds the server, or lists every problem found.
    pub fn build(self) -> Result<Server, BuildError> {
        let server_info_raw: Arc<RawValue> = to_raw(&self.info).into();
        let mut errors = self.problems;
        if let Some(reason) = self.request_state_keys.as_ref().and_then(|k| k.problem()) {
            errors.push(RegistrationError::InvalidSetting {
                setting: "request_state_keys",
                reason,
            });
        }
        let settings = PageSettings {
            server_info: server_info_raw.clone(),
            cache: self.list_cache,
            page_size: self.page_size,
        };
        let feed = ChangeFeed::new();
        let skills = registry::SkillRegistry::new(settings.clone(), feed.clone());
        let extensions = Arc::new(self.extensions);
        let overrides = self.list_cache_for;
        let settings_for = |primitive: Primitive| {
            let mut settings = settings.clone();
            if let Some((_, policy)) = overrides.iter().find(|(p, _)| *p == primitive) {
                settings.cache = *policy;
            }
            settings
        };
        let mut resources = ResourceRegistry::new(
            settings_for(Primitive::Resources),
            feed.clone(),
            self.policies.clone(),
        );
        let mut prompts = PromptRegistry::new(
            settings_for(Primitive::Prompts),
            feed.clone(),
            self.policies.clone(),
        );
        let mut tools = ToolRegistry::new(
            settings_for(Primitive::Tools),
            feed.clone(),
            self.policies,
            extensions.clone(),
        );
        if let Err(found) = tools.register_all(self.tools) {
            errors.extend(found);
        }
        if let Err(found) = resources.register_resources(self.resources) {
            errors.extend(found);
        }
        if let Err(found) = resources.register_templates(self.templates) {
            errors.extend(found);
        }
        if let Err(found) = prompts.register_all(self.prompts) {
            errors.extend(found);
        }
        if let Err(found) = skills.insert_all(self.skills) {
            errors.extend(found);
        }
        if self.skills_configured {
            // Skill files are resources: `SKILL.md`s listed, every file readable.
            if let Err(found) = resources.register_resources(skills.manifest_resources()) {
                errors.extend(found);
            }
            if let Err(found) = resources.register_templates(vec![skills.files_template()]) {
                errors.extend(found);
            }
        }
        errors.extend(unknown_tool_layers(&tools));
        let task_tools = tools
            .snapshot()
            .iter()
            .any(|t| t.task != crate::task::TaskSupport::Never);
        let offer_tasks = task_tools || self.tasks.is_some();
        let task_options = self.tasks.unwrap_or_default();
        if let Some(reason) = task_problem(&task_options) {
            errors.push(RegistrationError::InvalidSetting {
                setting: "tasks",
                reason,
            });
        }
        if !errors.is_empty() {
            return Err(BuildError { errors });
        }
        tools.set_advertised(!tools.is_empty() || self.advertised.contains(&Primitive::Tools));
        resources.set_advertised(
            !resources.is_empty()
                || self.skills_configured
                || self.advertised.contains(&Primitive::Resources),
        );
        prompts
            .set_advertised(!prompts.is_empty() || self.advertised.contains(&Primitive::Prompts));
        let offer = dispatch::table::Offer {
            tools: tools.advertised(),
            resources: resources.advertised(),
            prompts: prompts.advertised(),
            logging: self.logging,
            tasks: offer_tasks,
            skills: self.skills_configured,
        };
        let capabilities = offer.capabilities();
        let discover = DiscoverResult {
            supported_versions: MODERN_VERSIONS.iter().map(|v| (*v).to_owned()).collect(),
            capabilities: capabilities.clone(),
            instructions: self.instructions.clone(),
        };
        // Serialized once: every `server/discover` is answered with these bytes.
        let discover =
            Modern::complete(&discover, &server_info_raw, Some(self.discover_cache), None);
        let discover_json: Arc<str> = to_raw(&discover).get().into();
        #[cfg(feature = "redis")]
        let request_state_keys_configured = self.request_state_keys.is_some();
        let server = Server {
            inner: Arc::new(ServerInner {
                info: self.info,
                server_info_raw,
                instructions: self.instructions,
                capabilities,
                registry: Registry::new(tools, resources, prompts, skills, feed),
                extensions,
                discover_json,
                shutdown_grace: self.shutdown_grace,
                read_cache: self.read_cache,
                input_timeout: self.input_timeout,
                request_state: crate::context::input::StateCodec::new(
                    self.request_state_keys
                        .unwrap_or_else(RequestStateKeys::generate),
                ),
                offer,
                max_response_bytes: self.max_response_bytes,
                tasks: Arc::new(crate::task::TaskHub::new(task_options)),
                #[cfg(feature = "redis")]
                redis: std::sync::OnceLock::new(),
                #[cfg(feature = "redis")]
                request_state_keys_configured,
            }),
        };
        #[cfg(feature = "redis")]
        if let Some(redis) = self.redis {
            server
                .share_through(redis)
                .expect("a server just built shares nothing yet");
        }
        Ok(server)
    }
}
