use super::*;
use std::sync::mpsc;
use tracing_subscriber::prelude::*;

/// A writer into shared memory, so a test reads what the sink wrote.
#[derive(Clone, Default)]
struct Memory(Arc<Mutex<Vec<u8>>>);

impl Write for Memory {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Memory {
    fn text(&self) -> String {
        String::from_utf8(self.0.lock().unwrap().clone()).unwrap()
    }
}

/// Runs `f` with a subscriber whose only layer is `sink`.
fn with_sink(sink: &AuditSink, f: impl FnOnce()) {
    let subscriber = tracing_subscriber::registry().with(sink.clone());
    tracing::subscriber::with_default(subscriber, f);
}

#[test]
fn a_line_has_the_fmt_layers_shape_without_its_cost() {
    let memory = Memory::default();
    let sink = AuditSink::new(memory.clone());
    with_sink(&sink, || {
        tracing::info!(
            target: AUDIT_TARGET,
            id = %7,
            method = "tools/call",
            target = "say \"hi\"\n",
            empty = "",
            duration_ms = 0.25,
            count = 3u64,
            delta = -2i64,
            cached = true,
            "request"
        );
        tracing::warn!(target: AUDIT_TARGET, status = 401, "refused");
        tracing::info!(target: "elsewhere", "not audit");
    });
    sink.flush();
    let text = memory.text();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");
    let (time, rest) = lines[0].split_once(' ').unwrap();
    assert!(
        humantime::parse_rfc3339(time).is_ok() && time.len() == 27,
        "{time}"
    );
    assert_eq!(
        rest,
        r#" INFO mcp::audit: request id=7 method=tools/call target="say \"hi\"\n" empty="" duration_ms=0.25 count=3 delta=-2 cached=true"#
    );
    assert!(
        lines[1].ends_with("  WARN mcp::audit: refused status=401"),
        "{}",
        lines[1]
    );
}

#[test]
fn every_line_arrives_whole_from_many_threads() {
    let memory = Memory::default();
    let sink = AuditSink::new(memory.clone());
    let threads: Vec<_> = (0..4)
        .map(|t| {
            let sink = sink.clone();
            std::thread::spawn(move || {
                with_sink(&sink, || {
                    for i in 0..5_000 {
                        tracing::info!(target: AUDIT_TARGET, t, i, "request");
                    }
                });
            })
        })
        .collect();
    for thread in threads {
        thread.join().unwrap();
    }
    sink.flush();
    let text = memory.text();
    let mut seen = std::collections::HashSet::new();
    for line in text.lines() {
        let fields = line.split_once("request ").unwrap().1;
        assert!(seen.insert(fields.to_owned()), "twice: {line}");
    }
    assert_eq!(seen.len(), 20_000);
    assert_eq!(sink.failed_lines(), 0);
}

/// A writer that waits for permission before each write.
struct Gated {
    gate: mpsc::Receiver<()>,
    memory: Memory,
}

impl Write for Gated {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.gate.recv().ok();
        self.memory.write(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[test]
fn a_stuck_writer_holds_back_the_loggers_and_loses_nothing() {
    let (open, gate) = mpsc::channel();
    let memory = Memory::default();
    let sink = AuditSink::with_capacity(
        Gated {
            gate,
            memory: memory.clone(),
        },
        256,
    );
    let (done, finished) = mpsc::channel();
    let logger = {
        let sink = sink.clone();
        std::thread::spawn(move || {
            with_sink(&sink, || {
                for i in 0..100 {
                    tracing::info!(target: AUDIT_TARGET, i, "request");
                }
            });
            done.send(()).unwrap();
        })
    };
    // 100 lines of about 60 bytes do not fit in 256 bytes and the writer is stuck on its
    // first batch: the logger must be waiting.
    assert!(
        finished.recv_timeout(Duration::from_millis(200)).is_err(),
        "the logger went past a full buffer"
    );
    assert!(sink.shared.lock().pending.len() <= 256);
    std::thread::spawn(move || while open.send(()).is_ok() {});
    finished.recv().unwrap();
    logger.join().unwrap();
    sink.flush();
    assert_eq!(memory.text().lines().count(), 100);
}

#[test]
fn flush_writes_what_is_lingering() {
    let memory = Memory::default();
    let sink = AuditSink::new(memory.clone());
    with_sink(&sink, || {
        tracing::info!(target: AUDIT_TARGET, "request");
    });
    sink.flush();
    assert_eq!(memory.text().lines().count(), 1);
}

/// A writer that always fails.
struct Broken;

impl Write for Broken {
    fn write(&mut self, _: &[u8]) -> io::Result<usize> {
        Err(io::ErrorKind::BrokenPipe.into())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[test]
fn failed_writes_are_counted() {
    let sink = AuditSink::new(Broken);
    with_sink(&sink, || {
        tracing::info!(target: AUDIT_TARGET, "one");
        tracing::info!(target: AUDIT_TARGET, "two");
    });
    sink.flush();
    assert_eq!(sink.failed_lines(), 2);
}

#[test]
fn after_the_last_flush_lines_are_written_at_once() {
    let memory = Memory::default();
    let sink = AuditSink::new(memory.clone());
    sink.finish();
    with_sink(&sink, || {
        tracing::info!(target: AUDIT_TARGET, "late");
    });
    assert_eq!(memory.text().lines().count(), 1);
}

/// One request through the real [`Audit`](crate::pipeline::Audit) layer, with `sink` as the
/// thread's subscriber; returns the line written, without its timestamp.
async fn audited_line(sink: &AuditSink, memory: &Memory, id: RequestId, caller: &str) -> String {
    use crate::context::{Caller, RequestContext, RequestContextParts};
    use crate::pipeline::{AuditLayer, AuditOptions, BoxError, McpRequest, Outcome};
    use crate::protocol::{CallToolResult, Era, JsonObject};
    use tower::{Layer as _, ServiceExt as _};

    let cx = RequestContext::new(RequestContextParts {
        era: Era::Modern,
        protocol_version: crate::protocol::version::MODERN_VERSION.into(),
        client_capabilities: Arc::default(),
        client_info: None,
        request_id: id,
        progress_token: None,
        trace: None,
        cancellation: tokio_util::sync::CancellationToken::new(),
        peer: None,
        extensions: Arc::default(),
        caller: Caller::connection().with_identity(caller),
        meta: None,
    });
    let mut arguments = JsonObject::new();
    arguments.insert("text".into(), "two words".into());
    let inner = tower::service_fn(|_: McpRequest| async {
        Ok::<_, BoxError>(Outcome::Tool(CallToolResult::text("done")))
    });
    let service = AuditLayer::new(AuditOptions::new().log_arguments(true)).layer(inner);
    let request = McpRequest::new(
        crate::protocol::methods::TOOLS_CALL,
        "say it",
        arguments,
        cx,
    );
    let _guard =
        tracing::subscriber::set_default(tracing_subscriber::registry().with(sink.clone()));
    service.oneshot(request).await.unwrap();
    sink.flush();
    let text = std::mem::take(&mut *memory.0.lock().unwrap());
    let line = String::from_utf8(text).unwrap();
    assert_eq!(line.lines().count(), 1, "{line}");
    let (_time, rest) = line.split_once(' ').unwrap();
    rest.to_owned()
}

#[tokio::test]
async fn the_direct_path_writes_the_line_the_event_would() {
    let memory = Memory::default();
    let by_event = AuditSink::new(memory.clone());
    let direct = AuditSink::new(memory.clone()).exclusive();
    for (id, caller) in [
        (RequestId::Number(42), "alice"),
        (RequestId::String("req \"7\"".into()), "bob smith"),
    ] {
        let expected = audited_line(&by_event, &memory, id.clone(), caller).await;
        let got = audited_line(&direct, &memory, id, caller).await;
        // The durations differ from run to run; everything else must not.
        let without_duration = |line: &str| {
            line.split(' ')
                .filter(|field| !field.starts_with("duration_ms="))
                .collect::<Vec<_>>()
                .join(" ")
        };
        assert_eq!(without_duration(&got), without_duration(&expected));
        assert!(got.contains(" duration_ms="), "{got}");
        assert!(
            expected.contains(r#"target="say it""#)
                && expected.contains("outcome=ok")
                && expected.contains(r#" arguments="{\"text\":\"two words\"}""#)
                && expected.contains(" era=modern method=tools/call "),
            "{expected}"
        );
    }
}
