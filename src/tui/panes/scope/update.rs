//! Scope input: the time scale (zoom), where the view is (following the
//! live edge or pinned where the user panned), the cursor column, the
//! selected lane, and Enter showing the event under the cursor elsewhere.
//! Everything here reads the pane's own index: no store, no lock.

use super::{SPANS_US, ScopeState, Window, span_label};
use crate::tui::action::Action;
use crate::tui::command::{Command, Commands};
use crate::tui::cursor::Cursor;
use crate::tui::panes::{Cx, PaneInput};
use ratatui::layout::Rect;

impl PaneInput for ScopeState {
    /// Up and down select a lane.
    fn scroll(&mut self, delta: isize, _cx: &Cx) -> Commands {
        let n = self.index.shown(self.streams).len();
        let mut c = Cursor {
            selected: self.lane,
            offset: self.lane_offset,
        };
        c.move_by(delta, n);
        self.lane = c.selected;
        Vec::new()
    }

    fn click(&mut self, item: Option<usize>, _cx: &Cx) -> Commands {
        if let Some(i) = item {
            self.lane = i;
        }
        Vec::new()
    }

    fn follow(&mut self) -> bool {
        self.follow = true;
        true
    }
}

impl ScopeState {
    /// The Scope's own keys; `cx.area` is where the pane is laid out.
    pub fn apply(&mut self, a: Action, cx: &Cx) -> Commands {
        let cols = super::plot_cols(cx.area.unwrap_or(Rect::new(0, 0, 160, 20)));
        let win = self.window(cols, cx.now_us);
        let edge = self.edge_us(cx.now_us);
        let col = self.cursor_col(cols);
        let step = (win.span_us / cols as u64).max(1);
        match a {
            Action::ZoomIn | Action::ZoomOut => {
                let to = if a == Action::ZoomIn {
                    self.span.saturating_sub(1)
                } else {
                    (self.span + 1).min(SPANS_US.len() - 1)
                };
                self.zoom_to(to, &win, col, edge);
                return vec![Command::Notice(format!(
                    "scope: {} per screen width",
                    span_label(self.span_us())
                ))];
            }
            Action::ZoomFit => {
                // From the start to the last event, and then it stays put
                // (a live session goes on past it; `f` follows again): the
                // same session gives the same screen, whenever `w` was hit.
                let last = self.index.last_us();
                self.span = SPANS_US
                    .iter()
                    .position(|s| *s >= last.max(1))
                    .unwrap_or(SPANS_US.len() - 1);
                if last == 0 {
                    self.follow = true;
                } else {
                    self.follow = false;
                    self.start_us = 0;
                }
            }
            Action::PanLeft => self.pin(win.start_us.saturating_sub(win.span_us / 2), edge),
            Action::PanRight => self.pin(win.start_us.saturating_add(win.span_us / 2), edge),
            Action::CursorLeft if col > 0 => self.col = col - 1,
            Action::CursorLeft => self.pin(win.start_us.saturating_sub(step), edge),
            Action::CursorRight if col + 1 < cols => {
                self.col = col + 1;
            }
            Action::CursorRight => self.pin(win.start_us.saturating_add(step), edge),
            Action::ToggleStreams => {
                self.streams = !self.streams;
                let n = self.index.shown(self.streams).len();
                self.lane = self.lane.min(n.saturating_sub(1));
                return vec![Command::Notice(if self.index.streams.is_empty() {
                    "scope: no HTTP streams in this session".into()
                } else if self.streams {
                    format!("scope: a lane per stream ({})", self.index.streams.len())
                } else {
                    "scope: stream lanes hidden".into()
                })];
            }
            Action::PrevEvent => return self.jump(false, &win, col, cx.now_us),
            Action::NextEvent => return self.jump(true, &win, col, cx.now_us),
            Action::ShowEvent => return self.show_event(&win, col),
            _ => {}
        }
        Vec::new()
    }

    /// Move the view's left edge to `start`: pinned there, unless that
    /// reaches the live edge, which it then follows.
    fn pin(&mut self, start: u64, edge: u64) {
        let span = self.span_us();
        if start.saturating_add(span) >= edge {
            self.follow = true;
        } else {
            self.follow = false;
            self.start_us = start;
        }
    }

    /// Zoom to `SPANS_US[to]`. Following, the right edge stays the live
    /// edge; pinned, the time under the cursor stays under it.
    fn zoom_to(&mut self, to: usize, win: &Window, col: usize, edge: u64) {
        self.span = to;
        if self.follow {
            return;
        }
        let at = win.col_start(col);
        let span = self.span_us();
        let left = (span as u128 * col as u128 / win.cols.max(1) as u128) as u64;
        self.pin(at.saturating_sub(left), edge);
    }

