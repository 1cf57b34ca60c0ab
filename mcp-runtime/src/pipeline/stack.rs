//! A tool's stack, assembled once at registration from the layers that are always there,
//! the tool's declared policies, and the server's layers (see the [module docs](super)).

use super::{
    Audit, AuditLayer, BoxError, CatchPanic, CatchPanicLayer, ConcurrencyLimitLayer, ConfirmLayer,
    Invoke, LazyStore, McpRequest, McpService, Outcome, OutputCheck, RateLimitLayer,
    ResultCacheLayer, TimeoutLayer, Validate,
};
use crate::tool::schema::CheckedSchema;
use crate::tool::{Tool, ToolPolicy};
use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;
use tower::Layer as _;
use tower::ServiceExt as _;
use tower::util::{Either, Oneshot};

/// A user's layer, type-erased: wraps a boxed service in another.
pub(crate) type BoxedLayer = Arc<dyn Fn(McpService) -> McpService + Send + Sync>;

/// The layers that run on every call of every tool.
type Core = Validate<OutputCheck<Invoke>>;
type Stack = Audit<CatchPanic<Either<Core, McpService>>>;

/// What the server adds around every tool: audit options, user layers, defaults.
#[derive(Clone, Default)]
pub(crate) struct ServerPolicies {
    pub(crate) audit: AuditLayer,
    /// `ServerBuilder::layer`, in the order added (the first is outermost).
    pub(crate) layers: Vec<BoxedLayer>,
    /// `ServerBuilder::layer_for`, by tool name.
    pub(crate) tool_layers: HashMap<String, Vec<BoxedLayer>>,
    /// The timeout of tools that declare none.
    pub(crate) default_timeout: Option<Duration>,
    /// One limit shared by every tool.
    pub(crate) concurrency: Option<ConcurrencyLimitLayer>,
    /// The results of every tool that declares `cache` (made for the first such tool).
    pub(crate) results: LazyStore,
    /// The Redis the server shares state through, once attached: rate limits take from
    /// the fleet's budgets.
    pub(crate) fleet: super::fleet::FleetSlot,
    /// `ServerBuilder::default_rate_limit`: the per-caller rate of tools that declare none.
    pub(crate) default_rate_limit: Option<crate::tool::Rate>,
    /// `ServerBuilder::confirm_destructive`: the confirmation of every tool that may
    /// destroy and declares none of its own.
    pub(crate) confirm_destructive: Option<crate::tool::Confirm>,
}

impl fmt::Debug for ServerPolicies {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ServerPolicies")
            .field("layers", &self.layers.len())
            .field("tool_layers", &self.tool_layers.keys().collect::<Vec<_>>())
            .field("default_timeout", &self.default_timeout)
            .field("concurrency", &self.concurrency)
            .field("results", &self.results)
            .finish_non_exhaustive()
    }
}

/// One tool's assembled stack. Cloning it is a few reference-count increments (plus one
/// allocation when policies or user layers are in it).
#[derive(Clone)]
pub(crate) struct ToolStack {
    stack: Stack,
    /// The mounted server whose tool this is, when it is served by another
    /// (`ServerBuilder::mount`): its calls run with that server's state and resources.
    home: Option<Arc<crate::context::Home>>,
}

impl fmt::Debug for ToolStack {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolStack").finish_non_exhaustive()
    }
}

impl ToolStack {
    pub(crate) fn new(
        name: &str,
        tool: Arc<dyn Tool>,
        input: Arc<CheckedSchema>,
        output: Option<Arc<CheckedSchema>>,
        policy: &ToolPolicy,
        server: &ServerPolicies,
    ) -> Self {
        let confirm = policy
            .confirm
            .clone()
            .map(|c| ConfirmLayer::new(c, input.clone()));
        let core = Validate::new(OutputCheck::new(Invoke::new(tool), output), input);
        let tool_layers = server.tool_layers.get(name).map_or(&[][..], Vec::as_slice);
        let timeout = policy.timeout.or(server.default_timeout);
        let rate_limit = policy.rate_limit.or(server.default_rate_limit);
        let plain = server.layers.is_empty()
            && tool_layers.is_empty()
            && timeout.is_none()
            && policy.concurrency.is_none()
            && server.concurrency.is_none()
            && rate_limit.is_none()
            && policy.cache.is_none()
            && confirm.is_none();
        let inner = if plain {
            Either::Left(core)
        } else {
            // Innermost first.
            let mut service = McpService::new(core);
            if let Some(timeout) = timeout {
                service = McpService::new(TimeoutLayer::new(timeout).layer(service));
            }
            if let Some(limit) = policy.concurrency {
                service = McpService::new(ConcurrencyLimitLayer::new(limit).layer(service));
            }
            if let Some(limit) = &server.concurrency {
                service = McpService::new(limit.layer(service));
            }
            if let Some(rate) = rate_limit {
                let layer = RateLimitLayer::new(rate).fleet(server.fleet.clone(), name);
                service = McpService::new(layer.layer(service));
            }
            // Above the limits: a hit costs no quota and needs no slot.
            if let Some(ttl) = policy.cache {
                let cache =
                    ResultCacheLayer::new(ttl, server.results.get()).fleet(server.fleet.clone());
                service = McpService::new(cache.layer(service));
            }
            // Above everything the tool declares: the person's time to answer holds no
            // slot, spends no budget and counts in no timeout.
            if let Some(confirm) = confirm {
                service = McpService::new(confirm.layer(service));
            }
            for layer in tool_layers.iter().rev().chain(server.layers.iter().rev()) {
                service = layer(service);
            }
            Either::Right(service)
        };
        Self {
            stack: server.audit.layer(CatchPanicLayer.layer(inner)),
            home: None,
        }
    }

