//! The resources and resource-templates kinds: what is checked at registration (the URI,
//! the name, the template's syntax) and how each is listed. Routing a read (an exact URI
//! first, then the templates in registration order) is [`ResourceRegistry::route`].

use super::catalog::{Catalog, Kind, PageSettings, Snapshot};
use super::{ChangeFeed, Primitive, RegistrationError};
use crate::context::RequestContext;
use crate::pipeline::{ItemStack, McpRequest, ReadResource, ReadTarget, ServerPolicies};
use crate::protocol::JsonObject;
use crate::protocol::{McpError, ResourceDefinition, ResourceTemplateDefinition};
use crate::resource::{Resource, ResourceTemplate, UriTemplate, Variables};
use crate::server::visibility::{ItemKind, View};
use serde::Serialize;
use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use tokio::sync::broadcast;

/// How many announced updates a slow connection may fall behind by before it misses some
/// (it then gets the ones that follow; an update says only "read it again").
const UPDATE_BACKLOG: usize = 1024;

/// How a URI a mounted template matched becomes the one its server knows.
pub(crate) type Unmount = Arc<dyn Fn(&str) -> Option<String> + Send + Sync>;

/// How a mounted server's resources are served by the server it is mounted into.
pub(crate) struct MountedAs {
    /// Its URI (or URI template) there.
    pub(crate) mount: Box<dyn Fn(&str) -> String + Send + Sync>,
    /// The URI its own server knows, from one a mounted template matched.
    pub(crate) unmount: Unmount,
    /// Its own server's state and resources.
    pub(crate) home: Arc<crate::context::Home>,
    /// What is done to its read results (their contents' URIs mounted).
    pub(crate) remap: crate::pipeline::Remap,
}

/// The URIs of the resources and templates one mounted server added.
#[derive(Debug, Default)]
pub(crate) struct MountedUris {
    resources: Vec<String>,
    templates: Vec<String>,
}

/// A registered resource.
pub(crate) struct RegisteredResource {
    pub(crate) uri: Arc<str>,
    pub(crate) stack: ItemStack<ReadResource>,
    definition: ResourceDefinition,
    /// Its URI on the server it was mounted from (`ServerBuilder::mount`): what that
    /// server's code sees.
    own_uri: Option<Arc<str>>,
    /// The scopes a caller must hold to see it (`Resource::scopes`).
    pub(crate) scopes: Arc<[String]>,
    /// What visibility rules see it as: a resource, or a skill (its `SKILL.md`).
    pub(crate) item: ItemKind,
}

impl RegisteredResource {
    /// This resource as another server serves it: at `uri`, read through its own stack
    /// (with `home`'s state) as `self.uri`, the contents' URIs rewritten by `remap`.
    pub(crate) fn mounted(
        &self,
        uri: String,
        home: &Arc<crate::context::Home>,
        remap: crate::pipeline::Remap,
    ) -> Self {
        let mut definition = self.definition.clone();
        definition.uri = uri.clone();
        Self {
            uri: uri.into(),
            stack: self.stack.at_home(home.clone()).remapped(remap),
            definition,
            own_uri: Some(self.own_uri.clone().unwrap_or_else(|| self.uri.clone())),
            scopes: self.scopes.clone(),
            item: self.item,
        }
    }

    /// The pipeline request of a read of this resource.
    pub(crate) fn request(&self, uri: impl Into<Arc<str>>, cx: RequestContext) -> McpRequest {
        let uri = match &self.own_uri {
            Some(own) => own.clone(),
            None => uri.into(),
        };
        McpRequest::new(
            crate::protocol::methods::RESOURCES_READ,
            uri,
            JsonObject::new(),
            cx,
        )
    }
}

/// A registered resource template.
pub(crate) struct RegisteredTemplate {
    pub(crate) template: UriTemplate,
    pub(crate) inner: Arc<dyn ResourceTemplate>,
    pub(crate) stack: ItemStack<ReadResource>,
    /// Registration order: templates are tried in it.
    order: u64,
    definition: ResourceTemplateDefinition,
    /// The URI template as registered: what telemetry names a read by (a filled URI holds
    /// the caller's values).
    source: Arc<str>,
    /// How a URI this template matched becomes the one the server it was mounted from
    /// knows (`ServerBuilder::mount`).
    unmount: Option<Unmount>,
    /// The scopes a caller must hold to see it (`ResourceTemplate::scopes`).
    pub(crate) scopes: Arc<[String]>,
}

