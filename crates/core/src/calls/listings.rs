//! What a session's server listed: the answers to `tools/list`,
//! `resources/list`, `resources/templates/list` and `prompts/list` we sent,
//! joined across their pages. A listing request without a cursor starts the
//! list over, one with a cursor adds its page; the last complete listing of
//! each kind is what the session listed. Every item keeps the seq of the
//! answer that carried it, so a report can name the frame.
//!
//! Read in trace order, one event at a time (`observe`), like the
//! [`Tracker`](super::Tracker): a trace read line by line is folded before
//! the store's bound could evict an early listing.

use crate::protocol::frame::FrameKind;
use crate::protocol::{IdKey, methods};
use crate::trace::{Dir, EventRef};
use serde_json::Value;
use std::collections::HashMap;

/// Items kept per listing at most (the rest are counted).
pub const MAX_ITEMS: usize = 50_000;

/// Listing requests awaiting their answer, at most (older ones are dropped).
const MAX_PENDING: usize = 1024;

/// The four kinds of listing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    Tool,
    Resource,
    ResourceTemplate,
    Prompt,
}

impl Kind {
    pub const ALL: [Kind; 4] = [
        Kind::Tool,
        Kind::Resource,
        Kind::ResourceTemplate,
        Kind::Prompt,
    ];

    /// The listing method.
    pub fn method(self) -> &'static str {
        match self {
            Kind::Tool => methods::TOOLS_LIST,
            Kind::Resource => methods::RESOURCES_LIST,
            Kind::ResourceTemplate => methods::RESOURCE_TEMPLATES_LIST,
            Kind::Prompt => methods::PROMPTS_LIST,
        }
    }

    /// The array a listing result carries.
    pub fn key(self) -> &'static str {
        match self {
            Kind::Tool => "tools",
            Kind::Resource => "resources",
            Kind::ResourceTemplate => "resourceTemplates",
            Kind::Prompt => "prompts",
        }
    }

    /// The field that names an item.
    pub fn name_field(self) -> &'static str {
        match self {
            Kind::Tool | Kind::Prompt => "name",
            Kind::Resource => "uri",
            Kind::ResourceTemplate => "uriTemplate",
        }
    }

    /// How a report words one item of the kind.
    pub fn label(self) -> &'static str {
        match self {
            Kind::Tool => "tool",
            Kind::Resource => "resource",
            Kind::ResourceTemplate => "resource template",
            Kind::Prompt => "prompt",
        }
    }

    fn of_method(m: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.method() == m)
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// One listed item and the answer that listed it.
#[derive(Debug, Clone, PartialEq)]
pub struct Listed {
    pub item: Value,
    pub seq: u64,
}

impl Listed {
    /// The item's name (`name`, `uri` or `uriTemplate`), if it has one.
    pub fn name(&self, kind: Kind) -> Option<&str> {
        self.item.get(kind.name_field()).and_then(Value::as_str)
    }
}

/// The complete listing of one kind.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Listing {
    pub items: Vec<Listed>,
    /// The answer that completed it (its last page).
    pub seq: u64,
    /// Items over [`MAX_ITEMS`], counted only.
    pub dropped: u64,
}

#[derive(Debug, Clone, Default)]
struct Building {
    listing: Listing,
    /// Some page was added; the listing is complete once a page has no
    /// `nextCursor`.
    started: bool,
}

/// The listings of a session, folded from its events.
#[derive(Debug, Default)]
pub struct Listings {
    done: [Option<Listing>; 4],
    building: [Building; 4],
    /// Listing requests by id: their kind, and whether they asked for a
    /// later page.
    pending: HashMap<IdKey, (Kind, bool)>,
}

impl Listings {
    /// The last complete listing of `kind`, if the session had one. A
    /// listing whose last page never came counts as listed up to it.
    pub fn get(&self, kind: Kind) -> Option<&Listing> {
        self.done[kind.index()].as_ref().or_else(|| {
            let b = &self.building[kind.index()];
            b.started.then_some(&b.listing)
        })
    }

    /// Whether the listing [`Listings::get`] gives for `kind` ended: its
    /// last page named no next page (false for a listing cut short).
    pub fn ended(&self, kind: Kind) -> bool {
        self.done[kind.index()].is_some()
    }

