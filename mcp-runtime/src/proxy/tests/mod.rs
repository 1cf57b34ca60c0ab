use super::*;
use crate::client::Client;
use crate::prompt::prompt_fn;
use crate::protocol::{
    PromptDefinition, ResourceDefinition, ResourceTemplateDefinition, ToolDefinition,
};
use crate::resource::resource_fn;
use crate::tool::tool_fn;
use serde_json::json;

mod apps;
mod questions;

impl Upstream {
    /// `server`, over the in-memory transport.
    fn memory(server: Server) -> Self {
        Self {
            name: "memory".into(),
            target: Target::Memory(server),
            era: EraMode::Legacy,
            max_message_bytes: DEFAULT_MAX_MESSAGE_BYTES,
            per_client: None,
        }
    }
}

/// The upstream: a tool echoing `text`, one reporting progress, a prompt, a resource and a
/// template.
fn upstream() -> Server {
    Server::builder("upstream", "1.0.0")
        .tool(tool_fn(
            ToolDefinition::new(
                "echo",
                "Says it back.",
                json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}),
            ),
            |args, _| async move { args["text"].as_str().unwrap_or_default().to_owned() },
        ))
        .tool(tool_fn(
            ToolDefinition::new("count", "Counts to three.", json!({"type": "object"})),
            |_, cx| async move {
                for i in 1..=3 {
                    cx.progress(f64::from(i), Some(3.0), Some("counting")).await;
                }
                "counted"
            },
        ))
        .prompt(prompt_fn(
            PromptDefinition::new("greet", "Greets."),
            |_, _| async { "hello" },
        ))
        .resource(resource_fn(
            ResourceDefinition::new("data://readme", "readme"),
            |_| async { "read me" },
        ))
        .resource_template(Items)
        .build()
        .unwrap()
}

/// `data://items/{id}`: "item {id}", ids completed from one to three.
struct Items;

impl crate::resource::ResourceTemplate for Items {
    fn definition(&self) -> ResourceTemplateDefinition {
        ResourceTemplateDefinition::new("data://items/{id}", "items")
    }

    fn read(
        &self,
        uri: String,
        variables: crate::resource::Variables,
        _: crate::context::RequestContext,
    ) -> futures::future::BoxFuture<
        'static,
        Result<Vec<crate::protocol::ResourceContents>, crate::resource::ResourceError>,
    > {
        let text = format!("item {}", variables.get("id").unwrap_or("?"));
        Box::pin(async move {
            use crate::resource::IntoContents as _;
            text.into_contents(&uri, None)
        })
    }

    fn complete(
        &self,
        _: &str,
        value: &str,
        _: &std::collections::BTreeMap<String, String>,
    ) -> futures::future::BoxFuture<'static, crate::protocol::Completion> {
        let values: Vec<String> = ["one", "three", "two"]
            .into_iter()
            .filter(|v| v.starts_with(value))
            .map(str::to_owned)
            .collect();
        Box::pin(async move { crate::protocol::Completion::from_all(values) })
    }
}

/// `tools/call` of `name` without arguments: the result as the gateway sent it (a task
/// handle or an `input_required` round included).
async fn call_raw(client: &Client, name: &str) -> Value {
    client
        .request_cancellable(
            "tools/call",
            Some(json!({ "name": name, "arguments": {} })),
            None,
        )
        .await
        .unwrap()
}

/// Serves `server` over Streamable HTTP on a loopback port until the test ends; its URL.
#[cfg(feature = "http")]
async fn serve_http(server: Server) -> String {
    let http = crate::transport::http::HttpServer::bind(
        "127.0.0.1:0",
        server,
        crate::transport::http::HttpOptions::default(),
    )
    .await
    .unwrap();
    let url = http.url();
    tokio::spawn(http.run_until(std::future::pending()));
    url
}

/// A gateway mounting `proxy` as `up`, offering every primitive.
fn gateway(proxy: &Proxy) -> Server {
    Server::builder("gateway", "1.0.0")
        .advertise(Primitive::Tools)
        .advertise(Primitive::Prompts)
        .advertise(Primitive::Resources)
        .mount("up", proxy.server().clone())
        .build()
        .unwrap()
}

