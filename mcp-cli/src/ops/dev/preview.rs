//! The MCP Apps preview of a dev session (`cargo mcp preview`, `cargo mcp dev --preview`): a
//! local page that hosts a tool's view the way a chat host does, over the same relay (and
//! rebuilds) as every dev session.
//!
//! - **The client is ours.** An `mcp_runtime` client, declaring the MCP Apps extension
//!   (`io.modelcontextprotocol/ui`), talks to the relay through channels; the relay replays
//!   its handshake to each rebuilt server and tells it the lists changed, which bumps the
//!   session's generation.
//! - **Two origins.** The host page is served at `http://127.0.0.1:PORT/<token>/` and the
//!   sandbox proxy at `http://localhost:PORT/<token>/sandbox`: different origins, so the view
//!   (inside the proxy) can reach neither the host page's DOM nor its requests. Each is
//!   refused on the other host name. The proxy is served with the Content Security Policy
//!   built from the view's `_meta.ui.csp` ([`csp`], the spec's restrictive default when the
//!   view declares nothing), which the view's `srcdoc` document inherits.
//! - **The host bridge is the official one**: `preview/dist/host.js` bundles
//!   `@modelcontextprotocol/ext-apps`' `AppBridge` (versions pinned by
//!   `preview/package-lock.json`; rebuilt with `npm ci && npm run build` there, and checked
//!   to match byte for byte by the CLI's tests).
//! - **Local only, and for the page given the URL**, as the HTTP front ([`super::http`]):
//!   loopback addresses only, a 128-bit token in every path, a loopback `Host`; the page's
//!   requests to the server (`POST …/rpc`) must come from the host page's own origin, as JSON,
//!   and may only list and call tools and list and read resources.

use super::http::Body;
use super::{Event, report};
use anyhow::{Context as _, Result};
use bytes::Bytes;
use http::{Method, Request, Response, StatusCode, header};
use http_body_util::{BodyExt as _, Full, Limited};
use hyper::body::Incoming;
use mcp_runtime::client::{Client, ClientError, EraMode};
use mcp_runtime::protocol::apps::{APP_MIME_TYPE, UI_EXTENSION};
use serde_json::{Value, json};
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use tokio::net::TcpListener;
use tokio::sync::mpsc;

/// The host page.
const INDEX: &str = include_str!("../../../preview/index.html");
/// The host page's script: the official `AppBridge`, bundled (see the module docs).
const HOST_JS: &str = include_str!("../../../preview/dist/host.js");
/// The sandbox proxy page; `__HOST_ORIGIN__` is replaced by the host page's origin.
const SANDBOX: &str = include_str!("../../../preview/sandbox.html");

/// The methods the page may send the server.
const ALLOWED: &[&str] = &[
    "tools/list",
    "tools/call",
    "resources/list",
    "resources/templates/list",
    "resources/read",
];

/// The preview front of a dev session, bound and ready to serve.
#[derive(Debug)]
pub struct Preview {
    listener: TcpListener,
    shared: Arc<Shared>,
}

#[derive(Debug)]
struct Shared {
    client: Client,
    /// `/<token>`.
    base: String,
    port: u16,
    /// Bumped when the server tells the client its lists changed (a rebuilt server).
    generation: Arc<AtomicU64>,
}

