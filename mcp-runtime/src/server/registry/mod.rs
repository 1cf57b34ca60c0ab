//! The registry: every primitive a server offers, in one place.
//!
//! - [`catalog`] is the part every primitive shares: registration (all or nothing, every
//!   problem reported), the list order, pages with opaque cursors, per-era rendering cached
//!   until the next change, removal, and the change signal.
//! - Each primitive is a [`Kind`](catalog::Kind) in its own file, holding what only it
//!   knows: what is checked and computed at registration, and how an item is listed in
//!   each era. [`tools`] is the tools kind. Adding a primitive is a new kind file and a
//!   field of [`Registry`], not a copy of the list machinery.
//! - A change to any catalog is published on one [`ChangeFeed`]; connections watch it to
//!   send `notifications/…/list_changed` (legacy) or the events of a `subscriptions/listen`
//!   stream (modern).
//!
//! A primitive is advertised in the server's capabilities only when the server has items of
//! it at [`build`](crate::ServerBuilder::build) (or asked for it with
//! [`ServerBuilder::advertise`](crate::ServerBuilder::advertise)); its list method answers
//! `-32601` otherwise, as for any method the server does not offer.

pub(crate) mod bus;
pub(crate) mod catalog;
mod error;
pub(crate) mod prompts;
pub(crate) mod resources;
pub(crate) mod skills;
pub(crate) mod tools;

pub use error::RegistrationError;
pub use prompts::PromptRegistry;
pub use resources::ResourceRegistry;
pub use skills::SkillRegistry;
pub use tools::ToolRegistry;

use crate::protocol::methods;
use bus::{EventBus, SharedEvent};
use std::fmt;
use std::sync::Arc;
use tokio::sync::watch;

/// The kinds of things a server offers to clients.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Primitive {
    /// Tools (`tools/list`, `tools/call`).
    Tools,
    /// Resources and resource templates (`resources/list`, `resources/templates/list`,
    /// `resources/read`).
    Resources,
    /// Prompts (`prompts/list`, `prompts/get`).
    Prompts,
}

impl Primitive {
    /// Every primitive.
    pub const ALL: [Primitive; 3] = [Primitive::Tools, Primitive::Resources, Primitive::Prompts];

    /// The notification that tells a client this primitive's list changed.
    pub const fn list_changed_method(self) -> &'static str {
        match self {
            Primitive::Tools => methods::TOOLS_LIST_CHANGED.name,
            Primitive::Resources => methods::RESOURCES_LIST_CHANGED.name,
            Primitive::Prompts => methods::PROMPTS_LIST_CHANGED.name,
        }
    }

    /// The `subscriptions/listen` filter field that asks for this primitive's changes.
    pub const fn listen_filter(self) -> &'static str {
        match self {
            Primitive::Tools => "toolsListChanged",
            Primitive::Resources => "resourcesListChanged",
            Primitive::Prompts => "promptsListChanged",
        }
    }

    const fn index(self) -> usize {
        match self {
            Primitive::Tools => 0,
            Primitive::Resources => 1,
            Primitive::Prompts => 2,
        }
    }
}

impl fmt::Display for Primitive {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Primitive::Tools => "tools",
            Primitive::Resources => "resources",
            Primitive::Prompts => "prompts",
        })
    }
}

/// How many times each primitive's list has changed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Generations([u64; Primitive::ALL.len()]);

impl Generations {
    /// The primitives whose lists changed between `earlier` and `self`.
    pub(crate) fn changed_since(self, earlier: Generations) -> impl Iterator<Item = Primitive> {
        Primitive::ALL
            .into_iter()
            .filter(move |p| self.0[p.index()] != earlier.0[p.index()])
    }
}

/// A change a [`ChangeFeed`]'s followers hear of.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Change<'a> {
    /// `primitive`'s list changed.
    List(Primitive),
    /// The resource at this URI changed (`ResourceRegistry::updated`).
    ResourceUpdated(&'a str),
}

