use mcp_runtime::prelude::*;

/// Tomorrow's weather.
#[mcp_tool(app = "https://weather.example/forecast")]
async fn forecast(city: String) -> String {
    city
}

fn main() {}
