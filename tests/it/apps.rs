//! MCP Apps (SEP-1865, `io.modelcontextprotocol/ui`) on the wire, in both eras: a tool's
//! `_meta.ui`, its view served as `text/html;profile=mcp-app` with `_meta.ui`, the extension
//! declared, an app-only tool hidden from (and refused to) a client that renders no apps,
//! the text result every client gets; and the definitions `build()` refuses.

use mcp_runtime::client::{Client, EraMode};
use mcp_runtime::prelude::*;
use mcp_runtime::protocol::apps::{APP_MIME_TYPE, Csp, Permissions, UI_EXTENSION, Visibility};
use mcp_runtime::protocol::{ErrorCode, ResourceContents};
use mcp_runtime::resource::{AppView, Html};
use mcp_runtime::server::RegistrationError;
use serde_json::{Value, json};

const VIEW: &str = "ui://weather/forecast";
const PAGE: &str = "<!doctype html><title>Forecast</title><div id=out></div>";

/// Tomorrow's weather in a city, shown with the forecast view.
#[mcp_tool(app = "ui://weather/forecast", read_only)]
async fn forecast(city: String, cx: RequestContext) -> CallToolResult {
    let text = format!("Sunny in {city}, 21 °C");
    // Every client gets the text; a client that renders the view gets the data too.
    match cx.client_renders_apps() {
        true => {
            let mut result = CallToolResult::structured(json!({"city": city, "celsius": 21}));
            result.content = vec![Content::text(text)];
            result
        }
        false => CallToolResult::text(text),
    }
}

/// Refreshes the forecast; only the view calls it.
#[mcp_tool(app = "ui://weather/forecast", visibility = ["app"])]
async fn refresh(city: String) -> String {
    format!("refreshed {city}")
}

fn view() -> AppView {
    AppView::new(VIEW, Html::inline(PAGE))
        .with_title("Forecast")
        .with_csp(Csp::default().connect(["https://api.weather.example"]))
        .with_permissions(Permissions::default().geolocation())
        .with_prefers_border(true)
}

fn server() -> Server {
    Server::builder("weather", "1.0.0")
        .resource(view())
        .tool(forecast::tool())
        .tool(refresh::tool())
        .build()
        .unwrap()
}

/// A client of `era` that declares the apps extension (`apps`) or nothing.
async fn client(server: &Server, era: EraMode, apps: bool) -> Client {
    let client = Client::memory(server);
    if apps {
        client.declare_capabilities(
            json!({"extensions": {UI_EXTENSION: {"mimeTypes": [APP_MIME_TYPE]}}}),
        );
    }
    client.connect(era).await.unwrap();
    client
}

const ERAS: [EraMode; 2] = [EraMode::Legacy, EraMode::Modern];

/// The names `client` sees in `tools/list` (every page).
async fn tool_names(client: &Client) -> Vec<String> {
    let tools = client.list_tools().await.unwrap();
    tools.into_iter().map(|t| t.name).collect()
}

#[tokio::test]
async fn tools_name_their_view_and_the_view_is_served_with_its_meta() {
    let server = server();
    assert_eq!(
        server.capabilities().extensions.as_ref().unwrap()[UI_EXTENSION],
        json!({"mimeTypes": [APP_MIME_TYPE]})
    );
    for era in ERAS {
        let client = client(&server, era, true).await;
        let tools = client.request("tools/list", None).await.unwrap();
        let ui = |name: &str| {
            tools["tools"]
                .as_array()
                .unwrap()
                .iter()
                .find(|t| t["name"] == name)
                .unwrap_or_else(|| panic!("{era:?}: {name} listed"))["_meta"]["ui"]
                .clone()
        };
        assert_eq!(ui("forecast"), json!({"resourceUri": VIEW}), "{era:?}");
        assert_eq!(
            ui("refresh"),
            json!({"resourceUri": VIEW, "visibility": ["app"]}),
            "{era:?}"
        );

        let read = client.read_resource(VIEW).await.unwrap();
        let [ResourceContents::Text(contents)] = read.contents.as_slice() else {
            panic!("{era:?}: one text content, got {:?}", read.contents);
        };
        assert_eq!(contents.uri, VIEW);
        assert_eq!(contents.mime_type.as_deref(), Some(APP_MIME_TYPE));
        assert_eq!(contents.text, PAGE);
        assert_eq!(
            Value::Object(contents.meta.clone().unwrap())["ui"],
            json!({
                "csp": {"connectDomains": ["https://api.weather.example"]},
                "permissions": {"geolocation": {}},
                "prefersBorder": true,
            }),
            "{era:?}"
        );
        let listed = client.list_resources().await.unwrap();
        let listed = listed.iter().find(|r| r.uri == VIEW).unwrap();
        assert_eq!(listed.mime_type.as_deref(), Some(APP_MIME_TYPE));
        assert!(listed.meta.as_ref().unwrap()["ui"]["csp"].is_object());
    }
}