    /// Sends `request` through the stack.
    pub(crate) fn call(&self, mut request: McpRequest) -> Oneshot<Stack, McpRequest> {
        if let Some(home) = &self.home {
            request.rehome(home.clone());
        }
        self.stack.clone().oneshot(request)
    }

    /// The same stack, served by another server: calls run with `home`'s state and
    /// resources.
    pub(crate) fn at_home(&self, home: Arc<crate::context::Home>) -> Self {
        Self {
            stack: self.stack.clone(),
            // Mounted again, the stack stays with the server that built it.
            home: self.home.clone().or(Some(home)),
        }
    }
}

/// The stack of a resource read or a prompt rendering: audit, panic isolation and the
/// server-wide layers ([`ServerBuilder::layer`](crate::ServerBuilder::layer)) around the
/// innermost service `S`. Tool policies (validation, timeouts, limits, caches) are a tool's
/// and are not here; a layer that needs to tell requests apart reads
/// [`McpRequest::method`](super::McpRequest::method).
pub(crate) struct ItemStack<S> {
    stack: Audit<CatchPanic<Either<S, McpService>>>,
    /// Whether anything before the innermost service reads a request's arguments (a user
    /// layer, or the audit recording them).
    sees_arguments: bool,
    /// The mounted server whose item this is (see [`ToolStack`]'s).
    home: Option<Arc<crate::context::Home>>,
    /// What a mounted item's outcome becomes before the server serving it answers (a read's
    /// URIs in the mounted form).
    remap: Option<Remap>,
}

/// A request on its way through an [`ItemStack`] (boxed only for a mounted item whose
/// outcome is rewritten).
pub(crate) type ItemCall<S> = futures::future::Either<
    Oneshot<Audit<CatchPanic<Either<S, McpService>>>, McpRequest>,
    futures::future::BoxFuture<'static, Result<Outcome, BoxError>>,
>;

/// How a mounted item's outcome is rewritten ([`ItemStack::remapped`]).
pub(crate) type Remap = Arc<dyn Fn(&mut Outcome) + Send + Sync>;

impl<S: Clone> Clone for ItemStack<S> {
    fn clone(&self) -> Self {
        Self {
            stack: self.stack.clone(),
            sees_arguments: self.sees_arguments,
            home: self.home.clone(),
            remap: self.remap.clone(),
        }
    }
}

impl<S> fmt::Debug for ItemStack<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ItemStack").finish_non_exhaustive()
    }
}

impl<S> ItemStack<S>
where
    S: tower::Service<McpRequest, Response = Outcome, Error = BoxError>
        + Clone
        + Send
        + Sync
        + 'static,
    S::Future: Send + 'static,
{
    pub(crate) fn new(core: S, server: &ServerPolicies) -> Self {
        let inner = if server.layers.is_empty() {
            Either::Left(core)
        } else {
            let mut service = McpService::new(core);
            for layer in server.layers.iter().rev() {
                service = layer(service);
            }
            Either::Right(service)
        };
        Self {
            stack: server.audit.layer(CatchPanicLayer.layer(inner)),
            sees_arguments: !server.layers.is_empty() || server.audit.logs_arguments(),
            home: None,
            remap: None,
        }
    }

    /// The same stack, its outcomes rewritten by `remap`.
    pub(crate) fn remapped(&self, remap: Remap) -> Self {
        // A stack mounted again (a server mounted into one that is mounted in turn): its
        // own rewriting first, then the outer one's.
        let remap = match &self.remap {
            Some(inner) => {
                let inner = inner.clone();
                Arc::new(move |out: &mut Outcome| {
                    inner(out);
                    remap(out);
                }) as Remap
            }
            None => remap,
        };
        Self {
            remap: Some(remap),
            ..self.clone()
        }
    }

    /// The same stack, served by another server: requests run with `home`'s state and
    /// resources.
    pub(crate) fn at_home(&self, home: Arc<crate::context::Home>) -> Self {
        Self {
            // Mounted again, the stack stays with the server that built it.
            home: self.home.clone().or(Some(home)),
            ..self.clone()
        }
    }

    /// Whether a layer or the audit reads the requests' arguments.
    pub(crate) fn sees_arguments(&self) -> bool {
        self.sees_arguments
    }

    /// Sends `request` through the stack.
    pub(crate) fn call(&self, mut request: McpRequest) -> ItemCall<S> {
        if let Some(home) = &self.home {
            request.rehome(home.clone());
        }
        let call = self.stack.clone().oneshot(request);
        match &self.remap {
            None => futures::future::Either::Left(call),
            Some(remap) => {
                let remap = remap.clone();
                use futures::FutureExt as _;
                let mapped = call.map(move |out| {
                    out.map(|mut out| {
                        remap(&mut out);
                        out
                    })
                });
                futures::future::Either::Right(mapped.boxed())
            }
        }
    }
}

/// Erases a user's layer.
pub(crate) fn boxed<L>(layer: L) -> BoxedLayer
where
    L: tower::Layer<McpService> + Send + Sync + 'static,
    L::Service: tower::Service<McpRequest, Response = Outcome> + Clone + Send + Sync + 'static,
    <L::Service as tower::Service<McpRequest>>::Error: Into<BoxError> + 'static,
    <L::Service as tower::Service<McpRequest>>::Future: Send + 'static,
{
    Arc::new(move |inner| McpService::new(layer.layer(inner).map_err(Into::into)))
}
