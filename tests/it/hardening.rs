//! Hardening (the availability findings): what hostile or careless input can no longer do.

use mcp_runtime::client::{Client, EraMode};
use mcp_runtime::prelude::*;
use serde_json::json;

/// Sums numbers.
#[mcp_tool]
async fn sum(
    /// The numbers
    xs: Vec<f64>,
) -> f64 {
    xs.iter().sum()
}

#[tokio::test]
async fn a_flood_of_wrong_arguments_gets_a_short_answer_that_counts_the_rest() {
    let server = Server::builder("flood", "1.0.0")
        .tool(sum::tool())
        .build()
        .unwrap();
    let client = Client::memory(&server);
    client.connect(EraMode::Legacy).await.unwrap();
    // About 3.5 MiB of strings where numbers belong: 700,000 violations, and before the
    // bound, a message listing each of them (some 40 MiB).
    let flood = json!({"xs": vec!["nope"; 700_000]});
    let result = client.call_tool("sum", flood).await.unwrap();
    assert!(result.is_error());
    let text = result.first_text().unwrap();
    assert!(text.len() < 8 * 1024, "{} bytes", text.len());
    assert!(
        text.starts_with("Invalid arguments for tool `sum` (more than 100000 problems):\n- at /xs/0: \"nope\" is not of type \"number\""),
        "{}",
        &text[..200]
    );
    assert!(
        text.contains("\n- …and more than 99980 more\nCorrect the arguments"),
        "{text}"
    );
    // A few mistakes are all listed.
    let result = client
        .call_tool("sum", json!({"xs": [1, "a", "b"]}))
        .await
        .unwrap();
    let text = result.first_text().unwrap();
    assert!(
        text.contains("(2 problems)") && !text.contains("more"),
        "{text}"
    );
}

/// Panics when dropped: the state of a tool that is cancelled mid-way.
struct DropBomb;

impl Drop for DropBomb {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            panic!("a guard failed while the cancelled tool was dropped");
        }
    }
}

/// Panics while serialized.
#[derive(schemars::JsonSchema)]
struct SerializeBomb;

impl serde::Serialize for SerializeBomb {
    fn serialize<S: serde::Serializer>(&self, _: S) -> Result<S::Ok, S::Error> {
        panic!("a result that cannot be serialized")
    }
}

/// Three tools that panic where a plain `catch_unwind` around the call would not see it:
/// after their first `.await`, while their result is serialized, while they are dropped
/// (past their timeout, and when the client cancels them).
fn panicky() -> Server {
    use mcp_runtime::protocol::ToolDefinition;
    use mcp_runtime::tool::ToolPolicy;
    use std::time::Duration;
    let object = || json!({"type": "object"});
    let after_await = tool_fn(
        ToolDefinition::new("after_await", "Panics after a sleep.", object()),
        |_, _| async {
            tokio::time::sleep(Duration::from_millis(5)).await;
            if true {
                panic!("after the first await");
            }
            "never"
        },
    );
    let serializing = tool_fn(
        ToolDefinition::new(
            "serializing",
            "Returns what cannot be serialized.",
            object(),
        ),
        |_, _| async { mcp_runtime::tool::Json(vec![SerializeBomb]) },
    );
    let dropped = tool_fn(
        ToolDefinition::new("dropped", "Never finishes; panics when dropped.", object()),
        |_, _| async {
            let _bomb = DropBomb;
            std::future::pending::<String>().await
        },
    )
    .with_policy(ToolPolicy::new().timeout(Duration::from_millis(50)));
    let cancelled = tool_fn(
        ToolDefinition::new(
            "cancelled",
            "Never finishes; panics when dropped.",
            object(),
        ),
        |_, _| async {
            let _bomb = DropBomb;
            std::future::pending::<String>().await
        },
    );
    Server::builder("panicky", "1.0.0")
        .tool(after_await)
        .tool(serializing)
        .tool(dropped)
        .tool(cancelled)
        .tool(sum::tool())
        .build()
        .unwrap()
}

