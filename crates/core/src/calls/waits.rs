//! When the client was the one being waited on: from a request of the
//! server's (an elicitation form, a sampling reply, roots, a ping) to the
//! client's answer. A call's silence in those spans is the client's, not
//! the server's, so the call's gap statistics leave it out (a user filling
//! a form must not make the server look stalled).
//!
//! Any request from the server counts; while one or more wait, the client
//! is being waited on. Counting requests and answers is enough: a span
//! opens at the first one and closes when the answers caught up.

use crate::protocol::frame::FrameKind;
use crate::trace::{Dir, EventRef, Store};

/// Spans kept; past it, new ones are merged into the last (more time
/// counted as the client's, never less: no stall is ever made up).
const MAX_SPANS: usize = 65_536;

#[derive(Debug, Default, Clone)]
pub struct ClientWaits {
    /// Closed spans `(from_us, to_us)`, in time order, not overlapping.
    spans: Vec<(u64, u64)>,
    /// The open span's start and how many requests wait in it.
    open: Option<(u64, u32)>,
    /// Spans merged into the last one for want of room.
    pub merged: u64,
}

impl ClientWaits {
    /// The spans of everything stored (one pass).
    pub fn of(store: &Store) -> ClientWaits {
        let mut w = ClientWaits::default();
        for ev in store.range(store.first_seq(), store.next_seq()) {
            w.observe(&ev);
        }
        w
    }

    pub fn observe(&mut self, ev: &EventRef<'_>) {
        match (ev.dir, ev.kind) {
            (Dir::In, FrameKind::Request) => match &mut self.open {
                Some((_, n)) => *n = n.saturating_add(1),
                None => self.open = Some((ev.t_us, 1)),
            },
            (Dir::Out, FrameKind::Response | FrameKind::ErrorResponse) => {
                let Some((from, n)) = &mut self.open else {
                    return;
                };
                *n -= 1;
                if *n == 0 {
                    let span = (*from, ev.t_us);
                    self.open = None;
                    self.close(span);
                }
            }
            _ => {}
        }
    }

    fn close(&mut self, span: (u64, u64)) {
        let full = self.spans.len() >= MAX_SPANS;
        match self.spans.last_mut() {
            Some(last) if full => {
                last.1 = last.1.max(span.1);
                self.merged += 1;
            }
            _ => self.spans.push(span),
        }
    }

    /// How much of `from_us..to_us` the client was waited on (a span still
    /// open counts up to `to_us`).
    pub fn within(&self, from_us: u64, to_us: u64) -> u64 {
        if to_us <= from_us {
            return 0;
        }
        let overlap = |(a, b): (u64, u64)| b.min(to_us).saturating_sub(a.max(from_us));
        // Spans ending before `from_us` cannot overlap: start past them.
        let first = self.spans.partition_point(|&(_, b)| b <= from_us);
        let closed: u64 = self.spans[first..]
            .iter()
            .take_while(|&&(a, _)| a < to_us)
            .map(|&s| overlap(s))
            .sum();
        closed + self.open.map_or(0, |(a, _)| overlap((a, to_us)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn waits(spans: &[(u64, u64)], open: Option<u64>) -> ClientWaits {
        ClientWaits {
            spans: spans.to_vec(),
            open: open.map(|a| (a, 1)),
            merged: 0,
        }
    }

    #[test]
    fn only_the_overlap_counts() {
        let w = waits(&[(10, 20), (30, 40)], Some(50));
        assert_eq!(w.within(0, 5), 0);
        assert_eq!(w.within(0, 100), 10 + 10 + 50);
        assert_eq!(w.within(15, 35), 5 + 5);
        assert_eq!(w.within(20, 30), 0);
        assert_eq!(w.within(45, 60), 10);
        assert_eq!(w.within(60, 45), 0);
    }
}
