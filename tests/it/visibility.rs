//! Per-caller views (`mcp_runtime::server::visibility`): over Streamable HTTP with bearer
//! tokens granting different scopes, each caller lists only what it may use, in both eras,
//! and using a hidden tool, resource, template or prompt is refused exactly as an unknown
//! one; a `visible_if` rule hides by identity; `views_changed` tells clients to list again,
//! and so does a session's token gaining scopes;
//! a caller without scopes (in memory, like stdio) sees everything; a hidden skill takes its
//! `SKILL.md`, files and folders with it.

use mcp_runtime::client::{Client, EraMode};
use mcp_runtime::prelude::*;
use mcp_runtime::server::visibility::ItemKind;
use mcp_runtime::transport::http::{AuthError, BearerTokens, HttpOptions, Identity};
use mcp_tests::http::{legacy, modern, post, serve};
use serde_json::{Value, json};
use std::time::Duration;

/// Lists the notes.
#[mcp_tool(read_only)]
async fn list_notes() -> &'static str {
    "notes"
}

/// Deletes every note.
#[mcp_tool(destructive, scopes = ["notes:admin"])]
async fn purge_notes() -> &'static str {
    "purged"
}

/// The audit log.
#[mcp_resource(uri = "notes://audit", scopes = ["notes:admin"])]
async fn audit_log() -> String {
    "audit".into()
}

/// The notebook's settings.
#[mcp_resource(uri = "notes://settings")]
async fn settings() -> String {
    "settings".into()
}

/// One user's private notes.
#[mcp_resource(template = "notes://private/{user}", scopes = ["notes:admin"])]
async fn private_notes(user: String) -> String {
    format!("private notes of {user}")
}

/// Summarizes the notes.
#[mcp_prompt]
async fn summarize() -> String {
    "Summarize the notes.".into()
}

/// Writes an incident report.
#[mcp_prompt(scopes = ["notes:admin"])]
async fn incident_report() -> String {
    "Write the incident report.".into()
}

fn server() -> Server {
    Server::builder("notes", "1.0.0")
        .tool(list_notes::tool())
        .tool(purge_notes::tool())
        .resource(audit_log::resource())
        .resource(settings::resource())
        .resource_template(private_notes::template())
        .prompt(summarize::prompt())
        .prompt(incident_report::prompt())
        .build()
        .unwrap()
}

fn tokens() -> BearerTokens {
    BearerTokens::new([("reader", "token-reader"), ("admin", "token-admin")])
        .grant("reader", ["notes:read"])
        .grant("admin", ["notes:read", "notes:admin"])
}

/// A modern request with `token`; the JSON-RPC answer.
async fn ask(url: &str, token: &str, method: &str, params: Value) -> Value {
    let (message, mut headers) = modern(1, method, params.clone());
    // `Mcp-Name` mirrors what the request names (the helper sets it for tools/call).
    if method != "tools/call"
        && let Some(name) = params["name"].as_str().or(params["uri"].as_str())
    {
        headers.push(("mcp-name", name.to_owned()));
    }
    let bearer = format!("Bearer {token}");
    let mut headers: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
    headers.push(("authorization", &bearer));
    post(url, &headers, &message).await.answer()
}

/// The keys (`name`, `uri`, `uriTemplate`) of a list result's items.
fn keys(result: &Value, field: &str, key: &str) -> Vec<String> {
    result["result"][field]
        .as_array()
        .unwrap_or_else(|| panic!("no {field} in {result}"))
        .iter()
        .map(|i| i[key].as_str().unwrap().to_owned())
        .collect()
}

/// The error of `answer`, with the name or URI it is about replaced by `NAME`, so the
/// answers about two names compare.
fn error_shape(answer: &Value, name: &str) -> String {
    let error = &answer["error"];
    assert!(error.is_object(), "an error: {answer}");
    assert_ne!(error["code"], -32020, "a request the server read: {answer}");
    error.to_string().replace(name, "NAME")
}

