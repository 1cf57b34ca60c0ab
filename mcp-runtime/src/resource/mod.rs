//! Resources: data a client reads by URI.
//!
//! - [`Resource`]: one resource with a fixed URI (`config://app`).
//! - [`ResourceTemplate`]: a family of resources named by an RFC 6570 URI template
//!   (`users://{id}/profile`, see [`uri_template`]); a read of a matching URI gets the
//!   template's variables.
//! - [`resource_fn`] and [`template_fn`] make either from an async closure;
//!   [`IntoContents`] is what a read may return (text, bytes, [`Json`], contents, or a
//!   `Result`); [`ResourceError`] is how a read fails (not found, a bad URI, anything else).
//!
//! The server registers them (`ServerBuilder::resource`, `ServerBuilder::resource_template`),
//! lists them (`resources/list`, `resources/templates/list`) and routes `resources/read`: an
//! exact URI first, then the templates in the order they were registered. Every read passes
//! through the request pipeline (audit, panic isolation, the server's layers).
//!
//! [`Json`]: crate::tool::Json

mod contents;
pub mod uri_template;

pub use contents::{IntoContents, ResourceError};
pub use uri_template::{UriTemplate, UriTemplateError, Variables};

use crate::protocol::{
    Completion, ResourceContents, ResourceDefinition, ResourceTemplateDefinition,
};
use crate::tool::RequestContext;
use futures::future::BoxFuture;
use std::collections::BTreeMap;
use std::fmt;
use std::future::Future;

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
