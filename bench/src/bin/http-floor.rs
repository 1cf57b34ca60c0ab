//! The HTTP floor: a bare hyper server (HTTP/1.1 keep-alive, `TCP_NODELAY`) that answers
//! every POST with the same fixed-shape JSON-RPC response the stdio floor writes (echoing
//! `echo`'s text, summing `add`'s numbers). No MCP logic, no header checks, one thread.
//! Prints `http-floor: serving at http://ADDR/mcp` on stderr, as the examples do.

use http_body_util::Full;
use hyper::body::{Bytes, Incoming};
use hyper::{Request, Response};
use mcp_bench::floor;
use serde_json::{Value, json};
use std::convert::Infallible;

fn answer(request: &Value) -> Value {
    let params = &request["params"];
    let args = &params["arguments"];
    let result = match (request["method"].as_str(), params["name"].as_str()) {
        (Some("tools/call"), Some("echo")) => {
            json!({"content": [{"type": "text", "text": args["text"].as_str().unwrap_or_default()}]})
        }
        (Some("tools/call"), _) => {
            let sum = args["a"].as_f64().unwrap_or(0.0) + args["b"].as_f64().unwrap_or(0.0);
            json!({"content": [{"type": "text", "text": sum.to_string()}]})
        }
        _ => json!({}),
    };
    json!({"jsonrpc": "2.0", "id": request["id"], "result": result})
}

async fn handle(request: Request<Incoming>) -> Result<Response<Full<Bytes>>, Infallible> {
    let body = floor::body(request).await;
    let reply = match serde_json::from_slice::<Value>(&body) {
        Ok(v) => serde_json::to_vec(&answer(&v)).unwrap_or_default(),
        Err(_) => b"{}".to_vec(),
    };
    Ok(Response::builder()
        .header("content-type", "application/json")
        .body(Full::new(Bytes::from(reply)))
        .expect("a valid response"))
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> std::io::Result<()> {
    let listener = tokio::net::TcpListener::bind(floor::bind_arg()).await?;
    eprintln!(
        "http-floor: serving at http://{}/mcp",
        listener.local_addr()?
    );
    floor::serve_http1(listener, handle).await
}
