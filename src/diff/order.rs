//! The order of what arrived for one call: its progress, the logs and other
//! notifications the server sent while it was the latest call, the
//! requests the server made of the client, and the response — as runs
//! (five progress notifications in a row are one run of five), so a flood
//! costs one run and the order stays bounded.
//!
//! Two orders are compared by where each kind of message stands relative
//! to the response (before or after it, how many) and by the sequence of
//! kinds with the run lengths left out, so a different progress count alone
//! is not an order change (the progress comparison reports it).

use super::change::{Aspect, Change};
use super::{At, LineMap};
use crate::protocol::sanitize::one_line;
use serde_json::{Value, json};
use std::collections::BTreeMap;

/// Runs kept per call; more are counted in `truncated`.
pub const MAX_RUNS: usize = 4096;

/// Runs shown when an order is written out.
const SHOWN_RUNS: usize = 16;

/// One kind of message of a call.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Sym {
    Progress,
    /// `notifications/message` at a level, from a logger.
    Log {
        level: String,
        logger: Option<String>,
    },
    /// Any other notification from the server: its method.
    Note(String),
    /// A request from the server to the client: its method.
    Ask(String),
    Response,
}

impl Sym {
    /// How a report names it (sanitised).
    pub fn label(&self) -> String {
        match self {
            Sym::Progress => "progress".into(),
            Sym::Log {
                level,
                logger: Some(l),
            } => format!("log({} {})", one_line(level), one_line(l)),
            Sym::Log {
                level,
                logger: None,
            } => format!("log({})", one_line(level)),
            Sym::Note(m) => one_line(m).into_owned(),
            Sym::Ask(m) => format!("request {}", one_line(m)),
            Sym::Response => "response".into(),
        }
    }
}

/// Consecutive messages of one kind.
#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    pub sym: Sym,
    pub count: u64,
    pub first_seq: u64,
}

/// What arrived for a call, in order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Order {
    pub runs: Vec<Run>,
    /// Messages after the kept runs, counted only.
    pub truncated: u64,
}

/// Where one kind stands relative to the response.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct Place {
    before: u64,
    after: u64,
    first_before: Option<u64>,
    first_after: Option<u64>,
}

impl Order {
    pub fn push(&mut self, sym: Sym, seq: u64) {
        if let Some(last) = self.runs.last_mut()
            && last.sym == sym
        {
            last.count += 1;
            return;
        }
        if self.runs.len() < MAX_RUNS {
            self.runs.push(Run {
                sym,
                count: 1,
                first_seq: seq,
            });
        } else {
            self.truncated += 1;
        }
    }

    /// Every kind but the response, with its place.
    fn placement(&self) -> BTreeMap<&Sym, Place> {
        let mut out: BTreeMap<&Sym, Place> = BTreeMap::new();
        let mut answered = false;
        for r in &self.runs {
            if r.sym == Sym::Response {
                answered = true;
                continue;
            }
            let p = out.entry(&r.sym).or_default();
            if answered {
                p.after += r.count;
                p.first_after.get_or_insert(r.first_seq);
            } else {
                p.before += r.count;
                p.first_before.get_or_insert(r.first_seq);
            }
        }
        out
    }

    /// `progress×3 → log(info tracker) → response`.
    pub fn text(&self) -> String {
        let mut parts: Vec<String> = self
            .runs
            .iter()
            .take(SHOWN_RUNS)
            .map(|r| match r.count {
                1 => r.sym.label(),
                n => format!("{}×{n}", r.sym.label()),
            })
            .collect();
        if self.runs.len() > SHOWN_RUNS {
            parts.push(format!("… {} more runs", self.runs.len() - SHOWN_RUNS));
        }
        if parts.is_empty() {
            return "nothing".into();
        }
        parts.join(" → ")
    }

    fn kinds(&self) -> impl Iterator<Item = &Sym> {
        self.runs.iter().map(|r| &r.sym)
    }
}

