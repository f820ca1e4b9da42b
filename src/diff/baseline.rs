//! Baselines: the tool, resource, resource template and prompt definitions
//! a server exposed, pinned in a file, and how a session drifts from them.
//!
//! The file is JSON, pretty-printed, stable: each kind's items sorted by
//! name (`name`, `uri`, `uriTemplate`), every object's keys sorted, so two
//! baselines of the same server are byte-identical and a change reads well
//! in `git diff`:
//!
//! ```json
//! {
//!   "mcpscope_baseline": 1,
//!   "prompts": [ … ],
//!   "resourceTemplates": [ … ],
//!   "resources": [ … ],
//!   "tools": [ { "description": "…", "inputSchema": { … }, "name": "echo" } ]
//! }
//! ```
//!
//! Only the kinds the session listed are written; a kind absent from the
//! file is not pinned. Each item is kept exactly as the server listed it.
//! Drift is the listing comparison of `diff` with the baseline as A and the
//! session as B; a pinned kind the session did not list is drift too (the
//! definitions could not be checked).

use super::listing::{self, Items, ListingChange, Status};
use super::{At, DiffError};
use crate::calls::listings::{Kind, Listings};
use crate::protocol::sanitize::one_line_max;
use serde_json::{Map, Value};
use std::path::Path;

pub const FORMAT_VERSION: u64 = 1;

/// Largest baseline file read.
const MAX_FILE: u64 = 64 << 20;

/// The pinned definitions.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Baseline {
    /// Per kind, its items; `None`: the kind is not pinned.
    pub pinned: [Option<Vec<Value>>; 4],
}

impl Baseline {
    /// What a session listed.
    pub fn of(listings: &Listings) -> Baseline {
        let mut b = Baseline::default();
        for (i, kind) in Kind::ALL.into_iter().enumerate() {
            b.pinned[i] = listings.get(kind).map(|l| {
                let mut items: Vec<Value> = l.items.iter().map(|i| i.item.clone()).collect();
                let name = |v: &Value| {
                    v.get(kind.name_field())
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_string()
                };
                crate::sort::by(&mut items, |x, y| {
                    name(x)
                        .cmp(&name(y))
                        .then_with(|| x.to_string().cmp(&y.to_string()))
                });
                items
            });
        }
        b
    }

    /// What a session listed, to be pinned — refused when a listing did not
    /// end (its pages never did, as `request` refuses them, or it holds
    /// more items than are kept) or names an item twice: a pin of a
    /// listing the server never finished would pass or fail later runs on
    /// what happened to be listed.
    pub fn pin(listings: &Listings) -> Result<Baseline, DiffError> {
        Baseline::pin_within(listings, MAX_FILE)
    }

    /// [`Baseline::pin`], refusing a pin whose file would be larger than
    /// `max_file` bytes: `--baseline` could not read it back.
    fn pin_within(listings: &Listings, max_file: u64) -> Result<Baseline, DiffError> {
        for kind in Kind::ALL {
            let Some(l) = listings.get(kind) else {
                continue;
            };
            let label = kind.label();
            if !listings.ended(kind) {
                return Err(DiffError::NeverEnded { label, seq: l.seq });
            }
            if l.dropped > 0 {
                return Err(DiffError::TooManyItems {
                    label,
                    max: crate::calls::listings::MAX_ITEMS,
                });
            }
            let mut seen = std::collections::HashSet::new();
            for item in &l.items {
                if let Some(name) = item.name(kind)
                    && !seen.insert(name)
                {
                    return Err(DiffError::NamedTwice {
                        label,
                        name: one_line_max(name, 80),
                        seq: item.seq,
                    });
                }
            }
        }
        let b = Baseline::of(listings);
        let size = b.to_text().len() as u64;
        if size > max_file {
            return Err(DiffError::PinTooLarge {
                mib: size >> 20,
                max_mib: max_file >> 20,
            });
        }
        Ok(b)
    }

    /// Nothing pinned at all.
    pub fn is_empty(&self) -> bool {
        self.pinned.iter().all(Option::is_none)
    }

    /// The file's text.
    pub fn to_text(&self) -> String {
        let mut m = Map::new();
        m.insert("mcpscope_baseline".into(), FORMAT_VERSION.into());
        for (i, kind) in Kind::ALL.into_iter().enumerate() {
            if let Some(items) = &self.pinned[i] {
                m.insert(kind.key().into(), Value::Array(items.clone()));
            }
        }
        // serde_json's maps keep keys sorted: the text is stable. The file
        // is reviewed in `git diff`: a description's direction-changing or
        // invisible characters are written as `\u` escapes (the same JSON
        // value), never raw.
        let text = serde_json::to_string_pretty(&Value::Object(m)).unwrap_or_default();
        crate::protocol::json_text::escape_invisible(&text) + "\n"
    }

