//! Where resources go, for services that make them without knowing the server (the `fs`
//! feature's `FileResources`): a server being built ([`ResourceSink`]) and a running
//! server's catalog ([`ResourceCatalog`]). The server implements both (`ServerBuilder`,
//! `Server`); a test can implement them to watch what a service adds and removes.

use super::{Resource, ResourceTemplate};
use std::sync::Arc;

/// What takes resources before a server is built (`ServerBuilder`).
pub trait ResourceSink: Sized {
    /// Adds `resources`.
    fn add_resources(self, resources: Vec<Arc<dyn Resource>>) -> Self;

    /// Adds a resource template.
    fn add_template(self, template: Arc<dyn ResourceTemplate>) -> Self;
}

/// A running server's resources, as a service keeping some of them up to date changes them
/// (`Server`: clients hear `notifications/resources/list_changed` and
/// `notifications/resources/updated`).
pub trait ResourceCatalog: Send + Sync {
    /// Why resources could not be added.
    type Error: std::error::Error + Send + Sync + 'static;

    /// Adds `resources`: all or none.
    ///
    /// # Errors
    ///
    /// The first problem found (a URI registered already, a definition refused).
    fn add_resources(&self, resources: Vec<Arc<dyn Resource>>) -> Result<(), Self::Error>;

    /// Removes the resource at `uri`; `false` when there was none.
    fn remove_resource(&self, uri: &str) -> bool;

    /// Tells the clients subscribed to `uri` that its contents changed.
    fn resource_updated(&self, uri: &str);
}
