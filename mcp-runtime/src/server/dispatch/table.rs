//! The method table: one row per request method, with the eras it is served in, what the
//! server must offer for it, and its handler. Routing, the "not offered" answers and the
//! capabilities a server declares all read it; adding a method is a row here and a handler
//! file beside this one.

use super::Connection;
use super::lists;
use super::method::{Gate, Handler, Method};
use crate::protocol::Era;
use crate::protocol::methods::{self as m, MethodSpec};
use crate::protocol::{
    PromptsCapability, ResourcesCapability, ServerCapabilities, ToolsCapability,
};
use crate::server::contract::Rejection;

/// The extension identifier of tasks (SEP-2663).
pub(crate) const TASKS_EXTENSION: &str = crate::protocol::task::TASKS_EXTENSION;
/// The extension identifier of skills (SEP-2640).
pub(crate) const SKILLS_EXTENSION: &str = crate::protocol::skills::SKILLS_EXTENSION;

/// What one server offers, decided once at `build()` from what is registered and
/// configured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Offer {
    pub(crate) tools: bool,
    pub(crate) resources: bool,
    pub(crate) prompts: bool,
    pub(crate) logging: bool,
    /// Some tool runs as a task.
    pub(crate) tasks: bool,
    /// Skills are served.
    pub(crate) skills: bool,
    /// Some tool has an MCP Apps view, or some resource is one.
    pub(crate) apps: bool,
}

impl Offer {
    /// Whether methods behind `gate` are served.
    pub(crate) fn opens(self, gate: Gate) -> bool {
        match gate {
            Gate::Always => true,
            Gate::Tools => self.tools,
            Gate::Resources => self.resources,
            Gate::Prompts => self.prompts,
            // Suggestions are for prompt arguments and template variables, so with either
            // primitive (an item without suggestions answers an empty list).
            Gate::Completions => self.prompts || self.resources,
            Gate::Logging => self.logging,
            Gate::Tasks => self.tasks,
            Gate::Skills => self.skills,
        }
    }

    /// The capabilities to declare: one for each open gate.
    pub(crate) fn capabilities(self) -> ServerCapabilities {
        ServerCapabilities {
            tools: self.opens(Gate::Tools).then_some(ToolsCapability {
                list_changed: Some(true),
            }),
            resources: self.opens(Gate::Resources).then_some(ResourcesCapability {
                subscribe: Some(true),
                list_changed: Some(true),
            }),
            prompts: self.opens(Gate::Prompts).then_some(PromptsCapability {
                list_changed: Some(true),
            }),
            completions: self.opens(Gate::Completions).then(Default::default),
            logging: self.opens(Gate::Logging).then(Default::default),
            extensions: self.extensions(),
            ..ServerCapabilities::default()
        }
    }
}

impl Offer {
    /// The `extensions` object of the capabilities: one entry per open extension gate.
    fn extensions(self) -> Option<crate::protocol::JsonObject> {
        let mut extensions = crate::protocol::JsonObject::new();
        if self.opens(Gate::Tasks) {
            extensions.insert(TASKS_EXTENSION.into(), serde_json::json!({}));
        }
        if self.opens(Gate::Skills) {
            extensions.insert(
                SKILLS_EXTENSION.into(),
                serde_json::json!({ "directoryRead": true }),
            );
        }
        if self.apps {
            extensions.insert(
                crate::protocol::apps::UI_EXTENSION.into(),
                crate::protocol::apps::server_extension_settings(),
            );
        }
        (!extensions.is_empty()).then_some(extensions)
    }
}

const fn row(spec: &'static MethodSpec, gate: Gate, handler: Handler) -> Method {
    Method {
        name: spec.name,
        spec,
        eras: spec.eras,
        gate,
        handler,
    }
}

use Handler::{Later as L, Now as N, Stack as S};

/// Every request method the server serves. A method not here is answered as not offered
/// (after its envelope is checked, so a malformed envelope is still `-32602`).
pub(crate) static METHODS: &[Method] = &[
    row(m::INITIALIZE, Gate::Always, N(Connection::initialize)),
    row(m::PING, Gate::Always, N(Connection::ping)),
    row(m::SERVER_DISCOVER, Gate::Always, N(Connection::discover)),
    row(
        m::LOGGING_SET_LEVEL,
        Gate::Logging,
        N(Connection::set_level),
    ),
    row(
        m::TOOLS_LIST,
        Gate::Tools,
        N(Connection::list::<lists::Tools>),
    ),
    row(
        m::RESOURCES_LIST,
        Gate::Resources,
        N(Connection::list::<lists::Resources>),
    ),
    row(
        m::RESOURCES_TEMPLATES_LIST,
        Gate::Resources,
        N(Connection::list::<lists::Templates>),
    ),
    row(
        m::PROMPTS_LIST,
        Gate::Prompts,
        N(Connection::list::<lists::Prompts>),
    ),
    row(m::TOOLS_CALL, Gate::Tools, S(Connection::call_tool)),
    row(
        m::RESOURCES_READ,
        Gate::Resources,
        S(Connection::read_resource),
    ),
    row(m::PROMPTS_GET, Gate::Prompts, S(Connection::get_prompt)),
    row(
        m::COMPLETION_COMPLETE,
        Gate::Completions,
        L(Connection::complete),
    ),
    row(
        m::RESOURCES_SUBSCRIBE,
        Gate::Resources,
        N(Connection::subscription),
    ),
    row(
        m::RESOURCES_UNSUBSCRIBE,
        Gate::Resources,
        N(Connection::subscription),
    ),
    row(m::SKILLS_LIST, Gate::Skills, N(Connection::list_skills)),
    row(m::SKILLS_GET, Gate::Skills, N(Connection::get_skill)),
    row(
        m::RESOURCES_DIRECTORY_READ,
        Gate::Skills,
        N(Connection::read_directory),
    ),
    row(m::SUBSCRIPTIONS_LISTEN, Gate::Always, L(Connection::listen)),
    row(m::TASKS_GET, Gate::Tasks, L(Connection::get_task)),
    row(m::TASKS_UPDATE, Gate::Tasks, L(Connection::update_task)),
    row(m::TASKS_CANCEL, Gate::Tasks, L(Connection::cancel_task)),
];

/// The row of `method`, if the server serves it.
pub(crate) fn lookup(method: &str) -> Option<&'static Method> {
    METHODS.iter().find(|m| m.name == method)
}

impl Connection {
    /// `Ok` when `method` is offered to a request of `era`; otherwise the "not offered"
    /// answer: `-32601`, and "not found" (HTTP 404) for a modern request.
    pub(super) fn admit(&self, method: &Method, era: Era) -> Result<(), Rejection> {
        if method.eras.includes(era) && self.inner.server.inner.offer.opens(method.gate) {
            Ok(())
        } else {
            Err(super::unoffered(method.name, era))
        }
    }
}