impl RegisteredTemplate {
    /// The pipeline request of a read of `uri`, which matched with `variables`: they are
    /// the request's arguments when a layer or the audit reads those, and travel typed
    /// otherwise (no JSON built and parsed back on the plain path).
    pub(crate) fn request(
        &self,
        uri: impl Into<Arc<str>>,
        variables: Variables,
        cx: RequestContext,
    ) -> McpRequest {
        let uri: Arc<str> = uri.into();
        let uri = match self.unmount.as_ref().and_then(|unmount| unmount(&uri)) {
            Some(own) => own.into(),
            None => uri,
        };
        let request = if self.stack.sees_arguments() {
            McpRequest::new(
                crate::protocol::methods::RESOURCES_READ,
                uri,
                variables.to_json(),
                cx,
            )
        } else {
            McpRequest::new(
                crate::protocol::methods::RESOURCES_READ,
                uri,
                JsonObject::new(),
                cx,
            )
            .with_variables(variables)
        };
        request.with_template(self.source.clone())
    }
}

/// `scopes` as registered: each an RFC 6749 scope token.
pub(crate) fn checked_scopes(scopes: Vec<String>) -> Result<Arc<[String]>, String> {
    match scopes.iter().find(|s| !crate::tool::is_scope_token(s)) {
        Some(bad) => Err(format!(
            "{bad:?} is not an OAuth scope (printable ASCII without spaces, quotes or backslashes)"
        )),
        None => Ok(scopes.into()),
    }
}

/// The resources kind.
pub(crate) struct Resources;

impl Kind for Resources {
    type Item = RegisteredResource;
    const PRIMITIVE: Primitive = Primitive::Resources;
    const LIST_FIELD: &'static str = "resources";
    const ITEM: Option<ItemKind> = Some(ItemKind::Resource);

    fn scopes(item: &RegisteredResource) -> &[String] {
        &item.scopes
    }

    fn item_kind(item: &RegisteredResource) -> ItemKind {
        item.item
    }

    fn key(item: &RegisteredResource) -> &str {
        &item.uri
    }

    fn listed(item: &RegisteredResource, _modern: bool) -> impl Serialize + '_ {
        &item.definition
    }

    fn duplicate(uri: &str) -> RegistrationError {
        RegistrationError::DuplicateResource {
            uri: uri.to_owned(),
        }
    }
}

/// The resource-templates kind.
pub(crate) struct Templates;

impl Kind for Templates {
    type Item = RegisteredTemplate;
    const PRIMITIVE: Primitive = Primitive::Resources;
    const LIST_FIELD: &'static str = "resourceTemplates";
    const ITEM: Option<ItemKind> = Some(ItemKind::ResourceTemplate);

    fn scopes(item: &RegisteredTemplate) -> &[String] {
        &item.scopes
    }

    fn key(item: &RegisteredTemplate) -> &str {
        item.template.as_str()
    }

    fn listed(item: &RegisteredTemplate, _modern: bool) -> impl Serialize + '_ {
        &item.definition
    }

    fn duplicate(template: &str) -> RegistrationError {
        RegistrationError::DuplicateResource {
            uri: template.to_owned(),
        }
    }
}

/// What a URI resolved to.
pub(crate) enum Route {
    /// A resource with exactly this URI.
    Exact(Arc<RegisteredResource>),
    /// A template that matched, with its variables.
    Template(Arc<RegisteredTemplate>, Variables),
}

/// The server's resources and resource templates. Reached through
/// [`Server::resources`](crate::Server::resources).
///
/// Changes at run time ([`register`](Self::register),
/// [`register_template`](Self::register_template), [`remove`](Self::remove)) notify
/// connected clients like tool changes do (`notifications/resources/list_changed`);
/// [`updated`](Self::updated) tells the clients subscribed to a resource that its contents
/// changed (`notifications/resources/updated`).
pub struct ResourceRegistry {
    resources: Catalog<Resources>,
    templates: Catalog<Templates>,
    next_order: AtomicU64,
    advertised: bool,
    policies: ServerPolicies,
    /// Made at the first subscription: the channel's backlog is [`UPDATE_BACKLOG`] slots
    /// allocated at once (about 50 KiB), which a server nobody subscribes to (most of them)
    /// would otherwise fault in at every start.
    updates: std::sync::OnceLock<broadcast::Sender<Arc<str>>>,
    /// Tells other instances of updates (when they share state).
    feed: ChangeFeed,
}

impl fmt::Debug for ResourceRegistry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ResourceRegistry")
            .field("resources", &self.resources.keys())
            .field("templates", &self.templates.keys())
            .finish_non_exhaustive()
    }
}

fn has_name(name: &str) -> bool {
    !name.trim().is_empty()
}

