//! Every method a client sends and every notification either side sends, each named once,
//! with what the protocol says of it: the eras it exists in, the params field `Mcp-Name`
//! mirrors, what the request acts on, and whether it changes a legacy session's state.
//!
//! These columns are what the rest of the toolkit reads instead of comparing names: the
//! server's method table pairs each request with its handler and what the server must offer
//! for it; the HTTP transport and the client read [`MethodSpec::name_field`] for the
//! `Mcp-Name` header; telemetry names a request's item by [`MethodSpec::target`]; instances
//! that share legacy sessions repeat the messages whose [`MethodSpec::changes_session`] is
//! set. A new method is a constant here, a row in [`ALL`], and (for a request the server
//! serves) a row in the server's table. The server's own requests to the client
//! (`elicitation/create`, `sampling/createMessage`, `roots/list`) are
//! [`input`](super::input)'s.
//!
//! ```
//! use mcp_runtime::protocol::methods::{self, Target};
//!
//! let call = methods::lookup("tools/call").unwrap();
//! assert_eq!(call.name_field, Some("name"));
//! assert_eq!(call.target, Some(Target::Tool));
//! assert!(methods::RESOURCES_SUBSCRIBE.changes_session);
//! assert!(methods::lookup("no/such").is_none());
//! ```

use super::version::Era;

/// The eras a method exists in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Eras {
    /// Only up to 2025-11-25 (the handshake era).
    Legacy,
    /// Only in 2026-07-28.
    Modern,
    /// Both.
    Both,
}

impl Eras {
    /// Whether a request of `era` may use the method.
    pub fn includes(self, era: Era) -> bool {
        matches!(
            (self, era),
            (Eras::Both, _) | (Eras::Legacy, Era::Legacy) | (Eras::Modern, Era::Modern)
        )
    }
}

/// The item a request acts on, which telemetry names it by (`gen_ai.tool.name`,
/// `gen_ai.prompt.name`, `mcp.resource.uri`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Target {
    /// A tool, by `params.name` (`tools/call`).
    Tool,
    /// A prompt, by `params.name` (`prompts/get`).
    Prompt,
    /// A resource, by `params.uri` (`resources/read`).
    Resource,
}

/// One method and what the protocol says of it.
#[derive(Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct MethodSpec {
    /// The JSON-RPC method.
    pub name: &'static str,
    /// A notification (no id, no answer) rather than a request.
    pub notification: bool,
    /// The eras it exists in.
    pub eras: Eras,
    /// The params field the `Mcp-Name` header mirrors (2026-07-28 streamable-http §Standard
    /// Request Headers; the tasks extension's routing headers).
    pub name_field: Option<&'static str>,
    /// What the request acts on.
    pub target: Option<Target>,
    /// Whether it changes the state of a legacy session (the end of the handshake, the log
    /// level, resource subscriptions): instances sharing sessions repeat it.
    pub changes_session: bool,
}

impl MethodSpec {
    const fn request(name: &'static str, eras: Eras) -> Self {
        MethodSpec {
            name,
            notification: false,
            eras,
            name_field: None,
            target: None,
            changes_session: false,
        }
    }

    const fn notification(name: &'static str, eras: Eras) -> Self {
        MethodSpec {
            notification: true,
            ..MethodSpec::request(name, eras)
        }
    }

    const fn acting_on(self, target: Target, field: &'static str) -> Self {
        MethodSpec {
            target: Some(target),
            name_field: Some(field),
            ..self
        }
    }

    const fn named_by(self, field: &'static str) -> Self {
        MethodSpec {
            name_field: Some(field),
            ..self
        }
    }

    const fn changing_session(self) -> Self {
        MethodSpec {
            changes_session: true,
            ..self
        }
    }
}

/// `initialize`: the legacy handshake.
pub const INITIALIZE: &MethodSpec = &MethodSpec::request("initialize", Eras::Legacy);
/// `ping`.
pub const PING: &MethodSpec = &MethodSpec::request("ping", Eras::Legacy);
/// `server/discover`: the modern era's discovery.
pub const SERVER_DISCOVER: &MethodSpec = &MethodSpec::request("server/discover", Eras::Modern);
/// `logging/setLevel`.
pub const LOGGING_SET_LEVEL: &MethodSpec =
    &MethodSpec::request("logging/setLevel", Eras::Legacy).changing_session();
/// `tools/list`.
pub const TOOLS_LIST: &MethodSpec = &MethodSpec::request("tools/list", Eras::Both);
/// `tools/call`.
pub const TOOLS_CALL: &MethodSpec =
    &MethodSpec::request("tools/call", Eras::Both).acting_on(Target::Tool, "name");
/// `resources/list`.
pub const RESOURCES_LIST: &MethodSpec = &MethodSpec::request("resources/list", Eras::Both);
/// `resources/templates/list`.
pub const RESOURCES_TEMPLATES_LIST: &MethodSpec =
    &MethodSpec::request("resources/templates/list", Eras::Both);
/// `resources/read`.
pub const RESOURCES_READ: &MethodSpec =
    &MethodSpec::request("resources/read", Eras::Both).acting_on(Target::Resource, "uri");
/// `resources/subscribe`.
pub const RESOURCES_SUBSCRIBE: &MethodSpec =
    &MethodSpec::request("resources/subscribe", Eras::Legacy).changing_session();
