//! Transports: stdio and Streamable HTTP for real clients, in-memory for tests, and the
//! contract any other transport (a Unix socket, a WebSocket, …) implements from outside
//! this crate. The contract is the server's (`server::contract`), named here too; the
//! transports in this module use nothing else of the server, as one outside the crate would.
//!
//! # Writing a transport
//!
//! The server knows nothing of bytes on a wire: a transport turns its input into calls on a
//! [`Connection`] and writes what the connection sends out through a [`Peer`]. There are
//! two shapes.
//!
//! **A stream of messages** (stdio, a Unix socket, a WebSocket), one connection per client:
//! 1. Make a channel and a connection: `let (tx, mut rx) = tokio::sync::mpsc::channel(64);
//!    let connection = server.connect(Peer::new(tx));`
//! 2. Write every line that arrives on `rx` to the client, in order (responses,
//!    notifications, and the server's own requests, elicitation, sampling and roots; each
//!    ends with `\n`).
//! 3. Hand each incoming message to [`Connection::handle_line`] and await it before the
//!    next: that await is the backpressure (with a server-wide concurrency limit it waits
//!    while every slot is taken). On a byte stream, [`LineFramer`] splits lines and reports
//!    a message over the size limit, which you answer with [`Connection::reject_oversized`].
//! 4. When the input ends, await [`Connection::shutdown`]: calls in flight finish and are
//!    answered (within the server's shutdown grace), then stop writing once `rx` is drained.
//!
//! **One request per exchange** (Streamable HTTP, or any request/response RPC): decode the
//! JSON-RPC request yourself and call [`Connection::request`] with an [`Exchange`] (where
//! this request's notifications and deferred answer go, its cancellation, its [`Caller`])
//! and the [`RequestChecks`] your transport makes against metadata outside the body
//! ([`NoChecks`] if it has none). You get a [`Dispatched`]: an answer now, with the
//! [`Disposition`] your transport maps to its own status, or `Pending` (the answer comes on
//! the exchange). Use a connection per client session ([`Server::connect`]) or one shared
//! by every sessionless client ([`Server::connect_stateless`]).
//!
//! A transport that authenticates callers says who they are in the [`Caller`] (identity,
//! scopes, address); rate limits, caches and scope requirements are keyed by it.
//!
//! [`Server::connect`]: crate::Server::connect
//! [`Server::connect_stateless`]: crate::Server::connect_stateless
//! [`Caller`]: crate::context::Caller

pub mod framing;
#[cfg(feature = "http")]
pub mod http;
pub mod memory;
#[cfg(unix)]
mod pipe;
pub mod stdio;

pub use crate::context::Peer;
pub use crate::server::contract::{
    Dispatched, Disposition, Exchange, NoChecks, Rejection, RequestChecks,
};
pub use framing::{DEFAULT_MAX_MESSAGE_BYTES, Frame, LineFramer};

use crate::server::Connection;
use tokio::sync::mpsc;

/// Feeds batches of frames to a connection until the input ends, then shuts the connection
/// down (in-flight requests finish and are answered).
pub(crate) async fn drive(
    connection: Connection,
    mut input: mpsc::Receiver<Vec<Frame>>,
    limit: usize,
) {
    while let Some(batch) = input.recv().await {
        for frame in batch {
            match frame {
                Frame::Line(line) => connection.handle_line(&line).await,
                Frame::Oversized { len } => connection.reject_oversized(len, limit).await,
            }
        }
    }
    connection.shutdown().await;
}
