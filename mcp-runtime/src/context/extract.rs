//! Injected tool parameters: what a tool can ask for besides its JSON arguments.
//!
//! A parameter of an `#[mcp_tool]` function is either an *argument* (deserialized from the
//! call's `arguments`, described in the input schema) or *injected* (built from the request
//! context by [`FromContext`], absent from the schema). The macro treats a parameter as
//! injected when its type is written `RequestContext` or `State<…>`, or when it is marked
//! `#[mcp(inject)]` (a `FileService`, see [`crate::fs`], or your own extractor);
//! `#[mcp(arg)]` forces an argument. The spelling is only a first guess, checked both ways
//! through the traits: an injected parameter must implement [`FromContext`], and an argument
//! must not (unless forced), so a look-alike type or an alias fails to compile with a
//! message saying what to do instead of silently changing the tool's schema.
//!
//! # Rejections
//!
//! An extractor that cannot produce its value *rejects* with a value of its own type
//! ([`FromContext::Rejection`], after axum's `FromRequestParts::Rejection`); the tool does
//! not run, and the model gets an `isError` result carrying the rejection's text. The bound
//! is [`Display`](fmt::Display) rather than [`IntoToolResult`](super::IntoToolResult):
//! `IntoToolResult` turns `String`, numbers and `()` into *successful* results, so a
//! rejection typed that way would read to the model as the tool's answer. `Display` is also
//! the rule a tool's own `Err(e)` follows (`Result<T, E: Display>`), so both failures look
//! alike to the model. A dedicated trait would add a second conversion to learn for what is,
//! in the end, one message. The built-in extractors reject with [`MissingState`], or not at
//! all ([`Infallible`]).
//!
//! # Requirements, checked at registration
//!
//! Shared state is given to the builder, so whether a tool's `State<T>` can be served is
//! known before any call. [`FromContext::missing_state`] says what an extractor needs from
//! the server's [`Extensions`]; `#[mcp_tool]` collects it for every injected parameter into
//! [`Tool::missing_state`](super::Tool::missing_state), and registration refuses a tool whose
//! state is missing ([`check_state`], reported by `ServerBuilder::build` and
//! `ToolRegistry::register`). A server that forgot `.state(db)` fails to build, instead of
//! answering every call with an error. The rejection stays for tools called outside a
//! server and for hand-written tools that do not declare their needs.

use super::RequestContext;
use super::extensions::Extensions;
use std::any::type_name;
use std::convert::Infallible;
use std::fmt;

/// Builds an injected tool parameter from the request context.
///
/// Implement it for a type a tool should receive from the server rather than from the
/// model, then mark the parameter `#[mcp(inject)]`:
///
/// ```
/// use mcp_runtime::prelude::*;
/// use mcp_runtime::tool::FromContext;
///
/// /// The authenticated identity of the caller.
/// struct Identity(String);
///
/// /// Why an anonymous call cannot have an [`Identity`].
/// #[derive(Debug, thiserror::Error)]
/// #[error("this tool needs an authenticated caller; connect with credentials")]
/// struct Anonymous;
///
/// impl FromContext for Identity {
///     type Rejection = Anonymous;
///
///     fn from_context(cx: &RequestContext) -> Result<Self, Anonymous> {
///         let identity = cx.caller().identity().ok_or(Anonymous)?;
///         Ok(Identity(identity.to_owned()))
///     }
/// }
///
/// /// Says who is calling.
/// #[mcp_tool]
/// async fn whoami(#[mcp(inject)] Identity(who): Identity) -> String {
///     who
/// }
///
/// // A call without an identity gets an `isError` result with the rejection's text.
/// # let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
/// let result = rt.block_on(whoami::tool().call(Default::default(), RequestContext::detached()));
/// assert!(result.is_error());
/// assert_eq!(
///     result.first_text(),
///     Some("this tool needs an authenticated caller; connect with credentials")
/// );
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be injected by the server",
    label = "this parameter is injected, but its type does not implement `FromContext`",
    note = "injectable types are `RequestContext`, `State<T>` and types implementing `FromContext`; mark the parameter `#[mcp(arg)]` to read it from the client instead"
)]
pub trait FromContext: Sized {
    /// Why extraction failed. Its text becomes the `isError` result the model gets instead
    /// of the tool's (`tool/extract.rs` says why the bound is `Display`).
    type Rejection: fmt::Display;

    /// Extracts the value, or rejects.
    fn from_context(cx: &RequestContext) -> Result<Self, Self::Rejection>;

    /// The state this extractor needs that `extensions` (the server's shared state) lacks;
    /// empty when it has everything. Called when a tool taking this parameter is registered,
    /// so a missing value fails `ServerBuilder::build` instead of every call.
    ///
    /// The default needs nothing. `State<T>` needs a `T`; an extractor that reads state
    /// returns what it reads (for instance `State::<Keys>::missing_state(extensions)`), and
    /// one built on several returns all of theirs.
    fn missing_state(extensions: &Extensions) -> Vec<MissingState> {
        let _ = extensions;
        Vec::new()
    }
}

impl FromContext for RequestContext {
    type Rejection = Infallible;

    fn from_context(cx: &RequestContext) -> Result<Self, Infallible> {
        Ok(cx.clone())
    }
}

