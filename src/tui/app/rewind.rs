//! A replay stepping back. The store is append-only, so the playback
//! starts the trace over and feeds it again up to the earlier event; here
//! every view made from the old store starts over too, keeping what the
//! user set (focus, filters, the Raw pane's mode and search, the clock,
//! the Scope's span and position), and is synced in full before the next
//! frame, so no half-built screen is ever drawn.
//!
//! Findings are not made again: the checks already judged these events
//! (their seqs are the same the second time). Those about events not yet
//! fed wait in `later_findings` and come back as the playback reaches them.

use super::App;
use crate::checks::Finding;
use crate::tui::panes::logs::LogsState;
use crate::tui::panes::network::NetworkState;
use crate::tui::panes::progress::ProgressState;
use crate::tui::panes::raw::RawState;
use crate::tui::panes::timeline::TimelineState;
use crate::tui::panes::tools::ToolsState;

impl App {
    /// The trace was started over and fed up to an earlier event: make the
    /// views again from it.
    pub(super) fn rewound(&mut self) {
        let p = &mut self.panes;
        let wall_clock = p.timeline.wall_clock;
        let tl = std::mem::take(&mut p.timeline.view);
        let logs = std::mem::take(&mut p.logs.view);
        let raw = std::mem::take(&mut p.raw);
        let selected = p.progress.selected_call().map(|c| c.request_seq);
        let mut progress = ProgressState::new(p.progress.stale_after_us);
        progress.byte_mode = p.progress.byte_mode;
        progress.details = p.progress.details;
        // Every call is new, as when it arrived: the newest is selected.
        progress.order.seen = Some(0);
        p.progress = progress;
        p.timeline = TimelineState {
            follow: true,
            wall_clock,
            ..TimelineState::default()
        };
        // Kind and text filters stay; a lane or channel (made of the old
        // store's rows) does not.
        p.timeline.view.set_filter(tl.kind, &tl.text);
        p.logs = LogsState {
            follow: true,
            ..LogsState::default()
        };
        p.logs.view.set_filter(logs.min, &logs.text, logs.stderr);
        p.raw = RawState {
            source: raw.source,
            bytes_mode: raw.bytes_mode,
            search: raw.search,
            ..RawState::default()
        };
        p.tools = ToolsState::default();
        p.network = NetworkState {
            follow: true,
            ..NetworkState::default()
        };
        // The Scope keeps where the user put it (span, position, cursor,
        // lanes); only its marks are taken in again.
        p.scope.index = Default::default();
        let known = std::mem::take(&mut p.findings).list;
        self.later_findings.splice(0..0, known);
        self.recorded = Default::default();
        let roots = std::mem::take(&mut self.overlays.asks.roots);
        self.overlays.asks = Default::default();
        self.overlays.asks.roots = roots;
        self.overlays.rounds = Default::default();
        let s = &mut self.shell.server;
        s.name.clear();
        s.version.clear();
        s.revision.clear();
        s.capabilities.clear();
        s.instructions = None;
        self.release_findings();
        // In full, now: the frame after the key shows the earlier screen.
        while self.sync() {}
        // The call the user had selected stays selected while it exists.
        let pr = &mut self.panes.progress;
        if let Some(at) = pr
            .order
            .list
            .iter()
            .position(|&i| selected == pr.calls.list.get(i).map(|c| c.request_seq))
        {
            pr.cursor.selected = at;
            while self.sync() {}
        }
        self.dirty = true;
    }

    /// Move the findings about events fed by now to the Findings pane.
    pub(super) fn release_findings(&mut self) {
        if self.later_findings.is_empty() {
            return;
        }
        let fed = self.trace.read().next_seq();
        let due = |f: &Finding| f.seqs.iter().all(|s| *s < fed);
        let (now, later): (Vec<Finding>, Vec<Finding>) = std::mem::take(&mut self.later_findings)
            .into_iter()
            .partition(due);
        self.later_findings = later;
        if !now.is_empty() {
            self.panes.findings.add(now);
            self.behind = true;
        }
    }
}
