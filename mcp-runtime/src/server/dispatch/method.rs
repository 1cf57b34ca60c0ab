//! What a row of the method table is: a method's spec, its eras, what the server must offer
//! for it (its [`Gate`]), and its [`Handler`]; the handlers' signatures. The rows themselves
//! are `table.rs`; every handler file names [`Method`] from here, so the table can name
//! what handlers define (the lists' kinds) without a cycle.

use super::{Connection, Routed, Scope};
use crate::protocol::RequestId;
use crate::protocol::methods::{Eras, MethodSpec};
use crate::server::contract::Rejection;
use serde_json::value::RawValue;

/// What a server must offer for a method to be served: nothing, a primitive, completions
/// (offered with prompts or resources) or logging. A method whose gate is closed is answered
/// as not offered, and the capability of a gate is declared exactly when it is open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Gate {
    /// Always served (lifecycle, discovery, streams).
    Always,
    /// `tools`.
    Tools,
    /// `resources`.
    Resources,
    /// `prompts`.
    Prompts,
    /// `completions`.
    Completions,
    /// `logging`.
    Logging,
    /// The tasks extension (`io.modelcontextprotocol/tasks`): some tool runs as a task.
    Tasks,
    /// The skills extension (`io.modelcontextprotocol/skills`): skills are served.
    Skills,
}

/// A handler answered at once, without user code.
pub(crate) type Now = fn(
    &Connection,
    &RequestId,
    &'static Method,
    Option<&RawValue>,
    &Scope<'_>,
) -> Result<Vec<u8>, Rejection>;

/// A handler that may run user code or stream: answered now, or later on its outlet.
pub(crate) type Later =
    fn(&Connection, RequestId, &'static Method, Option<&RawValue>, Scope<'_>) -> Routed;

/// How a method is handled.
#[derive(Clone, Copy)]
pub(crate) enum Handler {
    /// See [`Now`].
    Now(Now),
    /// See [`Later`]: answered by the dispatcher itself, perhaps later (a completion
    /// handler that waits, a task in a shared store, a stream).
    Later(Later),
    /// See [`Later`]: runs an item's stack (the pipeline), which traces the request.
    Stack(Later),
}

/// One row of the table.
pub(crate) struct Method {
    /// The JSON-RPC method (its spec's name).
    pub(crate) name: &'static str,
    /// What the protocol says of it: its eras, its `Mcp-Name` field, its target.
    pub(crate) spec: &'static MethodSpec,
    /// The eras it exists in.
    pub(crate) eras: Eras,
    /// What the server must offer.
    pub(crate) gate: Gate,
    /// Its handler.
    pub(crate) handler: Handler,
}

impl std::fmt::Debug for Method {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Method")
            .field("name", &self.name)
            .field("eras", &self.eras)
            .field("gate", &self.gate)
            .finish_non_exhaustive()
    }
}
