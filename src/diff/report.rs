//! The comparison of two sides, as one document (`--format json`) and as
//! text for people.
//!
//! JSON shape, one object:
//! `{"mcpscope_diff": 1, "a": {trace, events, calls, damage?}, "b": {…},
//!   "tolerances": {time_ratio, min_ms}, "same": bool,
//!   "listings": [{kind, name, change: added|removed|changed|not-listed,
//!                 fields?: [{field, a?, b?}], less_safe?: [..], at_a?, at_b?}],
//!   "calls": [{call, title, status: changed|only-a|only-b, a?, b?,
//!              changes: [{aspect, what, a?, b?, at_a?, at_b?}]}],
//!   "call_order"?: [{call, before, title, before_title, at_a, at_b}],
//!   "findings": [{rule, severity, only_in: a|b, call?, message, at: [..]}],
//!   "summary": {differences, listings, less_safe, calls, findings, call_order?,
//!               only?, not_listed?}}`
//!
//! `only`, `not_listed` (with `--only FILTER`, `super::only`): the filter,
//! and how many differences it left out of the lists; the counts and
//! `same` are the whole comparison's.
//!
//! `call_order` (present only when it differs): B ran call `call` right
//! before call `before`, which A ran first (`calls::reordered`).
//!
//! Every place (`at…`) is `{seq, line}`: the event's seq and its line in
//! that trace file (the header is line 1). Only what differs is listed.

use super::calls::{self, CallView, Pair};
pub use super::change::{Aspect, Change, Tolerances};
use super::listing::{self, ListingChange, Status};
use super::{At, Side};
use crate::protocol::sanitize::{one_line, one_line_max};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// One call of a side, as the report names it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CallRef {
    pub id: Value,
    pub outcome: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<f64>,
    pub at: At,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CallStatus {
    Changed,
    OnlyA,
    OnlyB,
}

/// A pair of aligned calls that differ, or a call of one side only.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CallDiff {
    /// The pair's number in the alignment (1-based).
    pub call: usize,
    /// `tool {arguments}` (secrets redacted).
    pub title: String,
    pub status: CallStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub a: Option<CallRef>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub b: Option<CallRef>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub changes: Vec<Change>,
}

/// A finding of one side that the other does not have (same rule, same
/// aligned call, or both about no call).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FindingChange {
    pub rule: String,
    pub severity: String,
    /// `a` or `b`.
    pub only_in: String,
    /// The aligned call it is about (its `call` number), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call: Option<usize>,
    pub message: String,
    pub at: Vec<At>,
}

/// Two aligned calls B ran in the other order than A (one after the other
/// on at least one side: see [`calls::reordered`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OrderChange {
    /// The call (its `call` number) B ran first…
    pub call: usize,
    /// …before this one, which A ran first.
    pub before: usize,
    /// The two calls' titles, as in `calls`.
    pub title: String,
    pub before_title: String,
    pub at_a: Vec<At>,
    pub at_b: Vec<At>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SideInfo {
    pub trace: String,
    pub events: u64,
    pub calls: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub damage: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    pub differences: usize,
    pub listings: usize,
    pub less_safe: usize,
    pub calls: usize,
    pub findings: usize,
    /// Calls run in another order (absent when none).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub call_order: usize,
    /// `--only`: the filter that chose which differences are listed…
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub only: Option<String>,
    /// …and how many differences (counted above) it left out of the list.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub not_listed: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// The `--format json` document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    pub mcpscope_diff: u32,
    pub a: SideInfo,
    pub b: SideInfo,
    pub tolerances: Tolerances,
    pub same: bool,
    pub listings: Vec<ListingChange>,
    pub calls: Vec<CallDiff>,
    /// Calls B ran in the other order (absent when the order is the same).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub call_order: Vec<OrderChange>,
    pub findings: Vec<FindingChange>,
    pub summary: Summary,
    /// Call order changes `--only` left out (the text's `… and N more`
    /// counts only those past the listing's bound).
    #[serde(skip)]
    pub order_not_listed: usize,
}

fn side_info(s: &Side) -> SideInfo {
    SideInfo {
        trace: s.name.clone(),
        events: s.events,
        calls: s.calls.len(),
        damage: s.damage.clone(),
    }
}

fn call_ref(s: &Side, c: &CallView) -> CallRef {
    CallRef {
        id: c.id.to_value(),
        outcome: c.outcome.as_str().into(),
        duration_ms: c.duration_us.map(|us| us as f64 / 1000.0),
        at: s.at(c.request_seq),
    }
}

