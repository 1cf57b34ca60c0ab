//! What a server asks of its client, in both eras: elicitation, sampling, roots (spec
//! `primitives.md` §5) and the log messages it sends (§6).
//!
//! The same request and result bodies travel as server-to-client JSON-RPC requests on the
//! legacy leg, and inside an [`InputRequiredResult`] and the retried request's
//! `inputResponses` on the modern leg.

use super::JsonObject;
use super::meta::LoggingLevel;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// `elicitation/create`: the method name.
pub const ELICIT_METHOD: &str = "elicitation/create";
/// `sampling/createMessage`: the method name.
pub const SAMPLE_METHOD: &str = "sampling/createMessage";
/// `roots/list`: the method name.
pub const ROOTS_METHOD: &str = "roots/list";

/// The params of `elicitation/create`: a form (a flat schema the client renders) or a URL
/// the user opens out of band.
///
/// ```
/// use mcp_runtime::protocol::ElicitRequestParams;
///
/// let form = ElicitRequestParams::form("Your name?", serde_json::json!({
///     "type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"],
/// }));
/// assert_eq!(serde_json::to_value(&form).unwrap()["mode"], "form");
/// let url = ElicitRequestParams::url("Sign in", "https://example.com/login", "e-1");
/// assert_eq!(serde_json::to_value(&url).unwrap()["elicitationId"], "e-1");
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ElicitRequestParams {
    /// `form` or `url`; absent means `form`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
    /// What the user is asked.
    pub message: String,
    /// Form mode: the flat object schema of the answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requested_schema: Option<Value>,
    /// URL mode: the page the user opens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// URL mode: correlates `notifications/elicitation/complete` (legacy leg).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elicitation_id: Option<String>,
}

impl ElicitRequestParams {
    /// A form elicitation.
    pub fn form(message: impl Into<String>, requested_schema: Value) -> Self {
        Self {
            mode: Some("form".to_owned()),
            message: message.into(),
            requested_schema: Some(requested_schema),
            url: None,
            elicitation_id: None,
        }
    }

    /// A URL elicitation.
    pub fn url(
        message: impl Into<String>,
        url: impl Into<String>,
        elicitation_id: impl Into<String>,
    ) -> Self {
        Self {
            mode: Some("url".to_owned()),
            message: message.into(),
            requested_schema: None,
            url: Some(url.into()),
            elicitation_id: Some(elicitation_id.into()),
        }
    }

    /// Whether this is a URL elicitation.
    pub fn is_url(&self) -> bool {
        self.mode.as_deref() == Some("url")
    }
}

/// What the user did with an elicitation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum ElicitAction {
    /// Submitted (form: `content` holds the answer; URL: consent to open the page).
    Accept,
    /// Explicitly said no.
    Decline,
    /// Dismissed without choosing.
    Cancel,
}

/// The result of `elicitation/create`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ElicitResult {
    /// What the user did.
    pub action: ElicitAction,
    /// The answer, with `accept` in form mode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<JsonObject>,
}

impl ElicitResult {
    /// The user accepted, answering `content` (form mode; URL mode has none).
    ///
    /// ```
    /// use mcp_runtime::protocol::{ElicitAction, ElicitResult};
    ///
    /// let answer = serde_json::json!({"environment": "staging"});
    /// let accepted = ElicitResult::accept(answer.as_object().cloned());
    /// assert_eq!(accepted.action, ElicitAction::Accept);
    /// assert_eq!(ElicitResult::decline().action, ElicitAction::Decline);
    /// ```
    pub fn accept(content: Option<JsonObject>) -> Self {
        Self {
            action: ElicitAction::Accept,
            content,
        }
    }

    /// The user declined.
    pub fn decline() -> Self {
        Self {
            action: ElicitAction::Decline,
            content: None,
        }
    }

    /// The user dismissed it without choosing.
    pub fn cancel() -> Self {
        Self {
            action: ElicitAction::Cancel,
            content: None,
        }
    }
}

/// Who speaks in a sampling message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SamplingRole {
    /// The user.
    User,
    /// The model.
    Assistant,
}

/// One message of a sampling conversation. `content` is one content block (`text`,
/// `image`, `audio`, …) or an array of them, as the spec allows; kept as JSON so blocks this
/// toolkit does not model (tool use and results) pass through.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SamplingMessage {
    /// Who says it.
    pub role: SamplingRole,
    /// What is said.
    pub content: Value,
}

