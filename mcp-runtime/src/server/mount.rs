//! Servers mounted into another (`ServerBuilder::mount`, `ServerBuilder::merge`): one
//! endpoint serving the items of several servers built in this process.
//!
//! # Decisions (work in progress on this branch: tools, prompts, resources and templates
//! are mounted)
//!
//! - **Resources**: a resource is listed at its mounted URI and read, through its own
//!   stack, as the URI its server knows (a template's match is turned back with
//!   `unmount_uri`); the contents come back with their URIs in the mounted form (the
//!   stack's `remap`, set for mounted items only: an unmounted read pays nothing).
//!
//! - **Names** are namespaced as FastMCP does it: a tool or prompt `name` of a server mounted
//!   as `prefix` is `prefix_name`; a resource `scheme://rest` is `scheme://prefix/rest` (the
//!   prefix is the URI's first segment after `://`, so the rewriting is reversible and a
//!   template stays a template). An empty prefix (`ServerBuilder::merge`) keeps names.
//!   A prefix must itself be a valid tool name, so every mounted name is one too.
//! - **Clashes are build errors** naming the mount ([`RegistrationError::MountClash`]):
//!   nothing is shadowed silently, whatever the order of `mount` calls.
//! - **Each mounted server keeps its own policies and state**: its items are served by the
//!   stacks it built (its validation, timeouts, rate limits, cache, layers and audit), with
//!   its own state ([`State`](crate::context::State)) and resources
//!   ([`RequestContext::read_resource`](crate::context::RequestContext::read_resource)),
//!   over the request as it came (its client, progress, asks, cancellation and caller).
//!   No JSON is made again between the two: a mounted call costs what a call of the mounted
//!   server would, plus one pointer.
//!
//! Next, in this order:
//! 1. **Subscriptions**: `updated` on a mounted server's registry forwarded with the URI
//!    rewritten.
//! 2. (Completions need nothing: a prompt's or template's `complete` takes no context, so
//!    a mounted one completes exactly as on its own server.)
//! 3. **List changes**: the parent subscribes to each mounted server's change feed and
//!    re-syncs that mount's items (remove what went, insert what came: one snapshot swap per
//!    primitive), so its clients hear `list_changed`; a clash then is logged and the item
//!    left out (there is no build to fail).
//! 4. **Proxy** (out of process) reuses the same naming: an `Upstream` (stdio child with
//!    restart and backoff, or Streamable HTTP in either era) becomes a source whose items
//!    are registered like mounted ones, each calling through a client session; see the
//!    issue's list of what must pass through (progress, cancellation, logs, asks — MRTR in
//!    the modern era —, tasks, `_meta`).

use super::Server;
use super::registry::{Primitive, RegistrationError};
use crate::context::Home;
use std::sync::Arc;

/// A server to mount, and under what prefix.
#[derive(Debug)]
pub(super) struct Mount {
    prefix: String,
    server: Server,
}

impl Mount {
    /// `server` under `prefix`; a prefix that is not a valid tool name is refused (every
    /// mounted name starts with it).
    pub(super) fn new(prefix: String, server: Server) -> Result<Self, RegistrationError> {
        if !prefix.is_empty()
            && let Some(reason) = crate::tool::tool_name_problem(&prefix)
        {
            return Err(RegistrationError::InvalidName {
                name: prefix,
                reason,
            });
        }
        Ok(Self { prefix, server })
    }
}

/// `name` under `prefix`.
fn prefixed(prefix: &str, name: &str) -> String {
    if prefix.is_empty() {
        name.to_owned()
    } else {
        format!("{prefix}_{name}")
    }
}

/// `uri` under `prefix`: its first segment after `scheme://` (or `scheme:`).
pub(super) fn mount_uri(prefix: &str, uri: &str) -> String {
    if prefix.is_empty() {
        return uri.to_owned();
    }
    let (scheme, rest) = match uri.find("://") {
        Some(i) => (&uri[..i + 3], &uri[i + 3..]),
        None => match uri.find(':') {
            Some(i) => (&uri[..=i], &uri[i + 1..]),
            None => ("", uri),
        },
    };
    format!("{scheme}{prefix}/{rest}")
}