    /// Left/right: the cursor to the selected lane's next event (the
    /// first after the cursor's column) or previous one (the last before
    /// it). An event off screen pans the view to a quarter in from the
    /// side it came from, so what led to it stays in sight.
    fn jump(&mut self, forward: bool, win: &Window, col: usize, now_us: u64) -> Commands {
        let (lo, hi) = (
            win.col_start(col),
            win.col_start(col + 1).max(win.col_start(col) + 1),
        );
        let lanes = self.index.shown(self.streams);
        let Some(lane) = lanes.get(self.lane) else {
            return vec![Command::Notice("scope: nothing recorded yet".into())];
        };
        let to = if forward {
            lane.next_from(hi)
        } else {
            lane.prev_before(lo)
        };
        let Some(t) = to else {
            return vec![Command::Notice(format!(
                "scope: no {} event on lane {}",
                if forward { "later" } else { "earlier" },
                lane.label
            ))];
        };
        if let Some(c) = win.col_of(t) {
            self.col = c;
            return Vec::new();
        }
        let quarter = win.span_us / 4;
        let start = if forward {
            t.saturating_sub(win.span_us - quarter)
        } else {
            t.saturating_sub(quarter)
        };
        self.pin(start, self.edge_us(now_us));
        let w = self.window(win.cols, now_us);
        self.col = w.col_of(t).unwrap_or(w.cols - 1);
        Vec::new()
    }

    /// Enter: the event under the cursor in the selected lane (the first
    /// mark the column shows, else the lane's nearest), shown in the
    /// Timeline and Raw by the sync step.
    fn show_event(&self, win: &Window, col: usize) -> Commands {
        let lanes = self.index.shown(self.streams);
        let Some(lane) = lanes.get(self.lane) else {
            return vec![Command::Notice("scope: nothing recorded yet".into())];
        };
        let (lo, hi) = (
            win.col_start(col),
            win.col_start(col + 1).max(win.col_start(col) + 1),
        );
        match lane.top_in(lo, hi).or_else(|| lane.nearest(lo)) {
            Some((_, seq, _)) => vec![Command::ShowSeq(seq)],
            None => vec![Command::Notice(format!(
                "scope: no event on lane {}",
                lane.label
            ))],
        }
    }

