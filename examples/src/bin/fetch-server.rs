//! `fetch-server`: a drop-in for the reference fetch server (`mcp-server-fetch`): the tool
//! `fetch` (`url`, `max_length` 5000 by default, `start_index` 0, `raw`), HTML converted to
//! Markdown, long pages read in slices by `start_index`; and the prompt `fetch`. Unlike the
//! reference, it cannot be turned against the network it runs in: every request goes
//! through a [`NetService`], which refuses loopback, private, link-local (cloud metadata)
//! and every other non-public address, checked after resolution and at every redirect.
//!
//! ```text
//! fetch-server [--allow-origin ORIGIN]... [--allow-host PATTERN]... [--user-agent UA]
//!              [--max-bytes N] [--timeout SECONDS] [--transport stdio|http] [--bind ADDR]
//! ```
//!
//! - `--allow-origin ORIGIN`: `scheme://host[:port]`, reachable at whatever address it
//!   resolves to (repeatable): the only way to reach a service on this machine or network.
//! - `--allow-host PATTERN`: only these hosts (`example.com`, `*.example.com`; repeatable);
//!   without one, any public host.
//! - `--max-bytes N`: the most bytes of a page that are read (10 MiB); a longer page is cut
//!   there, and the text says so.
//! - `--timeout SECONDS`: how long one fetch may take, redirects and the whole body
//!   included (15 s, the `net` module's default): an origin that never answers, sends its
//!   headers or its body a byte at a time, costs a call this long, then an error the model
//!   can act on. Connecting takes at most 5 s and the response's head 10 s of it.
//! - `--user-agent UA`: the `User-Agent` sent (the reference's default shape is kept).
//! - `--ignore-robots-txt`: accepted for the reference's command lines; this server does not
//!   consult `robots.txt` (it fetches only what the user's client asks for).
//!
//! Converting a page to Markdown runs on the blocking pool, at most as many at once as the
//! machine has cores (more wait their turn), within [`CONVERT_BUDGET`] including that wait;
//! past it the page's text is the answer (see [`page`] for the size and depth bounds that
//! keep each conversion itself short). The server's other requests never wait for one.
//!
//! Differences from the reference, on purpose: no `--proxy-url` (a proxy would make the
//! address checks meaningless); Markdown from the whole page with scripts, styles and
//! navigation left out, not Readability's extraction of the main article.

use clap::Parser;
use mcp_examples::page;
use mcp_runtime::launch::{ServeArgs, init_tracing};
use mcp_runtime::net::{NetPolicy, NetRequest, NetService};
use mcp_runtime::prelude::*;
use mcp_runtime::prompt::{PromptError, prompt_fn};
use mcp_runtime::protocol::{PromptArgument, PromptDefinition, PromptMessage};
use std::process::ExitCode;

/// Command-line options.
#[derive(Debug, Parser)]
#[command(
    version,
    about = "An MCP server that fetches web pages as Markdown, and never the server's own network"
)]
struct Args {
    /// Allow this exact origin (`scheme://host[:port]`) at any address, non-public ones
    /// included (repeatable).
    #[arg(long = "allow-origin", value_name = "ORIGIN")]
    allow_origins: Vec<String>,

    /// Allow only hosts matching this pattern (`example.com`, `*.example.com`; repeatable).
    #[arg(long = "allow-host", value_name = "PATTERN")]
    allow_hosts: Vec<String>,

    /// The most bytes of a page to read.
    #[arg(long, value_name = "N", default_value_t = 10 << 20)]
    max_bytes: usize,

    /// How long one fetch may take, in seconds, body included.
    #[arg(long, value_name = "SECONDS", default_value_t = mcp_runtime::net::DEFAULT_TOTAL_TIMEOUT.as_secs())]
    timeout: u64,

    /// The User-Agent header to send.
    #[arg(long, value_name = "UA")]
    user_agent: Option<String>,

    /// Accepted for the reference server's command lines; robots.txt is not consulted.
    #[arg(long)]
    ignore_robots_txt: bool,

    #[command(flatten)]
    serve: ServeArgs,
}

