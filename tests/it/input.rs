//! Asking the client (`mcp_runtime::input`) through the dispatcher, on the wire: legacy
//! server-to-client requests and their answers, modern input-required rounds with signed
//! `requestState` (tampered, replayed, foreign), capabilities, and log messages in both eras.

use mcp_runtime::input::{Elicitation, InputError};
use mcp_runtime::prelude::*;
use mcp_runtime::protocol::{CreateMessageParams, LoggingLevel, ToolDefinition};
use mcp_runtime::server::Connection;
use mcp_runtime::tool::tool_fn;
use mcp_runtime::transport::Peer;
use serde_json::{Value, json};
use std::time::Duration;
use tokio::sync::mpsc;

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Name {
    /// Your name
    name: String,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Color {
    color: String,
}

fn def(name: &str) -> ToolDefinition {
    ToolDefinition::new(
        name,
        "A tool that asks.",
        json!({"type": "object", "properties": {}}),
    )
}

fn server() -> Server {
    server_answered_within(Duration::from_secs(30))
}

/// The test server, whose questions go unanswered after `timeout`: short only where a test
/// waits for that to happen, so that an answering test never races it on a loaded machine.
fn server_answered_within(timeout: Duration) -> Server {
    Server::builder("input-test", "1.0.0")
        .input_timeout(timeout)
        .concurrency_limit(1, Duration::from_secs(5))
        .tool(tool_fn(def("greet"), |_, cx: RequestContext| async move {
            match cx.elicit::<Name>("Who are you?").key("user_name").await? {
                Elicitation::Accepted(n) => Ok::<_, InputError>(format!("Hello, {}!", n.name)),
                other => Ok(format!("no name: {:?}", other.action())),
            }
        }))
        .tool(tool_fn(
            def("two_rounds"),
            |_, cx: RequestContext| async move {
                let name = cx.elicit::<Name>("Name?").await?.accepted().map(|n| n.name);
                let color = cx
                    .elicit::<Color>("Color?")
                    .await?
                    .accepted()
                    .map(|c| c.color);
                Ok::<_, InputError>(format!("{name:?} likes {color:?}"))
            },
        ))
        .tool(tool_fn(
            def("all_at_once"),
            |_, cx: RequestContext| async move {
                let (name, answer, roots) = futures::join!(
                    cx.elicit::<Name>("Name?").key("name"),
                    cx.sample(CreateMessageParams::new(10).user("Capital of France?"))
                        .key("capital"),
                    cx.roots().key("roots"),
                );
                let name = name?.accepted().map(|n| n.name).unwrap_or_default();
                let capital = answer?.text().unwrap_or_default();
                Ok::<_, InputError>(format!("{name}/{capital}/{}", roots?.len()))
            },
        ))
        .tool(tool_fn(
            def("needs_sampling"),
            |_, cx: RequestContext| async move {
                let answer = cx.sample(CreateMessageParams::new(10).user("hi")).await?;
                Ok::<_, InputError>(answer.text().unwrap_or_default())
            },
        ))
        .tool(tool_fn(
            def("prefers_elicitation"),
            |_, cx: RequestContext| async move {
                // Falls back to sampling when the client cannot be asked a form.
                match cx.elicit::<Name>("Name?").await {
                    Ok(e) => Ok::<_, InputError>(format!("{:?}", e.action())),
                    Err(InputError::MissingCapability { .. }) => {
                        let answer = cx
                            .sample(CreateMessageParams::new(10).user("A name?"))
                            .await?;
                        Ok(answer.text().unwrap_or_default())
                    }
                    Err(e) => Err(e),
                }
            },
        ))
        .tool(tool_fn(def("logs"), |_, cx: RequestContext| async move {
            cx.log(LoggingLevel::Debug, "debug detail").await;
            cx.log(LoggingLevel::Warning, json!({"disk": "almost full"}))
                .await;
            "logged"
        }))
        .build()
        .unwrap()
}

/// One connection driven line by line, its output read back as JSON.
struct Wire {
    conn: Connection,
    rx: mpsc::Receiver<Vec<u8>>,
    next_id: i64,
}

impl Wire {
    fn new(server: &Server) -> Self {
        let (tx, rx) = mpsc::channel(64);
        Self {
            conn: server.connect(Peer::new(tx)),
            rx,
            next_id: 100,
        }
    }

    async fn send(&self, message: Value) {
        self.conn.handle_line(message.to_string().as_bytes()).await;
    }

    async fn recv(&mut self) -> Value {
        let line = tokio::time::timeout(Duration::from_secs(10), self.rx.recv())
            .await
            .expect("a message in time")
            .expect("open");
        serde_json::from_slice(&line).expect("JSON")
    }

    /// Sends a request and returns the messages up to and including its answer.
    async fn request(&mut self, method: &str, params: Value) -> (Vec<Value>, Value) {
        self.next_id += 1;
        let id = self.next_id;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        let mut before = Vec::new();
        loop {
            let m = self.recv().await;
            if m["id"] == id && m.get("method").is_none() {
                return (before, m);
            }
            before.push(m);
        }
    }

    async fn initialize(&mut self, capabilities: Value) {
        let (_, init) = self
            .request(
                "initialize",
                json!({"protocolVersion": "2025-11-25", "capabilities": capabilities,
                       "clientInfo": {"name": "t", "version": "1"}}),
            )
            .await;
        assert!(
            init["result"]["capabilities"]["logging"].is_object(),
            "{init}"
        );
        self.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
    }
}

fn modern_meta(capabilities: Value) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": capabilities,
    })
}