#[tokio::test]
async fn each_token_lists_only_what_it_may_use_and_hidden_items_are_unknown() {
    let http = serve(server(), HttpOptions::default().auth(tokens())).await;
    let url = &http.url;
    for (token, admin) in [("token-reader", false), ("token-admin", true)] {
        let tools = ask(url, token, "tools/list", json!({})).await;
        let resources = ask(url, token, "resources/list", json!({})).await;
        let templates = ask(url, token, "resources/templates/list", json!({})).await;
        let prompts = ask(url, token, "prompts/list", json!({})).await;
        let (tools, resources) = (
            keys(&tools, "tools", "name"),
            keys(&resources, "resources", "uri"),
        );
        let templates = keys(&templates, "resourceTemplates", "uriTemplate");
        let prompts = keys(&prompts, "prompts", "name");
        if admin {
            assert_eq!(tools, ["list_notes", "purge_notes"]);
            assert_eq!(resources, ["notes://audit", "notes://settings"]);
            assert_eq!(templates, ["notes://private/{user}"]);
            assert_eq!(prompts, ["incident_report", "summarize"]);
        } else {
            assert_eq!(tools, ["list_notes"]);
            assert_eq!(resources, ["notes://settings"]);
            assert!(templates.is_empty(), "{templates:?}");
            assert_eq!(prompts, ["summarize"]);
        }
    }

    // To the reader, the hidden items answer exactly as names that do not exist.
    let reader = "token-reader";
    let call = |name: &str| json!({"name": name, "arguments": {}});
    for (method, hidden, missing, params) in [
        (
            "tools/call",
            "purge_notes",
            "no_such_tool",
            call as fn(&str) -> Value,
        ),
        (
            "prompts/get",
            "incident_report",
            "no_such_prompt",
            |n: &str| json!({"name": n}),
        ),
        (
            "resources/read",
            "notes://audit",
            "notes://nothing",
            |u: &str| json!({"uri": u}),
        ),
        (
            "resources/read",
            "notes://private/alice",
            "nothing://private/alice",
            |u: &str| json!({"uri": u}),
        ),
    ] {
        let refused = ask(url, reader, method, params(hidden)).await;
        let unknown = ask(url, reader, method, params(missing)).await;
        assert_eq!(
            error_shape(&refused, hidden),
            error_shape(&unknown, missing),
            "{method} {hidden}: {refused} vs {unknown}"
        );
    }
    // The admin uses them.
    let admin = "token-admin";
    let purged = ask(url, admin, "tools/call", call("purge_notes")).await;
    assert_eq!(purged["result"]["content"][0]["text"], "purged", "{purged}");
    let read = ask(
        url,
        admin,
        "resources/read",
        json!({"uri": "notes://private/bo"}),
    )
    .await;
    assert_eq!(
        read["result"]["contents"][0]["text"], "private notes of bo",
        "{read}"
    );
    let got = ask(
        url,
        admin,
        "prompts/get",
        json!({"name": "incident_report"}),
    )
    .await;
    assert!(got["result"]["messages"].is_array(), "{got}");
}

#[tokio::test]
async fn a_legacy_session_sees_its_tokens_view_too() {
    let http = serve(server(), HttpOptions::default().auth(tokens())).await;
    let url = &http.url;
    let init = legacy(
        0,
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {},
               "clientInfo": {"name": "t", "version": "1"}}),
    );
    let auth = [("authorization", "Bearer token-reader")];
    let opened = post(url, &auth, &init).await;
    let session = opened
        .header("mcp-session-id")
        .expect("a session")
        .to_owned();
    let headers = [
        ("authorization", "Bearer token-reader"),
        ("mcp-session-id", session.as_str()),
        ("mcp-protocol-version", "2025-11-25"),
    ];
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    post(url, &headers, &initialized).await;
    let tools = post(url, &headers, &legacy(1, "tools/list", json!({}))).await;
    assert_eq!(keys(&tools.answer(), "tools", "name"), ["list_notes"]);
    let refused = post(
        url,
        &headers,
        &legacy(
            2,
            "tools/call",
            json!({"name": "purge_notes", "arguments": {}}),
        ),
    )
    .await
    .answer();
    assert_eq!(
        refused["error"]["message"],
        "Invalid params: Unknown tool: purge_notes"
    );
}

/// Alice's two tokens: one to read, one stepped up to administer.
struct Alice;

impl mcp_runtime::transport::http::Authenticator for Alice {
    fn authenticate<'a>(
        &'a self,
        token: Option<&'a str>,
        _request: &'a mcp_runtime::transport::http::http::request::Parts,
    ) -> futures::future::BoxFuture<'a, Result<Identity, AuthError>> {
        let scopes: &[&str] = match token {
            Some("alice-read") => &["notes:read"],
            Some("alice-admin") => &["notes:read", "notes:admin"],
            _ => &[],
        };
        let identity = match token {
            Some(_) if !scopes.is_empty() => {
                Ok(Identity::subject("alice").with_scopes(scopes.iter().copied()))
            }
            Some(_) => Err(AuthError::invalid_token("not one of alice's tokens")),
            None => Err(AuthError::missing()),
        };
        Box::pin(std::future::ready(identity))
    }
}

