//! Prompts: message templates a user picks in the client and fills with arguments.
//!
//! - [`Prompt`]: a prompt's definition and how it renders; [`prompt_fn`] makes one from an
//!   async closure over the arguments, `#[mcp_prompt]` from an async function (see
//!   [`collected`]), whose parameters are parsed with [`FromArgument`].
//! - [`IntoPromptResult`] is what rendering may return (messages, one message, a `String`
//!   as one user message, or a `Result`); [`PromptError`] is how it fails.
//!
//! - [`PromptTemplates`] (feature `prompt-files`, on by default): prompts written as JSON,
//!   YAML or Markdown files in a directory, rendered with a strict template engine; see
//!   [`templates`].
//!
//! Arguments arrive as strings (the protocol has no other kind). The server checks that
//! every argument the definition marks required is present, and refuses unknown ones,
//! before the prompt renders (`-32602` naming the argument).

#[cfg(feature = "prompt-files")]
pub mod templates;
#[cfg(feature = "prompt-files")]
pub use templates::{LoadError, LoadProblem, PromptTemplates, TemplatePrompt};

use crate::context::RequestContext;
use crate::protocol::{
    Completion, ErrorCode, GetPromptResult, McpError, PromptDefinition, PromptMessage,
};
use futures::future::BoxFuture;
use std::collections::BTreeMap;
use std::fmt;
use std::future::Future;
use std::str::FromStr;
use std::sync::Arc;

/// A prompt's arguments, by name; every value is a string.
pub type PromptArguments = BTreeMap<String, String>;

/// A prompt.
pub trait Prompt: Send + Sync + 'static {
    /// The prompt as listed. Called once, at registration.
    fn definition(&self) -> PromptDefinition;

    /// Renders the prompt with `arguments` (required ones present, no unknown ones).
    fn get(
        &self,
        arguments: PromptArguments,
        cx: RequestContext,
    ) -> BoxFuture<'static, Result<GetPromptResult, PromptError>>;

    /// Suggests values for `argument` given what was typed (`value`) and the arguments
    /// already chosen (`completion/complete`). None by default.
    fn complete(
        &self,
        argument: &str,
        value: &str,
        chosen: &PromptArguments,
    ) -> BoxFuture<'static, Completion> {
        let _ = (argument, value, chosen);
        Box::pin(std::future::ready(Completion::default()))
    }

    /// The OAuth scopes a caller must hold to see and use this item (all of them): to a
    /// caller without them it does not exist (see `server::visibility`). None by default.
    fn scopes(&self) -> Vec<String> {
        Vec::new()
    }
}

/// Why a prompt could not be rendered.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum PromptError {
    /// An argument is missing, unknown or unusable: `-32602` with the message.
    InvalidArguments(String),
    /// Anything else: `-32603` with the message.
    Failed(String),
}

impl PromptError {
    /// An argument problem, in words that name the argument.
    pub fn invalid_arguments(message: impl fmt::Display) -> Self {
        Self::InvalidArguments(message.to_string())
    }

    /// Rendering failed for `reason`.
    pub fn failed(reason: impl fmt::Display) -> Self {
        Self::Failed(reason.to_string())
    }

    /// The JSON-RPC error.
    pub fn into_mcp_error(self) -> McpError {
        match self {
            Self::InvalidArguments(m) => McpError::new(ErrorCode::INVALID_PARAMS, m),
            Self::Failed(m) => McpError::new(ErrorCode::INTERNAL_ERROR, m),
        }
    }
}

impl fmt::Display for PromptError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::InvalidArguments(m) | Self::Failed(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for PromptError {}

impl From<String> for PromptError {
    fn from(message: String) -> Self {
        Self::Failed(message)
    }
}

impl From<&str> for PromptError {
    fn from(message: &str) -> Self {
        Self::Failed(message.to_owned())
    }
}

/// Turns what a prompt returns into a `prompts/get` result.
///
/// Implemented for [`GetPromptResult`], `Vec<PromptMessage>`, [`PromptMessage`], text
/// (`String`, `&str`: one user message) and `Result<T, E>` where `E: Into<PromptError>`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from an MCP prompt",
    label = "this type does not implement `IntoPromptResult`",
    note = "return `String` (one user message), `PromptMessage`, `Vec<PromptMessage>`, `GetPromptResult`, or `Result<T, E>` with `E: Into<PromptError>`"
)]
pub trait IntoPromptResult {
    /// The conversion.
    fn into_prompt_result(self) -> Result<GetPromptResult, PromptError>;
}

impl IntoPromptResult for GetPromptResult {
    fn into_prompt_result(self) -> Result<GetPromptResult, PromptError> {
        Ok(self)
    }
}

impl IntoPromptResult for Vec<PromptMessage> {
    fn into_prompt_result(self) -> Result<GetPromptResult, PromptError> {
        Ok(GetPromptResult::new(self))
    }
}

