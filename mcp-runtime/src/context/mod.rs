//! What a request carries, for every handler: the layer directly above [`protocol`](crate::protocol).
//!
//! - [`RequestContext`]: the request's era, client, progress, cancellation and caller, and
//!   [`read_resource`](RequestContext::read_resource) for the server's own resources (through
//!   a reader the server installs, so this layer knows nothing of the server);
//! - [`Caller`]: who the request comes from;
//! - the extractors: [`State`], [`FromRef`], [`FromContext`], over the server's
//!   [`Extensions`];
//! - [`Peer`]: the outbound half of a connection;
//! - [`input`]: the input channel, asking the client (elicitation, sampling,
//!   roots) in both eras;
//! - [`Json`] and [`ResourceError`], which tools, resources and the context share;
//! - [`SpentNonces`]: where instances sharing state keep spent requestState nonces, and
//!   [`Unavailable`], what every store shared by instances fails with.
//!
//! Tools, resources, prompts and completions are siblings above this layer; each of them
//! imports it, and it imports none of them.

pub(crate) mod caller;
mod channel;
mod error;
mod extensions;
mod extract;
pub mod input;
mod json;
mod peer;
mod request;
mod store;

pub use caller::Caller;
pub use error::ResourceError;
pub use extensions::Extensions;
pub use extract::{FromContext, FromRef, MissingState, State};
pub use json::Json;
pub use peer::Peer;
pub(crate) use request::{Home, RequestIo, ResourceReader};
pub use request::{RequestContext, RequestContextParts};
pub use store::{MemoryNonces, SpentNonces, Unavailable};
