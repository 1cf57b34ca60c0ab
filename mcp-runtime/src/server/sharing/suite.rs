//! The behaviour every implementation of the sharing seams must have, as checks any
//! implementation runs against itself: the memory ones in this crate's tests, Redis's
//! against a real Redis (the tests package), yours against a real instance of your store.
//! Each check panics with what it expected.
//!
//! [`check`] runs them all on the sharings of two instances of one fleet; the others check
//! one seam each. Every name a check uses is random, so checks may share a store.
//!
//! ```
//! use mcp_runtime::server::sharing::{MemoryFleet, suite};
//!
//! # #[tokio::main(flavor = "current_thread")] async fn main() {
//! let fleet = MemoryFleet::new();
//! suite::check(&fleet.instance(), &fleet.instance()).await;
//! # }
//! ```

use super::{EventBus, SessionRecord, SessionStore, SharedEvent, Sharing};
use crate::context::SpentNonces;
use crate::pipeline::{RateBudgets, SharedResults};
use crate::server::Primitive;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// How long a check waits for something another instance should see.
const PATIENCE: Duration = Duration::from_secs(10);

fn unique(prefix: &str) -> String {
    let mut bytes = [0u8; 8];
    getrandom::fill(&mut bytes).expect("the operating system's random generator works");
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    format!("{prefix}-{hex}")
}

/// Every seam of `one` and `two`, the sharings of two instances of one fleet: each store
/// alone, and what one instance does seen from the other.
pub async fn check(one: &Sharing, two: &Sharing) {
    nonces(&*one.nonces).await;
    nonces_across(&*one.nonces, &*two.nonces).await;
    bus(&*one.bus, &*two.bus).await;
    sessions(&*one.sessions).await;
    crate::task::suite::check(&*one.tasks).await;
    if let (Some(a), Some(b)) = (&one.budgets, &two.budgets) {
        rate_budgets(&**a).await;
        let name = unique("across");
        assert_eq!(a.take(&name, 1, Duration::from_secs(60)).await, Ok(None));
        assert!(
            matches!(b.take(&name, 1, Duration::from_secs(60)).await, Ok(Some(_))),
            "a budget spent through one instance is spent for the other"
        );
    }
    if let (Some(a), Some(b)) = (&one.results, &two.results) {
        results(&**a).await;
        let name = unique("across");
        a.put(&name, "{}".into(), Duration::from_secs(60))
            .await
            .unwrap();
        assert_eq!(b.get(&name).await, Ok(Some("{}".into())));
    }
}

fn in_a_minute() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("after 1970")
        .as_secs()
        + 60
}

/// A nonce is spent once: the first spend is `true`, every later one `false`; another
/// nonce is unaffected.
pub async fn nonces(store: &dyn SpentNonces) {
    let (nonce, other) = (unique("nonce"), unique("nonce"));
    let expires = in_a_minute();
    assert_eq!(store.spend_nonce(nonce.clone(), expires).await, Ok(true));
    assert_eq!(
        store.spend_nonce(nonce.clone(), expires).await,
        Ok(false),
        "a nonce spent twice is a replay"
    );
    assert_eq!(store.spend_nonce(nonce, expires).await, Ok(false));
    assert_eq!(store.spend_nonce(other, expires).await, Ok(true));
}

/// A nonce spent through one instance is a replay through the other.
pub async fn nonces_across(one: &dyn SpentNonces, two: &dyn SpentNonces) {
    let nonce = unique("nonce");
    assert_eq!(
        one.spend_nonce(nonce.clone(), in_a_minute()).await,
        Ok(true)
    );
    assert_eq!(
        two.spend_nonce(nonce, in_a_minute()).await,
        Ok(false),
        "a nonce spent on one instance is spent on all"
    );
}

async fn next(
    events: &mut tokio::sync::broadcast::Receiver<SharedEvent>,
    what: &str,
) -> SharedEvent {
    tokio::time::timeout(PATIENCE, events.recv())
        .await
        .unwrap_or_else(|_| panic!("{what} did not arrive within {PATIENCE:?}"))
        .expect("the bus is open")
}

/// Every kind of event `one` publishes reaches `two`, whole and in order; `one` never hears
/// its own (the first thing it hears is what `two` publishes afterwards).
pub async fn bus(one: &dyn EventBus, two: &dyn EventBus) {
    let mut heard_by_one = one.subscribe();
    let mut heard_by_two = two.subscribe();
    let id = unique("id");
    let sent = [
        SharedEvent::ListChanged(Primitive::Tools),
        SharedEvent::ListChanged(Primitive::Resources),
        SharedEvent::ListChanged(Primitive::Prompts),
        SharedEvent::ResourceUpdated(format!("file:///{id}\nline two").into()),
        SharedEvent::TaskCancelled(id.clone()),
        SharedEvent::TaskAnswered(id.clone()),
        SharedEvent::SessionClosed(id.clone()),
        SharedEvent::Answer {
            session: id.clone(),
            message: "{\"id\":\"s-1\",\n\"result\":{}}".into(),
        },
        SharedEvent::Answer {
            session: String::new(),
            message: "{}".into(),
        },
    ];
    // A subscription may take a moment to reach the store (Redis's is its own
    // connection): publish a probe until the other instance hears one.
    let probe = SharedEvent::TaskAnswered(unique("probe"));
    let deadline = tokio::time::Instant::now() + PATIENCE;
    loop {
        one.publish(probe.clone());
        match tokio::time::timeout(Duration::from_millis(200), heard_by_two.recv()).await {
            Ok(Ok(event)) if event == probe => break,
            _ if tokio::time::Instant::now() > deadline => {
                panic!("nothing one instance published reached the other within {PATIENCE:?}")
            }
            _ => {}
        }
    }
    for event in &sent {
        one.publish(event.clone());
    }
    for event in &sent {
        let mut got = next(
            &mut heard_by_two,
            "an event published by the other instance",
        )
        .await;
        while got == probe {
            got = next(
                &mut heard_by_two,
                "an event published by the other instance",
            )
            .await;
        }
        assert_eq!(&got, event, "events arrive whole and in order");
    }
    let marker = SharedEvent::TaskCancelled(unique("marker"));
    two.publish(marker.clone());
    assert_eq!(
        next(&mut heard_by_one, "the other instance's event").await,
        marker,
        "an instance does not hear what it published itself"
    );
}

