//! Policy keys: every one on a free function, on an `#[mcp_tools]` method, and through
//! `crate = path`; registration accepts the values the attribute let through.

use mcp_runtime::prelude::*;
use mcp_runtime::tool::{Rate, ToolPolicy};
use std::sync::Arc;
use std::time::Duration;

mod reexport {
    pub use mcp_runtime as runtime;
}

/// Reads a file, with every policy.
#[mcp_tool(
    read_only,
    idempotent,
    timeout = "30s",
    concurrency = 4,
    rate_limit = "10/s",
    cache = "60s",
    scopes = ["files:read", "admin", "https://example.com/scope!#[]~"]
)]
async fn guarded(path: String) -> String {
    path
}

/// Looks a word up; answers are cached for five minutes.
#[mcp_tool(read_only, idempotent, cache = "5m")]
async fn define(word: String) -> String {
    word
}

/// Waits, briefly.
#[mcp_tool(crate = reexport::runtime, timeout = "250ms")]
async fn brief() {}

struct Store;

#[mcp_tools]
impl Store {
    /// Looks a key up, with every policy.
    #[mcp_tool(
        read_only = true,
        idempotent = true,
        timeout = "2m",
        concurrency = 1,
        rate_limit = "1000/h",
        cache = "1h",
        scopes = ["store:read"]
    )]
    async fn lookup(&self, key: String) -> String {
        key
    }
}

fn main() {
    let expected = ToolPolicy::new()
        .timeout(Duration::from_secs(30))
        .concurrency(4)
        .rate_limit(Rate::per_second(10))
        .cache(Duration::from_secs(60))
        .scope("files:read")
        .scope("admin")
        .scope("https://example.com/scope!#[]~");
    assert_eq!(guarded::tool().policy(), expected);
    assert_eq!(
        brief::tool().policy(),
        ToolPolicy::new().timeout(Duration::from_millis(250))
    );
    let store = Arc::new(Store).mcp_tools();
    assert_eq!(
        store[0].policy(),
        ToolPolicy::new()
            .timeout(Duration::from_secs(120))
            .concurrency(1)
            .rate_limit(Rate::per_hour(1000))
            .cache(Duration::from_secs(3600))
            .scope("store:read")
    );
    assert_eq!(
        define::tool().policy(),
        ToolPolicy::new().cache(Duration::from_secs(300))
    );
    let _server = Server::builder("pass", "1")
        .tool(brief::tool())
        .tool(define::tool())
        .build()
        .unwrap();
    // Declared scopes and caches are enforced, so the server takes them.
    let _scoped = Server::builder("pass", "1")
        .tool(guarded::tool())
        .tools(store)
        .build()
        .unwrap();
}