/// Registers `later` (answering "later") on `upstream`: a change of its tools.
fn add_later(upstream: &Server) {
    upstream
        .tools()
        .register(tool_fn(
            ToolDefinition::new("later", "Added later.", json!({"type": "object"})),
            |_, _| async { "later" },
        ))
        .unwrap();
}

/// `upstream` proxied over 2026-07-28, once connected, and mounted under `up`.
async fn modern_gateway(upstream: Server) -> (Proxy, Server) {
    let proxy = Proxy::start(Upstream::memory(upstream).era(EraMode::Modern));
    proxy.connected_times(1).await;
    let gateway = Server::builder("gateway", "1.0.0")
        .mount("up", proxy.server().clone())
        .build()
        .unwrap();
    (proxy, gateway)
}

/// `upstream` proxied, once connected, and mounted under `up` on a server that logs.
async fn logging_gateway(upstream: Server) -> (Proxy, Server) {
    let proxy = Proxy::start(Upstream::memory(upstream));
    proxy.connected_times(1).await;
    let gateway = Server::builder("gateway", "1.0.0")
        .logging(true)
        .mount("up", proxy.server().clone())
        .build()
        .unwrap();
    (proxy, gateway)
}

#[tokio::test]
async fn a_proxied_servers_items_are_served_under_the_mount_in_both_eras() {
    let proxy = Proxy::start(Upstream::memory(upstream()));
    proxy.connected_times(1).await;
    let gateway = gateway(&proxy);
    assert_eq!(gateway.tools().names(), ["up_count", "up_echo"]);
    for era in [EraMode::Legacy, EraMode::Modern] {
        let client = Client::memory(&gateway);
        client.connect(era).await.unwrap();
        let echoed = client
            .call_tool("up_echo", json!({"text": "hi"}))
            .await
            .unwrap();
        assert_eq!(echoed.first_text(), Some("hi"), "{era:?}");
        // The upstream's schema is checked on the way in, by the gateway.
        let refused = client.call_tool("up_echo", json!({})).await;
        let refused = format!("{refused:?}");
        assert!(refused.contains("text"), "{era:?}: {refused}");
        let read = client.read_resource("data://up/readme").await.unwrap();
        let contents = serde_json::to_value(&read.contents[0]).unwrap();
        assert_eq!(contents["uri"], "data://up/readme", "{era:?}");
        assert_eq!(contents["text"], "read me", "{era:?}");
        let read = client.read_resource("data://up/items/7").await.unwrap();
        let contents = serde_json::to_value(&read.contents[0]).unwrap();
        assert_eq!(contents["uri"], "data://up/items/7", "{era:?}");
        assert_eq!(contents["text"], "item 7", "{era:?}");
        let got = client
            .get_prompt("up_greet", &Default::default())
            .await
            .unwrap();
        let text = serde_json::to_value(&got.messages[0].content).unwrap();
        assert_eq!(text["text"], "hello", "{era:?}");
        let completed = client
            .complete(
                &crate::protocol::CompletionReference::Resource {
                    uri: "data://up/items/{id}".into(),
                },
                "id",
                "t",
                &Default::default(),
            )
            .await
            .unwrap();
        assert_eq!(completed.values, ["three", "two"], "{era:?}");
        let missing = client.read_resource("data://up/nothing").await.unwrap_err();
        assert!(
            missing.as_protocol().is_some(),
            "{era:?}: a read of nothing is a protocol error: {missing}"
        );
    }
}

