//! Two transports written outside `mcp-runtime`, against its public transport contract
//! only (`mcp_runtime::transport`): the proof that a third party can add one.
//!
//! - [`serve_unix`]: a stream of messages over a Unix socket, one connection per client
//!   (the shape of stdio or a WebSocket).
//! - [`Rpc`]: one request per exchange (the shape of Streamable HTTP), with its own status
//!   codes mapped from the server's [`Disposition`].

use mcp_runtime::Server;
use mcp_runtime::protocol::RequestId;
use mcp_runtime::server::Connection;
use mcp_runtime::tool::Caller;
use mcp_runtime::transport::{
    Dispatched, Disposition, Exchange, Frame, LineFramer, NoChecks, Peer,
};
use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;
use tokio::io::{AsyncRead, AsyncReadExt as _, AsyncWrite, AsyncWriteExt as _};
#[cfg(unix)]
use tokio::net::UnixListener;
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

/// Serves `server` on `listener` until the task is dropped: each accepted stream is one
/// connection. (Unix only; the stream part, [`serve_stream`], works on any byte stream.)
#[cfg(unix)]
pub async fn serve_unix(server: Server, listener: UnixListener, max_message: usize) {
    while let Ok((stream, _)) = listener.accept().await {
        tokio::spawn(serve_stream(server.clone(), stream, max_message));
    }
}

/// One client on a byte stream: lines in, lines out, shut down when the client stops
/// sending.
pub async fn serve_stream(
    server: Server,
    stream: impl AsyncRead + AsyncWrite + Send + 'static,
    max_message: usize,
) {
    let (mut read, mut write) = tokio::io::split(stream);
    let (tx, mut rx) = mpsc::channel::<Vec<u8>>(64);
    let connection = server.connect(Peer::new(tx));
    // Everything the connection sends, in order, until it is gone.
    let writer = tokio::spawn(async move {
        while let Some(line) = rx.recv().await {
            if write.write_all(&line).await.is_err() {
                break;
            }
        }
    });
    let mut framer = LineFramer::new(max_message);
    let mut buf = vec![0; 8192];
    let mut frames = Vec::new();
    loop {
        let n = read.read(&mut buf).await.unwrap_or(0);
        if n == 0 {
            framer.finish(&mut frames);
        } else {
            framer.push(&buf[..n], &mut frames);
        }
        for frame in frames.drain(..) {
            match frame {
                // Awaiting each message before reading the next is the backpressure.
                Frame::Line(line) => connection.handle_line(&line).await,
                Frame::Oversized { len } => connection.reject_oversized(len, max_message).await,
            }
        }
        if n == 0 {
            break;
        }
    }
    connection.shutdown().await;
    drop(connection);
    let _ = writer.await;
}

/// A request/response transport: each call is one exchange, answered with a status of this
/// transport's own (200, 400, 404, 403) and the JSON-RPC answer.
#[derive(Debug, Clone)]
pub struct Rpc {
    connection: Connection,
}

/// One exchange's outcome.
#[derive(Debug)]
pub struct RpcReply {
    /// This transport's status for it.
    pub status: u16,
    /// The scopes to obtain, for a 403.
    pub challenge: Option<Vec<String>>,
    /// The JSON-RPC answer.
    pub body: Value,
}

impl Rpc {
    /// A transport whose clients have no sessions: one shared stateless connection.
    pub fn new(server: &Server) -> Self {
        Self {
            connection: server.connect_stateless(),
        }
    }

    /// Sends one JSON-RPC request as `caller`.
    pub async fn call(&self, request: &str, caller: Caller) -> RpcReply {
        #[derive(Deserialize)]
        struct Envelope<'a> {
            id: RequestId,
            method: String,
            #[serde(borrow)]
            params: Option<&'a RawValue>,
        }
        let envelope: Envelope<'_> =
            serde_json::from_str(request).expect("the tests send well-formed requests");
        let (notify_tx, _notifications) = mpsc::channel(16);
        let (respond_tx, respond) = oneshot::channel();
        let exchange = Exchange::new(
            Peer::new(notify_tx),
            respond_tx,
            CancellationToken::new(),
            caller,
        );
        let dispatched = self.connection.request(
            envelope.id,
            &envelope.method,
            envelope.params,
            &NoChecks,
            exchange,
        );
        let (line, disposition) = match dispatched {
            Dispatched::Reply { line, disposition } => (line, disposition),
            Dispatched::Pending => (
                respond.await.expect("a pending request is answered"),
                Disposition::Answered,
            ),
        };
        let (status, challenge) = match disposition {
            Disposition::Answered => (200, None),
            Disposition::Invalid => (400, None),
            Disposition::NotFound => (404, None),
            Disposition::Forbidden { scopes } => (403, Some(scopes.to_vec())),
            // A disposition added later: this transport's generic failure.
            _ => (500, None),
        };
        RpcReply {
            status,
            challenge,
            body: serde_json::from_slice(&line).expect("answers are JSON"),
        }
    }
}