/// Compare two sides.
pub fn diff(a: &Side, b: &Side, tol: Tolerances) -> Report {
    let mut listings = Vec::new();
    listing::compare_sides(a, b, &mut listings);
    let pairs = calls::align(&a.calls, &b.calls);
    let mut call_diffs = Vec::new();
    for (n, p) in pairs.iter().enumerate() {
        let call = n + 1;
        match (p.a, p.b) {
            (Some(i), Some(j)) => {
                let (x, y) = (&a.calls[i], &b.calls[j]);
                let changes = calls::compare(a, x, b, y, &tol);
                if !changes.is_empty() {
                    call_diffs.push(CallDiff {
                        call,
                        title: x.title(),
                        status: CallStatus::Changed,
                        a: Some(call_ref(a, x)),
                        b: Some(call_ref(b, y)),
                        changes,
                    });
                }
            }
            (Some(i), None) => call_diffs.push(CallDiff {
                call,
                title: a.calls[i].title(),
                status: CallStatus::OnlyA,
                a: Some(call_ref(a, &a.calls[i])),
                b: None,
                changes: Vec::new(),
            }),
            (None, Some(j)) => call_diffs.push(CallDiff {
                call,
                title: b.calls[j].title(),
                status: CallStatus::OnlyB,
                a: None,
                b: Some(call_ref(b, &b.calls[j])),
                changes: Vec::new(),
            }),
            (None, None) => {}
        }
    }
    let (reorders, reordered) = calls::reordered(&a.calls, &b.calls, &pairs);
    let call_order: Vec<OrderChange> = reorders
        .into_iter()
        .map(|(p, q)| {
            let (x, y) = (pairs[p - 1], pairs[q - 1]);
            let (xa, xb) = (x.a.unwrap_or(0), x.b.unwrap_or(0));
            let (ya, yb) = (y.a.unwrap_or(0), y.b.unwrap_or(0));
            OrderChange {
                call: p,
                before: q,
                title: a.calls[xa].title(),
                before_title: a.calls[ya].title(),
                at_a: vec![a.at(a.calls[ya].request_seq), a.at(a.calls[xa].request_seq)],
                at_b: vec![b.at(b.calls[xb].request_seq), b.at(b.calls[yb].request_seq)],
            }
        })
        .collect();
    let findings = findings(a, b, &pairs);
    let less_safe = listings.iter().filter(|l| !l.less_safe.is_empty()).count();
    let damaged = usize::from(a.damage.is_some()) + usize::from(b.damage.is_some());
    let differences = listings.len() + call_diffs.len() + findings.len() + damaged + reordered;
    let mut r = Report {
        mcpscope_diff: 1,
        a: side_info(a),
        b: side_info(b),
        tolerances: tol,
        same: differences == 0,
        summary: Summary {
            differences,
            listings: listings.len(),
            less_safe,
            calls: call_diffs.len(),
            findings: findings.len(),
            call_order: reordered,
            only: None,
            not_listed: 0,
        },
        listings,
        calls: call_diffs,
        call_order,
        findings,
        order_not_listed: 0,
    };
    retain_selected(&mut r, a, b, &pairs);
    r
}

/// Keep in `r` the differences about what both sides' filters selected;
/// `r.summary`'s counts and `r.same` stay the whole comparison's.
fn retain_selected(r: &mut Report, a: &Side, b: &Side, pairs: &[Pair]) {
    let (Some(sa), Some(sb)) = (&a.selected, &b.selected) else {
        return;
    };
    let before = r.listings.len() + r.calls.len() + r.call_order.len() + r.findings.len();
    r.listings.retain(|l| {
        l.at_a.is_some_and(|at| sa.frame(at.seq)) || l.at_b.is_some_and(|at| sb.frame(at.seq))
    });
    r.calls.retain(|c| {
        c.a.as_ref().is_some_and(|x| sa.call(x.at.seq))
            || c.b.as_ref().is_some_and(|y| sb.call(y.at.seq))
            || c.changes.iter().any(|ch| {
                ch.at_a.iter().any(|at| sa.frame(at.seq))
                    || ch.at_b.iter().any(|at| sb.frame(at.seq))
            })
    });
    // Both places name the two calls' requests, on each side.
    let orders_before = r.call_order.len();
    r.call_order.retain(|o| {
        o.at_a.iter().any(|at| sa.call(at.seq)) || o.at_b.iter().any(|at| sb.call(at.seq))
    });
    r.order_not_listed = orders_before - r.call_order.len();
    // A finding about an aligned call is listed with that call; any
    // finding is listed when one of its frames was selected.
    let call_picked = |n: usize| {
        pairs.get(n.wrapping_sub(1)).is_some_and(|p| {
            p.a.is_some_and(|i| sa.call(a.calls[i].request_seq))
                || p.b.is_some_and(|j| sb.call(b.calls[j].request_seq))
        })
    };
    r.findings.retain(|f| {
        let sel = if f.only_in == "a" { sa } else { sb };
        f.at.iter().any(|at| sel.frame(at.seq)) || f.call.is_some_and(call_picked)
    });
    let after = r.listings.len() + r.calls.len() + r.call_order.len() + r.findings.len();
    r.summary.only = Some(sa.filter.clone());
    r.summary.not_listed = before - after;
}

