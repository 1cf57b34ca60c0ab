//! Server-sent events as the HTTP client reads them: the `data` of each event.

/// Splits an SSE byte stream into the `data` of its events.
#[derive(Debug, Default)]
pub(super) struct SseReader {
    pending: Vec<u8>,
    data: Vec<u8>,
    has_data: bool,
}

impl SseReader {
    /// How many bytes it holds of events not yet complete.
    pub(super) fn held(&self) -> usize {
        self.pending.len() + self.data.len()
    }

    /// Feeds a chunk; returns the data of every event it completes.
    pub(super) fn push(&mut self, chunk: &[u8]) -> Vec<Vec<u8>> {
        self.pending.extend_from_slice(chunk);
        let mut events = Vec::new();
        while let Some(end) = self.pending.iter().position(|&b| b == b'\n') {
            let mut line: Vec<u8> = self.pending.drain(..=end).collect();
            line.pop();
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            if line.is_empty() {
                if self.has_data {
                    events.push(std::mem::take(&mut self.data));
                    self.has_data = false;
                }
            } else if let Some(rest) = line.strip_prefix(b"data:") {
                let rest = rest.strip_prefix(b" ").unwrap_or(rest);
                if self.has_data {
                    self.data.push(b'\n');
                }
                self.data.extend_from_slice(rest);
                self.has_data = true;
            }
            // Comments (`:`), `event:`, `id:` and `retry:` lines carry nothing we need.
        }
        events
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sse_events_are_split_across_chunks() {
        let mut reader = SseReader::default();
        assert!(reader.push(b": keep-alive\n\ndata: {\"a\"").is_empty());
        let events = reader.push(b":1}\r\n\r\ndata: x\ndata: y\n\n");
        assert_eq!(events, vec![b"{\"a\":1}".to_vec(), b"x\ny".to_vec()]);
    }
}
