//! Timing statistics of one call's progress notifications: time to first
//! progress, inter-arrival min/median/max and notifications per second.
//! One accumulator serves both faces: the TUI extends it as notifications
//! arrive (for the selected call only, a budget at a time), `check` runs it
//! over a call in one pass. The median is a running median in two heaps, so
//! taking in a notification never rescans the call's history.

use super::waits::ClientWaits;
use crate::protocol::IdKey;
use crate::trace::{Dir, Origin, Store};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// What timing needs of a call.
#[derive(Debug, Clone, Copy)]
pub struct Timed<'a> {
    pub id: &'a IdKey,
    pub token: Option<&'a IdKey>,
    pub request_seq: u64,
    pub sent_us: u64,
    /// In a trace that names host sessions: the request's stream and its
    /// response's seq. Ids and tokens are a session's there, so the store's
    /// indexes (by id, by token) may name another host's; only that stream
    /// is counted, and the response is the call's own.
    pub scoped: Option<(&'a str, Option<u64>)>,
}

#[derive(Debug, Default, Clone)]
pub struct Timing {
    /// The call these numbers belong to (`None`: nothing followed yet).
    pub id: Option<IdKey>,
    request_seq: u64,
    /// The token's seqs below this one were taken in.
    next_seq: u64,
    /// A later request reused the token: its notifications are not this call's.
    closed: bool,
    /// Notifications count below this seq: the response's, once it came,
    /// unless the response is a task handle (the task's notifications
    /// follow it on the same token).
    bound: Option<u64>,
    pub sent_us: u64,
    pub first_us: Option<u64>,
    pub last_us: Option<u64>,
    pub count: u64,
    pub min_gap_us: Option<u64>,
    pub max_gap_us: Option<u64>,
    /// Lower half of the gaps (max-heap) and upper half (min-heap).
    lower: BinaryHeap<u64>,
    upper: BinaryHeap<Reverse<u64>>,
}

impl Timing {
    /// A call's numbers over everything stored (one pass).
    pub fn of<'a>(call: impl Into<Timed<'a>>, store: &Store) -> Timing {
        Timing::of_excluding(call, store, None)
    }

    /// [`Timing::of`], with the time the client was waited on (`waits`)
    /// left out of the gaps between notifications.
    pub fn of_excluding<'a>(
        call: impl Into<Timed<'a>>,
        store: &Store,
        waits: Option<&ClientWaits>,
    ) -> Timing {
        let mut t = Timing::default();
        t.sync_excluding(call, store, usize::MAX, waits);
        t
    }

    /// Follow `call`: start over when it is another call, then take in at
    /// most `budget` new notifications. Returns true when caught up.
    ///
    /// A call's notifications are the incoming events on its token after
    /// its request, before its response (unless that is a task handle) and
    /// before the next request that reused the token.
    pub fn sync<'a>(&mut self, call: impl Into<Timed<'a>>, store: &Store, budget: usize) -> bool {
        self.sync_excluding(call, store, budget, None)
    }

    /// [`Timing::sync`], leaving the time the client was waited on out of
    /// the gaps.
    pub fn sync_excluding<'a>(
        &mut self,
        call: impl Into<Timed<'a>>,
        store: &Store,
        budget: usize,
        waits: Option<&ClientWaits>,
    ) -> bool {
        let call = call.into();
        if self.id.as_ref() != Some(call.id) {
            *self = Timing {
                id: Some(call.id.clone()),
                request_seq: call.request_seq,
                sent_us: call.sent_us,
                ..Timing::default()
            };
        }
        let Some(token) = call.token else {
            return true;
        };
        if self.closed {
            return true;
        }
        // Read from the store each time: the response may be stored before
        // the caller's own view of the call has seen it.
        let response = match call.scoped {
            Some((_, response)) => response,
            None => store
                .request(Origin::Client, call.id)
                .and_then(|r| r.response_seq),
        };
        let bound = match response {
            Some(r) => *self.bound.get_or_insert_with(|| {
                let task = store
                    .get(r)
                    .and_then(|ev| super::task_end::created_task(&ev));
                if task.is_some() { u64::MAX } else { r }
            }),
            None => u64::MAX,
        };
        let mut seqs = store.token_seqs_from(token, self.next_seq);
        for _ in 0..budget {
            let Some(s) = seqs.next() else {
                self.next_seq = store.next_seq();
                return true;
            };
            self.next_seq = s + 1;
            if s <= self.request_seq {
                continue;
            }
            let Some(ev) = store.get(s) else { continue };
            if call.scoped.is_some_and(|(ch, _)| ev.channel != ch) {
                continue;
            }
            if ev.dir == Dir::Out {
                self.closed = true;
                return true;
            }
            if ev.dir == Dir::In && s < bound {
                let waited = match (waits, self.last_us) {
                    (Some(w), Some(last)) => w.within(last, ev.t_us),
                    _ => 0,
                };
                self.arrival_after(ev.t_us, waited);
            }
        }
        seqs.next().is_none()
    }

    /// One notification arrived at `t_us`.
    pub fn arrival(&mut self, t_us: u64) {
        self.arrival_after(t_us, 0);
    }

    /// One notification arrived at `t_us`, `waited` µs of the silence
    /// before it the client's (it was answering the server).
    fn arrival_after(&mut self, t_us: u64, waited: u64) {
        self.count += 1;
        if self.first_us.is_none() {
            self.first_us = Some(t_us);
        }
        if let Some(last) = self.last_us {
            let gap = t_us.saturating_sub(last).saturating_sub(waited);
            self.min_gap_us = Some(self.min_gap_us.map_or(gap, |m| m.min(gap)));
            self.max_gap_us = Some(self.max_gap_us.map_or(gap, |m| m.max(gap)));
            self.push_gap(gap);
        }
        self.last_us = Some(t_us);
    }

    fn push_gap(&mut self, gap: u64) {
        if self.lower.peek().is_none_or(|m| gap <= *m) {
            self.lower.push(gap);
        } else {
            self.upper.push(Reverse(gap));
        }
        // Keep the halves balanced: lower holds the extra one.
        if self.lower.len() > self.upper.len() + 1 {
            if let Some(v) = self.lower.pop() {
                self.upper.push(Reverse(v));
            }
        } else if self.upper.len() > self.lower.len()
            && let Some(Reverse(v)) = self.upper.pop()
        {
            self.lower.push(v);
        }
    }

    /// Median gap between notifications (the mean of the middle two for an
    /// even count, rounded down).
    pub fn median_gap_us(&self) -> Option<u64> {
        let lo = *self.lower.peek()?;
        if self.lower.len() > self.upper.len() {
            Some(lo)
        } else {
            let hi = self.upper.peek().map_or(lo, |r| r.0);
            Some((lo + hi) / 2)
        }
    }

    pub fn first_after_us(&self) -> Option<u64> {
        self.first_us.map(|f| f.saturating_sub(self.sent_us))
    }

    /// Notifications per second over the call so far (`end_us`: its end, or now).
    pub fn per_second(&self, end_us: u64) -> Option<f64> {
        let span = end_us.saturating_sub(self.sent_us);
        (self.count > 0 && span > 0).then(|| self.count as f64 / (span as f64 / 1e6))
    }
}

impl<'a> From<&'a super::Call> for Timed<'a> {
    fn from(c: &'a super::Call) -> Timed<'a> {
        c.timed()
    }
}
