//! stdio on the runtime's own event loop, for the usual case where stdin and stdout are
//! pipes or sockets (a client spawned us).
//!
//! Both descriptors are duplicated, switched to non-blocking mode and registered with
//! tokio's reactor (as a `pipe::Receiver`/`Sender`, or a `UnixStream` for socketpairs): a
//! request is read, dispatched and answered on one runtime thread, with no hop to another
//! OS thread anywhere on the path, which is what a trivial single-threaded server pays too.
//! The original descriptor flags are restored when serving ends.
//!
//! Terminals and regular files are left alone (switching a terminal to non-blocking mode
//! would leak into the shell that owns it); `stdio.rs` serves those with two I/O threads.

use super::framing::{Frame, LineFramer};
use crate::Server;
use crate::context::Peer;
use crate::server::Connection;
use rustix::fs::{FileType, OFlags, fcntl_getfl, fcntl_setfl, fstat};
use std::io;
use std::os::fd::{AsFd, OwnedFd};
use tokio::net::UnixStream;
use tokio::net::unix::pipe;
use tokio::sync::mpsc;

/// Restores a standard stream's descriptor flags (the shared file description was switched
/// to non-blocking mode).
struct RestoreFlags<S: AsFd> {
    stream: S,
    original: OFlags,
}

impl<S: AsFd> Drop for RestoreFlags<S> {
    fn drop(&mut self) {
        let _ = fcntl_setfl(self.stream.as_fd(), self.original);
    }
}

/// The reading end: a pipe, or a socket (Node's `child_process` gives its children
/// socketpairs).
enum Input {
    Pipe(pipe::Receiver),
    Socket(UnixStream),
}

/// The writing end.
enum Output {
    Pipe(pipe::Sender),
    Socket(UnixStream),
}

/// A duplicate of `stream`'s descriptor if it is a pipe or socket, with the flags to restore.
fn duplicate<S: AsFd>(stream: S) -> Option<(OwnedFd, FileType, RestoreFlags<S>)> {
    let fd = stream.as_fd();
    let kind = FileType::from_raw_mode(fstat(fd).ok()?.st_mode);
    if !matches!(kind, FileType::Fifo | FileType::Socket) {
        return None;
    }
    let original = fcntl_getfl(fd).ok()?;
    let owned = fd.try_clone_to_owned().ok()?;
    Some((owned, kind, RestoreFlags { stream, original }))
}

fn socket(fd: OwnedFd) -> Option<UnixStream> {
    let std = std::os::unix::net::UnixStream::from(fd);
    std.set_nonblocking(true).ok()?;
    UnixStream::from_std(std).ok()
}

/// Stdin and stdout ready for the event loop, or `None` when either is not a pipe or
/// socket, or the reactor cannot watch it.
pub(super) struct Pipes {
    input: Input,
    output: Output,
    _restore: (RestoreFlags<io::Stdin>, RestoreFlags<io::Stdout>),
}

impl Pipes {
    pub(super) fn open() -> Option<Self> {
        let (in_fd, in_kind, in_restore) = duplicate(io::stdin())?;
        let (out_fd, out_kind, out_restore) = duplicate(io::stdout())?;
        let input = match in_kind {
            FileType::Fifo => Input::Pipe(pipe::Receiver::from_owned_fd(in_fd).ok()?),
            _ => Input::Socket(socket(in_fd)?),
        };
        let output = match out_kind {
            FileType::Fifo => Output::Pipe(pipe::Sender::from_owned_fd(out_fd).ok()?),
            _ => Output::Socket(socket(out_fd)?),
        };
        Some(Self {
            input,
            output,
            _restore: (in_restore, out_restore),
        })
    }
}

impl Input {
    /// Reads into `buf`'s spare capacity (never zero-filled first: a server that gets a
    /// 200-byte `initialize` touches one page of its buffer, not sixteen).
    async fn read_buf(&self, buf: &mut Vec<u8>) -> io::Result<usize> {
        loop {
            let attempt = match self {
                Input::Pipe(p) => {
                    p.readable().await?;
                    p.try_read_buf(buf)
                }
                Input::Socket(s) => {
                    s.readable().await?;
                    s.try_read_buf(buf)
                }
            };
            match attempt {
                Err(e)
                    if matches!(
                        e.kind(),
                        io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted
                    ) => {}
                other => return other,
            }
        }
    }
}

