//! Unit tests' view of what is logged: a `tracing` subscriber that writes lines into memory.

use std::io::Write;
use std::sync::{Arc, Mutex};

/// The lines a [`Captured::install`] subscriber wrote on this thread.
#[derive(Clone, Default)]
pub(crate) struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Captured {
    /// Captures `INFO` and above on this thread (plain text, no colors) until the guard
    /// is dropped.
    pub(crate) fn install() -> (Self, tracing::subscriber::DefaultGuard) {
        let captured = Self::default();
        let sink = captured.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_writer(move || sink.clone())
            .with_ansi(false)
            .with_max_level(tracing::Level::INFO)
            .finish();
        (captured, tracing::subscriber::set_default(subscriber))
    }

    /// What was written so far.
    pub(crate) fn text(&self) -> String {
        String::from_utf8(self.0.lock().unwrap().clone()).unwrap()
    }
}
