//! The machinery behind asking the client, which a request context carries: its
//! [`Channel`] (a legacy session's outgoing requests, a modern request's [`Round`] of
//! answers and asks, or a task's input), the signed `requestState` ([`state`]), the ledger
//! of its nonces, the outgoing requests' bookkeeping and the elicitation schema profile.
//!
//! What a handler calls (`cx.elicit`, `cx.sample`, `cx.roots`, the [`Ask`] future, client
//! logging) is [`input`](super::input), above this and the request context; it re-exports
//! what users name from here.
//!
//! [`Ask`]: super::input::Ask

mod ledger;
mod outgoing;
pub(crate) mod schema;
pub mod state;

pub use outgoing::MAX_OUTSTANDING;
pub use state::{KeyError, MAX_STATE_TTL, RequestStateKeys};

pub(crate) use outgoing::OUTGOING_TRACE;
pub(crate) use outgoing::Outgoing;
pub(crate) use state::{Binding, Carried, StateCodec};

use crate::protocol::indexmap_like::Ordered;
use crate::protocol::{InputRequest, JsonObject, McpError};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

/// How long a legacy ask waits for the client unless configured otherwise.
pub const DEFAULT_INPUT_TIMEOUT: Duration = Duration::from_secs(600);

/// Why an ask got no answer.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum InputError {
    /// The client did not declare the capability this needs; nothing was sent. A handler
    /// that fails because of it is answered with `-32021`.
    #[error("the client did not declare the `{name}` capability this needs")]
    MissingCapability {
        /// The capability, as a `ClientCapabilities` object (`{"sampling":{}}`).
        required: Value,
        /// Its name (`sampling`, `elicitation`, `elicitation.url`, …).
        name: String,
    },
    /// The request cannot reach its client: outside a server, on a client that accepts
    /// only JSON responses, before `notifications/initialized`, or with too many asks
    /// pending.
    #[error("cannot ask the client: {0}")]
    Unavailable(String),
    /// The client did not answer in time (legacy leg).
    #[error("the client did not answer within {0:?}")]
    Timeout(Duration),
    /// The request was cancelled while waiting.
    #[error("the request was cancelled while waiting for the client")]
    Cancelled,
    /// The client answered with a JSON-RPC error.
    #[error("the client refused: {0}")]
    Client(McpError),
    /// The client's answer does not have the shape asked for.
    #[error("the client's answer is malformed: {0}")]
    InvalidResponse(String),
    /// The elicitation's type is not one a client can render as a form.
    #[error("this cannot be asked in a form: {0}")]
    InvalidSchema(String),
}

impl InputError {
    pub(crate) fn missing(request: &InputRequest) -> Self {
        let required = request.required_capability();
        let name = capability_name(&required);
        InputError::MissingCapability { required, name }
    }
}

/// `{"elicitation":{"url":{}}}` → `elicitation.url`.
pub(crate) fn capability_name(required: &Value) -> String {
    let mut parts = Vec::new();
    let mut at = required;
    while let Some((k, v)) = at.as_object().and_then(|o| o.iter().next()) {
        parts.push(k.as_str());
        at = v;
    }
    parts.join(".")
}

/// How a request's asks reach its client.
#[derive(Clone)]
pub(crate) enum Channel {
    /// They cannot (the reason is the error's text).
    Unavailable(&'static str),
    /// Server-to-client requests.
    Legacy(LegacyLink),
    /// Input-required results and retries.
    Modern(Arc<Round>),
    /// A call that may become a task: rounds until it does, its task's `inputRequests`
    /// after.
    Task(Arc<TaskInput>),
}

/// The input of a call that may become a task (`crate::task`).
pub(crate) struct TaskInput {
    /// The request's modern round: what it asks before it becomes a task.
    pub(crate) round: Arc<Round>,
    /// Set when it becomes a task.
    pub(crate) link: OnceLock<crate::task::TaskLink>,
    /// Told when the tool asks to become a task (`RequestContext::become_task`), which is
    /// what an explicit task tool's dispatcher waits for.
    pub(crate) wanted: tokio::sync::Notify,
}

impl TaskInput {
    pub(crate) fn new(round: Arc<Round>) -> Self {
        Self {
            round,
            link: OnceLock::new(),
            wanted: tokio::sync::Notify::new(),
        }
    }
}

impl fmt::Debug for Channel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Channel::Unavailable(r) => write!(f, "Unavailable({r:?})"),
            Channel::Legacy(_) => f.write_str("Legacy"),
            Channel::Modern(_) => f.write_str("Modern"),
            Channel::Task(_) => f.write_str("Task"),
        }
    }
}

