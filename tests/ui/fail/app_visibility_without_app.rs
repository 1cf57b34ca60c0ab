use mcp_runtime::prelude::*;

/// Refreshes the forecast.
#[mcp_tool(visibility = ["app"])]
async fn refresh(city: String) -> String {
    city
}

fn main() {}
