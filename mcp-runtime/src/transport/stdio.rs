//! The stdio transport: newline-delimited JSON-RPC on stdin and stdout.
//!
//! stdout carries nothing but protocol messages; log to stderr (the examples set up
//! `tracing` that way). There is no blocking-pool hop per message (which is where
//! `tokio::io::stdin()` spends its time), and under load one system call carries many
//! messages:
//!
//! - When stdin and stdout are pipes or sockets (a client spawned the server), they are
//!   served on the runtime's event loop itself, non-blocking (see `pipe.rs`): a request is
//!   read, dispatched and answered without any hop to another thread.
//! - Otherwise (a terminal, a file), two dedicated threads move whole batches: the reader
//!   hands over every complete line of one `read`, and the writer drains everything queued
//!   before one `write` and one flush.

use super::framing::{DEFAULT_MAX_MESSAGE_BYTES, Frame, LineFramer};
use crate::context::Peer;
use crate::server::Server;
use std::io::{self, Read, Write};
use tokio::sync::{mpsc, oneshot};

/// Options of the stdio transport.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct StdioOptions {
    /// The longest message accepted, in bytes (default 16 MiB). A longer line is answered
    /// with `-32600` and skipped without being buffered whole.
    pub max_message_bytes: usize,
}

impl Default for StdioOptions {
    fn default() -> Self {
        Self {
            max_message_bytes: DEFAULT_MAX_MESSAGE_BYTES,
        }
    }
}

/// Serves `server` on this process's stdin and stdout until stdin closes, then waits for
/// in-flight requests to be answered and returns.
///
/// Must run inside a tokio runtime.
pub async fn serve_stdio(server: Server) -> io::Result<()> {
    serve_stdio_with(server, StdioOptions::default()).await
}

/// [`serve_stdio`] with options.
pub async fn serve_stdio_with(server: Server, options: StdioOptions) -> io::Result<()> {
    #[cfg(unix)]
    if let Some(pipes) = super::pipe::Pipes::open() {
        return super::pipe::serve(server, pipes, options.max_message_bytes).await;
    }
    serve_streams(server, options, io::stdin(), io::stdout()).await
}

/// Serves on any blocking reader and writer pair (stdin/stdout, pipes, files).
pub(crate) async fn serve_streams<R, W>(
    server: Server,
    options: StdioOptions,
    reader: R,
    writer: W,
) -> io::Result<()>
where
    R: Read + Send + 'static,
    W: Write + Send + 'static,
{
    let limit = options.max_message_bytes;
    let (frames_tx, frames_rx) = mpsc::channel::<Vec<Frame>>(64);
    let (lines_tx, lines_rx) = mpsc::channel::<Vec<u8>>(1024);
    let (writer_done_tx, writer_done_rx) = oneshot::channel();

    std::thread::Builder::new()
        .name("mcp-stdio-reader".into())
        .spawn(move || read_loop(reader, limit, frames_tx))?;
    std::thread::Builder::new()
        .name("mcp-stdio-writer".into())
        .spawn(move || {
            let result = write_loop(writer, lines_rx);
            let _ = writer_done_tx.send(result);
        })?;

    let connection = server.connect(Peer::new(lines_tx.clone()));
    super::drive(connection, frames_rx, limit).await;
    // An empty line asks the writer to flush and stop, even if a tool kept a context (and
    // so a sender) alive past its request.
    let _ = lines_tx.send(Vec::new()).await;
    drop(lines_tx);
    writer_done_rx.await.unwrap_or(Ok(()))
}

fn read_loop<R: Read>(mut reader: R, limit: usize, tx: mpsc::Sender<Vec<Frame>>) {
    let mut framer = LineFramer::new(limit);
    let mut chunk = vec![0u8; 64 * 1024];
    loop {
        let mut frames = Vec::new();
        match reader.read(&mut chunk) {
            Ok(0) => {
                framer.finish(&mut frames);
                let _ = tx.blocking_send(frames);
                return;
            }
            Ok(n) => framer.push(&chunk[..n], &mut frames),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => {
                tracing::warn!(error = %e, "reading stdin failed; treating it as closed");
                framer.finish(&mut frames);
                let _ = tx.blocking_send(frames);
                return;
            }
        }
        if !frames.is_empty() && tx.blocking_send(frames).is_err() {
            return;
        }
    }
}

fn write_loop<W: Write>(writer: W, mut rx: mpsc::Receiver<Vec<u8>>) -> io::Result<()> {
    let mut out = io::BufWriter::with_capacity(64 * 1024, writer);
    let mut broken = false;
    while let Some(line) = rx.blocking_recv() {
        let mut stop = line.is_empty();
        if !broken {
            broken = out.write_all(&line).is_err();
        }
        // Batch whatever else is already queued into the same write.
        while !stop {
            match rx.try_recv() {
                Ok(more) if more.is_empty() => stop = true,
                Ok(more) => {
                    if !broken {
                        broken = out.write_all(&more).is_err();
                    }
                }
                Err(_) => break,
            }
        }
        if !broken && out.flush().is_err() {
            broken = true;
        }
        if broken {
            // Keep draining so senders never block on a client that stopped reading.
            tracing::debug!("stdout is closed; discarding output");
        }
        if stop {
            break;
        }
    }
    if broken {
        return Err(io::Error::new(
            io::ErrorKind::BrokenPipe,
            "stdout closed before the server finished",
        ));
    }
    out.flush()
}