impl Preview {
    /// Binds `address` (a loopback one) and connects a client, declaring MCP Apps, to the
    /// relay: its lines go to `events`, and the relay's lines for it come from `outbox`.
    pub async fn bind(
        address: SocketAddr,
        events: mpsc::UnboundedSender<Event>,
        mut outbox: mpsc::UnboundedReceiver<String>,
    ) -> Result<Self> {
        // The page's URL and its two origins are 127.0.0.1 and `localhost`: another
        // loopback address would serve a page nothing reaches.
        if address.ip() != std::net::IpAddr::V4(std::net::Ipv4Addr::LOCALHOST) {
            anyhow::bail!(
                "the preview serves this machine only, at 127.0.0.1 (its sandbox is served from \
                 `localhost` as another origin): --bind {address} is not it; use \
                 127.0.0.1:PORT"
            );
        }
        let listener = TcpListener::bind(address)
            .await
            .with_context(|| format!("cannot listen on {address}"))?;
        let port = listener.local_addr().context("no local address")?.port();

        let (to_server, mut lines) = mpsc::channel::<Vec<u8>>(256);
        let (deliver, from_server) = mpsc::channel::<Vec<u8>>(256);
        tokio::spawn(async move {
            while let Some(line) = lines.recv().await {
                let line = String::from_utf8_lossy(&line).into_owned();
                if events.send(Event::Client(line)).is_err() {
                    return;
                }
            }
        });
        tokio::spawn(async move {
            while let Some(line) = outbox.recv().await {
                if deliver.send(line.into_bytes()).await.is_err() {
                    return;
                }
            }
        });
        let client = Client::from_channels(to_server, from_server);
        client.declare_capabilities(
            json!({"extensions": {UI_EXTENSION: {"mimeTypes": [APP_MIME_TYPE]}}}),
        );
        let generation = Arc::new(AtomicU64::new(0));
        if let Some(mut unasked) = client.take_unrouted() {
            let generation = Arc::clone(&generation);
            tokio::spawn(async move {
                while let Some(message) = unasked.recv().await {
                    let method = message["method"].as_str().unwrap_or_default();
                    if method.ends_with("/list_changed") {
                        generation.fetch_add(1, Ordering::AcqRel);
                    }
                }
            });
        }
        Ok(Preview {
            listener,
            shared: Arc::new(Shared {
                client,
                base: format!("/{}", super::http::token()),
                port,
                generation,
            }),
        })
    }

    /// The host page's URL, for `tool` (the first tool with a view when `None`) called with
    /// `arguments`.
    pub fn url(&self, tool: Option<&str>, arguments: &Value) -> String {
        let mut query = form_urlencoded::Serializer::new(String::new());
        if let Some(tool) = tool {
            query.append_pair("tool", tool);
        }
        if arguments.as_object().is_some_and(|a| !a.is_empty()) {
            query.append_pair("args", &arguments.to_string());
        }
        let query = query.finish();
        let query = if query.is_empty() {
            String::new()
        } else {
            format!("?{query}")
        };
        format!(
            "http://127.0.0.1:{}{}/{query}",
            self.shared.port, self.shared.base
        )
    }

    /// Connects the client (its `initialize` waits in the relay for the first server) and
    /// serves the page until the session ends.
    pub async fn run(self) {
        if let Err(e) = self.shared.client.connect(EraMode::Legacy).await {
            report(format_args!(
                "the preview's client could not connect to the server: {e}"
            ));
        }
        let shared = self.shared;
        super::http::serve_connections(self.listener, move |request| {
            let shared = Arc::clone(&shared);
            async move { shared.handle(request).await }
        })
        .await;
    }
}

/// The host names the two origins are told apart by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Origin {
    /// `127.0.0.1:PORT`: the host page.
    Host,
    /// `localhost:PORT`: the sandbox proxy.
    Sandbox,
}