/// Findings keyed by rule and aligned call; those of one side only.
fn findings(a: &Side, b: &Side, pairs: &[Pair]) -> Vec<FindingChange> {
    let mut pair_of_a = vec![0usize; a.calls.len()];
    let mut pair_of_b = vec![0usize; b.calls.len()];
    for (n, p) in pairs.iter().enumerate() {
        if let Some(i) = p.a {
            pair_of_a[i] = n + 1;
        }
        if let Some(j) = p.b {
            pair_of_b[j] = n + 1;
        }
    }
    type Key = (String, Option<usize>);
    fn group<'s>(s: &'s Side, pair_of: &[usize]) -> BTreeMap<Key, Vec<&'s crate::checks::Finding>> {
        let mut m: BTreeMap<Key, Vec<&crate::checks::Finding>> = BTreeMap::new();
        for f in &s.findings {
            let call = s.call_of(f).map(|i| pair_of[i]);
            m.entry((f.rule.id().to_string(), call))
                .or_default()
                .push(f);
        }
        m
    }
    let ga = group(a, &pair_of_a);
    let gb = group(b, &pair_of_b);
    let mut out = Vec::new();
    for (side, mine, other, name) in [(a, &ga, &gb, "a"), (b, &gb, &ga, "b")] {
        for ((rule, call), fs) in mine {
            if other.contains_key(&(rule.clone(), *call)) {
                continue;
            }
            let mut at: Vec<At> = fs
                .iter()
                .flat_map(|f| f.seqs.iter().map(|&s| side.at(s)))
                .collect();
            at.truncate(10);
            out.push(FindingChange {
                rule: rule.clone(),
                severity: fs[0].severity.to_string(),
                only_in: name.into(),
                call: *call,
                message: fs[0].message.clone(),
                at,
            });
        }
    }
    out
}

/// `A line 12 (seq 10)`.
fn place(side: &str, at: &[At]) -> String {
    match at {
        [] => String::new(),
        [one] => format!("{side} line {}", one.line),
        [first, ..] => format!("{side} lines {}…", first.line),
    }
}

fn places(a: &[At], b: &[At]) -> String {
    let p: Vec<String> = [place("A", a), place("B", b)]
        .into_iter()
        .filter(|s| !s.is_empty())
        .collect();
    if p.is_empty() {
        String::new()
    } else {
        format!("  [{}]", p.join(", "))
    }
}

fn json_text(v: &Option<Value>) -> String {
    match v {
        None => "(absent)".into(),
        Some(v) => {
            let mut v = v.clone();
            crate::protocol::secrets::redact_json(&mut v);
            one_line_max(&v.to_string(), 200)
        }
    }
}