impl IntoPromptResult for PromptMessage {
    fn into_prompt_result(self) -> Result<GetPromptResult, PromptError> {
        Ok(GetPromptResult::new(vec![self]))
    }
}

impl IntoPromptResult for String {
    fn into_prompt_result(self) -> Result<GetPromptResult, PromptError> {
        PromptMessage::user(self).into_prompt_result()
    }
}

impl IntoPromptResult for &str {
    fn into_prompt_result(self) -> Result<GetPromptResult, PromptError> {
        PromptMessage::user(self).into_prompt_result()
    }
}

impl<T: IntoPromptResult, E: Into<PromptError>> IntoPromptResult for Result<T, E> {
    fn into_prompt_result(self) -> Result<GetPromptResult, PromptError> {
        self.map_err(Into::into)?.into_prompt_result()
    }
}

/// A prompt made from a definition and an async closure; see [`prompt_fn`].
pub struct FnPrompt<F> {
    definition: PromptDefinition,
    f: F,
}

impl<F> fmt::Debug for FnPrompt<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FnPrompt")
            .field("name", &self.definition.name)
            .finish_non_exhaustive()
    }
}

/// Makes a prompt from a definition and an async closure over the arguments and context.
///
/// ```
/// use mcp_runtime::prelude::*;
/// use mcp_runtime::prompt::prompt_fn;
/// use mcp_runtime::protocol::{PromptArgument, PromptDefinition};
///
/// let review = prompt_fn(
///     PromptDefinition::new("code_review", "Asks for a review of some code.")
///         .with_argument(PromptArgument::required("code", "The code to review")),
///     |args, _cx| async move { format!("Please review this code:\n{}", args["code"]) },
/// );
/// let server = Server::builder("demo", "1.0.0").prompt(review).build().unwrap();
/// assert!(server.capabilities().prompts.is_some());
/// ```
pub fn prompt_fn<F, Fut, R>(definition: PromptDefinition, f: F) -> FnPrompt<F>
where
    F: Fn(PromptArguments, RequestContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = R> + Send + 'static,
    R: IntoPromptResult,
{
    FnPrompt { definition, f }
}

impl<F, Fut, R> Prompt for FnPrompt<F>
where
    F: Fn(PromptArguments, RequestContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = R> + Send + 'static,
    R: IntoPromptResult,
{
    fn definition(&self) -> PromptDefinition {
        self.definition.clone()
    }

    fn get(
        &self,
        arguments: PromptArguments,
        cx: RequestContext,
    ) -> BoxFuture<'static, Result<GetPromptResult, PromptError>> {
        let fut = (self.f)(arguments, cx);
        Box::pin(async move { fut.await.into_prompt_result() })
    }
}

/// A type a `#[mcp_prompt]` parameter can have: parsed from the string the client sends.
///
/// Implemented for every [`FromStr`] type whose error is [`Display`](fmt::Display): `String`,
/// numbers, `bool`, your own types (an enum implementing `FromStr` and `JsonSchema` also
/// completes from its values). A value that does not parse is answered with
/// [`PromptError::InvalidArguments`], naming the argument. `Option<T>` makes the argument
/// optional.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a prompt argument",
    label = "prompt arguments are strings on the wire, parsed with `FromStr`",
    note = "use `String`, a number, or a type implementing `FromStr` whose error implements `Display`; write `Option<T>` for an optional argument; if the server provides this value, mark the parameter `#[mcp(inject)]`"
)]
pub trait FromArgument: Sized {
    /// Parses the argument's text; the error says why it is not a value.
    fn from_argument(text: &str) -> Result<Self, String>;
}

impl<T> FromArgument for T
where
    T: FromStr,
    T::Err: fmt::Display,
{
    fn from_argument(text: &str) -> Result<Self, String> {
        text.parse().map_err(|e: T::Err| e.to_string())
    }
}

/// Plumbing of the macros: crate-private here, named by generated code through
/// `__private` only.
pub(crate) mod prompt_factory {
    use super::*;

    /// A prompt registered by `#[mcp_prompt]`; see [`collected`]. Plumbing of the macro (named
    /// through `__private`), not a public API.
    #[derive(Debug, Clone, Copy)]
    pub struct PromptFactory {
        /// Builds the prompt.
        pub make: fn() -> Arc<dyn Prompt>,
    }

    inventory::collect!(PromptFactory);
}
use prompt_factory::PromptFactory;

/// Every prompt defined with `#[mcp_prompt]` anywhere in the program (register them with
/// `ServerBuilder::collected_prompts`).
pub fn collected() -> Vec<Arc<dyn Prompt>> {
    inventory::iter::<PromptFactory>()
        .map(|f| (f.make)())
        .collect()
}
