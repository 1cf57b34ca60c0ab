//! The connection to Redis that a server's instances share, and its options.

use super::bus;
use super::options::{RedisOptions, manager_config};
use crate::server::sharing::SharedEvent;
use redis::aio::ConnectionManager;
use std::fmt;
use std::sync::Arc;
use tokio::sync::broadcast;

/// Why Redis could not be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RedisError {
    /// The URL is not a Redis URL.
    #[error("{url} is not a Redis URL: {reason}")]
    InvalidUrl {
        /// The URL, its password masked.
        url: String,
        /// What is wrong with it.
        reason: String,
    },
    /// Redis did not answer.
    #[error("cannot reach Redis at {url}: {reason}")]
    Unreachable {
        /// The URL, its password masked.
        url: String,
        /// What failed.
        reason: String,
    },
}

/// A connection to the Redis that instances of one server share: give it to
/// [`ServerBuilder::share_through`](crate::ServerBuilder::share_through) (it converts into
/// the [`Sharing`](crate::server::sharing::Sharing) of every seam). Cheap to clone (one
/// connection, shared).
///
/// ```no_run
/// use mcp_runtime::prelude::*;
/// use mcp_runtime::shared::RedisState;
///
/// # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
/// let redis = RedisState::connect("redis://127.0.0.1:6379/").await?;
/// let server = Server::builder("demo", "1.0.0").share_through(redis).build()?;
/// # let _ = server; Ok(()) }
/// ```
#[derive(Clone)]
pub struct RedisState {
    inner: Arc<Inner>,
}

struct Inner {
    url: String,
    options: RedisOptions,
    conn: ConnectionManager,
    bus: bus::Bus,
    /// The requestState key every instance signs with, unless configured otherwise.
    state_key: Vec<u8>,
    /// The runtime it was connected on: what listens to the bus for a server runs there,
    /// even when the server is built outside any runtime.
    runtime: tokio::runtime::Handle,
}

impl fmt::Debug for RedisState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RedisState")
            .field("url", &self.inner.url)
            .field("options", &self.inner.options)
            .finish_non_exhaustive()
    }
}

/// `url` with its password (if any) replaced by `***`, for messages and logs.
fn masked(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_owned();
    };
    let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    match authority.rsplit_once('@') {
        Some((userinfo, host)) => {
            let user = userinfo.split_once(':').map_or("", |(user, _)| user);
            format!("{scheme}://{user}:***@{host}{path}")
        }
        None => url.to_owned(),
    }
}

impl RedisState {
    /// Connects to the Redis at `url` (`redis://[user:password@]host[:port][/db]`, or
    /// `unix:///path`) with the default [`RedisOptions`], and checks that it answers.
    ///
    /// # Errors
    ///
    /// [`RedisError::InvalidUrl`], or [`RedisError::Unreachable`] when Redis does not answer
    /// within [`RedisOptions::timeout`]; both name the URL, its password masked.
    pub async fn connect(url: &str) -> Result<Self, RedisError> {
        Self::connect_with(url, RedisOptions::default()).await
    }

    /// Connects with `options`; see [`connect`](Self::connect).
    ///
    /// # Errors
    ///
    /// As [`connect`](Self::connect).
    pub async fn connect_with(url: &str, options: RedisOptions) -> Result<Self, RedisError> {
        let shown = masked(url);
        let client = redis::Client::open(url).map_err(|e| RedisError::InvalidUrl {
            url: shown.clone(),
            reason: e.to_string(),
        })?;
        let unreachable = |reason: String| RedisError::Unreachable {
            url: shown.clone(),
            reason,
        };
        let config = manager_config(&options);
        let mut conn = tokio::time::timeout(
            options.timeout,
            ConnectionManager::new_with_config(client.clone(), config),
        )
        .await
        .map_err(|_| unreachable(format!("no answer within {:?}", options.timeout)))?
        .map_err(|e| unreachable(e.to_string()))?;
        let pong: String =
            tokio::time::timeout(options.timeout, redis::cmd("PING").query_async(&mut conn))
                .await
                .map_err(|_| unreachable(format!("no answer within {:?}", options.timeout)))?
                .map_err(|e| unreachable(e.to_string()))?;
        if pong != "PONG" {
            return Err(unreachable(format!("PING answered {pong:?}")));
        }
        // The first instance to connect makes the key; every later one reads it (`SET NX`,
        // then `GET`).
        let key_name = format!("{}request-state-key", options.prefix);
        let mut candidate = [0u8; 32];
        getrandom::fill(&mut candidate).expect("the operating system's random generator works");
        let candidate: String = candidate.iter().map(|b| format!("{b:02x}")).collect();
        let stored: Option<String> = tokio::time::timeout(options.timeout, async {
            redis::cmd("SET")
                .arg(&key_name)
                .arg(&candidate)
                .arg("NX")
                .query_async::<Option<String>>(&mut conn)
                .await?;
            redis::cmd("GET")
                .arg(&key_name)
                .query_async(&mut conn)
                .await
        })
        .await
        .map_err(|_| unreachable(format!("no answer within {:?}", options.timeout)))?
        .map_err(|e| unreachable(e.to_string()))?;
        let state_key = stored
            .as_deref()
            .and_then(decode_hex)
            .filter(|k| k.len() >= crate::input::state::MIN_KEY_BYTES)
            .ok_or_else(|| {
                unreachable(format!(
                    "{key_name} in Redis is not a hex key of 32 bytes or more"
                ))
            })?;
        let bus = bus::Bus::start(
            client,
            &options,
            conn.clone(),
            (key_name, stored.unwrap_or_default()),
        )
        .await
        .map_err(|e| unreachable(format!("subscribing to the bus: {e}")))?;
        Ok(Self {
            inner: Arc::new(Inner {
                url: shown,
                options,
                conn,
                bus,
                state_key,
                runtime: tokio::runtime::Handle::current(),
            }),
        })
    }