/// A caller's own `_meta` keys reach the upstream's tool, and the tool's result `_meta`
/// reaches the caller, in both eras; the protocol's own keys are each hop's.
#[tokio::test]
async fn meta_passes_through_both_ways_in_both_eras() {
    let upstream = Server::builder("upstream", "1.0.0")
        .tool(tool_fn(
            ToolDefinition::new("meta", "Shows its _meta.", json!({"type": "object"})),
            |_, cx| async move {
                let seen = cx.meta().cloned().unwrap_or_default();
                let mut result =
                    crate::protocol::CallToolResult::text(serde_json::to_string(&seen).unwrap());
                result.meta = json!({"com.example/served-by": "upstream"})
                    .as_object()
                    .cloned();
                result
            },
        ))
        .build()
        .unwrap();
    for era in [EraMode::Legacy, EraMode::Modern] {
        let proxy = Proxy::start(Upstream::memory(upstream.clone()).era(era));
        proxy.connected_times(1).await;
        let gateway = gateway(&proxy);
        for caller in [EraMode::Legacy, EraMode::Modern] {
            let client = Client::memory(&gateway);
            client.connect(caller).await.unwrap();
            let answer = client
                .request(
                    "tools/call",
                    Some(json!({
                        "name": "up_meta",
                        "arguments": {},
                        "_meta": {"com.example/tenant": "acme"},
                    })),
                )
                .await
                .unwrap();
            let label = format!("upstream {era:?}, caller {caller:?}");
            let seen: Value =
                serde_json::from_str(answer["content"][0]["text"].as_str().unwrap()).unwrap();
            assert_eq!(seen, json!({"com.example/tenant": "acme"}), "{label}");
            assert_eq!(
                answer["_meta"]["com.example/served-by"], "upstream",
                "{label}: {answer}"
            );
        }
    }
}

#[tokio::test]
async fn a_proxy_ends_with_its_last_user() {
    let proxy = Proxy::start(Upstream::memory(upstream()));
    proxy.connected_times(1).await;
    let link = Arc::downgrade(&proxy.link);
    let server = proxy.server().clone();
    drop(proxy);
    assert!(link.upgrade().is_some(), "its server keeps it");
    drop(server);
    assert!(link.upgrade().is_none(), "nothing else does");
}

#[tokio::test]
async fn progress_is_relayed_to_the_caller_in_order() {
    let proxy = Proxy::start(Upstream::memory(upstream()));
    proxy.connected_times(1).await;
    let gateway = gateway(&proxy);
    let client = Client::memory(&gateway);
    let mut heard = client.take_unrouted().unwrap();
    client.connect(EraMode::Legacy).await.unwrap();
    let result = client
        .request(
            "tools/call",
            Some(json!({"name": "up_count", "arguments": {}, "_meta": {"progressToken": "mine"}})),
        )
        .await
        .unwrap();
    assert_eq!(result["content"][0]["text"], "counted");
    let mut progress = Vec::new();
    while let Ok(note) = heard.try_recv() {
        if note["method"] == "notifications/progress" {
            assert_eq!(note["params"]["progressToken"], "mine", "{note}");
            progress.push(note["params"]["progress"].as_f64().unwrap());
        }
    }
    assert_eq!(progress, [1.0, 2.0, 3.0]);
}

/// `upstream` changed once the proxy of it, reached through `target`, is connected: the
/// gateway's client hears `tools/list_changed` and can call the new tool.
async fn list_changes_reach_the_gateway(upstream: &Server, target: Upstream, label: &str) {
    let proxy = Proxy::start(target);
    proxy.connected_times(1).await;
    let gateway = gateway(&proxy);
    let client = Client::memory(&gateway);
    let mut heard = client.take_unrouted().unwrap();
    client.connect(EraMode::Legacy).await.unwrap();
    add_later(upstream);
    let told = tokio::time::timeout(Duration::from_secs(60), async {
        loop {
            let note = heard.recv().await.unwrap();
            if note["method"] == "notifications/tools/list_changed" {
                break;
            }
        }
    });
    told.await
        .unwrap_or_else(|_| panic!("{label}: no list change reached the gateway's client"));
    assert_eq!(
        gateway.tools().names(),
        ["up_count", "up_echo", "up_later"],
        "{label}"
    );
    let result = client.call_tool("up_later", json!({})).await.unwrap();
    assert_eq!(result.first_text(), Some("later"), "{label}");
}

