//! MCP Apps through a proxy: the upstream's views and app-only tools pass through, under
//! the mount's prefix, and the gateway shows an app-only tool only to callers that render
//! apps.

use super::*;
use crate::protocol::apps::{APP_MIME_TYPE, UI_EXTENSION, Visibility};
use crate::resource::{AppView, Html};

const PAGE: &str = "<!doctype html><p>forecast</p>";

/// A server with a view, a tool shown with it, and a tool only the view calls.
fn weather() -> Server {
    let tool = |name: &str, app_only: bool| {
        let definition = ToolDefinition::new(name, "Weather.", json!({"type": "object"}))
            .with_app("ui://weather/forecast");
        let definition = match app_only {
            true => definition.with_app_visibility([Visibility::App]),
            false => definition,
        };
        let answer = name.to_owned();
        tool_fn(definition, move |_, _| {
            let answer = answer.clone();
            async move { answer }
        })
    };
    Server::builder("weather", "1.0.0")
        .resource(AppView::new("ui://weather/forecast", Html::inline(PAGE)))
        .tool(tool("forecast", false))
        .tool(tool("refresh", true))
        .build()
        .unwrap()
}

async fn names(client: &Client) -> Vec<String> {
    let tools = client.list_tools().await.unwrap();
    tools.into_iter().map(|t| t.name).collect()
}

#[tokio::test]
async fn views_and_app_only_tools_pass_through_a_proxy_in_both_eras() {
    for upstream_era in [EraMode::Legacy, EraMode::Modern] {
        let proxy = Proxy::start(Upstream::memory(weather()).era(upstream_era));
        proxy.connected_times(1).await;
        let gateway = gateway(&proxy);
        assert!(
            gateway
                .capabilities()
                .extensions
                .as_ref()
                .is_some_and(|e| e.contains_key(UI_EXTENSION)),
            "{upstream_era:?}: the gateway declares the extension"
        );
        for era in [EraMode::Legacy, EraMode::Modern] {
            let apps = Client::memory(&gateway);
            apps.declare_capabilities(json!({"extensions": {UI_EXTENSION: {}}}));
            apps.connect(era).await.unwrap();
            assert_eq!(names(&apps).await, ["up_forecast", "up_refresh"], "{era:?}");
            let tools = apps.list_tools().await.unwrap();
            let uri = tools[0].app().unwrap().resource_uri;
            assert_eq!(uri, "ui://up/weather/forecast", "{era:?}");
            let read = apps.read_resource(&uri).await.unwrap();
            let contents = serde_json::to_value(&read.contents[0]).unwrap();
            assert_eq!(contents["mimeType"], APP_MIME_TYPE, "{era:?}");
            assert_eq!(contents["text"], PAGE, "{era:?}");
            let called = apps.call_tool("up_refresh", json!({})).await.unwrap();
            assert_eq!(called.first_text(), Some("refresh"), "{era:?}");

            let plain = Client::memory(&gateway);
            plain.connect(era).await.unwrap();
            assert_eq!(
                names(&plain).await,
                ["up_forecast"],
                "{upstream_era:?} {era:?}"
            );
            let refused = plain.call_tool("up_refresh", json!({})).await.unwrap_err();
            assert!(
                refused
                    .as_protocol()
                    .unwrap()
                    .message
                    .contains("Unknown tool"),
                "{era:?}: {refused}"
            );
        }
    }
}

/// Servers may leave their views out of `resources/list` (the spec allows it): a gateway
/// over one still builds, its tool naming the view where the upstream serves it.
#[tokio::test]
async fn a_gateway_builds_over_an_upstream_that_lists_no_view() {
    let upstream = Server::builder("weather", "1.0.0")
        .tool(tool_fn(
            ToolDefinition::new("forecast", "Weather.", json!({"type": "object"}))
                .with_app("ui://weather/forecast"),
            |_, _| async { "sunny" },
        ))
        .build()
        .unwrap_err();
    // Our own servers refuse an unserved view; a server written elsewhere may still send one.
    assert!(upstream.to_string().contains("ui://weather/forecast"));
    let elsewhere = Server::builder("weather", "1.0.0")
        .tool(tool_fn(
            ToolDefinition::new("forecast", "Weather.", json!({"type": "object"})),
            |_, _| async { "sunny" },
        ))
        .build()
        .unwrap();
    // Its tool gains a view at run time (not checked then), as a foreign server's would have.
    elsewhere.tools().remove("forecast");
    elsewhere
        .tools()
        .register(tool_fn(
            ToolDefinition::new("forecast", "Weather.", json!({"type": "object"}))
                .with_app("ui://weather/forecast"),
            |_, _| async { "sunny" },
        ))
        .unwrap();
    let proxy = Proxy::start(Upstream::memory(elsewhere));
    proxy.connected_times(1).await;
    let gateway = gateway(&proxy);
    let forecast = gateway.tools().definition("up_forecast").unwrap();
    assert_eq!(
        forecast.app().unwrap().resource_uri,
        "ui://up/weather/forecast"
    );
}
