//! The stdio floor: the least a Rust process can do per call. It reads a JSON-RPC line,
//! parses it with serde_json, and writes a fixed-shape response (echoing `echo`'s text and
//! summing `add`'s numbers, so the load client's checks pass). Single thread, no protocol
//! logic. Every benchmark run reports the toolkit's numbers as ratios to this.

use serde_json::{Value, json};
use std::io::{self, BufRead, BufWriter, Write};

fn answer(request: &Value) -> Option<Value> {
    let id = request.get("id")?.clone();
    let params = &request["params"];
    let result = match request["method"].as_str()? {
        "initialize" => json!({
            "protocolVersion": "2025-11-25",
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "stdio-floor", "version": "0"}
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
            let args = &params["arguments"];
            let text = match params["name"].as_str()? {
                "echo" => args["text"].as_str().unwrap_or_default().to_owned(),
                _ => (args["a"].as_f64().unwrap_or(0.0) + args["b"].as_f64().unwrap_or(0.0))
                    .to_string(),
            };
            json!({"content": [{"type": "text", "text": text}]})
        }
        _ => json!({}),
    };
    Some(json!({"jsonrpc": "2.0", "id": id, "result": result}))
}

fn main() -> io::Result<()> {
    let stdin = io::stdin().lock();
    let mut out = BufWriter::new(io::stdout().lock());
    for line in stdin.lines() {
        let line = line?;
        let Ok(request) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        if let Some(response) = answer(&request) {
            serde_json::to_writer(&mut out, &response)?;
            out.write_all(b"\n")?;
            out.flush()?;
        }
    }
    Ok(())
}
