//! Prompt templates loaded from files: one prompt per file in a directory, in JSON, YAML or
//! Markdown, rendered with [minijinja](https://docs.rs/minijinja).
//!
//! ```
//! use mcp_runtime::prelude::*;
//! use mcp_runtime::prompt::PromptTemplates;
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let dir = tempfile::tempdir()?;
//! # let prompts = dir.path();
//! std::fs::write(
//!     prompts.join("review.md"),
//!     "---\ndescription: Asks for a code review.\narguments:\n  - name: code\n    required: true\n---\nPlease review:\n\n{{ code }}\n",
//! )?;
//! let templates = PromptTemplates::from_dir(prompts)?;
//! assert_eq!(templates.names().collect::<Vec<_>>(), ["review"]);
//! let server = Server::builder("reviews", "1.0.0").prompts(templates).build()?;
//! assert_eq!(server.prompts().names(), ["review"]);
//! # Ok(())
//! # }
//! ```
//!
//! Or in one step, with loading problems reported by `build()`:
//! `Server::builder(…).prompt_dir("prompts")`.
//!
//! # Files
//!
//! The files of the directory itself (not its subdirectories) whose extension is `.json`,
//! `.yaml`, `.yml`, `.md` or `.markdown` (any case) are read, one prompt each; every other
//! file, and hidden files (an editor's `.x.json.swp`), are skipped. Files load in name order.
//!
//! **JSON and YAML** have the shape of the seed design's `summarize_file.json`:
//!
//! ```yaml
//! name: summarize_file          # or `id`; without either, the file's name without extension
//! title: Summarize a file       # optional
//! description: Summarizes a file.
//! inputSchema:                  # JSON Schema of the arguments (or `arguments:`, below)
//!   type: object
//!   properties:
//!     fileUri: {type: string, description: The file's resource URI}
//!     maxLength: {type: integer, default: 100}
//!   required: [fileUri]
//! messages:
//!   - role: system              # user, assistant, or system (served as user, see below)
//!     content:
//!       - type: text
//!         text: You summarize text concisely.
//!   - role: user
//!     content:                  # an array of items, one item, or a string (one text item)
//!       - {type: text, text: "Summarize in about {{ maxLength }} words:"}
//!       - {type: resource, uri: "{{ fileUri }}"}     # or resource: {uri: …, mimeType: …}
//! ```
//!
//! Content items are `text` (`text`), `resource` (`uri`, read and embedded),
//! `resource_link` (`uri`, `name`, optional `title`, `description`, `mimeType`: a link the
//! client may follow, not read) and `image`/`audio` (`data` in base64 and `mimeType`, as
//! written). JSON files may carry `//` and `/* */` comments and trailing commas, as the seed's
//! example does.
//!
//! **Markdown** is how servers in the wild write prompts: YAML front matter between `---`
//! lines (`name`, `title`, `description`, then `arguments` or `inputSchema`, and optionally
//! `role`), and the body is the text of one message (a `user` one unless `role` says
//! otherwise). Other front-matter keys (`argument-hint`, `allowed-tools`, … that other
//! tools read from the same files) are ignored, where a JSON or YAML prompt file's unknown
//! key is a load error (most likely a typo there).
//!
//! `arguments: [{name, title, description, required}]` declares string arguments, the same as
//! an `inputSchema` whose properties are `{type: string}`.
//!
//! # Rendering
//!
//! - **Strict.** A variable that is not defined is an error, never an empty string, so a
//!   typo cannot silently drop part of a prompt. Loading already refuses a template that
//!   uses a variable the schema does not declare; at render time, an optional argument that
//!   was not given (and has no schema `default`) is undefined: guard it with
//!   `{% if name is defined %}…{% endif %}` or give it a `default`.
//! - **Arguments are data.** Each value is passed to the template engine as a value, so a
//!   value holding `{{ x }}` is rendered as those characters; nothing is rendered twice.
//! - **No escaping.** Prompts are text for a model, not HTML.
//! - **Block lines vanish.** A line holding only a `{% … %}` tag leaves no blank line or
//!   indentation behind (minijinja's `trim_blocks` and `lstrip_blocks`).
//! - **Typed arguments.** Values arrive as strings; each is converted by its property's
//!   `type` (`"100"` → `100` for an integer, numbers, `true`/`false`, JSON for arrays and
//!   objects), schema `default`s fill the ones not given, and the whole is validated
//!   against the schema: every violation is reported in one `-32602`, each naming its
//!   argument. The listed arguments come from the schema's properties (in file order),
//!   with their descriptions; an argument is listed as required when the schema requires
//!   it and gives it no default.
//! - **Completion.** An argument whose schema has an `enum` completes from its values (those
//!   starting with what was typed); a boolean from `true` and `false`.
//!
//! # Resources
//!
//! A `resource` item's `uri` is rendered, then read through the server's own resources
//! ([`RequestContext::read_resource`](crate::context::RequestContext::read_resource)), exactly
//! as a client's `resources/read` would be, and embedded (text or blob). So a prompt reaches
//! only what the server serves: a `file://` URI outside what its file resources allow is
//! refused by them. A URI that cannot be read is a `-32602` naming the argument(s) the URI
//! was made from (`argument `fileUri`: the resource `…` cannot be read: …`). A resource with
//! several contents gives several messages.
//!
//! # Roles and content arrays
//!
//! An MCP prompt message has the role `user` or `assistant` and exactly one content block.
//! Files written for other systems have `system` messages and arrays of content items, so:
//!
//! - **Each content item becomes its own message**, with its message's role, in order (the
//!   spec's own answer: "several blocks = several messages").
//! - **`system` becomes `user`.** A client puts a prompt's messages into the conversation as
//!   turns; the result's `description` is shown to the person choosing, and clients do not
//!   send it to the model, so instructions put there would be lost. As the first user turn,
//!   the model still reads them, which is what the author wanted.
//!
//! # Loading reports everything
//!
//! [`PromptTemplates::from_dir`] loads all files or none, and its [`LoadError`] lists every
//! problem of every file with its file, line and column (`prompts/review.yaml:12:5: …`):
//! JSON or YAML syntax, unknown or missing keys (a `description` is required), an invalid
//! `inputSchema` (checked against its meta-schema, each violation at its key), template
//! syntax errors, variables a template uses but the schema does not declare (minijinja's
//! undeclared-variable analysis), and prompt names used by two files. Positions inside a
//! template are exact for Markdown bodies and YAML literal blocks (`|`); for other strings
//! they are the string's start, with the line within the string.
//!
//! # Watching
//!
//! With the `prompt-watch` feature, `PromptTemplates::watch` reloads files as they change
//! (see `server::PromptWatcher`).