/// A budget of `count` calls per period allows `count` at once, then says how long until
/// the next; another budget is unaffected.
pub async fn rate_budgets(budgets: &dyn RateBudgets) {
    let (name, other) = (unique("budget"), unique("budget"));
    let period = Duration::from_secs(60);
    for _ in 0..3 {
        assert_eq!(budgets.take(&name, 3, period).await, Ok(None));
    }
    match budgets.take(&name, 3, period).await {
        Ok(Some(wait)) => assert!(
            wait > Duration::ZERO && wait <= Duration::from_secs(21),
            "the next call is free within period / count (20 s), not {wait:?}"
        ),
        other => panic!("a fourth call of three per minute is refused, got {other:?}"),
    }
    assert_eq!(budgets.take(&other, 3, period).await, Ok(None));
}

/// A result is found under its name until it expires; an unknown name finds nothing.
pub async fn results(results: &dyn SharedResults) {
    let (name, short) = (unique("result"), unique("result"));
    assert_eq!(results.get(&name).await, Ok(None));
    let text = r#"{"content":[{"type":"text","text":"ü"}]}"#;
    results
        .put(&name, text.into(), Duration::from_secs(60))
        .await
        .unwrap();
    assert_eq!(results.get(&name).await, Ok(Some(text.into())));
    results
        .put(&short, text.into(), Duration::from_millis(50))
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(
        results.get(&short).await,
        Ok(None),
        "a result is not found past its lifetime"
    );
}

/// Sessions: a record is found whole; changes come back in order from any index; an
/// unknown, ended, idle or too old session is gone; events resume after the one a client
/// saw, and an id the store did not make finds nothing.
pub async fn sessions(store: &dyn SessionStore) {
    let (idle, lifetime) = (Duration::from_secs(60), Duration::from_secs(3600));
    let id = unique("session");
    let record = SessionRecord::new(Some("alice".into()), r#"{"protocolVersion":"2025-11-25"}"#);
    store
        .create(&id, record.clone(), idle, lifetime)
        .await
        .unwrap();
    let found = store.sync(&id, 0, idle, true).await.unwrap().expect("live");
    assert_eq!(found.record.as_ref(), Some(&record));
    assert!(found.changes.is_empty());
    let anonymous = unique("session");
    store
        .create(&anonymous, SessionRecord::new(None, "{}"), idle, lifetime)
        .await
        .unwrap();
    let found = store
        .sync(&anonymous, 0, idle, true)
        .await
        .unwrap()
        .expect("live");
    assert_eq!(found.record.and_then(|r| r.subject), None);

    for change in ["one", "two", "three"] {
        store.record_change(&id, change.into(), idle).await.unwrap();
    }
    let found = store
        .sync(&id, 0, idle, false)
        .await
        .unwrap()
        .expect("live");
    assert_eq!(found.record, None, "the record only when asked");
    assert_eq!(found.changes, ["one", "two", "three"]);
    let found = store
        .sync(&id, 2, idle, false)
        .await
        .unwrap()
        .expect("live");
    assert_eq!(found.changes, ["three"]);
    assert_eq!(
        store.sync(&unique("session"), 0, idle, true).await,
        Ok(None)
    );

    let mut events = Vec::new();
    for message in [&b"first"[..], b"second", b"third"] {
        events.push(store.append_event(&id, message.to_vec()).await.unwrap());
    }
    let after = store.events_after(&id, &events[0]).await.unwrap();
    assert_eq!(
        after,
        [
            (events[1].clone(), b"second".to_vec()),
            (events[2].clone(), b"third".to_vec())
        ]
    );
    assert!(
        store
            .events_after(&id, &events[2])
            .await
            .unwrap()
            .is_empty()
    );
    assert!(
        store
            .events_after(&id, "not-an-event")
            .await
            .unwrap()
            .is_empty()
    );

    store.forget(&id).await.unwrap();
    assert_eq!(store.sync(&id, 0, idle, true).await, Ok(None), "ended");
    assert!(
        store
            .events_after(&id, &events[0])
            .await
            .unwrap()
            .is_empty()
    );

    let idling = unique("session");
    let short = Duration::from_millis(100);
    store
        .create(&idling, SessionRecord::new(None, "{}"), short, lifetime)
        .await
        .unwrap();
    let old = unique("session");
    store
        .create(&old, SessionRecord::new(None, "{}"), idle, short)
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(400)).await;
    assert_eq!(
        store.sync(&idling, 0, idle, true).await,
        Ok(None),
        "idle too long"
    );
    assert_eq!(
        store.sync(&old, 0, idle, true).await,
        Ok(None),
        "past its lifetime"
    );
}
