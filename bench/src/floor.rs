//! What the stdio floors answer: a fixed-shape response for each method the load client sends
//! (`echo` echoes its text, `add` sums its numbers, so every check passes), with no protocol
//! logic. Shared by `stdio-floor` and `validating-floor`, which differ only in `check`. And
//! the HTTP servers' loop, shared by `http-floor` and `otlp-sink`.

use serde_json::{Value, json};
use std::io::{self, BufRead, BufWriter, Write};

/// The response to `request`, or `None` for a notification or a request without a method.
///
/// `check(tool, arguments)` returns the arguments' violations; a call with any is answered
/// with an `isError` result listing them.
pub fn answer(
    request: &Value,
    server: &str,
    check: impl Fn(&str, &Value) -> Vec<String>,
) -> Option<Value> {
    let id = request.get("id")?.clone();
    let params = &request["params"];
    let result = match request["method"].as_str()? {
        "initialize" => json!({
            "protocolVersion": "2025-11-25",
            "capabilities": {"tools": {}},
            "serverInfo": {"name": server, "version": "0"}
        }),
        "server/discover" => json!({
            "supportedVersions": ["2026-07-28"],
            "capabilities": {"tools": {}},
            "resultType": "complete", "ttlMs": 0, "cacheScope": "private"
        }),
        "tools/list" => json!({"tools": [
            {"name": "add", "description": "Adds.", "inputSchema": {"type": "object"}},
            {"name": "echo", "description": "Echoes.", "inputSchema": {"type": "object"}}
        ]}),
        "tools/call" => {
            let name = params["name"].as_str()?;
            let args = &params["arguments"];
            let violations = check(name, args);
            if violations.is_empty() {
                let text = match name {
                    "echo" => args["text"].as_str().unwrap_or_default().to_owned(),
                    _ => (args["a"].as_f64().unwrap_or(0.0) + args["b"].as_f64().unwrap_or(0.0))
                        .to_string(),
                };
                json!({"content": [{"type": "text", "text": text}]})
            } else {
                json!({"content": [{"type": "text", "text": violations.join("\n")}], "isError": true})
            }
        }
        _ => json!({}),
    };
    Some(json!({"jsonrpc": "2.0", "id": id, "result": result}))
}

/// Serves stdin to stdout a line at a time with [`answer`] until stdin closes. Lines that
/// are not JSON are skipped.
pub fn serve(server: &str, check: impl Fn(&str, &Value) -> Vec<String>) -> io::Result<()> {
    let stdin = io::stdin().lock();
    let mut out = BufWriter::new(io::stdout().lock());
    for line in stdin.lines() {
        let line = line?;
        let Ok(request) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        if let Some(response) = answer(&request, server, &check) {
            serde_json::to_writer(&mut out, &response)?;
            out.write_all(b"\n")?;
            out.flush()?;
        }
    }
    Ok(())
}

/// What `--bind ADDR` says in this process's arguments (`127.0.0.1:0` without it): where the
/// HTTP floor and `otlp-sink` listen.
pub fn bind_arg() -> String {
    std::env::args()
        .skip_while(|a| a != "--bind")
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:0".into())
}

/// The whole body of `request` (empty if it could not be read).
pub async fn body(request: hyper::Request<hyper::body::Incoming>) -> hyper::body::Bytes {
    use http_body_util::BodyExt as _;
    request
        .into_body()
        .collect()
        .await
        .map(|b| b.to_bytes())
        .unwrap_or_default()
}

/// Serves HTTP/1.1 keep-alive connections accepted on `listener` (`TCP_NODELAY`, one task
/// each), answering every request with `handle`, until accepting fails.
///
/// # Errors
///
/// Accepting a connection failed.
pub async fn serve_http1<F, Fut>(listener: tokio::net::TcpListener, handle: F) -> io::Result<()>
where
    F: Fn(hyper::Request<hyper::body::Incoming>) -> Fut + Clone + Send + 'static,
    Fut: Future<
            Output = Result<
                hyper::Response<http_body_util::Full<hyper::body::Bytes>>,
                std::convert::Infallible,
            >,
        > + Send
        + 'static,
{
    loop {
        let (stream, _) = listener.accept().await?;
        stream.set_nodelay(true)?;
        let handle = handle.clone();
        tokio::spawn(async move {
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(
                    hyper_util::rt::TokioIo::new(stream),
                    hyper::service::service_fn(handle),
                )
                .await;
        });
    }
}
