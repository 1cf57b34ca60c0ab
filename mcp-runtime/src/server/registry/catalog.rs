//! A catalog: the registered items of one [`Kind`], as an immutable snapshot swapped whole
//! on every change, with its list pages serialized once per era on first request.
//!
//! Everything a list method needs is here, once for every primitive: the deterministic
//! order (by key), page boundaries, opaque cursors that survive changes, per-era rendering
//! and its cache, all-or-nothing registration with every problem reported, removal, and a
//! change signal through the registry's [`ChangeFeed`].

use super::{ChangeFeed, Primitive, RegistrationError};
use crate::protocol::McpError;
use crate::protocol::{CachePolicy, JsonObject};
use crate::server::projection::{Modern, to_raw};
use crate::server::visibility::{Item, ItemKind, View};
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde::Serialize;
use serde::ser::{SerializeMap, SerializeSeq, Serializer};
use serde_json::value::RawValue;
use std::collections::HashMap;
use std::sync::{Arc, OnceLock, RwLock};

/// One primitive's part in the registry: what a registered item is, how it is keyed, and
/// how a client of each era sees it listed. Adding a primitive to the server is one `Kind`.
pub(crate) trait Kind: Send + Sync + 'static {
    /// The registered form of an item, with everything computed at registration.
    type Item: Send + Sync + 'static;

    /// The primitive this kind lists.
    const PRIMITIVE: Primitive;

    /// The field of the list result that holds the page's items (`"tools"`, …).
    const LIST_FIELD: &'static str;

    /// The item's unique key (a name or a URI): it orders the list and names cursors.
    fn key(item: &Self::Item) -> &str;

    /// The item as a list result shows it to a client of the given era.
    fn listed(item: &Self::Item, modern: bool) -> impl Serialize + '_;

    /// The error for a second item with the same key.
    fn duplicate(key: &str) -> RegistrationError;

    /// The kind of item visibility rules are asked about (`None`: listed to every caller).
    const ITEM: Option<ItemKind>;

    /// The scopes a caller must hold to see the item (see `server::visibility`).
    fn scopes(item: &Self::Item) -> &[String] {
        let _ = item;
        &[]
    }

    /// What visibility rules see the item as: [`ITEM`](Self::ITEM) unless an item says
    /// otherwise (a skill's `SKILL.md` among the resources).
    fn item_kind(item: &Self::Item) -> ItemKind {
        let _ = item;
        Self::ITEM.unwrap_or(ItemKind::Resource)
    }

    /// Whether the item is listed only to clients that may see restricted items (an
    /// app-only tool, to clients that render MCP Apps). None by default; a snapshot without
    /// any is listed from its cached pages to everyone.
    fn restricted(item: &Self::Item) -> bool {
        let _ = item;
        false
    }
}

/// What pages need from the server: its identity, cache policy and page size.
#[derive(Debug, Clone)]
pub(crate) struct PageSettings {
    pub(crate) server_info: Arc<RawValue>,
    pub(crate) cache: CachePolicy,
    pub(crate) page_size: usize,
}

/// One page of a list result, serialized for each era on first request and kept until the
/// catalog changes. Rendering waits for a client to ask: a server's start-up (and its
/// `initialize` answer) doesn't pay for pages, and a legacy-only client never pays for the
/// modern rendering.
struct Page {
    /// Index in `Snapshot::order` of the page's first item.
    start: usize,
    legacy: OnceLock<Arc<str>>,
    modern: OnceLock<Arc<str>>,
}

/// An immutable view of a catalog.
pub(crate) struct Snapshot<K: Kind> {
    by_key: HashMap<Arc<str>, Arc<K::Item>>,
    /// Sorted by key: the deterministic order of the list.
    order: Vec<Arc<K::Item>>,
    pages: Vec<Page>,
    page_by_cursor: HashMap<String, usize>,
    /// Whether any item is [`Kind::restricted`].
    restricted: bool,
    /// Whether any item declares [`Kind::scopes`].
    guarded: bool,
    /// The first page without the restricted items, per era (legacy, modern), rendered
    /// on first request like `pages`.
    unrestricted_first: [OnceLock<Arc<str>>; 2],
}

