//! The toolkit's own client answering a server's questions (`client::InputHandler`):
//! `echo-server`'s `ask_name`, `ask_model` and `list_roots` over stdio and Streamable HTTP,
//! as legacy server-to-client requests and as modern `input_required` rounds.

use mcp_runtime::client::{Client, ClientError, EraMode, InputHandler};
use mcp_runtime::protocol::{CallToolResult, CreateMessageResult, ElicitResult, McpError, Root};
use mcp_tests::http::Spawned;
use serde_json::{Value, json};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// What the handler was asked, in order.
type Asked = Arc<Mutex<Vec<String>>>;

/// Answers every kind: the name "Ada", the model's "Paris.", one root; records each ask.
fn handler(asked: &Asked) -> InputHandler {
    let (a, b, c) = (asked.clone(), asked.clone(), asked.clone());
    InputHandler::new()
        .on_elicit(move |params| {
            a.lock()
                .unwrap()
                .push(format!("elicit: {}", params.message));
            async {
                Ok(ElicitResult::accept(
                    json!({"name": "Ada"}).as_object().cloned(),
                ))
            }
        })
        .on_sample(move |params| {
            b.lock().unwrap().push(format!(
                "sample: {}",
                serde_json::to_string(&params.messages).unwrap()
            ));
            async {
                Ok(CreateMessageResult::new(
                    json!({"type": "text", "text": "Paris."}),
                    "test-model",
                )
                .with_stop_reason("endTurn"))
            }
        })
        .on_roots(move || {
            c.lock().unwrap().push("roots".into());
            async { Ok(vec![Root::new("file:///work/project").with_name("project")]) }
        })
}

fn text(result: &CallToolResult) -> String {
    result.first_text().unwrap_or_default().to_owned()
}

async fn bounded<T>(f: impl std::future::Future<Output = T>) -> T {
    tokio::time::timeout(Duration::from_secs(30), f)
        .await
        .expect("answered within 30 s")
}

/// Connects `client` in `mode`, calls the three asking tools, and checks each answer reached
/// the tool and each question reached the handler exactly once.
async fn answers_all_three(client: Client, mode: EraMode, asked: &Asked, label: &str) {
    bounded(client.connect(mode)).await.expect("connects");
    let name = bounded(client.call_tool("ask_name", json!({}))).await;
    let name = name.unwrap_or_else(|e| panic!("{label}: ask_name: {e}"));
    assert_eq!(text(&name), "Hello, Ada!", "{label}");
    let model = bounded(client.call_tool("ask_model", json!({"question": "Capital of France?"})))
        .await
        .unwrap_or_else(|e| panic!("{label}: ask_model: {e}"));
    assert_eq!(text(&model), "Paris.", "{label}");
    let roots = bounded(client.call_tool("list_roots", json!({})))
        .await
        .unwrap_or_else(|e| panic!("{label}: list_roots: {e}"));
    assert_eq!(text(&roots), "file:///work/project", "{label}");
    let asked = asked.lock().unwrap().clone();
    assert_eq!(asked.len(), 3, "{label}: {asked:?}");
    assert_eq!(asked[0], "elicit: Who are you?", "{label}");
    assert!(
        asked[1].contains("Capital of France?"),
        "{label}: {asked:?}"
    );
    assert_eq!(asked[2], "roots", "{label}");
    // The connection is still in order afterwards.
    let echo = bounded(client.call_tool("echo", json!({"text": "after"}))).await;
    assert_eq!(text(&echo.unwrap()), "after", "{label}");
}

fn stdio_client() -> Client {
    let bin = mcp_tests::example_bin("echo-server");
    let mut command = tokio::process::Command::new(bin);
    command.env("RUST_LOG", "warn");
    Client::spawn(command).expect("echo-server starts")
}

#[tokio::test]
async fn a_handler_answers_both_eras_over_stdio() {
    for mode in [EraMode::Legacy, EraMode::Modern] {
        let asked = Asked::default();
        let client = stdio_client().with_input_handler(handler(&asked));
        let label = format!("stdio {mode:?}");
        answers_all_three(client.clone(), mode, &asked, &label).await;
        let status = bounded(client.close()).await.expect("closes");
        assert!(status.is_some_and(|s| s.success()), "{label}: {status:?}");
    }
}