/// Listing again what the upstream listed before (as the proxy does when a 2026-07-28
/// listen stream opens, and at each reconnection) changes nothing: the mirror's clients
/// hear no `list_changed` for it (a client reading answers in order would have taken one
/// for an answer). A change the upstream tells of is passed on even with the same
/// listing (the 2026-07-28 suite's `test_trigger_tool_change`), and a real change is
/// heard.
#[tokio::test]
async fn listing_the_same_again_changes_nothing() {
    for era in [EraMode::Legacy, EraMode::Modern] {
        let upstream = upstream();
        let proxy = Proxy::start(Upstream::memory(upstream.clone()).era(era));
        proxy.connected_times(1).await;
        let mut generations = proxy.server().registry().subscribe();
        let client = proxy.link.client.read().unwrap().clone().unwrap();
        mirror::sync(
            &proxy.link,
            &client,
            proxy.server(),
            Resync::Check,
            &Primitive::ALL,
        )
        .await;
        assert!(
            !generations.has_changed().unwrap(),
            "{era:?}: the same lists again were taken for a change"
        );
        // The upstream saying its tools changed is passed on, even with the same listing.
        mirror::sync(
            &proxy.link,
            &client,
            proxy.server(),
            Resync::Told,
            &[Primitive::Tools],
        )
        .await;
        assert!(
            generations.has_changed().unwrap(),
            "{era:?}: a change the upstream told of was not passed on"
        );
        generations.mark_unchanged();
        add_later(&upstream);
        mirror::sync(
            &proxy.link,
            &client,
            proxy.server(),
            Resync::Check,
            &[Primitive::Tools],
        )
        .await;
        tokio::time::timeout(Duration::from_secs(60), generations.changed())
            .await
            .unwrap_or_else(|_| panic!("{era:?}: a new tool was not a change"))
            .unwrap();
        assert!(proxy.server().tools().names().contains(&"later".to_owned()));
    }
}

#[tokio::test]
async fn the_upstreams_list_changes_reach_the_gateways_clients() {
    // Over a 2025 session, and over 2026-07-28 through the listen stream the proxy keeps.
    for era in [EraMode::Legacy, EraMode::Modern] {
        let upstream = upstream();
        let target = Upstream::memory(upstream.clone()).era(era);
        list_changes_reach_the_gateway(&upstream, target, &format!("{era:?}")).await;
    }
}

/// The same over Streamable HTTP: a 2025 session's changes come on its standalone (GET)
/// stream, a 2026-07-28 connection's on its listen stream.
#[cfg(feature = "http")]
#[tokio::test]
async fn an_http_upstreams_list_changes_reach_the_gateways_clients() {
    for era in [EraMode::Legacy, EraMode::Modern] {
        let upstream = upstream();
        let url = serve_http(upstream.clone()).await;
        let target = Upstream::http(&url).era(era);
        list_changes_reach_the_gateway(&upstream, target, &format!("HTTP {era:?}")).await;
    }
}

#[tokio::test]
async fn an_unreachable_upstream_tells_its_callers_why() {
    let proxy = Proxy::start(Upstream::command(
        "/this/program/does/not/exist",
        Vec::<String>::new(),
    ));
    assert!(!proxy.connected());
    // "not connected yet" until the first attempt failed; then why it failed.
    proxy.first_attempt().await;
    assert!(!proxy.connected());
    let unavailable = proxy.link.client().unwrap_err().to_string();
    assert!(
        unavailable.contains("unavailable") && unavailable.contains("/this/program/does/not/exist"),
        "{unavailable}"
    );
}

/// Notifies when dropped.
struct NotifyOnDrop(Arc<tokio::sync::Notify>);

impl Drop for NotifyOnDrop {
    fn drop(&mut self) {
        self.0.notify_one();
    }
}