#[tokio::test]
async fn panics_after_an_await_in_serializing_and_in_drop_are_answered_and_the_server_serves_on() {
    for mode in [EraMode::Legacy, EraMode::Modern] {
        let server = panicky();
        let client = Client::memory(&server);
        client.connect(mode).await.unwrap();
        for tool in ["after_await", "serializing", "dropped"] {
            let outcome = tokio::time::timeout(
                std::time::Duration::from_secs(5),
                client.call_tool(tool, json!({})),
            )
            .await
            .unwrap_or_else(|_| panic!("{mode:?}: `{tool}` was never answered"));
            let result = outcome.unwrap_or_else(|e| panic!("{mode:?}: `{tool}`: {e}"));
            assert!(result.is_error(), "{mode:?}: `{tool}`: {result:?}");
            let sum = client.call_tool("sum", json!({"xs": [1, 2]})).await;
            assert_eq!(
                sum.unwrap().first_text(),
                Some("3"),
                "{mode:?}: after `{tool}`"
            );
        }
    }
    // A client cancels a call whose tool panics when dropped (legacy: notifications/cancelled).
    let server = panicky();
    let client = Client::memory(&server);
    client.connect(EraMode::Legacy).await.unwrap();
    let call = tokio::spawn({
        let client = client.clone();
        async move { client.call_tool("cancelled", json!({})).await }
    });
    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    // The initialize was id 1, the call id 2.
    let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                        "params": {"requestId": 2, "reason": "test"}});
    client
        .send_raw(serde_json::to_vec(&cancel).unwrap())
        .await
        .unwrap();
    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    let sum = tokio::time::timeout(
        std::time::Duration::from_secs(5),
        client.call_tool("sum", json!({"xs": [2, 2]})),
    )
    .await
    .expect("the server still answers after the cancelled tool panicked in drop");
    assert_eq!(sum.unwrap().first_text(), Some("4"));
    call.abort();
}

/// Returns `n` bytes of text.
#[mcp_tool]
async fn bulk(
    /// How many bytes
    n: usize,
) -> String {
    "x".repeat(n)
}

#[tokio::test]
async fn a_result_over_the_response_budget_is_refused_without_being_built_whole() {
    let server = Server::builder("budget", "1.0.0")
        .tool(bulk::tool())
        .max_response_bytes(64 * 1024)
        .build()
        .unwrap();
    for mode in [EraMode::Legacy, EraMode::Modern] {
        let client = Client::memory(&server);
        client.connect(mode).await.unwrap();
        let fits = client.call_tool("bulk", json!({"n": 16 * 1024})).await;
        let fits = fits.unwrap();
        assert!(!fits.is_error(), "{mode:?}");
        assert_eq!(fits.first_text().map(str::len), Some(16 * 1024));
        let over = client.call_tool("bulk", json!({"n": 100 * 1024})).await;
        let over = over.unwrap();
        assert!(over.is_error(), "{mode:?}");
        assert_eq!(
            over.first_text(),
            Some(
                "The result of tool `bulk` is larger than this server's response budget \
                 (65536 bytes), so it was not sent. Ask for less: a smaller range, fewer items, \
                 or a smaller file."
            )
        );
    }
}

#[tokio::test]
async fn a_file_of_control_bytes_cannot_blow_up_a_response() {
    use mcp_runtime::fs::{FileService, FileTools, FsPolicy};
    use std::sync::Arc;
    let dir = tempfile::tempdir().unwrap();
    // 8 MiB of \x01 in lines of 1 KiB: within the read limit (10 MiB), but 48 MiB as a
    // JSON string, twice.
    let mut line = vec![1u8; 1023];
    line.push(b'\n');
    std::fs::write(dir.path().join("ctl.txt"), line.repeat(8 << 10)).unwrap();
    let files = FileService::new(FsPolicy::new().allow_dir(dir.path())).unwrap();
    let tools = Arc::new(FileTools::new(files));
    let server = Server::builder("files", "1.0.0")
        .tools(tools.tools_named(&["read_text_file"]).unwrap())
        .build()
        .unwrap();
    let client = Client::memory(&server);
    client.connect(EraMode::Legacy).await.unwrap();
    let result = client
        .call_tool("read_text_file", json!({"path": "ctl.txt", "head": 3}))
        .await
        .unwrap();
    assert!(!result.is_error(), "a part of it is fine: {result:?}");
    let result = client
        .call_tool("read_text_file", json!({"path": "ctl.txt"}))
        .await
        .unwrap();
    assert!(result.is_error());
    assert!(
        result
            .first_text()
            .unwrap()
            .contains("response budget (33554432 bytes)"),
        "{result:?}"
    );
}

