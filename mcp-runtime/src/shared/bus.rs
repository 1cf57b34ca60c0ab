//! The bus between instances: Redis pub/sub on one channel (`{prefix}bus`).
//!
//! Each message is `instance-id \n kind \n value`; an instance ignores its own. Delivery is
//! best effort, as pub/sub's is: what is published while an instance is disconnected from
//! Redis does not reach it (a listen stream then misses a change notification, which the
//! client's next list request makes up for; a lost task cancellation still reaches the
//! worker through the store, within `store_poll`).

use super::RedisOptions;
use crate::server::Primitive;
use crate::server::sharing::SharedEvent;
use redis::aio::ConnectionManager;
use redis::{PushInfo, PushKind, Value};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{broadcast, mpsc};
use tokio_util::sync::{CancellationToken, DropGuard};

/// `event` as a message on the channel, from `instance`.
fn encode(event: &SharedEvent, instance: &str) -> String {
    match event {
        SharedEvent::ListChanged(p) => format!("{instance}\nlist\n{p}"),
        SharedEvent::ResourceUpdated(uri) => format!("{instance}\nupdated\n{uri}"),
        SharedEvent::TaskCancelled(id) => format!("{instance}\ncancel\n{id}"),
        SharedEvent::TaskAnswered(id) => format!("{instance}\nanswered\n{id}"),
        SharedEvent::SessionClosed(id) => format!("{instance}\nclosed\n{id}"),
        SharedEvent::Answer { session, message } => {
            format!("{instance}\nanswer\n{session}\n{message}")
        }
    }
}

/// The event in `payload`, unless this instance published it or it is not one.
fn decode(payload: &str, instance: &str) -> Option<SharedEvent> {
    let mut parts = payload.splitn(3, '\n');
    let (from, kind, value) = (parts.next()?, parts.next()?, parts.next()?);
    if from == instance {
        return None;
    }
    match kind {
        "list" => Primitive::from_name(value).map(SharedEvent::ListChanged),
        "updated" => Some(SharedEvent::ResourceUpdated(value.into())),
        "cancel" => Some(SharedEvent::TaskCancelled(value.to_owned())),
        "answered" => Some(SharedEvent::TaskAnswered(value.to_owned())),
        "closed" => Some(SharedEvent::SessionClosed(value.to_owned())),
        "answer" => value
            .split_once('\n')
            .map(|(session, message)| SharedEvent::Answer {
                session: session.into(),
                message: message.into(),
            }),
        _ => None,
    }
}

/// Events waiting to be published, at most (a burst past it is dropped with a warning).
const OUTBOX: usize = 4096;
/// Events received and not yet taken by a slow reader, at most (it then skips ahead).
const INBOX: usize = 4096;

pub(super) struct Bus {
    instance: Arc<str>,
    outbox: mpsc::Sender<String>,
    events: broadcast::Sender<SharedEvent>,
    /// Stops the publisher and the keep-alive when the state is dropped.
    _stop: DropGuard,
    /// The subscribed connection (kept open by holding it).
    _subscriber: ConnectionManager,
}