impl Shared {
    fn host_origin(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Which of the two origins the request's `Host` names, if either.
    fn origin_of(&self, request: &Request<Incoming>) -> Option<Origin> {
        let host = request.headers().get(header::HOST)?.to_str().ok()?;
        let port = self.port.to_string();
        match host.rsplit_once(':') {
            Some(("127.0.0.1", p)) if p == port => Some(Origin::Host),
            Some(("localhost", p)) if p == port => Some(Origin::Sandbox),
            _ => None,
        }
    }

    async fn handle(&self, request: Request<Incoming>) -> Response<Body> {
        let Some(rest) = request.uri().path().strip_prefix(&self.base) else {
            // The token is the page's to know: nothing here hints at it.
            return plain(StatusCode::NOT_FOUND, "not found");
        };
        let rest = rest.to_owned();
        let Some(origin) = self.origin_of(&request) else {
            return plain(
                StatusCode::FORBIDDEN,
                "the preview answers to 127.0.0.1 (the host page) and localhost (the sandbox) only",
            );
        };
        match (request.method(), rest.as_str(), origin) {
            (&Method::GET, "/", Origin::Host) => self.page(),
            (&Method::GET, "/host.js", Origin::Host) => {
                file("text/javascript; charset=utf-8", HOST_JS.to_owned())
            }
            (&Method::GET, "/state", Origin::Host) => json_body(
                StatusCode::OK,
                &json!({"generation": self.generation.load(Ordering::Acquire)}),
            ),
            (&Method::POST, "/rpc", Origin::Host) => self.rpc(request).await,
            (&Method::GET, "/sandbox", Origin::Sandbox) => self.sandbox(request.uri().query()),
            (_, "/" | "/host.js" | "/state" | "/rpc" | "/sandbox", _) => plain(
                StatusCode::FORBIDDEN,
                "the host page is served from 127.0.0.1 and the sandbox from localhost only",
            ),
            _ => plain(StatusCode::NOT_FOUND, "not found"),
        }
    }

    /// The host page, with a policy that lets it frame only the sandbox's origin.
    fn page(&self) -> Response<Body> {
        let mut response = file("text/html; charset=utf-8", INDEX.to_owned());
        let policy = format!(
            "default-src 'self'; style-src 'self' 'unsafe-inline'; frame-src http://localhost:{}; frame-ancestors 'none'",
            self.port
        );
        response.headers_mut().insert(
            header::CONTENT_SECURITY_POLICY,
            policy.parse().expect("a valid header value"),
        );
        response
    }

    /// The sandbox proxy, served with the view's Content Security Policy (`csp`: the view's
    /// `_meta.ui.csp` as JSON).
    fn sandbox(&self, query: Option<&str>) -> Response<Body> {
        let declared = form_urlencoded::parse(query.unwrap_or_default().as_bytes())
            .find(|(k, _)| k == "csp")
            .map(|(_, v)| v.into_owned())
            .unwrap_or_else(|| "{}".to_owned());
        let declared: Value = match serde_json::from_str(&declared) {
            Ok(v) => v,
            Err(e) => return plain(StatusCode::BAD_REQUEST, &format!("`csp` is not JSON: {e}")),
        };
        let policy = match csp(&declared) {
            Ok(policy) => policy,
            Err(problem) => return plain(StatusCode::BAD_REQUEST, &problem),
        };
        let page = SANDBOX.replace("__HOST_ORIGIN__", &self.host_origin());
        let mut response = file("text/html; charset=utf-8", page);
        match policy.parse() {
            Ok(value) => {
                response
                    .headers_mut()
                    .insert(header::CONTENT_SECURITY_POLICY, value);
                response
            }
            Err(_) => plain(
                StatusCode::BAD_REQUEST,
                "the view's CSP is not a header value",
            ),
        }
    }

    /// `POST …/rpc {method, params}` from the host page: one request to the server.
    async fn rpc(&self, request: Request<Incoming>) -> Response<Body> {
        let from_page = request
            .headers()
            .get(header::ORIGIN)
            .and_then(|o| o.to_str().ok())
            .is_some_and(|o| o == self.host_origin());
        if !from_page {
            return plain(
                StatusCode::FORBIDDEN,
                "only the preview's host page may send the server requests",
            );
        }
        if !super::http::is_json(&request) {
            return plain(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "the body must be application/json",
            );
        }
        let body = match Limited::new(request.into_body(), super::http::MAX_BODY)
            .collect()
            .await
        {
            Ok(body) => body.to_bytes(),
            Err(_) => return plain(StatusCode::PAYLOAD_TOO_LARGE, "the body is too large"),
        };
        let call: Value = match serde_json::from_slice(&body) {
            Ok(call) => call,
            Err(e) => return plain(StatusCode::BAD_REQUEST, &format!("not JSON: {e}")),
        };
        let method = call["method"].as_str().unwrap_or_default();
        if !ALLOWED.contains(&method) {
            return plain(
                StatusCode::FORBIDDEN,
                &format!("the preview does not send `{method}` to the server"),
            );
        }
        let params = call.get("params").cloned().filter(Value::is_object);
        let answer = match self.client.request(method, params).await {
            Ok(result) => json!({"result": result}),
            Err(ClientError::Protocol(error)) => json!({"error": error}),
            Err(other) => json!({"error": {"code": -32603, "message": other.to_string()}}),
        };
        json_body(StatusCode::OK, &answer)
    }
}

/// The Content Security Policy of a view from its `_meta.ui.csp` (spec 2026-01-26: no
/// network access, inline scripts and styles, `data:` images and media unless the view
/// lists origins). An origin holding anything a policy could be extended with (spaces,
/// `;`, `,`, quotes) is refused, not escaped.
pub fn csp(declared: &Value) -> Result<String, String> {
    let list = |key: &str| -> Result<Vec<String>, String> {
        let Some(value) = declared.get(key) else {
            return Ok(Vec::new());
        };
        let items = value
            .as_array()
            .ok_or_else(|| format!("`csp.{key}` is not a list of origins"))?;
        items
            .iter()
            .map(|item| {
                let origin = item
                    .as_str()
                    .ok_or_else(|| format!("`csp.{key}` holds a non-string"))?;
                let clean = !origin.is_empty()
                    && origin
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b"-._~:/*[]%".contains(&b));
                if clean {
                    Ok(origin.to_owned())
                } else {
                    Err(format!(
                        "`csp.{key}` holds {origin:?}, which is not an origin"
                    ))
                }
            })
            .collect()
    };
    let (connect, resources, frames, bases) = (
        list("connectDomains")?,
        list("resourceDomains")?,
        list("frameDomains")?,
        list("baseUriDomains")?,
    );
    let with = |fixed: &str, origins: &[String]| -> String {
        std::iter::once(fixed.to_owned())
            .chain(origins.iter().cloned())
            .collect::<Vec<_>>()
            .join(" ")
    };
    let or = |origins: &[String], none: &str| -> String {
        if origins.is_empty() {
            none.to_owned()
        } else {
            origins.join(" ")
        }
    };
    Ok([
        "default-src 'none'".to_owned(),
        format!("script-src {}", with("'self' 'unsafe-inline'", &resources)),
        format!("style-src {}", with("'self' 'unsafe-inline'", &resources)),
        format!("img-src {}", with("'self' data:", &resources)),
        format!("font-src {}", with("'self'", &resources)),
        format!("media-src {}", with("'self' data:", &resources)),
        format!("connect-src {}", or(&connect, "'none'")),
        format!("frame-src {}", or(&frames, "'none'")),
        format!("base-uri {}", or(&bases, "'self'")),
        "object-src 'none'".to_owned(),
    ]
    .join("; "))
}