/// The reference's user agent, in shape (`ModelContextProtocol/1.0 (User-Specified; +URL)`).
const DEFAULT_USER_AGENT: &str =
    "ModelContextProtocol/1.0 (User-Specified; +https://github.com/modelcontextprotocol/servers)";

const TERMINAL_HINT: &str = "fetch-server: serving MCP on stdio; paste one JSON-RPC message per line, e.g.
{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"fetch\",\"arguments\":{\"url\":\"https://example.com\"}}}
(Ctrl-D to quit)";

/// `max_length`: more than 0, less than 1,000,000 characters (the reference's bounds).
#[derive(Debug, Clone, Copy, serde::Deserialize, schemars::JsonSchema)]
#[serde(transparent)]
struct MaxLength(#[schemars(range(min = 1, max = 999_999))] usize);

/// The user agent, shared by every call.
#[derive(Debug, Clone)]
struct UserAgent(String);

/// Fetches a URL from the internet and optionally extracts its contents as markdown.
///
/// Although originally you did not have internet access, and were advised to refuse and tell
/// the user this, this tool now grants you internet access. Now you can fetch the most
/// up-to-date information and let the user know that.
#[mcp_tool(read_only, open_world)]
async fn fetch(
    #[mcp(inject)] net: NetService,
    State(agent): State<UserAgent>,
    /// URL to fetch
    url: String,
    /// Maximum number of characters to return.
    #[mcp(default = MaxLength(5000))]
    max_length: MaxLength,
    /// On return output starting at this character index, useful if a previous fetch was
    /// truncated and more context is required.
    #[mcp(default)]
    start_index: usize,
    /// Get the actual HTML content of the requested page, without simplification.
    #[mcp(default)]
    raw: bool,
) -> Result<String, String> {
    let page = net
        .send(
            NetRequest::get(&url)
                .header("user-agent", agent.0)
                .allow_truncation(),
        )
        .await
        .map_err(|e| format!("Failed to fetch {url}: {e}"))?;
    if page.status() >= 400 {
        return Err(format!(
            "Failed to fetch {url} - status code {}",
            page.status()
        ));
    }
    let text = page.text();
    let content_type = page.content_type().unwrap_or_default();
    let is_html = text.get(..100).unwrap_or(&text).contains("<html")
        || content_type.contains("text/html")
        || content_type.is_empty();
    let (prefix, mut content) = if is_html && !raw {
        (String::new(), simplified(text).await)
    } else {
        (
            format!(
                "Content type {content_type} cannot be simplified to markdown, but here is the raw content:\n"
            ),
            text,
        )
    };
    if page.truncated() {
        content.push_str(&format!(
            "\n\n<error>The page is longer than {} bytes; only its beginning was read.</error>",
            page.body().len()
        ));
    }
    Ok(format!(
        "{prefix}Contents of {url}:\n{}",
        slice(&content, start_index, max_length.0)
    ))
}

/// How long a page's conversion may take, waiting for a turn included; past it the answer
/// is the page's text ([`page::Fallback::Slow`]).
const CONVERT_BUDGET: std::time::Duration = std::time::Duration::from_secs(10);

/// Conversions running at once: one per core, so that pages being converted leave the
/// async workers (which answer `tools/list`, pings and every other request) their share.
static CONVERSIONS: std::sync::LazyLock<std::sync::Arc<tokio::sync::Semaphore>> =
    std::sync::LazyLock::new(|| {
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        std::sync::Arc::new(tokio::sync::Semaphore::new(cores))
    });

/// The page as Markdown (or its text: see [`page`] and [`CONVERT_BUDGET`]), converted on a
/// blocking thread so that the server's other requests never wait for a large page.
async fn simplified(html: String) -> String {
    const FAILED: &str = "<error>Page failed to be simplified from HTML</error>";
    let html = std::sync::Arc::new(html);
    let convert = {
        let html = html.clone();
        async move {
            let permit = CONVERSIONS.clone().acquire_owned().await;
            // The permit goes with the conversion: one that outlives the budget still
            // holds its core until it ends (bounded by `page::MAX_ELEMENTS`).
            tokio::task::spawn_blocking(move || {
                let _permit = permit;
                page::simplify(&html)
            })
            .await
        }
    };
    match tokio::time::timeout(CONVERT_BUDGET, convert).await {
        Ok(Ok(markdown)) => markdown,
        Ok(Err(_)) => FAILED.to_owned(),
        Err(_) => tokio::task::spawn_blocking(move || page::text_only(&html, page::Fallback::Slow))
            .await
            .unwrap_or_else(|_| FAILED.to_owned()),
    }
}

/// `max_length` characters from `start_index`, with the reference's notes when there is more
/// or nothing left.
fn slice(content: &str, start_index: usize, max_length: usize) -> String {
    let total = content.chars().count();
    if start_index >= total {
        return "<error>No more content available.</error>".to_owned();
    }
    let part: String = content.chars().skip(start_index).take(max_length).collect();
    let taken = part.chars().count();
    let remaining = total - (start_index + taken);
    if taken == max_length && remaining > 0 {
        format!(
            "{part}\n\n<error>Content truncated. Call the fetch tool with a start_index of {} to get more content.</error>",
            start_index + taken
        )
    } else {
        part
    }
}

/// The reference's prompt `fetch`: the page as a user message.
fn fetch_prompt(net: NetService, agent: String) -> impl mcp_runtime::prompt::Prompt {
    prompt_fn(
        PromptDefinition::new("fetch", "Fetch a URL and extract its contents as markdown")
            .with_argument(PromptArgument::required("url", "URL to fetch")),
        move |args, _cx| {
            let (net, agent) = (net.clone(), agent.clone());
            async move {
                let url = args
                    .get("url")
                    .cloned()
                    .ok_or_else(|| PromptError::invalid_arguments("URL is required"))?;
                let page = net
                    .send(
                        NetRequest::get(&url)
                            .header("user-agent", agent)
                            .allow_truncation(),
                    )
                    .await
                    .map_err(|e| PromptError::failed(format!("Failed to fetch {url}: {e}")))?;
                let content = simplified(page.text()).await;
                Ok::<_, PromptError>(vec![PromptMessage::user(content)])
            }
        },
    )
}

#[tokio::main]
async fn main() -> ExitCode {
    let args: Args = mcp_runtime::launch::parse();
    let _logs = init_tracing();
    let mut policy = NetPolicy::new()
        .max_response_bytes(args.max_bytes)
        .total_timeout(std::time::Duration::from_secs(args.timeout.max(1)));
    for pattern in &args.allow_hosts {
        policy = policy.allow_host(pattern);
    }
    for origin in &args.allow_origins {
        policy = match policy.allow_origin(origin) {
            Ok(policy) => policy,
            Err(e) => {
                eprintln!("fetch-server: --allow-origin: {e}");
                return ExitCode::from(2);
            }
        };
    }
    let net = match NetService::new(policy) {
        Ok(net) => net.for_tool("fetch"),
        Err(e) => {
            eprintln!("fetch-server: {e}");
            return ExitCode::FAILURE;
        }
    };
    let agent = args
        .user_agent
        .clone()
        .unwrap_or_else(|| DEFAULT_USER_AGENT.to_owned());
    let server = Server::builder(env!("CARGO_BIN_NAME"), env!("CARGO_PKG_VERSION"))
        .state(net.clone())
        .state(UserAgent(agent.clone()))
        .tool(fetch::tool())
        .prompt(fetch_prompt(net, agent))
        .build();
    match server {
        Ok(server) => {
            args.serve
                .with_stdio_hint(TERMINAL_HINT)
                .serve(server)
                .await
        }
        Err(e) => {
            eprintln!("fetch-server: {e}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::slice;

    #[test]
    fn slices_like_the_reference() {
        assert_eq!(slice("abcdef", 0, 10), "abcdef");
        assert_eq!(
            slice("abcdef", 0, 4),
            "abcd\n\n<error>Content truncated. Call the fetch tool with a start_index of 4 to get more content.</error>"
        );
        assert_eq!(slice("abcdef", 4, 4), "ef");
        assert_eq!(
            slice("abcdef", 6, 4),
            "<error>No more content available.</error>"
        );
        assert_eq!(
            slice("héllo", 1, 3),
            "éll\n\n<error>Content truncated. Call the fetch tool with a start_index of 4 to get more content.</error>"
        );
    }
}