#[tokio::test]
async fn a_handler_answers_both_eras_over_http() {
    let server = Spawned::start("echo-server", &["--legacy-mode", "sessionful"]);
    for mode in [EraMode::Legacy, EraMode::Modern] {
        let asked = Asked::default();
        let client = Client::http(&server.url)
            .unwrap()
            .with_input_handler(handler(&asked));
        let label = format!("http {mode:?}");
        answers_all_three(client, mode, &asked, &label).await;
    }
}

#[tokio::test]
async fn declared_capabilities_follow_the_closures() {
    let only_roots = InputHandler::new().on_roots(|| async { Ok(Vec::new()) });
    assert_eq!(
        only_roots.capabilities(),
        json!({"roots": {"listChanged": false}})
    );
    assert_eq!(InputHandler::new().capabilities(), json!({}));

    // A client that answers only roots is refused elicitation by the server itself, in
    // both eras, with the capability named.
    for mode in [EraMode::Legacy, EraMode::Modern] {
        let client = stdio_client()
            .with_input_handler(InputHandler::new().on_roots(|| async { Ok(Vec::new()) }));
        bounded(client.connect(mode)).await.unwrap();
        let outcome = bounded(client.call_tool("ask_name", json!({}))).await;
        let error = match outcome {
            Err(ClientError::Protocol(e)) => e,
            other => panic!("{mode:?}: expected -32021, got {other:?}"),
        };
        assert_eq!(error.code.0, -32021, "{mode:?}: {error:?}");
        assert_eq!(
            error.data.as_ref().unwrap()["requiredCapabilities"],
            json!({"elicitation": {}}),
            "{mode:?}"
        );
        let roots = bounded(client.call_tool("list_roots", json!({}))).await;
        assert_eq!(
            text(&roots.unwrap()),
            "The client shares no roots.",
            "{mode:?}"
        );
        bounded(client.close()).await.unwrap();
    }
}

#[tokio::test]
async fn without_a_handler_nothing_is_declared_and_a_modern_server_refuses() {
    let client = stdio_client();
    bounded(client.connect(EraMode::Modern)).await.unwrap();
    let raw = bounded(client.request(
        "tools/call",
        Some(json!({"name": "list_roots", "arguments": {}})),
    ))
    .await;
    // The client declared nothing, so the server refuses rather than asking.
    let error = raw.unwrap_err();
    assert_eq!(
        error.as_protocol().map(|e| e.code.0),
        Some(-32021),
        "{error}"
    );
    bounded(client.close()).await.unwrap();
}

#[tokio::test]
async fn a_failing_handler_fails_the_call_in_both_eras() {
    let refuse = || {
        InputHandler::new().on_elicit(|params| async move {
            Err(McpError::internal(format!(
                "no terminal to ask {:?} on",
                params.message
            )))
        })
    };
    // Legacy: the error goes to the server as the answer; the tool reports it.
    let client = stdio_client().with_input_handler(refuse());
    bounded(client.connect(EraMode::Legacy)).await.unwrap();
    let result = bounded(client.call_tool("ask_name", json!({})))
        .await
        .expect("the tool answers");
    assert!(result.is_error(), "{result:?}");
    assert!(
        text(&result).contains("no terminal to ask \"Who are you?\" on"),
        "{}",
        text(&result)
    );
    bounded(client.close()).await.unwrap();

    // Modern: nothing to send the error in; the call ends locally, not retried.
    let client = stdio_client().with_input_handler(refuse());
    bounded(client.connect(EraMode::Modern)).await.unwrap();
    match bounded(client.call_tool("ask_name", json!({}))).await {
        Err(ClientError::Input(e)) => {
            assert!(e.message.contains("no terminal to ask"), "{e:?}");
        }
        other => panic!("expected ClientError::Input, got {other:?}"),
    }
    bounded(client.close()).await.unwrap();
}