#[tokio::test]
async fn an_app_only_tool_is_absent_and_refused_for_a_client_without_apps() {
    let server = server();
    for era in ERAS {
        let plain = client(&server, era, false).await;
        let names = tool_names(&plain).await;
        assert_eq!(names, ["forecast"], "{era:?}");

        // Refused exactly as a name that does not exist.
        let refused = plain
            .call_tool("refresh", json!({"city": "Oslo"}))
            .await
            .unwrap_err();
        let unknown = plain
            .call_tool("no_such_tool", json!({"city": "Oslo"}))
            .await
            .unwrap_err();
        let (refused, unknown) = (
            refused.as_protocol().unwrap(),
            unknown.as_protocol().unwrap(),
        );
        assert_eq!(refused.code, unknown.code, "{era:?}");
        assert_eq!(refused.code, ErrorCode::INVALID_PARAMS);
        assert_eq!(
            refused.message.replace("refresh", "no_such_tool"),
            unknown.message,
            "{era:?}"
        );

        let apps = client(&server, era, true).await;
        let names = tool_names(&apps).await;
        assert_eq!(names, ["forecast", "refresh"], "{era:?}");
        let called = apps
            .call_tool("refresh", json!({"city": "Oslo"}))
            .await
            .unwrap();
        assert_eq!(called.first_text(), Some("refreshed Oslo"), "{era:?}");
    }
}

#[tokio::test]
async fn every_client_gets_the_text_and_an_app_client_the_data_too() {
    let server = server();
    for era in ERAS {
        let plain = client(&server, era, false).await;
        let result = plain
            .call_tool("forecast", json!({"city": "Oslo"}))
            .await
            .unwrap();
        assert_eq!(result.first_text(), Some("Sunny in Oslo, 21 °C"), "{era:?}");
        assert_eq!(result.structured_content, None, "{era:?}");

        let apps = client(&server, era, true).await;
        let result = apps
            .call_tool("forecast", json!({"city": "Oslo"}))
            .await
            .unwrap();
        assert_eq!(result.first_text(), Some("Sunny in Oslo, 21 °C"), "{era:?}");
        assert_eq!(
            result.structured_content,
            Some(json!({"city": "Oslo", "celsius": 21})),
            "{era:?}"
        );
    }
}

#[tokio::test]
async fn a_client_listing_other_mime_types_is_not_an_apps_client() {
    let server = server();
    let client = Client::memory(&server);
    client
        .declare_capabilities(json!({"extensions": {UI_EXTENSION: {"mimeTypes": ["text/html"]}}}));
    client.connect(EraMode::Modern).await.unwrap();
    let names = tool_names(&client).await;
    assert_eq!(names, ["forecast"]);
}

#[test]
fn a_view_no_resource_serves_stops_the_build_naming_the_tool_and_the_uri() {
    let error = Server::builder("weather", "1.0.0")
        .tool(forecast::tool())
        .build()
        .unwrap_err();
    assert_eq!(
        error.errors,
        [RegistrationError::UnservedView {
            tool: "forecast".into(),
            uri: VIEW.into(),
        }]
    );
    let message = error.to_string();
    assert!(
        message.contains("`forecast`") && message.contains(VIEW),
        "{message}"
    );

    // A template that matches the URI serves it.
    let template = mcp_runtime::resource::template_fn(
        mcp_runtime::protocol::ResourceTemplateDefinition::new("ui://weather/{view}", "views")
            .with_mime_type(APP_MIME_TYPE),
        |_vars, _cx| async { PAGE },
    );
    Server::builder("weather", "1.0.0")
        .resource_template(template)
        .tool(forecast::tool())
        .build()
        .unwrap();
}

