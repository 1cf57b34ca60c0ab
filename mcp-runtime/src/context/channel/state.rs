//! `requestState`: what a modern server hands its client between rounds, integrity-protected.
//!
//! The client gets the state with an input-required result and echoes it byte-exact when it
//! retries. Everything the next round needs travels in it (the spec's retries are
//! independent requests: nothing is looked up by an earlier request's id), so it is
//! attacker-controlled input and is checked before anything in it is used:
//!
//! - **Integrity**: HMAC-SHA256 under a server secret ([`RequestStateKeys`]). Keys rotate: new
//!   states are signed with the current key, and states signed with any previous key still
//!   verify until they expire. Instances behind a load balancer share the keys through
//!   configuration ([`RequestStateKeys::from_env`]), so any instance continues any round.
//! - **Binding**: the state names the request it belongs to: the method, the tool, prompt or
//!   resource, a digest of the arguments, and the caller's authenticated identity. A state
//!   presented with another request, another argument or by another principal is
//!   *foreign* and is refused.
//! - **Expiry**: a state is valid for [`RequestStateKeys::ttl`] (default 10 minutes).
//! - **Single use**: each state carries a random nonce; a verified state's nonce is
//!   remembered until the state expires (by the state's own expiry, so a key rotation with
//!   another lifetime changes nothing), and a second use of it is a *replay* and is refused.
//!   The memory fails closed: it holds at most [`MAX_REMEMBERED`] nonces (of states minted
//!   here and not yet spent, and of spent ones), is emptied only by expiry, and never forgets
//!   a live nonce to make room: when it is full the server refuses to *mint* a state (the
//!   request is answered with a retryable `-32603` "busy", the handler's question is asked
//!   again on the retry), and a state minted elsewhere that finds no room is refused. One
//!   authenticated identity holds at most [`MAX_REMEMBERED_PER_IDENTITY`] of them, so one
//!   caller cannot fill it for everyone. Behind a load balancer a replay reaching another
//!   instance is caught only by the binding and the expiry.
//! - **Size**: a state is at most [`MAX_STATE_BYTES`]; one that would be longer (answers of
//!   earlier rounds too large to carry) is not minted: the request gets a `-32603` saying so,
//!   rather than a state every later round would refuse.
//!
//! Every failure is the same answer, with no detail about which check failed (as the
//! TypeScript SDK answers): `-32602` "Invalid or expired requestState" with
//! `data.reason = "invalid_request_state"`.
//!
//! Wire format: `v1.` base64url(JSON payload) `.` base64url(HMAC-SHA256(key, "v1." +
//! payload part)). The payload is not encrypted: it holds the client's own answers of
//! earlier rounds and the binding digest, nothing the client does not know.

use super::ledger::Ledger;
use crate::context::SpentNonces;
use crate::protocol::{ErrorCode, McpError};
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use futures::future::BoxFuture;
use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::fmt;
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

type HmacSha256 = Hmac<Sha256>;

/// The shortest key accepted, in bytes (HMAC-SHA256's block of entropy).
pub const MIN_KEY_BYTES: usize = 32;
/// How long a state is valid unless configured otherwise.
pub const DEFAULT_STATE_TTL: Duration = Duration::from_secs(600);
/// At most this many nonces (of live states minted here, and of spent ones) are remembered
/// for replay detection; past it no new state is minted until some expire.
pub const MAX_REMEMBERED: u64 = 100_000;
/// At most this many of them for one authenticated identity.
pub const MAX_REMEMBERED_PER_IDENTITY: u64 = MAX_REMEMBERED / 8;
/// A state longer than this is refused unread (answers of earlier rounds included).
pub const MAX_STATE_BYTES: usize = 256 * 1024;
/// The environment variable [`RequestStateKeys::from_env`] reads by default.
pub const KEYS_ENV: &str = "MCP_REQUEST_STATE_KEYS";

/// The secrets `requestState` is signed with: the current key, and earlier keys that still
/// verify (rotation), plus how long a state is valid.
///
/// Without configuration a server generates one random key at `build()`: right for one
/// process, and every state dies with it. Servers behind a load balancer configure the same
/// keys on every instance; to rotate, put the new key first and keep the old one after it
/// for at least one [`ttl`](Self::ttl), on every instance.
///
/// ```
/// use mcp_runtime::input::RequestStateKeys;
/// use std::time::Duration;
///
/// let keys = RequestStateKeys::new([7u8; 32])
///     .unwrap()
///     .previous([9u8; 32])
///     .unwrap()
///     .ttl(Duration::from_secs(120));
/// assert_eq!(keys.len(), 2);
/// assert!(RequestStateKeys::new(b"too short").is_err());
/// ```
#[derive(Clone)]
pub struct RequestStateKeys {
    keys: Vec<Arc<[u8]>>,
    ttl: Duration,
}

