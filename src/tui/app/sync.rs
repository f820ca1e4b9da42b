//! The App's sync step: the only place the update side reads the store.
//! It pulls what the store gained (bounded per call, so a filter rebuild
//! over a million events is spread over frames), does the store reads an
//! update left behind (`Pull`s), and re-fits cursors and caches to what
//! the views now hold. Each call takes the read lock once.

use crate::trace::Store;
use crate::tui::action::Effect;
use crate::tui::app::App;
use crate::tui::panes::ctl::{After, Out, Pull};
use crate::tui::panes::*;
use crate::tui::state::Conn;
use crate::tui::ui;
use ratatui::layout::Rect;

/// Events a view scans per sync: a filter rebuild over a million events is
/// spread over several frames instead of freezing one.
const SYNC_BUDGET: u64 = 250_000;

impl App {
    /// Pull what the store gained. Holds the read lock for one bounded pass.
    /// Returns true when a view still has work (call again next tick).
    pub fn sync(&mut self) -> bool {
        let trace = self.trace.clone();
        let store = trace.read();
        self.sync_with(&store)
    }

    pub fn sync_with(&mut self, store: &Store) -> bool {
        let st = &mut self.state;
        st.now_us = self.trace.now_us();
        let before = (st.events, st.calls.list.len());
        st.events = store.len();
        let withdrawn = st.asks.sync(store);
        if withdrawn > 0 {
            st.notice = Some(format!("the server withdrew {withdrawn} request(s)"));
            self.dirty = true;
        }
        if st.browse.sync(store) {
            self.dirty = true;
        }
        if crate::tui::recorded::Recorded::sync(self, store) {
            self.dirty = true;
        }
        let st = &mut self.state;
        st.evicted = store.evicted();
        let mut done = st.calls.sync(store, SYNC_BUDGET);
        if crate::tui::input_rounds::sync(st, store) > 0 {
            self.dirty = true;
        }
        if let Some(why) = st.calls.exit_note.take()
            && st.live
        {
            st.conn = Conn::Exited(why);
        }
        let tl = st.timeline.view.sync(store, SYNC_BUDGET);
        st.timeline.rebuilding = !tl;
        done &= tl;
        done &= st.logs.view.sync(store, SYNC_BUDGET as usize);
        let exchanges = st.network.view.len();
        done &= st.network.view.sync(store, SYNC_BUDGET);
        if st.network.view.len() != exchanges {
            self.dirty = true;
        }
        if (st.events, st.calls.list.len()) != before || !done {
            self.dirty = true;
        }
        if st.calls.running() > 0 {
            // Elapsed times and countdowns move even without new events.
            self.dirty = true;
        }
        done &= self.settle(store);
        self.behind = !done;
        self.behind
    }

    /// Apply follow modes, clamp cursors, keep the Raw lines and the
    /// selected call's timing current. Returns false when the timing has
    /// more to take in (a call with very many notifications, just selected).
    pub(super) fn settle(&mut self, store: &Store) -> bool {
        let st = &mut self.state;
        timeline_ctl::settle(st, store);
        logs_ctl::settle(st);
        let (caught_up, timing_moved) = progress_ctl::settle(st, store);
        tools_ctl::settle(st);
        browse_ctl::settle(st);
        findings_ctl::settle(st);
        network_ctl::settle(st);
        let raw_remade = raw_ctl::refresh(st, store);
        if timing_moved || raw_remade {
            self.dirty = true;
        }
        caught_up
    }

    /// The sync step after an update: one read lock for the update's pulls,
    /// then what `after` asks. Returns the update's effects and the pulls'.
    pub(super) fn finish(&mut self, out: Out, after: After) -> Vec<Effect> {
        self.behind |= out.behind;
        let mut effects = out.effects;
        if out.pulls.is_empty() && after == After::Pulls {
            return effects;
        }
        let trace = self.trace.clone();
        let store = trace.read();
        for p in out.pulls {
            effects.extend(self.resolve(p, &store));
        }
        match after {
            After::Pulls => {}
            After::Sync => {
                self.sync_with(&store);
            }
            After::SyncIfBehind if self.behind => {
                self.sync_with(&store);
            }
            After::Settle | After::SyncIfBehind => {
                if !self.settle(&store) {
                    self.behind = true;
                }
            }
        }
        effects
    }

    fn resolve(&mut self, pull: Pull, store: &Store) -> Vec<Effect> {
        let st = &mut self.state;
        let mut out = Out::default();
        match pull {
            Pull::ShowFrame { seq, rule, k, n } => {
                findings_ctl::resolve_show_frame(st, store, seq, rule, k, n)
            }
            Pull::Expand(seq) => logs_ctl::expand(st, store, seq),
            Pull::Copy => out.effects.extend(raw_ctl::copy(st, store)),
            Pull::Answer { id, seq, input } => progress_ctl::resolve_answer(
                st,
                store,
                &mut self.answers,
                (id, seq, &input),
                &mut out,
            ),
            Pull::FailCall { id, why } => {
                self.sync_with(store);
                let st = &mut self.state;
                st.calls.fail(&id, &why, st.now_us);
            }
            Pull::Click(ev) => {
                let area = Rect::new(0, 0, st.width, st.height);
                let map = ui::prepare(area, st, store).map;
                let after = self.mouse(ev, &map);
                if after == After::Settle && !self.settle(store) {
                    self.behind = true;
                }
            }
        }
        self.behind |= out.behind;
        out.effects
    }
}
