//! The prompts kind: what is checked at registration (name, description, arguments) and
//! how a prompt is listed.

use super::catalog::{Catalog, Kind, PageSettings};
use super::{ChangeFeed, Primitive, RegistrationError};
use crate::pipeline::{GetPrompt, ItemStack, ServerPolicies};
use crate::prompt::{Prompt, PromptArguments, PromptError};
use crate::protocol::{McpError, PromptDefinition};
use crate::server::visibility::{ItemKind, View};
use serde::Serialize;
use std::collections::HashSet;
use std::fmt;
use std::sync::Arc;

/// A registered prompt.
pub(crate) struct RegisteredPrompt {
    pub(crate) name: Arc<str>,
    pub(crate) prompt: Arc<dyn Prompt>,
    pub(crate) stack: ItemStack<GetPrompt>,
    definition: PromptDefinition,
    /// The scopes a caller must hold to see it (`Prompt::scopes`).
    pub(crate) scopes: Arc<[String]>,
}

impl RegisteredPrompt {
    /// This prompt as another server serves it (`ServerBuilder::mount`): named `name`, got
    /// through its own stack with its server's state and resources.
    pub(crate) fn mounted(&self, name: &str, home: &Arc<crate::context::Home>) -> Self {
        let mut definition = self.definition.clone();
        definition.name = name.to_owned();
        Self {
            name: name.into(),
            prompt: self.prompt.clone(),
            stack: self.stack.at_home(home.clone()),
            definition,
            scopes: self.scopes.clone(),
        }
    }

    /// Whether the prompt declares an argument named `name`.
    pub(crate) fn declares(&self, name: &str) -> bool {
        self.definition
            .arguments
            .as_deref()
            .unwrap_or_default()
            .iter()
            .any(|a| a.name == name)
    }

    /// Checks `arguments` against the definition: every required one present, nothing
    /// unknown. The message names the argument.
    pub(crate) fn check_arguments(&self, arguments: &PromptArguments) -> Result<(), PromptError> {
        let declared = self.definition.arguments.as_deref().unwrap_or_default();
        let missing: Vec<&str> = declared
            .iter()
            .filter(|a| a.required == Some(true) && !arguments.contains_key(&a.name))
            .map(|a| a.name.as_str())
            .collect();
        if !missing.is_empty() {
            return Err(PromptError::invalid_arguments(format!(
                "prompt `{}` needs the argument(s) {}",
                self.name,
                quoted(&missing)
            )));
        }
        let unknown: Vec<&str> = arguments
            .keys()
            .filter(|k| !declared.iter().any(|a| &a.name == *k))
            .map(String::as_str)
            .collect();
        if !unknown.is_empty() {
            let known: Vec<&str> = declared.iter().map(|a| a.name.as_str()).collect();
            return Err(PromptError::invalid_arguments(format!(
                "prompt `{}` has no argument(s) {}; it takes {}",
                self.name,
                quoted(&unknown),
                if known.is_empty() {
                    "none".to_owned()
                } else {
                    quoted(&known)
                }
            )));
        }
        Ok(())
    }
}

fn quoted(names: &[&str]) -> String {
    names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The prompts kind.
pub(crate) struct Prompts;

impl Kind for Prompts {
    type Item = RegisteredPrompt;
    const PRIMITIVE: Primitive = Primitive::Prompts;
    const LIST_FIELD: &'static str = "prompts";
    const ITEM: Option<ItemKind> = Some(ItemKind::Prompt);

    fn scopes(item: &RegisteredPrompt) -> &[String] {
        &item.scopes
    }

    fn key(item: &RegisteredPrompt) -> &str {
        &item.name
    }

    fn listed(item: &RegisteredPrompt, _modern: bool) -> impl Serialize + '_ {
        &item.definition
    }

    fn duplicate(name: &str) -> RegistrationError {
        RegistrationError::DuplicatePrompt {
            name: name.to_owned(),
        }
    }
}

fn prepare(
    prompt: Arc<dyn Prompt>,
    policies: &ServerPolicies,
) -> Result<RegisteredPrompt, RegistrationError> {
    let definition = prompt.definition();
    let name = definition.name.clone();
    let invalid = |reason: String| RegistrationError::InvalidPrompt {
        name: name.clone(),
        reason,
    };
    // Prompt names travel in the `Mcp-Name` header of 2026-07-28 like tool names do.
    if let Some(reason) = crate::tool::tool_name_problem(&name) {
        return Err(invalid(reason.to_owned()));
    }
    if definition
        .description
        .as_deref()
        .is_none_or(|d| d.trim().is_empty())
    {
        return Err(invalid(
            "a prompt needs a description (clients and the conformance suite reject prompts without one)"
                .into(),
        ));
    }
    let mut seen = HashSet::new();
    for argument in definition.arguments.as_deref().unwrap_or_default() {
        if argument.name.trim().is_empty() {
            return Err(invalid("an argument has an empty name".into()));
        }
        if !seen.insert(argument.name.as_str()) {
            return Err(invalid(format!(
                "the argument `{}` is declared twice",
                argument.name
            )));
        }
    }
    let scopes = super::resources::checked_scopes(prompt.scopes()).map_err(invalid)?;
    Ok(RegisteredPrompt {
        name: name.into(),
        stack: ItemStack::new(GetPrompt::new(prompt.clone()), policies),
        prompt,
        definition,
        scopes,
    })
}

