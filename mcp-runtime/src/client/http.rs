//! The client over Streamable HTTP: every outgoing message is one POST to the endpoint, and
//! what comes back (a JSON body, or an SSE stream of notifications and then the answer) is
//! fed to the same routing as the stdio and in-memory clients.
//!
//! The bridge reads the headers a request needs from the message itself, so [`Client`]
//! stays transport-agnostic:
//! - a request whose `params._meta` carries the modern envelope gets `MCP-Protocol-Version`,
//!   `Mcp-Method`, `Mcp-Name` and, for tools whose input schema declares `x-mcp-header`
//!   arguments (learnt from the `tools/list` results that pass through), `Mcp-Param-*`;
//! - a legacy request after `initialize` gets the negotiated `MCP-Protocol-Version` and the
//!   `Mcp-Session-Id` the server minted, if any; dropping the client DELETEs the session.
//!   Once its handshake is over, the session's standalone stream is opened (a GET), so what
//!   the server says outside any request (list changes, resource updates) reaches the
//!   client; it is reopened when it ends, and given up on a server that has none (405).
//!
//! An HTTP failure without a JSON-RPC body (403 for a foreign `Origin`, a refused connection)
//! is answered locally as a JSON-RPC error (`-32603`, `data: {"transport": "http"}`) naming
//! the status, so no request waits forever.
//! `https://` with the `client-https` feature (rustls, Mozilla's roots and `SSL_CERT_FILE`'s).
//! Connections are kept open between requests (hyper-util's pool: concurrent requests each
//! take an idle connection or open one, and a connection goes back once its answer, a body
//! or a whole SSE stream, is read), so a proxy's calls cost no TCP or TLS handshake each.

use super::dpop::{self, DpopKey};
use super::pool::{Pool, pool};
use super::sse::SseReader;
use super::{Client, ClientError};
use crate::protocol::headers::MCP_SESSION_ID;
use crate::protocol::headers::{self, MCP_METHOD, MCP_NAME, MCP_PROTOCOL_VERSION, ParamHeader};
use crate::protocol::meta::PROTOCOL_VERSION_KEY;
use crate::protocol::methods;
use ::http::header::{ACCEPT, AUTHORIZATION, CONTENT_TYPE, HOST};
use ::http::{Method, Request, Response, Uri};
use bytes::Bytes;
use http_body_util::{BodyExt as _, Full};
use hyper::body::Incoming;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use tokio::sync::mpsc;

/// The longest answer [`Client::http`] and [`Client::http_with_token`] read: 64 MiB
/// ([`Client::http_bounded`] sets another).
pub const DEFAULT_MAX_MESSAGE_BYTES: usize = 64 * 1024 * 1024;

/// What the bridge learns from the traffic it carries.
#[derive(Debug, Default)]
struct Learnt {
    /// The legacy session the server minted on `initialize`.
    session_id: Option<String>,
    /// The protocol version `initialize` negotiated.
    legacy_version: Option<String>,
    /// `x-mcp-header` arguments of each tool seen in a `tools/list` result.
    param_headers: HashMap<String, Vec<ParamHeader>>,
}

/// The endpoint and what every POST shares.
#[derive(Debug)]
struct Endpoint {
    uri: Uri,
    /// The `Host` header: the URL's authority.
    authority: String,
    /// Where requests go: host and port (the scheme's when the URL has none), for messages.
    address: String,
    /// The connections, kept open between requests.
    pool: Pool,
    /// What authenticates the client, if anything.
    credential: Credential,
    /// The longest answer (a body, or one event) read.
    max_message_bytes: usize,
    learnt: Mutex<Learnt>,
    /// The latest `DPoP-Nonce` the server gave, put in the next proofs.
    dpop_nonce: Mutex<Option<String>>,
}

