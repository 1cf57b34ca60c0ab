use mcp_runtime::prelude::*;

/// Reports the weather.
#[mcp_tool]
async fn météo(city: String) -> String {
    city
}

fn main() {}
