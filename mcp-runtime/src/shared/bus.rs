//! The bus between instances: Redis pub/sub on one channel (`{prefix}bus`).
//!
//! Each message is `instance-id \n kind \n value`; an instance ignores its own. Delivery is
//! best effort, as pub/sub's is: what is published while an instance is disconnected from
//! Redis does not reach it (a listen stream then misses a change notification, which the
//! client's next list request makes up for; a lost task cancellation still reaches the
//! worker through the store, within `store_poll`).

use super::RedisOptions;
use redis::aio::ConnectionManager;
use redis::{PushInfo, PushKind, Value};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{broadcast, mpsc};
use tokio_util::sync::{CancellationToken, DropGuard};

/// What one instance tells the others.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum FleetEvent {
    /// A list of primitives changed (`notifications/{primitive}/list_changed`): `tools`,
    /// `resources` or `prompts`.
    ListChanged(String),
    /// A resource's contents changed (`notifications/resources/updated`).
    ResourceUpdated(Arc<str>),
    /// A task was cancelled: the instance running it stops it.
    TaskCancelled(String),
    /// Answers for a task arrived (`tasks/update`): the instance running it wakes it.
    TaskAnswered(String),
    /// A legacy session ended (`DELETE`): the instances holding it drop it.
    SessionClosed(String),
    /// A client's answer to a request of ours reached an instance where nobody waits for
    /// it: the instance whose call asked takes it. The legacy session (`""`: none, the
    /// stateless endpoint), and the JSON-RPC response as the client sent it.
    Answer(String, String),
}

impl FleetEvent {
    fn encode(&self, instance: &str) -> String {
        match self {
            FleetEvent::ListChanged(p) => format!("{instance}\nlist\n{p}"),
            FleetEvent::ResourceUpdated(uri) => format!("{instance}\nupdated\n{uri}"),
            FleetEvent::TaskCancelled(id) => format!("{instance}\ncancel\n{id}"),
            FleetEvent::TaskAnswered(id) => format!("{instance}\nanswered\n{id}"),
            FleetEvent::SessionClosed(id) => format!("{instance}\nclosed\n{id}"),
            FleetEvent::Answer(session, message) => {
                format!("{instance}\nanswer\n{session}\n{message}")
            }
        }
    }

    /// The event in `payload`, unless this instance published it or it is not one.
    fn decode(payload: &str, instance: &str) -> Option<Self> {
        let mut parts = payload.splitn(3, '\n');
        let (from, kind, value) = (parts.next()?, parts.next()?, parts.next()?);
        if from == instance {
            return None;
        }
        match kind {
            "list" => Some(FleetEvent::ListChanged(value.to_owned())),
            "updated" => Some(FleetEvent::ResourceUpdated(value.into())),
            "cancel" => Some(FleetEvent::TaskCancelled(value.to_owned())),
            "answered" => Some(FleetEvent::TaskAnswered(value.to_owned())),
            "closed" => Some(FleetEvent::SessionClosed(value.to_owned())),
            "answer" => value
                .split_once('\n')
                .map(|(session, message)| FleetEvent::Answer(session.into(), message.into())),
            _ => None,
        }
    }
}

/// Events waiting to be published, at most (a burst past it is dropped with a warning).
const OUTBOX: usize = 4096;
/// Events received and not yet taken by a slow reader, at most (it then skips ahead).
const INBOX: usize = 4096;

pub(super) struct Bus {
    instance: Arc<str>,
    outbox: mpsc::Sender<String>,
    events: broadcast::Sender<FleetEvent>,
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
        let config = super::manager_config(options)
            .set_automatic_resubscription()
            .set_push_sender(move |push: PushInfo| {
                if push.kind == PushKind::Message
                    && let [_, Value::BulkString(payload)] = push.data.as_slice()
                    && let Ok(payload) = std::str::from_utf8(payload)
                    && let Some(event) = FleetEvent::decode(payload, &me)
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

    pub(super) fn publish(&self, event: FleetEvent) {
        if self.outbox.try_send(event.encode(&self.instance)).is_err() {
            tracing::warn!(
                target: crate::targets::REDIS_TARGET,
                "an event for the other instances was dropped: too many waiting to be published"
            );
        }
    }

    pub(super) fn events(&self) -> broadcast::Receiver<FleetEvent> {
        self.events.subscribe()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_round_trip_and_an_instance_ignores_its_own() {
        for event in [
            FleetEvent::ListChanged("prompts".into()),
            FleetEvent::ResourceUpdated("file:///a\nb".into()),
            FleetEvent::TaskCancelled("abc".into()),
            FleetEvent::TaskAnswered("abc".into()),
            FleetEvent::SessionClosed("s1".into()),
            FleetEvent::Answer("s1".into(), "{\"id\":\"s-1\",\n\"result\":{}}".into()),
            FleetEvent::Answer(String::new(), "{}".into()),
        ] {
            let payload = event.encode("one");
            assert_eq!(FleetEvent::decode(&payload, "two"), Some(event));
            assert_eq!(FleetEvent::decode(&payload, "one"), None);
        }
        assert_eq!(FleetEvent::decode("x\nunknown\ny", "two"), None);
    }
}
