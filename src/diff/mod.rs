//! Comparing two sessions (`mcpscope diff A B`) and a session against
//! pinned definitions (`check --baseline`).
//!
//! Each trace is folded once, in trace order, into a [`Side`]: what its
//! server listed ([`crate::calls::listings`]), its calls as the
//! [`crate::calls::Tracker`] builds them, with what this comparison needs
//! beside them (arguments, result shape, progress shape, the order of what
//! arrived for the call: [`calls`], [`order`]), the findings the rule
//! engine reported over it, and the trace line of every event. Two sides
//! are then compared without the stores: [`listing`] compares the
//! listings, [`calls`] aligns the calls and compares each pair, [`report`]
//! holds the result and words it for people. [`baseline`] writes and reads
//! the pinned-definitions file and compares a session's listings with it.

pub mod baseline;
pub mod calls;
pub mod change;
mod error;
pub mod listing;
pub mod only;
pub mod order;
pub mod report;

use crate::calls::listings::Listings;
use crate::calls::{Seen, Tracker};
use crate::checks::Finding;
use crate::protocol::frame::FrameKind;
use crate::protocol::views::{LogView, ProgressView};
use crate::protocol::{IdKey, methods};
use crate::trace::store::flags;
use crate::trace::{Dir, EventRef};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::HashMap;

pub use calls::CallView;
pub use error::DiffError;
pub use report::{Report, Tolerances};

/// Where an event is: its seq and its line in the trace file (the header
/// is line 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct At {
    pub seq: u64,
    pub line: u64,
}

/// Store seq → trace line, kept as the points where the two stop moving
/// together (a trace mcpscope wrote has one: line = seq + 2).
#[derive(Debug, Default, Clone)]
pub struct LineMap {
    breaks: Vec<(u64, u64)>,
}

impl LineMap {
    /// Event `seq` was read from `line` (seqs in increasing order).
    pub fn push(&mut self, seq: u64, line: u64) {
        if let Some(&(s, l)) = self.breaks.last()
            && seq >= s
            && line >= l
            && seq - s == line - l
        {
            return;
        }
        self.breaks.push((seq, line));
    }

    /// The line of event `seq` (0 when it was never read).
    pub fn line(&self, seq: u64) -> u64 {
        let i = self.breaks.partition_point(|&(s, _)| s <= seq);
        match i.checked_sub(1).map(|i| self.breaks[i]) {
            Some((s, l)) => l + (seq - s),
            None => 0,
        }
    }

    pub fn at(&self, seq: u64) -> At {
        At {
            seq,
            line: self.line(seq),
        }
    }
}

/// One session, folded for comparison.
#[derive(Debug, Default)]
pub struct Side {
    /// What the report calls it (the trace's path).
    pub name: String,
    pub events: u64,
    pub listings: Listings,
    pub calls: Vec<CallView>,
    pub findings: Vec<Finding>,
    pub lines: LineMap,
    /// Where the trace was cut short, if it was.
    pub damage: Option<String>,
    /// The level the client asked for before its first call, if it asked:
    /// with `logging/setLevel`, or at 2026-07-28 in the call's own `_meta`.
    pub log_level: Option<String>,
    /// The era the session ran in, as the rule engine followed it (a live
    /// B runs A's calls in A's era).
    pub era: Option<crate::protocol::Era>,
    /// With `--only`: what the filter selected in this session.
    pub selected: Option<only::Selected>,
}

impl Side {
    pub fn at(&self, seq: u64) -> At {
        self.lines.at(seq)
    }

    /// The call a finding is about: by request id, else by token (the last
    /// such call sent before the finding's frames).
    pub fn call_of(&self, f: &Finding) -> Option<usize> {
        let last = f.seqs.iter().copied().max().unwrap_or(u64::MAX);
        let pick = |m: &dyn Fn(&CallView) -> bool| {
            self.calls
                .iter()
                .enumerate()
                .filter(|(_, c)| m(c) && c.request_seq <= last)
                .map(|(i, _)| i)
                .next_back()
        };
        if let Some(id) = &f.request_id
            && let Some(i) = pick(&|c| &c.id == id)
        {
            return Some(i);
        }
        let tok = f.token.as_ref()?;
        pick(&|c| c.token.as_ref() == Some(tok))
    }
}

/// Builds a [`Side`] from events observed in trace order, once each.
#[derive(Debug, Default)]
pub struct Folder {
    tracker: Tracker,
    listings: Listings,
    views: Vec<CallView>,
    /// The latest call with each token (progress names its call by token).
    by_token: HashMap<IdKey, usize>,
    /// The call sent last: notifications that name no call, and server
    /// requests, are counted as its.
    last_call: Option<usize>,
    /// The token progress named last (its store slot and serial) and its
    /// call: a flood names one token, looked up once.
    last_token: Option<((u32, u64), usize)>,
    lines: LineMap,
    events: u64,
    log_level: Option<String>,
}