#[tokio::test]
async fn a_legacy_server_ping_is_answered_and_unknown_requests_get_32601() {
    // An in-memory server is not needed: the client's answers are visible on the wire.
    let (to_server, mut sent) = tokio::sync::mpsc::channel::<Vec<u8>>(8);
    let (deliver, from_server) = tokio::sync::mpsc::channel::<Vec<u8>>(8);
    let client = Client::from_channels(to_server, from_server)
        .with_input_handler(InputHandler::new().on_roots(|| async { Ok(Vec::new()) }));
    let ask = |id: &str, method: &str| {
        serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": id, "method": method})).unwrap()
    };
    deliver.send(ask("s-1", "ping")).await.unwrap();
    deliver
        .send(ask("s-2", "sampling/createMessage"))
        .await
        .unwrap();
    deliver.send(ask("s-3", "roots/list")).await.unwrap();
    deliver
        .send(br#"{"jsonrpc":"2.0","id":"s-4","method":"elicitation/create"}"#.to_vec())
        .await
        .unwrap();
    let mut answers = Vec::new();
    for _ in 0..4 {
        let line = bounded(sent.recv()).await.expect("an answer");
        answers.push(serde_json::from_slice::<Value>(&line).unwrap());
    }
    answers.sort_by_key(|a| a["id"].as_str().unwrap().to_owned());
    assert_eq!(answers[0]["result"], json!({}));
    // Sampling has no closure: not declared, so not a method this client has.
    assert_eq!(answers[1]["error"]["code"], -32601, "{:?}", answers[1]);
    assert_eq!(answers[2]["result"], json!({"roots": []}));
    assert_eq!(answers[3]["error"]["code"], -32601, "{:?}", answers[3]);
    drop(client);
}

/// A scripted modern server on channels: answers every request with `answer(n, request)`
/// (n counts from 1) and records the requests.
fn scripted(
    answer: impl Fn(usize, &Value) -> Value + Send + 'static,
) -> (Client, Arc<Mutex<Vec<Value>>>) {
    let (to_server, mut received) = tokio::sync::mpsc::channel::<Vec<u8>>(8);
    let (deliver, from_server) = tokio::sync::mpsc::channel::<Vec<u8>>(8);
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    tokio::spawn(async move {
        let mut n = 0;
        while let Some(line) = received.recv().await {
            let request: Value = serde_json::from_slice(&line).unwrap();
            n += 1;
            let result = answer(n, &request);
            log.lock().unwrap().push(request.clone());
            let reply = json!({"jsonrpc": "2.0", "id": request["id"], "result": result});
            if deliver
                .send(serde_json::to_vec(&reply).unwrap())
                .await
                .is_err()
            {
                return;
            }
        }
    });
    (Client::from_channels(to_server, from_server), seen)
}

fn asks_for_roots(state: &str) -> Value {
    json!({
        "resultType": "input_required",
        "inputRequests": {"where": {"method": "roots/list"}},
        "requestState": state,
    })
}

#[tokio::test]
async fn without_a_handler_an_input_required_call_names_what_was_asked() {
    let (client, _) = scripted(|n, _| match n {
        1 => json!({"resultType": "complete", "capabilities": {}}),
        _ => asks_for_roots("s"),
    });
    bounded(client.connect(EraMode::Modern)).await.unwrap();
    let error = bounded(client.call_tool("list_roots", json!({})))
        .await
        .unwrap_err();
    assert!(matches!(error, ClientError::InputRequired(_)), "{error:?}");
    assert_eq!(
        error.to_string(),
        "the server needs input (where: roots/list) and this client answers none"
    );
}

#[tokio::test]
async fn retries_echo_the_state_carry_the_answers_and_stop_after_the_bound() {
    let (client, seen) = scripted(|n, _| match n {
        1 => json!({"resultType": "complete", "capabilities": {}}),
        _ => asks_for_roots(&format!("state-{n}")),
    });
    let client = client.with_input_handler(
        InputHandler::new().on_roots(|| async { Ok(vec![Root::new("file:///r")]) }),
    );
    bounded(client.connect(EraMode::Modern)).await.unwrap();
    let error = bounded(client.call_tool("list_roots", json!({"x": 1})))
        .await
        .unwrap_err();
    assert!(
        matches!(&error, ClientError::Input(e) if e.message.contains("after 8 rounds")),
        "{error:?}"
    );
    let seen = seen.lock().unwrap();
    // discover, the first call, then one retry per round.
    assert_eq!(seen.len(), 2 + mcp_runtime::client::MAX_INPUT_ROUNDS);
    let first = &seen[1]["params"];
    assert!(first.get("requestState").is_none(), "{first}");
    assert_eq!(
        first["_meta"]["io.modelcontextprotocol/clientCapabilities"],
        json!({"roots": {"listChanged": false}, "extensions": {"io.modelcontextprotocol/tasks": {}}})
    );
    for (i, retry) in seen[2..].iter().enumerate() {
        let params = &retry["params"];
        assert_ne!(retry["id"], seen[1]["id"], "a retry is a new request");
        assert_eq!(params["name"], "list_roots");
        assert_eq!(params["arguments"], json!({"x": 1}));
        assert_eq!(params["requestState"], format!("state-{}", i + 2));
        assert_eq!(
            params["inputResponses"],
            json!({"where": {"roots": [{"uri": "file:///r"}]}})
        );
    }
}