fn file(content_type: &'static str, body: String) -> Response<Body> {
    let mut response = Response::new(Full::new(Bytes::from(body)).boxed());
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, content_type.parse().expect("valid"));
    headers.insert(header::CACHE_CONTROL, "no-store".parse().expect("valid"));
    headers.insert("x-content-type-options", "nosniff".parse().expect("valid"));
    response
}

fn json_body(status: StatusCode, value: &Value) -> Response<Body> {
    let mut response = file("application/json", value.to_string());
    *response.status_mut() = status;
    response
}

fn plain(status: StatusCode, text: &str) -> Response<Body> {
    let mut response = file("text/plain; charset=utf-8", format!("{text}\n"));
    *response.status_mut() = status;
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_policy_is_the_specs_restrictive_one() {
        let policy = csp(&json!({})).unwrap();
        assert!(policy.contains("default-src 'none'"), "{policy}");
        assert!(policy.contains("connect-src 'none'"), "{policy}");
        assert!(policy.contains("frame-src 'none'"), "{policy}");
        assert!(
            policy.contains("script-src 'self' 'unsafe-inline';"),
            "{policy}"
        );
    }

    #[test]
    fn declared_origins_are_added_and_anything_else_refused() {
        let policy = csp(&json!({
            "connectDomains": ["https://api.example.com"],
            "resourceDomains": ["https://*.cdn.example.com"],
        }))
        .unwrap();
        assert!(
            policy.contains("connect-src https://api.example.com;"),
            "{policy}"
        );
        assert!(
            policy.contains("img-src 'self' data: https://*.cdn.example.com;"),
            "{policy}"
        );
        for bad in [
            json!({"connectDomains": ["https://a.example; script-src *"]}),
            json!({"connectDomains": ["'unsafe-eval'"]}),
            json!({"frameDomains": "https://a.example"}),
            json!({"baseUriDomains": [7]}),
        ] {
            assert!(csp(&bad).is_err(), "{bad}");
        }
    }
}
