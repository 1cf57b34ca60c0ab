//! The server: its builder, the tool registry, and per-connection dispatch for both eras.

mod connection;
pub(crate) mod exchange;
mod projection;
mod registry;

pub use connection::Connection;
pub use registry::{RegistrationError, ToolRegistry, validate_tool_name};

use crate::protocol::lifecycle::{
    CachePolicy, DiscoverResult, Implementation, ServerCapabilities, ToolsCapability,
};
use crate::protocol::version::MODERN_VERSIONS;
use crate::tool::{Extensions, FromRef, Tool};
use projection::{Modern, to_raw};
use registry::PageSettings;
use serde_json::value::RawValue;
use std::fmt;
use std::sync::Arc;

/// Default number of tools on one `tools/list` page.
pub const DEFAULT_PAGE_SIZE: usize = 100;

/// An MCP server definition: identity, capabilities and tools. Cheap to clone; every
/// connection and transport shares one.
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
    tools: ToolRegistry,
    extensions: Arc<Extensions>,
    /// `server/discover`'s result, serialized once.
    discover_json: Arc<str>,
}

impl fmt::Debug for Server {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Server")
            .field("info", &self.inner.info)
            .field("tools", &self.inner.tools)
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
            page_size: DEFAULT_PAGE_SIZE,
            list_cache: CachePolicy::default(),
            discover_cache: CachePolicy::default(),
            extensions: Extensions::default(),
        }
    }

    /// The server's identity.
    pub fn info(&self) -> &Implementation {
        &self.inner.info
    }

    /// The server's tools; register or remove tools at run time through it.
    pub fn tools(&self) -> &ToolRegistry {
        &self.inner.tools
    }

    /// The capabilities this server declares.
    pub fn capabilities(&self) -> &ServerCapabilities {
        &self.inner.capabilities
    }

    /// A new connection's dispatcher, writing its outgoing lines to `peer`.
    pub fn connect(&self, peer: crate::tool::Peer) -> Connection {
        Connection::new(self.clone(), peer)
    }
}

/// Builds a [`Server`]. Every registration problem is collected and reported by
/// [`build`](Self::build), not panicked on.
pub struct ServerBuilder {
    info: Implementation,
    instructions: Option<String>,
    tools: Vec<Arc<dyn Tool>>,
    page_size: usize,
    list_cache: CachePolicy,
    discover_cache: CachePolicy,
    extensions: Extensions,
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

    /// Shares `value` with every tool: a parameter `State<T>` receives a clone of it.
    /// One value per type; a second of the same type replaces the first.
    pub fn state<T: Clone + Send + Sync + 'static>(mut self, value: T) -> Self {
        self.extensions.insert(value);
        self
    }

    /// Makes `State<Sub>` available, derived from the state `App` given earlier with
    /// [`state`](Self::state) (axum's `FromRef`, evaluated once here).
    ///
    /// # Panics
    ///
    /// When no state of type `App` was given: that is a mistake in the server's setup code,
    /// found the first time it runs.
    pub fn substate<App, Sub>(mut self) -> Self
    where
        App: Send + Sync + 'static,
        Sub: FromRef<App> + Clone + Send + Sync + 'static,
    {
        let app = self.extensions.get::<App>().unwrap_or_else(|| {
            panic!(
                "ServerBuilder::substate: call .state() with a `{}` first",
                std::any::type_name::<App>()
            )
        });
        let sub = Sub::from_ref(app);
        self.extensions.insert(sub);
        self
    }

    /// Adds a tool that is already shared.
    pub fn tool_arc(mut self, tool: Arc<dyn Tool>) -> Self {
        self.tools.push(tool);
        self
    }

    /// Tools per `tools/list` page (default [`DEFAULT_PAGE_SIZE`]; at least 1).
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

    /// `ttlMs` and `cacheScope` of the `server/discover` result (default `0`, `private`).
    pub fn discover_cache(mut self, policy: CachePolicy) -> Self {
        self.discover_cache = policy;
        self
    }

    /// Validates every tool and builds the server, or lists every problem found.
    pub fn build(self) -> Result<Server, BuildError> {
        let server_info_raw: Arc<RawValue> = to_raw(&self.info).into();
        let capabilities = ServerCapabilities {
            tools: Some(ToolsCapability {
                list_changed: Some(true),
            }),
            ..ServerCapabilities::default()
        };
        let discover = DiscoverResult {
            supported_versions: MODERN_VERSIONS.iter().map(|v| (*v).to_owned()).collect(),
            capabilities: capabilities.clone(),
            instructions: self.instructions.clone(),
        };
        let discover_json: Arc<str> = to_raw(&Modern::complete(
            &discover,
            &server_info_raw,
            Some(self.discover_cache),
            None,
        ))
        .get()
        .into();
        let tools = ToolRegistry::new(PageSettings {
            server_info: server_info_raw.clone(),
            cache: self.list_cache,
            page_size: self.page_size,
        });
        tools
            .register_all(self.tools)
            .map_err(|errors| BuildError { errors })?;
        Ok(Server {
            inner: Arc::new(ServerInner {
                info: self.info,
                server_info_raw,
                instructions: self.instructions,
                capabilities,
                tools,
                extensions: Arc::new(self.extensions),
                discover_json,
            }),
        })
    }
}

/// Everything wrong with a server definition.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the server definition has {} problem(s): {}", errors.len(), list(errors))]
pub struct BuildError {
    /// Each problem.
    pub errors: Vec<RegistrationError>,
}

fn list(errors: &[RegistrationError]) -> String {
    errors
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("; ")
}