impl ResourceRegistry {
    pub(crate) fn new(settings: PageSettings, feed: ChangeFeed, policies: ServerPolicies) -> Self {
        Self {
            resources: Catalog::new(settings.clone(), feed.clone()),
            templates: Catalog::new(settings, feed.clone()),
            next_order: AtomicU64::new(0),
            advertised: true,
            policies,
            updates: std::sync::OnceLock::new(),
            feed,
        }
    }

    /// Registers a resource with a fixed URI. The URI needs a scheme and no spaces, the
    /// resource a name; a URI already registered is refused.
    pub fn register(&self, resource: impl Resource) -> Result<(), RegistrationError> {
        self.register_resources(vec![Arc::new(resource)])
            .map_err(|mut e| e.remove(0))
    }

    /// Registers a resource template; its `uriTemplate` must parse (see
    /// [`UriTemplate`]) and be new.
    pub fn register_template(
        &self,
        template: impl ResourceTemplate,
    ) -> Result<(), RegistrationError> {
        self.register_templates(vec![Arc::new(template)])
            .map_err(|mut e| e.remove(0))
    }

    /// Tells every client subscribed to `uri` (legacy `resources/subscribe`, modern
    /// `subscriptions/listen` with `resourceSubscriptions`) that its contents changed. Clients
    /// that did not subscribe hear nothing; with nobody connected it costs nothing.
    ///
    /// ```
    /// use mcp_runtime::prelude::*;
    /// use mcp_runtime::protocol::ResourceDefinition;
    /// use mcp_runtime::resource::resource_fn;
    ///
    /// let server = Server::builder("demo", "1.0.0")
    ///     .resource(resource_fn(ResourceDefinition::new("config://app", "config"), |_| async { "{}" }))
    ///     .build()
    ///     .unwrap();
    /// // …after the configuration changed:
    /// server.resources().updated("config://app");
    /// ```
    pub fn updated(&self, uri: &str) {
        self.updated_here(uri);
        // Instances sharing state (`Server::share_through`) tell their subscribers too.
        self.feed
            .publish(super::bus::SharedEvent::ResourceUpdated(uri.into()));
    }

    /// Tells this instance's subscribers only (an update another instance told of).
    pub(crate) fn updated_here(&self, uri: &str) {
        // No channel or no receiver means nobody subscribed: nothing to do.
        if let Some(updates) = self.updates.get() {
            let _ = updates.send(uri.into());
        }
        self.feed.tell(super::Change::ResourceUpdated(uri));
    }

    /// A receiver of every later announced update.
    pub(crate) fn subscribe_updates(&self) -> broadcast::Receiver<Arc<str>> {
        self.updates
            .get_or_init(|| broadcast::channel(UPDATE_BACKLOG).0)
            .subscribe()
    }

    pub(crate) fn set_advertised(&mut self, advertised: bool) {
        self.advertised = advertised;
    }

    pub(crate) fn advertised(&self) -> bool {
        self.advertised
    }

    /// Whether no resource and no template is registered.
    pub fn is_empty(&self) -> bool {
        self.resources.is_empty() && self.templates.is_empty()
    }

    fn check_advertised(&self, adding: bool) -> Result<(), Vec<RegistrationError>> {
        if adding && !self.advertised {
            return Err(vec![RegistrationError::NotAdvertised {
                primitive: Primitive::Resources,
            }]);
        }
        Ok(())
    }

    /// Registers resources: all or none, every problem reported.
    pub(crate) fn register_resources(
        &self,
        resources: Vec<Arc<dyn Resource>>,
    ) -> Result<(), Vec<RegistrationError>> {
        self.swap_resources(&[], resources)
    }

    /// Removes the resources with the URIs `remove` and registers `add`, as one change (one
    /// snapshot swap, one `list_changed`): all or none, every problem reported.
    pub(crate) fn swap_resources(
        &self,
        remove: &[&str],
        add: Vec<Arc<dyn Resource>>,
    ) -> Result<(), Vec<RegistrationError>> {
        self.check_advertised(!add.is_empty())?;
        let prepared = add
            .into_iter()
            .map(|resource| self.prepare_resource(resource))
            .collect();
        self.resources.replace(remove, prepared)
    }

    /// Registers resource templates: all or none, every problem reported.
    pub(crate) fn register_templates(
        &self,
        templates: Vec<Arc<dyn ResourceTemplate>>,
    ) -> Result<(), Vec<RegistrationError>> {
        self.check_advertised(!templates.is_empty())?;
        let prepared = templates
            .into_iter()
            .map(|inner| self.prepare_template(inner))
            .collect();
        self.templates.insert_all(prepared)
    }