/// The report for people: a unified layout, A's side with `-`, B's with
/// `+`, a change with `~`, a less safe one with `!`. Every string from a
/// trace is sanitised.
pub fn text(r: &Report) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "--- A {} ({} events, {} calls)",
        one_line(&r.a.trace),
        r.a.events,
        r.a.calls
    );
    let _ = writeln!(
        s,
        "+++ B {} ({} events, {} calls)",
        one_line(&r.b.trace),
        r.b.events,
        r.b.calls
    );
    for (side, info) in [("A", &r.a), ("B", &r.b)] {
        if let Some(d) = &info.damage {
            let _ = writeln!(s, "! {side} is damaged: {}", one_line(d));
        }
    }
    listings_text(&mut s, r);
    calls_text(&mut s, r);
    if !r.call_order.is_empty() {
        let _ = writeln!(s, "@@ call order");
        for o in &r.call_order {
            let _ = writeln!(
                s,
                "~ call {} {} ran before call {} {} (A ran them the other way round){}",
                o.call,
                one_line(&o.title),
                o.before,
                one_line(&o.before_title),
                places(&o.at_a, &o.at_b)
            );
        }
        let more = r
            .summary
            .call_order
            .saturating_sub(r.call_order.len() + r.order_not_listed);
        if more > 0 {
            let _ = writeln!(s, "~ … and {more} more");
        }
    }
    if !r.findings.is_empty() {
        let _ = writeln!(s, "@@ findings");
        for f in &r.findings {
            let (mark, side) = if f.only_in == "a" {
                ("-", "A")
            } else {
                ("+", "B")
            };
            let call = f.call.map(|c| format!(" (call {c})")).unwrap_or_default();
            let _ = writeln!(
                s,
                "{mark} {} ({}){call}: {}  [{}]",
                f.rule,
                f.severity,
                one_line(&f.message),
                place(side, &f.at)
            );
        }
    }
    if let Some(f) = &r.summary.only {
        let _ = writeln!(
            s,
            "[only] {}: {} about other frames not listed (the counts below are the whole comparison's)",
            one_line(f),
            match r.summary.not_listed {
                1 => "1 difference".to_string(),
                n => format!("{n} differences"),
            }
        );
    }
    if r.same {
        let _ = writeln!(s, "no differences");
    } else {
        let _ = writeln!(
            s,
            "{} difference(s): {} in listings ({} less safe), {} call(s), {} finding(s){}{}",
            r.summary.differences,
            r.summary.listings,
            r.summary.less_safe,
            r.summary.calls,
            r.summary.findings,
            if r.summary.call_order > 0 {
                format!(", {} in call order", r.summary.call_order)
            } else {
                String::new()
            },
            if r.a.damage.is_some() || r.b.damage.is_some() {
                ", a damaged trace"
            } else {
                ""
            }
        );
    }
    s
}

/// The listings section: each tool, prompt or resource added, removed or
/// changed, with what made it less safe and its changed fields.
fn listings_text(s: &mut String, r: &Report) {
    if !r.listings.is_empty() {
        let _ = writeln!(s, "@@ listings");
        for l in &r.listings {
            let opt = |a: &Option<At>| a.iter().copied().collect::<Vec<At>>();
            let at = places(&opt(&l.at_a), &opt(&l.at_b));
            let (mark, what) = match l.change {
                Status::Added => ("+", "added"),
                Status::Removed => ("-", "removed"),
                Status::Changed => ("~", "changed"),
                Status::NotListed => ("~", ""),
            };
            let mark = if l.less_safe.is_empty() { mark } else { "!" };
            if l.change == Status::NotListed {
                let _ = writeln!(s, "{mark} {}: {}{at}", one_line(&l.kind), one_line(&l.name));
            } else {
                let _ = writeln!(
                    s,
                    "{mark} {} {}: {what}{at}",
                    one_line(&l.kind),
                    one_line(&l.name)
                );
            }
            for w in &l.less_safe {
                let _ = writeln!(s, "    less safe: {}", one_line(w));
            }
            for f in &l.fields {
                let _ = writeln!(s, "    {}:", one_line(&f.field));
                let _ = writeln!(s, "    - {}", json_text(&f.a));
                let _ = writeln!(s, "    + {}", json_text(&f.b));
            }
        }
    }
}

/// The calls section: each call only on one side or changed, with its changes.
fn calls_text(s: &mut String, r: &Report) {
    for c in &r.calls {
        let id = |c: &Option<CallRef>| {
            c.as_ref()
                .map(|c| format!("id={} line {}", one_line(&c.id.to_string()), c.at.line))
        };
        let sides = match (id(&c.a), id(&c.b)) {
            (Some(a), Some(b)) => format!("A {a}, B {b}"),
            (Some(a), None) => format!("A {a}"),
            (None, Some(b)) => format!("B {b}"),
            (None, None) => String::new(),
        };
        let _ = writeln!(s, "@@ call {} {}  [{sides}]", c.call, one_line(&c.title));
        match c.status {
            CallStatus::OnlyA => {
                let _ = writeln!(
                    s,
                    "- only in A ({})",
                    c.a.as_ref().map_or("", |r| &r.outcome)
                );
            }
            CallStatus::OnlyB => {
                let _ = writeln!(
                    s,
                    "+ only in B ({})",
                    c.b.as_ref().map_or("", |r| &r.outcome)
                );
            }
            CallStatus::Changed => {}
        }
        for ch in &c.changes {
            let _ = writeln!(s, "~ {}{}", one_line(&ch.what), places(&ch.at_a, &ch.at_b));
            if ch.aspect == Aspect::Arguments && !(ch.a.is_null() && ch.b.is_null()) {
                let _ = writeln!(s, "    - {}", json_text(&Some(ch.a.clone())));
                let _ = writeln!(s, "    + {}", json_text(&Some(ch.b.clone())));
            }
        }
    }
}
