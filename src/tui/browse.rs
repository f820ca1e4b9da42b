//! The Tools pane's other tabs: the server's resources (with templates)
//! and prompts. Lists are fetched page by page (every page) when a tab is
//! first shown and again on the server's `list_changed`; reading a resource
//! or getting a prompt fills a scrollable detail view. Subscriptions mark
//! their resource, and `notifications/resources/updated` counts on it live.
//! Everything the server sends is bounded here and the cut is said.

pub mod detail;
pub mod template;

pub use detail::{Detail, Tone};

use crate::protocol::{Revision, methods};
use crate::trace::{Dir, Store};
use crate::tui::cursor::Cursor;
use crate::tui::format::{match_rank, safe, safe_row};
use serde_json::{Map, Value, json};
use std::collections::{HashMap, HashSet};

/// Items of one list kept (the rest are counted, not shown).
pub const MAX_ITEMS: usize = 5_000;
/// Lines a detail view keeps.
pub const MAX_LINES: usize = 5_000;
/// Bytes of a binary content shown as hex.
pub const HEX_PREVIEW: usize = 256;
/// Contents (of one read) or messages (of one prompt) shown.
pub const MAX_PARTS: usize = 200;

pub const RESOURCES_UPDATED: &str = "notifications/resources/updated";
pub const RESOURCES_LIST_CHANGED: &str = "notifications/resources/list_changed";
pub const PROMPTS_LIST_CHANGED: &str = "notifications/prompts/list_changed";

/// The tabs sharing the Tools pane's slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Tab {
    #[default]
    Tools,
    Resources,
    Prompts,
}

impl Tab {
    pub const ALL: [Tab; 3] = [Tab::Tools, Tab::Resources, Tab::Prompts];

    pub fn title(self) -> &'static str {
        match self {
            Tab::Tools => "Tools",
            Tab::Resources => "Resources",
            Tab::Prompts => "Prompts",
        }
    }

    pub fn step(self, forward: bool) -> Tab {
        let i = Tab::ALL.iter().position(|t| *t == self).unwrap_or(0);
        let n = Tab::ALL.len();
        Tab::ALL[if forward {
            (i + 1) % n
        } else {
            (i + n - 1) % n
        }]
    }
}

/// A request the tabs make; the runtime sends it and hands back its result.
#[derive(Debug, Clone, PartialEq)]
pub enum Req {
    ListResources,
    ListTemplates,
    ListPrompts,
    Read {
        uri: String,
    },
    Subscribe {
        uri: String,
        on: bool,
    },
    /// 2026-07-28: watch `uris` (the new set, `uri` turned `on` or off in
    /// it) through one `subscriptions/listen` stream.
    Watch {
        uri: String,
        on: bool,
        uris: Vec<String>,
    },
    GetPrompt {
        name: String,
        args: Map<String, Value>,
    },
    /// `completion/complete`; `round` tells a stale reply from the latest.
    Complete {
        round: u64,
        params: Value,
    },
}

impl Req {
    pub fn method(&self) -> &'static str {
        match self {
            Req::ListResources => methods::RESOURCES_LIST,
            Req::ListTemplates => methods::RESOURCE_TEMPLATES_LIST,
            Req::ListPrompts => methods::PROMPTS_LIST,
            Req::Read { .. } => "resources/read",
            Req::Subscribe { on: true, .. } => "resources/subscribe",
            Req::Subscribe { on: false, .. } => "resources/unsubscribe",
            Req::Watch { .. } => methods::SUBSCRIPTIONS_LISTEN,
            Req::GetPrompt { .. } => "prompts/get",
            Req::Complete { .. } => "completion/complete",
        }
    }

    /// Paginated listings are followed to their last page.
    pub fn is_listing(&self) -> bool {
        matches!(
            self,
            Req::ListResources | Req::ListTemplates | Req::ListPrompts
        )
    }

    pub fn params(&self) -> Option<Value> {
        match self {
            Req::ListResources | Req::ListTemplates | Req::ListPrompts => None,
            Req::Read { uri } | Req::Subscribe { uri, .. } => Some(json!({"uri": uri})),
            // Not a plain request: `Session::listen_resources` opens the stream.
            Req::Watch { .. } => None,
            Req::GetPrompt { name, args } => Some(json!({"name": name, "arguments": args})),
            Req::Complete { params, .. } => Some(params.clone()),
        }
    }
}