/// What authenticates a client to its server.
#[derive(Debug)]
pub(crate) enum Credential {
    /// Nothing.
    None,
    /// `Bearer …`, sent with every request.
    Token(::http::HeaderValue),
    /// `DPoP …`, sent with every request beside a proof by the key it is bound to.
    Dpop(::http::HeaderValue, DpopKey),
    /// Access tokens from OAuth client credentials.
    OAuth(Box<super::oauth::Tokens>),
}

impl Client {
    /// A client of the Streamable HTTP endpoint at `url` (`http://127.0.0.1:8000/mcp`).
    ///
    /// Nothing is sent until the first request; connect with [`Client::connect`] as over
    /// any transport. Fails only on a URL that is not an absolute `http://` URL, or an
    /// `https://` one without the `client-https` feature (with it, the server's certificate
    /// is checked against Mozilla's roots and those of the file `SSL_CERT_FILE` names). Must
    /// be called inside a Tokio runtime.
    pub fn http(url: &str) -> Result<Self, ClientError> {
        Self::http_endpoint(url, Credential::None, DEFAULT_MAX_MESSAGE_BYTES)
    }

    /// Like [`Client::http`], authenticated with access tokens obtained with OAuth client
    /// `credentials` ([`ClientCredentials`](super::ClientCredentials)): asked for when the
    /// first request is sent, kept until shortly before they expire, and asked again when
    /// the server refuses one (the request is then sent once more). Fails as
    /// [`Client::http`] does, and on a token endpoint that is neither `https://` nor
    /// `http://` to this machine.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), mcp_runtime::client::ClientError> {
    /// use mcp_runtime::client::{Client, ClientCredentials};
    ///
    /// let credentials = ClientCredentials::new("http://127.0.0.1:9000/token", "gateway", "secret");
    /// let client = Client::http_with_credentials("http://127.0.0.1:8000/mcp", credentials)?;
    /// # let _ = client;
    /// # Ok(()) }
    /// ```
    pub fn http_with_credentials(
        url: &str,
        credentials: super::ClientCredentials,
    ) -> Result<Self, ClientError> {
        Self::http_bounded_with_credentials(url, credentials, DEFAULT_MAX_MESSAGE_BYTES)
    }

    /// [`Client::http_with_credentials`] with the bound on answers of
    /// [`Client::http_bounded`].
    pub fn http_bounded_with_credentials(
        url: &str,
        credentials: super::ClientCredentials,
        max_message_bytes: usize,
    ) -> Result<Self, ClientError> {
        let tokens = super::oauth::Tokens::new(credentials, url).map_err(|why| {
            ClientError::Io(std::io::Error::new(std::io::ErrorKind::InvalidInput, why))
        })?;
        Self::http_endpoint(url, Credential::OAuth(Box::new(tokens)), max_message_bytes)
    }

    /// Like [`Client::http`], sending `Authorization: Bearer {token}` with every request
    /// (an OAuth access token, or a token from the server's `--token-file`). The token is
    /// marked sensitive, so HTTP debugging output does not show it.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), mcp_runtime::client::ClientError> {
    /// use mcp_runtime::client::Client;
    ///
    /// let client = Client::http_with_token("http://127.0.0.1:8000/mcp", "a-long-random-secret")?;
    /// # let _ = client;
    /// # Ok(()) }
    /// ```
    pub fn http_with_token(url: &str, token: &str) -> Result<Self, ClientError> {
        Self::http_bounded(url, Some(token), DEFAULT_MAX_MESSAGE_BYTES)
    }

    /// Like [`Client::http`] (with a bearer `token` when given), answering a request whose
    /// answer (a JSON body, or one event of a stream) is longer than `max_message_bytes`
    /// with a local error (`-32603`, `data: {"transport": "http"}`) at that length, without
    /// holding the rest: how a proxy keeps a greedy upstream from growing its memory. The
    /// other constructors bound messages at [`DEFAULT_MAX_MESSAGE_BYTES`].
    pub fn http_bounded(
        url: &str,
        token: Option<&str>,
        max_message_bytes: usize,
    ) -> Result<Self, ClientError> {
        let Some(token) = token else {
            return Self::http_endpoint(url, Credential::None, max_message_bytes);
        };
        let mut value =
            ::http::HeaderValue::from_str(&format!("Bearer {token}")).map_err(|_| {
                ClientError::Io(std::io::Error::new(
                    std::io::ErrorKind::InvalidInput,
                    "the token has characters an HTTP header cannot carry",
                ))
            })?;
        value.set_sensitive(true);
        Self::http_endpoint(url, Credential::Token(value), max_message_bytes)
    }

