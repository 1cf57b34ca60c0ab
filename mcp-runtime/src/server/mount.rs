//! Servers mounted into another (`ServerBuilder::mount`, `ServerBuilder::merge`): one
//! endpoint serving the items of several servers built in this process.
//!
//! # Decisions
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
//! - **Resources** are listed at their mounted URIs and read, through their own stacks, as
//!   the URIs their server knows (a template's match is turned back with `unmount_uri`);
//!   the contents come back with their URIs in the mounted form (the stack's `remap`, set
//!   for mounted items only: an unmounted read pays nothing).
//! - **Skills** (SEP-2640) of a mounted server are this server's: their entries (the
//!   `SKILL.md` URI, the manifest's file URIs) mounted like resources' URIs, listed by this
//!   server's `skills/list`, `skills/get` and `resources/directory/read`, their files read
//!   as the mounted server's resources; a mounted server that declares the extension makes
//!   this one declare it. Likewise a mounted server that offers tasks makes this one offer
//!   them (its tools' tasks run in this server's task store).
//! - **Completions** need nothing: a prompt's or template's `complete` takes no context, so
//!   a mounted one completes exactly as on its own server.
//! - **Changes after the build** follow: the mounted server's change feed tells the server
//!   it is mounted into, synchronously, which re-syncs that mount's items of the changed
//!   kind (one swap, so its clients hear one `list_changed`); an item whose name another
//!   source holds by then is left out and logged (there is no build to fail), and a kind
//!   this server does not advertise is not served (logged; `ServerBuilder::advertise`
//!   makes room). `ResourceRegistry::updated` on the mounted server is told to this
//!   server's subscribers with the mounted URI. The mounted server holds this one weakly.
//!   Two mounts re-syncing at the same instant with the same new name: the later swap
//!   fails (logged) and that mount keeps its previous items until its next change.

use super::registry::resources::{MountedAs, MountedUris};
use super::registry::{Change, Primitive, RegistrationError};
use super::{Server, ServerInner};
use crate::context::Home;
use std::sync::{Arc, Mutex, Weak};

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

/// A server mounted into another, as that one keeps it: what it added, to keep in step.
pub(super) struct Mounted {
    prefix: Arc<str>,
    server: Server,
    home: Arc<Home>,
    resources_as: MountedAs,
    /// The keys of the items it added, per catalog.
    held: Mutex<Held>,
}

impl std::fmt::Debug for Mounted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Mounted")
            .field("prefix", &self.prefix)
            .field("held", &self.held)
            .finish_non_exhaustive()
    }
}

#[derive(Debug, Default)]
struct Held {
    tools: Vec<String>,
    prompts: Vec<String>,
    resources: MountedUris,
    skills: Vec<String>,
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

impl Mounted {
    /// Whether the mounted server offers tasks.
    pub(super) fn offers_tasks(&self) -> bool {
        self.server.inner.offer.tasks
    }

    /// Whether the mounted server declares the skills extension.
    pub(super) fn offers_skills(&self) -> bool {
        self.server.inner.offer.skills
    }

    fn new(Mount { prefix, server }: Mount) -> Self {
        let prefix: Arc<str> = prefix.into();
        let home = Arc::new(Home {
            extensions: server.inner.extensions.clone(),
            resources: Some(server.inner.clone()),
        });
        let (outward, inward, mount) = (prefix.clone(), prefix.clone(), prefix.clone());
        let resources_as = MountedAs {
            mount: Box::new(move |uri| mount_uri(&mount, uri)),
            unmount: Arc::new(move |uri| unmount_uri(&inward, uri)),
            home: home.clone(),
            remap: Arc::new(move |out| {
                if let crate::pipeline::Outcome::Read(result) = out {
                    for contents in &mut result.contents {
                        let uri = match contents {
                            crate::protocol::ResourceContents::Text(t) => &mut t.uri,
                            crate::protocol::ResourceContents::Blob(b) => &mut b.uri,
                        };
                        *uri = mount_uri(&outward, uri);
                    }
                }
            }),
        };
        Self {
            prefix,
            server,
            home,
            resources_as,
            held: Mutex::default(),
        }
    }

