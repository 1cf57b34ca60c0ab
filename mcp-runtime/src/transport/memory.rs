//! An in-memory transport: a server connection and a client end joined by channels.
//! Messages take exactly the path they take over stdio (framing, dispatch), minus the
//! process boundary.

use super::framing::{DEFAULT_MAX_MESSAGE_BYTES, LineFramer};
use crate::context::Peer;
use crate::server::Server;
use tokio::sync::mpsc;

/// The client's end of an in-memory connection: lines to the server, lines from it.
#[derive(Debug)]
pub struct MemoryTransport {
    /// Send serialized messages (one per `Vec`, newline optional) to the server.
    pub to_server: mpsc::Sender<Vec<u8>>,
    /// Messages from the server, one line each (with the trailing newline).
    pub from_server: mpsc::Receiver<Vec<u8>>,
}

/// Connects a new in-memory client to `server`. The connection ends when `to_server` is
/// dropped. Must be called inside a tokio runtime.
pub fn connect(server: &Server) -> MemoryTransport {
    let (to_server, mut incoming) = mpsc::channel::<Vec<u8>>(256);
    let (out_tx, from_server) = mpsc::channel::<Vec<u8>>(256);
    let (frames_tx, frames_rx) = mpsc::channel(64);
    let connection = server.connect(Peer::new(out_tx));
    tokio::spawn(async move {
        let mut framer = LineFramer::new(DEFAULT_MAX_MESSAGE_BYTES);
        while let Some(mut msg) = incoming.recv().await {
            if msg.last() != Some(&b'\n') {
                msg.push(b'\n');
            }
            let mut frames = Vec::new();
            framer.push(&msg, &mut frames);
            if frames_tx.send(frames).await.is_err() {
                return;
            }
        }
    });
    tokio::spawn(super::drive(
        connection,
        frames_rx,
        DEFAULT_MAX_MESSAGE_BYTES,
    ));
    MemoryTransport {
        to_server,
        from_server,
    }
}