/// The order changes from `a` to `b`.
pub fn compare(a: &Order, la: &LineMap, b: &Order, lb: &LineMap, out: &mut Vec<Change>) {
    let pa = a.placement();
    let pb = b.placement();
    let mut syms: Vec<&Sym> = pa.keys().chain(pb.keys()).copied().collect();
    crate::sort::sort(&mut syms);
    syms.dedup();
    let at = |lines: &LineMap, s: Option<u64>| s.map(|s| lines.at(s)).into_iter().collect();
    for sym in syms {
        let x = pa.get(sym).copied().unwrap_or_default();
        let y = pb.get(sym).copied().unwrap_or_default();
        if (x.before, x.after) == (y.before, y.after) {
            continue;
        }
        let label = sym.label();
        let counts = |p: Place| json!({"before_response": p.before, "after_response": p.after});
        let (what, at_a, at_b): (String, Vec<At>, Vec<At>) = if *sym == Sym::Progress {
            // A different count before the response is the progress
            // comparison's; here only what now follows the response.
            if x.after == y.after {
                continue;
            }
            let what = match (x.after, y.after) {
                (0, n) => format!("progress now after the response ({n})"),
                (n, 0) => format!("progress no longer after the response (was {n})"),
                (m, n) => format!("progress after the response: {m} → {n}"),
            };
            (what, at(la, x.first_after), at(lb, y.first_after))
        } else if x.before + x.after == y.before + y.after {
            let what = if x.after == 0 {
                format!("{label} came before the response, now after it")
            } else if y.after == 0 {
                format!("{label} came after the response, now before it")
            } else {
                format!(
                    "{label}: {}/{} before/after the response → {}/{}",
                    x.before, x.after, y.before, y.after
                )
            };
            let (fa, fb) = if y.after > x.after {
                (x.first_before, y.first_after)
            } else {
                (x.first_after, y.first_before)
            };
            (what, at(la, fa), at(lb, fb))
        } else {
            (
                format!(
                    "{label}: {} → {} ({}/{} → {}/{} before/after the response)",
                    x.before + x.after,
                    y.before + y.after,
                    x.before,
                    x.after,
                    y.before,
                    y.after
                ),
                at(la, x.first_before.or(x.first_after)),
                at(lb, y.first_before.or(y.first_after)),
            )
        };
        out.push(Change {
            aspect: Aspect::Order,
            what,
            a: counts(x),
            b: counts(y),
            at_a,
            at_b,
        });
    }
    if !a.kinds().eq(b.kinds()) {
        // Where the sequences part: the frames that show it.
        let k = a
            .runs
            .iter()
            .zip(&b.runs)
            .take_while(|(x, y)| x.sym == y.sym)
            .count();
        let first = |o: &Order, lines: &LineMap| {
            o.runs
                .get(k)
                .map(|r| lines.at(r.first_seq))
                .into_iter()
                .collect()
        };
        out.push(Change {
            aspect: Aspect::Order,
            what: format!("order: {}  ⇒  {}", a.text(), b.text()),
            a: Value::String(a.text()),
            b: Value::String(b.text()),
            at_a: first(a, la),
            at_b: first(b, lb),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn order(syms: &[Sym]) -> Order {
        let mut o = Order::default();
        for (i, s) in syms.iter().enumerate() {
            o.push(s.clone(), i as u64);
        }
        o
    }

    fn log() -> Sym {
        Sym::Log {
            level: "info".into(),
            logger: Some("tracker".into()),
        }
    }

    fn changes(a: &Order, b: &Order) -> Vec<Change> {
        let mut out = Vec::new();
        let mut l = LineMap::default();
        l.push(0, 2);
        compare(a, &l, b, &l, &mut out);
        out
    }

    #[test]
    fn the_same_order_with_more_progress_is_no_order_change() {
        use Sym::*;
        let a = order(&[Progress, Progress, log(), Progress, Response]);
        let b = order(&[Progress, log(), Progress, Progress, Progress, Response]);
        assert!(changes(&a, &b).is_empty());
        assert!(changes(&a, &a).is_empty());
        assert_eq!(
            a.text(),
            "progress×2 → log(info tracker) → progress → response"
        );
    }

    #[test]
    fn a_log_moved_past_the_response_and_late_progress_are_reported() {
        use Sym::*;
        let a = order(&[Progress, log(), Response]);
        let b = order(&[Progress, Response, log(), Progress]);
        let c = changes(&a, &b);
        let what: Vec<&str> = c.iter().map(|c| c.what.as_str()).collect();
        assert!(
            what.contains(&"log(info tracker) came before the response, now after it"),
            "{what:?}"
        );
        assert!(
            what.contains(&"progress now after the response (1)"),
            "{what:?}"
        );
        assert!(what.iter().any(|w| w.starts_with("order: ")), "{what:?}");
        let moved = c.iter().find(|c| c.what.starts_with("log(")).unwrap();
        assert_eq!(moved.at_a[0].seq, 1);
        assert_eq!(moved.at_b[0].seq, 2);
        assert_eq!(moved.at_b[0].line, 4);
    }
}