    /// Like [`Client::http`], with a DPoP-bound access `token` (RFC 9449): every request
    /// carries `Authorization: DPoP {token}` and a fresh proof signed by `key`, the key the
    /// token is bound to, for that request's method and URL. A `DPoP-Nonce` the server gives
    /// goes into the following proofs, and a request refused for want of one
    /// (`use_dpop_nonce`) is sent once more with it.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use mcp_runtime::client::{Client, DpopKey};
    ///
    /// // The key the authorization server bound the token to (it saw a proof by it).
    /// let key = DpopKey::generate()?;
    /// let client = Client::http_with_dpop("http://127.0.0.1:8000/mcp", "the-token", key)?;
    /// # let _ = client;
    /// # Ok(()) }
    /// ```
    pub fn http_with_dpop(url: &str, token: &str, key: DpopKey) -> Result<Self, ClientError> {
        let mut value = ::http::HeaderValue::from_str(&format!("DPoP {token}")).map_err(|_| {
            ClientError::Io(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "the token has characters an HTTP header cannot carry",
            ))
        })?;
        value.set_sensitive(true);
        Self::http_endpoint(url, Credential::Dpop(value, key), DEFAULT_MAX_MESSAGE_BYTES)
    }

    fn http_endpoint(
        url: &str,
        credential: Credential,
        max_message_bytes: usize,
    ) -> Result<Self, ClientError> {
        let uri: Uri = url.parse().map_err(|e| {
            ClientError::Io(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!("{url:?} is not a URL: {e}"),
            ))
        })?;
        let invalid = |why: &str| {
            ClientError::Io(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!("{url:?}: {why}"),
            ))
        };
        let https = match uri.scheme_str() {
            Some("http") => false,
            Some("https") => true,
            _ => return Err(invalid("expected an http:// or https:// URL")),
        };
        let authority = uri
            .authority()
            .ok_or_else(|| invalid("the URL has no host"))?
            .as_str()
            .to_owned();
        let host = uri.host().unwrap_or_default();
        let port = uri.port_u16().unwrap_or(if https { 443 } else { 80 });
        let address = format!("{host}:{port}");
        let pool = pool(https).map_err(|why| invalid(&why))?;
        let endpoint = Arc::new(Endpoint {
            uri,
            authority,
            address,
            pool,
            credential,
            max_message_bytes,
            learnt: Mutex::default(),
            dpop_nonce: Mutex::default(),
        });
        let (to_server, mut outgoing) = mpsc::channel::<Vec<u8>>(256);
        let (incoming, from_server) = mpsc::channel::<Vec<u8>>(256);
        tokio::spawn(async move {
            while let Some(message) = outgoing.recv().await {
                let endpoint = endpoint.clone();
                let incoming = incoming.clone();
                tokio::spawn(async move { endpoint.post(message, incoming).await });
            }
            // The client is gone: end the legacy session, if there is one.
            endpoint.end_session().await;
        });
        Ok(Self::from_channels(to_server, from_server))
    }
}

