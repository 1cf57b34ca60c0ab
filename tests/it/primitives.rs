//! Resources, resource templates, prompts and completions through the dispatcher, in both
//! eras: listing, reading, rendering, the spec's errors, subscriptions, the pipeline around
//! user code.

use futures::future::BoxFuture;
use mcp_runtime::client::{Client, ClientError, EraMode};
use mcp_runtime::pipeline::{McpRequest, McpService, Outcome};
use mcp_runtime::prelude::*;
use mcp_runtime::prompt::{PromptError, prompt_fn};
use mcp_runtime::protocol::{
    Completion, CompletionReference, ErrorCode, McpError, PromptArgument, PromptDefinition,
    PromptMessage, ResourceContents, ResourceDefinition, ResourceTemplateDefinition,
};
use mcp_runtime::resource::{
    IntoContents, ResourceError, ResourceTemplate, Variables, resource_fn, template_fn,
};
use mcp_runtime::server::Primitive;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::time::Duration;
use tower::ServiceExt as _;

/// A template with completions for its `name` variable.
struct Greeting;

impl ResourceTemplate for Greeting {
    fn definition(&self) -> ResourceTemplateDefinition {
        ResourceTemplateDefinition::new("greeting://{name}", "greeting")
            .with_description("A greeting for anyone.")
    }

    fn read(
        &self,
        uri: String,
        variables: Variables,
        _cx: RequestContext,
    ) -> BoxFuture<'static, Result<Vec<ResourceContents>, ResourceError>> {
        let name = variables.get("name").unwrap_or_default().to_owned();
        Box::pin(async move {
            if name == "nobody" {
                return Err(ResourceError::NotFound);
            }
            format!("Hello, {name}!").into_contents(&uri, None)
        })
    }

    fn complete(
        &self,
        _variable: &str,
        value: &str,
        _chosen: &BTreeMap<String, String>,
    ) -> BoxFuture<'static, Completion> {
        let value = value.to_owned();
        Box::pin(async move {
            Completion::from_all(
                (0..250)
                    .map(|i| format!("name{i}"))
                    .filter(|n| n.starts_with(&value)),
            )
        })
    }
}