impl fmt::Debug for RequestStateKeys {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Never the secrets themselves.
        f.debug_struct("RequestStateKeys")
            .field("keys", &self.keys.len())
            .field("ttl", &self.ttl)
            .finish()
    }
}

/// A key that cannot sign `requestState`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum KeyError {
    /// Shorter than [`MIN_KEY_BYTES`].
    #[error("a requestState key needs at least {MIN_KEY_BYTES} bytes, got {0}")]
    TooShort(usize),
    /// Not base64 (standard or URL-safe) nor hex.
    #[error("a requestState key in {var} is neither base64 nor hex: {detail}")]
    Encoding {
        /// The variable read.
        var: String,
        /// What was wrong.
        detail: String,
    },
    /// The variable is set but lists no key.
    #[error("{0} is set but holds no key")]
    Empty(String),
}

impl RequestStateKeys {
    /// Signs with `current` (at least [`MIN_KEY_BYTES`] random bytes).
    pub fn new(current: impl AsRef<[u8]>) -> Result<Self, KeyError> {
        Ok(Self {
            keys: vec![checked(current.as_ref())?],
            ttl: DEFAULT_STATE_TTL,
        })
    }

    /// A random key (from the operating system's generator).
    pub fn generate() -> Self {
        Self {
            keys: vec![random_key()],
            ttl: DEFAULT_STATE_TTL,
        }
    }

    /// Adds a key that still verifies states but no longer signs new ones.
    pub fn previous(mut self, key: impl AsRef<[u8]>) -> Result<Self, KeyError> {
        self.keys.push(checked(key.as_ref())?);
        Ok(self)
    }

    /// How long a state is valid (default [`DEFAULT_STATE_TTL`]; at most
    /// [`MAX_STATE_TTL`], or `build()` refuses it).
    pub fn ttl(mut self, ttl: Duration) -> Self {
        self.ttl = ttl;
        self
    }

    /// Why these keys' settings cannot be honoured, if they cannot (checked by `build()`).
    pub(crate) fn problem(&self) -> Option<String> {
        (self.ttl > MAX_STATE_TTL).then(|| {
            format!(
                "a requestState lifetime of {:?} cannot be honoured; the longest is {} hours",
                self.ttl,
                MAX_STATE_TTL.as_secs() / 3_600
            )
        })
    }

    /// The number of keys (the current one first).
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Always `false`: there is at least the current key.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// Reads the keys from the environment variable `var` (usually [`KEYS_ENV`]): keys
    /// separated by commas or whitespace, the current one first, each base64 (standard or
    /// URL-safe, padded or not) or hex. `Ok(None)` when the variable is not set.
    ///
    /// ```
    /// use mcp_runtime::input::RequestStateKeys;
    ///
    /// let key = "a".repeat(64); // 32 bytes in hex
    /// // SAFETY-free: this doctest owns its process.
    /// unsafe { std::env::set_var("DOCTEST_STATE_KEYS", format!("{key}, {}", "b".repeat(64))) };
    /// let keys = RequestStateKeys::from_env("DOCTEST_STATE_KEYS").unwrap().unwrap();
    /// assert_eq!(keys.len(), 2);
    /// ```
    pub fn from_env(var: &str) -> Result<Option<Self>, KeyError> {
        let Some(value) = std::env::var_os(var) else {
            return Ok(None);
        };
        let value = value.to_string_lossy();
        let mut keys = Vec::new();
        for item in value
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|s| !s.is_empty())
        {
            let bytes = decode_key(item).map_err(|detail| KeyError::Encoding {
                var: var.to_owned(),
                detail,
            })?;
            keys.push(checked(&bytes)?);
        }
        if keys.is_empty() {
            return Err(KeyError::Empty(var.to_owned()));
        }
        Ok(Some(Self {
            keys,
            ttl: DEFAULT_STATE_TTL,
        }))
    }
}

fn checked(key: &[u8]) -> Result<Arc<[u8]>, KeyError> {
    if key.len() < MIN_KEY_BYTES {
        return Err(KeyError::TooShort(key.len()));
    }
    Ok(key.into())
}