fn all_capabilities() -> Value {
    json!({"elicitation": {}, "sampling": {}, "roots": {"listChanged": true}})
}

fn text(answer: &Value) -> &str {
    answer["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
}

#[tokio::test]
async fn a_legacy_tool_asks_its_client_and_resumes_with_the_answer() {
    let server = server();
    let mut wire = Wire::new(&server);
    wire.initialize(all_capabilities()).await;
    wire.send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "greet"}}),
    )
    .await;
    let ask = wire.recv().await;
    assert_eq!(ask["method"], "elicitation/create", "{ask}");
    assert_eq!(ask["params"]["mode"], "form");
    assert_eq!(
        ask["params"]["requestedSchema"]["properties"]["name"],
        json!({"type": "string", "description": "Your name"})
    );
    wire.send(json!({"jsonrpc": "2.0", "id": ask["id"], "result": {"action": "accept", "content": {"name": "Ada"}}}))
        .await;
    let answer = wire.recv().await;
    assert_eq!(answer["id"], 1);
    assert_eq!(text(&answer), "Hello, Ada!", "{answer}");
}

#[tokio::test]
async fn a_legacy_ask_without_the_capability_is_32021_naming_it_and_sends_nothing() {
    let server = server();
    let mut wire = Wire::new(&server);
    wire.initialize(json!({"elicitation": {}})).await;
    let (before, answer) = wire
        .request("tools/call", json!({"name": "needs_sampling"}))
        .await;
    assert!(
        before.is_empty(),
        "nothing was sent to the client: {before:?}"
    );
    assert_eq!(answer["error"]["code"], -32021, "{answer}");
    assert_eq!(
        answer["error"]["data"]["requiredCapabilities"],
        json!({"sampling": {}})
    );
    assert!(
        answer["error"]["message"]
            .as_str()
            .unwrap()
            .contains("sampling")
    );
    // A handler that can do without it goes on with what the client has.
    let mut wire = Wire::new(&server);
    wire.initialize(json!({"sampling": {}})).await;
    wire.send(json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "prefers_elicitation"}}))
        .await;
    let ask = wire.recv().await;
    assert_eq!(ask["method"], "sampling/createMessage", "{ask}");
    wire.send(json!({"jsonrpc": "2.0", "id": ask["id"], "result": {
        "role": "assistant", "content": {"type": "text", "text": "Grace"}, "model": "m"}}))
        .await;
    assert_eq!(text(&wire.recv().await), "Grace");
}

