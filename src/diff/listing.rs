//! Comparing what two sessions listed (or a session and a baseline): tools,
//! resources, resource templates and prompts, by name (`name`, `uri`,
//! `uriTemplate`). An item is added, removed, or changed in some top-level
//! field (`description`, `inputSchema`, `outputSchema`, `annotations`,
//! `title`, …: every field is compared, as JSON). A tool change is flagged
//! less safe when it widens what the tool may do:
//! - `readOnlyHint` was true and is no longer (false or absent: absent
//!   means false);
//! - `destructiveHint` was false and is no longer (absent means true);
//! - `idempotentHint` was true and is no longer;
//! - `openWorldHint` was false and is no longer (absent means true);
//! - `inputSchema.required` names an input the other did not require.

use super::At;
use crate::calls::listings::{Kind, Listed, Listing};
use crate::calls::safety::{Safety, hint};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// A listing as the comparison reads it: its items by name, each with
/// where it was listed (`None` for a baseline).
pub struct Items<'a> {
    pub by_name: BTreeMap<String, (&'a Value, Option<u64>)>,
}

impl<'a> Items<'a> {
    pub fn of_listing(kind: Kind, l: &'a Listing) -> Items<'a> {
        Items::of(
            kind,
            l.items.iter().map(|i: &Listed| (&i.item, Some(i.seq))),
        )
    }

    pub fn of(kind: Kind, items: impl Iterator<Item = (&'a Value, Option<u64>)>) -> Items<'a> {
        let mut by_name = BTreeMap::new();
        for (item, seq) in items {
            let base = item
                .get(kind.name_field())
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string();
            // A second item of one name is compared as `name#2`.
            let mut name = base.clone();
            let mut n = 1;
            while by_name.contains_key(&name) {
                n += 1;
                name = format!("{base}#{n}");
            }
            by_name.insert(name, (item, seq));
        }
        Items { by_name }
    }
}

/// One field that differs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FieldChange {
    pub field: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub a: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub b: Option<Value>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    Added,
    Removed,
    Changed,
    /// One side listed this kind, the other did not list it at all.
    NotListed,
}

/// One listed item (or a whole listing) that differs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ListingChange {
    /// `tool`, `resource`, `resource template`, `prompt`.
    pub kind: String,
    pub name: String,
    pub change: Status,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fields: Vec<FieldChange>,
    /// Why the change makes a tool less safe, if it does.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub less_safe: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at_a: Option<At>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at_b: Option<At>,
}

/// The changes from `a` to `b` of one kind. `at_a`/`at_b` turn a seq into
/// a place.
pub fn compare(
    kind: Kind,
    a: &Items<'_>,
    b: &Items<'_>,
    at_a: &dyn Fn(u64) -> At,
    at_b: &dyn Fn(u64) -> At,
    out: &mut Vec<ListingChange>,
) {
    let names: std::collections::BTreeSet<&String> =
        a.by_name.keys().chain(b.by_name.keys()).collect();
    for name in names {
        let x = a.by_name.get(name);
        let y = b.by_name.get(name);
        let mut ch = ListingChange {
            kind: kind.label().into(),
            name: name.clone(),
            change: Status::Changed,
            fields: Vec::new(),
            less_safe: Vec::new(),
            at_a: x.and_then(|(_, s)| s.map(at_a)),
            at_b: y.and_then(|(_, s)| s.map(at_b)),
        };
        match (x, y) {
            (Some(_), None) => ch.change = Status::Removed,
            (None, Some((item, _))) => {
                ch.change = Status::Added;
                if kind == Kind::Tool {
                    ch.less_safe = new_tool_risks(item);
                }
            }
            (Some((p, _)), Some((q, _))) => {
                ch.fields = fields(p, q);
                if ch.fields.is_empty() {
                    continue;
                }
                if kind == Kind::Tool {
                    ch.less_safe = less_safe(p, q);
                }
            }
            (None, None) => continue,
        }
        out.push(ch);
    }
}

/// Top-level fields that differ, in name order (compared as listed; the
/// values reported with secret-named values redacted).
fn fields(a: &Value, b: &Value) -> Vec<FieldChange> {
    let empty = serde_json::Map::new();
    let x = a.as_object().unwrap_or(&empty);
    let y = b.as_object().unwrap_or(&empty);
    let keys: std::collections::BTreeSet<&String> = x.keys().chain(y.keys()).collect();
    let shown = |v: Option<&Value>| {
        v.map(|v| {
            let mut v = serde_json::json!({ "v": v });
            crate::protocol::secrets::redact_json(&mut v);
            v["v"].take()
        })
    };
    keys.into_iter()
        .filter(|k| x.get(*k) != y.get(*k))
        .map(|k| {
            let (a, b) = if crate::protocol::secrets::is_secret_name(k) {
                let r = |v: Option<&Value>| {
                    v.map(|_| Value::String(crate::protocol::secrets::REDACTED.into()))
                };
                (r(x.get(k)), r(y.get(k)))
            } else {
                (shown(x.get(k)), shown(y.get(k)))
            };
            FieldChange {
                field: k.clone(),
                a,
                b,
            }
        })
        .collect()
}

/// What makes `b` less safe than `a`.
pub fn less_safe(a: &Value, b: &Value) -> Vec<String> {
    Safety::of(b).less_safe_than(&Safety::of(a))
}

/// A new tool that declares itself destructive or open-world is worth a
/// word too (a tool without annotations is both, by default: not flagged,
/// or every new tool would be).
fn new_tool_risks(tool: &Value) -> Vec<String> {
    let mut why = Vec::new();
    if hint(tool, "destructiveHint") == Some(true) && hint(tool, "readOnlyHint") != Some(true) {
        why.push("a new destructive tool (destructiveHint true)".into());
    }
    why
}

/// The changes between two sessions' listings, every kind in turn. A kind
/// listed by one side only is one `not-listed` change.
pub fn compare_sides(a: &super::Side, b: &super::Side, out: &mut Vec<ListingChange>) {
    for kind in Kind::ALL {
        match (a.listings.get(kind), b.listings.get(kind)) {
            (None, None) => {}
            (Some(l), None) | (None, Some(l)) => {
                let in_a = a.listings.get(kind).is_some();
                let side = if in_a { a } else { b };
                let at = Some(side.at(l.seq));
                out.push(ListingChange {
                    kind: format!("{} listing", kind.label()),
                    name: format!(
                        "{} {} in {}, not listed in {}",
                        l.items.len(),
                        kind.key(),
                        if in_a { "A" } else { "B" },
                        if in_a { "B" } else { "A" }
                    ),
                    change: Status::NotListed,
                    fields: Vec::new(),
                    less_safe: Vec::new(),
                    at_a: if in_a { at } else { None },
                    at_b: if in_a { None } else { at },
                });
            }
            (Some(x), Some(y)) => compare(
                kind,
                &Items::of_listing(kind, x),
                &Items::of_listing(kind, y),
                &|s| a.at(s),
                &|s| b.at(s),
                out,
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn hints_that_widen_a_tool_are_less_safe() {
        let a = json!({"name": "t", "annotations": {"readOnlyHint": true, "destructiveHint": false},
                       "inputSchema": {"type": "object", "required": ["a"]}});
        let b = json!({"name": "t", "annotations": {"readOnlyHint": false},
                       "inputSchema": {"type": "object", "required": ["a", "b"]}});
        assert_eq!(
            less_safe(&a, &b),
            [
                "readOnlyHint true → false",
                "destructiveHint false → absent",
                "new required input \"b\""
            ]
        );
        // The other way round is safer: nothing to flag.
        assert!(less_safe(&b, &a).is_empty());
        assert!(less_safe(&a, &a).is_empty());
    }

    #[test]
    fn items_compare_by_name_and_field() {
        let a = [
            json!({"name": "x", "description": "d"}),
            json!({"name": "gone"}),
        ];
        let b = [
            json!({"name": "x", "description": "e"}),
            json!({"name": "new"}),
        ];
        let ia = Items::of(Kind::Tool, a.iter().map(|v| (v, Some(1))));
        let ib = Items::of(Kind::Tool, b.iter().map(|v| (v, Some(2))));
        let mut out = Vec::new();
        let at = |s| At {
            seq: s,
            line: s + 2,
        };
        compare(Kind::Tool, &ia, &ib, &at, &at, &mut out);
        let got: Vec<(String, Status)> = out.iter().map(|c| (c.name.clone(), c.change)).collect();
        assert_eq!(
            got,
            [
                ("gone".to_string(), Status::Removed),
                ("new".to_string(), Status::Added),
                ("x".to_string(), Status::Changed)
            ]
        );
        assert_eq!(out[2].fields[0].field, "description");
        assert_eq!(out[2].at_b, Some(At { seq: 2, line: 4 }));
        let mut none = Vec::new();
        compare(Kind::Tool, &ia, &ia, &at, &at, &mut none);
        assert!(none.is_empty());
    }
}
