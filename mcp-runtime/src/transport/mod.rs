//! Transports: stdio and Streamable HTTP for real clients, in-memory for tests. stdio and
//! in-memory feed the same [`Connection`] through the same framing; HTTP hands it one
//! decoded request at a time.

pub mod framing;
#[cfg(feature = "http")]
pub mod http;
pub mod memory;
#[cfg(unix)]
mod pipe;
pub mod stdio;

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
