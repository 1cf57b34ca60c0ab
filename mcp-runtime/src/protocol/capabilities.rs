//! Who is talking and what each side can do: `Implementation` (`clientInfo`,
//! `serverInfo`) and the capability objects both eras exchange.

use super::common::{Icon, JsonObject};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The name and version of an MCP implementation (`serverInfo`, `clientInfo`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Implementation {
    /// Programmatic name.
    pub name: String,
    /// Version string.
    pub version: String,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Its website.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub website_url: Option<String>,
    /// Icons.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
}

impl Implementation {
    /// An implementation with a name and a version.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            version: version.into(),
            title: None,
            description: None,
            website_url: None,
            icons: None,
        }
    }
}

/// What a client can do. Kept as raw objects: the server only checks presence.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ClientCapabilities {
    /// `roots` support.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub roots: Option<Value>,
    /// `sampling` support.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampling: Option<Value>,
    /// `elicitation` support.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elicitation: Option<Value>,
    /// Experimental capabilities.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub experimental: Option<JsonObject>,
    /// Extensions (`io.modelcontextprotocol/tasks`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extensions: Option<JsonObject>,
}

/// The most a server keeps of what one client said about itself in `initialize`
/// (capabilities, and the same again for its `clientInfo`), in bytes of JSON. A session
/// lives for hours; without a bound each could keep megabytes (up to the body cap).
pub const MAX_RETAINED_CLIENT_BYTES: usize = 16 * 1024;

/// Bytes of JSON `value` serializes to, without building it.
fn json_len<T: Serialize>(value: &T) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0 += bytes.len();
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    let _ = serde_json::to_writer(&mut count, value);
    count.0
}

/// `value` reduced to its keys (each with `{}`), or `{}` when it is not an object: what a
/// capability check reads (`elicitation.url`, `sampling.tools`).
fn keys_only(value: Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.into_iter()
                .take(32)
                .map(|(k, _)| {
                    (
                        k.chars().take(64).collect(),
                        Value::Object(JsonObject::new()),
                    )
                })
                .collect(),
        ),
        _ => Value::Object(JsonObject::new()),
    }
}

impl ClientCapabilities {
    /// The capabilities as a server keeps them: unchanged within `budget` bytes of JSON;
    /// past it, `experimental` and `extensions` are dropped, and then `roots`, `sampling`
    /// and `elicitation` are reduced to their keys, which is all a capability check reads.
    pub fn retained(mut self, budget: usize) -> Self {
        if json_len(&self) <= budget {
            return self;
        }
        self.experimental = None;
        self.extensions = None;
        if json_len(&self) <= budget {
            return self;
        }
        self.roots = self.roots.map(keys_only);
        self.sampling = self.sampling.map(keys_only);
        self.elicitation = self.elicitation.map(keys_only);
        self
    }
}

impl Implementation {
    /// The client's description as a server keeps it: unchanged within `budget` bytes of
    /// JSON; past it, only `name` and `version`, each cut to 256 bytes.
    pub fn retained(self, budget: usize) -> Self {
        if json_len(&self) <= budget {
            return self;
        }
        let cut = |mut text: String| {
            if text.len() > 256 {
                let mut end = 256;
                while !text.is_char_boundary(end) {
                    end -= 1;
                }
                text.truncate(end);
            }
            text
        };
        Self::new(cut(self.name), cut(self.version))
    }
}

/// What this server offers.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ServerCapabilities {
    /// Tools, when the server has any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<ToolsCapability>,
    /// Resources, when the server has any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources: Option<ResourcesCapability>,
    /// Prompts, when the server has any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompts: Option<PromptsCapability>,
    /// `completion/complete`, when the server completes prompt arguments or template
    /// variables.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completions: Option<JsonObject>,
    /// Logging (legacy `logging/setLevel`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logging: Option<JsonObject>,
    /// Experimental capabilities.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub experimental: Option<JsonObject>,
    /// Extensions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extensions: Option<JsonObject>,
}

/// The `tools` capability.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ToolsCapability {
    /// Whether the server announces changes of its tool list.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<bool>,
}

/// The `resources` capability.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ResourcesCapability {
    /// Whether clients may subscribe to a resource's updates (legacy
    /// `resources/subscribe`; modern `resourceSubscriptions` on `subscriptions/listen`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subscribe: Option<bool>,
    /// Whether the server announces changes of its resource list.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<bool>,
}

/// The `prompts` capability.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct PromptsCapability {
    /// Whether the server announces changes of its prompt list.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<bool>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn what_a_session_keeps_of_its_client_is_bounded() {
        let small: ClientCapabilities =
            serde_json::from_value(json!({"elicitation": {"form": {}, "url": {}}, "roots": {}}))
                .unwrap();
        assert_eq!(
            small.clone().retained(1024),
            small,
            "within the budget: unchanged"
        );

        let padding = "x".repeat(1 << 20);
        let huge: ClientCapabilities = serde_json::from_value(json!({
            "elicitation": {"url": {"note": padding}, "form": {}},
            "sampling": {"tools": {}, "blob": padding},
            "experimental": {"big": padding},
            "extensions": {"io.example/x": padding},
        }))
        .unwrap();
        let kept = huge.retained(MAX_RETAINED_CLIENT_BYTES);
        assert!(json_len(&kept) <= MAX_RETAINED_CLIENT_BYTES);
        assert_eq!(kept.experimental, None);
        assert_eq!(kept.extensions, None);
        // What capability checks read survives.
        assert_eq!(kept.elicitation, Some(json!({"url": {}, "form": {}})));
        assert_eq!(kept.sampling, Some(json!({"tools": {}, "blob": {}})));

        let mut info = Implementation::new("n".repeat(10_000), "1.0");
        info.description = Some(padding);
        let kept = info.retained(MAX_RETAINED_CLIENT_BYTES);
        assert_eq!((kept.name.len(), kept.version.as_str()), (256, "1.0"));
        assert_eq!(kept.description, None);
    }
}