impl Folder {
    /// Take in one event, read from trace line `line`.
    pub fn observe(&mut self, ev: &EventRef<'_>, line: u64) {
        self.events += 1;
        self.lines.push(ev.seq, line);
        self.listings.observe(ev);
        if ev.dir == Dir::Out
            && ev.method == Some(methods::SET_LEVEL)
            && self.views.is_empty()
            && let Some(level) = ev
                .frame()
                .params
                .and_then(|p| serde_json::from_str::<Value>(p.get()).ok())
                .and_then(|p| p.get("level").and_then(Value::as_str).map(str::to_owned))
        {
            self.log_level = Some(level);
        }
        match self.tracker.observe(ev) {
            Seen::Sent(i) => {
                if i == 0 && self.log_level.is_none() {
                    self.log_level = request_log_level(ev);
                }
                let c = &self.tracker.calls[i];
                let view = CallView::sent(c, ev);
                if let Some(t) = &c.token {
                    self.by_token.insert(t.clone(), i);
                    self.last_token = None;
                }
                debug_assert_eq!(self.views.len(), i);
                self.views.push(view);
                self.last_call = Some(i);
                return;
            }
            Seen::Ended(i)
                if ev.dir == Dir::In
                    && matches!(ev.kind, FrameKind::Response | FrameKind::ErrorResponse) =>
            {
                if let Some(v) = self.views.get_mut(i) {
                    v.responded(ev);
                }
                return;
            }
            _ => {}
        }
        if ev.dir != Dir::In {
            return;
        }
        match ev.kind {
            FrameKind::Notification if ev.method == Some(methods::PROGRESS) => {
                // The store parsed it once (a malformed one has no values:
                // the rules report it, the comparison has nothing to count).
                let Some(p) = ev.progress else { return };
                let key = (p.slot, p.serial);
                let i = match self.last_token {
                    Some((k, i)) if k == key => Some(i),
                    _ => {
                        // A new token: its text, once, from the frame.
                        let f = ev.frame();
                        let i = ProgressView::parse(f.params)
                            .ok()
                            .and_then(|v| self.by_token.get(&IdKey::from_raw(v.token.get())))
                            .copied();
                        if let Some(i) = i {
                            self.last_token = Some((key, i));
                        }
                        i
                    }
                };
                if let Some(v) = i.and_then(|i| self.views.get_mut(i)) {
                    let message = ev.flags & flags::PROGRESS_MESSAGE != 0;
                    v.progressed(p.progress, p.total.is_some(), message, ev.seq);
                }
            }
            FrameKind::Notification => {
                let Some(i) = self.last_call else { return };
                let sym = if ev.method == Some(methods::MESSAGE) {
                    let f = ev.frame();
                    match LogView::parse(f.params) {
                        Ok(l) => order::Sym::Log {
                            level: match &l.level {
                                Ok(level) => level.as_str().to_string(),
                                Err(raw) => raw.to_string(),
                            },
                            logger: l.logger.map(|s| s.into_owned()),
                        },
                        Err(_) => order::Sym::Note(methods::MESSAGE.into()),
                    }
                } else {
                    order::Sym::Note(ev.method.unwrap_or("").to_string())
                };
                self.views[i].order.push(sym, ev.seq);
            }
            FrameKind::Request => {
                let Some(i) = self.last_call else { return };
                let m = ev.method.unwrap_or("").to_string();
                let v = &mut self.views[i];
                if v.server_requests.len() < order::MAX_RUNS {
                    v.server_requests.push((m.clone(), ev.seq));
                }
                v.order.push(order::Sym::Ask(m), ev.seq);
            }
            _ => {}
        }
    }

    /// The side, once every event was observed; `findings` are the rule
    /// engine's over the same events.
    pub fn finish(self, name: String, findings: Vec<Finding>, damage: Option<String>) -> Side {
        let Folder {
            tracker,
            listings,
            mut views,
            lines,
            events,
            log_level,
            ..
        } = self;
        for (v, c) in views.iter_mut().zip(&tracker.calls) {
            v.ended(c);
        }
        Side {
            name,
            events,
            listings,
            calls: views,
            findings,
            lines,
            damage,
            log_level,
            era: None,
            selected: None,
        }
    }
}

/// The level a 2026-07-28 request asks for in its `_meta`.
fn request_log_level(ev: &EventRef<'_>) -> Option<String> {
    let params: Value = serde_json::from_str(ev.frame().params?.get()).ok()?;
    params
        .get(crate::protocol::meta::META)?
        .get(crate::protocol::meta::LOG_LEVEL)?
        .as_str()
        .map(str::to_owned)
}

/// A JSON value as one comparable text (object keys sorted).
pub(crate) fn canonical(v: &Value) -> String {
    v.to_string()
}

#[cfg(test)]
mod tests;