    /// A resource checked and ready to list: its URI needs a scheme and no spaces, and it
    /// needs a name.
    fn prepare_resource(
        &self,
        resource: Arc<dyn Resource>,
    ) -> Result<RegisteredResource, RegistrationError> {
        let definition = resource.definition();
        let uri = definition.uri.clone();
        if uri.is_empty() || uri.chars().any(char::is_whitespace) || !uri.contains(':') {
            return Err(RegistrationError::InvalidResource {
                uri,
                reason: "a resource URI needs a scheme (`config://app`) and no spaces".into(),
            });
        }
        if definition.mime_type.as_deref() == Some(crate::protocol::apps::APP_MIME_TYPE)
            && !uri.starts_with(crate::protocol::apps::UI_SCHEME)
        {
            return Err(RegistrationError::InvalidResource {
                uri,
                reason: "an MCP Apps view (`text/html;profile=mcp-app`) must have a `ui://` URI"
                    .into(),
            });
        }
        if !has_name(&definition.name) {
            return Err(RegistrationError::InvalidResource {
                uri,
                reason: "a resource needs a name".into(),
            });
        }
        let scopes = checked_scopes(resource.scopes()).map_err(|reason| {
            RegistrationError::InvalidResource {
                uri: uri.clone(),
                reason,
            }
        })?;
        let item = match resource.is_skill_manifest() {
            true => ItemKind::Skill,
            false => ItemKind::Resource,
        };
        Ok(RegisteredResource {
            uri: uri.into(),
            stack: ItemStack::new(
                ReadResource::new(ReadTarget::Resource(resource)),
                &self.policies,
            ),
            definition,
            own_uri: None,
            scopes,
            item,
        })
    }

    /// A template checked and ready to list: its `uriTemplate` must parse, and it needs a
    /// name.
    fn prepare_template(
        &self,
        inner: Arc<dyn ResourceTemplate>,
    ) -> Result<RegisteredTemplate, RegistrationError> {
        let definition = inner.definition();
        let source = definition.uri_template.clone();
        let template = UriTemplate::parse(&source)
            .map_err(|e| RegistrationError::InvalidResource {
                uri: source.clone(),
                reason: e.to_string(),
            })?
            .allow_dot_segments(inner.allow_dot_segments());
        if !has_name(&definition.name) {
            return Err(RegistrationError::InvalidResource {
                uri: source,
                reason: "a resource template needs a name".into(),
            });
        }
        let scopes = checked_scopes(inner.scopes()).map_err(|reason| {
            RegistrationError::InvalidResource {
                uri: source.clone(),
                reason,
            }
        })?;
        Ok(RegisteredTemplate {
            template,
            stack: ItemStack::new(
                ReadResource::new(ReadTarget::Template(inner.clone())),
                &self.policies,
            ),
            inner,
            order: self.next_order.fetch_add(1, Ordering::Relaxed),
            definition,
            source: source.into(),
            unmount: None,
            scopes,
        })
    }

    /// Makes the resources and templates exactly `resources` and `templates` (one change
    /// each), leaving out (and returning the problem of) any that does not register: how a
    /// proxy mirrors its upstream's lists, where an upstream's bad item must not hide the
    /// good ones.
    pub(crate) fn mirror(
        &self,
        resources: Vec<Arc<dyn Resource>>,
        templates: Vec<Arc<dyn ResourceTemplate>>,
    ) -> Vec<RegistrationError> {
        let mut problems = self.resources.replace_all_lenient(
            resources
                .into_iter()
                .map(|r| self.prepare_resource(r))
                .collect(),
        );
        problems.extend(
            self.templates.replace_all_lenient(
                templates
                    .into_iter()
                    .map(|t| self.prepare_template(t))
                    .collect(),
            ),
        );
        problems
    }

    /// Removes the resource with this URI, or the template with this URI template; returns
    /// whether there was one.
    pub fn remove(&self, uri: &str) -> bool {
        self.resources.remove(uri) || self.templates.remove(uri)
    }

    /// The URIs of the resources, in `resources/list` order.
    pub fn uris(&self) -> Vec<String> {
        self.resources.keys()
    }

    /// The URI templates, in `resources/templates/list` order.
    pub fn templates(&self) -> Vec<String> {
        self.templates.keys()
    }

    /// The definition of the resource with this URI.
    pub fn definition(&self, uri: &str) -> Option<ResourceDefinition> {
        self.resources
            .snapshot()
            .get(uri)
            .map(|r| r.definition.clone())
    }