    pub fn parse(text: &str) -> Result<Baseline, DiffError> {
        let v: Value = serde_json::from_str(text).map_err(DiffError::NotJson)?;
        if v.get("mcpscope_baseline").and_then(Value::as_u64) != Some(FORMAT_VERSION) {
            return Err(DiffError::NotBaseline);
        }
        let mut b = Baseline::default();
        for (i, kind) in Kind::ALL.into_iter().enumerate() {
            match v.get(kind.key()) {
                None => {}
                Some(Value::Array(items)) => {
                    // An item without its name matches nothing: it would
                    // pin nothing and pass whatever the server lists.
                    if let Some((n, _)) = items
                        .iter()
                        .enumerate()
                        .find(|(_, it)| it.get(kind.name_field()).and_then(Value::as_str).is_none())
                    {
                        return Err(DiffError::Unnamed {
                            key: kind.key(),
                            index: n,
                            field: kind.name_field(),
                        });
                    }
                    b.pinned[i] = Some(items.clone())
                }
                Some(_) => return Err(DiffError::NotArray { key: kind.key() }),
            }
        }
        if b.is_empty() {
            // A check against it could only pass.
            return Err(DiffError::PinsNothing {
                keys: Kind::ALL.map(Kind::key).join(", "),
            });
        }
        Ok(b)
    }

    pub fn read(path: &Path) -> Result<Baseline, DiffError> {
        // As a trace is read: a device or a directory is refused at once,
        // a pipe is read up to the limit.
        let text =
            crate::files::read_capped(path, MAX_FILE, true).map_err(|source| DiffError::Read {
                path: path.to_path_buf(),
                source,
            })?;
        Baseline::parse(&text).map_err(|e| DiffError::Bad {
            path: path.to_path_buf(),
            source: Box::new(e),
        })
    }

    /// How a session's listings differ from the pinned ones; `at` places a
    /// session seq.
    pub fn drift(&self, listings: &Listings, at: &dyn Fn(u64) -> At) -> Vec<ListingChange> {
        let mut out = Vec::new();
        let none = |_| At { seq: 0, line: 0 };
        for (i, kind) in Kind::ALL.into_iter().enumerate() {
            let Some(pinned) = &self.pinned[i] else {
                continue;
            };
            let Some(l) = listings.get(kind) else {
                out.push(ListingChange {
                    kind: format!("{} listing", kind.label()),
                    name: format!(
                        "{} {} pinned, not listed in the session",
                        pinned.len(),
                        kind.key()
                    ),
                    change: Status::NotListed,
                    fields: Vec::new(),
                    less_safe: Vec::new(),
                    at_a: None,
                    at_b: None,
                });
                continue;
            };
            listing::compare(
                kind,
                &Items::of(kind, pinned.iter().map(|v| (v, None))),
                &Items::of_listing(kind, l),
                &none,
                at,
                &mut out,
            );
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Listings folded from a tools/list answer with `tools`.
    fn listed(tools: Value) -> Listings {
        let mut store = crate::trace::Store::default();
        for (dir, v) in [
            (
                "out",
                json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
            ),
            (
                "in",
                json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": tools}}),
            ),
        ] {
            let d = crate::trace::Dir::parse(dir).unwrap();
            store.append_recorded(d, "stdio", 0, v.to_string().as_bytes(), false);
        }
        let mut l = Listings::default();
        for ev in store.range(0, store.next_seq()) {
            l.observe(&ev);
        }
        l
    }

    #[test]
    fn a_pin_too_large_to_read_back_is_refused() {
        let tools = json!([{"name": "a", "description": "x".repeat(3 << 20)}]);
        let l = listed(tools);
        let e = Baseline::pin_within(&l, 2 << 20).unwrap_err().to_string();
        assert!(e.contains("a pin of 3 MiB, over the 2 MiB"), "{e}");
        assert!(Baseline::pin_within(&l, 4 << 20).is_ok());
    }

    #[test]
    fn the_text_is_sorted_and_reads_back() {
        let mut b = Baseline::default();
        b.pinned[0] = Some(vec![
            json!({"name": "a", "inputSchema": {"type": "object"}, "description": "x"}),
        ]);
        let text = b.to_text();
        assert!(
            text.starts_with("{\n  \"mcpscope_baseline\": 1,\n  \"tools\": ["),
            "{text}"
        );
        assert!(text.find("description").unwrap() < text.find("inputSchema").unwrap());
        assert_eq!(Baseline::parse(&text).unwrap(), b);
        assert!(Baseline::parse("{}").is_err());
        assert!(Baseline::parse("{\"mcpscope_baseline\":1,\"tools\":{}}").is_err());
    }
}