    /// Makes `into`'s copy of this server's `primitive` items what they are now. With
    /// `leave_out_clashes` (keeping in step after the build) an item whose name another
    /// source took is left out; at the build every clash is an error. Returns the problems,
    /// each naming this mount.
    fn sync(
        &self,
        primitive: Primitive,
        into: &super::registry::Registry,
        leave_out_clashes: bool,
    ) -> Vec<RegistrationError> {
        let mut held = self.held.lock().unwrap_or_else(|p| p.into_inner());
        let problems = match primitive {
            Primitive::Tools => {
                let tools = self
                    .server
                    .tools()
                    .snapshot()
                    .iter()
                    .map(|tool| {
                        let name = prefixed(&self.prefix, &tool.name);
                        tool.mounted(&name, &|uri| mount_uri(&self.prefix, uri), &self.home)
                    })
                    .collect();
                into.tools
                    .swap_mounted(&mut held.tools, tools, leave_out_clashes)
            }
            Primitive::Prompts => {
                let prompts = self
                    .server
                    .prompts()
                    .snapshot()
                    .iter()
                    .map(|p| p.mounted(&prefixed(&self.prefix, &p.name), &self.home))
                    .collect();
                into.prompts
                    .swap_mounted(&mut held.prompts, prompts, leave_out_clashes)
            }
            Primitive::Resources => {
                // Skills are resources too (their files are read as the mounted server's
                // resources, at the mounted URIs); their entries go to this server's
                // skills, so `skills/list`, `skills/get` and `resources/directory/read`
                // answer for them.
                let prefix = &self.prefix;
                let skills = self
                    .server
                    .inner
                    .registry
                    .skills
                    .mounted(&|uri| mount_uri(prefix, uri));
                let mut problems =
                    into.skills
                        .swap_mounted(&mut held.skills, skills, leave_out_clashes);
                problems.extend(into.resources.swap_mounted(
                    self.server.resources(),
                    &mut held.resources,
                    &self.resources_as,
                    leave_out_clashes,
                ));
                problems
            }
        };
        problems.into_iter().map(|e| self.clash(e)).collect()
    }

