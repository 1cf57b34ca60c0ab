//! [`ServerBuilder`]: what a server is made of, collected by chainable calls, and
//! [`build`](ServerBuilder::build), which assembles it in steps: the registries (every
//! registration problem collected), what the server offers, the bytes of its discovery
//! answer, and the server itself.

use super::dispatch::table::Offer;
use super::problems::{task_problem, unknown_tool_layers, unserved_views};
use super::projection::{Modern, to_raw};
use super::registry::catalog::PageSettings;
use super::registry::{self, ChangeFeed, Registry};
use super::{
    BuildError, Primitive, PromptRegistry, RegistrationError, ResourceRegistry, Server,
    ServerInner, ToolRegistry,
};
use crate::context::input::RequestStateKeys;
use crate::context::{Caller, Extensions, FromRef};
use crate::pipeline::{
    AuditLayer, AuditOptions, BoxError, ConcurrencyLimitLayer, LazyStore, McpRequest, McpService,
    Outcome, ServerPolicies,
};
use crate::prompt::Prompt;
use crate::protocol::version::MODERN_VERSIONS;
use crate::protocol::{CachePolicy, DiscoverResult, Implementation};
use crate::resource::{Resource, ResourceTemplate};
use crate::tool::Tool;
use serde_json::value::RawValue;
use std::collections::HashSet;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

/// Builds a [`Server`]. Every registration problem is collected and reported by
/// [`build`](Self::build), not panicked on.
pub struct ServerBuilder {
    pub(super) info: Implementation,
    pub(super) instructions: Option<String>,
    pub(super) tools: Vec<Arc<dyn Tool>>,
    pub(super) resources: Vec<Arc<dyn Resource>>,
    pub(super) templates: Vec<Arc<dyn ResourceTemplate>>,
    pub(super) prompts: Vec<Arc<dyn Prompt>>,
    pub(super) read_cache: CachePolicy,
    pub(super) page_size: usize,
    pub(super) list_cache: CachePolicy,
    /// Per-primitive overrides of `list_cache`.
    pub(super) list_cache_for: Vec<(Primitive, CachePolicy)>,
    pub(super) discover_cache: CachePolicy,
    pub(super) extensions: Extensions,
    pub(super) policies: ServerPolicies,
    /// Problems found while building up (reported by `build`).
    pub(super) problems: Vec<RegistrationError>,
    pub(super) shutdown_grace: Duration,
    /// Primitives advertised even with nothing registered at build.
    pub(super) advertised: HashSet<Primitive>,
    pub(super) input_timeout: Duration,
    pub(super) request_state_keys: Option<RequestStateKeys>,
    pub(super) logging: bool,
    pub(super) max_response_bytes: usize,
    pub(super) visibility: super::visibility::Visibility,
    pub(super) tasks: Option<crate::task::TaskOptions>,
    pub(super) sharing: Option<super::sharing::Sharing>,
    /// Skills to serve (the skills extension), loaded or declared before `build`.
    pub(super) skills: Vec<registry::skills::ServedSkill>,
    /// Whether skills were configured at all (then the extension is declared, even with
    /// none loaded).
    pub(super) skills_configured: bool,
    /// Servers mounted into this one (`mount`, `merge`), in the order given.
    pub(super) mounts: Vec<super::mount::Mount>,
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

    /// Asks the user before every tool that may destroy, as the spec reads its annotations
    /// (not `readOnlyHint: true`, and `destructiveHint` not `false`: a tool without
    /// annotations counts), and declares no confirmation of its own; see
    /// [`Confirm`](crate::tool::Confirm) for what is asked, in each era, and what a client
    /// that cannot elicit gets. Off by default.
    ///
    /// ```
    /// use mcp_runtime::prelude::*;
    /// use mcp_runtime::tool::Confirm;
    ///
    /// /// Deletes a note.
    /// #[mcp_tool(destructive)]
    /// async fn delete_note(name: String) -> String {
    ///     format!("deleted {name}")
    /// }
    ///
    /// let server = Server::builder("notes", "1.0.0")
    ///     .tool(delete_note::tool())
    ///     .confirm_destructive(Confirm::new())
    ///     .build()
    ///     .unwrap();
    /// # let _ = server;
    /// ```
    pub fn confirm_destructive(mut self, confirm: crate::tool::Confirm) -> Self {
        self.policies.confirm_destructive = Some(confirm);
        self
    }