fn decode_key(text: &str) -> Result<Vec<u8>, String> {
    if text.len().is_multiple_of(2) && text.bytes().all(|b| b.is_ascii_hexdigit()) {
        return (0..text.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&text[i..i + 2], 16).map_err(|e| e.to_string()))
            .collect();
    }
    let trimmed = text.trim_end_matches('=');
    let normalized: String = trimmed
        .chars()
        .map(|c| match c {
            '+' => '-',
            '/' => '_',
            c => c,
        })
        .collect();
    B64.decode(normalized).map_err(|e| e.to_string())
}

fn random_key() -> Arc<[u8]> {
    let mut key = [0u8; MIN_KEY_BYTES];
    // The operating system's generator does not fail on any supported platform; if it
    // did, a server must not run with a guessable key.
    getrandom::fill(&mut key).expect("the operating system's random generator works");
    key.into()
}

/// What a state is bound to: the request it belongs to and who made it.
#[derive(Debug, Clone)]
pub(crate) struct Binding {
    tag: String,
}

impl Binding {
    /// The binding of a request from its raw `params`: the target is `params.name` or
    /// `params.uri`, the arguments `params.arguments` (absent counts as `{}`), so the same
    /// request binds the same whichever way it is read.
    pub(crate) fn from_params(method: &str, params: &str, principal: Option<&str>) -> Self {
        let params: Value = serde_json::from_str(params).unwrap_or(Value::Null);
        let target = params
            .get("name")
            .or_else(|| params.get("uri"))
            .and_then(Value::as_str)
            .unwrap_or_default();
        let empty = serde_json::Map::new();
        let arguments = params
            .get("arguments")
            .and_then(Value::as_object)
            .unwrap_or(&empty);
        Self::new(method, target, Some(arguments), principal)
    }

    /// The binding of a request: its method, its target (tool or prompt name, resource URI),
    /// its arguments (compared by a digest of their canonical JSON, so key order does not
    /// matter) and the caller's authenticated identity (`None` when unauthenticated).
    pub(crate) fn new(
        method: &str,
        target: &str,
        arguments: Option<&crate::protocol::JsonObject>,
        principal: Option<&str>,
    ) -> Self {
        let mut hasher = Sha256::new();
        for part in [method, target] {
            hasher.update((part.len() as u64).to_le_bytes());
            hasher.update(part.as_bytes());
        }
        let mut canonical = Vec::new();
        if let Some(arguments) = arguments {
            write_object(arguments, &mut canonical);
        }
        hasher.update((canonical.len() as u64).to_le_bytes());
        hasher.update(&canonical);
        match principal {
            Some(p) => {
                hasher.update([1]);
                hasher.update(p.as_bytes());
            }
            None => hasher.update([0]),
        }
        let digest = hasher.finalize();
        Self {
            tag: B64.encode(&digest[..16]),
        }
    }
}

/// JSON with object keys sorted at every level (the digest must not depend on key order).
fn write_object(map: &serde_json::Map<String, Value>, out: &mut Vec<u8>) {
    let mut keys: Vec<&String> = map.keys().collect();
    keys.sort_unstable();
    out.push(b'{');
    for (i, k) in keys.into_iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        // A string serializes infallibly.
        let _ = serde_json::to_writer(&mut *out, k);
        out.push(b':');
        write_canonical(&map[k], out);
    }
    out.push(b'}');
}

fn write_canonical(value: &Value, out: &mut Vec<u8>) {
    match value {
        Value::Object(map) => write_object(map, out),
        Value::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_canonical(item, out);
            }
            out.push(b']');
        }
        scalar => {
            let _ = serde_json::to_writer(&mut *out, scalar);
        }
    }
}

/// What a state carries from one round to the next.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct Carried {
    /// The answers the handler used, by key (replayed to it next round).
    #[serde(rename = "a", default)]
    pub(crate) answers: BTreeMap<String, Value>,
    /// The keys asked in the round that issued the state: the retry's `inputResponses` are
    /// read for these only (other keys are ignored, as the spec says).
    #[serde(rename = "q", default)]
    pub(crate) asked: Vec<String>,
}

#[derive(Serialize, Deserialize)]
struct Payload {
    #[serde(rename = "b")]
    binding: String,
    #[serde(rename = "exp")]
    expires: u64,
    #[serde(rename = "n")]
    nonce: String,
    #[serde(flatten)]
    carried: Carried,
}

/// What spends a state's nonce in a store shared by instances: the request waits for it
/// before anything in the state is used (an error: a replay, or the store unreachable).
pub(crate) type PendingSpend = BoxFuture<'static, Result<(), McpError>>;

