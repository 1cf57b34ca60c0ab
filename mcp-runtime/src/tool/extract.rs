//! Injected tool parameters: what a tool can ask for besides its JSON arguments.
//!
//! A parameter of an `#[mcp_tool]` function is either an *argument* (deserialized from the
//! call's `arguments`, described in the input schema) or *injected* (built from the request
//! context by [`FromContext`], absent from the schema). The macro treats a parameter as
//! injected when its type is named `RequestContext`, `State` or `FileService` (see
//! [`crate::fs`]), or when it is marked `#[mcp(inject)]`; `#[mcp(arg)]` forces an argument.
//! The name is only a first guess: an injected parameter must implement [`FromContext`], so a
//! look-alike type fails to compile with a message saying what to do.

use super::RequestContext;
use std::any::{Any, TypeId, type_name};
use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

/// Builds an injected tool parameter from the request context.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be injected into an MCP tool",
    label = "this parameter is injected, but its type does not implement `FromContext`",
    note = "injectable types are `RequestContext`, `State<T>` and types implementing `FromContext`; mark the parameter `#[mcp(arg)]` to read it from the tool's JSON arguments instead"
)]
pub trait FromContext: Sized {
    /// Extracts the value, or explains (to the model) why it cannot.
    fn from_context(cx: &RequestContext) -> Result<Self, String>;
}

impl FromContext for RequestContext {
    fn from_context(cx: &RequestContext) -> Result<Self, String> {
        Ok(cx.clone())
    }
}

/// Shared server state, given to [`ServerBuilder::state`](crate::ServerBuilder::state) and
/// extracted by type (axum style).
///
/// ```
/// use mcp_runtime::prelude::*;
/// use mcp_runtime::tool::State;
///
/// #[derive(Clone)]
/// struct Db { url: String }
///
/// let server = Server::builder("demo", "1.0.0")
///     .state(Db { url: "postgres://localhost/app".into() })
///     .build()
///     .unwrap();
/// # let _ = server;
/// // A tool then takes `State(db): State<Db>` (or `db: State<Db>`).
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct State<T>(pub T);

impl<T> std::ops::Deref for State<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: Clone + Send + Sync + 'static> FromContext for State<T> {
    fn from_context(cx: &RequestContext) -> Result<Self, String> {
        cx.extensions()
            .get::<T>()
            .map(|t| State(t.clone()))
            .ok_or_else(|| {
                format!(
                    "the server has no state of type `{}`; this is a server configuration error",
                    type_name::<T>()
                )
            })
    }
}

/// Derives a sub-state from the whole state (axum's `FromRef`): with
/// `ServerBuilder::substate::<App, Db>()`, tools can take `State<Db>` while the server holds
/// `App`. The blanket impl makes every `Clone` type its own sub-state.
pub trait FromRef<T> {
    /// Produces `Self` from a reference to the whole state.
    fn from_ref(input: &T) -> Self;
}

impl<T: Clone> FromRef<T> for T {
    fn from_ref(input: &T) -> Self {
        input.clone()
    }
}

/// A map from type to value: the server's shared state.
#[derive(Clone, Default)]
pub struct Extensions {
    map: HashMap<TypeId, Arc<dyn Any + Send + Sync>>,
}

impl fmt::Debug for Extensions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Extensions")
            .field("len", &self.map.len())
            .finish()
    }
}

impl Extensions {
    /// Inserts a value, replacing one of the same type.
    pub fn insert<T: Send + Sync + 'static>(&mut self, value: T) {
        self.map.insert(TypeId::of::<T>(), Arc::new(value));
    }

    /// The value of type `T`, if there is one.
    pub fn get<T: Send + Sync + 'static>(&self) -> Option<&T> {
        self.map
            .get(&TypeId::of::<T>())
            .and_then(|v| v.downcast_ref())
    }
}
