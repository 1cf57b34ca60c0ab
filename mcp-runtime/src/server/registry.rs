//! The tool registry: validated registration, compiled validators, and `tools/list` pages
//! serialized once per registry change.

use super::projection::{Modern, to_raw};
use crate::pipeline::{ServerPolicies, ToolStack};
use crate::protocol::headers::{self, ParamHeader};
use crate::protocol::lifecycle::{CachePolicy, JsonObject};
use crate::protocol::{ListToolsResult, McpError, ToolDefinition};
use crate::tool::schema::CheckedSchema;
use crate::tool::{Extensions, Tool, check_state, schema};
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::value::RawValue;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, OnceLock, RwLock};
use tokio::sync::watch;

/// Why a tool could not be registered.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RegistrationError {
    /// The name breaks the naming rules.
    #[error("invalid tool name {name:?}: {reason}")]
    InvalidName {
        /// The offending name.
        name: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// The description is missing or blank.
    #[error("tool `{name}` has no description; models choose tools by their descriptions")]
    MissingDescription {
        /// The tool.
        name: String,
    },
    /// The input schema is unusable.
    #[error("tool `{name}` has an invalid input schema: {reason}")]
    InvalidInputSchema {
        /// The tool.
        name: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The output schema does not compile.
    #[error("tool `{name}` has an invalid output schema: {reason}")]
    InvalidOutputSchema {
        /// The tool.
        name: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A declared policy has an unusable value (a zero concurrency limit or rate).
    #[error("tool `{name}` has an invalid policy: {reason}")]
    InvalidPolicy {
        /// The tool.
        name: String,
        /// What is wrong with it.
        reason: String,
    },
    /// [`ServerBuilder::layer_for`](crate::ServerBuilder::layer_for) names a tool that was
    /// not registered.
    #[error("a layer is added for tool `{name}`, but no tool of that name is registered")]
    UnknownTool {
        /// The name.
        name: String,
    },
    /// [`ServerBuilder::substate`](crate::ServerBuilder::substate) was called before the
    /// state it derives from was given.
    #[error(
        "a `{sub}` is derived from the state `{app}`, but no `{app}` was given to ServerBuilder::state first"
    )]
    MissingState {
        /// The type of the state that is missing.
        app: &'static str,
        /// The type that was to be derived from it.
        sub: &'static str,
    },
    /// A tool takes state (`State<T>`, `FileService`, …) that the server was not given.
    #[error(
        "tool `{tool}` needs state the server was not given: {}; give a value of {} to ServerBuilder::state",
        quoted(.type_names),
        if .type_names.len() == 1 { "that type" } else { "each type" }
    )]
    MissingToolState {
        /// The tool.
        tool: String,
        /// The types of the missing values, as `std::any::type_name` spells them.
        type_names: Vec<&'static str>,
    },
    /// Another tool already has this name.
    #[error("a tool named `{name}` is already registered")]
    Duplicate {
        /// The name.
        name: String,
    },
}

fn quoted(names: &[&str]) -> String {
    names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A registered tool with everything computed at registration.
pub(crate) struct RegisteredTool {
    pub(crate) name: Arc<str>,
    /// The tool behind its layers (validation, policies, audit), assembled here once.
    pub(crate) stack: ToolStack,
    /// Legacy clients only accept an object `structuredContent`: wrap the value as
    /// `{"result": value}` (the official TypeScript SDK's convention, spec `dual-era.md` §4).
    pub(crate) wrap_legacy_output: bool,
    /// The arguments mirrored into `Mcp-Param-*` headers (`x-mcp-header`), checked by the
    /// HTTP transport on modern calls.
    pub(crate) header_params: Vec<ParamHeader>,
    modern_definition: ToolDefinition,
    legacy_definition: ToolDefinition,
}

impl fmt::Debug for RegisteredTool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RegisteredTool")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

/// Checks a name against the tool-name rule: 1–128 characters of `[A-Za-z0-9_.-]`.
///
/// The rule itself is [`tool_name_problem`](crate::tool::tool_name_problem), which
/// `#[mcp_tool]` also evaluates at compile time; see `tool/name.rs` for why it is enforced.
pub fn validate_tool_name(name: &str) -> Result<(), &'static str> {
    crate::tool::tool_name_problem(name).map_or(Ok(()), Err)
}

