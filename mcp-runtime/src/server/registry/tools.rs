//! The tools kind: what is checked and computed when a tool is registered (name,
//! description, schemas and their validators, policies, the tool's layer stack), and how
//! a tool is listed in each era.

use super::catalog::{Catalog, Kind, PageSettings, Snapshot};
use super::{ChangeFeed, Primitive, RegistrationError};
use crate::context::Extensions;
use crate::pipeline::{ServerPolicies, ToolStack};
use crate::protocol::apps::ToolUi;
use crate::protocol::headers::{self, ParamHeader};
use crate::protocol::{McpError, ToolDefinition};
use crate::server::visibility::{ItemKind, View};
use crate::tool::schema::CheckedSchema;
use crate::tool::{Tool, check_state, schema};
use serde::Serialize;
use serde_json::{Value, json};
use std::fmt;
use std::sync::Arc;

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
    /// The scopes a caller must hold (`#[mcp_tool(scopes = [...])]`); checked by the
    /// dispatcher before the call enters the stack.
    pub(crate) scopes: Arc<[String]>,
    /// Whether calls may run as tasks.
    pub(crate) task: crate::task::TaskSupport,
    /// The MCP Apps view the tool is shown with, if any.
    pub(crate) app: Option<Arc<ToolUi>>,
    modern_definition: ToolDefinition,
    legacy_definition: ToolDefinition,
}

impl RegisteredTool {
    /// This tool as another server serves it (`ServerBuilder::mount`): named `name`, its
    /// view (if any) at the URI `mount_uri` makes of it (where the mount serves the view's
    /// resource), run by its own stack (its server's policies) with its server's state and
    /// resources.
    pub(crate) fn mounted(
        &self,
        name: &str,
        mount_uri: &dyn Fn(&str) -> String,
        home: &Arc<crate::context::Home>,
    ) -> Self {
        let app = self.app.as_ref().map(|ui| {
            let mut ui = ToolUi::clone(ui);
            ui.resource_uri = mount_uri(&ui.resource_uri);
            Arc::new(ui)
        });
        let rename = |definition: &ToolDefinition| {
            let mut definition = definition.clone();
            definition.name = name.to_owned();
            match &app {
                Some(ui) => definition.with_app(ui.resource_uri.clone()),
                None => definition,
            }
        };
        let modern_definition = rename(&self.modern_definition);
        let legacy_definition = rename(&self.legacy_definition);
        Self {
            name: name.into(),
            stack: self.stack.at_home(home.clone()),
            wrap_legacy_output: self.wrap_legacy_output,
            header_params: self.header_params.clone(),
            scopes: self.scopes.clone(),
            task: self.task,
            app,
            modern_definition,
            legacy_definition,
        }
    }
}

impl fmt::Debug for RegisteredTool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RegisteredTool")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