    /// Take in one event (in trace order).
    pub fn observe(&mut self, ev: &EventRef<'_>) {
        match (ev.dir, ev.kind) {
            (Dir::Out, FrameKind::Request) => {
                let Some(kind) = ev.method.and_then(Kind::of_method) else {
                    return;
                };
                let f = ev.frame();
                let Some(id) = f.id else { return };
                let paged = f
                    .params
                    .and_then(|p| serde_json::from_str::<Value>(p.get()).ok())
                    .is_some_and(|p| p.get("cursor").is_some_and(|c| !c.is_null()));
                if self.pending.len() >= MAX_PENDING {
                    self.pending.clear();
                }
                self.pending.insert(id, (kind, paged));
            }
            (Dir::In, FrameKind::Response) if !self.pending.is_empty() => {
                let f = ev.frame();
                let Some((kind, paged)) = f.id.and_then(|id| self.pending.remove(&id)) else {
                    return;
                };
                let Some(result) = f
                    .result
                    .and_then(|r| serde_json::from_str::<Value>(r.get()).ok())
                else {
                    return;
                };
                self.page(kind, paged, result, ev.seq);
            }
            (Dir::In, FrameKind::ErrorResponse) if !self.pending.is_empty() => {
                if let Some(id) = ev.frame().id {
                    self.pending.remove(&id);
                }
            }
            _ => {}
        }
    }

    fn page(&mut self, kind: Kind, paged: bool, mut result: Value, seq: u64) {
        let b = &mut self.building[kind.index()];
        if !paged || !b.started {
            *b = Building::default();
        }
        b.started = true;
        b.listing.seq = seq;
        if let Some(Value::Array(items)) = result.get_mut(kind.key()).map(Value::take) {
            for item in items {
                if b.listing.items.len() < MAX_ITEMS {
                    b.listing.items.push(Listed { item, seq });
                } else {
                    b.listing.dropped += 1;
                }
            }
        }
        let more = result
            .get("nextCursor")
            .is_some_and(|c| !c.is_null() && c != "");
        if !more {
            let b = std::mem::take(b);
            self.done[kind.index()] = Some(b.listing);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::Store;

    fn store(lines: &[(&str, &str)]) -> Store {
        let mut s = Store::default();
        for (i, (dir, json)) in lines.iter().enumerate() {
            let d = Dir::parse(dir).unwrap();
            s.append_recorded(d, "stdio", i as u64, json.as_bytes(), false);
        }
        s
    }

    fn listings(s: &Store) -> Listings {
        let mut l = Listings::default();
        for ev in s.range(0, s.next_seq()) {
            l.observe(&ev);
        }
        l
    }

    #[test]
    fn pages_are_joined_and_a_new_listing_starts_over() {
        let s = store(&[
            ("out", r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#),
            (
                "in",
                r#"{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a"}],"nextCursor":"c"}}"#,
            ),
            (
                "out",
                r#"{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"cursor":"c"}}"#,
            ),
            (
                "in",
                r#"{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"b"}]}}"#,
            ),
        ]);
        let l = listings(&s);
        let tools = l.get(Kind::Tool).unwrap();
        let names: Vec<_> = tools.items.iter().map(|i| i.name(Kind::Tool)).collect();
        assert_eq!(names, [Some("a"), Some("b")]);
        assert_eq!(tools.items[0].seq, 1);
        assert_eq!(tools.items[1].seq, 3);
        assert!(l.get(Kind::Prompt).is_none());

        let s = store(&[
            ("out", r#"{"jsonrpc":"2.0","id":1,"method":"prompts/list"}"#),
            (
                "in",
                r#"{"jsonrpc":"2.0","id":1,"result":{"prompts":[{"name":"a"}]}}"#,
            ),
            ("out", r#"{"jsonrpc":"2.0","id":2,"method":"prompts/list"}"#),
            ("in", r#"{"jsonrpc":"2.0","id":2,"result":{"prompts":[]}}"#),
        ]);
        assert!(listings(&s).get(Kind::Prompt).unwrap().items.is_empty());
    }
}