fn random_id() -> String {
    let mut bytes = [0u8; 8];
    getrandom::fill(&mut bytes).expect("the operating system's random generator works");
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

impl Bus {
    /// Subscribes to the channel (a connection of its own, speaking RESP3 so that messages
    /// arrive as pushes and the subscription is renewed after a reconnection) and starts
    /// the publisher on `conn`.
    pub(super) async fn start(
        client: redis::Client,
        options: &RedisOptions,
        conn: ConnectionManager,
        state_key: (String, String),
    ) -> redis::RedisResult<Self> {
        let channel = format!("{}bus", options.prefix);
        let instance: Arc<str> = random_id().into();
        let (events, _) = broadcast::channel(INBOX);
        let info = client.get_connection_info().clone();
        let resp3 = info
            .redis_settings()
            .clone()
            .set_protocol(redis::ProtocolVersion::RESP3);
        let client = redis::Client::open(info.set_redis_settings(resp3))?;
        let inbox = events.clone();
        let me = instance.clone();
        let config = super::options::manager_config(options)
            .set_automatic_resubscription()
            .set_push_sender(move |push: PushInfo| {
                if push.kind == PushKind::Message
                    && let [_, Value::BulkString(payload)] = push.data.as_slice()
                    && let Ok(payload) = std::str::from_utf8(payload)
                    && let Some(event) = decode(payload, &me)
                {
                    // No receiver: nothing running here listens; nothing to do.
                    let _ = inbox.send(event);
                }
                Ok::<(), redis::aio::SendError>(())
            });
        let mut subscriber = client.get_connection_manager_with_config(config).await?;
        subscriber.subscribe(&channel).await?;

        let stop = CancellationToken::new();
        let (outbox, mut queued) = mpsc::channel::<String>(OUTBOX);
        let timeout = options.timeout;
        let keeper = conn.clone();
        tokio::spawn({
            let stop = stop.clone();
            let mut conn = conn;
            let channel = channel.clone();
            async move {
                loop {
                    let payload = tokio::select! {
                        () = stop.cancelled() => return,
                        next = queued.recv() => match next {
                            Some(payload) => payload,
                            None => return,
                        },
                    };
                    let sent = tokio::time::timeout(
                        timeout,
                        redis::cmd("PUBLISH")
                            .arg(&channel)
                            .arg(payload)
                            .query_async::<i64>(&mut conn),
                    )
                    .await;
                    if !matches!(sent, Ok(Ok(_))) {
                        tracing::warn!(
                            target: crate::targets::REDIS_TARGET,
                            "an event for the other instances was lost: Redis did not take it"
                        );
                    }
                }
            }
        });
        // A subscribed connection sends nothing of its own, so nothing would notice that it
        // dropped and make it again: a PING every second does (and the subscription is
        // renewed with the connection). The same beat puts the fleet's requestState key
        // back (`SET NX`) if Redis lost it (restarted without persistence), so an instance
        // started afterwards takes the key the running ones sign with.
        tokio::spawn({
            let stop = stop.clone();
            let mut subscriber = subscriber.clone();
            let mut keeper = keeper;
            let (key_name, key) = state_key;
            async move {
                loop {
                    tokio::select! {
                        () = stop.cancelled() => return,
                        () = tokio::time::sleep(Duration::from_secs(1)) => {}
                    }
                    let _ = tokio::time::timeout(
                        timeout,
                        redis::cmd("PING").query_async::<Value>(&mut subscriber),
                    )
                    .await;
                    let _ = tokio::time::timeout(
                        timeout,
                        redis::cmd("SET")
                            .arg(&key_name)
                            .arg(&key)
                            .arg("NX")
                            .query_async::<Value>(&mut keeper),
                    )
                    .await;
                }
            }
        });
        Ok(Self {
            instance,
            outbox,
            events,
            _stop: stop.drop_guard(),
            _subscriber: subscriber,
        })
    }

    pub(super) fn publish(&self, event: SharedEvent) {
        if self
            .outbox
            .try_send(encode(&event, &self.instance))
            .is_err()
        {
            tracing::warn!(
                target: crate::targets::REDIS_TARGET,
                "an event for the other instances was dropped: too many waiting to be published"
            );
        }
    }

    pub(super) fn events(&self) -> broadcast::Receiver<SharedEvent> {
        self.events.subscribe()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_round_trip_and_an_instance_ignores_its_own() {
        for event in [
            SharedEvent::ListChanged(Primitive::Prompts),
            SharedEvent::ResourceUpdated("file:///a\nb".into()),
            SharedEvent::TaskCancelled("abc".into()),
            SharedEvent::TaskAnswered("abc".into()),
            SharedEvent::SessionClosed("s1".into()),
            SharedEvent::Answer {
                session: "s1".into(),
                message: "{\"id\":\"s-1\",\n\"result\":{}}".into(),
            },
            SharedEvent::Answer {
                session: String::new(),
                message: "{}".into(),
            },
        ] {
            let payload = encode(&event, "one");
            assert_eq!(decode(&payload, "two"), Some(event));
            assert_eq!(decode(&payload, "one"), None);
        }
        assert_eq!(decode("x\nunknown\ny", "two"), None);
        assert_eq!(decode("x\nlist\nnot-a-primitive", "two"), None);
    }
}
