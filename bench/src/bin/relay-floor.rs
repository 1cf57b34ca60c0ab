//! The relay floor: the least a process in front of a stdio server can do per call, what
//! `bench/gateway.sh` compares the gateway with. It starts the server named on its command
//! line and copies bytes both ways between its own stdio and the child's, as they come,
//! without reading them: no parsing, no dispatch, no routing. What it costs over the
//! direct call is the second hop itself: two more pipes and two more wake-ups per call.
//!
//! ```text
//! relay-floor SERVER [ARGS...]
//! ```

use std::io;
use std::process::{Command, ExitCode, Stdio};

fn main() -> ExitCode {
    match relay() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("relay-floor: {e}");
            ExitCode::FAILURE
        }
    }
}

fn relay() -> io::Result<()> {
    let mut args = std::env::args_os().skip(1);
    let program = args
        .next()
        .ok_or_else(|| io::Error::other("usage: relay-floor SERVER [ARGS...]"))?;
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()?;
    let (Some(mut to_child), Some(mut from_child)) = (child.stdin.take(), child.stdout.take())
    else {
        return Err(io::Error::other("the child's stdio is not piped"));
    };
    // Requests: until our stdin ends, then the child's stdin is closed and it ends too.
    std::thread::spawn(move || io::copy(&mut io::stdin().lock(), &mut to_child));
    // Answers: `io::copy` writes each block as it is read, and stdout (line-buffered)
    // flushes through its last newline.
    io::copy(&mut from_child, &mut io::stdout().lock())?;
    child.wait()?;
    Ok(())
}