fn server() -> Server {
    let config = resource_fn(
        ResourceDefinition::new("config://app", "config")
            .with_description("The configuration.")
            .with_mime_type("application/json"),
        |_cx| async { r#"{"theme":"dark"}"# },
    );
    let logo = resource_fn(
        ResourceDefinition::new("image://logo", "logo").with_mime_type("image/png"),
        |_cx| async { vec![0x89u8, b'P', b'N', b'G'] },
    );
    let panics = resource_fn(
        ResourceDefinition::new("bug://panic", "panics"),
        |_cx| async {
            panic!("boom");
            #[allow(unreachable_code)]
            ""
        },
    );
    let slow = resource_fn(
        ResourceDefinition::new("slow://read", "slow"),
        |_cx| async {
            tokio::time::sleep(Duration::from_millis(50)).await;
            "slow"
        },
    );
    let files = template_fn(
        ResourceTemplateDefinition::new("docs://{+path}", "docs"),
        |vars, _cx| async move { format!("doc at {}", vars.get("path").unwrap_or_default()) },
    );
    let review = prompt_fn(
        PromptDefinition::new("code_review", "Asks for a review of some code.")
            .with_argument(PromptArgument::required("code", "The code to review"))
            .with_argument(PromptArgument::optional("language", "Its language")),
        |args, _cx| async move {
            let language = args.get("language").map_or("code", String::as_str);
            vec![
                PromptMessage::user(format!("Please review this {language}:\n{}", args["code"])),
                PromptMessage::assistant("Sure, let me look."),
            ]
        },
    );
    let embeds = prompt_fn(
        PromptDefinition::new("with_config", "Embeds the configuration."),
        |_args, cx: RequestContext| async move {
            let contents = cx
                .read_resource("config://app")
                .await
                .map_err(PromptError::failed)?;
            let ResourceContents::Text(text) = &contents[0] else {
                return Err(PromptError::failed("expected text"));
            };
            Ok::<_, PromptError>(format!("The configuration is {}", text.text))
        },
    );
    let failing = prompt_fn(
        PromptDefinition::new("failing", "Always fails."),
        |_args, _cx| async { Err::<String, _>(PromptError::failed("the model is offline")) },
    );
    Server::builder("primitives", "1.0.0")
        .resource(config)
        .resource(logo)
        .resource(panics)
        .resource(slow)
        .resource_template(Greeting)
        .resource_template(files)
        .prompt(review)
        .prompt(embeds)
        .prompt(failing)
        .build()
        .unwrap()
}

async fn connected(server: &Server, mode: EraMode) -> Client {
    let c = Client::memory(server);
    c.connect(mode).await.unwrap();
    c
}

fn protocol_error(e: ClientError) -> McpError {
    match e {
        ClientError::Protocol(e) => e,
        other => panic!("expected a protocol error, got {other:?}"),
    }
}

async fn recv(rx: &mut tokio::sync::mpsc::UnboundedReceiver<Value>) -> Value {
    tokio::time::timeout(Duration::from_secs(10), rx.recv())
        .await
        .expect("a message in time")
        .expect("open")
}

#[tokio::test]
async fn capabilities_follow_what_is_registered() {
    let caps = server().capabilities().clone();
    let caps = serde_json::to_value(caps).unwrap();
    assert_eq!(
        caps["resources"],
        json!({"subscribe": true, "listChanged": true})
    );
    assert_eq!(caps["prompts"], json!({"listChanged": true}));
    assert_eq!(caps["completions"], json!({}));
    assert!(caps.get("tools").is_none());

    // A server of tools only offers none of the other methods, in either era.
    let tools_only = Server::builder("t", "1.0.0")
        .advertise(Primitive::Tools)
        .build()
        .unwrap();
    for mode in [EraMode::Legacy, EraMode::Modern] {
        let c = connected(&tools_only, mode).await;
        for method in ["resources/list", "resources/templates/list", "prompts/list"] {
            let e = protocol_error(c.request(method, None).await.unwrap_err());
            assert_eq!(e.code, ErrorCode::METHOD_NOT_FOUND, "{method}");
        }
        let e = protocol_error(
            c.request("resources/read", Some(json!({"uri": "config://app"})))
                .await
                .unwrap_err(),
        );
        assert_eq!(e.code, ErrorCode::METHOD_NOT_FOUND);
    }
}

#[tokio::test]
async fn resources_and_templates_are_listed_and_read_in_both_eras() {
    let s = server();
    for mode in [EraMode::Legacy, EraMode::Modern] {
        let c = connected(&s, mode).await;
        let uris: Vec<String> = c
            .list_resources()
            .await
            .unwrap()
            .into_iter()
            .map(|r| r.uri)
            .collect();
        assert_eq!(
            uris,
            ["bug://panic", "config://app", "image://logo", "slow://read"]
        );
        let templates: Vec<String> = c
            .list_resource_templates()
            .await
            .unwrap()
            .into_iter()
            .map(|t| t.uri_template)
            .collect();
        assert_eq!(templates, ["docs://{+path}", "greeting://{name}"]);

        let read = c.read_resource("config://app").await.unwrap();
        assert_eq!(
            serde_json::to_value(&read.contents).unwrap(),
            json!([{"uri": "config://app", "mimeType": "application/json", "text": r#"{"theme":"dark"}"#}])
        );
        let logo = c.read_resource("image://logo").await.unwrap();
        assert_eq!(
            serde_json::to_value(&logo.contents).unwrap(),
            json!([{"uri": "image://logo", "mimeType": "image/png", "blob": "iVBORw=="}])
        );
        // A templated read answers with the concrete URI.
        let hello = c.read_resource("greeting://ada").await.unwrap();
        assert_eq!(
            serde_json::to_value(&hello.contents).unwrap(),
            json!([{"uri": "greeting://ada", "mimeType": "text/plain", "text": "Hello, ada!"}])
        );
        let doc = c.read_resource("docs://guide/intro.md").await.unwrap();
        assert_eq!(
            serde_json::to_value(&doc.contents).unwrap()[0]["text"],
            "doc at guide/intro.md"
        );
        // A read that has to wait is answered when it is done.
        let slow = c.read_resource("slow://read").await.unwrap();
        assert_eq!(
            serde_json::to_value(&slow.contents).unwrap()[0]["text"],
            "slow"
        );
    }
}

#[tokio::test]
async fn modern_reads_carry_cache_hints_and_legacy_reads_do_not() {
    let s = server();
    let modern = connected(&s, EraMode::Modern).await;
    let raw = modern
        .request("resources/read", Some(json!({"uri": "config://app"})))
        .await
        .unwrap();
    assert_eq!(raw["resultType"], "complete");
    assert_eq!(raw["ttlMs"], 0);
    assert_eq!(raw["cacheScope"], "private");
    assert_eq!(
        raw["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "primitives"
    );
    for method in ["resources/list", "resources/templates/list", "prompts/list"] {
        let page = modern.request(method, None).await.unwrap();
        assert_eq!(page["resultType"], "complete", "{method}");
        assert!(
            page["ttlMs"].is_u64() && page["cacheScope"].is_string(),
            "{method}"
        );
    }
    let prompt = modern
        .request(
            "prompts/get",
            Some(json!({"name": "code_review", "arguments": {"code": "x"}})),
        )
        .await
        .unwrap();
    assert_eq!(prompt["resultType"], "complete");
    assert!(
        prompt.get("ttlMs").is_none(),
        "no caching hints on prompts/get"
    );

    let legacy = connected(&s, EraMode::Legacy).await;
    let raw = legacy
        .request("resources/read", Some(json!({"uri": "config://app"})))
        .await
        .unwrap();
    for field in ["resultType", "ttlMs", "cacheScope", "_meta"] {
        assert!(raw.get(field).is_none(), "{field} on a legacy read");
    }
}

#[tokio::test]
async fn missing_and_malformed_uris_get_the_errors_of_each_era() {
    let s = server();
    let modern = connected(&s, EraMode::Modern).await;
    let legacy = connected(&s, EraMode::Legacy).await;
    for uri in [
        "nothing://here",
        "greeting://nobody",
        "greeting://a/b",
        "docs://../etc",
    ] {
        let e = protocol_error(modern.read_resource(uri).await.unwrap_err());
        assert_eq!(e.code, ErrorCode::INVALID_PARAMS, "{uri}");
        assert_eq!(e.message, "Resource not found", "{uri}");
        assert_eq!(e.data, Some(json!({"uri": uri})), "{uri}");
        let e = protocol_error(legacy.read_resource(uri).await.unwrap_err());
        assert_eq!(e.code, ErrorCode::RESOURCE_NOT_FOUND, "{uri}");
        assert_eq!(e.data, Some(json!({"uri": uri})), "{uri}");
    }
    for uri in ["", "no scheme", "config://a b", "1abc://x", "://x"] {
        let e = protocol_error(modern.read_resource(uri).await.unwrap_err());
        assert_eq!(e.code, ErrorCode::INVALID_PARAMS, "{uri:?}");
        assert_eq!(e.data.unwrap()["reason"], "invalid_uri", "{uri:?}");
    }
    let e = protocol_error(
        modern
            .request("resources/read", Some(json!({})))
            .await
            .unwrap_err(),
    );
    assert_eq!(e.code, ErrorCode::INVALID_PARAMS);
}

#[tokio::test]
async fn a_panicking_read_is_an_internal_error_and_the_server_keeps_serving() {
    let s = server();
    let c = connected(&s, EraMode::Legacy).await;
    let e = protocol_error(c.read_resource("bug://panic").await.unwrap_err());
    assert_eq!(e.code, ErrorCode::INTERNAL_ERROR);
    assert!(c.read_resource("config://app").await.is_ok());
}

#[tokio::test]
async fn prompts_are_listed_and_rendered_with_their_argument_checks() {
    let s = server();
    for mode in [EraMode::Legacy, EraMode::Modern] {
        let c = connected(&s, mode).await;
        let prompts = c.list_prompts().await.unwrap();
        let names: Vec<&str> = prompts.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["code_review", "failing", "with_config"]);
        assert_eq!(
            serde_json::to_value(&prompts[0]).unwrap()["arguments"],
            json!([
                {"name": "code", "description": "The code to review", "required": true},
                {"name": "language", "description": "Its language", "required": false},
            ])
        );

        let args = BTreeMap::from([("code".to_owned(), "fn main() {}".to_owned())]);
        let got = c.get_prompt("code_review", &args).await.unwrap();
        assert_eq!(
            serde_json::to_value(&got.messages).unwrap(),
            json!([
                {"role": "user", "content": {"type": "text", "text": "Please review this code:\nfn main() {}"}},
                {"role": "assistant", "content": {"type": "text", "text": "Sure, let me look."}},
            ])
        );

        let none = BTreeMap::new();
        let e = protocol_error(c.get_prompt("code_review", &none).await.unwrap_err());
        assert_eq!(e.code, ErrorCode::INVALID_PARAMS);
        assert!(e.message.contains("`code`"), "{}", e.message);
        let extra = BTreeMap::from([
            ("code".to_owned(), "x".to_owned()),
            ("colour".to_owned(), "red".to_owned()),
        ]);
        let e = protocol_error(c.get_prompt("code_review", &extra).await.unwrap_err());
        assert_eq!(e.code, ErrorCode::INVALID_PARAMS);
        assert!(e.message.contains("`colour`"), "{}", e.message);
        let e = protocol_error(c.get_prompt("nope", &none).await.unwrap_err());
        assert_eq!(e.code, ErrorCode::INVALID_PARAMS);
        assert_eq!(e.message, "Prompt nope not found");
        let e = protocol_error(c.get_prompt("failing", &none).await.unwrap_err());
        assert_eq!(e.code, ErrorCode::INTERNAL_ERROR);
        assert_eq!(e.message, "the model is offline");

        // A prompt reads the server's own resources.
        let got = c.get_prompt("with_config", &none).await.unwrap();
        assert_eq!(
            got.messages[0].content,
            Content::text(r#"The configuration is {"theme":"dark"}"#)
        );
    }
}

#[tokio::test]
async fn completions_answer_for_prompts_and_templates_capped_at_100() {
    let s = server();
    for mode in [EraMode::Legacy, EraMode::Modern] {
        let c = connected(&s, mode).await;
        let none = BTreeMap::new();
        let template = CompletionReference::Resource {
            uri: "greeting://{name}".into(),
        };
        let all = c.complete(&template, "name", "", &none).await.unwrap();
        assert_eq!(all.values.len(), 100);
        assert_eq!(all.total, Some(250));
        assert_eq!(all.has_more, Some(true));
        let some = c
            .complete(&template, "name", "name24", &none)
            .await
            .unwrap();
        assert_eq!(
            some.values,
            [
                "name24", "name240", "name241", "name242", "name243", "name244", "name245",
                "name246", "name247", "name248", "name249"
            ]
        );
        assert_eq!(some.has_more, Some(false));

        // Without suggestions: an empty list, not an error.
        let prompt = CompletionReference::Prompt {
            name: "code_review".into(),
        };
        let empty = c.complete(&prompt, "language", "ru", &none).await.unwrap();
        assert!(empty.values.is_empty());
        let fixed = CompletionReference::Resource {
            uri: "config://app".into(),
        };
        assert!(
            c.complete(&fixed, "x", "", &none)
                .await
                .unwrap()
                .values
                .is_empty()
        );

        for (reference, argument) in [
            (
                CompletionReference::Prompt {
                    name: "nope".into(),
                },
                "x",
            ),
            (prompt.clone(), "nope"),
            (
                CompletionReference::Resource {
                    uri: "nothing://{x}".into(),
                },
                "x",
            ),
            (template.clone(), "nope"),
        ] {
            let e = protocol_error(
                c.complete(&reference, argument, "", &none)
                    .await
                    .unwrap_err(),
            );
            assert_eq!(
                e.code,
                ErrorCode::INVALID_PARAMS,
                "{reference:?} {argument}"
            );
        }
    }
}

#[tokio::test]
async fn legacy_subscriptions_deliver_updates_of_subscribed_uris_only() {
    let s = server();
    let c = connected(&s, EraMode::Legacy).await;
    let mut incoming = c.take_unrouted().unwrap();
    let ok = c
        .request("resources/subscribe", Some(json!({"uri": "config://app"})))
        .await
        .unwrap();
    assert_eq!(ok, json!({}));
    s.resources().updated("image://logo");
    s.resources().updated("config://app");
    let n = recv(&mut incoming).await;
    assert_eq!(
        n,
        json!({"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"uri": "config://app"}})
    );
    c.request(
        "resources/unsubscribe",
        Some(json!({"uri": "config://app"})),
    )
    .await
    .unwrap();
    s.resources().updated("config://app");
    // A round trip after the update: had a notification been sent, it would come first.
    c.read_resource("config://app").await.unwrap();
    assert!(
        incoming.try_recv().is_err(),
        "no update after unsubscribing"
    );

    // The modern leg has no such methods.
    let modern = connected(&s, EraMode::Modern).await;
    let e = protocol_error(
        modern
            .request("resources/subscribe", Some(json!({"uri": "config://app"})))
            .await
            .unwrap_err(),
    );
    assert_eq!(e.code, ErrorCode::METHOD_NOT_FOUND);
}

#[tokio::test]
async fn listen_streams_carry_resource_updates_and_list_changes() {
    let s = server();
    let c = connected(&s, EraMode::Modern).await;
    let mut incoming = c.take_unrouted().unwrap();
    let listen = {
        let c = c.clone();
        tokio::spawn(async move {
            c.request(
                "subscriptions/listen",
                Some(json!({"notifications": {
                    "resourcesListChanged": true,
                    "promptsListChanged": true,
                    "resourceSubscriptions": ["config://app"],
                }})),
            )
            .await
        })
    };
    let ack = recv(&mut incoming).await;
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    assert_eq!(
        ack["params"]["notifications"],
        json!({"resourcesListChanged": true, "promptsListChanged": true, "resourceSubscriptions": ["config://app"]})
    );
    let id = ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"].clone();

    s.resources().updated("image://logo");
    s.resources().updated("config://app");
    let n = recv(&mut incoming).await;
    assert_eq!(n["method"], "notifications/resources/updated");
    assert_eq!(n["params"]["uri"], "config://app");
    assert_eq!(
        n["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        id
    );

    s.resources()
        .register(resource_fn(
            ResourceDefinition::new("late://one", "late"),
            |_| async { "" },
        ))
        .unwrap();
    let n = recv(&mut incoming).await;
    assert_eq!(n["method"], "notifications/resources/list_changed");
    s.prompts()
        .register(prompt_fn(
            PromptDefinition::new("late", "Added later."),
            |_, _| async { "" },
        ))
        .unwrap();
    let n = recv(&mut incoming).await;
    assert_eq!(n["method"], "notifications/prompts/list_changed");
    assert!(s.prompts().remove("late"));
    let n = recv(&mut incoming).await;
    assert_eq!(n["method"], "notifications/prompts/list_changed");
    assert!(!listen.is_finished());
    listen.abort();
}

/// Refuses every request whose target contains "secret": a server-wide layer sees reads
/// and prompts too.
fn deny_secrets(inner: McpService) -> McpService {
    McpService::new(tower::service_fn(move |request: McpRequest| {
        let inner = inner.clone();
        let call: BoxFuture<'static, _> = Box::pin(async move {
            if request.target().contains("secret") {
                return Ok(Outcome::refuse(format!(
                    "{} is not for you",
                    request.method()
                )));
            }
            inner.oneshot(request).await
        });
        call
    }))
}

#[tokio::test]
async fn server_layers_run_around_reads_and_prompts() {
    let s = Server::builder("layered", "1.0.0")
        .layer(tower::layer::layer_fn(deny_secrets))
        .resource(resource_fn(
            ResourceDefinition::new("secret://key", "key"),
            |_| async { "k" },
        ))
        .resource(resource_fn(
            ResourceDefinition::new("open://doc", "doc"),
            |_| async { "d" },
        ))
        .prompt(prompt_fn(
            PromptDefinition::new("secret", "Hidden."),
            |_, _| async { "s" },
        ))
        .build()
        .unwrap();
    let c = connected(&s, EraMode::Modern).await;
    let e = protocol_error(c.read_resource("secret://key").await.unwrap_err());
    assert_eq!(e.code, ErrorCode::INTERNAL_ERROR);
    assert_eq!(e.message, "resources/read is not for you");
    assert_eq!(e.data.unwrap()["reason"], "refused");
    assert!(c.read_resource("open://doc").await.is_ok());
    let e = protocol_error(c.get_prompt("secret", &BTreeMap::new()).await.unwrap_err());
    assert_eq!(e.message, "prompts/get is not for you");
}

#[tokio::test]
async fn tools_read_the_servers_resources_too() {
    let s = Server::builder("reader", "1.0.0")
        .resource(resource_fn(
            ResourceDefinition::new("config://app", "config"),
            |_| async { "dark" },
        ))
        .tool(tool_fn(
            ToolDefinition::new(
                "theme",
                "Reads the theme from the configuration resource.",
                json!({"type": "object"}),
            ),
            |_, cx: RequestContext| async move {
                let contents = cx
                    .read_resource("config://app")
                    .await
                    .map_err(|e| e.to_string())?;
                let missing = cx.read_resource("config://other").await;
                assert_eq!(missing, Err(ResourceError::NotFound));
                match &contents[0] {
                    ResourceContents::Text(t) => Ok(t.text.clone()),
                    _ => Err("not text".to_owned()),
                }
            },
        ))
        .build()
        .unwrap();
    let c = connected(&s, EraMode::Modern).await;
    let result = c.call_tool("theme", json!({})).await.unwrap();
    assert_eq!(result.first_text(), Some("dark"), "{result:?}");
}

#[test]
fn registration_checks_resources_and_prompts() {
    let e = Server::builder("bad", "1.0.0")
        .resource(resource_fn(
            ResourceDefinition::new("no-scheme", "x"),
            |_| async { "" },
        ))
        .resource(resource_fn(
            ResourceDefinition::new("a://dup", "x"),
            |_| async { "" },
        ))
        .resource(resource_fn(
            ResourceDefinition::new("a://dup", "y"),
            |_| async { "" },
        ))
        .resource_template(template_fn(
            ResourceTemplateDefinition::new("a://{unclosed", "t"),
            |_, _| async { "" },
        ))
        .prompt(prompt_fn(
            {
                let mut undescribed = PromptDefinition::new("undescribed", "");
                undescribed.description = None;
                undescribed
            },
            |_, _| async { "" },
        ))
        .prompt(prompt_fn(
            PromptDefinition::new("bad name!", "Bad."),
            |_, _| async { "" },
        ))
        .build()
        .unwrap_err();
    let text = e.to_string();
    assert_eq!(e.errors.len(), 5, "{text}");
    for needle in [
        "no-scheme",
        "a://dup",
        "a://{unclosed",
        "undescribed",
        "bad name!",
    ] {
        assert!(text.contains(needle), "{needle} in {text}");
    }
}

#[tokio::test]
async fn each_primitive_lists_with_its_own_cache_hints() {
    use mcp_runtime::protocol::{CachePolicy, CacheScope};
    let hour = CachePolicy::new(3_600_000, CacheScope::Public);
    let minute = CachePolicy::new(60_000, CacheScope::Private);
    let s = Server::builder("cached", "1.0.0")
        .resource(resource_fn(
            ResourceDefinition::new("config://app", "config"),
            |_cx| async { "{}" },
        ))
        .prompt(prompt_fn(
            PromptDefinition::new("p", "A prompt."),
            |_args, _cx| async { Ok::<_, PromptError>(vec![PromptMessage::user("hi")]) },
        ))
        .list_cache(minute)
        .list_cache_for(Primitive::Prompts, hour)
        .read_cache(hour)
        .build()
        .unwrap();
    let modern = connected(&s, EraMode::Modern).await;
    let hints = |v: &Value| (v["ttlMs"].clone(), v["cacheScope"].clone());
    let prompts = modern.request("prompts/list", None).await.unwrap();
    assert_eq!(hints(&prompts), (json!(3_600_000), json!("public")));
    for method in ["resources/list", "resources/templates/list"] {
        let page = modern.request(method, None).await.unwrap();
        assert_eq!(hints(&page), (json!(60_000), json!("private")), "{method}");
    }
    let read = modern
        .request("resources/read", Some(json!({"uri": "config://app"})))
        .await
        .unwrap();
    assert_eq!(hints(&read), (json!(3_600_000), json!("public")));
}
