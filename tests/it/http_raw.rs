//! Raw Streamable HTTP: the header cross-checks and status codes of modern requests
//! (spec `dual-era.md` §3.2, §3.3), content negotiation, and the classification by body.

use http::{Method, StatusCode};
use mcp_runtime::transport::http::HttpOptions;
use mcp_tests::http::{
    self as t, ACCEPT_BOTH, LEGACY, MODERN, Spawned, envelope, fixture, legacy, modern, post,
    post_modern, serve,
};
use serde_json::{Value, json};

/// `headers` of a correct modern request with `name` replaced (`None`: removed).
fn with_header(
    headers: &[(&'static str, String)],
    name: &'static str,
    value: Option<&str>,
) -> Vec<(&'static str, String)> {
    let mut out: Vec<_> = headers
        .iter()
        .filter(|(k, _)| *k != name)
        .cloned()
        .collect();
    if let Some(v) = value {
        out.push((name, v.to_owned()));
    }
    out
}

async fn post_with(url: &str, message: &Value, headers: &[(&'static str, String)]) -> t::Reply {
    let headers: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
    post(url, &headers, message).await
}

fn assert_status(reply: &t::Reply, status: StatusCode, code: i64) {
    assert_eq!(reply.status, status, "{}", reply.text());
    assert_eq!(reply.media_type(), "application/json", "{}", reply.text());
    assert_eq!(reply.error_code(), code, "{}", reply.text());
}

#[tokio::test]
async fn echo_server_serves_a_modern_call_as_json_without_a_session() {
    let server = Spawned::start("echo-server", &[]);
    assert!(
        server.url.ends_with("/mcp") && server.url.starts_with("http://127.0.0.1:"),
        "{}",
        server.url
    );
    let reply = post_modern(
        &server.url,
        1,
        "tools/call",
        json!({"name": "add", "arguments": {"a": 2, "b": 3}}),
    )
    .await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
    assert_eq!(reply.media_type(), "application/json");
    assert!(
        reply.header("mcp-session-id").is_none(),
        "modern traffic never gets a session"
    );
    let answer = reply.json();
    assert_eq!(answer["id"], 1);
    assert_eq!(answer["result"]["content"][0]["text"], "5");
    assert_eq!(answer["result"]["resultType"], "complete");
    assert_eq!(
        answer["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "echo-server"
    );

    // Discover and list, with an Mcp-Session-Id and Last-Event-ID that must be ignored.
    let (message, headers) = modern(2, "server/discover", json!({}));
    let mut headers = headers;
    headers.push(("mcp-session-id", "made-up".to_owned()));
    headers.push(("last-event-id", "7".to_owned()));
    let reply = post_with(&server.url, &message, &headers).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
    assert_eq!(reply.json()["result"]["supportedVersions"], json!([MODERN]));
    assert!(reply.header("mcp-session-id").is_none());
}

#[tokio::test]
async fn standard_headers_must_be_present_and_agree_with_the_body() {
    let (server, _) = fixture();
    let s = serve(server, HttpOptions::default()).await;
    let (message, good) = modern(
        1,
        "tools/call",
        json!({"name": "echo", "arguments": {"text": "hi"}}),
    );
    let reply = post_with(&s.url, &message, &good).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());

    let cases: Vec<(&str, Vec<(&'static str, String)>)> = vec![
        (
            "no MCP-Protocol-Version",
            with_header(&good, "mcp-protocol-version", None),
        ),
        (
            "MCP-Protocol-Version differs from _meta",
            with_header(&good, "mcp-protocol-version", Some("2025-11-25")),
        ),
        ("no Mcp-Method", with_header(&good, "mcp-method", None)),
        (
            "Mcp-Method differs from method",
            with_header(&good, "mcp-method", Some("tools/list")),
        ),
        (
            "no Mcp-Name on tools/call",
            with_header(&good, "mcp-name", None),
        ),
        (
            "Mcp-Name differs from params.name",
            with_header(&good, "mcp-name", Some("add")),
        ),
        (
            "Mcp-Name differs in case",
            with_header(&good, "mcp-name", Some("Echo")),
        ),
        (
            "Mcp-Name with a broken base64 sentinel",
            with_header(&good, "mcp-name", Some("=?base64?***?=")),
        ),
    ];
    for (what, headers) in cases {
        let reply = post_with(&s.url, &message, &headers).await;
        assert_eq!(
            reply.status,
            StatusCode::BAD_REQUEST,
            "{what}: {}",
            reply.text()
        );
        assert_eq!(reply.error_code(), -32020, "{what}: {}", reply.text());
        assert_eq!(
            reply.answer()["id"],
            1,
            "{what}: the error names the request"
        );
    }

    // A routing header sent twice is a mismatch too.
    let mut twice = good.clone();
    twice.push(("mcp-method", "tools/call".to_owned()));
    assert_status(
        &post_with(&s.url, &message, &twice).await,
        StatusCode::BAD_REQUEST,
        -32020,
    );

    // Header names are case-insensitive; the =?base64?…?= form of Mcp-Name is decoded.
    let mut shouted: Vec<(&'static str, String)> = Vec::new();
    for (k, v) in &good {
        let k: &'static str = match *k {
            "mcp-protocol-version" => "MCP-PROTOCOL-VERSION",
            "mcp-method" => "Mcp-Method",
            _ => "MCP-NAME",
        };
        shouted.push((k, v.clone()));
    }
    assert_eq!(
        post_with(&s.url, &message, &shouted).await.status,
        StatusCode::OK
    );
    let encoded = with_header(&good, "mcp-name", Some("=?base64?ZWNobw==?="));
    let reply = post_with(&s.url, &message, &encoded).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
    assert_eq!(reply.json()["result"]["content"][0]["text"], "hi");
}

#[tokio::test]
async fn mcp_param_headers_mirror_the_annotated_arguments() {
    let (server, _) = fixture();
    let s = serve(server, HttpOptions::default()).await;
    // The annotation is served as declared, so clients know what to mirror.
    let list = post_modern(&s.url, 1, "tools/list", json!({})).await.json();
    let route = list["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "route")
        .unwrap()
        .clone();
    assert_eq!(
        route["inputSchema"]["properties"]["region"]["x-mcp-header"],
        "Region"
    );

    let call = |arguments: Value| {
        modern(
            2,
            "tools/call",
            json!({"name": "route", "arguments": arguments}),
        )
    };
    let params = |pairs: &[(&'static str, &str)], base: &[(&'static str, String)]| {
        let mut h = base.to_vec();
        h.extend(pairs.iter().map(|(k, v)| (*k, (*v).to_owned())));
        h
    };

    let (message, base) = call(json!({"region": "eu-west", "zone": 42, "dry": true}));
    let ok = params(
        &[
            ("mcp-param-region", "eu-west"),
            ("mcp-param-zone", "42"),
            ("mcp-param-dry-run", "true"),
        ],
        &base,
    );
    let reply = post_with(&s.url, &message, &ok).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
    assert_eq!(
        reply.json()["result"]["content"][0]["text"],
        "routed to eu-west"
    );

    // Integers compare numerically; names are case-insensitive.
    let numeric = params(
        &[
            ("Mcp-Param-REGION", "eu-west"),
            ("mcp-param-zone", "42.0"),
            ("mcp-param-dry-run", "true"),
        ],
        &base,
    );
    assert_eq!(
        post_with(&s.url, &message, &numeric).await.status,
        StatusCode::OK
    );

    // A value that is not plain ASCII travels base64-encoded.
    let (message, base) = call(json!({"region": "Zürich"}));
    let encoded = params(&[("mcp-param-region", "=?base64?WsO8cmljaA==?=")], &base);
    let reply = post_with(&s.url, &message, &encoded).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
    assert_eq!(
        reply.json()["result"]["content"][0]["text"],
        "routed to Zürich"
    );

    let (message, base) = call(json!({"region": "eu-west", "zone": 42}));
    let bad: Vec<(&str, Vec<(&'static str, String)>)> = vec![
        (
            "a mirrored argument without its header",
            params(&[("mcp-param-region", "eu-west")], &base),
        ),
        (
            "a header that disagrees",
            params(
                &[("mcp-param-region", "us-east"), ("mcp-param-zone", "42")],
                &base,
            ),
        ),
        (
            "an integer that disagrees",
            params(
                &[("mcp-param-region", "eu-west"), ("mcp-param-zone", "43")],
                &base,
            ),
        ),
        (
            "a header for an absent argument",
            params(
                &[
                    ("mcp-param-region", "eu-west"),
                    ("mcp-param-zone", "42"),
                    ("mcp-param-dry-run", "false"),
                ],
                &base,
            ),
        ),
        (
            "a malformed sentinel",
            params(
                &[
                    ("mcp-param-region", "=?base64?@@?="),
                    ("mcp-param-zone", "42"),
                ],
                &base,
            ),
        ),
        (
            "a header sent twice",
            params(
                &[
                    ("mcp-param-region", "eu-west"),
                    ("mcp-param-region", "eu-west"),
                    ("mcp-param-zone", "42"),
                ],
                &base,
            ),
        ),
    ];
    for (what, headers) in bad {
        let reply = post_with(&s.url, &message, &headers).await;
        assert_eq!(
            reply.status,
            StatusCode::BAD_REQUEST,
            "{what}: {}",
            reply.text()
        );
        assert_eq!(reply.error_code(), -32020, "{what}");
    }

    // Raw non-ASCII bytes in a recognised header are refused (they must be base64-encoded).
    let (message, base) = call(json!({"region": "Zürich"}));
    let mut headers: Vec<(&str, &str)> = base.iter().map(|(k, v)| (*k, v.as_str())).collect();
    headers.push(("content-type", "application/json"));
    headers.push(("accept", ACCEPT_BOTH));
    let mut request = http::Request::builder().method(Method::POST).uri(&s.url);
    for (k, v) in &headers {
        request = request.header(*k, *v);
    }
    request = request.header(
        "mcp-param-region",
        http::HeaderValue::from_bytes("Zürich".as_bytes()).unwrap(),
    );
    let raw = raw_send(request.body(message.to_string()).unwrap()).await;
    assert_eq!(raw.0, StatusCode::BAD_REQUEST, "{}", raw.1);
    assert!(raw.1.contains("-32020"), "{}", raw.1);
}

/// Sends a request built by hand (for header bytes the helpers cannot express).
async fn raw_send(request: http::Request<String>) -> (StatusCode, String) {
    use http_body_util::BodyExt as _;
    let uri = request.uri().clone();
    let addr = format!("{}:{}", uri.host().unwrap(), uri.port_u16().unwrap());
    let stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let (mut sender, conn) =
        hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(stream))
            .await
            .unwrap();
    tokio::spawn(conn);
    let (parts, body) = request.into_parts();
    let request =
        http::Request::from_parts(parts, http_body_util::Full::new(bytes::Bytes::from(body)));
    let response = sender.send_request(request).await.unwrap();
    let status = response.status();
    let body = response.into_body().collect().await.unwrap().to_bytes();
    (status, String::from_utf8_lossy(&body).into_owned())
}

#[tokio::test]
async fn modern_errors_carry_the_spec_statuses() {
    let (server, _) = fixture();
    let s = serve(server, HttpOptions::default()).await;

    // Unsupported version in the envelope: 400 -32022 naming the supported versions.
    let mut unsupported = envelope();
    unsupported["io.modelcontextprotocol/protocolVersion"] = json!("2099-01-01");
    let message = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": unsupported}});
    let reply = post(
        &s.url,
        &[
            ("mcp-protocol-version", "2099-01-01"),
            ("mcp-method", "tools/list"),
        ],
        &message,
    )
    .await;
    assert_status(&reply, StatusCode::BAD_REQUEST, -32022);
    assert_eq!(
        reply.answer()["error"]["data"]["supported"],
        json!([MODERN])
    );
    assert_eq!(reply.answer()["error"]["data"]["requested"], "2099-01-01");

    // An envelope that lost a required field: 400 -32602.
    let message = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list",
        "params": {"_meta": {"io.modelcontextprotocol/protocolVersion": MODERN}}});
    let reply = post(
        &s.url,
        &[
            ("mcp-protocol-version", MODERN),
            ("mcp-method", "tools/list"),
        ],
        &message,
    )
    .await;
    assert_status(&reply, StatusCode::BAD_REQUEST, -32602);

    // server/discover without any envelope: 400 -32602.
    let reply = post(&s.url, &[], &legacy(3, "server/discover", json!({}))).await;
    assert_status(&reply, StatusCode::BAD_REQUEST, -32602);

    // Unknown method, and methods the modern leg does not have: 404 -32601.
    for method in [
        "resources/subscribe",
        "ping",
        "logging/setLevel",
        "no/such/method",
    ] {
        let reply = post_modern(&s.url, 4, method, json!({})).await;
        assert_status(&reply, StatusCode::NOT_FOUND, -32601);
    }

    // An unknown tool stays in-band (HTTP 200), as in the official TypeScript SDK.
    let reply = post_modern(
        &s.url,
        5,
        "tools/call",
        json!({"name": "nope", "arguments": {}}),
    )
    .await;
    assert_status(&reply, StatusCode::OK, -32602);

    // Bad arguments are a tool result with isError, not a protocol error.
    let reply = post_modern(
        &s.url,
        6,
        "tools/call",
        json!({"name": "add", "arguments": {"a": "x", "b": 1}}),
    )
    .await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(reply.json()["result"]["isError"], true);
}

/// The conformance suite's probe 9 (0.2.0-alpha.12): the header names a supported version,
/// the body an unsupported one. The mismatch is decided before the version gate: 400
/// -32020, not -32022. The same version in both places is still -32022.
#[tokio::test]
async fn a_header_that_disagrees_with_an_unsupported_body_version_is_a_mismatch() {
    let (server, _) = fixture();
    let s = serve(server, HttpOptions::default()).await;
    for (header, code) in [(MODERN, -32020), ("v999.0.0", -32022)] {
        let mut meta = envelope();
        meta["io.modelcontextprotocol/protocolVersion"] = json!("v999.0.0");
        let message = json!({"jsonrpc": "2.0", "id": 302, "method": "server/discover",
            "params": {"_meta": meta}});
        let reply = post(
            &s.url,
            &[
                ("mcp-protocol-version", header),
                ("mcp-method", "server/discover"),
            ],
            &message,
        )
        .await;
        assert_status(&reply, StatusCode::BAD_REQUEST, code);
        assert_eq!(reply.answer()["id"], 302);
    }
}

/// The conformance suite's probe 11: `initialize` with the modern envelope and headers is a
/// method 2026-07-28 does not have (404 -32601), while the claimless legacy handshake, with
/// or without a legacy `MCP-Protocol-Version`, still works.
#[tokio::test]
async fn an_enveloped_initialize_is_an_unknown_modern_method() {
    let (server, _) = fixture();
    let s = serve(server, HttpOptions::default()).await;
    let reply = post_modern(&s.url, 500, "initialize", json!({})).await;
    assert_status(&reply, StatusCode::NOT_FOUND, -32601);
    assert_eq!(reply.answer()["id"], 500);
    // A broken envelope on it is still the envelope's error.
    let message = json!({"jsonrpc": "2.0", "id": 501, "method": "initialize",
        "params": {"_meta": {"io.modelcontextprotocol/protocolVersion": MODERN}}});
    let reply = post(
        &s.url,
        &[
            ("mcp-protocol-version", MODERN),
            ("mcp-method", "initialize"),
        ],
        &message,
    )
    .await;
    assert_status(&reply, StatusCode::BAD_REQUEST, -32602);

    let handshake = legacy(
        502,
        "initialize",
        json!({"protocolVersion": LEGACY, "capabilities": {},
            "clientInfo": {"name": "conformance-dns-rebinding-test", "version": "1.0.0"}}),
    );
    for headers in [
        vec![],
        vec![
            ("mcp-protocol-version", LEGACY),
            ("mcp-method", "initialize"),
        ],
    ] {
        let reply = post(&s.url, &headers, &handshake).await;
        assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
        assert_eq!(reply.answer()["result"]["protocolVersion"], LEGACY);
    }
}

#[tokio::test]
async fn undecodable_bodies_get_400_and_notifications_202() {
    let (server, _) = fixture();
    let s = serve(server, HttpOptions::default()).await;
    let send = |body: &'static str| {
        let url = s.url.clone();
        async move {
            t::send(
                Method::POST,
                &url,
                &[
                    ("content-type", "application/json"),
                    ("accept", ACCEPT_BOTH),
                ],
                body,
            )
            .await
        }
    };
    let reply = send("{not json").await;
    assert_status(&reply, StatusCode::BAD_REQUEST, -32700);
    assert!(reply.answer()["id"].is_null());
    let reply = send(r#"[{"jsonrpc":"2.0","id":1,"method":"tools/list"}]"#).await;
    assert_status(&reply, StatusCode::BAD_REQUEST, -32600);
    let reply = send(r#"{"jsonrpc":"1.0","id":9,"method":"tools/list"}"#).await;
    assert_status(&reply, StatusCode::BAD_REQUEST, -32600);
    assert_eq!(reply.answer()["id"], 9);

    // Notifications (modern or legacy, with or without headers) and responses: 202, no body.
    for body in [
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#,
        r#"{"jsonrpc":"2.0","id":"x","result":{}}"#,
    ] {
        let reply = send(body).await;
        assert_eq!(reply.status, StatusCode::ACCEPTED, "{body}");
        assert!(reply.body.is_empty(), "{body}: {}", reply.text());
    }
}

#[tokio::test]
async fn content_type_accept_and_method_are_checked() {
    let (server, _) = fixture();
    let s = serve(server, HttpOptions::default()).await;
    let (message, headers) = modern(
        1,
        "tools/call",
        json!({"name": "echo", "arguments": {"text": "a"}}),
    );
    let base: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let with = |extra: &[(&'static str, &'static str)]| {
        let mut h = base.clone();
        h.extend_from_slice(extra);
        h
    };
    let body = message.to_string();

    let reply = t::send(
        Method::POST,
        &s.url,
        &with(&[("content-type", "text/plain"), ("accept", ACCEPT_BOTH)]),
        body.clone(),
    )
    .await;
    assert_eq!(
        reply.status,
        StatusCode::UNSUPPORTED_MEDIA_TYPE,
        "{}",
        reply.text()
    );
    let reply = t::send(
        Method::POST,
        &s.url,
        &with(&[("accept", ACCEPT_BOTH)]),
        body.clone(),
    )
    .await;
    assert_eq!(
        reply.status,
        StatusCode::UNSUPPORTED_MEDIA_TYPE,
        "no Content-Type"
    );
    let reply = t::send(
        Method::POST,
        &s.url,
        &with(&[
            ("content-type", "application/json"),
            ("accept", "text/html"),
        ]),
        body.clone(),
    )
    .await;
    assert_eq!(reply.status, StatusCode::NOT_ACCEPTABLE, "{}", reply.text());

    // JSON only: a JSON answer. SSE only: the answer as a one-event stream.
    let reply = t::send(
        Method::POST,
        &s.url,
        &with(&[
            ("content-type", "application/json; charset=utf-8"),
            ("accept", "application/json"),
        ]),
        body.clone(),
    )
    .await;
    assert_eq!(
        (reply.status, reply.media_type()),
        (StatusCode::OK, "application/json")
    );
    let reply = t::send(
        Method::POST,
        &s.url,
        &with(&[
            ("content-type", "application/json"),
            ("accept", "text/event-stream"),
        ]),
        body.clone(),
    )
    .await;
    assert_eq!(
        (reply.status, reply.media_type()),
        (StatusCode::OK, "text/event-stream")
    );
    assert_eq!(reply.header("x-accel-buffering"), Some("no"));
    assert_eq!(reply.messages().len(), 1);
    assert_eq!(reply.answer()["result"]["content"][0]["text"], "a");

    // subscriptions/listen answers with a stream, so it needs SSE.
    let (listen, headers) = modern(
        2,
        "subscriptions/listen",
        json!({"notifications": {"toolsListChanged": true}}),
    );
    let mut h: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
    h.push(("content-type", "application/json"));
    h.push(("accept", "application/json"));
    let reply = t::send(Method::POST, &s.url, &h, listen.to_string()).await;
    assert_eq!(reply.status, StatusCode::NOT_ACCEPTABLE);

    // Methods other than POST, GET and DELETE: 405 with Allow.
    for method in [Method::PUT, Method::PATCH, Method::OPTIONS] {
        let reply = t::send(method.clone(), &s.url, &[], "").await;
        assert_eq!(reply.status, StatusCode::METHOD_NOT_ALLOWED, "{method}");
        assert_eq!(reply.header("allow"), Some("POST, GET, DELETE"));
    }
    // Other paths are not the endpoint.
    let elsewhere = s.url.replace("/mcp", "/other");
    assert_eq!(
        post_modern(&elsewhere, 1, "tools/list", json!({}))
            .await
            .status,
        StatusCode::NOT_FOUND
    );
}

#[tokio::test]
async fn the_body_decides_the_era_not_the_headers() {
    let (server, _) = fixture();
    let s = serve(server, HttpOptions::default()).await;
    // A modern body is served as modern (era fields on the result)...
    let reply = post_modern(&s.url, 1, "tools/list", json!({})).await;
    assert_eq!(reply.json()["result"]["resultType"], "complete");
    // ...and `initialize` with a modern version header is a mismatch with its legacy body.
    let reply = post(
        &s.url,
        &[("mcp-protocol-version", MODERN)],
        &t::initialize(2),
    )
    .await;
    assert_status(&reply, StatusCode::BAD_REQUEST, -32020);
    assert!(reply.header("mcp-session-id").is_none());
    // `initialize` is answered with a legacy version even when it asks for 2026-07-28.
    let mut init = t::initialize(3);
    init["params"]["protocolVersion"] = json!(MODERN);
    let reply = post(&s.url, &[], &init).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
    assert_eq!(reply.json()["result"]["protocolVersion"], LEGACY);
}
