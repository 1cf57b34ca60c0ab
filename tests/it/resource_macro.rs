//! `#[mcp_resource]`: definitions listed as declared, template variables typed into the
//! parameters, parse failures that name the variable, text and blobs, errors of the
//! function, injected parameters, completions from enums and from completion functions,
//! and collection; in both eras.

use mcp_runtime::client::{Client, ClientError, EraMode};
use mcp_runtime::prelude::*;
use mcp_runtime::protocol::{CompletionReference, ErrorCode};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::str::FromStr;

/// The application's configuration.
#[mcp_resource(
    uri = "config://app",
    name = "app-config",
    title = "App config",
    mime_type = "application/json",
    audience = ["user", "assistant"],
    priority = 0.8,
    size = 16
)]
async fn config() -> Json<Value> {
    Json(json!({"theme": "dark"}))
}

/// The logo.
#[mcp_resource(uri = "images://logo", mime_type = "image/png")]
async fn logo() -> Vec<u8> {
    vec![0x89, b'P', b'N', b'G']
}

/// What the server greets with.
#[derive(Clone)]
struct Greeting(&'static str);

/// The server's greeting, from its state.
#[mcp_resource(uri = "greeting://default")]
async fn greeting(State(greeting): State<Greeting>, cx: RequestContext) -> String {
    format!("{} ({} era)", greeting.0, cx.era())
}

/// An avatar size.
#[derive(Debug, Clone, Copy, PartialEq, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Size {
    Small,
    Medium,
    Large,
}

impl FromStr for Size {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "small" => Ok(Size::Small),
            "medium" => Ok(Size::Medium),
            "large" => Ok(Size::Large),
            other => Err(format!("{other:?} is not small, medium or large")),
        }
    }
}

/// A user's avatar.
#[mcp_resource(template = "users://{user_id}/avatar/{size}{?format}")]
async fn avatar(#[mcp(rename = "user_id")] id: u32, size: Size, format: Option<String>) -> String {
    format!(
        "user {id}, {size:?}, {}",
        format.as_deref().unwrap_or("png")
    )
}

/// Files under a root, by path.
#[mcp_resource(template = "files:///{root}{/path*}", mime_type = "text/markdown")]
async fn file(
    #[mcp(complete = roots)] root: String,
    path: Vec<String>,
) -> Result<String, ResourceError> {
    if root == "missing" {
        return Err(ResourceError::NotFound);
    }
    Ok(format!("{root}:{}", path.join("/")))
}

/// The roots that start with what was typed; only `var` once the path is `log`.
fn roots(value: &str, chosen: &BTreeMap<String, String>) -> Vec<String> {
    if chosen.get("path").map(String::as_str) == Some("log") {
        return vec!["var".to_owned()];
    }
    ["home", "srv", "tmp"]
        .into_iter()
        .filter(|r| r.starts_with(value))
        .map(str::to_owned)
        .collect()
}

/// Notes by path, `..` allowed.
#[mcp_resource(template = "notes://{+path}", allow_dot_segments)]
async fn note(path: String) -> String {
    path
}

fn server() -> Server {
    Server::builder("resources", "1.0.0")
        .state(Greeting("Hello"))
        .resource(config::resource())
        .resource(logo::resource())
        .resource(greeting::resource())
        .resource_template(avatar::template())
        .resource_template(file::template())
        .resource_template(note::template())
        .build()
        .unwrap()
}

async fn connected(mode: EraMode) -> Client {
    let client = Client::memory(&server());
    client.connect(mode).await.unwrap();
    client
}

/// The one content item of a read, as JSON.
async fn read(client: &Client, uri: &str) -> Value {
    let result = client.read_resource(uri).await.unwrap();
    assert_eq!(result.contents.len(), 1, "{uri}: {result:?}");
    serde_json::to_value(&result.contents[0]).unwrap()
}

