//! The proxy (`mcp_runtime::proxy`) in front of real child processes: three upstreams
//! mounted under prefixes, one of them hostile (`hostile-server`): names stay in their
//! prefixes, bad items are left out, a 100 MB answer, a crash mid-call and a call that is
//! never answered each cost that upstream's caller an error and nothing else, and the
//! upstream is restarted.

use mcp_runtime::client::{Client, EraMode};
use mcp_runtime::protocol::CallToolResult;
use mcp_runtime::proxy::{Proxy, Upstream};
use mcp_runtime::server::{Primitive, Server};
use mcp_tests::example_bin;
use serde_json::json;
use std::time::Duration;

const HOSTILE: &str = env!("CARGO_BIN_EXE_hostile-server");

fn gateway(mounts: &[(&str, &Proxy)]) -> Server {
    let mut builder = Server::builder("gateway", "1.0.0")
        .advertise(Primitive::Tools)
        .advertise(Primitive::Prompts)
        .advertise(Primitive::Resources);
    for (prefix, proxy) in mounts {
        builder = builder.mount(*prefix, proxy.server().clone());
    }
    builder.build().expect("the gateway builds")
}

fn text(result: &CallToolResult) -> &str {
    result.first_text().unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_upstreams_under_prefixes_one_of_them_hostile() {
    let echo = example_bin("echo-server");
    let a = Proxy::start(
        Upstream::command(HOSTILE, Vec::<String>::new())
            .name("a")
            .max_message_bytes(1 << 20),
    );
    let b = Proxy::start(Upstream::command(&echo, Vec::<String>::new()).name("b"));
    let c = Proxy::start(Upstream::command(&echo, Vec::<String>::new()).name("c"));
    for proxy in [&a, &b, &c] {
        proxy.connected_times(1).await;
    }
    let gateway = gateway(&[("a", &a), ("b", &b), ("c", &c)]);
    let names = gateway.tools().names();
    for name in ["a_ok", "a_b_echo", "b_echo", "b_add", "c_echo"] {
        assert!(names.iter().any(|n| n == name), "{name} in {names:?}");
    }
    // Items that would not register on a server of ours are left out, the others kept.
    assert!(!names.iter().any(|n| n.starts_with("a_bad")), "{names:?}");
    assert_eq!(
        gateway.resources().uris(),
        [
            "echo://b/logo",
            "echo://b/readme",
            "echo://c/logo",
            "echo://c/readme"
        ]
    );

    let client = Client::memory(&gateway);
    client.connect(EraMode::Legacy).await.unwrap();
    // The hostile upstream's `b_echo` is `a_b_echo`: it cannot shadow b's `echo`.
    let echoed = client
        .call_tool("b_echo", json!({"text": "from b"}))
        .await
        .unwrap();
    assert_eq!(text(&echoed), "from b");
    let hostile = client.call_tool("a_b_echo", json!({})).await.unwrap();
    assert_eq!(text(&hostile), "hostile");

    // 100 MB: the connection is closed at the bound, the caller told, a restarted.
    let huge = client.call_tool("a_huge", json!({})).await.unwrap();
    assert_eq!(huge.is_error, Some(true), "{huge:?}");
    assert!(text(&huge).contains("`a`"), "{huge:?}");
    a.connected_times(2).await;
    let fine = client.call_tool("a_ok", json!({})).await.unwrap();
    assert_eq!(text(&fine), "fine");

    // A crash mid-call, with a call to another upstream under way.
    let (crashed, other) = tokio::join!(
        client.call_tool("a_crash", json!({})),
        client.call_tool("c_echo", json!({"text": "from c"})),
    );
    let crashed = crashed.unwrap();
    assert_eq!(crashed.is_error, Some(true), "{crashed:?}");
    assert!(text(&crashed).contains("`a`"), "{crashed:?}");
    assert_eq!(text(&other.unwrap()), "from c");
    a.connected_times(3).await;
    let fine = client.call_tool("a_ok", json!({})).await.unwrap();
    assert_eq!(text(&fine), "fine");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_upstream_that_never_answers_costs_its_caller_the_timeout_only() {
    let a = Proxy::start_with(
        Upstream::command(HOSTILE, Vec::<String>::new()).name("a"),
        Server::builder("a", "1.0.0").default_timeout(Duration::from_millis(300)),
    )
    .unwrap();
    let b =
        Proxy::start(Upstream::command(example_bin("echo-server"), Vec::<String>::new()).name("b"));
    a.connected_times(1).await;
    b.connected_times(1).await;
    let gateway = gateway(&[("a", &a), ("b", &b)]);
    let client = Client::memory(&gateway);
    client.connect(EraMode::Modern).await.unwrap();
    let (never, other) = tokio::join!(
        client.call_tool("a_never", json!({})),
        client.call_tool("b_echo", json!({"text": "meanwhile"})),
    );
    let never = never.unwrap();
    assert_eq!(never.is_error, Some(true), "{never:?}");
    assert!(text(&never).contains("timed out"), "{never:?}");
    assert_eq!(text(&other.unwrap()), "meanwhile");
    // The upstream was told, and still serves.
    let fine = client.call_tool("a_ok", json!({})).await.unwrap();
    assert_eq!(text(&fine), "fine");
}

/// No token passthrough (the MCP authorization spec): the gateway's callers and an HTTP
/// upstream accept the same token here, so a forwarded caller's token would open the
/// upstream; a gateway with no credential configured for it still gets nothing from it,
/// and one configured with the upstream's token (`bearer_token_file`) uses that.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_callers_token_never_reaches_an_upstream() {
    use mcp_tests::http::Spawned;
    let dir = tempfile::tempdir().unwrap();
    let token = "shared-by-the-callers-and-the-upstream-0123456789";
    let token_file = dir.path().join("token");
    std::fs::write(&token_file, format!("{token}\n")).unwrap();
    let token_arg = token_file.display().to_string();
    let upstream = Spawned::start("echo-server", &["--token-file", &token_arg]);
    let flat = format!("={}", upstream.url);
    let unconfigured = Spawned::start(
        "gateway",
        &["--token-file", &token_arg, "--upstream", &flat],
    );
    let config = dir.path().join("gateway.toml");
    std::fs::write(
        &config,
        format!(
            "[[upstream]]\nprefix = \"\"\nurl = \"{}\"\nbearer_token_file = '{}'\n",
            upstream.url, token_arg
        ),
    )
    .unwrap();
    let configured = Spawned::start(
        "gateway",
        &[
            "--token-file",
            &token_arg,
            "--upstream-config",
            &config.display().to_string(),
        ],
    );
    for (gateway, reaches) in [(&unconfigured, false), (&configured, true)] {
        let client = Client::http_with_token(&gateway.url, token).unwrap();
        client.connect(EraMode::Legacy).await.unwrap();
        let tools = client.list_tools().await.unwrap();
        let listed = tools.iter().any(|t| t.name == "echo");
        assert_eq!(
            listed,
            reaches,
            "echo listed: {tools:?}\n{}",
            gateway.stderr()
        );
        let call = client.call_tool("echo", json!({"text": "hi"})).await;
        if reaches {
            assert_eq!(text(&call.unwrap()), "hi");
        } else {
            assert!(
                call.is_err() || call.as_ref().is_ok_and(|r| r.is_error == Some(true)),
                "{call:?}"
            );
            let log = gateway.stderr();
            assert!(
                log.contains("401"),
                "the upstream refused the gateway: {log}"
            );
        }
    }
}

/// An HTTP upstream behind OAuth (`notes-server` verifying tokens of the real authorization
/// server for its own URL): the gateway authenticates as itself with OAuth client
/// credentials from its `--upstream-config`, its token asked for that URL (the `resource`), and the
/// upstream sees the gateway's client, never a caller.
#[tokio::test]
async fn an_upstream_behind_oauth_is_reached_with_the_gateways_client_credentials() {
    through_a_gateway_with_client_credentials(&[], "").await;
}

/// The same with `dpop = true`, at an authorization server that issues only tokens bound to
/// the key a token request proves, and asks for a nonce first: the gateway's tokens are
/// DPoP-bound and each request to the upstream proves its key.
#[tokio::test]
async fn an_upstream_is_reached_with_dpop_bound_client_credentials() {
    let dpop_only = ["dpop", "dpop-nonce", "dpop-only"];
    through_a_gateway_with_client_credentials(&dpop_only, ", dpop = true").await;
}

async fn through_a_gateway_with_client_credentials(server_args: &[&str], extra: &str) {
    use mcp_tests::http::Spawned;
    let auth = mcp_tests::oauth::AuthorizationServer::start_with(server_args);
    let notes = mcp_tests::oauth::notes_server(&auth.issuer, &["notes:read", "notes:write"]);
    let dir = tempfile::tempdir().unwrap();
    let secret = dir.path().join("secret");
    std::fs::write(&secret, "the-gateways-secret\n").unwrap();
    let config = dir.path().join("gateway.toml");
    std::fs::write(
        &config,
        format!(
            "[[upstream]]\nprefix = \"\"\nurl = \"{}\"\n\
             oauth = {{ token_url = \"{}/token\", client_id = \"gateway\", \
             client_secret_file = '{}', scopes = [\"notes:read\", \"notes:write\"]{extra} }}\n",
            notes.url,
            auth.issuer,
            secret.display()
        ),
    )
    .unwrap();
    let gateway = Spawned::start(
        "gateway",
        &["--upstream-config", &config.display().to_string()],
    );
    let client = Client::http(&gateway.url).unwrap();
    client.connect(EraMode::Legacy).await.unwrap();
    let tools = client.list_tools().await.unwrap();
    assert!(
        tools.iter().any(|t| t.name == "add_note"),
        "the upstream's tools: {tools:?}\n{}",
        gateway.stderr()
    );
    let added = client
        .call_tool("add_note", json!({"text": "through the gateway"}))
        .await
        .unwrap();
    assert_ne!(added.is_error, Some(true), "{added:?}");
    let who = client.call_tool("whoami", json!({})).await.unwrap();
    assert!(
        text(&who).contains("gateway"),
        "the upstream sees the gateway's client: {}",
        text(&who)
    );
    let listed = client.call_tool("list_notes", json!({})).await.unwrap();
    assert!(text(&listed).contains("through the gateway"), "{listed:?}");
}
