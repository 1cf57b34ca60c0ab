//! Resources: data a client reads by URI.
//!
//! - [`Resource`]: one resource with a fixed URI (`config://app`).
//! - [`ResourceTemplate`]: a family of resources named by an RFC 6570 URI template
//!   (`users://{id}/profile`, see [`uri_template`]); a read of a matching URI gets the
//!   template's variables.
//! - [`resource_fn`] and [`template_fn`] make either from an async closure, and
//!   `#[mcp_resource]` from an async function (see [`collected`] and
//!   [`collected_templates`]); [`IntoContents`] is what a read may return (text, bytes,
//!   [`Json`], contents, or a `Result`); [`ResourceError`] is how a read fails (not found, a
//!   bad URI, anything else); [`FromVariable`] is what a template variable may be parsed
//!   into.
//!
//! The server registers them (`ServerBuilder::resource`, `ServerBuilder::resource_template`),
//! lists them (`resources/list`, `resources/templates/list`) and routes `resources/read`: an
//! exact URI first, then the templates in the order they were registered. Every read passes
//! through the request pipeline (audit, panic isolation, the server's layers).
//!
//! [`Json`]: crate::tool::Json

mod app;
mod catalog;
mod contents;
pub mod uri_template;

pub use crate::context::ResourceError;
pub use app::{AppView, Html};
pub use catalog::{ResourceCatalog, ResourceSink};
pub use contents::IntoContents;
pub use uri_template::{UriTemplate, UriTemplateError, Variables};

use crate::context::RequestContext;
use crate::protocol::{
    Completion, ResourceContents, ResourceDefinition, ResourceTemplateDefinition,
};
use futures::future::BoxFuture;
use std::collections::BTreeMap;
use std::fmt;
use std::future::Future;
use std::str::FromStr;
use std::sync::Arc;

/// A resource with a fixed URI.
///
/// Implement it by hand when the definition is only known at run time, or use
/// [`resource_fn`].
pub trait Resource: Send + Sync + 'static {
    /// The resource as listed. Called once, at registration.
    fn definition(&self) -> ResourceDefinition;

    /// Reads it. The contents carry the resource's URI.
    ///
    /// Cancel safety: the future is dropped when the client cancels the request.
    fn read(
        &self,
        cx: RequestContext,
    ) -> BoxFuture<'static, Result<Vec<ResourceContents>, ResourceError>>;

    /// The OAuth scopes a caller must hold to see and use this item (all of them): to a
    /// caller without them it does not exist (see `server::visibility`). None by default.
    fn scopes(&self) -> Vec<String> {
        Vec::new()
    }

    /// Whether this is a skill's `SKILL.md`, which the skills extension lists as a resource:
    /// visibility rules are then asked about the skill, so one rule hides both.
    #[doc(hidden)]
    fn is_skill_manifest(&self) -> bool {
        false
    }
}

/// A family of resources named by a URI template.
pub trait ResourceTemplate: Send + Sync + 'static {
    /// The template as listed. Called once, at registration, where its `uriTemplate` is
    /// parsed (an unsupported template is a registration error).
    fn definition(&self) -> ResourceTemplateDefinition;

    /// Reads the resource `uri`, which matched the template with `variables`.
    fn read(
        &self,
        uri: String,
        variables: Variables,
        cx: RequestContext,
    ) -> BoxFuture<'static, Result<Vec<ResourceContents>, ResourceError>>;

    /// Suggests values for `variable` given what was typed (`value`) and the variables
    /// already chosen (`completion/complete`). None by default.
    fn complete(
        &self,
        variable: &str,
        value: &str,
        chosen: &BTreeMap<String, String>,
    ) -> BoxFuture<'static, Completion> {
        let _ = (variable, value, chosen);
        Box::pin(std::future::ready(Completion::default()))
    }

    /// Whether `..` and `.` may appear in extracted values (refused by default, so a
    /// template variable used as a path cannot climb out of it).
    fn allow_dot_segments(&self) -> bool {
        false
    }

    /// The OAuth scopes a caller must hold to see and use this item (all of them): to a
    /// caller without them it does not exist (see `server::visibility`). None by default.
    fn scopes(&self) -> Vec<String> {
        Vec::new()
    }
}

/// A resource made from a definition and an async closure; see [`resource_fn`].
pub struct FnResource<F> {
    definition: ResourceDefinition,
    f: F,
}

impl<F> fmt::Debug for FnResource<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FnResource")
            .field("uri", &self.definition.uri)
            .finish_non_exhaustive()
    }
}

/// Makes a resource from a definition and an async closure over the request context.
///
/// ```
/// use mcp_runtime::prelude::*;
/// use mcp_runtime::protocol::ResourceDefinition;
/// use mcp_runtime::resource::resource_fn;
///
/// let config = resource_fn(
///     ResourceDefinition::new("config://app", "config")
///         .with_description("The application's configuration.")
///         .with_mime_type("application/json"),
///     |_cx| async { r#"{"theme": "dark"}"# },
/// );
/// let server = Server::builder("demo", "1.0.0").resource(config).build().unwrap();
/// assert!(server.capabilities().resources.is_some());
/// ```
pub fn resource_fn<F, Fut, R>(definition: ResourceDefinition, f: F) -> FnResource<F>
where
    F: Fn(RequestContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = R> + Send + 'static,
    R: IntoContents,
{
    FnResource { definition, f }
}

impl<F, Fut, R> Resource for FnResource<F>
where
    F: Fn(RequestContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = R> + Send + 'static,
    R: IntoContents,
{
    fn definition(&self) -> ResourceDefinition {
        self.definition.clone()
    }

    fn read(
        &self,
        cx: RequestContext,
    ) -> BoxFuture<'static, Result<Vec<ResourceContents>, ResourceError>> {
        let fut = (self.f)(cx);
        let uri = self.definition.uri.clone();
        let mime = self.definition.mime_type.clone();
        Box::pin(async move { fut.await.into_contents(&uri, mime.as_deref()) })
    }
}

/// A resource template made from a definition and an async closure; see [`template_fn`].
pub struct FnTemplate<F> {
    definition: ResourceTemplateDefinition,
    f: F,
}

impl<F> fmt::Debug for FnTemplate<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FnTemplate")
            .field("uri_template", &self.definition.uri_template)
            .finish_non_exhaustive()
    }
}

