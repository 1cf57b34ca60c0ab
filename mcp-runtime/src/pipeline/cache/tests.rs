use super::*;
use crate::context::{Caller, RequestContext, RequestContextParts};
use crate::protocol::{Era, RequestId};
use serde_json::json;
use std::sync::atomic::AtomicUsize;
use tokio_util::sync::CancellationToken;
use tower::{Layer as _, ServiceExt as _};

fn context(caller: Caller) -> RequestContext {
    RequestContext::new(RequestContextParts {
        era: Era::Modern,
        protocol_version: crate::protocol::version::MODERN_VERSION.into(),
        client_capabilities: Arc::default(),
        client_info: None,
        request_id: RequestId::Number(1),
        progress_token: None,
        trace: None,
        cancellation: CancellationToken::new(),
        peer: None,
        extensions: Arc::default(),
        caller,
        meta: None,
    })
}

/// A tool behind a cache: answers `"<n>"`, n counting its runs, or an `isError` result
/// when the arguments hold `"fail": true`, padded with `"pad"` bytes when asked.
struct Counted {
    runs: Arc<AtomicUsize>,
    service: crate::pipeline::McpService,
}

impl Counted {
    fn new(ttl: Duration, store: &ResultStore) -> Self {
        let runs = Arc::new(AtomicUsize::new(0));
        let counter = runs.clone();
        let tool = tower::service_fn(move |request: McpRequest| {
            let n = counter.fetch_add(1, Ordering::SeqCst) + 1;
            let args = request.arguments();
            let pad = args.get("pad").and_then(Value::as_u64).unwrap_or(0) as usize;
            let text = format!("{n}{}", " ".repeat(pad));
            let result = if args.get("fail") == Some(&json!(true)) {
                CallToolResult::error(text)
            } else {
                CallToolResult::text(text)
            };
            futures::future::ready(Ok::<_, BoxError>(Outcome::Tool(result)))
        });
        let service =
            crate::pipeline::McpService::new(ResultCacheLayer::new(ttl, store).layer(tool));
        Self { runs, service }
    }

    async fn call_as(&self, caller: &Caller, arguments: Value) -> (String, RequestContext) {
        let Value::Object(arguments) = arguments else {
            panic!("arguments are an object")
        };
        let cx = context(caller.clone());
        let request = McpRequest::new(
            crate::protocol::methods::TOOLS_CALL,
            "counted",
            arguments,
            cx.clone(),
        );
        let outcome = self.service.clone().oneshot(request).await.unwrap();
        let Outcome::Tool(result) = outcome else {
            panic!("a tool result: {outcome:?}")
        };
        let text = result
            .first_text()
            .unwrap_or_default()
            .trim_end()
            .to_owned();
        (text, cx)
    }

    async fn call(&self, arguments: Value) -> String {
        self.call_as(&Caller::connection(), arguments).await.0
    }

    fn runs(&self) -> usize {
        self.runs.load(Ordering::SeqCst)
    }
}

fn store() -> ResultStore {
    ResultStore::new(DEFAULT_CACHE_ENTRIES, DEFAULT_CACHE_BYTES)
}

const MINUTE: Duration = Duration::from_secs(60);

#[tokio::test]
async fn a_repeated_call_is_answered_from_the_cache_and_says_so() {
    let tool = Counted::new(MINUTE, &store());
    let (first, cx) = tool.call_as(&Caller::connection(), json!({"q": "a"})).await;
    assert_eq!(first, "1");
    assert!(!cx.answered_from_cache());
    let (second, cx) = tool.call_as(&Caller::connection(), json!({"q": "a"})).await;
    assert_eq!(second, "1");
    assert!(cx.answered_from_cache());
    assert_eq!(tool.runs(), 1);
}

