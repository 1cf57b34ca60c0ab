//! What the proxy's items share: an upstream's lists read within bounds, the caller's
//! answers to the upstream's questions, and why a forwarded request failed.

use super::{MAX_LIST_ITEMS, MAX_LIST_PAGES};
use crate::client::Client;
use crate::context::RequestContext;
use crate::protocol::ErrorCode;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

/// Every item of a list, within [`MAX_LIST_PAGES`] and [`MAX_LIST_ITEMS`]; an item that is
/// not one is skipped, not the list. An upstream that does not offer the list (`-32601`)
/// has none.
pub(super) async fn list<T: DeserializeOwned>(
    client: &Client,
    method: &str,
    field: &str,
) -> Result<Vec<T>, String> {
    match client
        .list_values(method, field, MAX_LIST_PAGES, MAX_LIST_ITEMS)
        .await
    {
        Ok(items) => Ok(items
            .into_iter()
            .filter_map(|item| serde_json::from_value(item).ok())
            .collect()),
        Err(e)
            if e.as_protocol()
                .is_some_and(|e| e.code == ErrorCode::METHOD_NOT_FOUND) =>
        {
            Ok(Vec::new())
        }
        Err(e) => Err(e.to_string()),
    }
}

/// Asks `requests` of `cx`'s caller under the upstream's own keys, all at once (a modern
/// caller gets one `input_required` round, or its task's `inputRequests`, with those keys),
/// and returns the answers by key. An answer that is not one never goes upstream: it is
/// asked again, as our own tools' asks are (`RequestContext::ask`).
pub(super) async fn ask_all(
    requests: Vec<(String, crate::protocol::InputRequest)>,
    cx: &RequestContext,
) -> Result<Map<String, Value>, Failure> {
    let asks = requests.into_iter().map(|(key, request)| {
        let ask = cx.ask(request).key(key.clone());
        async move { (key, ask.await) }
    });
    let mut responses = Map::new();
    for (key, answer) in futures::future::join_all(asks).await {
        match answer {
            Ok(answer) => {
                responses.insert(key, answer);
            }
            Err(crate::input::InputError::MissingCapability { required, .. }) => {
                return Err(Failure::Upstream(
                    crate::protocol::McpError::missing_client_capability(required),
                ));
            }
            Err(crate::input::InputError::Client(e)) => return Err(Failure::Upstream(e)),
            Err(other) => return Err(Failure::Other(other.to_string())),
        }
    }
    Ok(responses)
}

/// Why a forwarded request failed.
#[derive(Debug)]
pub(super) enum Failure {
    /// The upstream answered with this error.
    Upstream(crate::protocol::McpError),
    /// The upstream's task of the call failed with this error.
    Task(crate::protocol::McpError),
    /// It could not be asked, or did not answer.
    Other(String),
}

impl Failure {
    /// What the caller's request is answered with besides a tool's `isError` result,
    /// recorded on it: an upstream's `-32021` (a capability the caller did not declare), so
    /// the caller gets `-32021` naming it too, as from our own tools; the error the
    /// upstream's task failed with, so the caller's task fails with it.
    pub(super) fn record_on(&self, cx: &RequestContext) {
        if let Failure::Task(e) = self {
            cx.record_error(e.clone());
        }
        if let Failure::Upstream(e) = self
            && e.code == ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY
        {
            let required = e
                .data
                .as_ref()
                .and_then(|d| d.get("requiredCapabilities"))
                .cloned()
                .unwrap_or_else(|| json!({}));
            cx.record_missing_required(required);
        }
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Upstream(e) | Failure::Task(e) => f.write_str(&e.message),
            Failure::Other(message) => f.write_str(message),
        }
    }
}