impl SamplingMessage {
    /// A user message of plain text.
    pub fn user(text: impl Into<String>) -> Self {
        Self {
            role: SamplingRole::User,
            content: serde_json::json!({ "type": "text", "text": text.into() }),
        }
    }

    /// An assistant message of plain text.
    pub fn assistant(text: impl Into<String>) -> Self {
        Self {
            role: SamplingRole::Assistant,
            content: serde_json::json!({ "type": "text", "text": text.into() }),
        }
    }
}

/// The params of `sampling/createMessage`.
///
/// ```
/// use mcp_runtime::protocol::CreateMessageParams;
///
/// let request = CreateMessageParams::new(100)
///     .user("What is the capital of France?")
///     .system_prompt("Answer in one word.");
/// let json = serde_json::to_value(&request).unwrap();
/// assert_eq!(json["maxTokens"], 100);
/// assert_eq!(json["messages"][0]["content"]["text"], "What is the capital of France?");
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CreateMessageParams {
    /// The conversation so far.
    pub messages: Vec<SamplingMessage>,
    /// The most tokens the client should sample (required by the spec).
    pub max_tokens: u32,
    /// A system prompt the client may use.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_prompt: Option<String>,
    /// Model hints and priorities (`hints`, `costPriority`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_preferences: Option<Value>,
    /// Sampling temperature.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// Where to stop.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_sequences: Option<Vec<String>>,
    /// `none` (other values are deprecated and need `sampling.context`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_context: Option<String>,
    /// Provider-specific metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Value>,
    /// Tools the model may call (needs the client's `sampling.tools`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Value>,
    /// How the model chooses tools (needs the client's `sampling.tools`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<Value>,
}

impl CreateMessageParams {
    /// An empty conversation sampling at most `max_tokens`.
    pub fn new(max_tokens: u32) -> Self {
        Self {
            messages: Vec::new(),
            max_tokens,
            system_prompt: None,
            model_preferences: None,
            temperature: None,
            stop_sequences: None,
            include_context: None,
            metadata: None,
            tools: None,
            tool_choice: None,
        }
    }

    /// Appends a user message of plain text.
    pub fn user(mut self, text: impl Into<String>) -> Self {
        self.messages.push(SamplingMessage::user(text));
        self
    }

    /// Appends an assistant message of plain text.
    pub fn assistant(mut self, text: impl Into<String>) -> Self {
        self.messages.push(SamplingMessage::assistant(text));
        self
    }

    /// Appends any message.
    pub fn message(mut self, message: SamplingMessage) -> Self {
        self.messages.push(message);
        self
    }

    /// Sets the system prompt.
    pub fn system_prompt(mut self, prompt: impl Into<String>) -> Self {
        self.system_prompt = Some(prompt.into());
        self
    }

    /// Sets the model preferences (`{"hints":[{"name":…}], "intelligencePriority": …}`).
    pub fn model_preferences(mut self, preferences: Value) -> Self {
        self.model_preferences = Some(preferences);
        self
    }

    /// Sets the temperature.
    pub fn temperature(mut self, temperature: f64) -> Self {
        self.temperature = Some(temperature);
        self
    }

    /// Whether this request uses tools (and so needs the client's `sampling.tools`).
    pub fn uses_tools(&self) -> bool {
        self.tools.is_some() || self.tool_choice.is_some()
    }
}

/// The result of `sampling/createMessage`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CreateMessageResult {
    /// Normally `assistant`.
    pub role: SamplingRole,
    /// One content block or an array of them.
    pub content: Value,
    /// The model that answered.
    pub model: String,
    /// Why sampling stopped (`endTurn`, `stopSequence`, `maxTokens`, `toolUse`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<String>,
}

impl CreateMessageResult {
    /// An answer from `model`: `content` is one content block or an array of them, spoken
    /// by the assistant.
    ///
    /// ```
    /// use mcp_runtime::protocol::CreateMessageResult;
    /// use serde_json::json;
    ///
    /// let answer = CreateMessageResult::new(json!({"type": "text", "text": "Hi"}), "m-1")
    ///     .with_stop_reason("endTurn");
    /// assert_eq!(answer.text().as_deref(), Some("Hi"));
    /// ```
    pub fn new(content: Value, model: impl Into<String>) -> Self {
        Self {
            role: SamplingRole::Assistant,
            content,
            model: model.into(),
            stop_reason: None,
        }
    }