impl Endpoint {
    fn learnt(&self) -> std::sync::MutexGuard<'_, Learnt> {
        self.learnt.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// POSTs one message and forwards every message of the answer. Once a legacy session's
    /// handshake is over, opens its standalone stream ([`listen`](Self::listen)).
    async fn post(self: Arc<Self>, body: Vec<u8>, incoming: mpsc::Sender<Vec<u8>>) {
        let message: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
        // Only a request waits for an answer; our answers to the server's requests (a
        // legacy session's elicitation, sampling, roots) are acknowledged with a bare 202.
        let id = message
            .get("method")
            .and_then(|_| message.get("id"))
            .cloned();
        let method = message
            .get("method")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        let body = Bytes::from(body);
        let mut sent = self.authorized_send(&message, &method, &body, None).await;
        // Refused: once more with the DPoP nonce the server asked for (kept by `send`), or
        // else with a new token instead of the refused one (OAuth client credentials).
        if let Ok((response, replaceable)) = &sent
            && response.status() == ::http::StatusCode::UNAUTHORIZED
        {
            let nonce_asked = self.asks_for_nonce(response);
            let refused = replaceable.clone().filter(|_| !nonce_asked);
            if nonce_asked || refused.is_some() {
                sent = self
                    .authorized_send(&message, &method, &body, refused.as_ref())
                    .await;
            }
        }
        let response = match sent.map(|(response, _)| response) {
            Ok(response) => response,
            Err(why) => {
                if let Some(id) = id {
                    let _ = incoming.send(local_error(&id, &why)).await;
                }
                return;
            }
        };
        if let Some(session) = response
            .headers()
            .get(MCP_SESSION_ID)
            .and_then(|v| v.to_str().ok())
        {
            self.learnt().session_id = Some(session.to_owned());
        }
        let status = response.status();
        if method == methods::INITIALIZED.name
            && status.is_success()
            && self.learnt().session_id.is_some()
        {
            tokio::spawn(Arc::clone(&self).listen(incoming.clone()));
        }
        let is_sse = response
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("text/event-stream"));
        let mut answered = false;
        let too_long = || {
            format!(
                "the server's answer is longer than this client's limit of {} bytes",
                self.max_message_bytes
            )
        };
        if is_sse {
            let mut events = SseReader::default();
            let mut body = response.into_body();
            while let Some(frame) = body.frame().await {
                let Ok(frame) = frame else { break };
                let Some(chunk) = frame.data_ref() else {
                    continue;
                };
                for data in events.push(chunk) {
                    answered |= self.forward(&method, data, &id, &incoming).await;
                }
                if events.held() > self.max_message_bytes {
                    if let Some(id) = &id
                        && !answered
                    {
                        let _ = incoming.send(local_error(id, &too_long())).await;
                    }
                    return;
                }
            }
        } else {
            let limited =
                http_body_util::Limited::new(response.into_body(), self.max_message_bytes);
            let bytes = match limited.collect().await {
                Ok(collected) => collected.to_bytes(),
                Err(e) => {
                    if let Some(id) = &id {
                        let why = if e.is::<http_body_util::LengthLimitError>() {
                            too_long()
                        } else {
                            format!("reading the answer failed: {e}")
                        };
                        let _ = incoming.send(local_error(id, &why)).await;
                    }
                    return;
                }
            };
            let is_json = serde_json::from_slice::<Value>(&bytes).is_ok_and(|v| v.is_object());
            if is_json {
                answered = self.forward(&method, bytes.to_vec(), &id, &incoming).await;
            } else if let Some(id) = &id
                && !status.is_success()
            {
                let text = String::from_utf8_lossy(&bytes);
                let why = format!("HTTP {status}: {}", text.trim());
                let _ = incoming
                    .send(local_error(id, why.trim_end_matches(": ")))
                    .await;
                answered = true;
            }
        }
        if !answered && let Some(id) = id {
            let why = format!("HTTP {status} without an answer to the request");
            let _ = incoming.send(local_error(&id, &why)).await;
        }
    }

    /// A legacy session's standalone stream (a GET, as the 2025-11-25 Streamable HTTP
    /// transport has it): what the server says outside any request (list changes, resource
    /// updates, log messages) reaches the client as it is said. Reopened after a pause
    /// (doubling from half a second to 30 s) when it ends or cannot be opened; given up
    /// when the server offers none (405), the session is gone (404), or the client is.
    async fn listen(self: Arc<Self>, incoming: mpsc::Sender<Vec<u8>>) {
        let mut pause = std::time::Duration::from_millis(500);
        let mut refused = None;
        loop {
            let (session, version) = {
                let learnt = self.learnt();
                (learnt.session_id.clone(), learnt.legacy_version.clone())
            };
            let Some(session) = session else { return };
            let mut request = Request::builder()
                .method(Method::GET)
                .uri(self.uri.clone())
                .header(HOST, &self.authority)
                .header(ACCEPT, "text/event-stream")
                .header(MCP_SESSION_ID, session);
            if let Some(version) = version {
                request = request.header(MCP_PROTOCOL_VERSION, version);
            }
            let authorization = self.authorization(refused.as_ref()).await.ok().flatten();
            request = self.authorize(request, &Method::GET, authorization.as_ref());
            let Ok(request) = request.body(Full::new(Bytes::new())) else {
                return;
            };
            let opened = tokio::select! {
                opened = self.send(request) => opened,
                () = incoming.closed() => return,
            };
            refused = None;
            match opened {
                Ok(response)
                    if response.status().is_success()
                        && response
                            .headers()
                            .get(CONTENT_TYPE)
                            .and_then(|v| v.to_str().ok())
                            .is_some_and(|v| v.starts_with("text/event-stream")) =>
                {
                    pause = std::time::Duration::from_millis(500);
                    let mut events = SseReader::default();
                    let mut body = response.into_body();
                    loop {
                        let frame = tokio::select! {
                            frame = body.frame() => frame,
                            () = incoming.closed() => return,
                        };
                        let Some(Ok(frame)) = frame else { break };
                        let Some(chunk) = frame.data_ref() else {
                            continue;
                        };
                        for data in events.push(chunk) {
                            self.forward("", data, &None, &incoming).await;
                        }
                        // An event past the bound: the stream is dropped, and opened again.
                        if events.held() > self.max_message_bytes {
                            break;
                        }
                    }
                }
                Ok(response)
                    if matches!(
                        response.status(),
                        ::http::StatusCode::METHOD_NOT_ALLOWED | ::http::StatusCode::NOT_FOUND
                    ) =>
                {
                    return;
                }
                // Refused, not for want of a DPoP nonce (that is kept now, and the same token
                // goes again): a new token next time.
                Ok(response)
                    if response.status() == ::http::StatusCode::UNAUTHORIZED
                        && !self.asks_for_nonce(&response) =>
                {
                    refused = authorization;
                }
                _ => {}
            }
            tokio::select! {
                () = tokio::time::sleep(pause) => {}
                () = incoming.closed() => return,
            }
            pause = (pause * 2).min(std::time::Duration::from_secs(30));
        }
    }

    /// Learns from one incoming message and forwards it; returns whether it answers `id`.
    async fn forward(
        &self,
        method: &str,
        data: Vec<u8>,
        id: &Option<Value>,
        incoming: &mpsc::Sender<Vec<u8>>,
    ) -> bool {
        let Ok(message) = serde_json::from_slice::<Value>(&data) else {
            let _ = incoming.send(data).await;
            return false;
        };
        let answers =
            message.get("method").is_none() && id.is_some() && message.get("id") == id.as_ref();
        if answers && let Some(result) = message.get("result") {
            self.learn(method, result);
        }
        let _ = incoming.send(data).await;
        answers
    }

    fn learn(&self, method: &str, result: &Value) {
        match method {
            m if m == methods::INITIALIZE.name => {
                if let Some(version) = result.get("protocolVersion").and_then(Value::as_str) {
                    self.learnt().legacy_version = Some(version.to_owned());
                }
            }
            m if m == methods::TOOLS_LIST.name => {
                let Some(tools) = result.get("tools").and_then(Value::as_array) else {
                    return;
                };
                let mut learnt = self.learnt();
                for tool in tools {
                    let (Some(name), Some(schema)) = (
                        tool.get("name").and_then(Value::as_str),
                        tool.get("inputSchema").and_then(Value::as_object),
                    ) else {
                        continue;
                    };
                    if let Ok(declared) = headers::scan(schema)
                        && !declared.is_empty()
                    {
                        learnt.param_headers.insert(name.to_owned(), declared);
                    }
                }
            }
            _ => {}
        }
    }

    /// The `Authorization` header of the next request, if any: a new access token instead
    /// of `refused`.
    async fn authorization(
        &self,
        refused: Option<&::http::HeaderValue>,
    ) -> Result<Option<::http::HeaderValue>, String> {
        match &self.credential {
            Credential::None => Ok(None),
            Credential::Token(header) | Credential::Dpop(header, _) => Ok(Some(header.clone())),
            Credential::OAuth(tokens) => tokens.authorization(&self.pool, refused).await.map(Some),
        }
    }

    /// The key the client's tokens are bound to, if they are (DPoP).
    fn dpop_key(&self) -> Option<&DpopKey> {
        match &self.credential {
            Credential::Dpop(_, key) => Some(key),
            Credential::OAuth(tokens) => tokens.dpop_key(),
            Credential::None | Credential::Token(_) => None,
        }
    }

    /// `builder` with `authorization`, and, for a DPoP-bound token (`DPoP …`), a proof of
    /// its key for this request.
    fn authorize(
        &self,
        mut builder: ::http::request::Builder,
        method: &Method,
        authorization: Option<&::http::HeaderValue>,
    ) -> ::http::request::Builder {
        let Some(authorization) = authorization else {
            return builder;
        };
        builder = builder.header(AUTHORIZATION, authorization.clone());
        let token = authorization
            .to_str()
            .ok()
            .and_then(|value| value.strip_prefix("DPoP "));
        if let (Some(key), Some(token)) = (self.dpop_key(), token) {
            let nonce = self.dpop_nonce();
            let proof = key.proof(
                method.as_str(),
                &self.uri.to_string(),
                Some(token),
                nonce.as_deref(),
            );
            builder = builder.header(dpop::DPOP, proof);
        }
        builder
    }

    fn dpop_nonce(&self) -> Option<String> {
        self.dpop_nonce
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Whether a 401 asks for a DPoP nonce (RFC 9449 §9) that the server gave and this
    /// client can send: worth one more try.
    fn asks_for_nonce(&self, response: &Response<Incoming>) -> bool {
        self.dpop_key().is_some()
            && response.headers().contains_key(dpop::DPOP_NONCE)
            && dpop::asks_for_nonce(
                response
                    .headers()
                    .get(::http::header::WWW_AUTHENTICATE)
                    .and_then(|v| v.to_str().ok()),
            )
    }

    /// POSTs one message with the client's credential; the response, and the access token
    /// it was sent with when that token may be replaced (OAuth).
    async fn authorized_send(
        &self,
        message: &Value,
        method: &str,
        body: &Bytes,
        refused: Option<&::http::HeaderValue>,
    ) -> Result<(Response<Incoming>, Option<::http::HeaderValue>), String> {
        let authorization = self.authorization(refused).await?;
        let request = self
            .request(message, method, body.clone(), authorization.as_ref())
            .map_err(|e| format!("cannot build the HTTP request: {e}"))?;
        let response = self.send(request).await?;
        let replaceable = match self.credential {
            Credential::OAuth(_) => authorization,
            Credential::None | Credential::Token(_) | Credential::Dpop(..) => None,
        };
        Ok((response, replaceable))
    }

    /// The POST for one message, with the headers its era asks for.
    fn request(
        &self,
        message: &Value,
        method: &str,
        body: Bytes,
        authorization: Option<&::http::HeaderValue>,
    ) -> Result<Request<Full<Bytes>>, ::http::Error> {
        let mut builder = Request::builder()
            .method(Method::POST)
            .uri(self.uri.clone())
            .header(HOST, &self.authority)
            .header(CONTENT_TYPE, "application/json")
            .header(ACCEPT, "application/json, text/event-stream");
        builder = self.authorize(builder, &Method::POST, authorization);
        let params = message.get("params");
        let modern_version = params
            .and_then(|p| p.get("_meta"))
            .and_then(|m| m.get(PROTOCOL_VERSION_KEY))
            .and_then(Value::as_str);
        let learnt = self.learnt();
        if let Some(version) = modern_version {
            builder = builder
                .header(MCP_PROTOCOL_VERSION, version)
                .header(MCP_METHOD, method);
            if let Some(field) = headers::name_field(method)
                && let Some(name) = params.and_then(|p| p.get(field)).and_then(Value::as_str)
            {
                builder = builder.header(MCP_NAME, headers::encode_value(name).as_ref());
                let arguments = params
                    .and_then(|p| p.get("arguments"))
                    .and_then(Value::as_object);
                if let (Some(declared), Some(arguments)) =
                    (learnt.param_headers.get(name), arguments)
                {
                    for param in declared {
                        if let Some(value) = param.value_in(arguments) {
                            let text = match value {
                                Value::String(s) => s.clone(),
                                other => other.to_string(),
                            };
                            builder = builder
                                .header(param.header_name(), headers::encode_value(&text).as_ref());
                        }
                    }
                }
            }
        } else if method != methods::INITIALIZE.name {
            if let Some(version) = &learnt.legacy_version {
                builder = builder.header(MCP_PROTOCOL_VERSION, version);
            }
            if let Some(session) = &learnt.session_id {
                builder = builder.header(MCP_SESSION_ID, session);
            }
        }
        drop(learnt);
        builder.body(Full::new(body))
    }

    /// DELETEs the legacy session, best effort.
    async fn end_session(&self) {
        let Some(session) = self.learnt().session_id.take() else {
            return;
        };
        let mut request = Request::builder()
            .method(Method::DELETE)
            .uri(self.uri.clone())
            .header(HOST, &self.authority)
            .header(MCP_SESSION_ID, session);
        if let Ok(authorization) = self.authorization(None).await {
            request = self.authorize(request, &Method::DELETE, authorization.as_ref());
        }
        let request = request.body(Full::new(Bytes::new()));
        if let Ok(request) = request {
            let _ = self.send(request).await;
        }
    }
}