#[tokio::test]
async fn an_unanswered_legacy_ask_times_out_as_a_tool_error_and_is_cancelled_at_the_client() {
    let server = server_answered_within(Duration::from_millis(300));
    let mut wire = Wire::new(&server);
    wire.initialize(all_capabilities()).await;
    wire.send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "greet"}}),
    )
    .await;
    let ask = wire.recv().await;
    assert_eq!(ask["method"], "elicitation/create");
    let cancelled = wire.recv().await;
    assert_eq!(
        cancelled["method"], "notifications/cancelled",
        "{cancelled}"
    );
    assert_eq!(cancelled["params"]["requestId"], ask["id"]);
    let answer = wire.recv().await;
    assert_eq!(answer["result"]["isError"], true, "{answer}");
    assert!(text(&answer).contains("did not answer"), "{answer}");
    // A late answer is dropped, and the connection goes on.
    wire.send(json!({"jsonrpc": "2.0", "id": ask["id"], "result": {"action": "cancel"}}))
        .await;
    let (_, pong) = wire.request("ping", json!({})).await;
    assert_eq!(pong["result"], json!({}));
}

#[tokio::test]
async fn a_full_line_transport_still_reads_the_answers_its_waiting_calls_need() {
    // One concurrency slot, held by a call waiting for the client; the client sends another
    // call and then the answer. The reader must reach the answer.
    let server = server();
    let mut wire = Wire::new(&server);
    wire.initialize(all_capabilities()).await;
    wire.send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "greet"}}),
    )
    .await;
    let ask = wire.recv().await;
    let second = wire.conn.clone();
    let queued = tokio::spawn(async move {
        second
            .handle_line(
                br#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"logs"}}"#,
            )
            .await;
    });
    tokio::time::timeout(Duration::from_secs(2), queued)
        .await
        .expect("the reader is not held while an answer is awaited")
        .unwrap();
    wire.send(json!({"jsonrpc": "2.0", "id": ask["id"], "result": {"action": "accept", "content": {"name": "Bo"}}}))
        .await;
    let mut answers = Vec::new();
    while answers.len() < 2 {
        let m = wire.recv().await;
        if m.get("id").is_some() && m.get("method").is_none() {
            answers.push(m);
        }
    }
    let by_id = |id: i64| answers.iter().find(|a| a["id"] == id).unwrap().clone();
    assert_eq!(text(&by_id(1)), "Hello, Bo!");
    assert_eq!(text(&by_id(2)), "logged");
}

fn call(name: &str, capabilities: Value, extra: Value) -> Value {
    let mut params = json!({"name": name, "arguments": {}, "_meta": modern_meta(capabilities)});
    for (k, v) in extra.as_object().unwrap() {
        params[k] = v.clone();
    }
    params
}

#[tokio::test]
async fn a_modern_tool_asks_with_input_required_and_completes_on_the_retry() {
    let server = server();
    let mut wire = Wire::new(&server);
    let (before, r1) = wire
        .request("tools/call", call("greet", all_capabilities(), json!({})))
        .await;
    assert!(
        before.is_empty(),
        "a modern request gets no server request: {before:?}"
    );
    let result = &r1["result"];
    assert_eq!(result["resultType"], "input_required", "{r1}");
    assert_eq!(
        result["inputRequests"]["user_name"]["method"],
        "elicitation/create"
    );
    assert!(result.get("ttlMs").is_none() && result.get("cacheScope").is_none());
    assert!(result["_meta"]["io.modelcontextprotocol/serverInfo"].is_object());
    let state = result["requestState"].as_str().unwrap().to_owned();
    let (_, r2) = wire
        .request(
            "tools/call",
            call("greet", all_capabilities(), json!({
                "inputResponses": {"user_name": {"action": "accept", "content": {"name": "Alice"}}},
                "requestState": state,
            })),
        )
        .await;
    assert_eq!(r2["result"]["resultType"], "complete", "{r2}");
    assert_eq!(text(&r2), "Hello, Alice!");
}