    /// Replaces the resources and templates a mounted server added (`held`) with those
    /// `from` has now (see `Catalog::swap_held`): every resource at `how.mount(uri)`, every
    /// template at `how.mount(template)` (matched URIs read as `how.unmount(uri)`), each
    /// through its own stack with `how.home`'s state, the contents' URIs rewritten by
    /// `how.remap`.
    pub(crate) fn swap_mounted(
        &self,
        from: &ResourceRegistry,
        held: &mut MountedUris,
        how: &MountedAs,
        leave_out_clashes: bool,
    ) -> Vec<RegistrationError> {
        let resources = from
            .resources
            .snapshot()
            .iter()
            .map(|r| r.mounted((how.mount)(&r.uri), &how.home, how.remap.clone()))
            .collect();
        let mut problems =
            self.resources
                .swap_held(&mut held.resources, resources, leave_out_clashes);
        let mut templates = Vec::new();
        for t in from.templates.snapshot().iter() {
            let source = (how.mount)(&t.source);
            let template = match UriTemplate::parse(&source) {
                Ok(template) => template.allow_dot_segments(t.inner.allow_dot_segments()),
                Err(e) => {
                    problems.push(RegistrationError::InvalidResource {
                        uri: source,
                        reason: e.to_string(),
                    });
                    continue;
                }
            };
            let mut definition = t.definition.clone();
            definition.uri_template = source.clone();
            templates.push(RegisteredTemplate {
                template,
                inner: t.inner.clone(),
                stack: t
                    .stack
                    .at_home(how.home.clone())
                    .remapped(how.remap.clone()),
                order: self.next_order.fetch_add(1, Ordering::Relaxed),
                definition,
                source: source.into(),
                scopes: t.scopes.clone(),
                // Mounted again: back through the outer mount, then the inner one.
                unmount: Some(match &t.unmount {
                    Some(inner) => {
                        let (outer, inner) = (how.unmount.clone(), inner.clone());
                        Arc::new(move |uri: &str| outer(uri).and_then(|uri| inner(&uri))) as Unmount
                    }
                    None => how.unmount.clone(),
                }),
            });
        }
        problems.extend(self.templates.swap_held(
            &mut held.templates,
            templates,
            leave_out_clashes,
        ));
        problems
    }

    /// What `uri` resolves to: the resource with exactly this URI, else the first template
    /// (in registration order) that matches it.
    pub(crate) fn route(&self, uri: &str) -> Option<Route> {
        if let Some(r) = self.resources.snapshot().get(uri) {
            return Some(Route::Exact(r.clone()));
        }
        let templates: Arc<Snapshot<Templates>> = self.templates.snapshot();
        templates
            .iter()
            .filter_map(|t| t.template.matches(uri).map(|vars| (t, vars)))
            .min_by_key(|(t, _)| t.order)
            .map(|(t, vars)| Route::Template(t.clone(), vars))
    }

    /// The template registered with exactly this URI template string.
    pub(crate) fn template(&self, uri_template: &str) -> Option<Arc<RegisteredTemplate>> {
        self.templates.snapshot().get(uri_template).cloned()
    }

    /// Whether some resource is an MCP Apps view (its MIME type is `text/html;profile=mcp-app`).
    pub(crate) fn serves_apps(&self) -> bool {
        self.resources.snapshot().iter().any(|r| {
            r.definition.mime_type.as_deref() == Some(crate::protocol::apps::APP_MIME_TYPE)
        })
    }

    /// Whether a resource has exactly this URI.
    pub(crate) fn has_resource(&self, uri: &str) -> bool {
        self.resources.snapshot().get(uri).is_some()
    }

    pub(crate) fn list_page(
        &self,
        cursor: Option<&str>,
        modern: bool,
        view: &View<'_>,
    ) -> Result<Arc<str>, McpError> {
        self.resources.list_page_for(cursor, modern, view)
    }

    pub(crate) fn templates_page(
        &self,
        cursor: Option<&str>,
        modern: bool,
        view: &View<'_>,
    ) -> Result<Arc<str>, McpError> {
        self.templates.list_page_for(cursor, modern, view)
    }
}

/// What a service keeping resources up to date changes them through
/// (`fs::FileResources::refresh`).
impl crate::resource::ResourceCatalog for crate::server::Server {
    type Error = RegistrationError;

    fn add_resources(&self, resources: Vec<Arc<dyn Resource>>) -> Result<(), RegistrationError> {
        self.resources()
            .register_resources(resources)
            .map_err(|mut errors| errors.remove(0))
    }

    fn remove_resource(&self, uri: &str) -> bool {
        self.resources().remove(uri)
    }

    fn resource_updated(&self, uri: &str) {
        self.resources().updated(uri);
    }
}