/// The server's prompts. Reached through [`Server::prompts`](crate::Server::prompts).
///
/// Changes at run time ([`register`](Self::register), [`remove`](Self::remove)) notify
/// connected clients (`notifications/prompts/list_changed`, or their `subscriptions/listen`
/// streams).
pub struct PromptRegistry {
    catalog: Catalog<Prompts>,
    advertised: bool,
    policies: ServerPolicies,
}

impl fmt::Debug for PromptRegistry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PromptRegistry")
            .field("prompts", &self.catalog.keys())
            .finish_non_exhaustive()
    }
}

impl PromptRegistry {
    pub(crate) fn new(settings: PageSettings, feed: ChangeFeed, policies: ServerPolicies) -> Self {
        Self {
            catalog: Catalog::new(settings, feed),
            advertised: true,
            policies,
        }
    }

    /// Registers a prompt: its name follows the tool-name rule, it has a description, and
    /// its arguments have distinct, non-empty names.
    pub fn register(&self, prompt: impl Prompt) -> Result<(), RegistrationError> {
        self.register_all(vec![Arc::new(prompt)])
            .map_err(|mut e| e.remove(0))
    }

    /// The definition of the prompt named `name`.
    pub fn definition(&self, name: &str) -> Option<PromptDefinition> {
        self.get(name).map(|p| p.definition.clone())
    }

    pub(crate) fn set_advertised(&mut self, advertised: bool) {
        self.advertised = advertised;
    }

    pub(crate) fn advertised(&self) -> bool {
        self.advertised
    }

    /// Whether no prompt is registered.
    pub fn is_empty(&self) -> bool {
        self.catalog.is_empty()
    }

    /// Makes the prompts exactly `prompts` (one change), leaving out (and returning the problem
    /// of) any that does not register: how a proxy mirrors its upstream's list.
    pub(crate) fn mirror(&self, prompts: Vec<Arc<dyn Prompt>>) -> Vec<RegistrationError> {
        self.catalog.replace_all_lenient(
            prompts
                .into_iter()
                .map(|item| prepare(item, &self.policies))
                .collect(),
        )
    }

    /// Replaces the prompts a mounted server added (`held`) with `add` (see
    /// `Catalog::swap_held`).
    pub(crate) fn swap_mounted(
        &self,
        held: &mut Vec<String>,
        add: Vec<RegisteredPrompt>,
        leave_out_clashes: bool,
    ) -> Vec<RegistrationError> {
        self.catalog.swap_held(held, add, leave_out_clashes)
    }

    /// Registers prompts: all or none, every problem reported.
    pub(crate) fn register_all(
        &self,
        prompts: Vec<Arc<dyn Prompt>>,
    ) -> Result<(), Vec<RegistrationError>> {
        if !self.advertised && !prompts.is_empty() {
            return Err(vec![RegistrationError::NotAdvertised {
                primitive: Primitive::Prompts,
            }]);
        }
        let prepared = prompts
            .into_iter()
            .map(|p| prepare(p, &self.policies))
            .collect();
        self.catalog.insert_all(prepared)
    }

    /// Removes the prompts named in `remove` (those that are registered) and registers
    /// `add`, as one change: clients never see the list between the two, and get one
    /// `list_changed`. All or none, every problem reported; an added prompt may take the
    /// name of a removed one, which is how a prompt is replaced.
    ///
    /// ```
    /// use mcp_runtime::prelude::*;
    /// use mcp_runtime::prompt::prompt_fn;
    /// use mcp_runtime::protocol::PromptDefinition;
    ///
    /// let hello = |text: &'static str| {
    ///     prompt_fn(PromptDefinition::new("hello", text), |_, _| async { "Hello!" })
    /// };
    /// let server = Server::builder("demo", "1.0.0").prompt(hello("Says hello.")).build().unwrap();
    /// server.prompts().swap(&["hello"], [std::sync::Arc::new(hello("Greets.")) as _]).unwrap();
    /// assert_eq!(
    ///     server.prompts().definition("hello").unwrap().description.as_deref(),
    ///     Some("Greets.")
    /// );
    /// ```
    pub fn swap(
        &self,
        remove: &[&str],
        add: impl IntoIterator<Item = Arc<dyn Prompt>>,
    ) -> Result<(), Vec<RegistrationError>> {
        let add: Vec<Arc<dyn Prompt>> = add.into_iter().collect();
        if !self.advertised && !add.is_empty() {
            return Err(vec![RegistrationError::NotAdvertised {
                primitive: Primitive::Prompts,
            }]);
        }
        let prepared = add
            .into_iter()
            .map(|p| prepare(p, &self.policies))
            .collect();
        self.catalog.replace(remove, prepared)
    }

    /// Removes the prompt named `name`; returns whether there was one.
    pub fn remove(&self, name: &str) -> bool {
        self.catalog.remove(name)
    }

    /// The names of the registered prompts, in `prompts/list` order.
    pub fn names(&self) -> Vec<String> {
        self.catalog.keys()
    }

    /// Every prompt now, in `prompts/list` order.
    pub(crate) fn snapshot(&self) -> Arc<super::catalog::Snapshot<Prompts>> {
        self.catalog.snapshot()
    }

    pub(crate) fn get(&self, name: &str) -> Option<Arc<RegisteredPrompt>> {
        self.catalog.snapshot().get(name).cloned()
    }

    pub(crate) fn list_page(
        &self,
        cursor: Option<&str>,
        modern: bool,
        view: &View<'_>,
    ) -> Result<Arc<str>, McpError> {
        self.catalog.list_page_for(cursor, modern, view)
    }
}