/// The URI [`mount_uri`] made `uri` from, if it made it.
pub(super) fn unmount_uri(prefix: &str, uri: &str) -> Option<String> {
    if prefix.is_empty() {
        return Some(uri.to_owned());
    }
    let at = match uri.find("://") {
        Some(i) => i + 3,
        None => uri.find(':').map_or(0, |i| i + 1),
    };
    let rest = uri[at..].strip_prefix(prefix)?.strip_prefix('/')?;
    Some(format!("{}{rest}", &uri[..at]))
}

/// Adds the mounted servers' items; a clash is reported naming the mount.
pub(super) fn mount_all(
    mounts: Vec<Mount>,
    tools: &super::ToolRegistry,
    prompts: &super::PromptRegistry,
    resources: &super::ResourceRegistry,
    errors: &mut Vec<RegistrationError>,
) {
    for Mount { prefix, server } in mounts {
        let home = Arc::new(Home {
            extensions: server.inner.extensions.clone(),
            resources: Some(server.inner.clone()),
        });
        let mounted = server
            .tools()
            .snapshot()
            .iter()
            .map(|tool| tool.mounted(&prefixed(&prefix, &tool.name), &home))
            .collect();
        let clash = |e| match e {
            RegistrationError::Duplicate { name } => RegistrationError::MountClash {
                primitive: Primitive::Tools,
                name,
                prefix: prefix.clone(),
            },
            RegistrationError::DuplicatePrompt { name } => RegistrationError::MountClash {
                primitive: Primitive::Prompts,
                name,
                prefix: prefix.clone(),
            },
            RegistrationError::DuplicateResource { uri } => RegistrationError::MountClash {
                primitive: Primitive::Resources,
                name: uri,
                prefix: prefix.clone(),
            },
            other => other,
        };
        if let Err(found) = tools.insert_mounted(mounted) {
            errors.extend(found.into_iter().map(clash));
        }
        let mounted = server
            .prompts()
            .snapshot()
            .iter()
            .map(|prompt| prompt.mounted(&prefixed(&prefix, &prompt.name), &home))
            .collect();
        if let Err(found) = prompts.insert_mounted(mounted) {
            errors.extend(found.into_iter().map(clash));
        }
        let shared: Arc<str> = prefix.as_str().into();
        let (outward, inward) = (shared.clone(), shared.clone());
        let remap: crate::pipeline::Remap = Arc::new(move |out| {
            if let crate::pipeline::Outcome::Read(result) = out {
                for contents in &mut result.contents {
                    let uri = match contents {
                        crate::protocol::ResourceContents::Text(t) => &mut t.uri,
                        crate::protocol::ResourceContents::Blob(b) => &mut b.uri,
                    };
                    *uri = mount_uri(&outward, uri);
                }
            }
        });
        let found = resources.insert_mounted(
            server.resources(),
            &|uri| mount_uri(&prefix, uri),
            Arc::new(move |uri| unmount_uri(&inward, uri)),
            &home,
            remap,
        );
        if let Err(found) = found {
            errors.extend(found.into_iter().map(clash));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::{Client, EraMode};
    use crate::protocol::ToolDefinition;
    use crate::tool::tool_fn;
    use serde_json::json;

    /// A server whose `whoami` tool and `greeting` prompt answer with the text its own
    /// state holds.
    fn named(state: &'static str) -> Server {
        Server::builder(state, "1.0.0")
            .state(state.to_owned())
            .resource(crate::resource::resource_fn(
                crate::protocol::ResourceDefinition::new("data://users", "users"),
                |cx| async move { cx.extensions().get::<String>().cloned().unwrap_or_default() },
            ))
            .resource_template(crate::resource::template_fn(
                crate::protocol::ResourceTemplateDefinition::new("data://items/{id}", "items"),
                |vars, _cx| async move { format!("item {}", vars.get("id").unwrap_or("?")) },
            ))
            .prompt(crate::prompt::prompt_fn(
                crate::protocol::PromptDefinition::new("greeting", "Greets from its state."),
                |_, cx| async move {
                    format!(
                        "hello from {}",
                        cx.extensions().get::<String>().cloned().unwrap_or_default()
                    )
                },
            ))
            .tool(tool_fn(
                ToolDefinition::new(
                    "whoami",
                    "Says whose state it sees.",
                    json!({"type": "object"}),
                ),
                |_, cx| async move {
                    cx.extensions()
                        .get::<String>()
                        .cloned()
                        .unwrap_or_else(|| "no state".into())
                },
            ))
            .build()
            .unwrap()
    }

    #[tokio::test]
    async fn mounted_tools_are_prefixed_and_run_with_their_own_servers_state() {
        let all = Server::builder("all", "1.0.0")
            .state("the parent's".to_owned())
            .mount("one", named("one's"))
            .mount("two", named("two's"))
            .build()
            .unwrap();
        assert_eq!(all.tools().names(), ["one_whoami", "two_whoami"]);
        assert_eq!(all.prompts().names(), ["one_greeting", "two_greeting"]);
        assert_eq!(
            all.resources().uris(),
            ["data://one/users", "data://two/users"]
        );
        assert_eq!(
            all.resources().templates(),
            ["data://one/items/{id}", "data://two/items/{id}"]
        );
        for era in [EraMode::Legacy, EraMode::Modern] {
            let client = Client::memory(&all);
            client.connect(era).await.unwrap();
            for (tool, state) in [("one_whoami", "one's"), ("two_whoami", "two's")] {
                let result = client.call_tool(tool, json!({})).await.unwrap();
                assert_eq!(result.first_text(), Some(state), "{tool} in {era:?}");
            }
            let read = client.read_resource("data://two/users").await.unwrap();
            let text = serde_json::to_value(&read.contents[0]).unwrap();
            assert_eq!(text["uri"], "data://two/users", "{era:?}");
            assert_eq!(text["text"], "two's", "{era:?}");
            let read = client.read_resource("data://one/items/7").await.unwrap();
            let text = serde_json::to_value(&read.contents[0]).unwrap();
            assert_eq!(text["uri"], "data://one/items/7", "{era:?}");
            assert_eq!(text["text"], "item 7", "{era:?}");
            let got = client
                .get_prompt("two_greeting", &Default::default())
                .await
                .unwrap();
            let text = serde_json::to_value(&got.messages[0].content).unwrap();
            assert_eq!(text["text"], "hello from two's", "{era:?}");
        }
    }

    #[test]
    fn a_clash_is_a_build_error_naming_the_mount_and_merge_keeps_names() {
        let merged = Server::builder("all", "1.0.0")
            .merge(named("one's"))
            .build()
            .unwrap();
        assert_eq!(merged.tools().names(), ["whoami"]);
        let clash = Server::builder("all", "1.0.0")
            .merge(named("one's"))
            .mount("", named("two's"))
            .build()
            .unwrap_err();
        assert_eq!(
            clash.errors,
            [
                RegistrationError::MountClash {
                    primitive: Primitive::Tools,
                    name: "whoami".into(),
                    prefix: String::new(),
                },
                RegistrationError::MountClash {
                    primitive: Primitive::Prompts,
                    name: "greeting".into(),
                    prefix: String::new(),
                },
                RegistrationError::MountClash {
                    primitive: Primitive::Resources,
                    name: "data://users".into(),
                    prefix: String::new(),
                },
                RegistrationError::MountClash {
                    primitive: Primitive::Resources,
                    name: "data://items/{id}".into(),
                    prefix: String::new(),
                },
            ]
        );
        assert!(clash.to_string().contains("mounted as \"\""), "{clash}");
        let bad = Server::builder("all", "1.0.0")
            .mount("not a name", named("one's"))
            .build()
            .unwrap_err();
        assert!(
            matches!(&bad.errors[..], [RegistrationError::InvalidName { name, .. }] if name == "not a name"),
            "{bad}"
        );
    }

    #[test]
    fn uris_are_mounted_reversibly() {
        for (uri, mounted) in [
            ("data://users", "data://p/users"),
            ("file:///etc/hosts", "file://p//etc/hosts"),
            ("urn:isbn:1", "urn:p/isbn:1"),
            ("plain", "p/plain"),
            ("data://items/{id}", "data://p/items/{id}"),
        ] {
            assert_eq!(mount_uri("p", uri), mounted);
            assert_eq!(unmount_uri("p", mounted).as_deref(), Some(uri));
        }
        assert_eq!(unmount_uri("p", "data://q/users"), None);
        assert_eq!(mount_uri("", "data://x"), "data://x");
    }
}