    /// With why sampling stopped (`endTurn`, `stopSequence`, `maxTokens`, `toolUse`, …).
    pub fn with_stop_reason(mut self, reason: impl Into<String>) -> Self {
        self.stop_reason = Some(reason.into());
        self
    }

    /// The text of the answer: its text blocks joined, or `None` when it has none.
    pub fn text(&self) -> Option<String> {
        let blocks: Vec<&Value> = match &self.content {
            Value::Array(items) => items.iter().collect(),
            one => vec![one],
        };
        let texts: Vec<&str> = blocks
            .into_iter()
            .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect();
        (!texts.is_empty()).then(|| texts.concat())
    }
}

/// A root the client exposes (a `file://` URI).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Root {
    /// The root's URI.
    pub uri: String,
    /// A display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

impl Root {
    /// A root at `uri` (a `file://` URI), without a name.
    ///
    /// ```
    /// use mcp_runtime::protocol::Root;
    ///
    /// let root = Root::new("file:///work/project").with_name("project");
    /// assert_eq!(root.name.as_deref(), Some("project"));
    /// ```
    pub fn new(uri: impl Into<String>) -> Self {
        Self {
            uri: uri.into(),
            name: None,
        }
    }

    /// With a name to show.
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// The root for a local folder: its `file://` URI and, as the name, its last component.
    pub fn from_path(path: &std::path::Path) -> Self {
        Self {
            uri: Self::file_uri(path),
            name: path.file_name().map(|n| n.to_string_lossy().into_owned()),
        }
    }

    /// `file://` + the absolute `path`, with everything but unreserved characters,
    /// sub-delimiters, `:`, `@` and `/` percent-encoded (byte for byte on Unix).
    pub fn file_uri(path: &std::path::Path) -> String {
        #[cfg(unix)]
        let bytes = std::os::unix::ffi::OsStrExt::as_bytes(path.as_os_str()).to_vec();
        #[cfg(not(unix))]
        let bytes = {
            // `\\?\C:\x` (a canonical path) is `C:\x` in a URI.
            let text = path.to_string_lossy();
            let text = text
                .strip_prefix(r"\\?\")
                .unwrap_or(&text)
                .replace('\\', "/");
            match text.starts_with('/') {
                true => text.into_bytes(),
                false => format!("/{text}").into_bytes(),
            }
        };
        let mut out = String::from("file://");
        for b in bytes {
            if b.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=:@/".contains(&b) {
                out.push(b as char);
            } else {
                out.push_str(&format!("%{b:02X}"));
            }
        }
        out
    }
}

/// The result of `roots/list`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ListRootsResult {
    /// The roots.
    pub roots: Vec<Root>,
}

/// One thing a server asks its client for: the `{method, params}` pairs of an
/// [`InputRequiredResult`] (no `jsonrpc`, no `id`), and what a legacy server sends as a
/// request. `roots/list` has no params (`{"method":"roots/list"}`; `params: {}` is read too).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum InputRequest {
    /// `elicitation/create`.
    Elicit(ElicitRequestParams),
    /// `sampling/createMessage`.
    Sample(Box<CreateMessageParams>),
    /// `roots/list`.
    Roots,
}

impl Serialize for InputRequest {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("method", self.method())?;
        match self {
            InputRequest::Elicit(p) => map.serialize_entry("params", p)?,
            InputRequest::Sample(p) => map.serialize_entry("params", p)?,
            InputRequest::Roots => {}
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for InputRequest {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        #[derive(Deserialize)]
        struct Raw {
            method: String,
            #[serde(default)]
            params: Option<Value>,
        }
        let raw = Raw::deserialize(deserializer)?;
        let params = || {
            raw.params
                .clone()
                .ok_or_else(|| D::Error::missing_field("params"))
        };
        match raw.method.as_str() {
            ELICIT_METHOD => serde_json::from_value(params()?)
                .map(InputRequest::Elicit)
                .map_err(D::Error::custom),
            SAMPLE_METHOD => serde_json::from_value(params()?)
                .map(|p| InputRequest::Sample(Box::new(p)))
                .map_err(D::Error::custom),
            ROOTS_METHOD => Ok(InputRequest::Roots),
            other => Err(D::Error::custom(format!(
                "unknown input request method `{other}`"
            ))),
        }
    }
}

impl InputRequest {
    /// The JSON-RPC method.
    pub fn method(&self) -> &'static str {
        match self {
            InputRequest::Elicit(_) => ELICIT_METHOD,
            InputRequest::Sample(_) => SAMPLE_METHOD,
            InputRequest::Roots => ROOTS_METHOD,
        }
    }

