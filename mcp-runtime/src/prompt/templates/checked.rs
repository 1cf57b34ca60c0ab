//! What loading makes of a prompt file and rendering reads: the definition clients list,
//! the argument schema, and each message's content with its templates compiled into the
//! prompt's own `minijinja` environment (compiled once, at load, so a render only fills in
//! values).

use super::source::Pos;
use crate::protocol::{Content, PromptDefinition, Role};
use minijinja::Environment;
use serde_json::{Map, Value};
use std::path::PathBuf;

/// A checked prompt file, its templates compiled.
pub(crate) struct PromptTemplate {
    /// The file it came from.
    pub(crate) file: PathBuf,
    /// Where its name is (the `name`/`id` value, or the file's start for a name taken from
    /// the file name).
    pub(crate) name_pos: Pos,
    pub(crate) definition: PromptDefinition,
    /// Each argument's schema, by name.
    pub(crate) properties: Map<String, Value>,
    pub(crate) validator: jsonschema::Validator,
    pub(crate) messages: Vec<MessageTemplate>,
    pub(crate) env: Environment<'static>,
}

impl PromptTemplate {
    pub(crate) fn name(&self) -> &str {
        &self.definition.name
    }
}

/// One message: a role and one content item (a file's content arrays are flattened).
pub(crate) struct MessageTemplate {
    pub(crate) role: Role,
    pub(crate) item: ItemTemplate,
}

/// A template compiled into the prompt's environment.
pub(crate) struct Compiled {
    /// Its name in the environment.
    pub(crate) name: String,
    /// The arguments it uses.
    pub(crate) uses: Vec<String>,
    /// Where it is, `file:line:column`, for messages at render time.
    pub(crate) at: String,
}

/// What one message holds, before rendering.
pub(crate) enum ItemTemplate {
    /// A text block rendered from a template.
    Text(Compiled),
    /// A resource read through the server's own resources and embedded.
    Resource {
        uri: Compiled,
        mime_type: Option<String>,
    },
    /// A link to a resource (not read).
    ResourceLink {
        uri: Compiled,
        name: String,
        title: Option<String>,
        description: Option<String>,
        mime_type: Option<String>,
    },
    /// An image or audio block, as written.
    Static(Content),
}
