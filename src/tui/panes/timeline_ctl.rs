//! Timeline input: cursor and follow mode, kind and text filters, lanes
//! (one call's events), and the sync-time work the pane needs (row count,
//! the selected row's call, jumps to a finding's frame).

use crate::protocol::methods::{CANCELLED, PROGRESS};
use crate::protocol::views::{CancelledView, ProgressView};
use crate::trace::Store;
use crate::tui::action::Action;
use crate::tui::layout;
use crate::tui::panes::ctl::{self, Controller, Out};
use crate::tui::state::{CallKey, Cursor, InputTarget, Pane, State};
use crate::tui::views::{KindFilter, Lane};

pub struct Ctl;

impl Controller for Ctl {
    fn scroll(&self, st: &mut State, delta: isize) {
        let len = st.timeline.len;
        st.timeline.cursor.move_by(delta, len);
        // Scrolling stops following; reaching the end resumes it.
        st.timeline.follow = st.timeline.cursor.selected + 1 >= len;
        st.raw_source = Pane::Timeline;
    }

    fn click(&self, st: &mut State, item: Option<usize>) {
        let len = st.timeline.len;
        if let Some(i) = item.filter(|i| *i < len) {
            st.timeline.cursor.selected = i;
            st.timeline.follow = i + 1 == len;
        }
    }

    fn filter(&self) -> Option<InputTarget> {
        Some(InputTarget::TimelineFilter)
    }

    fn clear_filter(&self, st: &mut State) {
        let k = st.timeline.view.kind;
        st.timeline.view.set_filter(k, "");
    }
}

/// The timeline's own keys (whatever pane has focus: the key map decides).
pub fn apply(st: &mut State, a: Action, out: &mut Out) {
    match a {
        Action::CycleKind | Action::CycleKindBack => {
            let tl = &mut st.timeline;
            let k = tl.view.kind.step(a == Action::CycleKind);
            let text = tl.view.text.clone();
            tl.view.set_filter(k, &text);
            out.behind = true;
        }
        Action::ClearLane => {
            st.timeline.view.lane = None;
            st.timeline.view.channel = None;
            out.behind = true;
        }
        Action::ShowLane => show_lane(st, out),
        _ => {}
    }
}

/// Esc in the Timeline leaves a lane or channel view.
pub fn back(st: &mut State, out: &mut Out) -> bool {
    let v = &mut st.timeline.view;
    if v.lane.is_none() && v.channel.is_none() {
        return false;
    }
    v.lane = None;
    v.channel = None;
    out.behind = true;
    true
}

/// Narrow the timeline to the selected call's events.
fn show_lane(st: &mut State, out: &mut Out) {
    let Some(call) = ctl::selected_call(st) else {
        return;
    };
    let lane = Lane::new(call.id.clone(), call.token.clone());
    let tl = &mut st.timeline;
    tl.view.lane = Some(lane);
    tl.view.channel = None;
    tl.follow = false;
    tl.cursor = Cursor::default();
    ctl::focus(st, Pane::Timeline, out);
}

/// Sync step: the row count, follow mode, the window, and which call the
/// selected row belongs to (read only when the selection changed).
pub fn settle(st: &mut State, store: &Store) {
    let h = layout::list_height(st, Pane::Timeline);
    let tl = &mut st.timeline;
    tl.len = tl.view.len(store);
    tl.cursor.refit(tl.len, h, tl.follow);
    let seq = tl.view.seq_at(tl.cursor.selected, store);
    if seq != tl.selected_seq {
        tl.selected_seq = seq;
        tl.selected_call = seq.and_then(|s| call_of(store, s));
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

/// Sync step for Enter in Findings: select frame `seq` in the Timeline. A
/// filter or lane that hides it is dropped: seeing the evidence comes
/// first. Returns whether one was, or None when the frame was evicted.
pub fn show_seq(st: &mut State, store: &Store, seq: u64) -> Option<bool> {
    if seq < store.first_seq() || seq >= store.next_seq() {
        return None;
    }
    let tl = &mut st.timeline;
    let mut cleared = false;
    let pos = tl.view.position_of(seq, store);
    if tl.view.seq_at(pos, store) != Some(seq) {
        tl.view.lane = None;
        tl.view.channel = None;
        tl.view.set_filter(KindFilter::All, "");
        cleared = true;
    }
    tl.cursor.selected = tl.view.position_of(seq, store);
    tl.follow = false;
    st.raw_source = Pane::Timeline;
    Some(cleared)
}
