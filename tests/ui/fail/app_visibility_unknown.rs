use mcp_runtime::prelude::*;

/// Refreshes the forecast.
#[mcp_tool(app = "ui://weather/forecast", visibility = ["model", "user"])]
async fn refresh(city: String) -> String {
    city
}

fn main() {}