    /// Sync step: keep the lane selection in range and the first lane
    /// drawn (in `h` rows) current.
    pub fn settle(&mut self, h: usize) {
        let lanes = self.index.shown(self.streams);
        self.lane = self.lane.min(lanes.len().saturating_sub(1));
        let heights: Vec<usize> = lanes.iter().map(|l| super::lane_height(l)).collect();
        self.lane_offset = super::first_lane(&heights, self.lane, self.lane_offset, h);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::panes::scope::{DEFAULT_SPAN, SPANS_US};

    fn cx(now_us: u64) -> Cx {
        Cx {
            rows: 10,
            area: Some(Rect::new(0, 0, 122, 20)),
            live: true,
            now_us,
        }
    }

    #[test]
    fn zoom_stops_at_1_ms_and_10_minutes() {
        let mut s = ScopeState::default();
        assert_eq!(s.span_us(), 10_000_000);
        for _ in 0..40 {
            s.apply(Action::ZoomIn, &cx(0));
        }
        assert_eq!(s.span_us(), 1_000);
        for _ in 0..40 {
            s.apply(Action::ZoomOut, &cx(0));
        }
        assert_eq!(s.span_us(), 600_000_000);
        assert_eq!(SPANS_US[DEFAULT_SPAN], 10_000_000);
    }

    #[test]
    fn following_keeps_the_live_edge_panning_pins_and_reaching_it_follows() {
        let mut s = ScopeState::default();
        let cols = super::super::plot_cols(Rect::new(0, 0, 122, 20));
        let now = 60_000_000;
        let w = s.window(cols, now);
        assert_eq!(w.end_us(), now, "following: the right edge is now");
        s.apply(Action::PanLeft, &cx(now));
        assert!(!s.follow);
        assert_eq!(s.window(cols, now).start_us, now - 10_000_000 - 5_000_000);
        // Time passes: a pinned view stays where it was put.
        assert_eq!(s.window(cols, now * 2).start_us, now - 15_000_000);
        s.apply(Action::PanRight, &cx(now));
        assert!(s.follow, "back at the live edge: following again");
        s.apply(Action::PanLeft, &cx(now));
        s.apply(Action::PanLeft, &cx(now));
        // The Follow key is the pane's follow mode.
        s.follow();
        assert_eq!(s.window(cols, now).end_us(), now);
    }

    #[test]
    fn zooming_a_pinned_view_keeps_the_time_under_the_cursor() {
        let mut s = ScopeState::default();
        let cols = super::super::plot_cols(Rect::new(0, 0, 122, 20));
        let now = 100_000_000;
        s.apply(Action::PanLeft, &cx(now));
        s.col = cols / 3;
        let before = s.window(cols, now).col_start(s.col);
        s.apply(Action::ZoomIn, &cx(now));
        let after = s.window(cols, now);
        assert_eq!(after.span_us, 5_000_000);
        assert!(after.col_start(s.col).abs_diff(before) <= after.span_us / cols as u64);
    }

    #[test]
    fn fit_shows_the_session_from_its_start_to_its_last_event() {
        let mut s = ScopeState::default();
        let cols = super::super::plot_cols(Rect::new(0, 0, 122, 20));
        // Nothing yet: the narrowest span, following.
        s.apply(Action::ZoomFit, &cx(0));
        assert_eq!(s.span_us(), 1_000);
        assert!(s.follow);
        // Idle after its events: pinned from 0 past the last event.
        s.index = crate::tui::panes::scope::index::tests::indexed(&[100, 2_400_000]);
        s.apply(Action::ZoomFit, &cx(60_000_000));
        assert_eq!(s.span_us(), 5_000_000);
        assert!(!s.follow);
        assert_eq!(s.window(cols, 60_000_000).start_us, 0);
        // A session whose last event is now: the same screen, which then
        // stays put while the session goes on.
        s.apply(Action::ZoomFit, &cx(2_400_000));
        assert!(!s.follow);
        assert_eq!(s.window(cols, 2_400_000).start_us, 0);
        assert_eq!(s.window(cols, 9_000_000).start_us, 0);
    }

    #[test]
    fn left_and_right_jump_from_event_to_event_and_pan_to_one_off_screen() {
        let mut s = ScopeState::default();
        let cols = super::super::plot_cols(Rect::new(0, 0, 122, 20));
        // Events at 1 s, 1.5 s and 30 s; a 10 s view following at 40 s.
        s.index =
            crate::tui::panes::scope::index::tests::indexed(&[1_000_000, 1_500_000, 30_000_000]);
        let now = 40_000_000;
        s.col = cols - 1;
        s.apply(Action::PrevEvent, &cx(now));
        let w = s.window(cols, now);
        assert!(s.follow, "30 s is on screen: no pan");
        assert!(w.col_start(s.col) <= 30_000_000 && 30_000_000 < w.col_start(s.col + 1));
        // 1.5 s is off screen: the view pans, the cursor lands on it.
        s.apply(Action::PrevEvent, &cx(now));
        let w = s.window(cols, now);
        assert!(!s.follow);
        assert!(w.col_start(s.col) <= 1_500_000 && 1_500_000 < w.col_start(s.col + 1));
        s.apply(Action::PrevEvent, &cx(now));
        let w = s.window(cols, now);
        assert!(w.col_start(s.col) <= 1_000_000 && 1_000_000 < w.col_start(s.col + 1));
        // Nothing earlier: the cursor stays and says so.
        let col = s.col;
        let said = s.apply(Action::PrevEvent, &cx(now));
        assert_eq!(s.col, col);
        assert!(matches!(&said[..], [Command::Notice(n)] if n.contains("no earlier event")));
        s.apply(Action::NextEvent, &cx(now));
        let w = s.window(cols, now);
        assert!(w.col_start(s.col) <= 1_500_000 && 1_500_000 < w.col_start(s.col + 1));
        s.apply(Action::NextEvent, &cx(now));
        let w = s.window(cols, now);
        assert!(w.col_start(s.col) <= 30_000_000 && 30_000_000 < w.col_start(s.col + 1));
        let said = s.apply(Action::NextEvent, &cx(now));
        assert!(matches!(&said[..], [Command::Notice(n)] if n.contains("no later event")));
    }

    #[test]
    fn the_cursor_pans_at_the_edges() {
        let mut s = ScopeState::default();
        let cols = super::super::plot_cols(Rect::new(0, 0, 122, 20));
        let now = 100_000_000;
        s.col = 0;
        let start = s.window(cols, now).start_us;
        s.apply(Action::CursorLeft, &cx(now));
        assert!(!s.follow);
        assert!(s.window(cols, now).start_us < start);
        s.apply(Action::CursorRight, &cx(now));
        assert_eq!(s.col, 1);
    }
}