/// Makes `depth` nested directories `d/d/d/…` below `root` (deeper than a path can name,
/// so through directory handles), each with `files` small files, and `deep.txt` at the
/// bottom.
fn nest(root: &std::path::Path, depth: usize, files: usize) {
    use rustix::fs::{CWD, Mode, OFlags};
    let flags = OFlags::DIRECTORY | OFlags::RDONLY | OFlags::CLOEXEC;
    let mut dir = rustix::fs::openat(CWD, root, flags, Mode::empty()).unwrap();
    for _ in 0..depth {
        for i in 0..files {
            let name = format!("f{i}.txt");
            let flags = OFlags::CREATE | OFlags::WRONLY | OFlags::CLOEXEC;
            rustix::fs::openat(&dir, name.as_str(), flags, Mode::from_raw_mode(0o644)).unwrap();
        }
        rustix::fs::mkdirat(&dir, "d", Mode::from_raw_mode(0o755)).unwrap();
        dir = rustix::fs::openat(&dir, "d", flags, Mode::empty()).unwrap();
    }
    let file = rustix::fs::openat(
        &dir,
        "deep.txt",
        OFlags::CREATE | OFlags::WRONLY | OFlags::CLOEXEC,
        Mode::from_raw_mode(0o644),
    )
    .unwrap();
    rustix::io::write(&file, b"bottom").unwrap();
}

#[tokio::test]
async fn a_tree_thousands_of_levels_deep_is_walked_without_exhausting_the_stack() {
    use mcp_runtime::fs::{FileService, FsPolicy, WalkLimits};
    let dir = tempfile::tempdir().unwrap();
    nest(dir.path(), 3_000, 0);
    let mut limits = WalkLimits::default();
    limits.max_depth = 100_000;
    limits.max_entries = 1_000_000;
    let files =
        FileService::new(FsPolicy::new().allow_dir(dir.path()).walk_limits(limits)).unwrap();
    // Each walk used to recurse once per level, on a blocking thread's 2 MiB stack.
    let found = files.search_files(".", "**/deep.txt", &[]).await.unwrap();
    assert_eq!(found.matches.len(), 1, "{:?}", found.truncated);
    assert!(found.truncated.is_none());
    let tree = files.directory_tree(".", &[]).await.unwrap();
    let mut depth = 0;
    let mut nodes = &tree.nodes;
    while let Some(node) = nodes.first() {
        depth += 1;
        match &node.children {
            Some(children) => nodes = children,
            None => break,
        }
    }
    assert_eq!(depth, 3_001, "every level and the file at the bottom");
    let swept = files
        .remove_stale_temp_files_recursively(".")
        .await
        .unwrap();
    assert_eq!(swept, 0);
}