    /// `problem`, naming this mount when it is a clash.
    fn clash(&self, problem: RegistrationError) -> RegistrationError {
        let (primitive, name) = match problem {
            RegistrationError::Duplicate { name } => (Primitive::Tools, name),
            RegistrationError::DuplicatePrompt { name } => (Primitive::Prompts, name),
            RegistrationError::DuplicateResource { uri } => (Primitive::Resources, uri),
            other => return other,
        };
        RegistrationError::MountClash {
            primitive,
            name,
            prefix: self.prefix.to_string(),
        }
    }
}

/// Adds the mounted servers' items (every clash an error naming the mount), and returns
/// them to be kept in step once the server is built ([`follow`]).
pub(super) fn mount_all(
    mounts: Vec<Mount>,
    into: &super::registry::Registry,
    errors: &mut Vec<RegistrationError>,
) -> Vec<Mounted> {
    mounts
        .into_iter()
        .map(|mount| {
            let mounted = Mounted::new(mount);
            for primitive in Primitive::ALL {
                errors.extend(mounted.sync(primitive, into, false));
            }
            mounted
        })
        .collect()
}

/// Keeps `server`'s copies of its mounted servers' items in step: a change to a mounted
/// server's list re-syncs that mount's items of that kind (one swap, one `list_changed`
/// to this server's clients), and a mounted resource's update is told with its mounted
/// URI. The mounted servers hold `server` weakly: mounting makes no cycle.
pub(super) fn follow(server: &Arc<ServerInner>) {
    for (index, mounted) in server.mounts.iter().enumerate() {
        let into: Weak<ServerInner> = Arc::downgrade(server);
        mounted
            .server
            .inner
            .registry
            .feed()
            .follow(Arc::new(move |change| {
                let Some(into) = into.upgrade() else { return };
                let mounted = &into.mounts[index];
                match change {
                    Change::List(primitive) => {
                        if !into.registry.advertises(primitive) {
                            tracing::warn!(
                                prefix = &*mounted.prefix,
                                %primitive,
                                "a mounted server's {primitive} changed, but this server does not offer {primitive} (see `ServerBuilder::advertise`): not served"
                            );
                            return;
                        }
                        for problem in mounted.sync(primitive, &into.registry, true) {
                            tracing::warn!(prefix = &*mounted.prefix, "left out: {problem}");
                        }
                    }
                    Change::ResourceUpdated(uri) => {
                        into.registry
                            .resources
                            .updated(&mount_uri(&mounted.prefix, uri));
                    }
                }
            }));
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
                    primitive: Primitive::Resources,
                    name: "data://users".into(),
                    prefix: String::new(),
                },
                RegistrationError::MountClash {
                    primitive: Primitive::Resources,
                    name: "data://items/{id}".into(),
                    prefix: String::new(),
                },
                RegistrationError::MountClash {
                    primitive: Primitive::Prompts,
                    name: "greeting".into(),
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

    /// A tool named `name` answering `text`.
    fn answering(name: &str, text: &'static str) -> impl crate::tool::Tool {
        tool_fn(
            ToolDefinition::new(name, "Answers.", json!({"type": "object"})),
            move |_, _| async move { text },
        )
    }

    /// The next notification the client hears with this method.
    async fn heard(
        from: &mut tokio::sync::mpsc::UnboundedReceiver<serde_json::Value>,
        method: &str,
    ) -> serde_json::Value {
        loop {
            let message = from.recv().await.expect("the connection is open");
            if message["method"] == method {
                return message;
            }
        }
    }

    #[tokio::test]
    async fn a_mounted_servers_changes_reach_the_clients_of_the_server_it_is_mounted_into() {
        let one = named("one's");
        let all = Server::builder("all", "1.0.0")
            .tool(answering("one_own", "the parent's own"))
            .mount("one", one.clone())
            .build()
            .unwrap();
        let client = Client::memory(&all);
        let mut heard_ = client.take_unrouted().unwrap();
        client.connect(EraMode::Legacy).await.unwrap();
        client
            .request(
                "resources/subscribe",
                Some(json!({"uri": "data://one/users"})),
            )
            .await
            .unwrap();

        one.tools()
            .register(answering("later", "added later"))
            .unwrap();
        heard(&mut heard_, "notifications/tools/list_changed").await;
        assert_eq!(all.tools().names(), ["one_later", "one_own", "one_whoami"]);
        let result = client.call_tool("one_later", json!({})).await.unwrap();
        assert_eq!(result.first_text(), Some("added later"));

        // A name another source holds is left out (logged), never shadowing it.
        one.tools().register(answering("own", "shadowing")).unwrap();
        heard(&mut heard_, "notifications/tools/list_changed").await;
        let result = client.call_tool("one_own", json!({})).await.unwrap();
        assert_eq!(result.first_text(), Some("the parent's own"));
        assert!(one.tools().remove("own"));

        assert!(one.tools().remove("whoami"));
        heard(&mut heard_, "notifications/tools/list_changed").await;
        assert_eq!(all.tools().names(), ["one_later", "one_own"]);
        let gone = client.call_tool("one_whoami", json!({})).await.unwrap_err();
        assert!(gone.to_string().contains("one_whoami"), "{gone}");

        assert!(one.prompts().remove("greeting"));
        heard(&mut heard_, "notifications/prompts/list_changed").await;
        assert!(all.prompts().names().is_empty());

        one.resources().updated("data://users");
        let updated = heard(&mut heard_, "notifications/resources/updated").await;
        assert_eq!(updated["params"]["uri"], "data://one/users");
    }

    #[tokio::test]
    async fn a_server_mounted_into_a_mounted_server_keeps_its_state_and_uris() {
        let middle = Server::builder("middle", "1.0.0")
            .state("the middle's".to_owned())
            .mount("inner", named("the inner's"))
            .build()
            .unwrap();
        let outer = Server::builder("outer", "1.0.0")
            .mount("mid", middle)
            .build()
            .unwrap();
        assert_eq!(outer.tools().names(), ["mid_inner_whoami"]);
        for era in [EraMode::Legacy, EraMode::Modern] {
            let client = Client::memory(&outer);
            client.connect(era).await.unwrap();
            let result = client
                .call_tool("mid_inner_whoami", json!({}))
                .await
                .unwrap();
            assert_eq!(result.first_text(), Some("the inner's"), "{era:?}");
            for (uri, text) in [
                ("data://mid/inner/users", "the inner's"),
                ("data://mid/inner/items/7", "item 7"),
            ] {
                let read = client.read_resource(uri).await.unwrap();
                let contents = serde_json::to_value(&read.contents[0]).unwrap();
                assert_eq!(contents["uri"], uri, "{era:?}");
                assert_eq!(contents["text"], text, "{era:?}");
            }
        }
    }

    #[test]
    fn mounting_makes_no_cycle() {
        let one = named("one's");
        let all = Server::builder("all", "1.0.0")
            .mount("one", one.clone())
            .build()
            .unwrap();
        let parent = Arc::downgrade(&all.inner);
        drop(all);
        assert!(
            parent.upgrade().is_none(),
            "the parent outlives its last handle"
        );
        // The mounted server still changes freely; nobody is told.
        one.tools()
            .register(answering("later", "added later"))
            .unwrap();
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

    #[cfg(feature = "skills")]
    #[tokio::test]
    async fn a_mounted_servers_skills_are_served_under_the_mount() {
        let skilled = Server::builder("skilled", "1.0.0")
            .skill(
                crate::skill::Skill::new(
                    "---\nname: greeting\ndescription: Greets people.\n---\nSay hello.\n",
                )
                .file("examples/formal.md", "Good morning."),
            )
            .build()
            .unwrap();
        let all = Server::builder("all", "1.0.0")
            .mount("team", skilled)
            .build()
            .unwrap();
        assert!(
            all.capabilities()
                .extensions
                .as_ref()
                .is_some_and(|e| e.contains_key(crate::protocol::skills::SKILLS_EXTENSION)),
            "the mount's skills make this server declare the extension"
        );
        let client = Client::memory(&all);
        client.connect(EraMode::Modern).await.unwrap();
        let list = client.request("skills/list", None).await.unwrap();
        let skill = &list["skills"][0];
        assert_eq!(skill["uri"], "skill://team/greeting/SKILL.md", "{list}");
        let files: Vec<&str> = skill["resources"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["uri"].as_str().unwrap())
            .collect();
        assert_eq!(
            files,
            [
                "skill://team/greeting/SKILL.md",
                "skill://team/greeting/examples/formal.md"
            ],
            "{list}"
        );
        let got = client
            .request(
                "skills/get",
                Some(json!({"uri": "skill://team/greeting/SKILL.md"})),
            )
            .await
            .unwrap();
        assert_eq!(got["skill"]["frontmatter"]["name"], "greeting", "{got}");
        let dir = client
            .request(
                "resources/directory/read",
                Some(json!({"uri": "skill://team/greeting"})),
            )
            .await
            .unwrap();
        let children: Vec<&str> = dir["resources"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["uri"].as_str().unwrap())
            .collect();
        assert_eq!(
            children,
            [
                "skill://team/greeting/SKILL.md",
                "skill://team/greeting/examples"
            ],
            "{dir}"
        );
        let read = client
            .request(
                "resources/read",
                Some(json!({"uri": "skill://team/greeting/examples/formal.md"})),
            )
            .await
            .unwrap();
        assert_eq!(read["contents"][0]["text"], "Good morning.", "{read}");
        assert_eq!(
            read["contents"][0]["uri"], "skill://team/greeting/examples/formal.md",
            "{read}"
        );
        // The unmounted URI is nobody's here.
        assert!(
            client
                .request(
                    "skills/get",
                    Some(json!({"uri": "skill://greeting/SKILL.md"})),
                )
                .await
                .is_err()
        );
    }
}