impl Output {
    async fn write_all(&self, mut bytes: &[u8]) -> io::Result<()> {
        while !bytes.is_empty() {
            let attempt = match self {
                Output::Pipe(p) => {
                    p.writable().await?;
                    p.try_write(bytes)
                }
                Output::Socket(s) => {
                    s.writable().await?;
                    s.try_write(bytes)
                }
            };
            match attempt {
                Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
                Ok(n) => bytes = &bytes[n..],
                Err(e)
                    if matches!(
                        e.kind(),
                        io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted
                    ) => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }
}

/// Serves `server` on the pipes until stdin closes and in-flight requests are answered.
pub(super) async fn serve(server: Server, pipes: Pipes, limit: usize) -> io::Result<()> {
    let Pipes {
        input,
        output,
        _restore,
    } = pipes;
    let (lines_tx, lines_rx) = mpsc::channel::<Vec<u8>>(1024);
    let writer = tokio::spawn(write_loop(output, lines_rx));
    let connection = server.connect(Peer::new(lines_tx.clone()));
    let read = read_loop(&input, &connection, limit).await;
    connection.shutdown().await;
    // An empty line asks the writer to flush and stop, even if a tool kept a context (and
    // so a sender) alive past its request.
    let _ = lines_tx.send(Vec::new()).await;
    drop(lines_tx);
    let written = writer.await.unwrap_or(Ok(()));
    read.and(written)
}

/// How many messages of one read are handled before the writer gets a turn.
const ANSWERS_PER_WRITE: usize = 16;

async fn read_loop(input: &Input, connection: &Connection, limit: usize) -> io::Result<()> {
    let mut framer = LineFramer::new(limit);
    let mut chunk = Vec::with_capacity(64 * 1024);
    let mut frames = Vec::new();
    loop {
        chunk.clear();
        let n = match input.read_buf(&mut chunk).await {
            Ok(n) => n,
            Err(e) => {
                tracing::warn!(error = %e, "reading stdin failed; treating it as closed");
                0
            }
        };
        if n == 0 {
            framer.finish(&mut frames);
        } else {
            framer.push(&chunk[..n], &mut frames);
        }
        for (i, frame) in frames.drain(..).enumerate() {
            match frame {
                Frame::Line(line) => connection.handle_line(&line).await,
                Frame::Oversized { len } => connection.reject_oversized(len, limit).await,
            }
            // Let the writer send what is answered so far every few messages of a long
            // batch: the client reads those answers (and sends more) while the rest of the
            // batch is handled, instead of waiting for all of it. One `write` per
            // `ANSWERS_PER_WRITE` answers still batches most of the system calls.
            if (i + 1) % ANSWERS_PER_WRITE == 0 {
                tokio::task::yield_now().await;
            }
        }
        if n == 0 {
            return Ok(());
        }
    }
}

async fn write_loop(output: Output, mut rx: mpsc::Receiver<Vec<u8>>) -> io::Result<()> {
    let mut buf = Vec::with_capacity(64 * 1024);
    let mut broken: Option<io::Error> = None;
    while let Some(first) = rx.recv().await {
        let mut stop = first.is_empty();
        buf.extend_from_slice(&first);
        // Batch whatever else is already queued into the same write.
        while !stop && buf.len() < 1024 * 1024 {
            match rx.try_recv() {
                Ok(more) if more.is_empty() => stop = true,
                Ok(more) => buf.extend_from_slice(&more),
                Err(_) => break,
            }
        }
        if broken.is_none()
            && let Err(e) = output.write_all(&buf).await
        {
            // Keep draining so senders never block on a client that stopped reading.
            tracing::debug!(error = %e, "stdout is closed; discarding output");
            broken = Some(e);
        }
        buf.clear();
        if stop {
            break;
        }
    }
    broken.map_or(Ok(()), Err)
}