/// Signs and checks states; one per server.
pub(crate) struct StateCodec {
    keys: RwLock<RequestStateKeys>,
    ledger: Mutex<Ledger>,
    /// Instances sharing state: spent nonces live in their shared store (Redis) instead of
    /// the ledger.
    fleet: std::sync::OnceLock<Arc<dyn SpentNonces>>,
    /// [`MAX_REMEMBERED`] and [`MAX_REMEMBERED_PER_IDENTITY`] (smaller in tests).
    capacity: (u64, u64),
}

impl fmt::Debug for StateCodec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StateCodec").finish_non_exhaustive()
    }
}

/// The longest a requestState may stay valid: a day. A state answers a question a person
/// is asked during one call; a longer lifetime is refused by `build()` (the memory of live
/// nonces holds every state that long).
pub const MAX_STATE_TTL: Duration = Duration::from_secs(86_400);

/// Why a state was refused (for tests and tracing; the client is never told).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refused {
    Malformed,
    Signature,
    Expired,
    Foreign,
    Replayed,
    /// Minted elsewhere (another instance, an earlier process), and no room to remember it.
    Full,
}

impl StateCodec {
    pub(crate) fn new(keys: RequestStateKeys) -> Self {
        Self::with_capacity(keys, MAX_REMEMBERED, MAX_REMEMBERED_PER_IDENTITY)
    }

    fn with_capacity(keys: RequestStateKeys, total: u64, per_identity: u64) -> Self {
        Self {
            keys: RwLock::new(keys),
            ledger: Mutex::new(Ledger::default()),
            fleet: std::sync::OnceLock::new(),
            capacity: (total, per_identity),
        }
    }

    fn ledger(&self) -> std::sync::MutexGuard<'_, Ledger> {
        self.ledger.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Keeps spent nonces in a store every instance sharing it sees: a state replayed on
    /// another instance is refused like one replayed here.
    pub(crate) fn attach(&self, store: Arc<dyn SpentNonces>) {
        let _ = self.fleet.set(store);
    }

    /// Replaces the keys (rotation at run time).
    pub(crate) fn set_keys(&self, keys: RequestStateKeys) {
        *self.keys.write().unwrap_or_else(|e| e.into_inner()) = keys;
    }

    /// A new state bound to `binding`, carrying `carried`, minted for `identity` (the
    /// caller's authenticated identity, if any); refused when its nonce could not be
    /// remembered, or when it would be too long.
    pub(crate) fn seal(
        &self,
        binding: &Binding,
        carried: Carried,
        identity: Option<&str>,
    ) -> Result<String, SealRefused> {
        let keys = self.keys.read().unwrap_or_else(|e| e.into_inner());
        let mut nonce = [0u8; 16];
        getrandom::fill(&mut nonce).expect("the operating system's random generator works");
        let now = now();
        let payload = Payload {
            binding: binding.tag.clone(),
            expires: now.saturating_add(keys.ttl.as_secs().max(1)),
            nonce: B64.encode(nonce),
            carried,
        };
        let json = serde_json::to_vec(&payload).expect("a state payload serializes");
        // base64 of the payload, its prefix, the dot and the MAC.
        if 3 + json.len().div_ceil(3) * 4 + 1 + 43 > MAX_STATE_BYTES {
            return Err(SealRefused::TooLarge);
        }
        let shared = self.fleet.get().is_some();
        // Shared: nothing to remember at minting; Redis keeps the spent nonces, bounded by
        // their expiry and by Redis's own memory (which refuses writes rather than evict).
        if !shared {
            let (total, per_identity) = self.capacity;
            let mut ledger = self.ledger();
            ledger.sweep_if_due(now, total);
            if ledger.len() >= total {
                return Err(SealRefused::Busy);
            }
            let identity: Option<Arc<str>> = identity.map(Arc::from);
            if let Some(identity) = &identity {
                let held = ledger.per_identity.entry(identity.clone()).or_default();
                if *held >= per_identity {
                    return Err(SealRefused::Busy);
                }
                *held += 1;
            }
            ledger
                .minted
                .insert(payload.nonce.clone(), (payload.expires, identity));
        }
        let head = format!("v1.{}", B64.encode(json));
        let mac = sign(&keys.keys[0], head.as_bytes());
        Ok(format!("{head}.{}", B64.encode(mac)))
    }