#[test]
fn malformed_views_are_refused_at_build() {
    // A view resource that is not `ui://`.
    let error = Server::builder("weather", "1.0.0")
        .resource(AppView::new(
            "https://weather.example/forecast",
            Html::inline(PAGE),
        ))
        .build()
        .unwrap_err();
    assert!(
        matches!(&error.errors[..], [RegistrationError::InvalidResource { reason, .. }] if reason.contains("ui://")),
        "{error}"
    );

    // A hand-written definition: not `ui://`, and a visibility that lets no one call it.
    let tool = |definition: ToolDefinition| tool_fn(definition, |_args, _cx| async { "x" });
    let definition = |name: &str| ToolDefinition::new(name, "Does it.", json!({"type": "object"}));
    let error = Server::builder("weather", "1.0.0")
        .resource(view())
        .tool(tool(
            definition("web").with_app("https://weather.example/forecast"),
        ))
        .tool(tool(
            definition("nobody").with_app(VIEW).with_app_visibility([]),
        ))
        .tool(tool(
            definition("app_only")
                .with_app(VIEW)
                .with_app_visibility([Visibility::App]),
        ))
        .build()
        .unwrap_err();
    let invalid: Vec<&str> = error
        .errors
        .iter()
        .map(|e| match e {
            RegistrationError::InvalidApp { name, .. } => name.as_str(),
            other => panic!("{other}"),
        })
        .collect();
    assert_eq!(invalid, ["web", "nobody"], "{error}");
}

#[tokio::test]
async fn a_mounted_tool_names_its_view_where_the_mount_serves_it() {
    let weather = server();
    let host = Server::builder("host", "1.0.0")
        .mount("w", weather)
        .build()
        .unwrap();
    let client = client(&host, EraMode::Modern, true).await;
    let tools = client.list_tools().await.unwrap();
    let forecast = tools.iter().find(|t| t.name == "w_forecast").unwrap();
    let uri = forecast.app().unwrap().resource_uri;
    assert_eq!(uri, "ui://w/weather/forecast");
    let read = client.read_resource(&uri).await.unwrap();
    let [ResourceContents::Text(contents)] = read.contents.as_slice() else {
        panic!("one text content");
    };
    assert_eq!(contents.text, PAGE);
    assert_eq!(contents.mime_type.as_deref(), Some(APP_MIME_TYPE));
    assert!(
        host.capabilities()
            .extensions
            .as_ref()
            .unwrap()
            .contains_key(UI_EXTENSION),
        "a host mounting apps declares the extension"
    );
}

#[tokio::test]
async fn a_view_from_a_folder_shows_each_edit_and_a_missing_file_fails_only_that_read() {
    let dist = tempfile::tempdir().unwrap();
    let index = dist.path().join("index.html");
    std::fs::write(&index, "<p>first</p>").unwrap();
    let server = Server::builder("weather", "1.0.0")
        .resource(AppView::new(VIEW, Html::folder(dist.path())))
        .tool(forecast::tool())
        .build()
        .unwrap();
    let client = client(&server, EraMode::Legacy, true).await;
    let text = |read: mcp_runtime::protocol::ReadResourceResult| match &read.contents[..] {
        [ResourceContents::Text(t)] => t.text.clone(),
        other => panic!("{other:?}"),
    };
    assert_eq!(
        text(client.read_resource(VIEW).await.unwrap()),
        "<p>first</p>"
    );
    std::fs::write(&index, "<p>second</p>").unwrap();
    assert_eq!(
        text(client.read_resource(VIEW).await.unwrap()),
        "<p>second</p>"
    );

    std::fs::remove_file(&index).unwrap();
    let error = client.read_resource(VIEW).await.unwrap_err();
    let error = error.as_protocol().unwrap();
    assert_eq!(error.code, ErrorCode::INTERNAL_ERROR);
    assert!(error.message.contains("index.html"), "{}", error.message);
    // The server goes on serving.
    let result = client
        .call_tool("forecast", json!({"city": "Oslo"}))
        .await
        .unwrap();
    assert_eq!(result.first_text(), Some("Sunny in Oslo, 21 °C"));
}

#[tokio::test]
async fn pages_of_a_client_without_apps_leave_the_app_only_tool_out_across_cursors() {
    let server = Server::builder("weather", "1.0.0")
        .page_size(1)
        .resource(view())
        .tool(forecast::tool())
        .tool(refresh::tool())
        .tool(tool_fn(
            ToolDefinition::new("zone", "The time zone.", json!({"type": "object"})),
            |_args, _cx| async { "UTC" },
        ))
        .build()
        .unwrap();
    for era in ERAS {
        for (apps, expected) in [
            (false, &["forecast", "zone"][..]),
            (true, &["forecast", "refresh", "zone"][..]),
        ] {
            // The client follows every cursor.
            let names = tool_names(&client(&server, era, apps).await).await;
            assert_eq!(names, expected, "{era:?}, apps: {apps}");
        }
    }
}
