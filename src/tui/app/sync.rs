//! The App's sync step: the only place the update side reads the store.
//! It pulls what the store gained (bounded per call, so a filter rebuild
//! over a million events is spread over frames), runs the commands an
//! update left that read the store, and re-fits cursors and caches to what
//! the views now hold. Each call takes the read lock once.

use super::{App, Then};
use crate::trace::Store;
use crate::tui::action::Effect;
use crate::tui::command::Command;
use crate::tui::input_rounds::{self, RoundsCx};
use crate::tui::layout;
use crate::tui::pane::Pane;
use crate::tui::panes::Fit;
use crate::tui::panes::findings::update::shown;
use crate::tui::panes::progress::update::retry;
use crate::tui::panes::raw::update::target;
use crate::tui::recorded::Found;
use crate::tui::shell::Conn;
use crate::tui::ui;
use ratatui::layout::Rect;

/// Events a view scans per sync: a filter rebuild over a million events is
/// spread over several frames instead of freezing one.
const SYNC_BUDGET: u64 = 250_000;

/// Events a view scans per slice of [`App::sync_until`]: small enough that
/// the clock is asked often (a slice costs well under a millisecond).
pub(super) const SLICE: u64 = 4_096;

impl App {
    /// Pull what the store gained. Holds the read lock for one bounded pass.
    /// Returns true when a view still has work (call again next tick).
    pub fn sync(&mut self) -> bool {
        let trace = self.trace.clone();
        let store = trace.read();
        self.sync_with(&store)
    }

    pub fn sync_with(&mut self, store: &Store) -> bool {
        let done = self.take_in(store, SYNC_BUDGET);
        self.settle_after(store, done)
    }

    /// Take in what the store gained in slices of [`SLICE`] events a view
    /// until `enough` says stop (asked after each slice; at most
    /// [`SYNC_BUDGET`] events a view in all), then settle. The runtime
    /// stops on its clock, so the read lock is held, and a key waits, for
    /// about one slice; nothing is skipped, the next call goes on from
    /// there. Returns true when a view still has work.
    pub fn sync_until(&mut self, store: &Store, mut enough: impl FnMut() -> bool) -> bool {
        let mut done = self.take_in(store, SLICE);
        let mut taken = SLICE;
        while !done && taken < SYNC_BUDGET && !enough() {
            done = self.take_in(store, SLICE);
            taken += SLICE;
        }
        self.settle_after(store, done)
    }

    /// The step before a frame drawn for a key: clocks move and the views
    /// re-fit, but nothing new is taken in, so the key's frame never waits
    /// behind a backlog (the next slice takes it in).
    pub fn settle_frame(&mut self, store: &Store) {
        self.shell.now_us = self.trace.now_us();
        if !self.settle(store) {
            self.behind = true;
        }
    }

    fn settle_after(&mut self, store: &Store, done: bool) -> bool {
        let done = done & self.settle(store);
        self.behind = !done;
        self.behind
    }

    /// One pass over what the store gained, at most `budget` events a
    /// view. Returns true when every view has caught up.
    fn take_in(&mut self, store: &Store, budget: u64) -> bool {
        self.shell.now_us = self.trace.now_us();
        let before = (self.shell.events, self.panes.progress.calls.list.len());
        self.shell.events = store.len();
        let withdrawn = self.overlays.asks.sync(store);
        if withdrawn > 0 {
            self.shell.notice = Some(format!(
                "the server withdrew {}",
                crate::tui::format::count(withdrawn as u64, "request", "requests")
            ));
            self.dirty = true;
        }
        if self.panes.tools.browse.sync(store) {
            self.dirty = true;
        }
        let found = self.recorded.sync(self.shell.live, store);
        if !found.is_empty() {
            self.dirty = true;
        }
        for f in found {
            match f {
                Found::Server(init) => self.set_server(&init),
                Found::Tools(tools) => self.set_tools(&tools),
                Found::Listing(req, v) => {
                    self.panes.tools.browse.on_reply(req, Ok(v));
                }
            }
        }
        self.shell.evicted = store.evicted();
        // The panes take in what the store gained (Progress its calls).
        let pulled = self.panes.pull(store, budget);
        let done = pulled.done;
        if pulled.changed {
            self.dirty = true;
        }
        let mut rounds = RoundsCx {
            live: self.shell.live,
            now_us: self.shell.now_us,
            calls: &mut self.panes.progress.calls,
            asks: &mut self.overlays.asks,
            rounds: &mut self.overlays.rounds,
            fallback: self.panes.composer.limits(),
            notice: None,
        };
        if input_rounds::sync(&mut rounds, store) > 0 {
            self.dirty = true;
        }
        if let Some(n) = rounds.notice {
            self.shell.notice = Some(n);
        }
        let p = &mut self.panes;
        // An exit the restart under way caused, or one from before the
        // last restart, says nothing about the session now.
        if let Some((seq, why)) = p.progress.calls.exit_note.take()
            && self.shell.live
            && !self.restart.restarting
            && self.restart.marker.is_none_or(|m| seq > m)
        {
            self.shell.conn = Conn::Exited(why);
        }
        if (self.shell.events, p.progress.calls.list.len()) != before || !done {
            self.dirty = true;
        }
        if p.progress.calls.running() > 0 {
            // Elapsed times and countdowns move even without new events.
            self.dirty = true;
        }
        done
    }