async fn read_error(client: &Client, uri: &str) -> mcp_runtime::protocol::McpError {
    match client.read_resource(uri).await {
        Err(ClientError::Protocol(e)) => e,
        other => panic!("{uri}: expected an error, got {other:?}"),
    }
}

const ERAS: [EraMode; 2] = [EraMode::Legacy, EraMode::Modern];

#[tokio::test]
async fn definitions_are_listed_as_declared() {
    for era in ERAS {
        let client = connected(era).await;
        let resources = client.list_resources().await.unwrap();
        let listed = |uri: &str| {
            let r = resources.iter().find(|r| r.uri == uri).expect(uri);
            serde_json::to_value(r).unwrap()
        };
        assert_eq!(resources.len(), 3);
        assert_eq!(
            listed("config://app"),
            json!({
                "uri": "config://app",
                "name": "app-config",
                "title": "App config",
                "description": "The application's configuration.",
                "mimeType": "application/json",
                "size": 16,
                "annotations": {"audience": ["user", "assistant"], "priority": 0.8},
            })
        );
        assert_eq!(
            listed("images://logo"),
            json!({"uri": "images://logo", "name": "logo", "description": "The logo.", "mimeType": "image/png"})
        );
        let templates = client.list_resource_templates().await.unwrap();
        let listed = |template: &str| {
            let t = templates
                .iter()
                .find(|t| t.uri_template == template)
                .expect(template);
            serde_json::to_value(t).unwrap()
        };
        assert_eq!(templates.len(), 3);
        assert_eq!(
            listed("users://{user_id}/avatar/{size}{?format}"),
            json!({"uriTemplate": "users://{user_id}/avatar/{size}{?format}", "name": "avatar", "description": "A user's avatar."})
        );
        assert_eq!(
            listed("files:///{root}{/path*}"),
            json!({"uriTemplate": "files:///{root}{/path*}", "name": "file", "description": "Files under a root, by path.", "mimeType": "text/markdown"})
        );
    }
}

#[tokio::test]
async fn template_variables_reach_the_parameters_typed() {
    for era in ERAS {
        let client = connected(era).await;
        let avatar = read(&client, "users://7/avatar/large?format=webp").await;
        assert_eq!(
            avatar,
            json!({"uri": "users://7/avatar/large?format=webp", "mimeType": "text/plain", "text": "user 7, Large, webp"})
        );
        // The optional query variable is absent: `None`.
        assert_eq!(
            read(&client, "users://7/avatar/small").await["text"],
            "user 7, Small, png"
        );
        // An exploded variable is a list, empty when the URI has none of it.
        assert_eq!(
            read(&client, "files:///home/a/b.md").await["text"],
            "home:a/b.md"
        );
        assert_eq!(read(&client, "files:///home").await["text"], "home:");
    }
}

#[tokio::test]
async fn a_value_that_does_not_parse_is_an_invalid_uri_naming_the_variable() {
    for era in ERAS {
        let client = connected(era).await;
        let e = read_error(&client, "users://seven/avatar/large").await;
        assert_eq!(e.code, ErrorCode::INVALID_PARAMS);
        assert_eq!(
            e.message,
            "Invalid URI: the variable `user_id` is \"seven\", which is not a valid `u32`: invalid digit found in string"
        );
        assert_eq!(e.data.as_ref().unwrap()["reason"], "invalid_uri");
        let e = read_error(&client, "users://7/avatar/huge").await;
        assert_eq!(
            e.message,
            "Invalid URI: the variable `size` is \"huge\", which is not a valid `Size`: \"huge\" is not small, medium or large"
        );
    }
}

