//! Entry points for the fuzz targets in `fuzz/` and the corpus replay in `cargo test`
//! (feature `fuzzing`; not a public API). Each takes arbitrary bytes, drives one parser or
//! check the way untrusted input reaches it, and asserts what must hold whatever the input;
//! a panic (or a sanitizer report) is a finding.

use crate::protocol::jsonrpc;
use crate::transport::{Frame, LineFramer};

/// Line framing: fed in two pieces split at the first byte's value, every complete line
/// comes out once, none over the cap, and the lengths add up.
pub fn lines(data: &[u8]) {
    const MAX: usize = 64;
    let split = data
        .first()
        .map_or(0, |b| usize::from(*b) % (data.len() + 1));
    let mut framer = LineFramer::new(MAX);
    let mut frames = Vec::new();
    framer.push(&data[..split], &mut frames);
    framer.push(&data[split..], &mut frames);
    framer.finish(&mut frames);
    let mut seen = 0;
    for frame in &frames {
        match frame {
            Frame::Line(line) => {
                assert!(line.len() <= MAX, "a line over the cap came out");
                assert!(!line.contains(&b'\n'), "a line kept its newline");
                seen += line.len();
            }
            Frame::Oversized { len } => {
                assert!(*len > MAX, "a line within the cap was discarded");
                seen += len;
            }
        }
    }
    assert!(seen <= data.len(), "more bytes came out than went in");
}

/// JSON-RPC decoding: any bytes decode to a message or a decode error, and a decoded
/// request's id and method survive re-encoding.
pub fn jsonrpc(data: &[u8]) {
    if let Ok(jsonrpc::Message::Request { id, method, .. }) = jsonrpc::decode(data) {
        let line = jsonrpc::encode_request::<()>(&id, &method, None);
        match jsonrpc::decode(&line) {
            Ok(jsonrpc::Message::Request { id: again, .. }) => assert_eq!(again, id),
            other => panic!("a request did not survive re-encoding: {:?}", other.is_ok()),
        }
    }
}

/// Era classification and dispatch: the bytes as one line to a server with a tool, a
/// resource template and a prompt, on a fresh connection after an `initialize` (legacy) or
/// on its own (modern, or whatever the line claims); then a `ping` must still be answered.
pub fn dispatch(data: &[u8]) {
    use std::sync::OnceLock;
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    static SERVER: OnceLock<crate::Server> = OnceLock::new();
    let runtime = RUNTIME.get_or_init(|| {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime")
    });
    let server = SERVER.get_or_init(dispatch_server);
    let legacy = data.first().is_some_and(|b| b & 1 == 1);
    runtime.block_on(async {
        let mut t = crate::transport::memory::connect(server);
        if legacy {
            let init = br#"{"jsonrpc":"2.0","id":"i","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"fuzz","version":"0"}}}"#;
            let _ = t.to_server.send(init.to_vec()).await;
            let _ = t.to_server.send(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_vec()).await;
        }
        let _ = t.to_server.send(data.to_vec()).await;
        let ping = br#"{"jsonrpc":"2.0","id":"fuzz-ping","method":"ping"}"#;
        let _ = t.to_server.send(ping.to_vec()).await;
        let answered = tokio::time::timeout(std::time::Duration::from_secs(5), async {
            while let Some(line) = t.from_server.recv().await {
                if line.windows(11).any(|w| w == b"\"fuzz-ping\"") {
                    return true;
                }
            }
            false
        })
        .await;
        assert!(matches!(answered, Ok(true)), "the connection stopped answering");
    });
}

fn dispatch_server() -> crate::Server {
    use crate::prelude::*;
    use crate::protocol::{PromptArgument, PromptDefinition, ToolDefinition};
    let echo = tool_fn(
        ToolDefinition::new(
            "echo",
            "Echoes.",
            serde_json::json!({"type": "object", "properties": {"text": {"type": "string"}}}),
        ),
        |args, _| async move { args["text"].as_str().unwrap_or_default().to_owned() },
    );
    let prompt = crate::prompt::prompt_fn(
        PromptDefinition::new("greet", "Greets.")
            .with_argument(PromptArgument::required("name", "Who")),
        |args, _cx| async move { format!("Hello, {}", args["name"]) },
    );
    Server::builder("fuzz", "1.0.0")
        .tool(echo)
        .resource_template(Notes)
        .prompt(prompt)
        .build()
        .expect("the fuzz server builds")
}