    /// The requestState keys kept in Redis (made by the first instance that connected).
    pub(crate) fn request_state_keys(&self) -> crate::input::RequestStateKeys {
        crate::input::RequestStateKeys::new(&self.inner.state_key)
            .expect("checked at connection: 32 bytes or more")
    }

    /// The URL it is connected to, its password masked.
    pub fn url(&self) -> &str {
        &self.inner.url
    }

    /// Its options.
    pub fn options(&self) -> &RedisOptions {
        &self.inner.options
    }

    /// Runs one command or script invocation on the shared connection, bounded by the
    /// timeout. A connection found dropped (Redis restarted, a proxy closed it while idle)
    /// is made again by the manager, and the command is sent once more: a command that
    /// could not be written never reached Redis. (Had it reached Redis before the
    /// connection dropped, running it again is harmless for every script here: a second
    /// creation finds the task and fails, a second spend finds the nonce spent and refuses.)
    pub(crate) async fn run<T, F>(&self, f: F) -> Result<T, String>
    where
        F: Fn(ConnectionManager) -> futures::future::BoxFuture<'static, redis::RedisResult<T>>,
    {
        let timeout = self.inner.options.timeout;
        let attempt = || tokio::time::timeout(timeout, f(self.inner.conn.clone()));
        let mut outcome = attempt().await;
        if let Ok(Err(e)) = &outcome
            && (e.is_connection_dropped() || e.is_io_error() || e.is_connection_refusal())
        {
            outcome = attempt().await;
        }
        match outcome {
            Ok(Ok(value)) => Ok(value),
            Ok(Err(e)) => Err(format!("Redis at {}: {e}", self.inner.url)),
            Err(_) => Err(format!(
                "Redis at {} did not answer within {timeout:?}",
                self.inner.url
            )),
        }
    }

    /// The key `name` under the prefix.
    pub(crate) fn key(&self, name: &str) -> String {
        format!("{}{name}", self.inner.options.prefix)
    }

    /// Spends a `requestState` nonce that expires at `expires` (Unix seconds): `true` the
    /// first time, `false` for a replay. One `SET NX EXAT`.
    pub(super) async fn spend(&self, nonce: &str, expires: u64) -> Result<bool, String> {
        let key = self.key(&format!("nonce:{nonce}"));
        // Kept a second past the state's expiry: the state is valid through that second.
        let until = expires.saturating_add(1);
        let set: Option<String> = self
            .run(move |mut c| {
                let mut set = redis::cmd("SET");
                set.arg(&key).arg(1).arg("NX").arg("EXAT").arg(until);
                Box::pin(async move { set.query_async(&mut c).await })
            })
            .await?;
        Ok(set.is_some())
    }

    /// Publishes an event to the other instances (best effort: a full queue or a lost
    /// connection drops it, with a warning).
    pub(crate) fn publish(&self, event: SharedEvent) {
        self.inner.bus.publish(event);
    }

    /// The runtime the connection was made on.
    pub(crate) fn runtime(&self) -> &tokio::runtime::Handle {
        &self.inner.runtime
    }

    /// Every event the other instances publish from now on.
    pub(crate) fn events(&self) -> broadcast::Receiver<SharedEvent> {
        self.inner.bus.events()
    }
}

fn decode_hex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::masked;

    #[test]
    fn passwords_are_masked_in_what_is_shown() {
        assert_eq!(
            masked("redis://:hunter2@cache:6379/0"),
            "redis://:***@cache:6379/0"
        );
        assert_eq!(
            masked("redis://app:hunter2@cache/"),
            "redis://app:***@cache/"
        );
        assert_eq!(masked("redis://cache:6379"), "redis://cache:6379");
        assert_eq!(masked("unix:///run/redis.sock"), "unix:///run/redis.sock");
    }
}
