//! `fetch-server` end to end: the reference fetch server's tool and prompt, against page
//! servers on 127.0.0.1. Loopback is non-public, so the page server is reached through
//! `--allow-origin`, and a second loopback server, not allowed, must never be reached
//! (refusals of addresses off this machine are the `net` module's tests, with a connector
//! that cannot leave it).

use crate::fs_support::guarded;
use crate::fs_tools_support::connect;
use mcp_runtime::client::{Client, EraMode};
use mcp_runtime::protocol::CallToolResult;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::net::Ipv4Addr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

const PAGE: &str = "<!doctype html><html><head><title>T</title><style>p{color:red}</style>\
<script>alert('no')</script></head><body><nav>menu</nav><h1>Weather report</h1>\
<p>Sunny with <a href=\"/more\">more</a> to come.</p></body></html>";

/// Reads a request's head from `conn`: its path, or `None` when the client went away first.
async fn request_path(conn: &mut tokio::net::TcpStream) -> Option<String> {
    let mut head = Vec::new();
    let mut buf = [0u8; 2048];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
        match conn.read(&mut buf).await {
            Ok(0) | Err(_) => return None,
            Ok(n) => head.extend_from_slice(&buf[..n]),
        }
    }
    let text = String::from_utf8_lossy(&head);
    Some(text.split(' ').nth(1).unwrap_or("/").to_owned())
}