/// What the server declared that the tabs depend on.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Caps {
    pub resources: bool,
    pub subscribe: bool,
    pub prompts: bool,
    pub completions: bool,
    /// `context.arguments` in `completion/complete` (2025-06-18 on).
    pub context: bool,
    /// The stateless 2026-07-28 revision, which removed `resources/subscribe`
    /// (subscriptions there go through `subscriptions/listen`, `Req::Watch`).
    pub stateless: bool,
}

impl Caps {
    pub fn of(capabilities: &Value, revision: &str) -> Caps {
        let has = |k: &str| capabilities.get(k).is_some_and(|v| !v.is_null());
        let revision = Revision::floor_of(revision);
        let stateless = revision >= Some(Revision::V2026_07_28);
        Caps {
            resources: has("resources"),
            subscribe: capabilities
                .pointer("/resources/subscribe")
                .and_then(Value::as_bool)
                == Some(true),
            stateless,
            prompts: has("prompts"),
            completions: has("completions"),
            context: revision >= Some(Revision::V2025_06_18),
        }
    }
}

#[derive(Debug, Clone, Default)]
pub struct Resource {
    /// Exactly as listed: reads and subscriptions use it.
    pub uri: String,
    pub label: String,
    pub name: String,
    pub mime: String,
    pub size: Option<u64>,
    pub description: String,
    pub subscribed: bool,
    /// `notifications/resources/updated` received for it, and the last one's time.
    pub updates: u64,
    pub last_update_us: Option<u64>,
}

#[derive(Debug, Clone, Default)]
pub struct Template {
    pub template: String,
    pub label: String,
    pub name: String,
    pub mime: String,
    pub description: String,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct PromptArg {
    pub name: String,
    pub description: String,
    pub required: bool,
}

#[derive(Debug, Clone, Default)]
pub struct Prompt {
    pub name: String,
    pub label: String,
    pub title: String,
    pub description: String,
    pub args: Vec<PromptArg>,
}

/// One list as fetched: what is kept, how many the server listed.
#[derive(Debug, Clone)]
pub struct Listing<T> {
    pub items: Vec<T>,
    pub listed: usize,
    pub loading: bool,
    pub loaded: bool,
    pub error: Option<String>,
}

impl<T> Default for Listing<T> {
    fn default() -> Self {
        Listing {
            items: Vec::new(),
            listed: 0,
            loading: false,
            loaded: false,
            error: None,
        }
    }
}

impl<T> Listing<T> {
    fn fill(&mut self, result: Result<Value, String>, key: &str, item: impl Fn(&Value) -> T) {
        self.loading = false;
        self.loaded = true;
        match result {
            Ok(v) => {
                let list = v.get(key).and_then(Value::as_array);
                self.listed = list.map_or(0, Vec::len);
                self.items = list
                    .into_iter()
                    .flatten()
                    .take(MAX_ITEMS)
                    .map(item)
                    .collect();
                self.error = None;
            }
            Err(e) => self.error = Some(safe_row(&e)),
        }
    }

