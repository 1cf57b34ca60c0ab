use mcp_runtime::prelude::*;

#[mcp_prompt]
async fn greet(name: String) -> String {
    format!("Greet {name}.")
}

fn main() {}
