//! Every row of the method table, in both eras, on a server that offers everything and on
//! one that offers nothing: served, or answered as not offered (`-32601`).
//!
//! The expectations are written out here, not derived from the table, so a row that changes
//! its eras or its gate fails until this list agrees; a row without a line here fails too.

use super::table::METHODS;
use crate::context::Peer;
use crate::prelude::*;
use crate::prompt::prompt_fn;
use crate::protocol::{PromptArgument, PromptDefinition, ResourceDefinition};
use crate::resource::resource_fn;
use crate::server::Server;
use serde_json::{Value, json};

/// What a request got.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Got {
    /// Served: a result, or an error other than the two below.
    Served,
    /// `-32601`: not offered.
    Unoffered,
    /// `-32602` for a missing envelope (`server/discover` without one).
    Invalid,
}

use Got::{Invalid as I, Served as S, Unoffered as U};

/// method, then what it gets: from the full server (legacy, modern), from the bare one
/// (legacy, modern).
const EXPECTED: &[(&str, [Got; 4])] = &[
    ("initialize", [S, U, S, U]),
    ("ping", [S, U, S, U]),
    ("server/discover", [I, S, I, S]),
    ("logging/setLevel", [S, U, U, U]),
    ("tools/list", [S, S, U, U]),
    ("resources/list", [S, S, U, U]),
    ("resources/templates/list", [S, S, U, U]),
    ("prompts/list", [S, S, U, U]),
    ("tools/call", [S, S, U, U]),
    ("resources/read", [S, S, U, U]),
    ("prompts/get", [S, S, U, U]),
    ("completion/complete", [S, S, U, U]),
    ("resources/subscribe", [S, U, U, U]),
    ("resources/unsubscribe", [S, U, U, U]),
    ("skills/list", [S, S, U, U]),
    ("skills/get", [S, S, U, U]),
    ("resources/directory/read", [S, S, U, U]),
    ("subscriptions/listen", [U, S, U, S]),
    ("tasks/get", [U, S, U, U]),
    ("tasks/update", [U, S, U, U]),
    ("tasks/cancel", [U, S, U, U]),
];

fn full() -> Server {
    let echo = tool_fn(
        ToolDefinition::new(
            "echo",
            "Echoes.",
            json!({"type": "object", "properties": {"text": {"type": "string"}}}),
        ),
        |_args, _cx| async { "echoed" },
    );
    let resource = resource_fn(ResourceDefinition::new("test://r", "r"), |_cx| async {
        "contents"
    });
    let prompt = prompt_fn(
        PromptDefinition::new("p", "A prompt.")
            .with_argument(PromptArgument::required("a", "An argument")),
        |args, _cx| async move { format!("a = {}", args["a"]) },
    );
    let slow = tool_fn(
        ToolDefinition::new("slow", "Runs as a task.", json!({"type": "object"})),
        |_args, _cx| async { "done" },
    )
    .with_policy(crate::tool::ToolPolicy::new().task(crate::task::TaskSupport::Optional));
    let skill = crate::server::registry::skills::ServedSkill::from_memory(
        "skill://demo/SKILL.md".into(),
        json!({"name": "demo", "description": "A demo."})
            .as_object()
            .cloned()
            .unwrap(),
        vec![(
            "SKILL.md".into(),
            "text/markdown".into(),
            b"---\nname: demo\ndescription: A demo.\n---\n".to_vec(),
        )],
    );
    Server::builder("full", "1.0.0")
        .served_skills(vec![skill], [])
        .tool(echo)
        .tool(slow)
        .resource(resource)
        .prompt(prompt)
        .logging(true)
        .build()
        .unwrap()
}

fn bare() -> Server {
    Server::builder("bare", "1.0.0")
        .logging(false)
        .build()
        .unwrap()
}

/// Params that would be served where the method is offered.
fn params(method: &str) -> Value {
    match method {
        "initialize" => json!({
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"}
        }),
        "logging/setLevel" => json!({"level": "info"}),
        "tools/call" => json!({"name": "echo", "arguments": {"text": "x"}}),
        "resources/read" | "resources/subscribe" | "resources/unsubscribe" => {
            json!({"uri": "test://r"})
        }
        "prompts/get" => json!({"name": "p", "arguments": {"a": "x"}}),
        "completion/complete" => json!({
            "ref": {"type": "ref/prompt", "name": "p"},
            "argument": {"name": "a", "value": ""}
        }),
        "subscriptions/listen" => json!({"notifications": {"toolsListChanged": true}}),
        "tasks/get" | "tasks/cancel" => json!({"taskId": "0123"}),
        "tasks/update" => json!({"taskId": "0123", "inputResponses": {}}),
        "skills/get" => json!({"uri": "skill://demo/SKILL.md"}),
        "resources/directory/read" => json!({"uri": "skill://demo"}),
        _ => json!({}),
    }
}