#[tokio::test]
async fn rounds_carry_earlier_answers_in_a_new_state_each_time() {
    let server = server();
    let mut wire = Wire::new(&server);
    let (_, r1) = wire
        .request(
            "tools/call",
            call("two_rounds", all_capabilities(), json!({})),
        )
        .await;
    let s1 = r1["result"]["requestState"].as_str().unwrap().to_owned();
    let keys: Vec<&String> = r1["result"]["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    assert_eq!(keys, ["elicit_1"]);
    let (_, r2) = wire
        .request("tools/call", call("two_rounds", all_capabilities(), json!({
            "inputResponses": {"elicit_1": {"action": "accept", "content": {"name": "Alice"}}},
            "requestState": s1,
        })))
        .await;
    assert_eq!(r2["result"]["resultType"], "input_required", "{r2}");
    let s2 = r2["result"]["requestState"].as_str().unwrap().to_owned();
    assert_ne!(s1, s2);
    let keys: Vec<&String> = r2["result"]["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    assert_eq!(keys, ["elicit_2"], "only what is still missing is asked");
    let (_, r3) = wire
        .request("tools/call", call("two_rounds", all_capabilities(), json!({
            "inputResponses": {"elicit_2": {"action": "accept", "content": {"color": "blue"}}},
            "requestState": s2,
        })))
        .await;
    assert_eq!(text(&r3), r#"Some("Alice") likes Some("blue")"#, "{r3}");
    // The spent states are refused: a replay.
    for spent in [&s1, &s2] {
        let (_, again) = wire
            .request("tools/call", call("two_rounds", all_capabilities(), json!({
                "inputResponses": {"elicit_2": {"action": "accept", "content": {"color": "red"}}},
                "requestState": spent,
            })))
            .await;
        assert_eq!(again["error"]["code"], -32602, "{again}");
        assert_eq!(again["error"]["data"]["reason"], "invalid_request_state");
    }
}

#[tokio::test]
async fn tampered_foreign_and_malformed_states_are_refused_without_details() {
    let server = server();
    let mut wire = Wire::new(&server);
    async fn fresh(wire: &mut Wire) -> String {
        let (_, r) = wire
            .request("tools/call", call("greet", all_capabilities(), json!({})))
            .await;
        r["result"]["requestState"].as_str().unwrap().to_owned()
    }
    let answer = json!({"user_name": {"action": "accept", "content": {"name": "Eve"}}});
    let refused = |r: &Value| {
        assert_eq!(r["error"]["code"], -32602, "{r}");
        assert_eq!(r["error"]["message"], "Invalid or expired requestState");
        assert_eq!(
            r["error"]["data"],
            json!({"reason": "invalid_request_state"})
        );
    };
    let state = fresh(&mut wire).await;
    let (_, r) = wire
        .request(
            "tools/call",
            call(
                "greet",
                all_capabilities(),
                json!({
            "inputResponses": answer, "requestState": format!("{state}-TAMPERED")}),
            ),
        )
        .await;
    refused(&r);
    // Foreign: a state of `greet` presented to another tool, or with other arguments.
    let state = fresh(&mut wire).await;
    let (_, r) = wire
        .request(
            "tools/call",
            call(
                "two_rounds",
                all_capabilities(),
                json!({
            "inputResponses": answer, "requestState": state}),
            ),
        )
        .await;
    refused(&r);
    let state = fresh(&mut wire).await;
    let mut other_args = call(
        "greet",
        all_capabilities(),
        json!({"inputResponses": answer, "requestState": state}),
    );
    other_args["arguments"] = json!({"extra": 1});
    let (_, r) = wire.request("tools/call", other_args).await;
    refused(&r);
    // Another server's state (another key).
    let stranger = server_with_other_key();
    let mut other = Wire::new(&stranger);
    let (_, foreign) = other
        .request("tools/call", call("greet", all_capabilities(), json!({})))
        .await;
    let foreign = foreign["result"]["requestState"]
        .as_str()
        .unwrap()
        .to_owned();
    let (_, r) = wire
        .request(
            "tools/call",
            call(
                "greet",
                all_capabilities(),
                json!({
            "inputResponses": answer, "requestState": foreign}),
            ),
        )
        .await;
    refused(&r);
    // Not a string.
    let (_, r) = wire
        .request(
            "tools/call",
            call(
                "greet",
                all_capabilities(),
                json!({
            "inputResponses": answer, "requestState": 42}),
            ),
        )
        .await;
    refused(&r);
}

fn server_with_other_key() -> Server {
    Server::builder("stranger", "1.0.0")
        .request_state_keys(mcp_runtime::input::RequestStateKeys::new([9u8; 32]).unwrap())
        .tool(tool_fn(def("greet"), |_, cx: RequestContext| async move {
            cx.elicit::<Name>("Who?")
                .key("user_name")
                .await
                .map(|_| "hi")
        }))
        .build()
        .unwrap()
}

#[tokio::test]
async fn partial_wrong_and_extra_answers_are_handled_as_the_spec_says() {
    let server = server();
    let mut wire = Wire::new(&server);
    // All three kinds in one round.
    let (_, r1) = wire
        .request(
            "tools/call",
            call("all_at_once", all_capabilities(), json!({})),
        )
        .await;
    let requests = r1["result"]["inputRequests"].as_object().unwrap();
    let mut methods: Vec<&str> = requests
        .values()
        .map(|r| r["method"].as_str().unwrap())
        .collect();
    methods.sort_unstable();
    assert_eq!(
        methods,
        ["elicitation/create", "roots/list", "sampling/createMessage"],
        "{r1}"
    );
    assert_eq!(
        requests["roots"],
        json!({"method": "roots/list"}),
        "no params: {r1}"
    );
    let s1 = r1["result"]["requestState"].as_str().unwrap().to_owned();
    // Only part answered (one of them malformed), plus a key nobody asked.
    let (_, r2) = wire
        .request(
            "tools/call",
            call(
                "all_at_once",
                all_capabilities(),
                json!({
                    "inputResponses": {
                        "name": {"action": "accept", "content": {"name": "Alice"}},
                        "capital": 12345,
                        "unrequested": {"anything": true},
                    },
                    "requestState": s1,
                }),
            ),
        )
        .await;
    assert_eq!(r2["result"]["resultType"], "input_required", "{r2}");
    let keys: Vec<&String> = r2["result"]["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    assert_eq!(
        keys,
        ["capital", "roots"],
        "the answered one is not asked again"
    );
    let s2 = r2["result"]["requestState"].as_str().unwrap().to_owned();
    let (_, r3) = wire
        .request("tools/call", call("all_at_once", all_capabilities(), json!({
            "inputResponses": {
                "capital": {"role": "assistant", "content": {"type": "text", "text": "Paris"}, "model": "m"},
                "roots": {"roots": [{"uri": "file:///w", "name": "w"}]},
                "name": {"action": "accept", "content": {"name": "Mallory"}},
            },
            "requestState": s2,
        })))
        .await;
    assert_eq!(
        text(&r3),
        "Alice/Paris/1",
        "an answer already given is not replaced: {r3}"
    );
    // A first call that already carries the answer (no state) completes; unknown keys are
    // ignored; `inputResponses: null` asks again.
    let (_, direct) = wire
        .request("tools/call", call("greet", all_capabilities(), json!({
            "inputResponses": {"user_name": {"action": "accept", "content": {"name": "Zoe"}},
                               "unknown_extra_key": 1, "another_unexpected": {}},
        })))
        .await;
    assert_eq!(text(&direct), "Hello, Zoe!", "{direct}");
    for responses in [
        json!(null),
        json!({"wrong_key": {"action": "accept"}}),
        json!({"user_name": 12345}),
    ] {
        let (_, r) = wire
            .request(
                "tools/call",
                call(
                    "greet",
                    all_capabilities(),
                    json!({"inputResponses": responses}),
                ),
            )
            .await;
        assert_eq!(
            r["result"]["resultType"], "input_required",
            "{responses}: {r}"
        );
    }
}

#[tokio::test]
async fn modern_capabilities_are_checked_per_request() {
    let server = server();
    let mut wire = Wire::new(&server);
    let (_, r) = wire
        .request(
            "tools/call",
            call("needs_sampling", json!({"elicitation": {}}), json!({})),
        )
        .await;
    assert_eq!(r["error"]["code"], -32021, "{r}");
    assert_eq!(
        r["error"]["data"]["requiredCapabilities"],
        json!({"sampling": {}})
    );
    // Can do without: the undeclared kind is left out of the round.
    let (_, r) = wire
        .request(
            "tools/call",
            call("prefers_elicitation", json!({"sampling": {}}), json!({})),
        )
        .await;
    let requests = r["result"]["inputRequests"].as_object().unwrap();
    assert_eq!(requests.len(), 1, "{r}");
    assert_eq!(
        requests.values().next().unwrap()["method"],
        "sampling/createMessage"
    );
    // Listing never asks.
    let (_, list) = wire
        .request(
            "tools/list",
            json!({"_meta": modern_meta(all_capabilities())}),
        )
        .await;
    assert_eq!(list["result"]["resultType"], "complete");
}

#[tokio::test]
async fn log_messages_follow_the_level_each_era_sets() {
    let server = server();
    // Legacy: info and above before setLevel, then what it chose.
    let mut wire = Wire::new(&server);
    wire.initialize(json!({})).await;
    let (logs, _) = wire.request("tools/call", json!({"name": "logs"})).await;
    assert_eq!(logs.len(), 1, "{logs:?}");
    assert_eq!(
        logs[0]["params"],
        json!({"level": "warning", "data": {"disk": "almost full"}})
    );
    let (_, set) = wire
        .request("logging/setLevel", json!({"level": "debug"}))
        .await;
    assert_eq!(set["result"], json!({}), "exactly an empty object");
    let (logs, _) = wire.request("tools/call", json!({"name": "logs"})).await;
    assert_eq!(logs.len(), 2, "{logs:?}");
    assert_eq!(logs[0]["params"]["data"], "debug detail");
    let (_, bad) = wire
        .request("logging/setLevel", json!({"level": "loud"}))
        .await;
    assert_eq!(bad["error"]["code"], -32602, "{bad}");
    // Modern: nothing without logLevel; at or above it with it.
    let mut wire = Wire::new(&server);
    let (logs, done) = wire
        .request("tools/call", call("logs", json!({}), json!({})))
        .await;
    assert!(logs.is_empty(), "{logs:?}");
    assert_eq!(text(&done), "logged");
    let mut params = call("logs", json!({}), json!({}));
    params["_meta"]["io.modelcontextprotocol/logLevel"] = json!("warning");
    let (logs, _) = wire.request("tools/call", params).await;
    assert_eq!(logs.len(), 1, "{logs:?}");
    assert_eq!(logs[0]["method"], "notifications/message");
    let (_, set) = wire
        .request(
            "logging/setLevel",
            json!({"level": "debug", "_meta": modern_meta(json!({}))}),
        )
        .await;
    assert_eq!(set["error"]["code"], -32601, "{set}");
}

#[tokio::test]
async fn tracing_events_inside_a_handler_reach_its_client() {
    use tracing_subscriber::layer::SubscriberExt as _;
    let subscriber = tracing_subscriber::registry().with(mcp_runtime::input::ClientLogLayer::new());
    let _guard = tracing::subscriber::set_default(subscriber);
    let server = Server::builder("bridge", "1.0.0")
        .tool(tool_fn(
            def("traced"),
            |_, _cx: RequestContext| async move {
                tracing::warn!(disk = "sda", "low space");
                tracing::debug!("below the session's level");
                "done"
            },
        ))
        .build()
        .unwrap();
    tracing::warn!("outside any handler: not forwarded");
    let mut wire = Wire::new(&server);
    wire.initialize(json!({})).await;
    let (logs, done) = wire.request("tools/call", json!({"name": "traced"})).await;
    assert_eq!(text(&done), "done");
    assert_eq!(logs.len(), 1, "{logs:?}");
    assert_eq!(logs[0]["method"], "notifications/message");
    assert_eq!(logs[0]["params"]["level"], "warning");
    assert_eq!(
        logs[0]["params"]["data"],
        json!({"message": "low space", "disk": "sda"})
    );
    assert!(
        logs[0]["params"]["logger"]
            .as_str()
            .unwrap()
            .contains("input")
    );
    // A modern request without logLevel gets nothing from the bridge either.
    let (logs, _) = wire
        .request("tools/call", call("traced", json!({}), json!({})))
        .await;
    assert!(logs.is_empty(), "{logs:?}");
}
