//! The relay walked through sessions line by line: handshakes, restarts, crashes, both eras.

use super::*;

const INIT: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

fn init_answer(id: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"result":{{"protocolVersion":"2025-11-25","capabilities":{{"tools":{{}},"prompts":{{"listChanged":false}}}},"serverInfo":{{"name":"s","version":"1"}}}}}}"#
    )
}

fn to_client(actions: &[Action]) -> Vec<Value> {
    actions
        .iter()
        .filter_map(|a| match a {
            Action::ToClient(line) => Some(serde_json::from_str(line).unwrap()),
            _ => None,
        })
        .collect()
}

fn to_server(actions: &[Action], server: Generation) -> Vec<Value> {
    actions
        .iter()
        .filter_map(|a| match a {
            Action::ToServer(g, line) if *g == server => Some(serde_json::from_str(line).unwrap()),
            _ => None,
        })
        .collect()
}

/// A legacy session served by server 1: initialized, its answer seen.
fn legacy_session() -> Relay {
    let mut relay = Relay::new();
    assert!(relay.from_client(INIT).is_empty(), "waits for a server");
    let actions = relay.started(1);
    assert_eq!(to_server(&actions, 1)[0]["method"], "initialize");
    let answer = relay.from_server(1, &init_answer("0"));
    let given = &to_client(&answer)[0]["result"]["capabilities"];
    assert_eq!(given["tools"]["listChanged"], true);
    assert_eq!(given["prompts"]["listChanged"], true);
    relay.from_client(INITIALIZED);
    relay
}

#[test]
fn a_restart_replays_initialize_and_announces_the_lists_the_client_knows() {
    let mut relay = legacy_session();
    let actions = relay.started(2);
    assert_eq!(actions[0], Action::Retire(1));
    let replayed = to_server(&actions, 2);
    assert_eq!(replayed[0]["method"], "initialize");
    assert_eq!(replayed[0]["id"], "cargo-mcp-dev/initialize/2");
    assert_eq!(replayed[0]["params"]["clientInfo"]["name"], "t");
    // A request during the restart waits for the new server.
    let call = r#"{"jsonrpc":"2.0","id":7,"method":"tools/list"}"#;
    assert!(relay.from_client(call).is_empty());

    let actions = relay.from_server(2, &init_answer("\"cargo-mcp-dev/initialize/2\""));
    let sent = to_server(&actions, 2);
    assert_eq!(sent[0]["method"], "notifications/initialized");
    assert_eq!(sent[1]["id"], 7);
    let told: Vec<Value> = to_client(&actions)
        .into_iter()
        .map(|m| m["method"].clone())
        .collect();
    assert_eq!(
        told,
        [
            "notifications/tools/list_changed",
            "notifications/prompts/list_changed"
        ]
    );
}

#[test]
fn the_old_server_finishes_its_requests_and_what_it_leaves_gets_an_error() {
    let mut relay = legacy_session();
    relay.from_client(r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}"#);
    relay.from_client(r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{}}"#);
    relay.started(2);
    let late = relay.from_server(1, r#"{"jsonrpc":"2.0","id":1,"result":{}}"#);
    assert_eq!(
        to_client(&late)[0]["id"],
        1,
        "the old server's answer passes"
    );
    let gone = relay.exited(1, "exit status: 0");
    let errors = to_client(&gone);
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0]["id"], 2);
    assert_eq!(errors[0]["error"]["code"], RELAY_ERROR);
    assert!(
        !gone.iter().any(|a| matches!(a, Action::Report(_))),
        "a retired server's exit is expected"
    );
}

#[test]
fn a_crash_answers_pending_and_later_requests_until_the_next_build() {
    let mut relay = legacy_session();
    relay.from_client(r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}"#);
    let actions = relay.exited(1, "signal: 11");
    assert!(matches!(&actions[0], Action::Report(r) if r.contains("signal: 11")));
    assert_eq!(to_client(&actions)[0]["id"], 1);
    let refused = relay.from_client(r#"{"jsonrpc":"2.0","id":"x","method":"tools/list"}"#);
    assert_eq!(to_client(&refused)[0]["id"], "x");
    // The next good build serves again, re-initialized.
    let actions = relay.started(2);
    assert_eq!(to_server(&actions, 2)[0]["method"], "initialize");
    assert!(!actions.contains(&Action::Retire(1)));
}

#[test]
fn server_requests_are_answered_to_the_server_that_asked() {
    let mut relay = legacy_session();
    let ask = r#"{"jsonrpc":"2.0","id":"s-1","method":"elicitation/create","params":{}}"#;
    assert_eq!(to_client(&relay.from_server(1, ask))[0]["id"], "s-1");
    relay.started(2);
    relay.from_server(2, &init_answer("\"cargo-mcp-dev/initialize/2\""));
    let answer = relay.from_client(r#"{"jsonrpc":"2.0","id":"s-1","result":{}}"#);
    assert_eq!(
        to_server(&answer, 1).len(),
        1,
        "to the old server, still finishing"
    );
    assert!(to_server(&answer, 2).is_empty());
}

#[test]
fn a_modern_listen_moves_to_the_new_server_and_gets_tagged_notifications() {
    let mut relay = Relay::new();
    relay.started(1);
    let listen = r#"{"jsonrpc":"2.0","id":5,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true}}}"#;
    assert_eq!(to_server(&relay.from_client(listen), 1).len(), 1);
    let ack = r#"{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"notifications":{"toolsListChanged":true},"_meta":{"io.modelcontextprotocol/subscriptionId":5}}}"#;
    assert_eq!(to_client(&relay.from_server(1, ack)).len(), 1);

    let actions = relay.started(2);
    assert_eq!(to_server(&actions, 2)[0]["method"], "subscriptions/listen");
    let told = to_client(&actions);
    assert_eq!(told.len(), 1);
    assert_eq!(told[0]["method"], "notifications/tools/list_changed");
    assert_eq!(told[0]["params"]["_meta"][SUBSCRIPTION_ID_KEY], 5);
    assert!(
        relay.from_server(2, ack).is_empty(),
        "the second ack is swallowed"
    );
    // The old server closing its stream does not end the client's.
    let end = r#"{"jsonrpc":"2.0","id":5,"result":{"resultType":"complete"}}"#;
    assert!(relay.from_server(1, end).is_empty());
    assert!(to_client(&relay.exited(1, "exit status: 0")).is_empty());
}

#[test]
fn bad_lines_are_reported_or_passed_never_fatal() {
    let mut relay = legacy_session();
    let from_server = relay.from_server(1, "hello from println!");
    assert!(matches!(&from_server[..], [Action::Report(r)] if r.contains("hello from println!")));
    let from_client = relay.from_client("{not json");
    assert_eq!(from_client, [Action::ToServer(1, "{not json".into())]);
    assert!(relay.from_client("   ").is_empty());
}

#[test]
fn a_refused_replay_stops_the_server_and_answers_what_waited() {
    let mut relay = legacy_session();
    relay.started(2);
    relay.from_client(r#"{"jsonrpc":"2.0","id":9,"method":"tools/list"}"#);
    let refused = r#"{"jsonrpc":"2.0","id":"cargo-mcp-dev/initialize/2","error":{"code":-32602,"message":"no"}}"#;
    let actions = relay.from_server(2, refused);
    assert!(actions.contains(&Action::Retire(2)));
    assert_eq!(to_client(&actions)[0]["id"], 9);
    assert_eq!(relay.current(), None);
}