#[tokio::test]
async fn text_blobs_and_the_declared_mime_type() {
    for era in ERAS {
        let client = connected(era).await;
        assert_eq!(
            read(&client, "config://app").await,
            json!({"uri": "config://app", "mimeType": "application/json", "text": r#"{"theme":"dark"}"#})
        );
        assert_eq!(
            read(&client, "images://logo").await,
            json!({"uri": "images://logo", "mimeType": "image/png", "blob": "iVBORw=="})
        );
        // Text of a template with a declared MIME type carries it.
        assert_eq!(
            read(&client, "files:///srv/x").await["mimeType"],
            "text/markdown"
        );
    }
}

#[tokio::test]
async fn errors_of_the_function_are_the_eras_errors() {
    let legacy = connected(EraMode::Legacy).await;
    let e = read_error(&legacy, "files:///missing/x").await;
    assert_eq!(e.code, ErrorCode::RESOURCE_NOT_FOUND);
    let modern = connected(EraMode::Modern).await;
    let e = read_error(&modern, "files:///missing/x").await;
    assert_eq!(
        (e.code, e.message.as_ref()),
        (ErrorCode::INVALID_PARAMS, "Resource not found")
    );
}

#[tokio::test]
async fn injected_parameters_come_from_the_server() {
    for (era, name) in [(EraMode::Legacy, "legacy"), (EraMode::Modern, "modern")] {
        let client = connected(era).await;
        let text = read(&client, "greeting://default").await["text"].clone();
        assert!(text.as_str().unwrap().starts_with("Hello ("), "{text}");
        assert!(text.as_str().unwrap().contains(name), "{text}");
    }
    // State the server was not given fails the read, naming the type.
    let bare = Server::builder("bare", "1.0.0")
        .resource(greeting::resource())
        .build()
        .unwrap();
    let client = Client::memory(&bare);
    client.connect(EraMode::Modern).await.unwrap();
    let e = read_error(&client, "greeting://default").await;
    assert_eq!(e.code, ErrorCode::INTERNAL_ERROR);
    assert!(e.message.contains("Greeting"), "{}", e.message);
}

#[tokio::test]
async fn completions_from_enums_and_completion_functions() {
    let avatar = CompletionReference::Resource {
        uri: "users://{user_id}/avatar/{size}{?format}".into(),
    };
    let files = CompletionReference::Resource {
        uri: "files:///{root}{/path*}".into(),
    };
    let none = BTreeMap::new();
    for era in ERAS {
        let client = connected(era).await;
        let c = client.complete(&avatar, "size", "", &none).await.unwrap();
        assert_eq!(c.values, ["small", "medium", "large"]);
        let c = client.complete(&avatar, "size", "L", &none).await.unwrap();
        assert_eq!(c.values, ["large"]);
        // A type that lists no values completes nothing.
        let c = client
            .complete(&avatar, "user_id", "1", &none)
            .await
            .unwrap();
        assert!(c.values.is_empty());
        let c = client.complete(&files, "root", "s", &none).await.unwrap();
        assert_eq!(c.values, ["srv"]);
        // The completion function sees the variables already chosen.
        let chosen = BTreeMap::from([("path".to_owned(), "log".to_owned())]);
        let c = client.complete(&files, "root", "", &chosen).await.unwrap();
        assert_eq!(c.values, ["var"]);
    }
}

#[test]
fn the_attribute_keys_reach_the_trait() {
    assert!(note::template().allow_dot_segments());
    assert!(!file::template().allow_dot_segments());
}

#[tokio::test]
async fn dot_segments_match_when_allowed() {
    let client = connected(EraMode::Modern).await;
    assert_eq!(read(&client, "notes://a/../b").await["text"], "a/../b");
}

#[tokio::test]
async fn collected_resources_registers_every_one() {
    let server = Server::builder("collected", "1.0.0")
        .state(Greeting("Hi"))
        .collected_resources()
        .build()
        .unwrap();
    let uris = server.resources().uris();
    for uri in ["config://app", "images://logo", "greeting://default"] {
        assert!(uris.iter().any(|u| u == uri), "{uri} in {uris:?}");
    }
    let templates = server.resources().templates();
    for template in [
        "users://{user_id}/avatar/{size}{?format}",
        "files:///{root}{/path*}",
        "notes://{+path}",
    ] {
        assert!(
            templates.iter().any(|t| t == template),
            "{template} in {templates:?}"
        );
    }
}