/// A legacy request's way to its client (its requests go where the request's
/// notifications go: stdio's output, or the HTTP request's own event stream).
#[derive(Clone)]
pub(crate) struct LegacyLink {
    pub(crate) outgoing: Arc<Outgoing>,
    pub(crate) timeout: Duration,
    /// Why nothing can be sent, when that is known up front.
    pub(crate) unavailable: Option<&'static str>,
    /// Whether the client's capabilities are known (an `initialize` is behind the request).
    /// A request without one (stateless HTTP, a client that skipped the handshake) has
    /// unknown capabilities, not none: its asks are sent, and a client that cannot answer
    /// says so with an error. Without that, no ask could ever reach such a client.
    pub(crate) capabilities_known: bool,
}

/// What a round's state is bound to, computed only when a state is checked or minted (a
/// modern call that never asks pays for a copy of its params, not for a digest).
pub(crate) struct BindingSource {
    pub(crate) method: &'static str,
    pub(crate) params: Box<str>,
    pub(crate) principal: Option<String>,
}

impl BindingSource {
    pub(crate) fn binding(&self) -> Binding {
        Binding::from_params(self.method, &self.params, self.principal.as_deref())
    }
}

/// One modern round: the answers the request brought, and what the handler asks.
pub(crate) struct Round {
    /// The spending of the state's nonce in a shared store, until the request awaits it.
    pending_spend: Mutex<Option<state::PendingSpend>>,
    answers: HashMap<String, Value>,
    source: BindingSource,
    binding: OnceLock<Binding>,
    asked: AtomicBool,
    counter: AtomicU32,
    inner: Mutex<RoundInner>,
}

#[derive(Default)]
struct RoundInner {
    used: BTreeMap<String, Value>,
    requests: Ordered<InputRequest>,
}

/// What a suspended handler asked, and what it used: the next state's content.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Suspended {
    pub(crate) requests: Ordered<InputRequest>,
    pub(crate) used: BTreeMap<String, Value>,
}

impl Round {
    /// A round from a verified state (`None` on a first call) and the request's
    /// `inputResponses`: with a state, only answers to the keys it asked are read.
    pub(crate) fn new(
        source: BindingSource,
        binding: Option<Binding>,
        carried: Option<Carried>,
        responses: Option<JsonObject>,
    ) -> Self {
        let mut answers: HashMap<String, Value> = HashMap::new();
        // With a state, only the keys it asked are read. Without one (a first call), answers
        // are read by key: the official suite requires a first call carrying the answer to
        // complete (`input-required-result-ignore-extra-params`); see the module's docs.
        let asked = carried.as_ref().map(|c| c.asked.clone());
        if let Some(carried) = carried {
            answers.extend(carried.answers);
        }
        for (key, value) in responses.into_iter().flatten() {
            if asked.as_ref().is_none_or(|a| a.contains(&key)) {
                answers.entry(key).or_insert(value);
            }
        }
        let once = OnceLock::new();
        if let Some(binding) = binding {
            let _ = once.set(binding);
        }
        Self {
            pending_spend: Mutex::new(None),
            answers,
            source,
            binding: once,
            asked: AtomicBool::new(false),
            counter: AtomicU32::new(0),
            inner: Mutex::new(RoundInner::default()),
        }
    }

    /// Sets what spends the state's nonce in a shared store (see
    /// [`StateCodec::open`]).
    pub(crate) fn set_pending_spend(&self, spend: state::PendingSpend) {
        *self.pending_spend.lock().unwrap_or_else(|e| e.into_inner()) = Some(spend);
    }

    /// Takes what spends the state's nonce, if it is still to be spent.
    pub(crate) fn take_pending_spend(&self) -> Option<state::PendingSpend> {
        self.pending_spend
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
    }

    /// The authenticated identity of the round's caller, if any.
    pub(crate) fn principal(&self) -> Option<&str> {
        self.source.principal.as_deref()
    }

    /// What the round's states are bound to.
    pub(crate) fn binding(&self) -> &Binding {
        self.binding.get_or_init(|| self.source.binding())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, RoundInner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(crate) fn key(&self, chosen: Option<String>, kind: &str) -> String {
        // Counted for every ask, chosen key or not, so default keys stay stable when a
        // handler names some asks and not others.
        let n = self.counter.fetch_add(1, Ordering::Relaxed) + 1;
        chosen.unwrap_or_else(|| format!("{kind}_{n}"))
    }

    pub(crate) fn answer(&self, key: &str) -> Option<Value> {
        self.answers.get(key).cloned()
    }

    pub(crate) fn use_answer(&self, key: String, answer: Value) {
        self.lock().used.insert(key, answer);
    }

    pub(crate) fn ask(&self, key: String, request: InputRequest) {
        self.lock().requests.insert_new(key, request);
        self.asked.store(true, Ordering::Release);
    }

    /// Whether the handler asked something this round could not answer.
    pub(crate) fn suspended(&self) -> bool {
        self.asked.load(Ordering::Acquire)
    }

    /// What the handler asked and used (when it [`suspended`](Self::suspended)).
    pub(crate) fn take(&self) -> Suspended {
        let mut inner = self.lock();
        Suspended {
            requests: std::mem::take(&mut inner.requests),
            used: std::mem::take(&mut inner.used),
        }
    }
}
