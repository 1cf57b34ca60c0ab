//! [`Peer`]: the outbound half of a connection.

use tokio::sync::mpsc;

/// The sending half of a connection: serialized JSON-RPC lines on their way to the client.
///
/// A transport creates one per connection (and, for transports that frame each request on
/// its own, one per request for its notifications; see [`Exchange`](crate::transport::Exchange)) and
/// writes whatever arrives on the receiving end to its client, in order.
///
/// ```
/// use mcp_runtime::transport::Peer;
///
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// let (tx, mut rx) = tokio::sync::mpsc::channel(16);
/// let peer = Peer::new(tx);
/// assert!(peer.send_line(b"{}\n".to_vec()).await);
/// assert_eq!(rx.recv().await.unwrap(), b"{}\n");
/// drop(rx);
/// assert!(!peer.send_line(b"{}\n".to_vec()).await, "the connection is gone");
/// # });
/// ```
#[derive(Debug, Clone)]
pub struct Peer {
    tx: mpsc::Sender<Vec<u8>>,
}

impl Peer {
    /// A peer writing into `tx`. Each item is one complete line, newline included.
    pub fn new(tx: mpsc::Sender<Vec<u8>>) -> Self {
        Self { tx }
    }

    /// Queues one serialized line, waiting while the channel is full (that is how a slow
    /// client slows the server down instead of growing its memory). Returns `false` when
    /// the connection is gone.
    pub async fn send_line(&self, line: Vec<u8>) -> bool {
        self.tx.send(line).await.is_ok()
    }

    /// Queues one serialized line if there is room now; returns whether it was queued.
    /// For what may be dropped under pressure (a best-effort notice from a destructor).
    pub fn try_send_line(&self, line: Vec<u8>) -> bool {
        self.tx.try_send(line).is_ok()
    }
}