fn prepare(
    tool: Arc<dyn Tool>,
    policies: &ServerPolicies,
    extensions: &Extensions,
) -> Result<RegisteredTool, RegistrationError> {
    let definition = tool.definition();
    let name = definition.name.clone();
    validate_tool_name(&name).map_err(|reason| RegistrationError::InvalidName {
        name: name.clone(),
        reason,
    })?;
    if definition
        .description
        .as_deref()
        .is_none_or(|d| d.trim().is_empty())
    {
        return Err(RegistrationError::MissingDescription { name });
    }
    check_state(&*tool, extensions).map_err(|type_names| RegistrationError::MissingToolState {
        tool: name.clone(),
        type_names,
    })?;
    let policy = tool.policy();
    let problems = policy.problems();
    if !problems.is_empty() {
        return Err(RegistrationError::InvalidPolicy {
            name,
            reason: problems.join("; "),
        });
    }
    let invalid_input = |reason: String| RegistrationError::InvalidInputSchema {
        name: name.clone(),
        reason,
    };
    schema::check_input_root(&definition.input_schema).map_err(invalid_input)?;
    let header_params = headers::scan(&definition.input_schema).map_err(invalid_input)?;
    let input = CheckedSchema::check(Value::Object(definition.input_schema.clone()))
        .map_err(invalid_input)?;
    let (output, wrap_legacy_output, legacy_output_schema) = match &definition.output_schema {
        None => (None, false, None),
        Some(s) => {
            let validator = CheckedSchema::check(s.clone()).map_err(|reason| {
                RegistrationError::InvalidOutputSchema {
                    name: name.clone(),
                    reason,
                }
            })?;
            let is_object_root = s.get("type").and_then(Value::as_str) == Some("object");
            let legacy = if is_object_root {
                s.clone()
            } else {
                json!({"type": "object", "properties": {"result": s}, "required": ["result"]})
            };
            (Some(validator), !is_object_root, Some(legacy))
        }
    };
    let mut legacy_definition = definition.clone();
    legacy_definition.output_schema = legacy_output_schema;
    let stack = ToolStack::new(
        &name,
        tool,
        Arc::new(input),
        output.map(Arc::new),
        &policy,
        policies,
    );
    Ok(RegisteredTool {
        name: name.into(),
        stack,
        wrap_legacy_output,
        header_params,
        modern_definition: definition,
        legacy_definition,
    })
}

/// One page of `tools/list`, serialized for each era on first request and kept until the
/// registry changes. Rendering waits for a client to ask: a server's start-up (and its
/// `initialize` answer) doesn't pay for pages, and a legacy-only client never pays for the
/// modern rendering.
struct Page {
    /// Index in `Snapshot::order` of the page's first tool.
    start: usize,
    legacy: OnceLock<Arc<str>>,
    modern: OnceLock<Arc<str>>,
}

/// An immutable view of the registry; swapped whole on every change.
pub(crate) struct Snapshot {
    by_name: HashMap<Arc<str>, Arc<RegisteredTool>>,
    /// Sorted by name: the deterministic order of `tools/list`.
    order: Vec<Arc<RegisteredTool>>,
    pages: Vec<Page>,
    page_by_cursor: HashMap<String, usize>,
}

impl Snapshot {
    pub(crate) fn get(&self, name: &str) -> Option<&Arc<RegisteredTool>> {
        self.by_name.get(name)
    }
}

/// What pages need from the server: its identity and cache policy.
#[derive(Debug, Clone)]
pub(crate) struct PageSettings {
    pub(crate) server_info: Arc<RawValue>,
    pub(crate) cache: CachePolicy,
    pub(crate) page_size: usize,
}

/// The server's tools. Reached through [`Server::tools`](crate::server::Server::tools).
///
/// Changes at run time ([`register`](Self::register), [`remove`](Self::remove)) rebuild
/// the cached pages and notify connected clients (`notifications/tools/list_changed` to
/// legacy connections, `subscriptions/listen` streams on the modern leg).
pub struct ToolRegistry {
    snapshot: RwLock<Arc<Snapshot>>,
    settings: PageSettings,
    policies: ServerPolicies,
    /// The server's shared state, which tools' injected parameters are checked against.
    extensions: Arc<Extensions>,
    changes: watch::Sender<u64>,
}

impl fmt::Debug for ToolRegistry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolRegistry")
            .field("tools", &self.names())
            .finish_non_exhaustive()
    }
}

impl ToolRegistry {
    pub(crate) fn new(
        settings: PageSettings,
        policies: ServerPolicies,
        extensions: Arc<Extensions>,
    ) -> Self {
        let snapshot = build_snapshot(Vec::new(), &settings);
        Self {
            snapshot: RwLock::new(Arc::new(snapshot)),
            settings,
            policies,
            extensions,
            changes: watch::channel(0).0,
        }
    }

    /// The layers and defaults every tool's stack is built with.
    pub(crate) fn policies(&self) -> &ServerPolicies {
        &self.policies
    }

