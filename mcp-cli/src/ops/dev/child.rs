//! One server process of a `cargo mcp dev` session: started over stdio, its stdout read as
//! lines into the session's events, its stdin fed from a channel, and ended by closing
//! stdin (graceful) or by a kill.
//!
//! The server's stderr is ours: its logs and panics show beside the build output. Lines are
//! read as bytes and decoded lossily, so a stray non-UTF-8 byte is reported by the relay
//! instead of ending the reader.

use super::Event;
use super::relay::Generation;
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _, BufReader};
use tokio::sync::{mpsc, oneshot};

/// A running server process.
#[derive(Debug)]
pub struct ServerProcess {
    stdin: Option<mpsc::UnboundedSender<String>>,
    kill: Option<oneshot::Sender<()>>,
}

impl ServerProcess {
    /// Starts `executable args` as server `generation`; its lines and its exit arrive on
    /// `events`.
    pub fn spawn(
        generation: Generation,
        executable: &Path,
        args: &[String],
        events: mpsc::UnboundedSender<Event>,
    ) -> std::io::Result<Self> {
        let mut child = tokio::process::Command::new(executable)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()?;
        let mut stdin = child.stdin.take().expect("stdin is piped");
        let stdout = child.stdout.take().expect("stdout is piped");

        let (lines, mut to_write) = mpsc::unbounded_channel::<String>();
        tokio::spawn(async move {
            while let Some(mut line) = to_write.recv().await {
                line.push('\n');
                if stdin.write_all(line.as_bytes()).await.is_err() || stdin.flush().await.is_err() {
                    break;
                }
            }
            // Dropping stdin is the server's EOF: its cue to finish and exit.
        });

        let (kill, mut killed) = oneshot::channel::<()>();
        tokio::spawn(async move {
            let mut reader = BufReader::new(stdout);
            let mut buffer = Vec::new();
            let mut was_killed = false;
            loop {
                buffer.clear();
                tokio::select! {
                    read = reader.read_until(b'\n', &mut buffer) => match read {
                        Ok(0) | Err(_) => break,
                        Ok(_) => {
                            let line = String::from_utf8_lossy(&buffer).into_owned();
                            let _ = events.send(Event::Server(generation, line));
                        }
                    },
                    _ = &mut killed, if !was_killed => {
                        was_killed = true;
                        let _ = child.start_kill();
                    }
                }
            }
            // Stdout is closed; a server that lingers after that is ended after a moment.
            let status = match tokio::time::timeout(Duration::from_secs(2), child.wait()).await {
                Ok(status) => status,
                Err(_) => {
                    let _ = child.start_kill();
                    child.wait().await
                }
            };
            let status = match status {
                Ok(status) => status.to_string(),
                Err(e) => format!("cannot tell how: {e}"),
            };
            let _ = events.send(Event::ServerExited(generation, status));
        });
        Ok(ServerProcess {
            stdin: Some(lines),
            kill: Some(kill),
        })
    }

    /// Writes a line (without newline) to the server; dropped when its stdin is closed.
    pub fn send(&self, line: String) {
        if let Some(stdin) = &self.stdin {
            let _ = stdin.send(line);
        }
    }

    /// Closes the server's stdin (it finishes what it is doing and exits) and kills it
    /// after `grace` if it has not exited by then.
    pub fn retire(&mut self, grace: Duration) {
        self.stdin = None;
        if let Some(kill) = self.kill.take() {
            tokio::spawn(async move {
                tokio::time::sleep(grace).await;
                let _ = kill.send(());
            });
        }
    }
}