fn prepare(
    tool: Arc<dyn Tool>,
    policies: &ServerPolicies,
    extensions: &Extensions,
) -> Result<RegisteredTool, RegistrationError> {
    let definition = tool.definition();
    let name = definition.name.clone();
    // The one statement of the rule, which `#[mcp_tool]` also evaluates at compile time.
    if let Some(reason) = crate::tool::tool_name_problem(&name) {
        return Err(RegistrationError::InvalidName { name, reason });
    }
    if definition
        .description
        .as_deref()
        .is_none_or(|d| d.trim().is_empty())
    {
        return Err(RegistrationError::MissingDescription { name });
    }
    let app = app_of(&definition)?;
    check_state(&*tool, extensions).map_err(|type_names| RegistrationError::MissingToolState {
        tool: name.clone(),
        type_names,
    })?;
    let mut policy = tool.policy();
    if policy.confirm.is_none()
        && let Some(confirm) = &policies.confirm_destructive
        && may_destroy(definition.annotations.as_ref())
    {
        policy.confirm = Some(confirm.clone());
    }
    let mut problems = policy.problems(definition.annotations.as_ref());
    if let Some(confirm) = &policy.confirm {
        problems.extend(confirm.problems(&definition.input_schema));
    }
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
        .map_err(|e| invalid_input(e.to_string()))?;
    let (output, wrap_legacy_output, legacy_output_schema) = match &definition.output_schema {
        None => (None, false, None),
        Some(s) => {
            let validator = CheckedSchema::check(s.clone()).map_err(|reason| {
                RegistrationError::InvalidOutputSchema {
                    name: name.clone(),
                    reason: reason.to_string(),
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
    let scopes = policy.scopes.iter().map(|s| s.to_string()).collect();
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
        scopes,
        task: policy.task,
        app,
        modern_definition: definition,
        legacy_definition,
    })
}

/// Whether a tool with `annotations` may destroy, as the spec reads them: unless it says it
/// is read-only or not destructive (`destructiveHint` defaults to true, and applies when
/// `readOnlyHint` is not true).
pub(crate) fn may_destroy(annotations: Option<&crate::protocol::ToolAnnotations>) -> bool {
    let read_only = annotations.and_then(|a| a.read_only_hint) == Some(true);
    let destructive = annotations.and_then(|a| a.destructive_hint).unwrap_or(true);
    !read_only && destructive
}

/// The tool's MCP Apps view, checked: `_meta.ui` that does not parse, a view that is not
/// `ui://`, or a `visibility` that lets no one call the tool is refused.
fn app_of(definition: &ToolDefinition) -> Result<Option<Arc<ToolUi>>, RegistrationError> {
    let invalid = |reason: String| RegistrationError::InvalidApp {
        name: definition.name.clone(),
        reason,
    };
    let declared = definition
        .meta
        .as_ref()
        .is_some_and(|m| m.contains_key("ui"));
    let Some(ui) = definition.app() else {
        return match declared {
            true => Err(invalid(
                "`_meta.ui` is not `{resourceUri, visibility?}` with `visibility` of `model` and `app`".into(),
            )),
            false => Ok(None),
        };
    };
    match ui.problem() {
        Some(reason) => Err(invalid(reason)),
        None => Ok(Some(Arc::new(ui))),
    }
}

impl RegisteredTool {
    /// Whether the tool is hidden from, and refused to, a client that does not render MCP
    /// Apps (its `visibility` is `app` only; see [`crate::protocol::apps`]).
    pub(crate) fn app_only(&self) -> bool {
        self.app.as_ref().is_some_and(|ui| ui.app_only())
    }
}

/// The tools kind of the registry.
pub(crate) struct Tools;

impl Kind for Tools {
    type Item = RegisteredTool;
    const PRIMITIVE: Primitive = Primitive::Tools;
    const LIST_FIELD: &'static str = "tools";
    const ITEM: Option<ItemKind> = Some(ItemKind::Tool);

    fn key(tool: &RegisteredTool) -> &str {
        &tool.name
    }

    fn scopes(tool: &RegisteredTool) -> &[String] {
        &tool.scopes
    }

    fn listed(tool: &RegisteredTool, modern: bool) -> impl Serialize + '_ {
        if modern {
            &tool.modern_definition
        } else {
            &tool.legacy_definition
        }
    }

    fn duplicate(name: &str) -> RegistrationError {
        RegistrationError::Duplicate {
            name: name.to_owned(),
        }
    }

    fn restricted(tool: &RegisteredTool) -> bool {
        tool.app_only()
    }
}

/// The server's tools. Reached through [`Server::tools`](crate::server::Server::tools).
///
/// Changes at run time ([`register`](Self::register), [`remove`](Self::remove)) rebuild
/// the cached pages and notify connected clients (`notifications/tools/list_changed` to
/// legacy connections, `subscriptions/listen` streams on the modern leg).
pub struct ToolRegistry {
    catalog: Catalog<Tools>,
    policies: ServerPolicies,
    /// The server's shared state, which tools' injected parameters are checked against.
    extensions: Arc<Extensions>,
    advertised: bool,
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
        feed: ChangeFeed,
        policies: ServerPolicies,
        extensions: Arc<Extensions>,
    ) -> Self {
        Self {
            catalog: Catalog::new(settings, feed),
            policies,
            extensions,
            advertised: true,
        }
    }

    /// Fixes whether the server advertises tools; without, run-time registration is refused.
    pub(crate) fn set_advertised(&mut self, advertised: bool) {
        self.advertised = advertised;
    }

    /// Whether the server advertises tools.
    pub(crate) fn advertised(&self) -> bool {
        self.advertised
    }

    /// The layers and defaults every tool's stack is built with.
    pub(crate) fn policies(&self) -> &ServerPolicies {
        &self.policies
    }

    pub(crate) fn snapshot(&self) -> Arc<Snapshot<Tools>> {
        self.catalog.snapshot()
    }

    /// Registers several tools at once: all or none. Every problem is reported.
    pub(crate) fn register_all(
        &self,
        tools: Vec<Arc<dyn Tool>>,
    ) -> Result<(), Vec<RegistrationError>> {
        if !self.advertised && !tools.is_empty() {
            return Err(vec![RegistrationError::NotAdvertised {
                primitive: Primitive::Tools,
            }]);
        }
        let prepared = tools
            .into_iter()
            .map(|tool| prepare(tool, &self.policies, &self.extensions))
            .collect();
        self.catalog.insert_all(prepared)
    }

    /// Makes the tools exactly `tools` (one change), leaving out (and returning the problem
    /// of) any that does not register: how a proxy mirrors its upstream's list.
    pub(crate) fn mirror(&self, tools: Vec<Arc<dyn Tool>>) -> Vec<RegistrationError> {
        self.catalog.replace_all_lenient(
            tools
                .into_iter()
                .map(|item| prepare(item, &self.policies, &self.extensions))
                .collect(),
        )
    }

    /// Replaces the tools a mounted server added (`held`) with `add` (see
    /// `Catalog::swap_held`).
    pub(crate) fn swap_mounted(
        &self,
        held: &mut Vec<String>,
        add: Vec<RegisteredTool>,
        leave_out_clashes: bool,
    ) -> Vec<RegistrationError> {
        self.catalog.swap_held(held, add, leave_out_clashes)
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
        self.catalog.remove(name)
    }

    /// The names of the registered tools, in `tools/list` order.
    pub fn names(&self) -> Vec<String> {
        self.catalog.keys()
    }

    /// Whether no tool is registered.
    pub fn is_empty(&self) -> bool {
        self.catalog.is_empty()
    }

    /// The definition of a tool, as modern clients see it.
    pub fn definition(&self, name: &str) -> Option<ToolDefinition> {
        self.snapshot()
            .get(name)
            .map(|t| t.modern_definition.clone())
    }

    /// The serialized `tools/list` result for `cursor` in the given era, for a client that
    /// renders MCP Apps (`apps`: every tool) or not (app-only tools left out).
    pub(crate) fn list_page(
        &self,
        cursor: Option<&str>,
        modern: bool,
        view: &View<'_>,
    ) -> Result<Arc<str>, McpError> {
        self.catalog.list_page_for(cursor, modern, view)
    }
}
