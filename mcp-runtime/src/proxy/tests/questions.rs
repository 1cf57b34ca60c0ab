//! The upstream's questions (elicitation, sampling, roots) and log messages: to the caller
//! they are for, in both eras, under concurrency, and with a connection per client.

use super::*;

#[tokio::test]
async fn the_upstreams_questions_and_logs_reach_the_caller_in_both_eras() {
    let upstream = Server::builder("upstream", "1.0.0")
        .logging(true)
        .tool(tool_fn(
            ToolDefinition::new("ask", "Asks for a name.", json!({"type": "object"})),
            |_, cx| async move {
                cx.log(crate::protocol::LoggingLevel::Info, "asking").await;
                ask_name(&cx).await
            },
        ))
        .build()
        .unwrap();
    let (_proxy, gateway) = logging_gateway(upstream).await;
    for era in [EraMode::Legacy, EraMode::Modern] {
        let client = named(&gateway, "Ada");
        let mut heard = client.take_unrouted().unwrap();
        client.connect(era).await.unwrap();
        if era == EraMode::Legacy {
            client
                .request("logging/setLevel", Some(json!({"level": "info"})))
                .await
                .unwrap();
        }
        let result = client.call_tool("up_ask", json!({})).await.unwrap();
        assert_eq!(result.first_text(), Some("hello Ada"), "{era:?}");
        if era == EraMode::Legacy {
            let mut logged = false;
            while let Ok(note) = heard.try_recv() {
                logged |=
                    note["method"] == "notifications/message" && note["params"]["data"] == "asking";
            }
            assert!(logged, "the upstream's log message reached the caller");
        }
    }
}

/// What an upstream tool asks its client for.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Name {
    name: String,
}

/// Asks `cx`'s client for a name: "hello NAME", "declined", or "failed: why".
async fn ask_name(cx: &crate::context::RequestContext) -> String {
    match cx.elicit::<Name>("Your name?").await {
        Ok(answer) => match answer.accepted() {
            Some(Name { name }) => format!("hello {name}"),
            None => "declined".to_owned(),
        },
        Err(e) => format!("failed: {e}"),
    }
}

/// An upstream tool that waits until `together` calls are in, then asks for a name.
fn asking_together(together: usize) -> Server {
    let barrier = Arc::new(tokio::sync::Barrier::new(together));
    Server::builder("upstream", "1.0.0")
        .tool(tool_fn(
            ToolDefinition::new("ask", "Asks for a name.", json!({"type": "object"})),
            move |_, cx| {
                let barrier = barrier.clone();
                async move {
                    barrier.wait().await;
                    ask_name(&cx).await
                }
            },
        ))
        .build()
        .unwrap()
}

/// A gateway client answering every elicitation with `name` (not connected yet).
fn named(gateway: &Server, name: &'static str) -> Client {
    Client::memory(gateway).with_input_handler(crate::client::InputHandler::new().on_elicit(
        move |_| async move {
            Ok(crate::protocol::ElicitResult::accept(
                json!({ "name": name }).as_object().cloned(),
            ))
        },
    ))
}

/// [`named`], connected over a 2025 session.
async fn answering(gateway: &Server, name: &'static str) -> Client {
    let client = named(gateway, name);
    client.connect(EraMode::Legacy).await.unwrap();
    client
}

/// Several requests of one client waiting on a stdio-like upstream at once (a gateway
/// served over stdio has one client): the upstream's questions all reach that client.
#[tokio::test]
async fn one_clients_concurrent_calls_all_get_its_answers() {
    let (_proxy, gateway) = logging_gateway(asking_together(2)).await;
    let ada = answering(&gateway, "Ada").await;
    let (first, second) = tokio::join!(
        ada.call_tool("up_ask", json!({})),
        ada.call_tool("up_ask", json!({}))
    );
    for result in [first, second] {
        assert_eq!(result.unwrap().first_text(), Some("hello Ada"));
    }
}

/// Requests of two clients waiting at once: the upstream's questions cannot be told apart,
/// so neither client is asked the other's question: both are refused.
#[tokio::test]
async fn two_clients_never_answer_each_others_questions() {
    let (_proxy, gateway) = logging_gateway(asking_together(2)).await;
    let ada = answering(&gateway, "Ada").await;
    let bob = answering(&gateway, "Bob").await;
    let (a, b) = tokio::join!(
        ada.call_tool("up_ask", json!({})),
        bob.call_tool("up_ask", json!({}))
    );
    for (result, who) in [(a, "Ada"), (b, "Bob")] {
        let text = result.unwrap().first_text().unwrap_or_default().to_owned();
        assert!(
            text.starts_with("failed:") && text.contains("cannot tell which"),
            "{who}'s call: {text}"
        );
    }
}

