//! A real Redis for the shared-state tests: Debian's `redis-server`, unpacked by
//! `tests/redis/setup.sh`, started on a free loopback port with a temp directory, nothing
//! persisted. Stopped (SIGKILL) on drop.

use std::io::{Read, Write};
use std::net::{Ipv4Addr, TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A running `redis-server` on 127.0.0.1.
#[derive(Debug)]
pub struct Redis {
    child: Option<Child>,
    dir: tempfile::TempDir,
    /// Its port.
    pub port: u16,
}

fn launcher() -> PathBuf {
    crate::setup("redis").join(".redis/run-redis-server")
}

fn free_port() -> u16 {
    TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
        .and_then(|l| l.local_addr())
        .expect("a free loopback port")
        .port()
}

/// Whether a Redis answers `PING` on `port`.
fn answers(port: u16) -> bool {
    let Ok(mut stream) = TcpStream::connect((Ipv4Addr::LOCALHOST, port)) else {
        return false;
    };
    let _ = stream.set_read_timeout(Some(Duration::from_secs(1)));
    if stream.write_all(b"PING\r\n").is_err() {
        return false;
    }
    let mut buf = [0u8; 7];
    stream.read_exact(&mut buf).is_ok() && &buf == b"+PONG\r\n"
}

impl Redis {
    /// Starts a Redis on a free port (retrying if another process takes the port first).
    pub fn start() -> Self {
        let dir = tempfile::tempdir().expect("a temp dir");
        let mut redis = Self {
            child: None,
            dir,
            port: 0,
        };
        for _ in 0..5 {
            redis.port = free_port();
            if redis.spawn() {
                return redis;
            }
        }
        panic!("redis-server did not start");
    }

    /// Starts the server on `self.port`; whether it answers within 20 s.
    fn spawn(&mut self) -> bool {
        let child = Command::new(launcher())
            .args(["--bind", "127.0.0.1", "--port"])
            .arg(self.port.to_string())
            .args([
                "--save",
                "",
                "--appendonly",
                "no",
                "--protected-mode",
                "yes",
            ])
            .arg("--dir")
            .arg(self.dir.path())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("redis-server starts");
        self.child = Some(child);
        let deadline = Instant::now() + Duration::from_secs(20);
        while Instant::now() < deadline {
            if answers(self.port) {
                return true;
            }
            if let Some(Ok(Some(_))) = self.child.as_mut().map(Child::try_wait) {
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        self.stop();
        false
    }

    /// `redis://127.0.0.1:PORT/`.
    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }

    /// Kills the server (SIGKILL): its data is gone, as after a crash without persistence.
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Starts it again on the same port (after [`stop`](Self::stop)).
    pub fn restart(&mut self) {
        assert!(self.spawn(), "redis-server did not start again on its port");
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        self.stop();
    }
}
