//! Time the user keeps the server waiting: while a server request waits for
//! the user's answer (a form, a sampling reply), the calls in flight wait
//! for the user, not for the server, and that time does not count against
//! their timeouts — as time spent authorizing in a browser does not. Pure
//! arithmetic on the trace clock, so it is tested without waiting.

use crate::protocol::IdKey;
use crate::protocol::methods;
use crate::trace::{Dir, Store};
use serde_json::Value;

#[derive(Debug, Default)]
pub struct UserWait {
    /// Server requests waiting for the user (at most the asks' bound).
    pending: Vec<IdKey>,
    /// Since when (µs) at least one has been waiting.
    since_us: Option<u64>,
    /// Waiting time of the intervals that ended.
    total_us: u64,
    /// Trace events looked at for withdrawals, up to this seq.
    scanned: u64,
}

impl UserWait {
    /// Server request `id` went to the user at `now_us`.
    pub fn asked(&mut self, id: IdKey, now_us: u64) {
        if self.pending.is_empty() {
            self.since_us = Some(now_us);
        }
        self.pending.push(id);
    }

    /// The user answered `id` (or it can no longer be answered).
    pub fn answered(&mut self, id: &IdKey, now_us: u64) {
        let before = self.pending.len();
        self.pending.retain(|p| p != id);
        if before > 0
            && self.pending.is_empty()
            && let Some(since) = self.since_us.take()
        {
            self.total_us = self.total_us.saturating_add(now_us.saturating_sub(since));
        }
    }

    /// Total waiting time up to `now_us`, after dropping the requests the
    /// server withdrew (`notifications/cancelled`) since the last look.
    pub fn paused_us(&mut self, store: &Store, now_us: u64) -> u64 {
        let end = store.next_seq();
        let from = self.scanned.max(store.first_seq());
        self.scanned = end;
        if !self.pending.is_empty() {
            let withdrawn: Vec<(IdKey, u64)> = store
                .range(from, end)
                .filter(|ev| ev.dir == Dir::In && ev.method == Some(methods::CANCELLED))
                .filter_map(|ev| {
                    let id = ev
                        .frame()
                        .params
                        .and_then(|p| serde_json::from_str::<Value>(p.get()).ok())
                        .and_then(|p| p.get("requestId").map(IdKey::from_value))?;
                    Some((id, ev.t_us))
                })
                .collect();
            for (id, t_us) in &withdrawn {
                self.answered(id, *t_us);
            }
        }
        let open = self.since_us.map_or(0, |s| now_us.saturating_sub(s));
        self.total_us.saturating_add(open)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::Dir;

    #[test]
    fn only_time_with_a_request_waiting_counts() {
        let store = Store::default();
        let mut w = UserWait::default();
        assert_eq!(w.paused_us(&store, 5_000), 0);
        w.asked(IdKey::Int(1), 10_000);
        assert_eq!(w.paused_us(&store, 12_000), 2_000);
        // A second one while the first waits: one interval, not two.
        w.asked(IdKey::Int(2), 13_000);
        w.answered(&IdKey::Int(1), 15_000);
        assert_eq!(w.paused_us(&store, 16_000), 6_000);
        w.answered(&IdKey::Int(2), 20_000);
        assert_eq!(w.paused_us(&store, 50_000), 10_000);
        // An answer to something never asked changes nothing.
        w.answered(&IdKey::Int(9), 60_000);
        assert_eq!(w.paused_us(&store, 70_000), 10_000);
    }

    #[test]
    fn a_request_the_server_withdrew_stops_the_clock_when_withdrawn() {
        let mut store = Store::default();
        let mut w = UserWait::default();
        w.asked(IdKey::Str("e1".into()), 1_000);
        store.append_frame(
            Dir::In,
            "stdio",
            4_000,
            br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"e1"}}"#,
            &mut Vec::new(),
        );
        assert_eq!(w.paused_us(&store, 9_000), 3_000);
        assert_eq!(w.paused_us(&store, 20_000), 3_000);
    }
}