impl<K: Kind> Snapshot<K> {
    fn new(mut items: Vec<Arc<K::Item>>, page_size: usize) -> Self {
        items.sort_by(|a, b| K::key(a).cmp(K::key(b)));
        let page_size = page_size.max(1);
        let page = |start| Page {
            start,
            legacy: OnceLock::new(),
            modern: OnceLock::new(),
        };
        let mut pages = vec![page(0)];
        let mut page_by_cursor = HashMap::new();
        let mut start = page_size;
        while start < items.len() {
            page_by_cursor.insert(cursor_for(K::key(&items[start])), pages.len());
            pages.push(page(start));
            start += page_size;
        }
        Self {
            by_key: items
                .iter()
                .map(|item| (Arc::from(K::key(item)), item.clone()))
                .collect(),
            restricted: items.iter().any(|item| K::restricted(item)),
            guarded: items.iter().any(|item| !K::scopes(item).is_empty()),
            unrestricted_first: Default::default(),
            order: items,
            pages,
            page_by_cursor,
        }
    }

    /// The item with this key.
    pub(crate) fn get(&self, key: &str) -> Option<&Arc<K::Item>> {
        self.by_key.get(key)
    }

    /// Every item, in list order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &Arc<K::Item>> {
        self.order.iter()
    }
}

/// The registered items of one kind.
pub(crate) struct Catalog<K: Kind> {
    snapshot: RwLock<Arc<Snapshot<K>>>,
    settings: PageSettings,
    feed: ChangeFeed,
}

impl<K: Kind> Catalog<K> {
    pub(crate) fn new(settings: PageSettings, feed: ChangeFeed) -> Self {
        let snapshot = Snapshot::new(Vec::new(), settings.page_size);
        Self {
            snapshot: RwLock::new(Arc::new(snapshot)),
            settings,
            feed,
        }
    }