/// A page server on 127.0.0.1: `reply(path)` is `(status line, content type, body)`.
async fn pages(
    reply: impl Fn(&str) -> (&'static str, String, String) + Send + Sync + 'static,
) -> (u16, Arc<AtomicUsize>) {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let hits = Arc::new(AtomicUsize::new(0));
    let (reply, counter) = (Arc::new(reply), hits.clone());
    tokio::spawn(async move {
        while let Ok((mut conn, _)) = listener.accept().await {
            let (reply, counter) = (reply.clone(), counter.clone());
            tokio::spawn(async move {
                let Some(path) = request_path(&mut conn).await else {
                    return;
                };
                counter.fetch_add(1, Ordering::SeqCst);
                let (status, extra, body) = reply(&path);
                let out = format!(
                    "HTTP/1.1 {status}\r\n{extra}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = conn.write_all(out.as_bytes()).await;
            });
        }
    });
    (port, hits)
}

async fn fetch_server(args: &[String]) -> Client {
    let mut cmd = tokio::process::Command::new(mcp_tests::example_bin("fetch-server"));
    cmd.args(args);
    connect(cmd, EraMode::Legacy).await
}

async fn fetch(client: &Client, args: Value) -> CallToolResult {
    guarded(client.call_tool("fetch", args)).await.unwrap()
}

fn text(r: &CallToolResult) -> &str {
    r.first_text().unwrap_or_else(|| panic!("no text: {r:?}"))
}

#[tokio::test]
async fn the_reference_tool_fetches_pages_as_markdown_and_slices_them() {
    let (other, other_hits) = pages(|_| ("200 OK", String::new(), "secret".into())).await;
    let (port, _) = pages(move |path| match path {
        "/page.html" => ("200 OK", "Content-Type: text/html\r\n".into(), PAGE.into()),
        "/plain.txt" => (
            "200 OK",
            "Content-Type: text/plain\r\n".into(),
            "just text".into(),
        ),
        "/away" => (
            "302 Found",
            format!("Location: http://127.0.0.1:{other}/\r\n"),
            String::new(),
        ),
        _ => ("404 Not Found", String::new(), "gone".into()),
    })
    .await;
    let client = fetch_server(&["--allow-origin".into(), format!("http://127.0.0.1:{port}")]).await;
    let base = format!("http://127.0.0.1:{port}");

    let tools = guarded(client.list_tools()).await.unwrap();
    let tool = tools
        .iter()
        .find(|t| t.name == "fetch")
        .expect("fetch listed");
    let schema = serde_json::to_value(&tool.input_schema).unwrap();
    assert_eq!(schema["required"], json!(["url"]), "{schema}");
    for property in ["url", "max_length", "start_index", "raw"] {
        assert!(schema["properties"].get(property).is_some(), "{schema}");
    }

    let page = fetch(&client, json!({"url": format!("{base}/page.html")})).await;
    assert!(!page.is_error(), "{page:?}");
    let body = text(&page);
    assert!(
        body.starts_with(&format!("Contents of {base}/page.html:\n")),
        "{body}"
    );
    assert!(body.contains("# Weather report"), "{body}");
    assert!(body.contains("[more](/more)"), "{body}");
    assert!(
        !body.contains("alert") && !body.contains("color:red"),
        "{body}"
    );

    let head = fetch(
        &client,
        json!({"url": format!("{base}/page.html"), "max_length": 9}),
    )
    .await;
    let head = text(&head);
    assert!(
        head.contains("# Weather\n\n<error>Content truncated. Call the fetch tool with a start_index of 9 to get more content.</error>"),
        "{head}"
    );
    let rest = fetch(
        &client,
        json!({"url": format!("{base}/page.html"), "start_index": 9, "max_length": 7}),
    )
    .await;
    assert!(text(&rest).contains(":\n report"), "{}", text(&rest));
    let past = fetch(
        &client,
        json!({"url": format!("{base}/page.html"), "start_index": 100000}),
    )
    .await;
    assert!(text(&past).ends_with("<error>No more content available.</error>"));

    let raw = fetch(
        &client,
        json!({"url": format!("{base}/page.html"), "raw": true}),
    )
    .await;
    assert!(
        text(&raw).contains("<h1>Weather report</h1>"),
        "{}",
        text(&raw)
    );
    let plain = fetch(&client, json!({"url": format!("{base}/plain.txt")})).await;
    assert!(
        text(&plain).starts_with(
            "Content type text/plain cannot be simplified to markdown, but here is the raw content:\n"
        ),
        "{}",
        text(&plain)
    );

    let missing = fetch(&client, json!({"url": format!("{base}/missing")})).await;
    assert!(missing.is_error());
    assert!(
        text(&missing).contains("status code 404"),
        "{}",
        text(&missing)
    );

    // Not allowed: the other loopback server, directly or by redirect.
    for url in [
        format!("http://127.0.0.1:{other}/"),
        format!("http://localhost:{other}/"),
        format!("{base}/away"),
    ] {
        let r = fetch(&client, json!({ "url": url })).await;
        assert!(r.is_error(), "{url}: {r:?}");
        assert!(
            text(&r).contains("refused") && text(&r).contains("loopback"),
            "{url}: {}",
            text(&r)
        );
    }
    assert_eq!(other_hits.load(Ordering::SeqCst), 0);

    let bad = fetch(
        &client,
        json!({"url": format!("{base}/page.html"), "max_length": 0}),
    )
    .await;
    assert!(bad.is_error(), "{bad:?}");

    let mut args = BTreeMap::new();
    args.insert("url".to_owned(), format!("{base}/page.html"));
    let prompt = guarded(client.get_prompt("fetch", &args)).await.unwrap();
    let message = serde_json::to_string(&prompt.messages).unwrap();
    assert!(message.contains("# Weather report"), "{message}");
}

#[test]
fn a_bad_origin_is_a_usage_error() {
    let out = std::process::Command::new(mcp_tests::example_bin("fetch-server"))
        .args(["--allow-origin", "http://127.0.0.1:8080/path"])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("--allow-origin"), "{stderr}");
}

#[tokio::test]
async fn a_page_nested_too_deep_for_markdown_is_answered_with_its_text_and_the_server_lives() {
    let deep = |depth: usize| {
        format!(
            "<html><body>{}<p>the bottom</p>{}</body></html>",
            "<div>".repeat(depth),
            "</div>".repeat(depth)
        )
    };
    let (port, _) = pages(move |path| {
        let depth = path.trim_start_matches("/deep/").parse().unwrap_or(1);
        ("200 OK", "Content-Type: text/html\r\n".into(), deep(depth))
    })
    .await;
    let client = fetch_server(&["--allow-origin".into(), format!("http://127.0.0.1:{port}")]).await;
    let base = format!("http://127.0.0.1:{port}");
    // 5,000 deep aborted the server (a stack overflow in the conversion); 100,000 deep also
    // took html5ever's tree builder minutes. Through the tool and through the prompt.
    for depth in [5_000, 100_000] {
        let url = format!("{base}/deep/{depth}");
        let r = fetch(&client, json!({ "url": url, "max_length": 100_000 })).await;
        assert!(!r.is_error(), "{depth}: {r:?}");
        let body = text(&r);
        assert!(
            body.contains("more than 512 deep") && body.ends_with("the bottom"),
            "{depth}: {body}"
        );
        let mut args = BTreeMap::new();
        args.insert("url".to_owned(), url);
        let prompt = guarded(client.get_prompt("fetch", &args)).await.unwrap();
        let message = serde_json::to_string(&prompt.messages).unwrap();
        assert!(
            message.contains("more than 512 deep") && message.contains("the bottom"),
            "{depth}: {message}"
        );
    }
    // A page at an ordinary depth is still Markdown, from the same server.
    let r = fetch(&client, json!({ "url": format!("{base}/deep/100") })).await;
    assert!(text(&r).ends_with(":\nthe bottom"), "{}", text(&r));
    assert!(guarded(client.list_tools()).await.is_ok());
}

/// An origin on 127.0.0.1 that is slow in the way `path` says: `/silent` never answers,
/// `/head` sends its status line a byte every 200 ms, `/body` its headers at once and its
/// body a byte every 200 ms.
async fn slow_origin() -> u16 {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        while let Ok((mut conn, _)) = listener.accept().await {
            tokio::spawn(async move {
                let Some(path) = request_path(&mut conn).await else {
                    return;
                };
                match path.as_str() {
                    "/head" => {
                        drip(&mut conn, b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok").await
                    }
                    "/body" => {
                        let head = b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 1000\r\n\r\n";
                        if conn.write_all(head).await.is_ok() {
                            drip(&mut conn, &[b'x'; 1000]).await;
                        }
                    }
                    _ => std::future::pending::<()>().await,
                }
            });
        }
    });
    port
}