    /// Checks a state presented with a request bound to `binding`; on success its nonce is
    /// spent, or (instances sharing state) the returned future spends it, and the request
    /// must wait for it before using what the state carries.
    pub(crate) fn open(
        &self,
        state: &str,
        binding: &Binding,
    ) -> Result<(Carried, Option<PendingSpend>), Refused> {
        let payload = self.verify(state, binding)?;
        if let Some(fleet) = self.fleet.get() {
            let fleet = fleet.clone();
            let nonce = payload.nonce;
            let expires = payload.expires;
            let spend: PendingSpend = Box::pin(async move {
                match fleet.spend_nonce(nonce, expires).await {
                    Ok(true) => Ok(()),
                    Ok(false) => {
                        tracing::debug!(why = ?Refused::Replayed, "requestState refused");
                        Err(invalid_state_error())
                    }
                    Err(e) => Err(McpError::internal(format!(
                        "the requestState could not be checked against the shared state: {e}"
                    ))),
                }
            });
            return Ok((payload.carried, Some(spend)));
        }
        self.spend_here(payload).map(|carried| (carried, None))
    }

    /// [`open`](Self::open) in this process alone (the tests' view).
    #[cfg(test)]
    fn open_here(&self, state: &str, binding: &Binding) -> Result<Carried, Refused> {
        self.open(state, binding).map(|(carried, _)| carried)
    }

    /// Checks everything but single use.
    fn verify(&self, state: &str, binding: &Binding) -> Result<Payload, Refused> {
        if state.len() > MAX_STATE_BYTES {
            return Err(Refused::Malformed);
        }
        let (head, mac) = state.rsplit_once('.').ok_or(Refused::Malformed)?;
        let payload = head.strip_prefix("v1.").ok_or(Refused::Malformed)?;
        let mac = B64.decode(mac).map_err(|_| Refused::Malformed)?;
        {
            let keys = self.keys.read().unwrap_or_else(|e| e.into_inner());
            let verified = keys.keys.iter().any(|key| {
                let mut m = HmacSha256::new_from_slice(key).expect("HMAC takes any key length");
                m.update(head.as_bytes());
                // Constant-time comparison.
                m.verify_slice(&mac).is_ok()
            });
            if !verified {
                return Err(Refused::Signature);
            }
        }
        let json = B64.decode(payload).map_err(|_| Refused::Malformed)?;
        let payload: Payload = serde_json::from_slice(&json).map_err(|_| Refused::Malformed)?;
        if payload.expires < now() {
            return Err(Refused::Expired);
        }
        if payload.binding != binding.tag {
            return Err(Refused::Foreign);
        }
        Ok(payload)
    }

    /// Spends the nonce of a verified state in this process's ledger.
    fn spend_here(&self, payload: Payload) -> Result<Carried, Refused> {
        // Spend the nonce: only the first presentation wins, even under a race (one lock).
        let mut ledger = self.ledger();
        if ledger.spent.contains_key(&payload.nonce) {
            return Err(Refused::Replayed);
        }
        if !ledger.unmint(&payload.nonce) {
            // Minted elsewhere: remembered if there is room, refused otherwise (never by
            // forgetting another live nonce).
            ledger.sweep_if_due(now(), self.capacity.0);
            if ledger.len() >= self.capacity.0 {
                return Err(Refused::Full);
            }
        }
        ledger.spent.insert(payload.nonce, payload.expires);
        Ok(payload.carried)
    }
}

fn sign(key: &[u8], data: &[u8]) -> Vec<u8> {
    let mut mac = HmacSha256::new_from_slice(key).expect("HMAC takes any key length");
    mac.update(data);
    mac.finalize().into_bytes().to_vec()
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// The one error every refused state gets: no detail about which check failed.
pub(crate) fn invalid_state_error() -> McpError {
    McpError::new(ErrorCode::INVALID_PARAMS, "Invalid or expired requestState")
        .with_data(serde_json::json!({ "reason": "invalid_request_state" }))
}

/// Why no state was minted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SealRefused {
    /// Every place for a live nonce is taken (here, or for this identity): retry later.
    Busy,
    /// The state would be longer than [`MAX_STATE_BYTES`].
    TooLarge,
}

impl SealRefused {
    /// The error the request that needed the state is answered with.
    pub(crate) fn error(self) -> McpError {
        match self {
            SealRefused::Busy => McpError::internal(
                "the server holds as many open questions as it can; retry in a moment",
            )
            .with_data(serde_json::json!({ "reason": "busy", "retryAfterMs": 1000 })),
            SealRefused::TooLarge => McpError::internal(format!(
                "the answers given so far are too large to carry to the next round (more than \
                 {MAX_STATE_BYTES} bytes of requestState); answer with less"
            )),
        }
    }
}

#[cfg(test)]
mod tests;