    /// The current items (a cheap clone of an `Arc`; later changes don't affect it).
    pub(crate) fn snapshot(&self) -> Arc<Snapshot<K>> {
        self.snapshot
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// Adds prepared items: all or none. `prepared` holds every item's preparation result,
    /// so each problem is reported, duplicates (among themselves or with what is there)
    /// included.
    pub(crate) fn insert_all(
        &self,
        prepared: Vec<Result<K::Item, RegistrationError>>,
    ) -> Result<(), Vec<RegistrationError>> {
        self.replace(&[], prepared)
    }

    /// Removes the items keyed `remove` (those that are there) and adds `prepared`, as one
    /// change: one snapshot swap, so no reader sees the catalog between the two, and one
    /// change signal. All or none, like [`insert_all`](Self::insert_all); an added item may
    /// take the key of a removed one.
    pub(crate) fn replace(
        &self,
        remove: &[&str],
        prepared: Vec<Result<K::Item, RegistrationError>>,
    ) -> Result<(), Vec<RegistrationError>> {
        let mut errors = Vec::new();
        let mut items = Vec::with_capacity(prepared.len());
        for p in prepared {
            match p {
                Ok(item) => items.push(Arc::new(item)),
                Err(e) => errors.push(e),
            }
        }
        let mut guard = self.snapshot.write().unwrap_or_else(|p| p.into_inner());
        let before = guard.order.len();
        let mut all: Vec<Arc<K::Item>> = guard
            .order
            .iter()
            .filter(|i| !remove.contains(&K::key(i)))
            .cloned()
            .collect();
        let removed = all.len() != before;
        let mut keys: std::collections::HashSet<&str> = all.iter().map(|i| K::key(i)).collect();
        let mut added = Vec::with_capacity(items.len());
        for item in &items {
            if keys.insert(K::key(item)) {
                added.push(item.clone());
            } else {
                errors.push(K::duplicate(K::key(item)));
            }
        }
        if !errors.is_empty() {
            return Err(errors);
        }
        if added.is_empty() && !removed {
            return Ok(());
        }
        all.extend(added);
        *guard = Arc::new(Snapshot::new(all, self.settings.page_size));
        drop(guard);
        self.feed.changed(K::PRIMITIVE);
        Ok(())
    }

    /// Makes the catalog exactly the good items of `prepared`, as one change: an item that
    /// failed its preparation, or repeats a key met before it, is left out and its problem
    /// returned. How a proxy mirrors its upstream's list (`crate::proxy`), where one bad
    /// item must not hide the others.
    pub(crate) fn replace_all_lenient(
        &self,
        prepared: Vec<Result<K::Item, RegistrationError>>,
    ) -> Vec<RegistrationError> {
        let mut problems = Vec::new();
        let mut keys = std::collections::HashSet::new();
        let mut items = Vec::with_capacity(prepared.len());
        for p in prepared {
            match p {
                Ok(item) if keys.insert(K::key(&item).to_owned()) => items.push(Ok(item)),
                Ok(item) => problems.push(K::duplicate(K::key(&item))),
                Err(e) => problems.push(e),
            }
        }
        let current = self.keys();
        let remove: Vec<&str> = current.iter().map(String::as_str).collect();
        if let Err(found) = self.replace(&remove, items) {
            problems.extend(found);
        }
        problems
    }

    /// Replaces the items one source added (`held`: their keys, updated on success) with
    /// `items`, as one change. With `leave_out_clashes`, an item whose key is already taken
    /// by another source is left out rather than failing the swap; either way every
    /// problem is returned. This is how a mounted server's items are added at build (all or
    /// none) and kept in step after (`server::mount`).
    pub(crate) fn swap_held(
        &self,
        held: &mut Vec<String>,
        mut items: Vec<K::Item>,
        leave_out_clashes: bool,
    ) -> Vec<RegistrationError> {
        let mut problems = Vec::new();
        if leave_out_clashes {
            let now = self.snapshot();
            items.retain(|item| {
                let key = K::key(item);
                let free = now.get(key).is_none() || held.iter().any(|h| h == key);
                if !free {
                    problems.push(K::duplicate(key));
                }
                free
            });
        }
        let keys = items.iter().map(|i| K::key(i).to_owned()).collect();
        let remove: Vec<&str> = held.iter().map(String::as_str).collect();
        match self.replace(&remove, items.into_iter().map(Ok).collect()) {
            Ok(()) => *held = keys,
            Err(found) => problems.extend(found),
        }
        problems
    }

    /// Removes the item with this key; returns whether there was one.
    pub(crate) fn remove(&self, key: &str) -> bool {
        let mut guard = self.snapshot.write().unwrap_or_else(|p| p.into_inner());
        if guard.get(key).is_none() {
            return false;
        }
        let rest = guard
            .order
            .iter()
            .filter(|i| K::key(i) != key)
            .cloned()
            .collect();
        *guard = Arc::new(Snapshot::new(rest, self.settings.page_size));
        drop(guard);
        self.feed.changed(K::PRIMITIVE);
        true
    }

    /// The keys of the registered items, in list order.
    pub(crate) fn keys(&self) -> Vec<String> {
        self.snapshot()
            .order
            .iter()
            .map(|i| K::key(i).to_owned())
            .collect()
    }

    /// Whether nothing is registered.
    pub(crate) fn is_empty(&self) -> bool {
        self.snapshot().order.is_empty()
    }

    /// The serialized list result for `cursor` in the given era: the result's JSON text,
    /// ready to be spliced into a response.
    pub(crate) fn list_page(
        &self,
        cursor: Option<&str>,
        modern: bool,
    ) -> Result<Arc<str>, McpError> {
        let snapshot = self.snapshot();
        let index = match cursor {
            None => Some(0),
            Some(c) => snapshot.page_by_cursor.get(c).copied(),
        };
        if let Some(page) = index.and_then(|i| snapshot.pages.get(i)) {
            let cell = if modern { &page.modern } else { &page.legacy };
            let text = cell.get_or_init(|| self.render(&snapshot.order, page.start, modern));
            return Ok(text.clone());
        }
        // A cursor from before a change: continue from the key it names, so a client paging
        // through a changing list neither fails nor loops.
        let start = start_at::<K>(&snapshot.order, cursor)?;
        Ok(self.render(&snapshot.order, start, modern))
    }

    /// [`list_page`](Self::list_page) for a client that may not see restricted items: the
    /// cached pages when there are none; else a page of the others: the first one cached
    /// like the others, a later one rendered for its request (cursors name keys, so they
    /// work across both views).
    pub(crate) fn list_page_unrestricted(
        &self,
        cursor: Option<&str>,
        modern: bool,
    ) -> Result<Arc<str>, McpError> {
        let snapshot = self.snapshot();
        if !snapshot.restricted {
            return self.list_page(cursor, modern);
        }
        let visible = || -> Vec<_> {
            snapshot
                .order
                .iter()
                .filter(|item| !K::restricted(item))
                .cloned()
                .collect()
        };
        if cursor.is_none() {
            let cell = &snapshot.unrestricted_first[usize::from(modern)];
            return Ok(cell
                .get_or_init(|| self.render(&visible(), 0, modern))
                .clone());
        }
        let visible = visible();
        let start = start_at::<K>(&visible, cursor)?;
        Ok(self.render(&visible, start, modern))
    }

    /// The page at `cursor` as `view`'s caller sees it: app-only items only for a client
    /// that renders apps, and only the items the visibility rules let it see. The shared
    /// cached pages whenever no rule can hide anything from this caller; otherwise a page of
    /// the visible items, rendered for the request (cursors name keys, so they work across
    /// views).
    pub(crate) fn list_page_for(
        &self,
        cursor: Option<&str>,
        modern: bool,
        view: &View<'_>,
    ) -> Result<Arc<str>, McpError> {
        // Only when a rule may hide something from this caller is the snapshot looked at.
        let Some(snapshot) = K::ITEM
            .filter(|_| view.rules.may_hide(view.caller))
            .map(|_| self.snapshot())
            .filter(|s| s.guarded || view.rules.predicate.is_some())
        else {
            return match view.apps {
                true => self.list_page(cursor, modern),
                false => self.list_page_unrestricted(cursor, modern),
            };
        };
        let visible: Vec<_> = snapshot
            .order
            .iter()
            .filter(|item| view.apps || !K::restricted(item))
            .filter(|item| {
                let seen = Item::new(K::item_kind(item), K::key(item), K::scopes(item));
                view.rules.allows(view.caller, &seen)
            })
            .cloned()
            .collect();
        let start = start_at::<K>(&visible, cursor)?;
        Ok(self.render(&visible, start, modern))
    }

    /// The list result text for the page of `items` beginning at `start`.
    fn render(&self, items: &[Arc<K::Item>], start: usize, modern: bool) -> Arc<str> {
        let end = (start + self.settings.page_size.max(1)).min(items.len());
        let page = ListPage::<K> {
            items: items.get(start..end).unwrap_or_default(),
            next_cursor: items.get(end).map(|i| cursor_for(K::key(i))),
            modern,
        };
        let raw = if modern {
            to_raw(&Modern::complete(
                &page,
                &self.settings.server_info,
                Some(self.settings.cache),
                None::<&JsonObject>,
            ))
        } else {
            to_raw(&page)
        };
        raw.get().into()
    }
}

/// Where in `order` the page named by `cursor` starts: the first item at or after the key
/// the cursor names (the first item without a cursor).
fn start_at<K: Kind>(order: &[Arc<K::Item>], cursor: Option<&str>) -> Result<usize, McpError> {
    let Some(cursor) = cursor else {
        return Ok(0);
    };
    let start_key = Some(cursor)
        .filter(|c| c.len() <= MAX_CURSOR_LEN)
        .and_then(|c| URL_SAFE_NO_PAD.decode(c).ok())
        .and_then(|b| String::from_utf8(b).ok())
        .ok_or_else(|| McpError::invalid_params("invalid cursor"))?;
    Ok(order.partition_point(|i| K::key(i) < start_key.as_str()))
}

/// Cursors longer than this are refused unread (a key is a name or a URI; its base64 is
/// at most this long in any reasonable server).
const MAX_CURSOR_LEN: usize = 16 * 1024;

/// The cursor of the page that begins with `key`: opaque to clients, but stable across
/// changes, so a stale one still says where to continue.
fn cursor_for(key: &str) -> String {
    URL_SAFE_NO_PAD.encode(key)
}

/// A list result: `{"<field>": [...], "nextCursor": "..."}`.
struct ListPage<'a, K: Kind> {
    items: &'a [Arc<K::Item>],
    next_cursor: Option<String>,
    modern: bool,
}