/// A legacy session whose token is stepped up (same subject, more scopes) is told to list
/// again, on its stream, and then lists the new view.
#[tokio::test]
async fn a_session_whose_token_gains_scopes_is_told_to_list_again() {
    use mcp_tests::http::{SseReader, open};
    let http = serve(server(), HttpOptions::default().auth(Alice)).await;
    let url = &http.url;
    let init = legacy(
        0,
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {},
               "clientInfo": {"name": "t", "version": "1"}}),
    );
    let opened = post(url, &[("authorization", "Bearer alice-read")], &init).await;
    let session = opened
        .header("mcp-session-id")
        .expect("a session")
        .to_owned();
    let with = |token: &'static str| {
        [
            ("authorization", token),
            ("mcp-session-id", session.as_str()),
            ("mcp-protocol-version", "2025-11-25"),
        ]
    };
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    post(url, &with("Bearer alice-read"), &initialized).await;
    let mut get = with("Bearer alice-read").to_vec();
    get.push(("accept", "text/event-stream"));
    let mut stream = SseReader::new(open(http::Method::GET, url, &get, "").await);
    let tools = post(
        url,
        &with("Bearer alice-read"),
        &legacy(1, "tools/list", json!({})),
    )
    .await;
    assert_eq!(keys(&tools.answer(), "tools", "name"), ["list_notes"]);

    let tools = post(
        url,
        &with("Bearer alice-admin"),
        &legacy(2, "tools/list", json!({})),
    )
    .await;
    assert_eq!(
        keys(&tools.answer(), "tools", "name"),
        ["list_notes", "purge_notes"]
    );
    let told = stream
        .next_message(Duration::from_secs(10))
        .await
        .expect("a notification on the session's stream");
    assert!(
        told["method"]
            .as_str()
            .is_some_and(|m| m.ends_with("/list_changed")),
        "{told}"
    );
}

#[tokio::test]
async fn a_rule_hides_by_identity_and_views_changed_tells_clients_to_list_again() {
    let server = Server::builder("notes", "1.0.0")
        .tool(list_notes::tool())
        .tool(purge_notes::tool())
        .prompt(summarize::prompt())
        .visible_if(|caller, item| {
            item.kind() != ItemKind::Prompt || caller.identity() == Some("admin")
        })
        .build()
        .unwrap();
    let http = serve(server.clone(), HttpOptions::default().auth(tokens())).await;
    let url = &http.url;
    let prompts = ask(url, "token-reader", "prompts/list", json!({})).await;
    assert!(keys(&prompts, "prompts", "name").is_empty(), "{prompts}");
    let got = ask(
        url,
        "token-reader",
        "prompts/get",
        json!({"name": "summarize"}),
    )
    .await;
    assert!(got["error"].is_object(), "{got}");
    let prompts = ask(url, "token-admin", "prompts/list", json!({})).await;
    assert_eq!(keys(&prompts, "prompts", "name"), ["summarize"]);

    // In memory (as over stdio) the caller holds no scopes: it sees every tool. The rule
    // still applies to it (no identity: no prompts).
    let local = Client::memory(&server);
    local.connect(EraMode::Legacy).await.unwrap();
    let mut notes = local.take_unrouted().unwrap();
    let tools: Vec<String> = local
        .list_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name)
        .collect();
    assert_eq!(tools, ["list_notes", "purge_notes"]);
    assert!(local.list_prompts().await.unwrap().is_empty());
    server.views_changed();
    let mut methods = Vec::new();
    // The lists this server has (it has no resources).
    while methods.len() < 2 {
        let n = tokio::time::timeout(Duration::from_secs(10), notes.recv())
            .await
            .expect("a notification in time")
            .expect("open");
        methods.push(n["method"].as_str().unwrap_or_default().to_owned());
    }
    methods.sort();
    assert_eq!(
        methods,
        [
            "notifications/prompts/list_changed",
            "notifications/tools/list_changed"
        ]
    );
}

#[tokio::test]
async fn step_up_lists_scoped_tools_and_answers_with_a_challenge() {
    let server = Server::builder("notes", "1.0.0")
        .tool(list_notes::tool())
        .tool(purge_notes::tool())
        .step_up_scopes()
        .build()
        .unwrap();
    let http = serve(server, HttpOptions::default().auth(tokens())).await;
    let tools = ask(&http.url, "token-reader", "tools/list", json!({})).await;
    assert_eq!(keys(&tools, "tools", "name"), ["list_notes", "purge_notes"]);
    let (message, headers) = modern(
        2,
        "tools/call",
        json!({"name": "purge_notes", "arguments": {}}),
    );
    let mut headers: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
    headers.push(("authorization", "Bearer token-reader"));
    let refused = post(&http.url, &headers, &message).await;
    assert_eq!(refused.status, 403);
    assert!(
        refused
            .header("www-authenticate")
            .is_some_and(|c| c.contains("insufficient_scope")),
        "{refused:?}"
    );
}