/// Sends one request on a fresh connection and classifies the first line that comes back.
async fn send(server: &Server, method: &str, modern: bool) -> Got {
    let mut params = params(method);
    if modern {
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}
        });
    }
    let line = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let (tx, mut rx) = tokio::sync::mpsc::channel(16);
    let connection = server.connect(Peer::new(tx));
    connection.handle_line(line.to_string().as_bytes()).await;
    let answer = rx
        .recv()
        .await
        .expect("every request is answered or acknowledged");
    let answer: Value = serde_json::from_slice(&answer).unwrap();
    match answer["error"]["code"].as_i64() {
        Some(-32601) => Got::Unoffered,
        Some(-32602) if method == "server/discover" => Got::Invalid,
        _ => Got::Served,
    }
}

#[tokio::test]
async fn every_method_is_served_in_its_eras_when_its_gate_is_open() {
    let names: Vec<&str> = METHODS.iter().map(|m| m.name).collect();
    let expected: Vec<&str> = EXPECTED.iter().map(|(m, _)| *m).collect();
    assert_eq!(
        names, expected,
        "a row of the table without an expectation here"
    );
    let (full, bare) = (full(), bare());
    let mut wrong = Vec::new();
    for (method, want) in EXPECTED {
        let got = [
            send(&full, method, false).await,
            send(&full, method, true).await,
            send(&bare, method, false).await,
            send(&bare, method, true).await,
        ];
        if got != *want {
            wrong.push(format!(
                "{method}: got {got:?}, want {want:?} (full legacy, full modern, bare legacy, bare modern)"
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[tokio::test]
async fn an_unknown_method_is_unoffered_in_both_eras_after_its_envelope_is_checked() {
    let server = full();
    for modern in [false, true] {
        assert_eq!(
            send(&server, "tools/frobnicate", modern).await,
            Got::Unoffered
        );
    }
    // A claim of the modern era without its capabilities is a bad envelope: -32602 first.
    let (tx, mut rx) = tokio::sync::mpsc::channel(4);
    let connection = server.connect(Peer::new(tx));
    let line = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/frobnicate", "params": {
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}
    }});
    connection.handle_line(line.to_string().as_bytes()).await;
    let answer: Value = serde_json::from_slice(&rx.recv().await.unwrap()).unwrap();
    assert_eq!(answer["error"]["code"], -32602, "{answer}");
}

#[test]
fn the_capabilities_are_the_open_gates() {
    let declared = serde_json::to_value(full().capabilities()).unwrap();
    for capability in ["tools", "resources", "prompts", "completions", "logging"] {
        assert!(
            declared.get(capability).is_some(),
            "{capability}: {declared}"
        );
    }
    assert_eq!(declared["resources"]["subscribe"], true);
    assert_eq!(
        declared["extensions"]["io.modelcontextprotocol/skills"],
        json!({"directoryRead": true}),
        "a server with skills declares the extension, inline: {declared}"
    );
    let bare = serde_json::to_value(bare().capabilities()).unwrap();
    assert_eq!(bare, json!({}), "a bare server declares nothing");
    // Completions come with either primitive that has something to complete.
    let templates_only = Server::builder("t", "1")
        .advertise(crate::server::Primitive::Resources)
        .build()
        .unwrap();
    assert!(templates_only.capabilities().completions.is_some());
}

/// A list change made right after `subscriptions/listen` arrived, before its stream's task
/// ran, is told on the stream: the lists are read before the acknowledgement (read after
/// it, a change made by this instance or another of its fleet in between was lost).
#[tokio::test]
async fn a_change_right_after_listen_arrived_is_told_on_its_stream() {
    let server = full();
    let (tx, mut rx) = tokio::sync::mpsc::channel(16);
    let connection = server.connect(Peer::new(tx));
    let listen = json!({"jsonrpc": "2.0", "id": 7, "method": "subscriptions/listen", "params": {
        "notifications": {"toolsListChanged": true},
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}
        }
    }});
    connection.handle_line(listen.to_string().as_bytes()).await;
    // One thread: the stream's task has not run yet.
    server
        .tools()
        .register(crate::tool::tool_fn(
            crate::protocol::ToolDefinition::new("late", "Added late.", json!({"type": "object"})),
            |_, _| async { "late" },
        ))
        .unwrap();
    let mut next = async || {
        let line = tokio::time::timeout(std::time::Duration::from_secs(30), rx.recv())
            .await
            .expect("a message within 30 s")
            .expect("open");
        serde_json::from_slice::<Value>(&line).unwrap()
    };
    let ack = next().await;
    assert_eq!(
        ack["method"], "notifications/subscriptions/acknowledged",
        "{ack}"
    );
    let changed = next().await;
    assert_eq!(
        changed["method"], "notifications/tools/list_changed",
        "{changed}"
    );
}