    /// Apply follow modes, clamp cursors (each pane's `refit`, to the room
    /// the layout gives it), keep the Raw lines and the selected call's
    /// timing current. Returns false when the timing has
    /// more to take in (a call with very many notifications, just selected).
    pub(super) fn settle(&mut self, store: &Store) -> bool {
        let v = self.view();
        let lay = self.layout();
        let fits = Pane::ORDER.map(|p| match lay.rect(p) {
            Some(r) => {
                let inner = r.height.saturating_sub(2);
                Fit {
                    rows: v.pane(p).list_rows(inner),
                    inner_rows: inner as usize,
                }
            }
            None => Fit::default(),
        });
        let raw_width = layout::inner_width(&v, Pane::Raw).saturating_sub(1);
        let p = &mut self.panes;
        let fitted = p.refit(store, |pane| fits[pane.number() - 1]);
        let seq = target(p, store);
        let raw_remade = p.raw.refresh(store, seq, raw_width);
        if fitted.changed || raw_remade {
            self.dirty = true;
        }
        fitted.done
    }

    /// The sync step after an update: one read lock for the commands that
    /// read the store, then what `then` asks. Returns the update's effects.
    pub(super) fn finish(&mut self, then: Then) -> Vec<Effect> {
        let rescan = std::mem::take(&mut self.rescan);
        if !self.queued.is_empty() || then != Then::Nothing {
            let trace = self.trace.clone();
            let store = trace.read();
            while !self.queued.is_empty() {
                for c in std::mem::take(&mut self.queued) {
                    self.run(c, &store);
                }
            }
            match then {
                Then::Nothing => {}
                Then::Sync => {
                    self.sync_with(&store);
                }
                Then::SyncIfRescan if rescan => {
                    self.sync_with(&store);
                }
                Then::Settle | Then::SyncIfRescan => {
                    if !self.settle(&store) {
                        self.behind = true;
                    }
                }
            }
        }
        std::mem::take(&mut self.effects)
    }

    /// One command that reads the store.
    fn run(&mut self, c: Command, store: &Store) {
        match c {
            Command::ShowFrame { seq, rule, k, n } => {
                let cleared = self.panes.timeline.show_seq(store, seq);
                if cleared.is_some() {
                    self.panes.raw.source = Pane::Timeline;
                }
                self.shell.notice = Some(shown(seq, rule, k, n, cleared));
            }
            Command::ShowSeq(seq) => match self.panes.timeline.show_seq(store, seq) {
                Some(cleared) => {
                    self.panes.raw.source = Pane::Timeline;
                    self.focus(Pane::Timeline);
                    self.shell.notice = Some(if cleared {
                        format!(
                            "event #{seq} in Timeline and Raw (the timeline's filter was dropped)"
                        )
                    } else {
                        format!("event #{seq} in Timeline and Raw (9 goes back to the Scope)")
                    });
                }
                None => {
                    self.shell.notice = Some(format!("event #{seq} was evicted from memory"));
                }
            },
            Command::Expand(seq) => self.panes.logs.expand(store, seq),
            Command::SaveTest => {
                let cmds = self.save_test(store);
                self.route(cmds);
            }
            Command::SaveHtml => {
                let cmds = self.save_html(store);
                self.route(cmds);
            }
            Command::CopyFrame => {
                let cmds = self.panes.raw.copy(store);
                self.route(cmds);
            }
            Command::Answer { id, seq, input } => {
                match retry(store, &mut self.answers, &id, seq, &input) {
                    Ok((msg, notice)) => {
                        self.panes.composer.load_raw(&msg, &self.shell.theme);
                        self.shell.notice = Some(notice);
                        self.route(vec![Command::Focus(Pane::Composer)]);
                    }
                    Err(notice) => self.shell.notice = Some(notice),
                }
            }
            Command::FailCall { id, why } => {
                self.sync_with(store);
                let now = self.shell.now_us;
                self.panes.progress.calls.fail(&id, &why, now);
            }
            Command::Click(ev) => {
                let area = Rect::new(0, 0, self.shell.width, self.shell.height);
                let map = ui::prepare(area, &self.view(), store).map;
                if self.mouse(ev, &map) && !self.settle(store) {
                    self.behind = true;
                }
            }
            other => self.route(vec![other]),
        }
    }
}