#[tokio::test]
async fn concurrent_searches_stay_within_the_descriptor_limit() {
    use mcp_runtime::client::Client;
    let dir = tempfile::tempdir().unwrap();
    nest(dir.path(), 30, 200);
    // A file server allowed 400 descriptors, searching a 30-level tree 48 times at once:
    // each walk used to hold one descriptor per level (48 x 31 > 400); now at most 16 walks
    // run at once, each holding at most 18.
    let script = format!(
        "ulimit -n 400 && exec {} {}",
        mcp_tests::example_bin("file-server").display(),
        dir.path().display()
    );
    let mut command = tokio::process::Command::new("sh");
    command
        .args(["-c", &script])
        .stderr(std::process::Stdio::null());
    let client = Client::spawn(command).unwrap();
    client.connect(EraMode::Legacy).await.unwrap();
    let searches: Vec<_> = (0..48)
        .map(|_| {
            let client = client.clone();
            tokio::spawn(async move {
                client
                    .call_tool(
                        "search_files",
                        json!({"path": ".", "pattern": "**/deep.txt"}),
                    )
                    .await
            })
        })
        .collect();
    for search in searches {
        let result = search.await.unwrap().unwrap();
        assert!(!result.is_error(), "{result:?}");
        assert!(
            result.first_text().unwrap().ends_with("/deep.txt"),
            "{result:?}"
        );
    }
    client.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancelled_walks_stop_and_free_their_turn() {
    use mcp_runtime::fs::{FileService, FsPolicy, WalkLimits};
    use std::time::{Duration, Instant};
    let dir = tempfile::tempdir().unwrap();
    let big = dir.path().join("big");
    for d in 0..30 {
        let sub = big.join(format!("d{d}"));
        std::fs::create_dir_all(&sub).unwrap();
        for f in 0..500 {
            std::fs::write(sub.join(format!("f{f}.txt")), "").unwrap();
        }
    }
    std::fs::create_dir(dir.path().join("small")).unwrap();
    let mut limits = WalkLimits::default();
    limits.max_entries = 1_000_000;
    limits.timeout = Duration::from_secs(120);
    let files =
        FileService::new(FsPolicy::new().allow_dir(dir.path()).walk_limits(limits)).unwrap();
    // How long one whole walk of the big tree takes here, its directories in the cache: the
    // longest of three, so that one quiet moment on a loaded machine does not make it short.
    files.search_files("big", "**/nothing", &[]).await.unwrap();
    let mut full = Duration::ZERO;
    for _ in 0..3 {
        let started = Instant::now();
        let whole = files.search_files("big", "**/nothing", &[]).await.unwrap();
        assert!(whole.truncated.is_none());
        full = full.max(started.elapsed());
    }
    // Sixteen walks (every walk slot) start, and their requests are dropped a little later.
    let walks: Vec<_> = (0..16)
        .map(|_| {
            let files = files.clone();
            tokio::spawn(async move { files.search_files("big", "**/nothing", &[]).await })
        })
        .collect();
    tokio::time::sleep(full / 8).await;
    for walk in &walks {
        walk.abort();
    }
    // They stop at their next step and give their slots back: a small walk does not wait
    // for them to run to the end. Had they run on, the first slot would free after about
    // eight whole walks (16 walks sharing 2 cores, each barely begun); the bound, half of
    // that, leaves room for a noisy machine on either side.
    let started = Instant::now();
    files.search_files("small", "*", &[]).await.unwrap();
    let waited = started.elapsed();
    assert!(
        waited < full * 4,
        "a walk waited {waited:?} behind cancelled walks (a whole walk takes {full:?})"
    );
}

#[tokio::test]
async fn a_walk_climbing_back_past_its_open_handles_reopens_them_and_misses_nothing() {
    use mcp_runtime::fs::{FileService, FsPolicy};
    // 24 levels `a/a/…`, each with a sibling `z/f.txt` listed after `a`: coming back up,
    // the walk has let go of the handles of the shallow levels (it keeps 16) and must open
    // them again to enter their `z`.
    let dir = tempfile::tempdir().unwrap();
    let mut level = dir.path().to_path_buf();
    for _ in 0..24 {
        std::fs::create_dir_all(level.join("z")).unwrap();
        std::fs::write(level.join("z/f.txt"), "").unwrap();
        level = level.join("a");
        std::fs::create_dir(&level).unwrap();
    }
    let files = FileService::new(FsPolicy::new().allow_dir(dir.path())).unwrap();
    let found = files.search_files(".", "**/f.txt", &[]).await.unwrap();
    assert_eq!(found.matches.len(), 24, "{:?}", found.truncated);
    let tree = files.directory_tree(".", &[]).await.unwrap();
    let json = tree.to_json();
    assert_eq!(json.matches("\"f.txt\"").count(), 24);
}

/// A server with one fixed resource and one template, whose URIs may be long.
fn followed() -> Server {
    use mcp_runtime::protocol::{ResourceDefinition, ResourceTemplateDefinition};
    use mcp_runtime::resource::{resource_fn, template_fn};
    Server::builder("follow", "1.0.0")
        .resource(resource_fn(
            ResourceDefinition::new("config://app", "config"),
            |_| async { "{}" },
        ))
        .resource_template(template_fn(
            ResourceTemplateDefinition::new("notes://{id}", "note"),
            |_, _| async { "" },
        ))
        .build()
        .unwrap()
}

#[tokio::test]
async fn subscriptions_hold_only_served_uris_of_bounded_length_and_bounded_bytes() {
    let server = followed();
    let client = Client::memory(&server);
    client.connect(EraMode::Legacy).await.unwrap();
    let subscribe = |uri: String| {
        let client = client.clone();
        async move {
            client
                .request("resources/subscribe", Some(json!({"uri": uri})))
                .await
        }
    };
    // Served URIs are followed.
    subscribe("config://app".into()).await.unwrap();
    subscribe("notes://1".into()).await.unwrap();
    // A URI nothing serves is refused as a read of it is (`-32002` on a 2025 session).
    let unknown = subscribe("nothing://here".into()).await.unwrap_err();
    assert_eq!(
        unknown.as_protocol().map(|e| e.code.0),
        Some(-32002),
        "{unknown}"
    );
    // A URI of 4 MiB (one of the review's) is refused before it is kept.
    let huge = subscribe(format!("notes://{}", "x".repeat(4 << 20)))
        .await
        .unwrap_err();
    assert_eq!(huge.as_protocol().map(|e| e.code.0), Some(-32602), "{huge}");
    assert!(huge.to_string().contains("8 KiB"), "{huge}");
    // URIs just under the length cap: refused once their bytes would pass 256 KiB, long
    // before the count cap of 1,024.
    let mut kept = 0;
    let refused = loop {
        match subscribe(format!("notes://{kept:04}{}", "y".repeat(8000))).await {
            Ok(_) => kept += 1,
            Err(e) => break e,
        }
        assert!(kept < 100, "no byte bound");
    };
    assert!((30..=33).contains(&kept), "{kept} long subscriptions kept");
    assert!(refused.to_string().contains("256 KiB"), "{refused}");
    // Unsubscribing makes room again.
    client
        .request(
            "resources/unsubscribe",
            Some(json!({"uri": "notes://0000".to_owned() + &"y".repeat(8000)})),
        )
        .await
        .unwrap();
    subscribe(format!("notes://again{}", "y".repeat(8000)))
        .await
        .unwrap();
}

#[tokio::test]
async fn a_listen_stream_follows_only_served_uris_within_the_bounds() {
    let server = followed();
    let client = Client::memory(&server);
    client.connect(EraMode::Modern).await.unwrap();
    let mut incoming = client.take_unrouted().unwrap();
    let long: Vec<String> = (0..40)
        .map(|n| format!("notes://{n:04}{}", "z".repeat(8000)))
        .collect();
    let mut asked = vec![
        json!("config://app"),
        json!("nothing://here"),
        json!(format!("notes://{}", "x".repeat(16 << 10))),
    ];
    asked.extend(long.iter().map(|u| json!(u)));
    let listen = {
        let client = client.clone();
        tokio::spawn(async move {
            client
                .request(
                    "subscriptions/listen",
                    Some(json!({"notifications": {"resourceSubscriptions": asked}})),
                )
                .await
        })
    };
    let ack = tokio::time::timeout(std::time::Duration::from_secs(60), incoming.recv())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    let honoured: Vec<&str> = ack["params"]["notifications"]["resourceSubscriptions"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|u| u.as_str())
        .collect();
    assert!(honoured.contains(&"config://app"));
    assert!(
        !honoured.contains(&"nothing://here"),
        "unserved URIs are left out"
    );
    assert!(
        honoured.iter().all(|u| u.len() <= 8 * 1024),
        "over-long URIs are left out"
    );
    let bytes: usize = honoured.iter().map(|u| u.len()).sum();
    assert!(
        bytes <= 256 * 1024 && honoured.len() < 35,
        "{} URIs, {bytes} bytes",
        honoured.len()
    );
    listen.abort();
}

static ASKING_RUNS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Choice {
    color: String,
}

/// Asks the user for a color; declares its results cacheable.
#[mcp_tool(read_only, idempotent, cache = "60s")]
async fn favorite(cx: RequestContext) -> Result<String, mcp_runtime::input::InputError> {
    ASKING_RUNS.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    Ok(match cx.elicit::<Choice>("Your color?").await? {
        mcp_runtime::input::Elicitation::Accepted(choice) => choice.color,
        _ => "none".into(),
    })
}

#[tokio::test]
async fn a_call_that_asked_the_client_is_never_answered_from_the_cache() {
    use mcp_runtime::client::InputHandler;
    use mcp_runtime::protocol::ElicitResult;
    use std::sync::atomic::{AtomicUsize, Ordering};
    let server = Server::builder("ask", "1.0.0")
        .tool(favorite::tool())
        .build()
        .unwrap();
    let answers = std::sync::Arc::new(AtomicUsize::new(0));
    let counter = answers.clone();
    let handler = InputHandler::new().on_elicit(move |_| {
        let n = counter.fetch_add(1, Ordering::SeqCst);
        let color = if n == 0 { "red" } else { "blue" };
        async move {
            Ok(ElicitResult::accept(
                json!({"color": color}).as_object().cloned(),
            ))
        }
    });
    let client = Client::memory(&server).with_input_handler(handler);
    client.connect(EraMode::Legacy).await.unwrap();
    let first = client.call_tool("favorite", json!({})).await.unwrap();
    let second = client.call_tool("favorite", json!({})).await.unwrap();
    assert_eq!(first.first_text(), Some("red"));
    assert_eq!(
        second.first_text(),
        Some("blue"),
        "the second call asked again instead of replaying the first answer"
    );
    assert_eq!(ASKING_RUNS.load(Ordering::SeqCst), 2);
}

/// Limited to 2 calls a minute per caller.
#[mcp_tool(rate_limit = "2/m")]
async fn scarce() -> &'static str {
    "ok"
}