/// A skill is one item: hidden, it is in no list, and `skills/get`, reads of its files and
/// `resources/directory/read` of its folder answer as for a skill that does not exist.
#[tokio::test]
async fn a_hidden_skill_is_unlisted_and_its_files_and_folders_do_not_exist() {
    use mcp_runtime::skill::Skill;
    let greeting = Skill::new("---\nname: greeting\ndescription: Greets people.\n---\nHello.\n");
    let runbook = Skill::new(
        "---\nname: incident-runbook\ndescription: Steps for an outage.\n---\nSee steps/restart.md.\n",
    )
    .file("steps/restart.md", "Restart the notes service.")
    .scopes(["notes:admin"]);
    let internal =
        Skill::new("---\nname: payroll\ndescription: Runs payroll.\n---\nAsk finance.\n")
            .under("internal");
    let server = Server::builder("notes", "1.0.0")
        .skill(greeting)
        .skill(runbook)
        .skill(internal)
        // A rule for the skills that declare no scopes (a skills folder's): the `internal`
        // group is the admin's.
        .visible_if(|caller, item| {
            item.kind() != ItemKind::Skill
                || !item.key().starts_with("skill://internal/")
                || caller.identity() == Some("admin")
        })
        .build()
        .unwrap();
    let http = serve(server, HttpOptions::default().auth(tokens())).await;
    let url = &http.url;
    let (reader, admin) = ("token-reader", "token-admin");

    let skills = ask(url, reader, "skills/list", json!({})).await;
    assert_eq!(
        keys(&skills, "skills", "uri"),
        ["skill://greeting/SKILL.md"]
    );
    let resources = ask(url, reader, "resources/list", json!({})).await;
    assert_eq!(
        keys(&resources, "resources", "uri"),
        ["skill://greeting/SKILL.md"]
    );
    let skills = ask(url, admin, "skills/list", json!({})).await;
    assert_eq!(
        keys(&skills, "skills", "uri"),
        [
            "skill://greeting/SKILL.md",
            "skill://incident-runbook/SKILL.md",
            "skill://internal/payroll/SKILL.md"
        ]
    );
    let resources = ask(url, admin, "resources/list", json!({})).await;
    assert_eq!(keys(&resources, "resources", "uri").len(), 3, "{resources}");

    let uri = |u: &str| json!({"uri": u});
    for (method, hidden, missing) in [
        (
            "skills/get",
            "skill://incident-runbook/SKILL.md",
            "skill://no-such-skill/SKILL.md",
        ),
        (
            "skills/get",
            "skill://internal/payroll/SKILL.md",
            "skill://internal/no-such/SKILL.md",
        ),
        (
            "resources/read",
            "skill://incident-runbook/SKILL.md",
            "skill://no-such-skill/SKILL.md",
        ),
        (
            "resources/read",
            "skill://incident-runbook/steps/restart.md",
            "skill://no-such-skill/steps/restart.md",
        ),
        (
            "resources/read",
            "skill://internal/payroll/SKILL.md",
            "skill://internal/no-such/SKILL.md",
        ),
        (
            "resources/directory/read",
            "skill://incident-runbook/steps",
            "skill://no-such-skill/steps",
        ),
    ] {
        let refused = ask(url, reader, method, uri(hidden)).await;
        let unknown = ask(url, reader, method, uri(missing)).await;
        assert_eq!(
            error_shape(&refused, hidden),
            error_shape(&unknown, missing),
            "{method} {hidden}: {refused} vs {unknown}"
        );
    }

    // The admin gets the skill, reads its file and lists its folder.
    let got = ask(
        url,
        admin,
        "skills/get",
        uri("skill://incident-runbook/SKILL.md"),
    )
    .await;
    assert_eq!(
        got["result"]["skill"]["uri"], "skill://incident-runbook/SKILL.md",
        "{got}"
    );
    let read = ask(
        url,
        admin,
        "resources/read",
        uri("skill://incident-runbook/steps/restart.md"),
    )
    .await;
    assert_eq!(
        read["result"]["contents"][0]["text"], "Restart the notes service.",
        "{read}"
    );
    let listed = ask(
        url,
        admin,
        "resources/directory/read",
        uri("skill://incident-runbook/steps"),
    )
    .await;
    assert_eq!(
        keys(&listed, "resources", "uri"),
        ["skill://incident-runbook/steps/restart.md"]
    );
}