    /// The client capabilities this request needs, as a `ClientCapabilities` object (what
    /// `-32021`'s `data.requiredCapabilities` carries): form elicitation `{"elicitation":{}}`
    /// (a bare `elicitation` counts as form), URL elicitation `{"elicitation":{"url":{}}}`,
    /// sampling `{"sampling":{}}` (`{"sampling":{"tools":{}}}` with tools), roots
    /// `{"roots":{}}`.
    pub fn required_capability(&self) -> Value {
        use serde_json::json;
        match self {
            InputRequest::Elicit(p) if p.is_url() => json!({"elicitation": {"url": {}}}),
            InputRequest::Elicit(_) => json!({"elicitation": {}}),
            InputRequest::Sample(p) if p.uses_tools() => json!({"sampling": {"tools": {}}}),
            InputRequest::Sample(_) => json!({"sampling": {}}),
            InputRequest::Roots => json!({"roots": {}}),
        }
    }

    /// Whether a client with `capabilities` may be sent this request.
    pub fn allowed_by(&self, capabilities: &super::ClientCapabilities) -> bool {
        let has = |v: &Option<Value>, key: &str| {
            v.as_ref()
                .and_then(Value::as_object)
                .is_some_and(|o| o.contains_key(key))
        };
        match self {
            InputRequest::Elicit(p) if p.is_url() => has(&capabilities.elicitation, "url"),
            InputRequest::Elicit(_) => match &capabilities.elicitation {
                None => false,
                // `{}` (2025-06-18 clients) means form; one that lists modes must list it.
                Some(Value::Object(o)) => o.is_empty() || o.contains_key("form"),
                Some(_) => true,
            },
            InputRequest::Sample(p) if p.uses_tools() => has(&capabilities.sampling, "tools"),
            InputRequest::Sample(_) => capabilities.sampling.is_some(),
            InputRequest::Roots => capabilities.roots.is_some(),
        }
    }
}

/// The modern leg's answer asking for input: the client answers `inputRequests` and retries
/// the same request with `inputResponses` and `requestState`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct InputRequiredResult {
    /// What is asked, by server-chosen key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_requests: Option<indexmap_like::Ordered<InputRequest>>,
    /// The opaque state the client echoes byte-exact.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_state: Option<String>,
}

/// `notifications/message` params.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct LoggingMessageParams {
    /// The severity.
    pub level: LoggingLevel,
    /// Which part of the server logged it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logger: Option<String>,
    /// The message: any JSON.
    pub data: Value,
}

/// `logging/setLevel` params.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SetLevelParams {
    /// The least severe level the client wants.
    pub level: LoggingLevel,
}

/// An insertion-ordered string map, so `inputRequests` keeps the order a handler asked in
/// (a `BTreeMap` would sort it; the spec says nothing about order, clients show them in
/// the order received). A `Vec` of pairs: a handful of entries, so lookups stay cheap.
pub mod indexmap_like {
    use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
    use serde::ser::{Serialize, SerializeMap, Serializer};
    use std::fmt;
    use std::marker::PhantomData;

    /// Pairs in insertion order, keys unique; (de)serialized as a JSON object.
    #[derive(Debug, Clone, PartialEq)]
    pub struct Ordered<V>(pub Vec<(String, V)>);

    impl<V> Default for Ordered<V> {
        fn default() -> Self {
            Self(Vec::new())
        }
    }

    impl<V> Ordered<V> {
        /// The value under `key`.
        pub fn get(&self, key: &str) -> Option<&V> {
            self.0.iter().find(|(k, _)| k == key).map(|(_, v)| v)
        }