mod arguments;
mod check;
mod checked;
mod coerce;
mod compile;
mod content;
mod error;
pub(crate) mod load;
mod render;
pub(crate) mod source;

pub use error::{LoadError, LoadProblem};

use crate::context::RequestContext;
use crate::prompt::{Prompt, PromptArguments, PromptError};
use crate::protocol::{Completion, GetPromptResult, PromptDefinition};
use checked::PromptTemplate;
use futures::future::BoxFuture;
use std::fmt;
use std::path::Path;
use std::sync::Arc;

/// The file extensions read from a prompt directory (compared ignoring ASCII case).
pub const PROMPT_FILE_EXTENSIONS: [&str; 5] = ["json", "yaml", "yml", "md", "markdown"];

/// The prompts of a directory of template files (see the [module](self) documentation).
///
/// Register them with [`ServerBuilder::prompts`](crate::ServerBuilder::prompts) (it takes
/// `PromptTemplates` as is), or use
/// [`ServerBuilder::prompt_dir`](crate::ServerBuilder::prompt_dir).
pub struct PromptTemplates {
    prompts: Vec<TemplatePrompt>,
}

impl fmt::Debug for PromptTemplates {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.prompts.iter().map(|p| p.name()))
            .finish()
    }
}

impl PromptTemplates {
    /// Loads every prompt file of `dir`: all of them, or every problem of every file.
    ///
    /// ```
    /// use mcp_runtime::prompt::PromptTemplates;
    ///
    /// # fn main() -> std::io::Result<()> {
    /// # let dir = tempfile::tempdir()?;
    /// std::fs::write(
    ///     dir.path().join("greet.yaml"),
    ///     "description: Greets someone.\narguments: [{name: who, required: true}]\nmessages:\n  - role: user\n    content: Say hello to {{ who }}.\n",
    /// )?;
    /// let templates = PromptTemplates::from_dir(dir.path()).expect("valid files");
    /// assert_eq!(templates.len(), 1);
    /// # Ok(())
    /// # }
    /// ```
    pub fn from_dir(dir: impl AsRef<Path>) -> Result<Self, LoadError> {
        let prompts = load::load_dir(dir.as_ref())?
            .into_iter()
            .map(TemplatePrompt::new)
            .collect();
        Ok(Self { prompts })
    }