/// `wait`, under `policy`: tells `started` when it runs, then waits until its call is
/// dropped (the upstream's pipeline drops a cancelled call), and tells `stopped` then.
fn waits_until_cancelled(
    started: Arc<tokio::sync::Notify>,
    stopped: Arc<tokio::sync::Notify>,
    policy: crate::tool::ToolPolicy,
) -> impl crate::tool::Tool {
    tool_fn(
        ToolDefinition::new("wait", "Waits until cancelled.", json!({"type": "object"})),
        move |_, _| {
            let (started, stopped) = (started.clone(), stopped.clone());
            async move {
                let _stopped = NotifyOnDrop(stopped);
                started.notify_one();
                std::future::pending::<&str>().await
            }
        },
    )
    .with_policy(policy)
}

#[tokio::test]
async fn a_call_cancelled_at_the_gateway_is_cancelled_upstream() {
    let (started, stopped) = (
        Arc::new(tokio::sync::Notify::new()),
        Arc::new(tokio::sync::Notify::new()),
    );
    let (starting, told) = (started.clone(), stopped.clone());
    let upstream = Server::builder("upstream", "1.0.0")
        .tool(waits_until_cancelled(
            starting,
            told,
            crate::tool::ToolPolicy::new(),
        ))
        .build()
        .unwrap();
    let proxy = Proxy::start(Upstream::memory(upstream));
    proxy.connected_times(1).await;
    let gateway = gateway(&proxy);
    let client = Client::memory(&gateway);
    client.connect(EraMode::Legacy).await.unwrap();
    let call = client.request_cancellable(
        "tools/call",
        Some(json!({"name": "up_wait", "arguments": {}})),
        None,
    );
    let mut call = Box::pin(call);
    // Dropped once the upstream runs it (its answer never comes by itself).
    tokio::select! {
        () = started.notified() => {}
        ended = &mut call => panic!("the call cannot end by itself: {ended:?}"),
    }
    drop(call);
    stopped.notified().await;
}

#[tokio::test]
async fn lines_past_the_bound_are_refused_without_being_held() {
    let data = b"short\nthis line is far too long for the bound\nok\n".to_vec();
    let mut reader = BufReader::with_capacity(8, &data[..]);
    assert_eq!(
        read_line(&mut reader, 10).await.unwrap().unwrap(),
        b"short\n"
    );
    let long = read_line(&mut reader, 10).await.unwrap_err();
    assert_eq!(long.kind(), std::io::ErrorKind::InvalidData);
    let mut last = BufReader::new(&b"no newline"[..]);
    assert_eq!(
        read_line(&mut last, 10).await.unwrap().unwrap(),
        b"no newline"
    );
    assert_eq!(read_line(&mut last, 10).await.unwrap(), None);
}

#[cfg(feature = "http")]
#[tokio::test]
async fn an_http_upstream_is_proxied_and_its_answers_bounded() {
    let upstream = Server::builder("upstream", "1.0.0")
        .tool(tool_fn(
            ToolDefinition::new("big", "Two MiB of text.", json!({"type": "object"})),
            |_, _| async { "x".repeat(2 << 20) },
        ))
        .tool(tool_fn(
            ToolDefinition::new("small", "A word.", json!({"type": "object"})),
            |_, _| async { "small" },
        ))
        .build()
        .unwrap();
    let url = serve_http(upstream).await;
    for era in [EraMode::Legacy, EraMode::Modern] {
        let proxy = Proxy::start(Upstream::http(&url).era(era).max_message_bytes(1 << 20));
        proxy.connected_times(1).await;
        let gateway = gateway(&proxy);
        let client = Client::memory(&gateway);
        client.connect(EraMode::Legacy).await.unwrap();
        let small = client.call_tool("up_small", json!({})).await.unwrap();
        assert_eq!(small.first_text(), Some("small"), "{era:?}");
        let big = client.call_tool("up_big", json!({})).await.unwrap();
        assert_eq!(big.is_error, Some(true), "{era:?}");
        let text = big.first_text().unwrap_or_default();
        assert!(text.contains("limit of 1048576 bytes"), "{era:?}: {text}");
        let small = client.call_tool("up_small", json!({})).await.unwrap();
        assert_eq!(small.first_text(), Some("small"), "{era:?}");
    }
}