        /// Inserts unless `key` is present; returns whether it was inserted.
        pub fn insert_new(&mut self, key: String, value: V) -> bool {
            if self.get(&key).is_some() {
                return false;
            }
            self.0.push((key, value));
            true
        }

        /// The number of entries.
        pub fn len(&self) -> usize {
            self.0.len()
        }

        /// Whether there are none.
        pub fn is_empty(&self) -> bool {
            self.0.is_empty()
        }

        /// The keys, in order.
        pub fn keys(&self) -> impl Iterator<Item = &str> {
            self.0.iter().map(|(k, _)| k.as_str())
        }
    }

    impl<V: Serialize> Serialize for Ordered<V> {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            let mut map = serializer.serialize_map(Some(self.0.len()))?;
            for (k, v) in &self.0 {
                map.serialize_entry(k, v)?;
            }
            map.end()
        }
    }

    impl<'de, V: Deserialize<'de>> Deserialize<'de> for Ordered<V> {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            struct V2<V>(PhantomData<V>);
            impl<'de, V: Deserialize<'de>> Visitor<'de> for V2<V> {
                type Value = Ordered<V>;
                fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                    f.write_str("an object")
                }
                fn visit_map<A: MapAccess<'de>>(
                    self,
                    mut access: A,
                ) -> Result<Self::Value, A::Error> {
                    let mut out = Ordered::default();
                    while let Some((k, v)) = access.next_entry::<String, V>()? {
                        out.insert_new(k, v);
                    }
                    Ok(out)
                }
            }
            deserializer.deserialize_map(V2(PhantomData))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::ClientCapabilities;
    use serde_json::json;

    #[test]
    fn input_requests_have_the_wire_shape_of_the_spec() {
        let roots = serde_json::to_value(InputRequest::Roots).unwrap();
        assert_eq!(roots, json!({"method": "roots/list"}));
        let sample = serde_json::to_value(InputRequest::Sample(Box::new(
            CreateMessageParams::new(5).user("hi"),
        )))
        .unwrap();
        assert_eq!(sample["method"], "sampling/createMessage");
        assert_eq!(sample["params"]["maxTokens"], 5);
        let back: InputRequest = serde_json::from_value(json!({"method": "roots/list"})).unwrap();
        assert_eq!(back, InputRequest::Roots);
    }

    #[test]
    fn capabilities_gate_each_kind_as_the_typescript_sdk_does() {
        let caps = |v: Value| -> ClientCapabilities { serde_json::from_value(v).unwrap() };
        let form = InputRequest::Elicit(ElicitRequestParams::form("x", json!({})));
        let url = InputRequest::Elicit(ElicitRequestParams::url("x", "https://e", "1"));
        assert!(form.allowed_by(&caps(json!({"elicitation": {}}))));
        assert!(form.allowed_by(&caps(json!({"elicitation": {"form": {}}}))));
        assert!(!form.allowed_by(&caps(json!({"elicitation": {"url": {}}}))));
        assert!(!form.allowed_by(&caps(json!({"sampling": {}}))));
        assert!(url.allowed_by(&caps(json!({"elicitation": {"url": {}}}))));
        assert!(!url.allowed_by(&caps(json!({"elicitation": {}}))));
        let mut tools = CreateMessageParams::new(1);
        tools.tools = Some(json!([]));
        let tools = InputRequest::Sample(Box::new(tools));
        assert!(!tools.allowed_by(&caps(json!({"sampling": {}}))));
        assert_eq!(
            tools.required_capability(),
            json!({"sampling": {"tools": {}}})
        );
        assert!(InputRequest::Roots.allowed_by(&caps(json!({"roots": {"listChanged": true}}))));
    }

    #[test]
    fn sampled_text_is_read_from_one_block_or_many() {
        let one: CreateMessageResult = serde_json::from_value(json!({
            "role": "assistant", "content": {"type": "text", "text": "Paris."}, "model": "m"
        }))
        .unwrap();
        assert_eq!(one.text().as_deref(), Some("Paris."));
        let many: CreateMessageResult = serde_json::from_value(json!({
            "role": "assistant", "model": "m",
            "content": [{"type": "text", "text": "a"}, {"type": "image", "data": "", "mimeType": "image/png"}, {"type": "text", "text": "b"}]
        }))
        .unwrap();
        assert_eq!(many.text().as_deref(), Some("ab"));
    }
}