/// `resources/unsubscribe`.
pub const RESOURCES_UNSUBSCRIBE: &MethodSpec =
    &MethodSpec::request("resources/unsubscribe", Eras::Legacy).changing_session();
/// `resources/directory/read` (the skills extension).
pub const RESOURCES_DIRECTORY_READ: &MethodSpec =
    &MethodSpec::request("resources/directory/read", Eras::Both);
/// `prompts/list`.
pub const PROMPTS_LIST: &MethodSpec = &MethodSpec::request("prompts/list", Eras::Both);
/// `prompts/get`.
pub const PROMPTS_GET: &MethodSpec =
    &MethodSpec::request("prompts/get", Eras::Both).acting_on(Target::Prompt, "name");
/// `completion/complete`.
pub const COMPLETION_COMPLETE: &MethodSpec =
    &MethodSpec::request("completion/complete", Eras::Both);
/// `skills/list` (the skills extension).
pub const SKILLS_LIST: &MethodSpec = &MethodSpec::request("skills/list", Eras::Both);
/// `skills/get` (the skills extension).
pub const SKILLS_GET: &MethodSpec = &MethodSpec::request("skills/get", Eras::Both);
/// `subscriptions/listen`: the modern era's stream of notifications.
pub const SUBSCRIPTIONS_LISTEN: &MethodSpec =
    &MethodSpec::request("subscriptions/listen", Eras::Modern);
/// `tasks/get` (the tasks extension).
pub const TASKS_GET: &MethodSpec =
    &MethodSpec::request("tasks/get", Eras::Modern).named_by("taskId");
/// `tasks/update` (the tasks extension).
pub const TASKS_UPDATE: &MethodSpec =
    &MethodSpec::request("tasks/update", Eras::Modern).named_by("taskId");
/// `tasks/cancel` (the tasks extension).
pub const TASKS_CANCEL: &MethodSpec =
    &MethodSpec::request("tasks/cancel", Eras::Modern).named_by("taskId");

/// `notifications/initialized`: the end of the legacy handshake.
pub const INITIALIZED: &MethodSpec =
    &MethodSpec::notification("notifications/initialized", Eras::Legacy).changing_session();
/// `notifications/cancelled`, either way.
pub const CANCELLED: &MethodSpec = &MethodSpec::notification("notifications/cancelled", Eras::Both);
/// `notifications/progress`.
pub const PROGRESS: &MethodSpec = &MethodSpec::notification("notifications/progress", Eras::Both);
/// `notifications/message`: a log message to the client.
pub const MESSAGE: &MethodSpec = &MethodSpec::notification("notifications/message", Eras::Both);
/// `notifications/tools/list_changed`.
pub const TOOLS_LIST_CHANGED: &MethodSpec =
    &MethodSpec::notification("notifications/tools/list_changed", Eras::Both);
/// `notifications/resources/list_changed`.
pub const RESOURCES_LIST_CHANGED: &MethodSpec =
    &MethodSpec::notification("notifications/resources/list_changed", Eras::Both);
/// `notifications/prompts/list_changed`.
pub const PROMPTS_LIST_CHANGED: &MethodSpec =
    &MethodSpec::notification("notifications/prompts/list_changed", Eras::Both);
/// `notifications/resources/updated`.
pub const RESOURCES_UPDATED: &MethodSpec =
    &MethodSpec::notification("notifications/resources/updated", Eras::Both);
/// `notifications/subscriptions/acknowledged`: the first message of a listen stream.
pub const SUBSCRIPTIONS_ACKNOWLEDGED: &MethodSpec =
    &MethodSpec::notification("notifications/subscriptions/acknowledged", Eras::Modern);

/// Every method above, requests first.
pub static ALL: &[&MethodSpec] = &[
    INITIALIZE,
    PING,
    SERVER_DISCOVER,
    LOGGING_SET_LEVEL,
    TOOLS_LIST,
    TOOLS_CALL,
    RESOURCES_LIST,
    RESOURCES_TEMPLATES_LIST,
    RESOURCES_READ,
    RESOURCES_SUBSCRIBE,
    RESOURCES_UNSUBSCRIBE,
    RESOURCES_DIRECTORY_READ,
    PROMPTS_LIST,
    PROMPTS_GET,
    COMPLETION_COMPLETE,
    SKILLS_LIST,
    SKILLS_GET,
    SUBSCRIPTIONS_LISTEN,
    TASKS_GET,
    TASKS_UPDATE,
    TASKS_CANCEL,
    INITIALIZED,
    CANCELLED,
    PROGRESS,
    MESSAGE,
    TOOLS_LIST_CHANGED,
    RESOURCES_LIST_CHANGED,
    PROMPTS_LIST_CHANGED,
    RESOURCES_UPDATED,
    SUBSCRIPTIONS_ACKNOWLEDGED,
];

/// The method named `name`, if it is one of [`ALL`].
pub fn lookup(name: &str) -> Option<&'static MethodSpec> {
    ALL.iter().copied().find(|m| m.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_method_is_listed_once() {
        let mut names: Vec<&str> = ALL.iter().map(|m| m.name).collect();
        names.sort_unstable();
        let before = names.len();
        names.dedup();
        assert_eq!(names.len(), before, "a name twice in ALL");
        assert!(
            ALL.iter()
                .all(|m| m.notification == m.name.starts_with("notifications/"))
        );
    }
}