impl Endpoint {
    /// Sends one request on an idle connection, or a new one; keeps the answer's
    /// `DPoP-Nonce` for the next proofs.
    async fn send(&self, request: Request<Full<Bytes>>) -> Result<Response<Incoming>, String> {
        let response = self.pool.request(request).await.map_err(|e| {
            // The pool's error says only what kind of failure it was; the cause is below.
            let mut why = String::new();
            let mut source = std::error::Error::source(&e);
            while let Some(cause) = source {
                why = cause.to_string();
                source = cause.source();
            }
            if e.is_connect() {
                format!("cannot connect to {}: {why}", self.address)
            } else {
                format!("the request to {} failed: {e}: {why}", self.address)
            }
        })?;
        if let Some(nonce) = response.headers().get(dpop::DPOP_NONCE)
            && self.dpop_key().is_some()
            && let Ok(nonce) = nonce.to_str()
        {
            *self.dpop_nonce.lock().unwrap_or_else(|e| e.into_inner()) = Some(nonce.to_owned());
        }
        Ok(response)
    }
}

/// A JSON-RPC error answering `id`, made here because the server sent none.
fn local_error(id: &Value, why: &str) -> Vec<u8> {
    let message = json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {"code": -32603, "message": why, "data": {"transport": "http"}},
    });
    serde_json::to_vec(&message).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_http_urls_are_accepted() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async {
            // `https://` needs the `client-https` feature.
            assert_eq!(
                Client::http("https://example.com/mcp").is_ok(),
                cfg!(feature = "client-https")
            );
            assert!(Client::http("not a url").is_err());
            assert!(Client::http("http://127.0.0.1:9/mcp").is_ok());
        });
    }
}
