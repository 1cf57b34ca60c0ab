use mcp_runtime::prelude::*;

struct Config {
    theme: String,
}

/// The configuration.
#[mcp_resource(uri = "config://app")]
async fn config() -> Config {
    Config {
        theme: "dark".into(),
    }
}

fn main() {}