#[tokio::test]
async fn a_new_legacy_session_is_no_new_rate_limit_budget() {
    use mcp_runtime::transport::http::{HttpOptions, LegacyMode};
    use mcp_tests::http::{ACCEPT_BOTH, LEGACY, initialize, post, serve};
    let server = Server::builder("scarce", "1.0.0")
        .tool(scarce::tool())
        .build()
        .unwrap();
    let s = serve(
        server,
        HttpOptions::default().legacy_mode(LegacyMode::Sessionful),
    )
    .await;
    let base = [
        ("content-type", "application/json"),
        ("accept", ACCEPT_BOTH),
    ];
    let mut outcomes = Vec::new();
    // Two sessions from the same address (an unauthenticated client opening a new session
    // to reset its budget): 2 calls each.
    for _ in 0..2 {
        let opened = post(&s.url, &base, &initialize(1)).await;
        let session = opened.header("mcp-session-id").unwrap().to_owned();
        let headers = [
            base[0],
            base[1],
            ("mcp-protocol-version", LEGACY),
            ("mcp-session-id", session.as_str()),
        ];
        for n in 0..2 {
            let call = json!({"jsonrpc": "2.0", "id": 2 + n, "method": "tools/call",
                "params": {"name": "scarce", "arguments": {}}});
            let answer = post(&s.url, &headers, &call).await.answer();
            outcomes.push(answer["result"]["isError"] == json!(true));
        }
    }
    assert_eq!(
        outcomes,
        [false, false, true, true],
        "the budget is the address's, whatever the session"
    );
}
