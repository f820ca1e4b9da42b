//! Timing statistics of one call, for the Progress details view: time to
//! first progress, inter-arrival min/median/max and notifications per
//! second — the same definitions as `checks::stats::call_stats`. Kept for
//! the selected call only and extended as its notifications arrive (a
//! running median in two heaps), so a frame never rescans a call's history
//! however many notifications it has.

use super::calls::Call;
use crate::protocol::IdKey;
use crate::trace::{Dir, Origin, Store};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

#[derive(Debug, Default, Clone)]
pub struct CallTiming {
    /// The call these numbers belong to (`None`: nothing selected yet).
    pub id: Option<IdKey>,
    request_seq: u64,
    /// Position in the token's seq list up to which notifications were taken in.
    next: usize,
    /// A later request reused the token: its notifications are not this call's.
    closed: bool,
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

impl CallTiming {
    /// Follow `call`: start over when it is another call, then take in at
    /// most `budget` new notifications. Returns true when caught up.
    pub fn sync(&mut self, call: &Call, store: &Store, budget: usize) -> bool {
        if self.id.as_ref() != Some(&call.id) {
            *self = CallTiming {
                id: Some(call.id.clone()),
                request_seq: call.request_seq,
                sent_us: call.sent_us,
                ..CallTiming::default()
            };
        }
        let Some(token) = &call.token else {
            return true;
        };
        if self.closed {
            return true;
        }
        let response = store
            .request(Origin::Client, &call.id)
            .and_then(|r| r.response_seq);
        let seqs = store.token_seqs(token);
        let end = seqs.len().min(self.next + budget);
        for (i, &s) in seqs.iter().enumerate().take(end).skip(self.next) {
            if s <= self.request_seq {
                continue;
            }
            let Some(ev) = store.get(s) else { continue };
            if ev.dir == Dir::Out {
                self.closed = true;
                self.next = i;
                return true;
            }
            if ev.dir == Dir::In && response.is_none_or(|r| s < r) {
                self.arrival(ev.t_us);
            }
        }
        self.next = end;
        end >= seqs.len()
    }

    fn arrival(&mut self, t_us: u64) {
        self.count += 1;
        if self.first_us.is_none() {
            self.first_us = Some(t_us);
        }
        if let Some(last) = self.last_us {
            let gap = t_us.saturating_sub(last);
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

    /// Median gap between notifications (the mean of the middle two for an even count).
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