    pub(crate) fn snapshot(&self) -> Arc<Snapshot> {
        self.snapshot
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// Registers several tools at once: all or none. Every problem is reported.
    pub(crate) fn register_all(
        &self,
        tools: Vec<Arc<dyn Tool>>,
    ) -> Result<(), Vec<RegistrationError>> {
        let mut errors = Vec::new();
        let mut prepared: Vec<Arc<RegisteredTool>> = Vec::new();
        for tool in tools {
            match prepare(tool, &self.policies, &self.extensions) {
                Ok(t) => prepared.push(Arc::new(t)),
                Err(e) => errors.push(e),
            }
        }
        let mut guard = self.snapshot.write().unwrap_or_else(|p| p.into_inner());
        let mut all: Vec<Arc<RegisteredTool>> = guard.order.clone();
        for t in prepared {
            if all.iter().any(|o| o.name == t.name) {
                errors.push(RegistrationError::Duplicate {
                    name: t.name.to_string(),
                });
            } else {
                all.push(t);
            }
        }
        if !errors.is_empty() {
            return Err(errors);
        }
        *guard = Arc::new(build_snapshot(all, &self.settings));
        drop(guard);
        self.changes.send_modify(|g| *g += 1);
        Ok(())
    }

    /// Registers one tool.
    ///
    /// The definition is checked (name, description, the server state its injected
    /// parameters need, schemas against their meta-schema);
    /// each schema's validator is compiled once, now or on the tool's first call (see
    /// [`CheckedSchema`]). A problem is returned, never panicked on.
    pub fn register(&self, tool: impl Tool) -> Result<(), RegistrationError> {
        self.register_all(vec![Arc::new(tool)])
            .map_err(|mut e| e.remove(0))
    }

    /// Removes the tool named `name`; returns whether there was one.
    pub fn remove(&self, name: &str) -> bool {
        let mut guard = self.snapshot.write().unwrap_or_else(|p| p.into_inner());
        if guard.get(name).is_none() {
            return false;
        }
        let rest = guard
            .order
            .iter()
            .filter(|t| &*t.name != name)
            .cloned()
            .collect();
        *guard = Arc::new(build_snapshot(rest, &self.settings));
        drop(guard);
        self.changes.send_modify(|g| *g += 1);
        true
    }

    /// The names of the registered tools, in `tools/list` order.
    pub fn names(&self) -> Vec<String> {
        self.snapshot()
            .order
            .iter()
            .map(|t| t.name.to_string())
            .collect()
    }

    /// The definition of a tool, as modern clients see it.
    pub fn definition(&self, name: &str) -> Option<ToolDefinition> {
        self.snapshot()
            .get(name)
            .map(|t| t.modern_definition.clone())
    }

    /// A receiver that changes whenever the tool list does.
    pub(crate) fn subscribe(&self) -> watch::Receiver<u64> {
        self.changes.subscribe()
    }

    /// The serialized `tools/list` result for `cursor` in the given era.
    ///
    /// Returns the result's JSON text, ready to be spliced into a response.
    pub(crate) fn list_page(
        &self,
        cursor: Option<&str>,
        modern: bool,
    ) -> Result<Arc<str>, McpError> {
        let snapshot = self.snapshot();
        let index = match cursor {
            None => Some(0),
            Some(c) => snapshot.page_by_cursor.get(c).copied(),
        };
        if let Some(page) = index.and_then(|i| snapshot.pages.get(i)) {
            let cell = if modern { &page.modern } else { &page.legacy };
            let text = cell
                .get_or_init(|| render_page(&snapshot.order, page.start, &self.settings, modern));
            return Ok(text.clone());
        }
        // A cursor from before a registry change: continue from the tool it names, so a
        // client paging through a changing list neither fails nor loops.
        let start_name = cursor
            .and_then(|c| URL_SAFE_NO_PAD.decode(c).ok())
            .and_then(|b| String::from_utf8(b).ok())
            .filter(|n| validate_tool_name(n).is_ok())
            .ok_or_else(|| McpError::invalid_params("invalid cursor"))?;
        let start = snapshot.order.partition_point(|t| *t.name < *start_name);
        Ok(render_page(&snapshot.order, start, &self.settings, modern))
    }
}

fn cursor_for(name: &str) -> String {
    URL_SAFE_NO_PAD.encode(name)
}

fn build_snapshot(mut tools: Vec<Arc<RegisteredTool>>, settings: &PageSettings) -> Snapshot {
    tools.sort_by(|a, b| a.name.cmp(&b.name));
    let page_size = settings.page_size.max(1);
    let page = |start| Page {
        start,
        legacy: OnceLock::new(),
        modern: OnceLock::new(),
    };
    let mut pages = vec![page(0)];
    let mut page_by_cursor = HashMap::new();
    let mut start = page_size;
    while start < tools.len() {
        page_by_cursor.insert(cursor_for(&tools[start].name), pages.len());
        pages.push(page(start));
        start += page_size;
    }
    Snapshot {
        by_name: tools.iter().map(|t| (t.name.clone(), t.clone())).collect(),
        order: tools,
        pages,
        page_by_cursor,
    }
}

/// The `tools/list` result text for the page of `tools` beginning at `start`.
fn render_page(
    tools: &[Arc<RegisteredTool>],
    start: usize,
    settings: &PageSettings,
    modern: bool,
) -> Arc<str> {
    let page_size = settings.page_size.max(1);
    let end = (start + page_size).min(tools.len());
    let slice = tools.get(start..end).unwrap_or_default();
    let next_cursor = tools.get(end).map(|t| cursor_for(&t.name));
    let definitions = slice.iter().map(|t| {
        if modern {
            t.modern_definition.clone()
        } else {
            t.legacy_definition.clone()
        }
    });
    let result = ListToolsResult {
        tools: definitions.collect(),
        next_cursor,
    };
    let raw = if modern {
        to_raw(&Modern::complete(
            &result,
            &settings.server_info,
            Some(settings.cache),
            None::<&JsonObject>,
        ))
    } else {
        to_raw(&result)
    };
    raw.get().into()
}
