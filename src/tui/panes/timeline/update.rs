//! Timeline input: cursor and follow mode, kind and text filters, lanes
//! (one call's events) and channels, and the sync-time work the pane needs
//! (row count, the selected row's call, jumps to a finding's frame).

use super::{CallKey, TimelineState};
use crate::protocol::methods::{CANCELLED, PROGRESS};
use crate::protocol::views::{CancelledView, ProgressView};
use crate::trace::Store;
use crate::tui::action::Action;
use crate::tui::command::{Command, Commands};
use crate::tui::cursor::Cursor;
use crate::tui::overlays::status::InputTarget;
use crate::tui::pane::Pane;
use crate::tui::panes::{Cx, PaneInput};
use crate::tui::views::{ChannelLane, KindFilter, Lane};

impl PaneInput for TimelineState {
    fn scroll(&mut self, delta: isize, _cx: &Cx) -> Commands {
        let len = self.len;
        self.cursor.move_by(delta, len);
        // Scrolling stops following; reaching the end resumes it.
        self.follow = self.cursor.selected + 1 >= len;
        vec![Command::RawFollows(Pane::Timeline)]
    }

    fn click(&mut self, item: Option<usize>, _cx: &Cx) -> Commands {
        let len = self.len;
        if let Some(i) = item.filter(|i| *i < len) {
            self.cursor.selected = i;
            self.follow = i + 1 == len;
        }
        Vec::new()
    }

    fn filter(&self) -> Option<InputTarget> {
        Some(InputTarget::TimelineFilter)
    }

    fn filter_text(&self) -> String {
        self.view.text.clone()
    }

    fn set_filter(&mut self, text: &str) {
        let k = self.view.kind;
        self.view.set_filter(k, text);
        // Backspace clears both filters.
        if text.is_empty() {
            self.set_expr("");
        }
    }

    fn follow(&mut self) -> bool {
        self.follow = true;
        true
    }
}

impl TimelineState {
    /// The filter expression as it is being typed: applied whenever it
    /// parses, else the last one that did stays and the title says why.
    pub fn set_expr(&mut self, text: &str) {
        self.expr_text = text.to_string();
        if text.trim().is_empty() {
            self.expr_error = None;
            if self.view.expr().is_some() {
                self.view.set_expr(None);
            }
            return;
        }
        match crate::filter::Filter::parse(text) {
            Ok(f) => {
                self.expr_error = None;
                if self.view.expr() != Some(f.source()) {
                    self.view.set_expr(Some(f));
                }
            }
            Err(e) => self.expr_error = Some(e.to_string()),
        }
    }

    /// The timeline's own keys (whatever pane has focus: the key map decides).
    pub fn apply(&mut self, a: Action) -> Commands {
        match a {
            Action::CycleKind | Action::CycleKindBack => {
                let k = self.view.kind.step(a == Action::CycleKind);
                let text = self.view.text.clone();
                self.view.set_filter(k, &text);
                vec![Command::Rescan]
            }
            Action::FilterExpr => vec![Command::Input(InputTarget::TimelineExpr)],
            Action::ClearLane => {
                self.view.lane = None;
                self.view.channel = None;
                vec![Command::Rescan]
            }
            _ => Vec::new(),
        }
    }

    /// Times since the start ↔ by the wall clock (when the start is known).
    pub fn toggle_clock(&mut self, wall_known: bool) -> Commands {
        if !wall_known {
            self.wall_clock = false;
            return vec![Command::Notice(
                "times stay since the session started: its wall-clock start is not known".into(),
            )];
        }
        self.wall_clock = !self.wall_clock;
        vec![Command::Notice(
            if self.wall_clock {
                "timeline times: by the wall clock (UTC)"
            } else {
                "timeline times: since the session started"
            }
            .into(),
        )]
    }

    /// Esc in the Timeline leaves a lane or channel view.
    pub fn back(&mut self) -> Commands {
        let v = &mut self.view;
        if v.lane.is_none() && v.channel.is_none() {
            return Vec::new();
        }
        v.lane = None;
        v.channel = None;
        vec![Command::Rescan]
    }

    /// Narrow the timeline to one call's events.
    pub fn show_lane(&mut self, lane: Lane) {
        self.view.lane = Some(lane);
        self.view.channel = None;
        self.follow = false;
        self.cursor = Cursor::default();
    }

    /// Narrow the timeline to one HTTP channel's events.
    pub fn show_channel(&mut self, lane: ChannelLane) {
        self.view.lane = None;
        self.view.channel = Some(lane);
        self.follow = false;
        self.cursor = Cursor::default();
    }

    /// Sync step: the row count, follow mode, the window (`h` rows), and
    /// which call the selected row belongs to (read only when the
    /// selection changed).
    pub fn settle(&mut self, store: &Store, h: usize) {
        self.len = self.view.len(store);
        self.cursor.refit(self.len, h, self.follow);
        let seq = self.view.seq_at(self.cursor.selected, store);
        if seq != self.selected_seq {
            self.selected_seq = seq;
            self.selected_call = seq.and_then(|s| call_of(store, s));
        }
    }

    /// Sync step for a finding's frame: select frame `seq`. A filter or
    /// lane that hides it is dropped: seeing the evidence comes first.
    /// Returns whether one was, or None when the frame was evicted.
    pub fn show_seq(&mut self, store: &Store, seq: u64) -> Option<bool> {
        if seq < store.first_seq() || seq >= store.next_seq() {
            return None;
        }
        let mut cleared = false;
        let pos = self.view.position_of(seq, store);
        if self.view.seq_at(pos, store) != Some(seq) {
            self.view.lane = None;
            self.view.channel = None;
            self.view.set_filter(KindFilter::All, "");
            cleared = true;
        }
        self.cursor.selected = self.view.position_of(seq, store);
        self.follow = false;
        Some(cleared)
    }
}

fn call_of(store: &Store, seq: u64) -> Option<CallKey> {
    let ev = store.get(seq)?;
    let f = ev.frame();
    Some(match f.method.as_deref() {
        Some(PROGRESS) => CallKey::Token(ProgressView::parse(f.params).ok()?.token_key()),
        Some(CANCELLED) => CallKey::Id(CancelledView::parse(f.params)?.request_id),
        _ => CallKey::Id(f.id?),
    })
}