/// Writes `bytes` one every 200 ms.
async fn drip(conn: &mut tokio::net::TcpStream, bytes: &[u8]) {
    for byte in bytes {
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        if conn.write_all(&[*byte]).await.is_err() {
            return;
        }
    }
}

/// Review #40 item 8: an origin that never answers, or trickles its head or its body, held
/// a call for more than 20 s (60 s by default then). Each now ends at the fetch's timeout
/// (`--timeout`, 15 s by default) with an error result, and the server goes on serving.
#[tokio::test]
async fn slow_origins_end_at_the_timeout_with_an_error_result() {
    let port = slow_origin().await;
    let base = format!("http://127.0.0.1:{port}");
    let client = fetch_server(&[
        "--allow-origin".into(),
        base.clone(),
        "--timeout".into(),
        "2".into(),
    ])
    .await;
    for path in ["/silent", "/head", "/body"] {
        let r = fetch(&client, json!({ "url": format!("{base}{path}") })).await;
        assert!(r.is_error(), "{path}: {r:?}");
        assert!(text(&r).contains("timed out"), "{path}: {}", text(&r));
        assert!(text(&r).contains("2s"), "{path}: {}", text(&r));
    }
    assert!(guarded(client.list_tools()).await.is_ok());
}

/// Review #40 item 8: the `fetch` prompt converted on the async workers, and two prompts for
/// a 1 MiB page delayed `tools/list` by 2.9 s. While two prompts convert pages that take
/// seconds, `tools/list` is answered first (the latency is printed; `bench/` measures it).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_list_is_answered_while_prompts_convert_large_pages() {
    // Adjacent inline elements, the conversion's slowest shape, just under its element bound.
    let big = format!(
        "<html><body><div>{}</div></body></html>",
        "<span>x</span>".repeat(90_000)
    );
    let (port, hits) =
        pages(move |_| ("200 OK", "Content-Type: text/html\r\n".into(), big.clone())).await;
    let client = Arc::new(
        fetch_server(&["--allow-origin".into(), format!("http://127.0.0.1:{port}")]).await,
    );
    let prompts: Vec<_> = (0..2)
        .map(|n| {
            let client = client.clone();
            let url = format!("http://127.0.0.1:{port}/big/{n}");
            tokio::spawn(async move {
                let mut args = BTreeMap::new();
                args.insert("url".to_owned(), url);
                guarded(client.get_prompt("fetch", &args)).await
            })
        })
        .collect();
    guarded(async {
        while hits.load(Ordering::SeqCst) < 2 {
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
    })
    .await;
    // The pages are read; give the conversions time to start.
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    let started = std::time::Instant::now();
    let tools = guarded(client.list_tools()).await.unwrap();
    let took = started.elapsed();
    assert_eq!(tools.len(), 1);
    let still_converting = prompts.iter().filter(|p| !p.is_finished()).count();
    eprintln!("tools/list took {took:?} with {still_converting} conversions running");
    assert_eq!(
        still_converting, 2,
        "the conversions ended before tools/list was answered"
    );
    for prompt in prompts {
        let answer = prompt.await.unwrap().unwrap();
        let message = serde_json::to_string(&answer.messages).unwrap();
        assert!(
            message.contains("xxxx"),
            "{}",
            &message[..message.len().min(300)]
        );
    }
}