/// Makes a resource template from a definition and an async closure over the variables
/// extracted from the URI and the request context.
///
/// ```
/// use mcp_runtime::prelude::*;
/// use mcp_runtime::protocol::ResourceTemplateDefinition;
/// use mcp_runtime::resource::template_fn;
///
/// let greeting = template_fn(
///     ResourceTemplateDefinition::new("greeting://{name}", "greeting")
///         .with_description("A greeting for anyone."),
///     |vars, _cx| async move { format!("Hello, {}!", vars.get("name").unwrap_or("stranger")) },
/// );
/// let server = Server::builder("demo", "1.0.0").resource_template(greeting).build().unwrap();
/// assert!(server.capabilities().resources.is_some());
/// ```
pub fn template_fn<F, Fut, R>(definition: ResourceTemplateDefinition, f: F) -> FnTemplate<F>
where
    F: Fn(Variables, RequestContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = R> + Send + 'static,
    R: IntoContents,
{
    FnTemplate { definition, f }
}

impl<F, Fut, R> ResourceTemplate for FnTemplate<F>
where
    F: Fn(Variables, RequestContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = R> + Send + 'static,
    R: IntoContents,
{
    fn definition(&self) -> ResourceTemplateDefinition {
        self.definition.clone()
    }

    fn read(
        &self,
        uri: String,
        variables: Variables,
        cx: RequestContext,
    ) -> BoxFuture<'static, Result<Vec<ResourceContents>, ResourceError>> {
        let fut = (self.f)(variables, cx);
        let mime = self.definition.mime_type.clone();
        Box::pin(async move { fut.await.into_contents(&uri, mime.as_deref()) })
    }
}

/// A type a `#[mcp_resource]` template parameter can have: parsed from the variable's text.
///
/// Implemented for every [`FromStr`] type whose error is [`Display`](fmt::Display): `String`,
/// numbers, `bool`, your own types. A value that does not parse makes the read fail with
/// [`ResourceError::InvalidUri`], naming the variable. The parameter may also be written
/// `Option<T>` (a variable a URI may leave out, as those of `{?a,b}`) or `Vec<T>` (an
/// exploded variable, `{/path*}`), with `T: FromVariable`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be parsed from a URI template variable",
    label = "template parameters are parsed from the URI's text with `FromStr`",
    note = "use `String`, a number, or a type implementing `FromStr` whose error implements `Display`; write `Option<T>` for a variable a URI may leave out and `Vec<T>` for an exploded one (`{{/path*}}`); if the server provides this value, mark the parameter `#[mcp(inject)]`"
)]
pub trait FromVariable: Sized {
    /// Parses the variable's (percent-decoded) text; the error says why it is not a value.
    fn from_variable(text: &str) -> Result<Self, String>;
}

impl<T> FromVariable for T
where
    T: FromStr,
    T::Err: fmt::Display,
{
    fn from_variable(text: &str) -> Result<Self, String> {
        text.parse().map_err(|e: T::Err| e.to_string())
    }
}

/// Plumbing of the macros: crate-private here, named by generated code through
/// `__private` only.
pub(crate) mod resource_factory {
    use super::*;

    /// A resource registered by `#[mcp_resource(uri = "…")]`; see [`collected`]. Plumbing of
    /// the macro (named through `__private`), not a public API.
    #[derive(Debug, Clone, Copy)]
    pub struct ResourceFactory {
        /// Builds the resource.
        pub make: fn() -> Arc<dyn Resource>,
    }

    inventory::collect!(ResourceFactory);
}
use resource_factory::ResourceFactory;

/// Plumbing of the macros: crate-private here, named by generated code through
/// `__private` only.
pub(crate) mod template_factory {
    use super::*;

    /// A resource template registered by `#[mcp_resource(template = "…")]`; see
    /// [`collected_templates`]. Plumbing of the macro (named through `__private`), not a
    /// public API.
    #[derive(Debug, Clone, Copy)]
    pub struct TemplateFactory {
        /// Builds the template.
        pub make: fn() -> Arc<dyn ResourceTemplate>,
    }

    inventory::collect!(TemplateFactory);
}
use template_factory::TemplateFactory;

/// Every resource defined with `#[mcp_resource(uri = "…")]` anywhere in the program
/// (register them with `ServerBuilder::collected_resources`).
pub fn collected() -> Vec<Arc<dyn Resource>> {
    inventory::iter::<ResourceFactory>()
        .map(|f| (f.make)())
        .collect()
}

/// Every resource template defined with `#[mcp_resource(template = "…")]` anywhere in the
/// program (`ServerBuilder::collected_resources` registers them too).
pub fn collected_templates() -> Vec<Arc<dyn ResourceTemplate>> {
    inventory::iter::<TemplateFactory>()
        .map(|f| (f.make)())
        .collect()
}