#[tokio::test]
async fn other_arguments_miss_and_key_order_does_not_matter() {
    let tool = Counted::new(MINUTE, &store());
    assert_eq!(
        tool.call(json!({"q": "a", "n": {"x": 1, "y": [1, {"b": 2, "a": 1}]}}))
            .await,
        "1"
    );
    assert_eq!(
        tool.call(json!({"q": "b", "n": {"x": 1, "y": [1, {"b": 2, "a": 1}]}}))
            .await,
        "2"
    );
    assert_eq!(
        tool.call(json!({"q": "a", "n": {"x": 2, "y": [1, {"b": 2, "a": 1}]}}))
            .await,
        "3"
    );
    // Written in another order (kept only under `preserve_order`; the canonical form is
    // tested on its own for that).
    assert_eq!(
        tool.call(json!({"n": {"y": [1, {"a": 1, "b": 2}], "x": 1}, "q": "a"}))
            .await,
        "1"
    );
    assert_eq!(tool.runs(), 3);
    // Array order is meaningful: a different call.
    assert_eq!(
        tool.call(json!({"q": "a", "n": {"x": 1, "y": [{"b": 2, "a": 1}, 1]}}))
            .await,
        "4"
    );
}

#[test]
fn the_canonical_form_sorts_keys_whatever_order_they_come_in() {
    // As a map with `preserve_order` would give them: in insertion order.
    let (z, a, m) = ("z".to_owned(), "a\"b".to_owned(), "m".to_owned());
    let nested = json!({"y": [1, {"k": null}], "x": 2.5});
    let entries = [(&z, &json!(1)), (&m, &nested), (&a, &json!("\"quoted\""))];
    let mut out = Vec::new();
    object(&mut out, entries);
    assert_eq!(
        std::str::from_utf8(&out).unwrap(),
        r#"{"a\"b":"\"quoted\"","m":{"x":2.5,"y":[1,{"k":null}]},"z":1}"#
    );
}

#[tokio::test]
async fn one_caller_never_sees_anothers_answer() {
    let tool = Counted::new(MINUTE, &store());
    let alice = Caller::connection().with_identity("alice");
    let bob = Caller::connection().with_identity("bob");
    let same_session_as_bob = Caller::connection().with_session("s1");
    assert_eq!(tool.call_as(&alice, json!({})).await.0, "1");
    assert_eq!(tool.call_as(&bob, json!({})).await.0, "2");
    assert_eq!(tool.call_as(&same_session_as_bob, json!({})).await.0, "3");
    assert_eq!(tool.call_as(&alice, json!({})).await.0, "1");
    assert_eq!(tool.call_as(&bob, json!({})).await.0, "2");
    assert_eq!(tool.runs(), 3);
}

#[tokio::test]
async fn an_error_result_is_not_cached() {
    let tool = Counted::new(MINUTE, &store());
    assert_eq!(tool.call(json!({"fail": true})).await, "1");
    assert_eq!(tool.call(json!({"fail": true})).await, "2");
    assert_eq!(tool.runs(), 2);
}

#[tokio::test]
async fn refusals_and_cancelled_calls_are_not_cached() {
    let store = store();
    let runs = Arc::new(AtomicUsize::new(0));
    let counter = runs.clone();
    // Refuses the first call, answers the others.
    let inner = tower::service_fn(move |request: McpRequest| {
        let n = counter.fetch_add(1, Ordering::SeqCst);
        let out = if n == 0 {
            Outcome::refuse("busy")
        } else {
            Outcome::Tool(CallToolResult::text(format!("{n}")))
        };
        let cancelled = request.context().is_cancelled();
        futures::future::ready(Ok::<_, BoxError>(if cancelled {
            Outcome::Tool(CallToolResult::text("partial"))
        } else {
            out
        }))
    });
    let service = ResultCacheLayer::new(MINUTE, &store).layer(inner);
    let call = |cx: RequestContext| {
        service.clone().oneshot(McpRequest::new(
            crate::protocol::methods::TOOLS_CALL,
            "t",
            JsonObject::new(),
            cx,
        ))
    };
    let text = |out: Outcome| match out {
        Outcome::Tool(r) => r.first_text().unwrap_or_default().to_owned(),
        Outcome::Refused(r) => r.message().to_owned(),
        Outcome::Error(e) => e.to_string(),
        other => panic!("a tool call answered with {other:?}"),
    };
    assert_eq!(
        text(call(context(Caller::connection())).await.unwrap()),
        "busy"
    );
    // A call whose request was cancelled while it ran leaves nothing behind.
    let cancelled = context(Caller::connection());
    cancelled.cancellation().cancel();
    assert_eq!(text(call(cancelled).await.unwrap()), "partial");
    assert_eq!(
        text(call(context(Caller::connection())).await.unwrap()),
        "2"
    );
    assert_eq!(
        text(call(context(Caller::connection())).await.unwrap()),
        "2"
    );
    assert_eq!(runs.load(Ordering::SeqCst), 3);
}