/// With a connection per client, two clients' requests waiting at once on a 2025 upstream
/// each get their own client's answer: each 2025 session of the gateway (over Streamable
/// HTTP) has a connection of its own, so the upstream's questions on it are its client's.
#[cfg(feature = "http")]
#[tokio::test]
async fn with_a_connection_per_client_each_client_answers_its_own_questions() {
    let proxy = Proxy::start(Upstream::memory(asking_together(2)).connection_per_client(4));
    proxy.connected_times(1).await;
    let gateway = Server::builder("gateway", "1.0.0")
        .mount("up", proxy.server().clone())
        .build()
        .unwrap();
    let url = serve_http(gateway).await;
    let client = |name: &'static str| {
        Client::http(&url).unwrap().with_input_handler(
            crate::client::InputHandler::new().on_elicit(move |_| async move {
                Ok(crate::protocol::ElicitResult::accept(
                    json!({ "name": name }).as_object().cloned(),
                ))
            }),
        )
    };
    let (ada, bob) = (client("Ada"), client("Bob"));
    ada.connect(EraMode::Legacy).await.unwrap();
    bob.connect(EraMode::Legacy).await.unwrap();
    let (a, b) = tokio::join!(
        ada.call_tool("up_ask", json!({})),
        bob.call_tool("up_ask", json!({}))
    );
    assert_eq!(a.unwrap().first_text(), Some("hello Ada"));
    assert_eq!(b.unwrap().first_text(), Some("hello Bob"));
    assert_eq!(proxy.link.own.len(), 2, "one connection per client");
    // Each client keeps its connection: the same two serve their next calls.
    let (a, b) = tokio::join!(
        ada.call_tool("up_ask", json!({})),
        bob.call_tool("up_ask", json!({}))
    );
    assert_eq!(a.unwrap().first_text(), Some("hello Ada"));
    assert_eq!(b.unwrap().first_text(), Some("hello Bob"));
    assert_eq!(proxy.link.own.len(), 2);
}

/// A log message the upstream sends just before its answer reaches the caller before the
/// answer, every time (routed in wire order, not by a task that could run after the answer
/// was relayed and the request was no longer waiting).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_log_just_before_the_answer_reaches_the_caller_every_time() {
    let upstream = Server::builder("upstream", "1.0.0")
        .logging(true)
        .tool(tool_fn(
            ToolDefinition::new("say", "Logs, then answers.", json!({"type": "object"})),
            |_, cx| async move {
                cx.log(crate::protocol::LoggingLevel::Info, "said").await;
                "done"
            },
        ))
        .build()
        .unwrap();
    let (_proxy, gateway) = logging_gateway(upstream).await;
    let client = Client::memory(&gateway);
    let mut heard = client.take_unrouted().unwrap();
    client.connect(EraMode::Legacy).await.unwrap();
    client
        .request("logging/setLevel", Some(json!({"level": "info"})))
        .await
        .unwrap();
    for call in 0..50 {
        let result = client.call_tool("up_say", json!({})).await.unwrap();
        assert_eq!(result.first_text(), Some("done"));
        let mut logged = 0;
        while let Ok(note) = heard.try_recv() {
            logged += usize::from(
                note["method"] == "notifications/message" && note["params"]["data"] == "said",
            );
        }
        assert_eq!(
            logged, 1,
            "call {call}: the log message came before the answer"
        );
    }
}

/// Over a 2026-07-28 connection, the upstream's `input_required` round reaches a modern
/// caller as one round under the upstream's own keys, the answers go back upstream, and a
/// caller that lacks the capability gets `-32021` naming it.
#[tokio::test]
async fn a_modern_upstreams_questions_pass_through_under_its_keys() {
    #[derive(serde::Deserialize, schemars::JsonSchema)]
    struct Name {
        name: String,
    }
    let upstream = Server::builder("upstream", "1.0.0")
        .tool(tool_fn(
            ToolDefinition::new("both", "Asks two names at once.", json!({"type": "object"})),
            |_, cx| async move {
                let first = cx.elicit::<Name>("First name?").key("first_name");
                let last = cx.elicit::<Name>("Last name?").key("last_name");
                let (first, last) = futures::join!(first, last);
                // A failed ask fails the tool: its server answers `-32021` then.
                match (first, last) {
                    (Ok(first), Ok(last)) => match (first.accepted(), last.accepted()) {
                        (Some(f), Some(l)) => Ok(format!("{} {}", f.name, l.name)),
                        _ => Ok("declined".to_owned()),
                    },
                    (Err(e), _) | (_, Err(e)) => Err(format!("failed: {e}")),
                }
            },
        ))
        .build()
        .unwrap();
    let (_proxy, gateway) = modern_gateway(upstream).await;
    let answering = || {
        crate::client::InputHandler::new().on_elicit(|params| async move {
            let name = if params.message.starts_with("First") {
                "Ada"
            } else {
                "Lovelace"
            };
            Ok(crate::protocol::ElicitResult::accept(
                json!({"name": name}).as_object().cloned(),
            ))
        })
    };
    // The round as the caller sees it: the upstream's keys, both at once.
    let client = Client::memory(&gateway).with_input_handler(answering());
    client.connect(EraMode::Modern).await.unwrap();
    let round = call_raw(&client, "up_both").await;
    assert_eq!(round["resultType"], "input_required", "{round}");
    let keys: Vec<&String> = round["inputRequests"].as_object().unwrap().keys().collect();
    assert_eq!(keys, ["first_name", "last_name"], "{round}");
    // Answered by the client's handler and retried: the upstream gets the answers.
    let result = client.call_tool("up_both", json!({})).await.unwrap();
    assert_eq!(result.first_text(), Some("Ada Lovelace"));
    // A caller that cannot answer elicitation.
    let mute = Client::memory(&gateway);
    mute.connect(EraMode::Modern).await.unwrap();
    let refused = mute.call_tool("up_both", json!({})).await.unwrap_err();
    let refused = refused.as_protocol().expect("a protocol error");
    assert_eq!(
        refused.code,
        crate::protocol::ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY
    );
}
