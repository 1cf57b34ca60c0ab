//! MCP Apps keys: `app` (and `visibility`) on a free function and on an `#[mcp_tools]`
//! method; the server builds when a resource serves the view, and the definitions carry
//! `_meta.ui`.

use mcp_runtime::prelude::*;
use mcp_runtime::protocol::apps::Visibility;
use mcp_runtime::resource::{AppView, Html};

/// Tomorrow's weather, shown with its view.
#[mcp_tool(app = "ui://weather/forecast")]
async fn forecast(city: String) -> String {
    format!("Sunny in {city}")
}

struct Weather;

#[mcp_tools]
impl Weather {
    /// Refreshes the forecast; only the view calls it.
    #[mcp_tool(app = "ui://weather/forecast", visibility = ["app"])]
    async fn refresh(&self, city: String) -> String {
        city
    }
}

fn main() {
    let view = AppView::new("ui://weather/forecast", Html::inline("<p>view</p>"));
    let server = Server::builder("weather", "1.0.0")
        .resource(view)
        .tool(forecast::tool())
        .tools(std::sync::Arc::new(Weather).mcp_tools())
        .build()
        .unwrap();
    let refresh = server.tools().definition("refresh").unwrap().app().unwrap();
    assert_eq!(refresh.resource_uri, "ui://weather/forecast");
    assert_eq!(refresh.visibility, Some(vec![Visibility::App]));
    assert!(server.tools().definition("forecast").unwrap().app().unwrap().visibility.is_none());
}