#[tokio::test]
async fn a_dropped_call_is_not_cached() {
    let store = store();
    let runs = Arc::new(AtomicUsize::new(0));
    let counter = runs.clone();
    let inner = tower::service_fn(move |_: McpRequest| {
        let n = counter.fetch_add(1, Ordering::SeqCst) + 1;
        async move {
            tokio::task::yield_now().await;
            Ok::<_, BoxError>(Outcome::Tool(CallToolResult::text(format!("{n}"))))
        }
    });
    let service = ResultCacheLayer::new(MINUTE, &store).layer(inner);
    let request = || {
        McpRequest::new(
            crate::protocol::methods::TOOLS_CALL,
            "t",
            JsonObject::new(),
            context(Caller::connection()),
        )
    };
    // Polled once, then dropped before it finished.
    let mut first = service.clone().oneshot(request());
    assert!(futures::poll!(&mut first).is_pending());
    drop(first);
    let out = service.clone().oneshot(request()).await.unwrap();
    let Outcome::Tool(result) = out else { panic!() };
    assert_eq!(result.first_text(), Some("2"));
    assert_eq!(runs.load(Ordering::SeqCst), 2);
}

#[tokio::test(start_paused = true)]
async fn an_entry_expires_after_its_lifetime() {
    let tool = Counted::new(Duration::from_secs(60), &store());
    assert_eq!(tool.call(json!({})).await, "1");
    tokio::time::advance(Duration::from_secs(59)).await;
    assert_eq!(tool.call(json!({})).await, "1");
    tokio::time::advance(Duration::from_secs(1)).await;
    assert_eq!(tool.call(json!({})).await, "2");
    // The new result has a lifetime of its own, counted from when it was produced.
    tokio::time::advance(Duration::from_secs(30)).await;
    assert_eq!(tool.call(json!({})).await, "2");
    assert_eq!(tool.runs(), 2);
}

#[tokio::test]
async fn the_number_of_entries_is_bounded() {
    let store = ResultStore::new(4, DEFAULT_CACHE_BYTES);
    let tool = Counted::new(MINUTE, &store);
    for i in 0..50 {
        tool.call(json!({"i": i})).await;
    }
    let count = store.entry_count();
    assert!((1..=4).contains(&count), "{count} entries");
}

#[tokio::test]
async fn the_weight_of_entries_is_bounded() {
    let store = ResultStore::new(1_000, 20_000);
    let tool = Counted::new(MINUTE, &store);
    for i in 0..50 {
        tool.call(json!({"i": i, "pad": 1_000})).await;
    }
    let (count, weight) = (store.entry_count(), store.weighted_size());
    assert!(weight <= 20_000, "{weight} bytes");
    // Each weighs over 1,000 bytes: at most 19 fit, and the store is used.
    assert!((1..=19).contains(&count), "{count} entries");
    // A result heavier than the whole budget is never kept.
    assert_eq!(tool.call(json!({"pad": 30_000})).await, "51");
    assert_eq!(tool.call(json!({"pad": 30_000})).await, "52");
}

#[tokio::test]
async fn two_layers_on_one_store_do_not_share_results() {
    let store = store();
    let first = Counted::new(MINUTE, &store);
    let second = Counted::new(MINUTE, &store);
    assert_eq!(first.call(json!({})).await, "1");
    assert_eq!(second.call(json!({})).await, "1");
    assert_eq!(second.runs(), 1);
    assert_eq!(store.entry_count(), 2);
}
