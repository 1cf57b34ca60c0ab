//! Who sees what: every list is computed for its caller, and an item the caller may not
//! use does not exist for it.
//!
//! Two rules decide, for each tool, resource, resource template, prompt and skill:
//!
//! - **Scopes.** An item declaring scopes (`#[mcp_tool(scopes = [...])]`,
//!   `#[mcp_resource(scopes = [...])]`, `#[mcp_prompt(scopes = [...])]`,
//!   [`Skill::scopes`](crate::skill::Skill::scopes), or the traits' `scopes`/`policy`) is seen only by callers whose credentials grant all of them. To any
//!   other caller it is not listed, and calling, reading or getting it is refused exactly as a
//!   name that does not exist (`Unknown tool: …`, the resource's not-found error, `Unknown
//!   prompt: …`), so its existence does not leak. Callers without scopes (stdio and
//!   in-memory: the local user who started the server, as the MCP authorization spec has it)
//!   see everything. [`ServerBuilder::step_up_scopes`](crate::ServerBuilder::step_up_scopes)
//!   chooses the other answer instead: scoped items are listed to everyone, and a use
//!   without the scopes gets HTTP 403 with an `insufficient_scope` challenge, so the client
//!   can ask the user for more (the spec's step-up flow).
//! - **A predicate** ([`ServerBuilder::visible_if`](crate::ServerBuilder::visible_if)) for
//!   rules over anything else: the identity, the scopes, the time, your own state. It sees
//!   the [`Caller`] and the [`Item`]; an item it refuses is treated as above.
//!
//! A skill is one item: a caller that may not see it finds it in no list (`skills/list`,
//! its `SKILL.md` in `resources/list`), and `skills/get`, `resources/read` of any of its
//! files and `resources/directory/read` of its folders answer as for a skill that does not
//! exist. A skills folder's skills declare no scopes (their front matter is the Agent Skills
//! format, shared with other hosts); hide them with a `visible_if` rule over
//! [`ItemKind::Skill`] and the key (`skill://group/name/SKILL.md`).
//!
//! When a caller's view changes for a reason the server cannot see (a role granted in your
//! database, a working day that ends), [`Server::views_changed`](crate::Server::views_changed)
//! tells every client to list again (`notifications/*/list_changed` on 2025 sessions, the
//! `subscriptions/listen` streams on 2026-07-28). A 2025 HTTP session whose request comes
//! with credentials holding other scopes than its previous one (a token refreshed or
//! stepped up) is told so by itself, before that request is served. (A 2026-07-28 client
//! has no session: its next list is computed for its new credentials anyway.)
//!
//! What is not configured costs nothing: with no scoped item and no predicate, lists are the
//! cached pages every caller shares; with scoped items, a caller holding no scopes (stdio)
//! gets them too, and only a caller the rules can hide something from gets a page built for
//! it.

use crate::context::Caller;
use std::fmt;
use std::sync::Arc;

/// What kind of item a [`visible_if`](crate::ServerBuilder::visible_if) rule is asked about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ItemKind {
    /// A tool (`tools/list`, `tools/call`).
    Tool,
    /// A resource (`resources/list`, `resources/read`).
    Resource,
    /// A resource template (`resources/templates/list`, and reads of the URIs it matches).
    ResourceTemplate,
    /// A prompt (`prompts/list`, `prompts/get`).
    Prompt,
    /// A skill (`skills/list`, `skills/get`, its `SKILL.md` in `resources/list`, reads of its
    /// files and `resources/directory/read` of its folders). Its key is its `SKILL.md`'s URI.
    Skill,
}

/// An item a caller may or may not see: its kind, its key (a tool's or prompt's name, a
/// resource's URI, a template's URI template) and the scopes it declares.
#[derive(Debug, Clone, Copy)]
pub struct Item<'a> {
    kind: ItemKind,
    key: &'a str,
    scopes: &'a [String],
}

impl<'a> Item<'a> {
    pub(crate) fn new(kind: ItemKind, key: &'a str, scopes: &'a [String]) -> Self {
        Self { kind, key, scopes }
    }

    /// The kind of item.
    pub fn kind(&self) -> ItemKind {
        self.kind
    }

    /// Its name (tools, prompts), URI (resources) or URI template (templates).
    pub fn key(&self) -> &'a str {
        self.key
    }

    /// The scopes it declares (possibly none).
    pub fn scopes(&self) -> &'a [String] {
        self.scopes
    }
}

/// A [`visible_if`](crate::ServerBuilder::visible_if) rule.
pub(crate) type Predicate = Arc<dyn Fn(&Caller, &Item<'_>) -> bool + Send + Sync>;

/// The server's visibility rules (see the [module docs](self)).
#[derive(Clone, Default)]
pub(crate) struct Visibility {
    /// Scoped items are listed to everyone and refused with a challenge, not hidden.
    pub(crate) step_up: bool,
    pub(crate) predicate: Option<Predicate>,
}

impl fmt::Debug for Visibility {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Visibility")
            .field("step_up", &self.step_up)
            .field("predicate", &self.predicate.is_some())
            .finish()
    }
}

impl Visibility {
    /// Whether `caller` may see `item`.
    pub(crate) fn allows(&self, caller: &Caller, item: &Item<'_>) -> bool {
        (self.step_up || caller.has_scopes(item.scopes))
            && self.predicate.as_ref().is_none_or(|p| p(caller, item))
    }

    /// Whether a caller's view may change with its scopes: scoped items are hidden from
    /// callers without them (no step-up), or a predicate may look at them.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn scopes_matter(&self) -> bool {
        self.predicate.is_some() || !self.step_up
    }

    /// Whether any rule may hide something from `caller`, before looking at the items
    /// (scopes hide nothing from a caller without scopes, or with step-up).
    pub(crate) fn may_hide(&self, caller: &Caller) -> bool {
        self.predicate.is_some() || (!self.step_up && caller.scopes().is_some())
    }
}

/// One caller's view of the lists: whether it renders MCP Apps, who it is, and the rules.
#[derive(Clone, Copy)]
pub(crate) struct View<'a> {
    pub(crate) apps: bool,
    pub(crate) caller: &'a Caller,
    pub(crate) rules: &'a Visibility,
}