/// Told of every change, synchronously, by the thread that made it (after the catalog's
/// lock is released): how a server this one is mounted into keeps its copy in step.
pub(crate) type Follower = Arc<dyn Fn(Change<'_>) + Send + Sync>;

/// Where catalogs announce their changes; cheap to clone.
#[derive(Clone)]
pub(crate) struct ChangeFeed {
    tx: watch::Sender<Generations>,
    /// The other instances sharing this server's state, once attached: changes made here
    /// are told to them too.
    fleet: Arc<std::sync::OnceLock<Arc<dyn EventBus>>>,
    /// The servers this one is mounted into (`ServerBuilder::mount`); most servers have
    /// none, and a change (rare) pays one uncontended read lock for them.
    followers: Arc<std::sync::RwLock<Vec<Follower>>>,
}

impl fmt::Debug for ChangeFeed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ChangeFeed")
            .field("shared", &self.fleet.get().is_some())
            .finish_non_exhaustive()
    }
}

impl ChangeFeed {
    pub(crate) fn new() -> Self {
        Self {
            tx: watch::channel(Generations::default()).0,
            fleet: Arc::default(),
            followers: Arc::default(),
        }
    }

    /// Tells `follower` of every later change.
    pub(crate) fn follow(&self, follower: Follower) {
        self.followers
            .write()
            .unwrap_or_else(|p| p.into_inner())
            .push(follower);
    }

    /// Tells the followers of `change`.
    pub(crate) fn tell(&self, change: Change<'_>) {
        // Called without the lock: a follower may change a catalog that has followers.
        let followers = {
            let followers = self.followers.read().unwrap_or_else(|p| p.into_inner());
            if followers.is_empty() {
                return;
            }
            followers.clone()
        };
        for follower in followers {
            follower(change);
        }
    }

    /// Records a change to `primitive`'s list, and tells the other instances.
    pub(crate) fn changed(&self, primitive: Primitive) {
        self.changed_here(primitive);
        self.publish(SharedEvent::ListChanged(primitive));
    }

    /// Records a change to `primitive`'s list here only (one another instance told of).
    pub(crate) fn changed_here(&self, primitive: Primitive) {
        self.tx.send_modify(|g| g.0[primitive.index()] += 1);
        self.tell(Change::List(primitive));
    }

    /// Tells the other instances, if there are any.
    pub(crate) fn publish(&self, event: SharedEvent) {
        if let Some(fleet) = self.fleet.get() {
            fleet.publish(event);
        }
    }

    /// Shares changes with the instances on `bus`.
    pub(crate) fn attach(&self, bus: Arc<dyn EventBus>) {
        let _ = self.fleet.set(bus);
    }

    /// A receiver of every later change.
    pub(crate) fn subscribe(&self) -> watch::Receiver<Generations> {
        let mut rx = self.tx.subscribe();
        rx.mark_unchanged();
        rx
    }
}

/// Every primitive's catalog, and which of them the server advertises.
#[derive(Debug)]
pub(crate) struct Registry {
    pub(crate) tools: ToolRegistry,
    pub(crate) resources: resources::ResourceRegistry,
    pub(crate) prompts: prompts::PromptRegistry,
    pub(crate) skills: skills::SkillRegistry,
    feed: ChangeFeed,
}

impl Registry {
    pub(crate) fn new(
        tools: ToolRegistry,
        resources: resources::ResourceRegistry,
        prompts: prompts::PromptRegistry,
        skills: skills::SkillRegistry,
        feed: ChangeFeed,
    ) -> Self {
        Self {
            tools,
            resources,
            prompts,
            skills,
            feed,
        }
    }

    /// Whether the server advertises `primitive` in its capabilities.
    pub(crate) fn advertises(&self, primitive: Primitive) -> bool {
        match primitive {
            Primitive::Tools => self.tools.advertised(),
            Primitive::Resources => self.resources.advertised(),
            Primitive::Prompts => self.prompts.advertised(),
        }
    }

    /// A receiver of every later change to any list.
    pub(crate) fn subscribe(&self) -> watch::Receiver<Generations> {
        self.feed.subscribe()
    }

    /// The feed catalogs announce their changes on.
    pub(crate) fn feed(&self) -> &ChangeFeed {
        &self.feed
    }
}