    /// Answers a caller without an item's scopes with HTTP 403 and an
    /// `insufficient_scope` challenge (so the client can ask its user for more: the MCP
    /// authorization spec's step-up), and lists scoped items to every caller. Without it,
    /// an item is hidden from callers without its scopes and refused to them as unknown (see
    /// [`visibility`](crate::server::visibility)).
    pub fn step_up_scopes(mut self) -> Self {
        self.visibility.step_up = true;
        self
    }

    /// Shows each caller only the tools, resources, resource templates and prompts `rule`
    /// lets it see (after their scopes); to a caller, an item `rule` refuses is not listed
    /// and is refused as unknown. For rules over identities, claims, the time or your own
    /// state; when an answer changes for a reason the server cannot see, call
    /// [`Server::views_changed`](crate::Server::views_changed). See
    /// [`visibility`](crate::server::visibility).
    ///
    /// ```
    /// use mcp_runtime::prelude::*;
    /// use mcp_runtime::server::visibility::ItemKind;
    ///
    /// /// Drops a table.
    /// #[mcp_tool(destructive)]
    /// async fn drop_table(name: String) -> String {
    ///     format!("dropped {name}")
    /// }
    ///
    /// // Only alice sees the tools whose names start with `drop_`.
    /// let server = Server::builder("db", "1.0.0")
    ///     .tool(drop_table::tool())
    ///     .visible_if(|caller, item| {
    ///         item.kind() != ItemKind::Tool
    ///             || !item.key().starts_with("drop_")
    ///             || caller.identity() == Some("alice")
    ///     })
    ///     .build()
    ///     .unwrap();
    /// # let _ = server;
    /// ```
    pub fn visible_if<F>(mut self, rule: F) -> Self
    where
        F: Fn(&Caller, &super::visibility::Item<'_>) -> bool + Send + Sync + 'static,
    {
        self.visibility.predicate = Some(Arc::new(rule));
        self
    }

    /// The per-caller rate limit of every tool that declares none
    /// (`#[mcp_tool(rate_limit = "…")]` wins): each tool its own budget per caller, as if it
    /// declared `rate`. None by default. (For a limit on all of a caller's requests over
    /// HTTP, see `HttpOptions::rate_limit_per_caller` and `--rate-limit`.)
    pub fn default_rate_limit(mut self, rate: crate::tool::Rate) -> Self {
        self.policies.default_rate_limit = Some(rate);
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
    /// [`DEFAULT_SHUTDOWN_GRACE`](super::DEFAULT_SHUTDOWN_GRACE).
    pub fn shutdown_grace(mut self, grace: Duration) -> Self {
        self.shutdown_grace = grace;
        self
    }

    /// The response budget: the longest a `tools/call`, `resources/read` or `prompts/get`
    /// result may be once serialized. Serializing stops at the budget, so a request never
    /// holds more than this for its answer, whatever a tool returns (a file's text is sent
    /// twice for structured output, and a control byte takes six bytes as JSON). A tool
    /// result over it becomes an `isError` result telling the model to ask for less; a read
    /// or a prompt over it, a `-32603` error. Default [`DEFAULT_MAX_RESPONSE_BYTES`](super::DEFAULT_MAX_RESPONSE_BYTES).
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

    /// Items per page of every list (default [`DEFAULT_PAGE_SIZE`](super::DEFAULT_PAGE_SIZE); at least 1).
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

    /// Shares what outlives one request with the server's other instances (see
    /// [`sharing`](super::sharing)): tasks (unless [`tasks`](Self::tasks) names a shared
    /// store of its own), spent `requestState` nonces and the key states are signed with,
    /// list-change, resource update and task notifications, legacy sessions, rate-limit
    /// budgets, and (when the sharing includes them) tools' cached results. `sharing` is a
    /// [`Sharing`](super::sharing::Sharing) or what converts into one (Redis's
    /// `shared::RedisState`, with the `redis` feature). `build()` must then run within a
    /// Tokio runtime (unless the sharing names one).
    ///
    /// ```
    /// use mcp_runtime::server::sharing::MemoryFleet;
    ///
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// let fleet = MemoryFleet::new();
    /// let server = mcp_runtime::Server::builder("demo", "1.0.0")
    ///     .share_through(fleet.instance())
    ///     .build()
    ///     .unwrap();
    /// # let _ = server; }
    /// ```
    pub fn share_through(mut self, sharing: impl Into<super::sharing::Sharing>) -> Self {
        self.sharing = Some(sharing.into());
        self
    }

    /// Whether [`tasks`](Self::tasks) was set.
    pub(crate) fn configures_tasks(&self) -> bool {
        self.tasks.is_some()
    }

    /// Validates every registration and builds the server, or lists every problem found.
    pub fn build(mut self) -> Result<Server, BuildError> {
        let server_info_raw: Arc<RawValue> = to_raw(&self.info).into();
        let extensions = Arc::new(std::mem::take(&mut self.extensions));
        // In the order a user meets them: what was refused while building up, the state
        // keys, every registration, the tasks' settings.
        let mut errors = std::mem::take(&mut self.problems);
        errors.extend(self.keys_problem());
        let (mut registries, mounts) = self.registries(&server_info_raw, &extensions, &mut errors);
        errors.extend(self.tasks_problem());
        if !errors.is_empty() {
            return Err(BuildError { errors });
        }
        let offer = self.offer(&mut registries, &mounts);
        Ok(self.assemble(registries, mounts, offer, server_info_raw, extensions))
    }

    /// The registries, with everything added to the builder registered (and the skills'
    /// files as resources); each refusal goes to `errors`.
    fn registries(
        &mut self,
        server_info: &Arc<RawValue>,
        extensions: &Arc<Extensions>,
        errors: &mut Vec<RegistrationError>,
    ) -> (Registry, Vec<super::mount::Mounted>) {
        let settings = PageSettings {
            server_info: server_info.clone(),
            cache: self.list_cache,
            page_size: self.page_size,
        };
        let settings_for = |primitive: Primitive| {
            let mut settings = settings.clone();
            if let Some((_, policy)) = self.list_cache_for.iter().find(|(p, _)| *p == primitive) {
                settings.cache = *policy;
            }
            settings
        };
        let feed = ChangeFeed::new();
        let skills = registry::SkillRegistry::new(settings.clone(), feed.clone());
        let resources = ResourceRegistry::new(
            settings_for(Primitive::Resources),
            feed.clone(),
            self.policies.clone(),
        );
        let prompts = PromptRegistry::new(
            settings_for(Primitive::Prompts),
            feed.clone(),
            self.policies.clone(),
        );
        let tools = ToolRegistry::new(
            settings_for(Primitive::Tools),
            feed.clone(),
            self.policies.clone(),
            extensions.clone(),
        );
        let mut refused = |found: Result<(), Vec<RegistrationError>>| {
            if let Err(found) = found {
                errors.extend(found);
            }
        };
        refused(tools.register_all(std::mem::take(&mut self.tools)));
        refused(resources.register_resources(std::mem::take(&mut self.resources)));
        refused(resources.register_templates(std::mem::take(&mut self.templates)));
        refused(prompts.register_all(std::mem::take(&mut self.prompts)));
        refused(skills.insert_all(std::mem::take(&mut self.skills)));
        if self.skills_configured {
            // Skill files are resources: `SKILL.md`s listed, every file readable.
            refused(resources.register_resources(skills.manifest_resources()));
            refused(resources.register_templates(vec![skills.files_template()]));
        }
        let registry = Registry::new(tools, resources, prompts, skills, feed);
        // This server's own tools: a mounted server's were checked by its own `build()`, and
        // a proxy's views are its upstream's to serve (which may leave them unlisted).
        errors.extend(unserved_views(&registry));
        let mounts = super::mount::mount_all(std::mem::take(&mut self.mounts), &registry, errors);
        errors.extend(unknown_tool_layers(&registry.tools));
        (registry, mounts)
    }

    /// What is wrong with the `requestState` keys given, if anything.
    fn keys_problem(&self) -> Option<RegistrationError> {
        let reason = self.request_state_keys.as_ref()?.problem()?;
        Some(RegistrationError::InvalidSetting {
            setting: "request_state_keys",
            reason,
        })
    }

    /// What is wrong with the task settings given, if anything.
    fn tasks_problem(&self) -> Option<RegistrationError> {
        let reason = task_problem(self.tasks.as_ref()?)?;
        Some(RegistrationError::InvalidSetting {
            setting: "tasks",
            reason,
        })
    }

    /// What the server offers, from what is registered and configured; the registries
    /// learn whether they are advertised.
    fn offer(&self, registries: &mut Registry, mounts: &[super::mount::Mounted]) -> Offer {
        let Registry {
            tools,
            resources,
            prompts,
            ..
        } = registries;
        tools.set_advertised(!tools.is_empty() || self.advertised.contains(&Primitive::Tools));
        let skills =
            self.skills_configured || mounts.iter().any(super::mount::Mounted::offers_skills);
        resources.set_advertised(
            !resources.is_empty() || skills || self.advertised.contains(&Primitive::Resources),
        );
        prompts
            .set_advertised(!prompts.is_empty() || self.advertised.contains(&Primitive::Prompts));
        let task_tools = tools
            .snapshot()
            .iter()
            .any(|t| t.task != crate::task::TaskSupport::Never);
        Offer {
            tools: tools.advertised(),
            resources: resources.advertised(),
            prompts: prompts.advertised(),
            logging: self.logging,
            // A mounted server that offers tasks (a proxy of a server that may make them)
            // makes this one offer them: its tools' tasks run here.
            tasks: task_tools
                || self.tasks.is_some()
                || mounts.iter().any(super::mount::Mounted::offers_tasks),
            // A mounted server's skills are served here (`server::mount`).
            skills,
            apps: tools.snapshot().iter().any(|t| t.app.is_some()) || resources.serves_apps(),
        }
    }

    /// The server, from its checked parts: its `server/discover` answer serialized once,
    /// its state shared when configured.
    fn assemble(
        self,
        registry: Registry,
        mounts: Vec<super::mount::Mounted>,
        offer: Offer,
        server_info_raw: Arc<RawValue>,
        extensions: Arc<Extensions>,
    ) -> Server {
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
        let request_state_keys_configured = self.request_state_keys.is_some();
        let server = Server {
            inner: Arc::new(ServerInner {
                info: self.info,
                server_info_raw,
                instructions: self.instructions,
                capabilities,
                registry,
                mounts,
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
                tasks: Arc::new(crate::task::TaskHub::new(self.tasks.unwrap_or_default())),
                sharing: std::sync::OnceLock::new(),
                request_state_keys_configured,
                visibility: self.visibility,
            }),
        };
        super::mount::follow(&server.inner);
        if let Some(sharing) = self.sharing {
            server
                .share_through(sharing)
                .expect("a server just built shares nothing yet");
        }
        server
    }
}

impl ServerBuilder {
    /// Serves the tools, prompts, resources and templates of `server` as this server's own,
    /// under `prefix` (FastMCP's naming):
    ///
    /// - a tool or prompt `name` is `{prefix}_{name}`;
    /// - a resource or template URI `scheme://rest` is `scheme://{prefix}/rest` (`scheme:rest`
    ///   is `scheme:{prefix}/rest`): reversible, so a read reaches `server` with the URI it
    ///   knows and the contents come back with their mounted URIs.
    ///
    /// Each item runs through `server`'s own stack: its validation, timeouts, rate limits,
    /// cache, layers and audit, with its own state, over the request as it came (progress,
    /// asks, cancellation, the caller). A name or URI that clashes with one of this
    /// server's or another mount's is a build error
    /// ([`RegistrationError::MountClash`](crate::server::RegistrationError::MountClash)),
    /// whatever the order of the calls; a prefix must be a valid tool name.
    ///
    /// Later changes to `server`'s lists reach this server's clients (`list_changed`), and so
    /// do its resource updates, at the mounted URIs. An item added later whose name is
    /// taken is left out and logged (target `mcp_runtime::server::mount`), and a kind of item
    /// this server did not offer at build is not served: `advertise` it to make room.
    ///
    /// ```
    /// use mcp_runtime::prelude::*;
    /// use mcp_runtime::protocol::ToolDefinition;
    /// use serde_json::json;
    ///
    /// let weather = Server::builder("weather", "1.0.0")
    ///     .tool(tool_fn(
    ///         ToolDefinition::new("forecast", "Tomorrow's weather.", json!({"type": "object"})),
    ///         |_, _| async { "sunny" },
    ///     ))
    ///     .build()
    ///     .unwrap();
    /// let all = Server::builder("all", "1.0.0").mount("weather", weather).build().unwrap();
    /// assert_eq!(all.tools().names(), ["weather_forecast"]);
    /// ```
    pub fn mount(mut self, prefix: impl Into<String>, server: Server) -> Self {
        match super::mount::Mount::new(prefix.into(), server) {
            Ok(mount) => self.mounts.push(mount),
            Err(problem) => self.problems.push(problem),
        }
        self
    }

    /// Serves every item of `server` under its own name and URI: [`mount`](Self::mount)
    /// with no prefix (a clash is a build error all the same).
    pub fn merge(self, server: Server) -> Self {
        self.mount("", server)
    }
}

/// What a service that makes resources adds them through (`fs::FileResources::register`).
impl crate::resource::ResourceSink for ServerBuilder {
    fn add_resources(self, resources: Vec<Arc<dyn Resource>>) -> Self {
        self.resources(resources)
    }

    fn add_template(self, template: Arc<dyn ResourceTemplate>) -> Self {
        self.resource_templates([template])
    }
}
