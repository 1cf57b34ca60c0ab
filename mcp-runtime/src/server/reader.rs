//! The resource reader the server installs in every request's context: how
//! [`RequestContext::read_resource`] reaches the server's resources without the context
//! layer knowing the server.

use super::ServerInner;
use super::registry::resources::Route;
use crate::context::{RequestContext, ResourceError, ResourceReader};
use crate::pipeline::{BoxError, Outcome};
use crate::protocol::ResourceContents;
use futures::future::BoxFuture;

impl ResourceReader for ServerInner {
    /// Routed to the resource with exactly this URI or the first matching template, through
    /// its stack (audited as `resources/read`, the server's layers included), on behalf of
    /// the same caller.
    fn read(
        &self,
        uri: &str,
        cx: RequestContext,
    ) -> BoxFuture<'static, Result<Vec<ResourceContents>, ResourceError>> {
        let resources = &self.registry.resources;
        // Boxed with its type spelled out: the compiler cannot prove the stack's nested
        // future `Send` through an `async` block on its own (as in `tools/call`).
        let read: BoxFuture<'static, Result<Outcome, BoxError>> = match resources.route(uri) {
            None => return Box::pin(std::future::ready(Err(ResourceError::NotFound))),
            Some(Route::Exact(r)) => Box::pin(r.stack.call(r.request(uri, cx))),
            Some(Route::Template(t, variables)) => {
                Box::pin(t.stack.call(t.request(uri, variables, cx)))
            }
        };
        Box::pin(async move {
            match read.await.unwrap_or_else(Outcome::from_error) {
                Outcome::Read(result) => Ok(result.contents),
                // The read asked the client and this round could not answer: the round's
                // ask is recorded, so the outer handler suspends with it.
                Outcome::InputRequired => std::future::pending().await,
                Outcome::Refused(refusal) => {
                    Err(ResourceError::Failed(refusal.message().to_owned()))
                }
                Outcome::Error(error) => Err(ResourceError::from_mcp_error(error)),
                _ => Err(ResourceError::failed(
                    "a layer answered a read with another kind of result",
                )),
            }
        })
    }
}