impl<K: Kind> Serialize for ListPage<'_, K> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        struct Items<'a, K: Kind>(&'a [Arc<K::Item>], bool);
        impl<K: Kind> Serialize for Items<'_, K> {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                let mut seq = serializer.serialize_seq(Some(self.0.len()))?;
                for item in self.0 {
                    seq.serialize_element(&K::listed(item, self.1))?;
                }
                seq.end()
            }
        }
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry(K::LIST_FIELD, &Items::<K>(self.items, self.modern))?;
        if let Some(cursor) = &self.next_cursor {
            map.serialize_entry("nextCursor", cursor)?;
        }
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::registry::Generations;
    use serde_json::{Value, json};

    /// A kind made up for the test: what a new primitive has to say about itself.
    struct Words;

    impl Kind for Words {
        type Item = String;
        const PRIMITIVE: Primitive = Primitive::Tools;
        const LIST_FIELD: &'static str = "words";
        const ITEM: Option<ItemKind> = None;

        fn key(item: &String) -> &str {
            item
        }

        fn listed(item: &String, modern: bool) -> impl Serialize + '_ {
            json!({ "word": item, "modern": modern })
        }

        fn duplicate(key: &str) -> RegistrationError {
            RegistrationError::Duplicate {
                name: key.to_owned(),
            }
        }
    }

    fn catalog(page_size: usize) -> (Catalog<Words>, ChangeFeed) {
        let feed = ChangeFeed::new();
        let settings = PageSettings {
            server_info: to_raw(&json!({"name": "t", "version": "0"})).into(),
            cache: CachePolicy::default(),
            page_size,
        };
        (Catalog::new(settings, feed.clone()), feed)
    }

    fn page(c: &Catalog<Words>, cursor: Option<&str>, modern: bool) -> Value {
        serde_json::from_str(&c.list_page(cursor, modern).unwrap()).unwrap()
    }

    fn words(v: &Value) -> Vec<&str> {
        v["words"]
            .as_array()
            .unwrap()
            .iter()
            .map(|w| w["word"].as_str().unwrap())
            .collect()
    }

    #[test]
    fn a_kind_gets_ordered_pages_cursors_era_rendering_and_change_signals() {
        let (c, feed) = catalog(2);
        let mut changes = feed.subscribe();
        let items = ["pear", "apple", "fig", "kiwi", "date"].map(|w| Ok(w.to_owned()));
        c.insert_all(items.into()).unwrap();
        assert!(changes.has_changed().unwrap());
        let now = *changes.borrow_and_update();
        assert_eq!(
            now.changed_since(Generations::default())
                .collect::<Vec<_>>(),
            [Primitive::Tools]
        );

        let first = page(&c, None, false);
        assert_eq!(words(&first), ["apple", "date"]);
        assert!(
            first.get("resultType").is_none(),
            "legacy pages have no era fields"
        );
        let second = page(&c, first["nextCursor"].as_str(), false);
        assert_eq!(words(&second), ["fig", "kiwi"]);
        let last = page(&c, second["nextCursor"].as_str(), false);
        assert_eq!(words(&last), ["pear"]);
        assert!(last.get("nextCursor").is_none());

        let modern = page(&c, None, true);
        assert_eq!(modern["resultType"], "complete");
        assert_eq!(modern["words"][0]["modern"], true);
        assert!(modern["_meta"]["io.modelcontextprotocol/serverInfo"].is_object());

        // A cursor from before a change continues from the key it names ("fig", no longer
        // the first of a page once "banana" comes in).
        let cursor = first["nextCursor"].as_str().unwrap().to_owned();
        assert!(c.remove("kiwi") && !c.remove("kiwi"));
        c.insert_all(vec![Ok("banana".to_owned())]).unwrap();
        assert_eq!(words(&page(&c, Some(&cursor), false)), ["fig", "pear"]);
        assert!(c.list_page(Some("not base64!"), false).is_err());
    }

    #[test]
    fn registration_is_all_or_nothing_and_reports_every_problem() {
        let (c, feed) = catalog(10);
        c.insert_all(vec![Ok("a".to_owned())]).unwrap();
        let changes = feed.subscribe();
        let errors = c
            .insert_all(vec![
                Ok("a".to_owned()),
                Ok("b".to_owned()),
                Ok("b".to_owned()),
                Err(RegistrationError::MissingDescription { name: "c".into() }),
            ])
            .unwrap_err();
        assert_eq!(errors.len(), 3, "{errors:?}");
        assert_eq!(c.keys(), ["a"], "nothing of a failed registration stays");
        assert!(!changes.has_changed().unwrap(), "and nothing is announced");
    }

    #[test]
    fn replace_is_one_change_or_none() {
        let (c, feed) = catalog(10);
        c.insert_all(vec![Ok("a".to_owned()), Ok("b".to_owned())])
            .unwrap();
        let mut changes = feed.subscribe();
        // "a" replaced by a new "a", "b" removed, "c" added: one swap, one signal.
        c.replace(&["a", "b"], vec![Ok("a".to_owned()), Ok("c".to_owned())])
            .unwrap();
        assert_eq!(c.keys(), ["a", "c"]);
        assert!(changes.has_changed().unwrap());
        changes.borrow_and_update();
        // A clash with an item that stays: nothing changes.
        let errors = c.replace(&["a"], vec![Ok("c".to_owned())]).unwrap_err();
        assert_eq!(errors.len(), 1);
        assert_eq!(c.keys(), ["a", "c"]);
        assert!(!changes.has_changed().unwrap());
        // Removing only is a change too.
        c.replace(&["c"], Vec::new()).unwrap();
        assert_eq!(c.keys(), ["a"]);
        assert!(changes.has_changed().unwrap());
    }
}
