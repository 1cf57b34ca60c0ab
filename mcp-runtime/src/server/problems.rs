//! What `ServerBuilder::build` reports: every problem of a server definition at once.

use super::registry::Registry;
use super::{RegistrationError, ToolRegistry};

/// What is wrong with task settings, if anything.
pub(super) fn task_problem(options: &crate::task::TaskOptions) -> Option<String> {
    if options.ttl.is_zero() || options.ttl > crate::task::MAX_TASK_TTL {
        return Some(format!(
            "a task TTL of {:?} cannot be honoured: it must be above zero and at most {} hours",
            options.ttl,
            crate::task::MAX_TASK_TTL.as_secs() / 3600
        ));
    }
    if options.poll_interval.is_zero() || options.store_poll.is_zero() {
        return Some("task polling intervals must be above zero".into());
    }
    None
}

/// Layers configured for tool names that no registered tool has (a typo would otherwise
/// leave a tool without the limit meant for it), sorted by name.
pub(super) fn unknown_tool_layers(tools: &ToolRegistry) -> Vec<RegistrationError> {
    let mut unknown: Vec<&String> = tools
        .policies()
        .tool_layers
        .keys()
        .filter(|name| tools.definition(name).is_none())
        .collect();
    unknown.sort();
    unknown
        .into_iter()
        .map(|name| RegistrationError::UnknownTool { name: name.clone() })
        .collect()
}

/// Tools whose MCP Apps view no resource (or template) of the server serves, in list order:
/// a host would show a broken frame. Checked at `build()` before anything is mounted, so
/// only the server's own tools; tools registered later at run time are not.
pub(super) fn unserved_views(registry: &Registry) -> Vec<RegistrationError> {
    registry
        .tools
        .snapshot()
        .iter()
        .filter_map(|tool| {
            let uri = &tool.app.as_ref()?.resource_uri;
            registry
                .resources
                .route(uri)
                .is_none()
                .then(|| RegistrationError::UnservedView {
                    tool: tool.name.to_string(),
                    uri: uri.clone(),
                })
        })
        .collect()
}

/// Everything wrong with a server definition.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the server definition has {} problem(s): {}", errors.len(), list(errors))]
pub struct BuildError {
    /// Each problem.
    pub errors: Vec<RegistrationError>,
}

fn list(errors: &[RegistrationError]) -> String {
    errors
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("; ")
}
