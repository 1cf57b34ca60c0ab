//! What can be wrong with a registration.

use super::Primitive;

/// Why an item (a tool, …) could not be registered, or what else is wrong with a server
/// definition. [`ServerBuilder::build`](crate::ServerBuilder::build) reports every one it
/// finds.
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
    /// The tool's MCP Apps view (`_meta.ui`) is malformed: not a `ui://` URI, or a
    /// `visibility` that lets no one call it.
    #[error("tool `{name}` has an invalid app view: {reason}")]
    InvalidApp {
        /// The tool.
        name: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The tool names an MCP Apps view that no resource of the server serves: a host would
    /// show a broken frame.
    #[error(
        "tool `{tool}` shows the view `{uri}`, but no resource serves it; register it (`ServerBuilder::resource(AppView::new({uri:?}, ...))`) or fix the URI"
    )]
    UnservedView {
        /// The tool.
        tool: String,
        /// The view's URI.
        uri: String,
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
    /// An item of a mounted server (`ServerBuilder::mount`) has the name (or URI) of
    /// another: this server's own, or another mount's.
    #[error(
        "{primitive} `{name}` of the server mounted as {prefix:?} clashes with another of that name (this server's or another mount's)"
    )]
    MountClash {
        /// Which kind of item.
        primitive: Primitive,
        /// The name (or URI) both have.
        name: String,
        /// The prefix of the mount that brought it (`""`: merged without one).
        prefix: String,
    },
    /// Another tool already has this name.
    #[error("a tool named `{name}` is already registered")]
    Duplicate {
        /// The name.
        name: String,
    },
    /// An item was registered at run time for a primitive the server did not advertise
    /// when it was built: clients were told there are none, so they would never ask.
    #[error(
        "the server was built without {primitive} (none were registered), so clients were told it has none; call ServerBuilder::advertise(Primitive::{primitive:?}) to add {primitive} at run time"
    )]
    NotAdvertised {
        /// The primitive.
        primitive: Primitive,
    },
    /// A resource or resource template is unusable (its URI, its template, its name).
    #[error("resource `{uri}` cannot be registered: {reason}")]
    InvalidResource {
        /// The URI or URI template.
        uri: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A skill is unusable (its URI, a second skill at the same URI, a skill declared in
    /// code whose files break the skills extension's rules).
    #[error("skill `{uri}` cannot be served: {reason}")]
    InvalidSkill {
        /// The skill's `SKILL.md` URI.
        uri: String,
        /// What is wrong with it.
        reason: String,
    },
    /// Another resource (or template) already has this URI (or URI template).
    #[error("a resource `{uri}` is already registered")]
    DuplicateResource {
        /// The URI or URI template.
        uri: String,
    },
    /// A prompt is unusable (its name, its description, its arguments).
    #[error("prompt `{name}` cannot be registered: {reason}")]
    InvalidPrompt {
        /// The prompt.
        name: String,
        /// What is wrong with it.
        reason: String,
    },
    /// Another prompt already has this name.
    #[error("a prompt named `{name}` is already registered")]
    DuplicatePrompt {
        /// The name.
        name: String,
    },
    /// A server setting has a value that cannot be honoured (a requestState lifetime of
    /// centuries).
    #[error("the server setting `{setting}` cannot be used: {reason}")]
    InvalidSetting {
        /// The builder method that set it.
        setting: &'static str,
        /// What is wrong with it.
        reason: String,
    },
    /// A directory of prompt files
    /// ([`ServerBuilder::prompt_dir`](crate::ServerBuilder::prompt_dir)) could not be
    /// loaded: every problem of every file, each with its file and line.
    #[cfg(feature = "prompt-files")]
    #[error("{0}")]
    PromptFiles(crate::prompt::LoadError),
    /// A skills folder ([`ServerBuilder::skills_dir`](crate::ServerBuilder::skills_dir)) could
    /// not be loaded: every problem of every skill, each with its file, line and column.
    #[cfg(feature = "skills")]
    #[error("{0}")]
    SkillFiles(crate::prompt::LoadError),
}

fn quoted(names: &[&str]) -> String {
    names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}