#[tokio::test]
async fn an_upstreams_task_is_a_task_of_the_gateway_to_its_end() {
    use crate::protocol::task::{TASKS_EXTENSION, TaskStatus};
    use crate::task::TaskSupport;
    #[derive(serde::Deserialize, schemars::JsonSchema)]
    struct Name {
        name: String,
    }
    let (started, stopped) = (
        Arc::new(tokio::sync::Notify::new()),
        Arc::new(tokio::sync::Notify::new()),
    );
    let (starting, told) = (started.clone(), stopped.clone());
    let as_task = || crate::tool::ToolPolicy::new().task(TaskSupport::Required);
    let upstream = Server::builder("upstream", "1.0.0")
        .tool(
            tool_fn(
                ToolDefinition::new(
                    "job",
                    "Asks a name, then greets.",
                    json!({"type": "object"}),
                ),
                |_, cx| async move {
                    // Asked in the task, not in a round before it.
                    cx.become_task().await;
                    cx.progress(1.0, None, Some("warming up")).await;
                    match cx.elicit::<Name>("Name?").key("name").await {
                        Ok(answer) => match answer.accepted() {
                            Some(Name { name }) => format!("hello {name}"),
                            None => "declined".to_owned(),
                        },
                        Err(e) => format!("failed: {e}"),
                    }
                },
            )
            .with_policy(as_task()),
        )
        .tool(waits_until_cancelled(starting, told, as_task()))
        .tool(tool_fn(
            ToolDefinition::new("quick", "Answers at once.", json!({"type": "object"})),
            |_, _| async { "quick" },
        ))
        .build()
        .unwrap();
    let (_proxy, gateway) = modern_gateway(upstream).await;
    // The mount of a proxy that may see tasks offers them.
    assert!(
        gateway
            .capabilities()
            .extensions
            .as_ref()
            .is_some_and(|e| e.contains_key(TASKS_EXTENSION))
    );
    let client = Client::memory(&gateway).with_input_handler(
        crate::client::InputHandler::new().on_elicit(|_| async {
            Ok(crate::protocol::ElicitResult::accept(
                json!({"name": "Ada"}).as_object().cloned(),
            ))
        }),
    );
    client.connect(EraMode::Modern).await.unwrap();
    // A call the upstream answers at once is answered at once, not as a task.
    let quick = call_raw(&client, "up_quick").await;
    assert_eq!(quick["resultType"], "complete", "{quick}");
    // The upstream's task is the gateway's: its question asked under the upstream's key
    // in the gateway task's inputRequests, its status message shown, its result the end.
    let seen: Arc<std::sync::Mutex<Vec<crate::protocol::task::DetailedTask>>> = Arc::default();
    let record = seen.clone();
    let result = client
        .call_tool_watching("up_job", json!({}), move |task| {
            record.lock().unwrap().push(task.clone());
        })
        .await
        .unwrap();
    assert_eq!(result.first_text(), Some("hello Ada"));
    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen[0].task.status, TaskStatus::Working, "{seen:?}");
    let asked = seen
        .iter()
        .find(|t| t.task.status == TaskStatus::InputRequired)
        .unwrap_or_else(|| panic!("the question was the gateway task's: {seen:?}"));
    let keys: Vec<&str> = asked
        .input_requests
        .iter()
        .flat_map(|r| r.0.iter().map(|(k, _)| k.as_str()))
        .collect();
    assert_eq!(keys, ["name"], "{asked:?}");
    assert!(
        seen.iter().any(|t| t
            .task
            .status_message
            .as_deref()
            .is_some_and(|m| m.contains("warming up"))),
        "the upstream's status message is the gateway task's: {seen:?}"
    );
    // Cancelling the gateway's task cancels the upstream's.
    let handle = call_raw(&client, "up_wait").await;
    assert_eq!(handle["resultType"], "task", "{handle}");
    started.notified().await;
    client
        .cancel_task(handle["taskId"].as_str().unwrap())
        .await
        .unwrap();
    stopped.notified().await;
}