    /// The prompts' names, in file order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.prompts.iter().map(TemplatePrompt::name)
    }

    /// How many prompts there are.
    pub fn len(&self) -> usize {
        self.prompts.len()
    }

    /// Whether the directory held no prompt files.
    pub fn is_empty(&self) -> bool {
        self.prompts.is_empty()
    }

    /// The prompt named `name`.
    pub fn get(&self, name: &str) -> Option<&TemplatePrompt> {
        self.prompts.iter().find(|p| p.name() == name)
    }
}

impl IntoIterator for PromptTemplates {
    type Item = Arc<dyn Prompt>;
    type IntoIter =
        std::iter::Map<std::vec::IntoIter<TemplatePrompt>, fn(TemplatePrompt) -> Arc<dyn Prompt>>;

    fn into_iter(self) -> Self::IntoIter {
        self.prompts
            .into_iter()
            .map(|p| Arc::new(p) as Arc<dyn Prompt>)
    }
}

/// One prompt loaded from a file: a [`Prompt`] that renders its file's templates.
#[derive(Clone)]
pub struct TemplatePrompt {
    pub(crate) template: Arc<PromptTemplate>,
}

impl fmt::Debug for TemplatePrompt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TemplatePrompt")
            .field("name", &self.name())
            .field("file", &self.template.file)
            .finish_non_exhaustive()
    }
}

impl TemplatePrompt {
    pub(crate) fn new(template: PromptTemplate) -> Self {
        Self {
            template: Arc::new(template),
        }
    }

    /// Loads one prompt file (its format by its extension; see the [module](self) docs).
    ///
    /// ```
    /// use mcp_runtime::prompt::TemplatePrompt;
    ///
    /// # fn main() -> std::io::Result<()> {
    /// # let dir = tempfile::tempdir()?;
    /// let file = dir.path().join("hello.md");
    /// std::fs::write(&file, "---\ndescription: Says hello.\n---\nHello!\n")?;
    /// let prompt = TemplatePrompt::from_file(&file).expect("a valid file");
    /// assert_eq!(prompt.name(), "hello");
    /// # Ok(())
    /// # }
    /// ```
    pub fn from_file(file: impl AsRef<Path>) -> Result<Self, LoadError> {
        load::load_file(file.as_ref())
            .map(Self::new)
            .map_err(LoadError::new)
    }

    /// The prompt's name.
    pub fn name(&self) -> &str {
        self.template.name()
    }

    /// The file it was loaded from.
    pub fn file(&self) -> &Path {
        &self.template.file
    }
}

impl Prompt for TemplatePrompt {
    fn definition(&self) -> PromptDefinition {
        self.template.definition.clone()
    }

    fn get(
        &self,
        arguments: PromptArguments,
        cx: RequestContext,
    ) -> BoxFuture<'static, Result<GetPromptResult, PromptError>> {
        let template = self.template.clone();
        Box::pin(async move { template.render(arguments, cx).await })
    }

    fn complete(
        &self,
        argument: &str,
        value: &str,
        _chosen: &PromptArguments,
    ) -> BoxFuture<'static, Completion> {
        Box::pin(std::future::ready(self.template.complete(argument, value)))
    }
}

#[cfg(test)]
mod tests;