    /// "12" or "showing 5000 of 7000".
    pub fn count(&self) -> String {
        if self.listed > self.items.len() {
            format!("showing {} of {}", self.items.len(), self.listed)
        } else {
            self.items.len().to_string()
        }
    }
}

/// A row of the Resources tab: resources first, then templates.
pub enum Row<'a> {
    Resource(&'a Resource),
    Template(&'a Template),
}

#[derive(Debug, Default)]
pub struct ResourcesTab {
    pub resources: Listing<Resource>,
    pub templates: Listing<Template>,
    pub cursor: Cursor,
    pub detail: Option<Detail>,
    /// The text filter, and the rows (resources, then templates) it keeps.
    pub filter: String,
    visible: Vec<usize>,
    /// Where each listed URI is in `resources.items` (updates find it in O(1)).
    by_uri: HashMap<String, usize>,
}

/// Rows the filter `f` keeps, best match first: `rank` gives each row's
/// match (see `match_rank`).
fn ranked(total: usize, rank: impl Fn(usize) -> Option<u8>) -> Vec<usize> {
    let mut r: Vec<(u8, usize)> = (0..total).filter_map(|i| rank(i).map(|k| (k, i))).collect();
    crate::sort::by_key(&mut r, |(k, _)| *k);
    r.into_iter().map(|(_, i)| i).collect()
}

impl ResourcesTab {
    /// Rows shown (those the filter keeps).
    pub fn len(&self) -> usize {
        self.visible.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn raw_row(&self, i: usize) -> Option<Row<'_>> {
        let n = self.resources.items.len();
        if i < n {
            Some(Row::Resource(&self.resources.items[i]))
        } else {
            self.templates.items.get(i - n).map(Row::Template)
        }
    }

    /// The `i`th row shown.
    pub fn row(&self, i: usize) -> Option<Row<'_>> {
        self.visible.get(i).and_then(|r| self.raw_row(*r))
    }

    pub fn selected(&self) -> Option<Row<'_>> {
        self.row(self.cursor.selected)
    }

    pub fn loading(&self) -> bool {
        self.resources.loading || self.templates.loading
    }

    pub fn set_filter(&mut self, text: &str) {
        self.filter = text.to_string();
        self.refilter();
        if !text.is_empty() {
            self.cursor.selected = 0;
        }
    }

    fn refilter(&mut self) {
        let f = self.filter.to_lowercase();
        let total = self.resources.items.len() + self.templates.items.len();
        self.visible = ranked(total, |i| match self.raw_row(i) {
            Some(Row::Resource(r)) => match_rank(&f, &[&r.uri, &r.name], &[&r.description]),
            Some(Row::Template(t)) => match_rank(&f, &[&t.template, &t.name], &[&t.description]),
            None => None,
        });
        let n = self.visible.len();
        self.cursor.move_by(0, n);
    }
}

#[derive(Debug, Default)]
pub struct PromptsTab {
    pub list: Listing<Prompt>,
    pub cursor: Cursor,
    pub detail: Option<Detail>,
    pub filter: String,
    visible: Vec<usize>,
}