/// The rejection of an extractor that reads shared state ([`State<T>`], `FileService`) when
/// the server holds no value of the type it needs: a server configuration mistake, not the
/// model's.
///
/// ```
/// use mcp_runtime::tool::{FromContext, MissingState, RequestContext, State};
///
/// #[derive(Clone)]
/// struct Db;
///
/// let rejection = State::<Db>::from_context(&RequestContext::detached()).err().unwrap();
/// assert_eq!(rejection, MissingState::of::<Db>());
/// assert!(rejection.type_name().ends_with("Db"));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, thiserror::Error)]
#[error(
    "the server has no state of type `{type_name}`: give one to `ServerBuilder::state` (a server configuration error)"
)]
pub struct MissingState {
    type_name: &'static str,
}

impl MissingState {
    /// The rejection for a missing `T`.
    pub fn of<T: ?Sized>() -> Self {
        Self {
            type_name: type_name::<T>(),
        }
    }

    /// The missing type's name, as [`std::any::type_name`] spells it.
    pub fn type_name(&self) -> &'static str {
        self.type_name
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
    type Rejection = MissingState;

    fn from_context(cx: &RequestContext) -> Result<Self, MissingState> {
        cx.extensions()
            .get::<T>()
            .map(|t| State(t.clone()))
            .ok_or_else(MissingState::of::<T>)
    }

    fn missing_state(extensions: &Extensions) -> Vec<MissingState> {
        if extensions.get::<T>().is_some() {
            Vec::new()
        } else {
            vec![MissingState::of::<T>()]
        }
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

#[cfg(test)]
mod tests {
    use super::{Extensions, FromContext, FromRef, MissingState};
    use crate::prelude::*;
    use crate::server::RegistrationError;

    #[derive(Clone)]
    struct Db;

    #[derive(Clone)]
    struct Config;

    #[derive(Clone)]
    struct App {
        db: Db,
    }

    impl FromRef<App> for Db {
        fn from_ref(app: &App) -> Db {
            app.db.clone()
        }
    }

    /// Looks something up in the database.
    #[mcp_tool]
    async fn lookup(State(_db): State<Db>, key: String) -> String {
        key
    }

    /// Needs two kinds of state, one of them twice.
    #[mcp_tool]
    async fn report(
        State(_db): State<Db>,
        State(_config): State<Config>,
        State(_again): State<Db>,
        _cx: RequestContext,
    ) {
    }

    /// Needs nothing from the server.
    #[mcp_tool]
    async fn ping(_cx: RequestContext) -> &'static str {
        "pong"
    }

    fn missing(error: &RegistrationError) -> Option<(&str, Vec<&str>)> {
        match error {
            RegistrationError::MissingToolState { tool, type_names } => Some((
                tool.as_str(),
                type_names
                    .iter()
                    .map(|t| t.rsplit("::").next().unwrap_or(t))
                    .collect(),
            )),
            _ => None,
        }
    }

    #[test]
    fn a_tool_whose_state_was_not_given_fails_the_build() {
        let error = Server::builder("s", "1")
            .tool(lookup::tool())
            .tool(report::tool())
            .tool(ping::tool())
            .build()
            .unwrap_err();
        // Every tool missing state is reported; each missing type once per tool.
        let found: Vec<_> = error.errors.iter().map(|e| missing(e).unwrap()).collect();
        assert_eq!(
            found,
            [("lookup", vec!["Db"]), ("report", vec!["Db", "Config"])]
        );
        let text = error.errors[0].to_string();
        assert!(
            text.starts_with("tool `lookup` needs state the server was not given: `")
                && text.ends_with("::Db`; give a value of that type to ServerBuilder::state"),
            "{text}"
        );
        assert!(
            error.errors[1]
                .to_string()
                .ends_with("; give a value of each type to ServerBuilder::state")
        );
    }

    #[test]
    fn given_state_satisfies_it_in_any_order_and_as_a_substate() {
        let server = Server::builder("s", "1")
            .tool(lookup::tool())
            .tool(report::tool())
            .state(Db)
            .state(Config)
            .build()
            .unwrap();
        assert_eq!(server.tools().names(), ["lookup", "report"]);
        let server = Server::builder("s", "1")
            .state(App { db: Db })
            .substate::<App, Db>()
            .tool(lookup::tool())
            .build()
            .unwrap();
        assert_eq!(server.tools().names(), ["lookup"]);
    }

    #[test]
    fn registering_at_run_time_checks_the_servers_state() {
        let server = Server::builder("s", "1")
            .state(Config)
            .advertise(crate::server::Primitive::Tools)
            .build()
            .unwrap();
        let error = server.tools().register(lookup::tool()).unwrap_err();
        assert_eq!(missing(&error), Some(("lookup", vec!["Db"])));
        assert!(server.tools().names().is_empty());
        server.tools().register(ping::tool()).unwrap();
        assert_eq!(server.tools().names(), ["ping"]);
    }

    #[test]
    fn extractors_state_what_they_need() {
        let mut extensions = Extensions::default();
        assert_eq!(
            State::<Db>::missing_state(&extensions),
            [MissingState::of::<Db>()]
        );
        assert!(RequestContext::missing_state(&extensions).is_empty());
        extensions.insert(Db);
        assert!(State::<Db>::missing_state(&extensions).is_empty());
        // The macro's `Tool::missing_state` lists every injected parameter's needs.
        assert_eq!(
            report::tool().missing_state(&Extensions::default()),
            [
                MissingState::of::<Db>(),
                MissingState::of::<Config>(),
                MissingState::of::<Db>()
            ]
        );
        assert!(
            ping::tool()
                .missing_state(&Extensions::default())
                .is_empty()
        );
    }
}