/// `notes://{topic}/{+path}`: a template with a simple and a reserved variable.
struct Notes;

impl crate::resource::ResourceTemplate for Notes {
    fn definition(&self) -> crate::protocol::ResourceTemplateDefinition {
        crate::protocol::ResourceTemplateDefinition::new("notes://{topic}/{+path}", "notes")
    }

    fn read(
        &self,
        uri: String,
        _variables: crate::resource::Variables,
        _cx: crate::context::RequestContext,
    ) -> futures::future::BoxFuture<
        'static,
        Result<Vec<crate::protocol::ResourceContents>, crate::resource::ResourceError>,
    > {
        use crate::resource::IntoContents as _;
        Box::pin(async move { "a note".into_contents(&uri, Some("text/plain")) })
    }
}

/// HTTP header handling: header value encoding round-trips, and the `x-mcp-header` scan of
/// an input schema made from the bytes never panics.
#[cfg(feature = "http")]
pub fn http_headers(data: &[u8]) {
    use crate::protocol::headers;
    let text = String::from_utf8_lossy(data);
    let encoded = headers::encode_value(&text);
    assert!(
        encoded
            .bytes()
            .all(|b| b.is_ascii() && b != b'\r' && b != b'\n'),
        "an encoded header value is not a safe header"
    );
    assert_eq!(headers::decode_value(&encoded).as_deref(), Some(&*text));
    let _ = headers::decode_value(&text);
    if let Ok(serde_json::Value::Object(schema)) = serde_json::from_slice(data) {
        let _ = headers::scan(&schema);
    }
}

/// The path policy's lexical rules: a path either is refused or yields components with no
/// empty, `.` or `..` one and no `/` or NUL inside.
#[cfg(feature = "fs")]
pub fn path(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(request) = crate::fs::path::parse(text) {
        for c in &request.components {
            assert!(!c.is_empty() && c != "." && c != "..", "component {c:?}");
            assert!(!c.contains('/') && !c.contains('\0'), "component {c:?}");
        }
    }
}

/// URI templates: the bytes split at the first NUL into a template and a URI; whatever
/// matches expands back to a URI the template matches again.
pub fn uri_template(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let (template, uri) = text.split_once('\0').unwrap_or((&text, ""));
    let Ok(template) = crate::resource::UriTemplate::parse(template) else {
        return;
    };
    if let Some(variables) = template.matches(uri) {
        // RFC 6570's own ambiguity, documented in `uri_template`: reserved expansion
        // (`{+x}`, `{#x}`) passes a `%XX` triplet in a value through, which matching then
        // decodes, so such a value is not promised to come back.
        if holds_percent_triplet(&serde_json::Value::Object(variables.to_json())) {
            return;
        }
        let expanded = template.expand(&variables);
        let again = template.matches(&expanded);
        assert!(
            again.is_some(),
            "{expanded:?} does not match its own template"
        );
    }
}

/// Whether a string in `value` has `%` followed by two hex digits.
fn holds_percent_triplet(value: &serde_json::Value) -> bool {
    match value {
        serde_json::Value::String(text) => text
            .as_bytes()
            .windows(3)
            .any(|w| w[0] == b'%' && w[1].is_ascii_hexdigit() && w[2].is_ascii_hexdigit()),
        serde_json::Value::Array(items) => items.iter().any(holds_percent_triplet),
        serde_json::Value::Object(map) => map.values().any(holds_percent_triplet),
        _ => false,
    }
}

/// Prompt template files: the bytes as a JSON, YAML or Markdown prompt file (by the first
/// byte) load or fail with problems, never panic.
#[cfg(feature = "prompt-files")]
pub fn prompt_template(data: &[u8]) {
    use crate::prompt::templates::load;
    let Some((kind, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let (format, name) = match kind % 3 {
        0 => (load::Format::Json, "fuzz.json"),
        1 => (load::Format::Yaml, "fuzz.yaml"),
        _ => (load::Format::Markdown, "fuzz.md"),
    };
    let _ = load::load_source(std::path::Path::new(name), format, text);
}

/// The name a temporary file of process `pid` gets in the file service: for tests that
/// plant one (this module is the project's own test plumbing, no API).
#[cfg(feature = "fs")]
pub fn temp_file_name(pid: u32) -> std::ffi::OsString {
    crate::fs::temp_file_name(pid)
}