impl PromptsTab {
    /// Prompts shown (those the filter keeps).
    pub fn len(&self) -> usize {
        self.visible.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The `i`th prompt shown.
    pub fn item(&self, i: usize) -> Option<&Prompt> {
        self.visible.get(i).and_then(|r| self.list.items.get(*r))
    }

    pub fn selected(&self) -> Option<&Prompt> {
        self.item(self.cursor.selected)
    }

    pub fn set_filter(&mut self, text: &str) {
        self.filter = text.to_string();
        self.refilter();
        if !text.is_empty() {
            self.cursor.selected = 0;
        }
    }

    fn refilter(&mut self) {
        let f = self.filter.to_lowercase();
        self.visible = ranked(self.list.items.len(), |i| {
            let p = &self.list.items[i];
            match_rank(&f, &[&p.name, &p.title], &[&p.description])
        });
        let n = self.visible.len();
        self.cursor.move_by(0, n);
    }
}

/// Arguments of a prompt (and fields of the argument form built from it)
/// kept, at most.
pub const MAX_FIELDS: usize = 64;

#[derive(Default)]
pub struct Browse {
    pub tab: Tab,
    pub resources: ResourcesTab,
    pub prompts: PromptsTab,
    /// Keys scroll the detail view instead of moving in the list.
    pub detail_focus: bool,
    pub caps: Caps,
    /// Requests the server's notifications asked for, sent on the next tick.
    pub queued: Vec<Req>,
    /// Store events looked at for notifications.
    scanned: u64,
}

fn text(v: &Value, k: &str, n: usize) -> String {
    v.get(k)
        .and_then(Value::as_str)
        .map(|s| safe(s, n))
        .unwrap_or_default()
}

fn raw_str(v: &Value, k: &str) -> String {
    v.get(k)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

impl Browse {
    /// The requests showing `tab` needs (its lists, once).
    pub fn show(&mut self, tab: Tab) -> Vec<Req> {
        self.tab = tab;
        self.detail_focus = false;
        match tab {
            Tab::Resources if !self.resources.resources.loaded && self.caps.resources => {
                self.load_resources()
            }
            Tab::Prompts if !self.prompts.list.loaded && self.caps.prompts => self.load_prompts(),
            _ => Vec::new(),
        }
    }

    pub fn load_resources(&mut self) -> Vec<Req> {
        if !self.caps.resources {
            return Vec::new();
        }
        self.resources.resources.loading = true;
        self.resources.templates.loading = true;
        vec![Req::ListResources, Req::ListTemplates]
    }

    pub fn load_prompts(&mut self) -> Vec<Req> {
        if !self.caps.prompts {
            return Vec::new();
        }
        self.prompts.list.loading = true;
        vec![Req::ListPrompts]
    }

    /// A reply to one of the tabs' requests. Returns a line for the status bar.
    pub fn on_reply(&mut self, req: Req, result: Result<Value, String>) -> Option<String> {
        match req {
            Req::ListResources => {
                // Subscriptions and update counts outlive a refresh.
                let old: Vec<Resource> = std::mem::take(&mut self.resources.resources.items);
                let old: HashMap<&str, &Resource> =
                    old.iter().map(|r| (r.uri.as_str(), r)).collect();
                self.resources.resources.fill(result, "resources", |v| {
                    let uri = raw_str(v, "uri");
                    let prev = old.get(uri.as_str());
                    Resource {
                        label: safe(&uri, 200),
                        name: text(v, "name", 80),
                        mime: text(v, "mimeType", 60),
                        size: v.get("size").and_then(Value::as_u64),
                        description: raw_str(v, "description"),
                        subscribed: prev.is_some_and(|p| p.subscribed),
                        updates: prev.map_or(0, |p| p.updates),
                        last_update_us: prev.and_then(|p| p.last_update_us),
                        uri,
                    }
                });
                self.resources.by_uri = (self.resources.resources.items.iter().enumerate())
                    .map(|(i, r)| (r.uri.clone(), i))
                    .collect();
                self.resources.refilter();
                None
            }
            Req::ListTemplates => {
                self.resources
                    .templates
                    .fill(result, "resourceTemplates", |v| {
                        let template = raw_str(v, "uriTemplate");
                        Template {
                            label: safe(&template, 200),
                            name: text(v, "name", 80),
                            mime: text(v, "mimeType", 60),
                            description: raw_str(v, "description"),
                            template,
                        }
                    });
                self.resources.refilter();
                None
            }
            Req::ListPrompts => {
                self.prompts.list.fill(result, "prompts", prompt_of);
                self.prompts.refilter();
                None
            }
            Req::Read { uri } => {
                let title = format!("resources/read {}", safe(&uri, 120));
                self.resources.detail = Some(match result {
                    Ok(v) => detail::contents(title, &v),
                    Err(e) => Detail::error(title, &e),
                });
                None
            }
            Req::Subscribe { uri, on } => match result {
                Ok(_) => {
                    if let Some(r) = self
                        .resources
                        .resources
                        .items
                        .iter_mut()
                        .find(|r| r.uri == uri)
                    {
                        r.subscribed = on;
                    }
                    Some(format!(
                        "{} {}",
                        if on {
                            "subscribed to"
                        } else {
                            "unsubscribed from"
                        },
                        safe(&uri, 80)
                    ))
                }
                Err(e) => Some(format!("{}: {}", req_name(on), safe_row(&e))),
            },
            Req::Watch { uri, on, .. } => match result {
                Ok(v) => {
                    let granted: HashSet<&str> = v
                        .get("resourceSubscriptions")
                        .and_then(Value::as_array)
                        .into_iter()
                        .flatten()
                        .filter_map(Value::as_str)
                        .collect();
                    for r in &mut self.resources.resources.items {
                        r.subscribed = granted.contains(r.uri.as_str());
                    }
                    let what = safe(&uri, 80);
                    Some(match (on, granted.contains(uri.as_str())) {
                        (true, true) => format!("watching {what} (subscriptions/listen)"),
                        (true, false) => {
                            format!("the server's listen stream did not take {what}")
                        }
                        (false, _) => format!("stopped watching {what}"),
                    })
                }
                Err(e) => Some(format!("subscriptions/listen: {}", safe_row(&e))),
            },
            Req::GetPrompt { name, .. } => {
                let title = format!("prompts/get {}", safe(&name, 80));
                self.prompts.detail = Some(match result {
                    Ok(v) => detail::messages(title, &v),
                    Err(e) => Detail::error(title, &e),
                });
                None
            }
            // The argument form's: the App hands it to the overlay.
            Req::Complete { .. } => None,
        }
    }

    /// Take in the server's notifications since the last look: updates
    /// count on their resource, list changes refetch a list once loaded.
    pub fn sync(&mut self, store: &Store) -> bool {
        let end = store.next_seq();
        let from = self.scanned.max(store.first_seq());
        self.scanned = end;
        let mut changed = false;
        let (mut relist_resources, mut relist_prompts) = (false, false);
        for ev in store.range(from, end) {
            if ev.dir != Dir::In {
                continue;
            }
            match ev.method {
                Some(RESOURCES_UPDATED) => {
                    #[derive(serde::Deserialize)]
                    struct Updated {
                        uri: String,
                    }
                    let uri = ev
                        .frame()
                        .params
                        .and_then(|p| serde_json::from_str::<Updated>(p.get()).ok());
                    let r = &mut self.resources;
                    if let Some(r) = uri
                        .and_then(|u| r.by_uri.get(&u.uri).copied())
                        .and_then(|i| r.resources.items.get_mut(i))
                    {
                        r.updates += 1;
                        r.last_update_us = Some(ev.t_us);
                        changed = true;
                    }
                }
                Some(RESOURCES_LIST_CHANGED) => relist_resources = true,
                Some(PROMPTS_LIST_CHANGED) => relist_prompts = true,
                _ => {}
            }
        }
        if relist_resources && self.resources.resources.loaded && !self.resources.loading() {
            let reqs = self.load_resources();
            self.queued.extend(reqs);
        }
        if relist_prompts && self.prompts.list.loaded && !self.prompts.list.loading {
            let reqs = self.load_prompts();
            self.queued.extend(reqs);
        }
        changed || !self.queued.is_empty()
    }
}

fn req_name(on: bool) -> &'static str {
    if on {
        "resources/subscribe"
    } else {
        "resources/unsubscribe"
    }
}

fn prompt_of(v: &Value) -> Prompt {
    let name = raw_str(v, "name");
    Prompt {
        label: safe(&name, 80),
        title: text(v, "title", 80),
        description: raw_str(v, "description"),
        args: v
            .get("arguments")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .take(MAX_FIELDS)
            .map(|a| PromptArg {
                name: raw_str(a, "name"),
                description: raw_str(a, "description"),
                required: a.get("required").and_then(Value::as_bool) == Some(true),
            })
            .filter(|a| !a.name.is_empty())
            .collect(),
        name,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caps_follow_the_declaration() {
        let c = Caps::of(
            &json!({"resources": {"subscribe": true}, "completions": {}}),
            "2025-11-25",
        );
        assert!(c.resources && c.subscribe && c.completions && c.context && !c.prompts);
        let old = Caps::of(&json!({"resources": {}}), "2025-03-26");
        assert!(!old.subscribe && !old.context);
        let stateless = Caps::of(&json!({"resources": {"subscribe": true}}), "2026-07-28");
        // Declared the same way; only the path differs (subscriptions/listen).
        assert!(stateless.stateless && stateless.subscribe && stateless.context);
    }
}
